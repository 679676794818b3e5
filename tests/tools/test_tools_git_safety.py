"""A repository's own git config never runs a program, and git stays in the workspace's repo."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .fakes import Call, FakeContext


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _hostile_repo(root: Path) -> Path:
    """A repo whose config runs a marker-writing program from fsmonitor, a clean filter,
    textconv, an external diff and hooks; returns the marker folder."""
    marks = root.parent / "marks"
    marks.mkdir()
    root.mkdir(exist_ok=True)
    (root / "a.txt").write_text("one\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    for key, name in (
        ("core.fsmonitor", "fsmonitor"),
        ("filter.evil.clean", "clean"),
        ("filter.evil.process", "process"),
        ("diff.evil.textconv", "textconv"),
        ("diff.external", "external"),
    ):
        _git(root, "config", key, f"touch {marks}/{name}; cat")
    hooks = root / ".git" / "hooks"
    for hook in ("post-checkout", "pre-commit", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    (root / "a.txt").write_text("one\ntwo\n")
    return marks


@pytest.mark.parametrize(
    "tool, args",
    [
        ("git_status", {}),
        ("git_diff", {}),
        ("git_diff", {"staged": True}),
        ("git_log", {"n": 3}),
        ("list_dir", {}),
        ("search", {"pattern": "one"}),
    ],
)
async def test_repository_config_never_runs(
    ws: Path, call: Call, tool: str, args: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_NO_RG", "1")  # the Python search walks with git check-ignore
    marks = _hostile_repo(ws)
    result = await call(tool, **args)
    assert not result.is_error, result.text
    assert sorted(p.name for p in marks.iterdir()) == []


async def test_git_diff_still_shows_the_change(ws: Path, call: Call) -> None:
    _hostile_repo(ws)
    result = await call("git_diff")
    assert "+two" in result.text


async def test_subfolder_of_a_larger_repo_is_refused(
    tmp_path: Path, call: Call, ctx: FakeContext
) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    (outer / "secret.cfg").write_text("password=hunter2hunter2\n")
    _git(outer, "init", "-q")
    _git(outer, "add", "-A")
    _git(outer, "commit", "-qm", "outer commit")
    (outer / "secret.cfg").write_text("password=changed-secret\n")
    sub = outer / "sub"
    sub.mkdir()
    (sub / "x.py").write_text("x = 1\n")
    ctx.workspace = sub
    for tool in ("git_status", "git_diff", "git_log"):
        result = await call(tool)
        assert result.is_error
        assert "not a git repository" in result.text.lower()
        assert f"enclosing repo at {outer.resolve()} is outside the workspace" in result.text
        assert "password" not in result.text and "outer commit" not in result.text


async def test_list_dir_in_subfolder_does_not_use_the_outer_repo(
    tmp_path: Path, call: Call, ctx: FakeContext
) -> None:
    outer = tmp_path / "outer"
    marks = _hostile_repo(outer)
    sub = outer / "sub"
    sub.mkdir()
    (sub / "x.py").write_text("x = 1\n")
    ctx.workspace = sub
    result = await call("list_dir")
    assert "x.py" in result.text
    assert list(marks.iterdir()) == []


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".agent-tui/config.toml",
        "sub/.git/config",
        ".GIT/config",
    ],
)
async def test_write_tools_refuse_git_and_agent_folders(ws: Path, call: Call, path: str) -> None:
    result = await call("write_file", path=path, content="[core]\n\tfsmonitor = touch /tmp/x\n")
    assert result.is_error
    assert "write tools never change" in result.text
    assert not (ws / path).exists()


async def test_edit_refuses_git_config_even_after_read(ws: Path, call: Call) -> None:
    _git(ws, "init", "-q")
    before = (ws / ".git" / "config").read_text()
    read = await call("read_file", path=".git/config")
    assert not read.is_error
    result = await call(
        "edit_file", path=".git/config", old_text="[core]", new_text="[core]\n\tfsmonitor = x"
    )
    assert result.is_error and "write tools never change" in result.text
    assert (ws / ".git" / "config").read_text() == before


async def test_write_through_symlink_into_git_is_refused(ws: Path, call: Call) -> None:
    _git(ws, "init", "-q")
    (ws / "innocent").symlink_to(ws / ".git" / "config")
    result = await call("write_file", path="innocent", content="x")
    assert result.is_error and ".git/" in result.text


async def test_list_dir_and_search_never_show_the_agent_folder(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / ".agent-tui").mkdir()
    (ws / ".agent-tui" / "memory.db").write_text("needle")
    (ws / ".agent-tui" / "memory.db-wal").write_text("needle")
    (ws / "a.txt").write_text("needle\n")
    listing = await call("list_dir", depth=3)
    assert ".agent-tui" not in listing.text and "memory.db" not in listing.text
    assert "a.txt" in listing.text
    found = await call("search", pattern="needle")
    assert ".agent-tui" not in found.text and "a.txt" in found.text
    monkeypatch.setenv("AGENT_TUI_NO_RG", "1")
    found = await call("search", pattern="needle")
    assert ".agent-tui" not in found.text and "a.txt" in found.text
