"""'Always, this file' in the approval dialog covers that file, whichever write tool touches it next: a tester
allowed an edit of notes.txt always and was asked again when the model rewrote notes.txt with write_file."""

from __future__ import annotations

from agent_tui.agent.permissions import Policy


def test_always_on_a_file_covers_an_edit_and_a_rewrite_of_that_file_only() -> None:
    policy = Policy()
    policy.remember("edit_file", {"path": "./notes.txt", "old_text": "a", "new_text": "b"})
    assert policy.decide("write_file", "write", {"path": "notes.txt", "content": "x"}) == "allow"
    assert policy.decide("edit_file", "write", {"path": "notes.txt", "old_text": "x", "new_text": "y"}) == "allow"
    assert policy.decide("write_file", "write", {"path": "other.txt", "content": "x"}) == "ask"
    assert "notes.txt" in policy.verdict("write_file", "write", {"path": "notes.txt", "content": "x"}).reason

    other = Policy()
    other.remember("write_file", {"path": "a.txt", "content": "x"})
    assert other.decide("edit_file", "write", {"path": "a.txt", "old_text": "x", "new_text": "y"}) == "allow"
    assert other.decide("run_command", "command", {"command": "cat a.txt"}) == "ask"


def test_the_file_allowed_is_the_file_the_tools_write_through_links(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """(A review's case.)  `lnk/../notes.txt` with `lnk -> sub/deep` is `sub/notes.txt` on disk; the rule was kept
    under `notes.txt`, another file, which a rewrite then overwrote unasked."""
    import os

    root = tmp_path.resolve()
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "notes.txt").write_text("scratch\n")
    (root / "notes.txt").write_text("important\n")
    os.symlink("sub/deep", root / "lnk")
    policy = Policy.from_config({}, workspace=root)
    policy.remember("edit_file", {"path": "lnk/../notes.txt", "old_text": "scratch", "new_text": "x"})
    assert policy.decide("write_file", "write", {"path": "notes.txt", "content": "wiped"}) == "ask"
    assert policy.decide("write_file", "write", {"path": "sub/notes.txt", "content": "x"}) == "allow"
    policy.remember("write_file", {"path": "../outside.txt", "content": "x"})  # refused by the tools: nothing kept
    assert policy.decide("write_file", "write", {"path": "other.txt", "content": "x"}) == "ask"
    assert "write_file" not in policy.always
