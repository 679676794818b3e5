"""More of what a shipped ``.git`` can hold, each of which made a read tool run the repository's program
or show another repository: a filter driver whose name ``-c`` cannot express, a submodule's external diff,
objects or refs taken from outside the workspace, and a ``PATH`` with a relative entry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import committed_repo

from .fakes import Call, FakeContext


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=cwd, check=True,
                   capture_output=True)


def _repo(root: Path, text: str = "hello\n") -> Path:
    return committed_repo(root, {"a.txt": text}, "init")


@pytest.mark.parametrize("name", ["a b", "a\u00a0b", "a=b", "x\u2003=y"])
async def test_a_filter_driver_with_any_name_never_runs(ws: Path, call: Call, name: str) -> None:
    """Git allows any character but a newline in a driver's name; the names were split on Unicode spaces,
    and ``-c filter.a=b.clean=`` sets ``filter.a`` to ``b.clean=``, leaving the driver armed."""
    marks = ws.parent / "marks"
    marks.mkdir()
    _repo(ws)
    (ws / ".gitattributes").write_text(f"*.txt filter={name}\n")
    with (ws / ".git" / "config").open("a") as fh:
        fh.write(f'[filter "{name}"]\n\tclean = touch {marks}/clean; cat\n\tprocess = touch {marks}/process\n')
    (ws / "a.txt").write_text("hello\nchanged\n")
    for tool in ("git_diff", "git_status", "git_log"):
        result = await call(tool)
        assert not result.is_error, result.text
    assert "+changed" in (await call("git_diff")).text
    assert sorted(p.name for p in marks.iterdir()) == []


async def test_a_submodules_external_diff_never_runs(tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    """``diff.submodule=diff`` in the top repository makes ``git diff`` diff a moved submodule by running git in
    it, with the submodule's own config (``diff.external``), which the top repository's overrides miss."""
    marks = tmp_path / "marks"
    marks.mkdir()
    src = _repo(tmp_path / "src", "s\n")
    ws = _repo(tmp_path / "super")
    _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(src), "sub")
    _git(ws, "commit", "-qm", "sub")
    (ws / "sub" / "a.txt").write_text("s\nt\n")
    _git(ws / "sub", "commit", "-qam", "moved")
    _git(ws, "config", "diff.submodule", "diff")
    _git(ws, "config", "--file", ".git/modules/sub/config", "diff.external", f"touch {marks}/external; true")
    _git(ws, "config", "--file", ".git/modules/sub/config", "diff.ignoreSubmodules", "none")
    ctx.workspace = ws
    for tool in ("git_diff", "git_status"):
        result = await call(tool)
        assert not result.is_error, result.text
    assert "sub" in (await call("git_diff")).text  # the moved commit still shows
    assert sorted(p.name for p in marks.iterdir()) == []


def _victim(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "victim", {"secret.cfg": "db_password=hunter2\n"}, "PRIVATE COMMIT")


@pytest.mark.parametrize("layout", ["alternates", "relative alternates", "linked refs and objects", "linked pack"])
async def test_objects_or_refs_from_outside_are_refused(tmp_path: Path, call: Call, ctx: FakeContext,
                                                        layout: str) -> None:
    """With another repository's objects (``objects/info/alternates``, a linked pack or object folder) and its
    commit names (linked ``refs/heads``, ``packed-refs``), ``git_diff --staged`` and ``git_log`` showed that
    repository's files and history as the workspace's own."""
    victim = _victim(tmp_path)
    ws = tmp_path / "clone"
    ws.mkdir()
    _git(ws, "init", "-q")
    git = ws / ".git"
    if layout == "alternates":
        (git / "objects" / "info" / "alternates").write_text(f"{victim}/.git/objects\n")
    elif layout == "relative alternates":
        (git / "objects" / "info" / "alternates").write_text("../../../victim/.git/objects\n")
    elif layout == "linked refs and objects":
        for sub in ("objects",):
            subprocess.run(["rm", "-rf", str(git / sub)], check=True)
            (git / sub).symlink_to(victim / ".git" / sub)
    else:
        _git(victim, "gc", "-q")
        pack = git / "objects" / "pack"
        for f in (victim / ".git" / "objects" / "pack").iterdir():
            (pack / f.name).symlink_to(f)
    if layout != "linked pack":
        subprocess.run(["rm", "-rf", str(git / "refs" / "heads")], check=True)
        (git / "refs" / "heads").symlink_to(victim / ".git" / "refs" / "heads")
    else:
        (git / "packed-refs").symlink_to(victim / ".git" / "packed-refs")
    ctx.workspace = ws
    for tool, args in (("git_diff", {"staged": True}), ("git_log", {}), ("git_status", {})):
        result = await call(tool, **args)
        assert result.is_error, result.text
        assert "never read another repository" in result.text
        assert "hunter2" not in result.text and "PRIVATE COMMIT" not in result.text


async def test_alternates_inside_the_workspace_still_work(tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    """A repository sharing the objects of one kept inside the workspace reads nothing from outside it."""
    ws = tmp_path / "ws"
    base = _repo(ws / "vendor" / "base")
    subprocess.run(["git", "clone", "-q", "--shared", str(base), str(ws / "tmp")], check=True, capture_output=True)
    (ws / "tmp" / ".git").rename(ws / ".git")
    (ws / "tmp" / "a.txt").rename(ws / "a.txt")
    (ws / "a.txt").write_text("hello\nmore\n")
    assert (ws / ".git" / "objects" / "info" / "alternates").read_text().strip()
    ctx.workspace = ws
    assert "+more" in (await call("git_diff")).text
    assert "init" in (await call("git_log")).text


def _marker_bin(ws: Path, marks: Path) -> None:
    """``bin/git`` and ``bin/rg`` in the workspace that record their run (and the key they got)."""
    (ws / "bin").mkdir()
    for name in ("git", "rg"):
        (ws / "bin" / name).write_text(f"#!/bin/sh\nenv > {marks}/{name}\nexit 1\n")
        (ws / "bin" / name).chmod(0o755)


async def test_a_relative_path_entry_never_runs_the_workspaces_git_or_rg(
        ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch) -> None:
    """``PATH=bin:$PATH`` (or ``./node_modules/.bin``) names a folder of the workspace git and rg start in."""
    marks = ws.parent / "marks"
    marks.mkdir()
    _repo(ws)
    _marker_bin(ws, marks)
    (ws / "a.txt").write_text("hello\nchanged\n")
    monkeypatch.setenv("PATH", f"bin:{os.environ['PATH']}:")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-REALLOOKINGKEY1234567890")
    monkeypatch.chdir(ws)
    assert "1 match" in (await call("search", pattern="changed")).text
    assert "+changed" in (await call("git_diff")).text
    for tool in ("git_status", "git_log", "list_dir"):
        assert not (await call(tool)).is_error
    assert sorted(p.name for p in marks.iterdir()) == []


def test_importing_the_git_tools_in_the_workspace_runs_only_the_real_git(tmp_path: Path) -> None:
    """GitPython runs ``git version`` when imported, through ``PATH`` as it stands, in the current folder."""
    marks = tmp_path / "marks"
    marks.mkdir()
    ws = _repo(tmp_path / "ws")
    _marker_bin(ws, marks)
    env = {k: v for k, v in os.environ.items() if k != "GIT_PYTHON_GIT_EXECUTABLE"}
    env["PATH"] = f"bin:{env['PATH']}"
    done = subprocess.run([sys.executable, "-c", "import agent_tui.tools.git_tools"], cwd=ws, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in marks.iterdir()) == []


@pytest.mark.parametrize("layout", ["nested", "quoted", "indented comment", "file separator", "too many refs"])
async def test_alternates_read_as_git_reads_them(tmp_path: Path, call: Call, ctx: FakeContext, layout: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Ways the first check read alternates differently from git: an alternate inside the workspace whose own
    alternates lead out (git follows five levels), a C-quoted line, a line git does not take for a comment,
    a character Python splits lines on but git does not, and a refs folder too big to look through."""
    from agent_tui.tools import git_safe

    victim = _victim(tmp_path)
    ws = tmp_path / "clone"
    ws.mkdir()
    _git(ws, "init", "-q")
    info = ws / ".git" / "objects" / "info"
    outside = f"{victim}/.git/objects"
    if layout == "nested":
        (ws / "stash" / "objects" / "info").mkdir(parents=True)
        (ws / "stash" / "objects" / "info" / "alternates").write_text(outside + "\n")
        (info / "alternates").write_text("../../stash/objects\n")
    elif layout == "quoted":
        (info / "alternates").write_text('"' + outside.replace("/", "\\057") + '"\n')
    elif layout == "indented comment":
        (ws / ".git" / "objects" / " #x").mkdir()
        (info / "alternates").write_text(" #x/" + "../" * 8 + outside.lstrip("/") + "\n")
    elif layout == "file separator":
        (ws / ".git" / "objects" / "x\x1cb").mkdir()
        (info / "alternates").write_bytes(("../../x\x1cb/" + "../" * 8 + outside.lstrip("/") + "\n").encode())
    else:
        monkeypatch.setattr(git_safe, "_MAX_ENTRIES", 40)
        for n in range(50):
            (ws / ".git" / "refs" / f"r{n}").write_text("")
        (ws / ".git" / "refs" / "heads" / "zz").symlink_to(victim / ".git" / "refs" / "heads" / "master")
    ctx.workspace = ws
    result = await call("git_log")
    assert result.is_error and "never read another repository" in result.text, result.text
    assert "PRIVATE COMMIT" not in result.text


async def test_a_submodule_set_to_ignore_none_still_runs_no_filter(tmp_path: Path, call: Call,
                                                                   ctx: FakeContext) -> None:
    """``submodule.<name>.ignore = none`` (the tracked ``.gitmodules`` can say it) beat the
    ``diff.ignoreSubmodules`` override: ``git diff`` looked into the dirty submodule and ran its filter."""
    marks = tmp_path / "marks"
    marks.mkdir()
    src = _repo(tmp_path / "src", "s\n")
    ws = _repo(tmp_path / "super")
    _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(src), "sub")
    _git(ws, "config", "--file", ".gitmodules", "submodule.sub.ignore", "none")
    _git(ws, "commit", "-qam", "sub")
    (ws / "sub" / ".gitattributes").write_text("* filter=evil\n")
    _git(ws / "sub", "config", "filter.evil.clean", f"touch {marks}/clean; cat")
    (ws / "sub" / "a.txt").write_text("t\n")  # same size, new content: git must run the filter to tell
    ctx.workspace = ws
    for tool in ("git_diff", "git_status"):
        assert not (await call(tool)).is_error
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_path_without_absolute_entries_falls_back_to_the_system_folders() -> None:
    from agent_tui.tools.programs import FALLBACK_PATH, absolute_path

    assert absolute_path("") == FALLBACK_PATH and absolute_path("bin:.:") == FALLBACK_PATH
    assert absolute_path("bin:/usr/bin::/opt/x") == "/usr/bin:/opt/x"
