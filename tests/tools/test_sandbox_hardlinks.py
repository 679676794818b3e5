"""A hook or git config that is a hard link of a work-tree file: the other name is protected too, so
a command cannot rewrite the hook in place through it (``tools/sandbox_hardlinks.py``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.tools import sandbox_hardlinks
from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.sandbox_hooks import run_later_paths
from agent_tui.tools.workspace import WorkspaceError, refuse_protected
from tests.support.bwrap import sh
from tests.tools.test_sandbox_hooks import users_git_runs_it

HOOK = "#!/bin/sh\nexit 0\n"


def shared_hook(ws: Path) -> Path:
    """A repository whose pre-commit hook is a hard link of the tracked ``scripts/pre-commit``."""
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    script = ws / "scripts" / "pre-commit"
    script.parent.mkdir()
    script.write_text(HOOK)
    script.chmod(0o755)
    os.link(script, ws / ".git" / "hooks" / "pre-commit")
    return script


def test_the_work_tree_name_of_a_hard_linked_hook_is_protected(ws: Path) -> None:
    script = shared_hook(ws)
    (ws / "scripts" / "lint.sh").write_text("echo lint\n")
    later = run_later_paths(ws)
    assert later.get(script.resolve()) == "hard link"
    assert (ws / "scripts" / "lint.sh").resolve() not in later  # its neighbours stay writable
    with pytest.raises(WorkspaceError, match="hard link"):
        refuse_protected(ws, script.resolve())


def test_a_hook_copied_not_linked_protects_nothing_in_the_work_tree(ws: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    script = ws / "scripts" / "pre-commit"
    script.parent.mkdir()
    script.write_text(HOOK)
    (ws / ".git" / "hooks" / "pre-commit").write_text(HOOK)
    assert script.resolve() not in run_later_paths(ws)
    refuse_protected(ws, script.resolve())  # no error


def test_a_link_made_later_or_moved_is_found_again(ws: Path) -> None:
    script = shared_hook(ws)
    assert script.resolve() in run_later_paths(ws)
    second = ws / "tools" / "hook.sh"
    second.parent.mkdir()
    os.link(script, second)  # the link count changes: the remembered answer is not used
    later = run_later_paths(ws)
    assert later.get(second.resolve()) == "hard link" and script.resolve() in later
    moved = ws / "tools" / "moved.sh"
    os.rename(second, moved)  # the same count, but a name found no longer leads to the file
    later = run_later_paths(ws)
    assert later.get(moved.resolve()) == "hard link" and second.resolve() not in later


def test_a_hard_linked_repository_config_is_protected(ws: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    kept = ws / "repo.gitconfig"
    os.link(ws / ".git" / "config", kept)
    assert run_later_paths(ws).get(kept.resolve()) == "hard link"


def test_the_walk_stops_once_every_link_is_found(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(50):
        (ws / f"d{i}").mkdir()
        (ws / f"d{i}" / "f").write_text("x")
    hook = ws / "hook"
    hook.write_text(HOOK)
    top = ws / "pre-commit.sh"
    os.link(hook, top)
    folders: list[str] = []
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        folders.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(sandbox_hardlinks.os, "scandir", scandir)
    assert sandbox_hardlinks.other_names(ws, [hook]) == {top: "hard link"}
    assert folders == [str(ws)]  # both names known after the first folder: no folder below is read
    os.link(hook, ws / "d7" / "g")
    monkeypatch.setattr(sandbox_hardlinks, "MAX_ENTRIES", 3)  # a huge tree: what was found so far
    assert ws / "d7" / "g" not in sandbox_hardlinks.other_names(ws, [hook])


def test_a_shallow_name_is_found_before_a_deep_tree_uses_up_the_walk(ws: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Breadth first: a `node_modules` hundreds of folders deep, listed before `scripts/`, must not use
    up the entries the walk may look at before the shared hook's other name is reached."""
    deep = ws / "node_modules"
    for i in range(40):
        deep = deep / f"p{i}"
        for j in range(5):
            (deep / f"f{j}").parent.mkdir(parents=True, exist_ok=True)
            (deep / f"f{j}").write_text("x")
    script = shared_hook(ws)
    monkeypatch.setattr(sandbox_hardlinks, "MAX_ENTRIES", 60)  # fewer than node_modules holds (240)
    sandbox_hardlinks._cache.clear()
    assert run_later_paths(ws).get(script.resolve()) == "hard link"


def test_an_unreadable_folder_is_kept_shut_while_a_link_is_unaccounted_for(ws: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder the walk cannot read may hold the other name: read-only, a command cannot open it
    again (`chmod 700`) and write through the link.  When every link is found, it is left alone."""
    shared_hook(ws)
    locked = ws / "private"
    locked.mkdir()
    hidden = locked / "hook-copy"
    os.link(ws / "scripts" / "pre-commit", hidden)
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if Path(path) == locked.resolve():
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(sandbox_hardlinks.os, "scandir", scandir)
    sandbox_hardlinks._cache.clear()
    later = run_later_paths(ws)
    assert later.get(locked.resolve()) == "shut" and hidden.resolve() not in later
    with pytest.raises(WorkspaceError, match="unreadable"):
        refuse_protected(ws, hidden.resolve())
    hidden.unlink()  # every link now known: the folder is not kept shut
    sandbox_hardlinks._cache.clear()
    assert locked.resolve() not in run_later_paths(ws)


async def test_a_command_cannot_rewrite_the_hook_through_its_other_name(box: Sandbox, tmp_path: Path) -> None:
    ws = box.workspace
    script = shared_hook(ws)
    marker = tmp_path / "pwned"
    code, out = await sh(box, f"printf '#!/bin/sh\\ntouch {marker}\\n' >> scripts/pre-commit")
    assert code != 0 and "Read-only file system" in out, out
    code, out = await sh(box, f"rm -f scripts/pre-commit; printf 'touch {marker}\\n' > scripts/pre-commit")
    assert code != 0, out
    assert script.read_text() == HOOK and (ws / ".git" / "hooks" / "pre-commit").read_text() == HOOK
    assert not users_git_runs_it(ws, marker)
    code, out = await sh(box, "echo ok > scripts/other.sh && cat scripts/other.sh")  # the folder stays writable
    assert code == 0 and out.strip() == "ok", out


async def test_an_included_config_named_through_dot_dot_protects_its_other_name(box: Sandbox, tmp_path: Path) -> None:
    """``include.path = ../.gitconfig`` names the file twice (as ``.git/../.gitconfig`` and as the real
    path): each spelling once counted as a link of its own, so the walk took both links for known and
    never looked for ``conf/gitconfig``, which a command could then append ``core.fsmonitor`` to."""
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "include.path", "../.gitconfig"], cwd=ws, check=True)
    (ws / ".gitconfig").write_text("[core]\n")
    other = ws / "conf" / "gitconfig"
    other.parent.mkdir()
    os.link(ws / ".gitconfig", other)
    assert run_later_paths(ws).get(other.resolve()) == "hard link"
    marker = tmp_path / "pwned"
    code, out = await sh(box, f"printf '\\tfsmonitor = \"touch {marker}; false\"\\n' >> conf/gitconfig")
    assert code != 0 and "Read-only file system" in out, out
    assert not users_git_runs_it(ws, marker)


def test_a_husky_script_run_by_its_wrapper_protects_its_other_name(ws: Path) -> None:
    """core.hooksPath is .husky/_, whose wrappers run .husky/<hook>: only the wrappers' links were
    looked for, so a hard link of .husky/pre-commit elsewhere in the work tree stayed writable."""
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".husky/_"], cwd=ws, check=True)
    (ws / ".husky" / "_").mkdir(parents=True)
    (ws / ".husky" / "_" / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/../pre-commit"\n')
    (ws / ".husky" / "pre-commit").write_text("npm test\n")
    other = ws / "scripts" / "pre-commit"
    other.parent.mkdir()
    os.link(ws / ".husky" / "pre-commit", other)
    assert run_later_paths(ws).get(other.resolve()) == "hard link"
    with pytest.raises(WorkspaceError, match="hard link"):
        refuse_protected(ws, other.resolve())


def test_a_symlinked_hook_whose_target_is_hard_linked_into_the_work_tree(ws: Path, tmp_path: Path) -> None:
    """``.git/hooks/pre-commit -> ~/hooks/pre-commit`` (outside the workspace), that file a hard link
    of a work-tree script: a symlinked hook was left out of the files whose links are looked for."""
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    outside = tmp_path / "hooks" / "pre-commit"
    outside.parent.mkdir()
    outside.write_text(HOOK)
    (ws / ".git" / "hooks" / "pre-commit").symlink_to(outside)
    other = ws / "hook.sh"
    os.link(outside, other)
    assert run_later_paths(ws).get(other.resolve()) == "hard link"
