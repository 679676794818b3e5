"""The workspace's `.agent-tui/` (sessions, logs, locks) keeps itself out of git: a `git add -A` after a
session no longer commits the conversation; the workspace's `config.toml` can still be committed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.git_ignore import IGNORE_TEXT, keep_out_of_git
from agent_tui.store.workspace import Workspace


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def test_a_session_leaves_git_status_clean_and_config_committable(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "app.py").write_text("print('hi')\n")
    ws = Workspace(root, settings=Settings.default(window=16_384))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Fix the parser; the token is in .env")
        eng.assemble()
    finally:
        ws.close()
    assert (root / ".agent-tui" / "memory.db").is_file()
    assert ".agent-tui" not in _git(root, "status", "--porcelain", "--untracked-files=all")
    (root / ".agent-tui" / "config.toml").write_text("[approval]\ndefault_write = \"ask\"\n")
    _git(root, "add", "-A")
    staged = _git(root, "diff", "--cached", "--name-only").split()
    assert staged == [".agent-tui/config.toml", "app.py"]


def test_an_existing_file_or_a_link_is_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / ".agent-tui"
    folder.mkdir()
    (folder / ".gitignore").write_text("mine\n")
    assert not keep_out_of_git(folder) and (folder / ".gitignore").read_text() == "mine\n"
    (folder / ".gitignore").unlink()
    target = tmp_path / "outside.txt"
    (folder / ".gitignore").symlink_to(target)  # dangling: writing through it would create the target
    assert not keep_out_of_git(folder) and not target.exists()
    (folder / ".gitignore").unlink()
    assert keep_out_of_git(folder) and (folder / ".gitignore").read_text() == IGNORE_TEXT
    assert not keep_out_of_git(None) and not keep_out_of_git(tmp_path / "missing")


def test_a_folder_made_later_under_agent_tui_is_ignored_too(tmp_path: Path) -> None:
    """With the store elsewhere (store_path), `.agent-tui/` is first made by the session lock or the MCP logs:
    a review found `?? .agent-tui/locks/x.lock` in git status, and no .gitignore."""
    from agent_tui.core.store_owner import agent_subdir

    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q")
    assert agent_subdir(root, "locks") is not None and not (root / ".agent-tui").exists(), "asking makes nothing"
    locks = agent_subdir(root, "locks", make=True)  # (what the session lock does)
    assert locks is not None and locks.is_dir()
    (locks / "x.lock").write_text("")
    assert _git(root, "status", "--porcelain", "--untracked-files=all") == ""
