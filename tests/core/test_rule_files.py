"""`# rule` at the prompt: appended to the project's AGENTS.md, never through a link out of the project."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.core.rule_files import NEW_FILE_HEADER, RuleFileError, append_rule, target_file


def _project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    return ws


def test_a_rule_goes_into_the_projects_file_and_keeps_its_mode(tmp_path: Path) -> None:
    ws = _project(tmp_path)
    (ws / "AGENTS.md").write_text("# Rules\n- keep it short")
    os.chmod(ws / "AGENTS.md", 0o640)
    path = append_rule(target_file(ws, "project"), "Use   pnpm,\nnever npm", ws)
    assert path == (ws / "AGENTS.md").resolve()
    assert (ws / "AGENTS.md").read_text() == "# Rules\n- keep it short\n- Use pnpm, never npm\n"
    assert (ws / "AGENTS.md").stat().st_mode & 0o777 == 0o640
    fresh = _project(tmp_path / "b")
    append_rule(target_file(fresh, "project"), "x", fresh)
    assert (fresh / "AGENTS.md").read_text() == NEW_FILE_HEADER + "- x\n"


def test_a_link_inside_the_project_is_followed_to_its_file(tmp_path: Path) -> None:
    ws = _project(tmp_path)
    (ws / "CLAUDE.md").write_text("- one\n")
    (ws / "AGENTS.md").symlink_to("CLAUDE.md")
    append_rule(target_file(ws, "project"), "two", ws)
    assert (ws / "CLAUDE.md").read_text() == "- one\n- two\n"
    assert (ws / "AGENTS.md").is_symlink()  # the link itself is left as the user made it


@pytest.mark.parametrize("link", ["../victim/bashrc", "../victim/newfile", ".git/hooks/post-checkout"])
def test_a_link_out_of_the_project_or_into_git_is_refused_and_nothing_is_written(tmp_path: Path, link: str) -> None:
    ws = _project(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "bashrc").write_text("export PATH=/usr/bin\n")
    (ws / ".git" / "hooks").mkdir()
    (ws / "AGENTS.md").symlink_to(link)
    with pytest.raises(RuleFileError, match="outside the project's files"):
        append_rule(target_file(ws, "project"), "Use pnpm", ws)
    assert (victim / "bashrc").read_text() == "export PATH=/usr/bin\n"
    assert not (victim / "newfile").exists() and not (ws / ".git" / "hooks" / "post-checkout").exists()


@pytest.mark.parametrize("text", ["#", "  - ", "...", ""])
def test_a_rule_without_words_is_refused(tmp_path: Path, text: str) -> None:
    """``/remember`` then ``#`` added the rule ``- #`` to AGENTS.md."""
    with pytest.raises(ValueError):
        append_rule(tmp_path / "AGENTS.md", text, tmp_path)
    assert not (tmp_path / "AGENTS.md").exists()


def test_pinning_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    from agent_tui.core.item_actions import EngineError
    from agent_tui.core.pinning import read_for_pin

    (tmp_path / "pkg").mkdir()
    with pytest.raises(EngineError, match="f:pkg is a folder; pin the files in it one by one"):
        read_for_pin(tmp_path, "pkg")
    with pytest.raises(EngineError, match="no such file"):
        read_for_pin(tmp_path, "nothing.py")
