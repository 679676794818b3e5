"""A repository's shipped symlink is not reached unasked through a glob word or a link-following walk.

Git keeps links, so a clone can hold ``docs/notes.txt -> ~/.ssh/id_rsa``.  ``cat docs/notes.txt`` was
always asked; these tests pin the spellings the path check used to read as the pattern itself
(``docs/note?.txt``, ``doc[s]/notes.txt``) and the options that follow links by themselves (``grep -R``,
``rg -L``, ``find -L``, ``tar -h``), in the sandbox and on the host, plus the host-only reach into
``.git`` through a link an earlier command planted.  What such a line does without links stays allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import command_rules_links
from agent_tui.agent.permissions import Policy

ALLOWED = ["cat", "grep", "rg", "find", "tar", "cp", "echo", "tee", "ls", "bash", "xargs"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE\n")
    (home / ".bashrc").write_text("# rc\n")
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "docs" / "readme.md").write_text("hi\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "docs" / "notes.txt").symlink_to(home / ".ssh" / "id_rsa")
    (root / "docs" / "out.txt").symlink_to(home / ".bashrc")
    return root


def decide(ws: Path, line: str, *, sandboxed: bool, outside: bool = False) -> tuple[str, str]:
    p = Policy.from_config({"allow_commands": ALLOWED, "allow_outside_commands": ALLOWED},
                           interactive=True, workspace=ws)
    p.sandboxed = sandboxed
    v = p.verdict("run_command", "command", {"command": line, "outside_sandbox": outside})
    return v.decision, v.reason


@pytest.mark.parametrize("line", [
    "cat docs/note?.txt", "cat doc[s]/notes.txt", "cat docs/[n]otes.txt docs/readme.md", "cat docs/ou[^x].txt",
    "cat \"doc\"[s]/notes.txt", "echo pwn | tee -a docs/ou[t].txt", "cp docs/readme.md docs/ou?.txt",
    "bash -c 'cat docs/note?.txt'", "echo x | xargs cat docs/n*",
])
@pytest.mark.parametrize("where", ["sandbox", "host", "outside"])
def test_a_pattern_that_expands_to_a_link_leading_out_is_asked(ws: Path, line: str, where: str) -> None:
    decision, reason = decide(ws, line, sandboxed=where != "host", outside=where == "outside")
    assert decision == "ask" and "a pattern expands to a path outside the workspace" in reason, reason


@pytest.mark.parametrize("line", ["grep -R . docs", "grep -Rn x src docs", "grep --dereference-recursive x docs",
                                  "rg -L . docs", "rg --follow x", "find -L . -type f", "find docs -follow",
                                  "tar -chf - docs"])
@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_walk_that_follows_links_is_asked_while_one_leads_out(ws: Path, line: str, sandboxed: bool) -> None:
    decision, reason = decide(ws, line, sandboxed=sandboxed)
    assert decision == "ask" and "follows symbolic links" in reason and "docs/" in reason, reason


@pytest.mark.parametrize("line", ["grep -R x src", "grep -rn x docs", "rg x docs", "find . -type f", "cat docs/*.md",
                                  "ls src/*", "cat docs/note\\?.txt", "tar -cf - src"])
def test_the_same_lines_without_a_link_in_reach_stay_allowed(ws: Path, line: str) -> None:
    decision, reason = decide(ws, line, sandboxed=True)
    assert decision == "allow", reason


def test_a_virtualenvs_link_to_the_system_python_does_not_count(ws: Path) -> None:
    (ws / "docs" / "notes.txt").unlink()
    (ws / "docs" / "out.txt").unlink()
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")
    assert decide(ws, "grep -R x .", sandboxed=True)[0] == "allow"


def test_on_the_host_a_pattern_into_git_through_a_planted_link_is_asked(ws: Path) -> None:
    (ws / "build").mkdir()
    (ws / "build" / "x").symlink_to(ws / ".git" / "hooks" / "pre-commit")
    decision, reason = decide(ws, "cp payload build/?", sandboxed=False)
    assert decision == "ask" and "git's or agent-tui's files" in reason, reason
    assert decide(ws, "cp payload build/?", sandboxed=True)[0] == "allow", "the sandbox keeps .git read-only"


def test_a_pattern_bash_would_read_differently_is_asked(ws: Path) -> None:
    decision, reason = decide(ws, "ls doc[[:alpha:]]s", sandboxed=True)
    assert decision == "ask" and "cannot expand for certain" in reason, reason


def test_a_pattern_or_tree_too_large_to_check_is_asked(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_rules_links, "MAX_MATCHES", 1)
    monkeypatch.setattr(command_rules_links, "MAX_WALK", 2)
    for name in ("b.py", "c.py"):
        (ws / "src" / name).write_text("y\n")
    assert "too many paths" in decide(ws, "cat src/*.py", sandboxed=True)[1]
    assert "too large to check" in decide(ws, "grep -R x src", sandboxed=True)[1]
