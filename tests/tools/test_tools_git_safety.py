"""A repository's own git config never runs a program, and git stays in the workspace's repo."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.gitrepo import committed_repo

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


def _commit(cwd: Path, message: str = "c") -> None:
    _git(cwd, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", message)


def _promisor_repo(root: Path, marks: Path) -> None:
    """A repository that says it is a partial clone with objects missing: git fetches a missing object
    from the "promisor" remote, and the fetch runs the remote's ``uploadpack`` through a shell.  Each read
    tool needs one: ``log`` the first commit, ``diff`` the blob of the changed ``old.txt``, ``status`` the
    blob of ``f.txt`` to detect its staged rename with a change."""
    root.mkdir()
    (root / "f.txt").write_text("hello\nworld\nand more lines\n")
    (root / "old.txt").write_text("old text\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _commit(root, "first")
    first = _rev(root, "HEAD")
    (root / "f.txt").write_text("hello\nworld\nand more lines\nagain\n")
    _git(root, "add", "-A")
    _commit(root, "second")
    for name in (first, _rev(root, "HEAD:f.txt"), _rev(root, "HEAD:old.txt")):
        (root / ".git" / "objects" / name[:2] / name[2:]).unlink()
    (root / "old.txt").write_text("new text\n")
    _git(root, "mv", "f.txt", "moved.txt")
    (root / "moved.txt").write_text("hello\nworld\nand more lines\nagain\nand again\n")
    _git(root, "add", "moved.txt")
    for key, value in (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                       ("remote.origin.promisor", "true"), ("remote.origin.url", str(root)),
                       ("remote.origin.uploadpack", f"env > {marks}/uploadpack; false"),
                       ("core.sshCommand", f"touch {marks}/ssh; false")):
        _git(root, "config", key, value)


def _rev(cwd: Path, name: str) -> str:
    return subprocess.run(["git", "rev-parse", name], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.parametrize("tool, args", [("git_diff", {}), ("git_log", {"n": 3}), ("git_status", {})])
async def test_a_partial_clone_never_fetches_a_missing_object(
    tmp_path: Path, call: Call, ctx: FakeContext, tool: str, args: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fetch would run the repository's program on the host with the user's key in its environment."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-REALLOOKINGKEY1234567890")
    marks = tmp_path / "marks"
    marks.mkdir()
    ws = tmp_path / "partial"
    _promisor_repo(ws, marks)
    ctx.workspace = ws
    await call(tool, **args)
    assert sorted(p.name for p in marks.iterdir()) == []


def test_git_gets_no_secret_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.tools.git_safe import safe_env

    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-REALLOOKINGKEY1234567890")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")
    monkeypatch.setenv("GIT_DIR", "/elsewhere")
    env = safe_env()
    assert "OPENAI_API_KEY" not in env and "GITHUB_TOKEN" not in env and "GIT_DIR" not in env
    assert env["GIT_NO_LAZY_FETCH"] == "1" and env["PATH"] == __import__("os").environ["PATH"]


async def test_a_submodules_own_filter_never_runs(tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    """``git diff`` asks each submodule whether it is dirty by running git in it, with the submodule's own
    config (``.git/modules/sub/config``), which the overrides for the top repository do not name."""
    marks = tmp_path / "marks"
    marks.mkdir()
    src, ws = tmp_path / "src", tmp_path / "super"
    src.mkdir()
    (src / "f.txt").write_text("data\n")
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _commit(src)
    ws.mkdir()
    _git(ws, "init", "-q")
    _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(src), "sub")
    _commit(ws)
    (ws / "sub" / ".gitattributes").write_text("* filter=evil\n")
    _git(ws / "sub", "config", "filter.evil.clean", f"touch {marks}/clean; cat")
    (ws / "sub" / "f.txt").write_text("datb\n")  # same size, new content: git must run the filter to tell
    ctx.workspace = ws
    for tool in ("git_diff", "git_status", "git_log"):
        result = await call(tool)
        assert not result.is_error, result.text
    assert sorted(p.name for p in marks.iterdir()) == []


def _private_repo(tmp_path: Path) -> Path:
    """Another repository on the disk, with a committed secret and a commit named "private commit"."""
    return committed_repo(tmp_path / "private", {"notes.txt": "TOP_SECRET plans\n"}, "private commit")


async def test_a_git_file_naming_another_repository_is_refused(
    tmp_path: Path, call: Call, ctx: FakeContext
) -> None:
    """A ``.git`` file (``gitdir: …``) can name any git folder on the disk: a dotfiles repository at
    ``~``, ``/etc/.git``.  The read tools would show that repository's history and files, unasked."""
    _private_repo(tmp_path)
    ws = tmp_path / "clone"
    ws.mkdir()
    (ws / ".git").write_text("gitdir: ../private/.git\n")
    ctx.workspace = ws
    for tool in ("git_status", "git_diff", "git_log"):
        result = await call(tool)
        assert result.is_error, result.text
        assert "never read another repository" in result.text
        assert "private commit" not in result.text and "TOP_SECRET" not in result.text


async def test_a_linked_worktree_and_a_submodule_still_work(tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    """The user's own linked worktree and a submodule opened as the workspace keep their git folder outside
    the workspace, and that folder names the workspace back."""
    main = tmp_path / "main"
    main.mkdir()
    (main / "a.txt").write_text("one\n")
    _git(main, "init", "-q")
    _git(main, "add", "-A")
    _commit(main, "main commit")
    feature = tmp_path / "feature"
    _git(main, "worktree", "add", "-q", str(feature))
    (feature / "a.txt").write_text("one\ntwo\n")
    ctx.workspace = feature
    assert "+two" in (await call("git_diff")).text
    assert "main commit" in (await call("git_log")).text
    parent = tmp_path / "parent"
    parent.mkdir()
    _git(parent, "init", "-q")
    _git(parent, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(main), "lib")
    (parent / "lib" / "a.txt").write_text("one\nthree\n")
    ctx.workspace = parent / "lib"
    result = await call("git_diff")
    assert not result.is_error and "+three" in result.text, result.text


def test_gitpython_runs_git_without_the_users_secrets(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.tools.git_tools import open_repo

    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-REALLOOKINGKEY1234567890")
    _git(ws, "init", "-q")
    repo = open_repo(ws)
    seen = repo.git.execute(["sh", "-c", "env"])  # the environment GitPython gives the programs it runs
    assert "REALLOOKINGKEY" not in seen and "GIT_NO_LAZY_FETCH=1" in seen


async def test_a_commondir_naming_another_repository_is_refused(tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    """A ``.git`` folder inside the workspace whose ``commondir`` names another repository: git takes that
    repository's config, objects and refs."""
    other = _private_repo(tmp_path)
    ws = tmp_path / "clone"
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/master\n")
    (ws / ".git" / "commondir").write_text(f"{other / '.git'}\n")
    ctx.workspace = ws
    for tool in ("git_status", "git_diff", "git_log"):
        result = await call(tool)
        assert result.is_error and "never read another repository" in result.text, result.text
        assert "private commit" not in result.text


def test_a_repositorys_own_protocol_allow_does_not_reopen_a_transport(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``protocol.ext.allow = always`` in the repository's config beats ``-c protocol.allow=never``; git
    versions without GIT_NO_LAZY_FETCH then fetch through ``ext::sh -c …``.  GIT_ALLOW_PROTOCOL holds."""
    from agent_tui.tools import git_safe

    marks = tmp_path / "marks"
    marks.mkdir()
    repo = tmp_path / "partial"
    _promisor_repo(repo, marks)
    _git(repo, "config", "remote.origin.url", f"ext::sh -c touch% {marks}/ext_%S")
    _git(repo, "config", "protocol.ext.allow", "always")
    monkeypatch.setitem(git_safe.SAFE_ENV, "GIT_NO_LAZY_FETCH", "0")  # as on a git that does not know it
    git_safe.run_git(repo, "log", "-p", "-3")
    git_safe.run_git(repo, "diff")
    assert sorted(p.name for p in marks.iterdir()) == []


async def test_a_submodule_moved_to_another_commit_still_shows_in_git_diff(
        tmp_path: Path, call: Call, ctx: FakeContext) -> None:
    src, ws = tmp_path / "src", tmp_path / "super"
    src.mkdir()
    (src / "f.txt").write_text("one\n")
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _commit(src, "first")
    ws.mkdir()
    _git(ws, "init", "-q")
    _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(src), "sm")
    _commit(ws)
    (ws / "sm" / "f.txt").write_text("two\n")
    _git(ws / "sm", "add", "-A")
    _commit(ws / "sm", "second")
    ctx.workspace = ws
    result = await call("git_diff")
    assert not result.is_error and "sm" in result.text and "Subproject commit" in result.text, result.text


async def test_git_tools_work_when_the_shell_set_git_dir(tmp_path: Path, call: Call, ctx: FakeContext,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """agent-tui started from a git hook, ``rebase --exec`` or ``bisect run`` inherits GIT_DIR: pointing at
    another repository, or blanked, it broke or redirected the git tools."""
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    ws = tmp_path / "own"
    ws.mkdir()
    (ws / "a.txt").write_text("one\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "-A")
    _commit(ws, "the workspace's commit")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    ctx.workspace = ws
    result = await call("git_log")
    assert not result.is_error and "the workspace's commit" in result.text, result.text
