"""Submodules and worktrees nested in the workspace, run for real through the sandbox: a command must
not plant a repository config that the user's own `git status` at the root walks into and runs
(``tools/sandbox_nested.py``, protected by ``tools/sandbox_hooks.py``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.tools import sandbox_nested
from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.sandbox_nested import nested_repos
from agent_tui.tools.shell_exec import run_shell
from agent_tui.tools.workspace import WorkspaceError, refuse_protected, resolve
from tests.support.bwrap import require_bwrap, sh
from tests.support.gitrepo import git, one_commit_repo


def library(tmp_path: Path, name: str = "lib") -> Path:
    """A repository outside the workspace to add as a submodule."""
    return one_commit_repo(tmp_path / name)


def with_submodule(ws: Path, tmp_path: Path, path: str = "sub") -> None:
    git(ws, "init", "-q")
    git(ws, "submodule", "add", "-q", str(library(tmp_path)), path)
    git(ws, "commit", "-qm", "add submodule")


def planted_gitdir(folder: str, marker: Path) -> str:
    """Shell lines that make ``folder`` a git folder whose config runs ``touch marker`` on status."""
    return (f"mkdir -p {folder}/objects {folder}/refs && echo 'ref: refs/heads/main' > {folder}/HEAD && "
            f"printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = touch {marker}\\n'"
            f" > {folder}/config")


def users_status_runs_it(cwd: Path, marker: Path) -> bool:
    """The user's own, unsandboxed `git status` afterwards (it walks into submodules): did it run the plant?"""
    subprocess.run(["git", "status", "--short"], cwd=cwd, capture_output=True)
    return marker.exists()


async def test_the_attack_works_on_git_itself(tmp_path: Path) -> None:
    """Without a sandbox the plant runs: the threat the other tests guard against is real."""
    ws, marker = tmp_path / "ws", tmp_path / "pwned"
    ws.mkdir()
    with_submodule(ws, tmp_path)
    subprocess.run(f"{planted_gitdir('sub/evil', marker)} && echo 'gitdir: evil' > sub/.git", shell=True,
                   cwd=ws, check=True)
    assert users_status_runs_it(ws, marker)


@pytest.mark.parametrize("attack", [
    "{plant} && echo 'gitdir: evil' > sub/.git",
    "{plant} && rm -f sub/.git && ln -s evil sub/.git",
    "{plant} && mv sub sub2; mkdir -p sub/evil && echo 'gitdir: evil' > sub/.git",
    "{plant} && mv sub/.git sub/git-old; echo 'gitdir: evil' > sub/.git",
    "printf '\\tfsmonitor = touch {marker}\\n' >> .git/modules/sub/config",
])
async def test_a_submodules_git_file_cannot_be_pointed_elsewhere(box: Sandbox, tmp_path: Path, attack: str) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    with_submodule(ws, tmp_path)
    before = (ws / "sub" / ".git").read_text()
    plant = planted_gitdir("sub/evil", marker)  # `gitdir: evil` in sub/.git names sub/evil
    out = await run_shell(attack.format(plant=plant, marker=marker), ws, 30, sandbox=box)
    assert out.exit_code != 0, out.output
    assert (ws / "sub" / ".git").read_text() == before and not (ws / "sub" / ".git").is_symlink()
    assert not users_status_runs_it(ws, marker)
    # the submodule's own files stay the command's to change
    code, text = await sh(box, "echo 'x = 2' > sub/x.py && cat sub/x.py")
    assert code == 0 and text.strip() == "x = 2", text
    with pytest.raises(WorkspaceError, match="Refused: 'sub/.git'"):
        refuse_protected(ws, resolve(ws, "sub/.git"))


async def test_no_git_can_be_made_in_a_submodule_not_checked_out(box: Sandbox, tmp_path: Path) -> None:
    """A clone without --recurse-submodules leaves the submodule's folder empty; a `.git` written
    there would make the user's status walk in (even while the command still runs), so the folder
    is read-only, and nothing is left in it afterwards (an empty `.git` placeholder would break git)."""
    src = tmp_path / "src"
    src.mkdir()
    with_submodule(src, tmp_path)
    ws, marker = box.workspace, tmp_path / "pwned"
    ws.rmdir()
    git(tmp_path, "clone", "-q", str(src), str(ws))
    assert (ws / "sub").is_dir() and not any((ws / "sub").iterdir())
    out = await run_shell(f"{planted_gitdir('sub/evil', marker)}; echo 'gitdir: evil' > sub/.git", ws, 30,
                          sandbox=box)
    assert out.exit_code != 0 and "Read-only" in out.output, out.output
    assert not any((ws / "sub").iterdir()) and not users_status_runs_it(ws, marker)
    with pytest.raises(WorkspaceError, match="submodule folder not checked out"):
        refuse_protected(ws, resolve(ws, "sub/setup.py"))
    code, text = await sh(box, "echo ok > notes.txt")  # the rest of the workspace is the command's
    assert code == 0, text
    # the user checks it out: from then on its .git is read-only and its files are the command's
    git(ws, "submodule", "update", "--init", "-q")
    code, text = await sh(box, "echo 'gitdir: elsewhere' > sub/.git")
    assert code != 0 and (ws / "sub" / ".git").read_text().startswith("gitdir: ../.git/modules/sub"), text
    code, text = await sh(box, "echo 'x = 5' > sub/x.py")
    assert code == 0, text


async def test_a_missing_submodule_folder_cannot_be_made(box: Sandbox, tmp_path: Path) -> None:
    """A gitlink whose folder is gone: the command would make it, or a link to a repository it planted."""
    ws, marker = box.workspace, tmp_path / "pwned"
    with_submodule(ws, tmp_path)
    git(ws, "rm", "-q", "--cached", "sub")
    sha = git(tmp_path / "lib", "rev-parse", "HEAD").strip()
    git(ws, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/dep")
    assert not (ws / "vendor").exists()
    for attack in ("mkdir -p vendor && ln -s ../planted vendor/dep",
                   "mkdir -p vendor/dep && echo 'gitdir: ../../planted/.git' > vendor/dep/.git"):
        out = await run_shell(f"{planted_gitdir('planted/.git', marker)} && {attack}", ws, 30, sandbox=box)
        assert out.exit_code != 0, out.output
        assert not (ws / "vendor").exists()  # not even the empty placeholder is left
        assert not users_status_runs_it(ws, marker)


async def test_an_old_style_submodule_git_folder_is_read_only(box: Sandbox, tmp_path: Path) -> None:
    """A submodule whose `.git` is a whole folder in the work tree (older git, or `git add` of a clone)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "clone", "-q", str(library(tmp_path)), "dep")
    git(ws, "add", "dep")  # a gitlink to a repository whose .git folder lives in the work tree
    code, text = await sh(box, f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> dep/.git/config")
    assert code != 0 and "Read-only" in text, text
    code, text = await sh(box, "mv dep dep2 || mv dep/.git dep/git-old")
    assert code != 0 and (ws / "dep" / ".git" / "config").is_file(), text
    assert not users_status_runs_it(ws, marker)
    code, text = await sh(box, "echo 'x = 3' > dep/x.py")
    assert code == 0, text


async def test_submodules_of_submodules_and_their_hooks_folder(box: Sandbox, tmp_path: Path) -> None:
    """Nested two deep; and a submodule whose own config names a hooks folder in its work tree."""
    inner = library(tmp_path, "inner")
    outer = library(tmp_path, "outer")
    git(outer, "submodule", "add", "-q", str(inner), "deps/inner")
    git(outer, "commit", "-qm", "inner")
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "submodule", "add", "-q", str(outer), "outer")
    git(ws, "submodule", "update", "--init", "--recursive", "-q")
    git(ws / "outer", "config", "core.hooksPath", ".hooks")
    found = nested_repos(ws)
    assert {p.relative_to(ws.resolve()).as_posix() for p in found.dotgits} == {"outer/.git", "outer/deps/inner/.git"}
    code, text = await sh(box, f"cd outer/deps/inner && {planted_gitdir('evil', marker)} && echo 'gitdir: evil' > .git")
    assert code != 0 and not users_status_runs_it(ws, marker), text
    code, text = await sh(box, "mkdir -p outer/.hooks && echo 'touch pwned' > outer/.hooks/pre-commit")
    assert code != 0 and not (ws / "outer" / ".hooks" / "pre-commit").exists(), text


async def test_a_worktree_kept_in_the_workspace(box: Sandbox, tmp_path: Path) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q", "-b", "main")
    git(ws, "commit", "-q", "--allow-empty", "-m", "root")
    git(ws, "worktree", "add", "-q", "wt", "-b", "feature")
    before = (ws / "wt" / ".git").read_text()
    code, text = await sh(box, f"cd wt && {planted_gitdir('evil', marker)} && echo 'gitdir: evil' > .git")
    assert code != 0 and (ws / "wt" / ".git").read_text() == before, text
    assert not users_status_runs_it(ws / "wt", marker)
    code, text = await sh(box, "echo hi > wt/notes.txt && cat wt/notes.txt")
    assert code == 0 and text.strip() == "hi", text


async def test_a_git_file_naming_a_folder_in_the_work_tree(box: Sandbox, tmp_path: Path) -> None:
    """`sub/.git: gitdir: ../store/sub` (a separate git dir kept in the workspace): the store is
    read-only, and write tools refuse it."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    (ws / "store").mkdir()
    git(ws, "clone", "-q", "--separate-git-dir", str(ws / "store" / "sub"), str(library(tmp_path)), "sub")
    git(ws, "add", "sub")
    assert (ws / "sub" / ".git").is_file()
    code, text = await sh(box, f"printf '\\tfsmonitor = touch {marker}\\n' >> store/sub/config")
    assert code != 0 and "Read-only" in text, text
    assert not users_status_runs_it(ws, marker)
    with pytest.raises(WorkspaceError, match="nested repository"):
        refuse_protected(ws, resolve(ws, "store/sub/config"))
    code, text = await sh(box, "echo ok > store/README")  # the folder above is not the git folder
    assert code == 0, text


def test_a_plain_repository_and_an_unregistered_clone_have_nothing_nested(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert nested_repos(ws).dotgits == ()  # not a repository at all
    git(ws, "init", "-q")
    git(ws, "clone", "-q", str(library(tmp_path)), "scratch")  # never added: the root's git never walks in
    assert nested_repos(ws).dotgits == ()


async def test_a_workspace_inside_a_larger_repository(tmp_path: Path) -> None:
    """The agent is opened in `mono/proj`; the user's `git status` there is the monorepo's, which
    walks into `proj/sub`."""
    mono, marker = tmp_path / "mono", tmp_path / "pwned"
    mono.mkdir()
    git(mono, "init", "-q")
    git(mono, "submodule", "add", "-q", str(library(tmp_path)), "proj/sub")
    git(mono, "commit", "-qm", "sub")
    ws = (mono / "proj").resolve()
    box = Sandbox(require_bwrap(), ws)
    code, text = await sh(box, f"{planted_gitdir('sub/evil', marker)} && echo 'gitdir: evil' > sub/.git")
    assert code != 0 and not users_status_runs_it(ws, marker), text


async def test_every_gitlink_counts_and_too_many_repositories_refuse(box: Sandbox, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    sha = git(library(tmp_path), "rev-parse", "HEAD").strip()
    git(ws, "init", "-q")
    info = "".join(f"160000 {sha}\tmods/m{i:03d}\n" for i in range(300))
    subprocess.run(["git", "update-index", "--add", "--index-info"], input=info, text=True, cwd=ws, check=True)
    for name in ("m000", "m299"):  # the first and the last, in path order
        code, text = await sh(box, f"mkdir -p mods/{name} && cd mods/{name} && {planted_gitdir('.git', marker)}")
        assert code != 0 and not (ws / "mods").exists() and not users_status_runs_it(ws, marker), text
    # past the number of repositories the look goes through, commands are refused, not let through
    git(ws, "submodule", "add", "-q", str(tmp_path / "lib"), "sub")
    monkeypatch.setattr(sandbox_nested, "MAX_REPOS", 1)
    monkeypatch.setattr(sandbox_nested, "_cache", {})
    with pytest.raises(sandbox_nested.NestedLimitError, match="outside_sandbox"):
        await run_shell("echo hi > hi.txt", ws, 30, sandbox=box)
    with pytest.raises(WorkspaceError, match="nests more git repositories"):
        refuse_protected(ws, resolve(ws, "hi.txt"))
    assert not (ws / "hi.txt").exists()


async def test_submodules_of_a_worktree_and_a_relative_worktree_record(box: Sandbox, tmp_path: Path) -> None:
    """A worktree in the workspace has submodules of its own; and git 2.48+ may keep the worktree's
    record relative (`worktree.useRelativePaths`)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    with_submodule(ws, tmp_path)
    git(ws, "worktree", "add", "-q", "wt", "-b", "feature")
    git(ws / "wt", "submodule", "update", "--init", "-q")
    record = ws / ".git" / "worktrees" / "wt" / "gitdir"
    record.write_text("../../../wt/.git\n")
    found = {p.relative_to(ws).as_posix() for p in nested_repos(ws).dotgits}
    assert found == {"sub/.git", "wt/.git", "wt/sub/.git"}
    for folder in ("wt/sub", "wt"):
        code, text = await sh(box, f"cd {folder} && {planted_gitdir('evil', marker)} && echo 'gitdir: evil' > .git")
        assert code != 0 and not users_status_runs_it(ws / "wt", marker), text


async def test_the_common_git_folder_of_a_nested_repository_kept_in_the_work_tree(box: Sandbox,
                                                                                  tmp_path: Path) -> None:
    """`sub/.git` names a worktree's git folder whose shared folder (`store/main.git`, with the
    config git reads) is also in the work tree."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "clone", "-q", "--bare", str(library(tmp_path)), "store/main.git")
    git(ws / "store" / "main.git", "worktree", "add", "-q", str(ws / "sub"), "-b", "wtb")
    git(ws, "add", "sub")
    code, text = await sh(box, f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> store/main.git/config")
    assert code != 0 and "Read-only" in text and not users_status_runs_it(ws, marker), text


@pytest.mark.parametrize("submodule", ["sub", os.fsdecode(b"d\xe9p")])
async def test_file_names_that_are_not_utf8(box: Sandbox, tmp_path: Path, submodule: str) -> None:
    """Old repositories track names in Latin-1, a submodule's folder too: the look must not choke."""
    ws, marker = box.workspace, tmp_path / "pwned"
    with_submodule(ws, tmp_path, submodule)
    odd = os.fsdecode(b"caf\xe9.txt")
    (ws / odd).write_text("x\n")
    git(ws, "add", odd)
    code, text = await sh(box, "echo ok")
    assert code == 0 and text.strip() == "ok", text
    code, text = await sh(box, f"{planted_gitdir(f'{submodule}/evil', marker)} && echo 'gitdir: evil' > '{submodule}/.git'")
    assert code != 0 and not users_status_runs_it(ws, marker), text


def test_a_path_that_cannot_be_looked_at_while_flags_are_built(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A command's `chmod` racing the look: the path's check fails after the walk passed it.  The
    flags are still built (the other paths keep their mounts), not a crash of every command."""
    from agent_tui.tools.sandbox_hooks import hook_flags

    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    with_submodule(ws, tmp_path)
    git(ws, "config", "core.hooksPath", "tools/hooks")
    (ws / "tools" / "hooks").mkdir(parents=True)
    real_exists = Path.exists

    def exists(self: Path) -> bool:
        if self == ws / "tools" / "hooks":
            raise PermissionError(13, "Permission denied", str(self))
        return real_exists(self)

    monkeypatch.setattr(Path, "exists", exists)
    flags = hook_flags(ws, [])
    assert str(ws / "sub" / ".git") in flags and "--ro-bind" in flags
