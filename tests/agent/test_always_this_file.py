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
