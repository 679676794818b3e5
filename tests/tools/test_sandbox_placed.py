"""Repositories placed in the workspace and registered nowhere, run for real through the sandbox
(``tools/sandbox_placed.py``): a command must not leave a repository whose config the user's shell
prompt or editor runs when it calls ``git status`` in that folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from agent_tui.tools import sandbox_placed, sandbox_repo_check
from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.sandbox_placed import placed_repos
from agent_tui.tools.sandbox_repo_check import why_unsafe
from agent_tui.tools.shell_exec import run_shell
from agent_tui.tools.workspace import WorkspaceError, refuse_protected
from tests.support.gitrepo import git, one_commit_repo


def upstream(ws: Path) -> Path:
    """A repository to clone from (in the workspace: the sandbox's /tmp is its own)."""
    return one_commit_repo(ws / "upstream")


def prompt_runs_it(folder: Path, marker: Path) -> bool:
    """The user's shell prompt (or editor) after `cd folder`: an unsandboxed `git status` there."""
    subprocess.run(["git", "status", "--short"], cwd=folder, capture_output=True)
    return marker.exists()


def test_the_attack_works_on_git_itself(tmp_path: Path) -> None:
    """Without a sandbox, a repository made in a subfolder runs its fsmonitor on the user's status there;
    so does a bare one whose config gives it a work tree."""
    ws, marker = tmp_path / "ws", tmp_path / "pwned"
    ws.mkdir()
    git(ws, "init", "-q", "sub")
    git(ws / "sub", "config", "core.fsmonitor", f"touch {marker}")
    assert prompt_runs_it(ws / "sub", marker)
    marker.unlink()
    git(ws, "init", "-q", "--bare", "bare")
    git(ws / "bare", "config", "core.worktree", "..")
    git(ws / "bare", "config", "core.bare", "false")
    git(ws / "bare", "config", "core.fsmonitor", f"touch {marker}")
    assert prompt_runs_it(ws / "bare", marker)


PLANTS = {
    "fsmonitor": "git init -q sub && git -C sub config core.fsmonitor 'touch {marker}'",
    "include": "git init -q sub && printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > inc.cfg && "
               "git -C sub config include.path ../../inc.cfg",
    "hook": "git init -q sub && printf '#!/bin/sh\\ntouch {marker}\\n' > sub/.git/hooks/post-checkout && "
            "chmod +x sub/.git/hooks/post-checkout",
    "gitdir file": "git init -q --bare store && git -C store config core.fsmonitor 'touch {marker}' && "
                   "mkdir sub && echo 'gitdir: ../store' > sub/.git",
    "link": "git init -q --bare store && git -C store config core.fsmonitor 'touch {marker}' && "
            "mkdir sub && ln -s ../store sub/.git",
    "bare with a work tree": "git init -q --bare sub && git -C sub config core.bare false && "
                             "git -C sub config core.worktree .. && git -C sub config core.fsmonitor 'touch {marker}'",
    "commondir": "git init -q --bare store && git -C store config core.fsmonitor 'touch {marker}' && "
                 "git init -q sub && echo ../../store > sub/.git/commondir",
    # found by review: what git reads differs from a reader of its own, or the walk stopped early
    "decoy git folder above": "mkdir -p sub && touch sub/HEAD sub/objects sub/refs && git init -q sub/in && "
                              "git -C sub/in config core.fsmonitor 'touch {marker}'",
    "inside a .git folder": "git init -q sub && git init -q sub/.git/x && "
                            "git -C sub/.git/x config core.fsmonitor 'touch {marker}'",
    "commondir with a trailing blank": "git init -q sub && mkdir -p 'c /objects' 'c /refs' && "
                                       "printf '[core]\\n\\tfsmonitor = touch {marker}\\n' > 'c /config' && "
                                       "printf '../../c \\n' > sub/.git/commondir",
    "gitdir with a trailing blank": "git init -q --bare 'wt ' && git -C 'wt ' config core.fsmonitor 'touch {marker}' "
                                    "&& mkdir sub && printf 'gitdir: ../wt \\n' > sub/.git",
    "a NUL in another gitdir file": "mkdir a && printf 'gitdir: ../x\\000y\\n' > a/.git && git init -q sub && "
                                    "git -C sub config core.fsmonitor 'touch {marker}'",
    # second review: a repository git takes for one only later, or only from another folder
    "objects linked to a folder made later": "git init -q sub && git -C sub config core.fsmonitor 'touch {marker}' && "
                                             "rm -rf sub/.git/objects && ln -s ../../build-cache sub/.git/objects",
    "commondir naming a folder made later": "mkdir -p sub/.git && echo 'ref: refs/heads/main' > sub/.git/HEAD && "
                                            "echo ../../later > sub/.git/commondir",
    "refs through /proc/self/cwd": "git init -q sub && git -C sub config core.fsmonitor 'touch {marker}' && "
                                   "rm -rf sub/.git/refs && ln -s /proc/self/cwd/r sub/.git/refs && mkdir -p sub/src/r",
    "config hard-linked to a work-tree file": "git init -q sub && printf '[core]\\n\\tbare = false\\n' > notes.txt && "
                                              "rm sub/.git/config && ln notes.txt sub/.git/config",
    # third review: a .git file's twin rewritten later, a FIFO that hangs git
    ".git file hard-linked to a work-tree file": "git init -q clean && printf 'gitdir: ../clean/.git\\n' > notes.txt && "
                                                 "mkdir sub && ln notes.txt sub/.git",
    "a FIFO for HEAD": "mkdir -p sub/objects sub/refs && mkfifo sub/HEAD",
    "gitdir through /proc/self/cwd, check steered": (
        "mkdir sub && git init -q --bare sub/g && echo 'gitdir: /proc/self/cwd/g' > sub/.git && "
        "git init -q --bare sub/src/g && git -C sub/src/g config core.bare false && "
        "git -C sub/src/g config core.fsmonitor 'touch {marker}' && echo 'gitdir: ../../g' > sub/src/g/.git"),
}


@pytest.mark.parametrize("plant", PLANTS.values(), ids=PLANTS.keys())
async def test_a_repository_a_command_makes_that_would_run_a_program_is_disabled(
        box: Sandbox, tmp_path: Path, plant: str) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    out = await run_shell(f"{plant.format(marker=marker)} && echo planted", ws, 30, sandbox=box)
    assert "planted" in out.output, out.output
    notes = [n for n in out.notes if "is a git repository the command made" in n]
    assert notes and all("moved to" in n for n in notes), out.notes
    assert not prompt_runs_it(ws / "sub", marker), out.notes
    for inner in ("sub/in", "sub/src"):
        assert not (ws / inner).is_dir() or not prompt_runs_it(ws / inner, marker), out.notes
    # what a later command or write tool adds cannot make it one: the folders it names are there now
    later = await run_shell("mkdir -p build-cache later/objects later/refs && "
                            f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' | tee later/config >> notes.txt", ws, 30,
                            sandbox=box)
    assert later.exit_code == 0, later.output
    for inner in ("sub", "sub/in", "sub/src"):
        assert not (ws / inner).is_dir() or not prompt_runs_it(ws / inner, marker), (inner, out.notes, later.notes)
    # nothing deleted: what makes it a repository is beside it, for the user to look at
    assert list(ws.rglob("*.replaced-*")), out.notes
    for aside in ws.rglob(".git.replaced-*"):  # no longer a repository, for a remote naming it either
        if aside.is_dir():
            named = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=ws, capture_output=True,
                                   env={**os.environ, "GIT_DIR": str(aside)})
            assert named.returncode != 0, aside
    assert not prompt_runs_it(ws / "sub", marker)  # and the next command's look is not broken by it
    assert (await run_shell("echo again", ws, 30, sandbox=box)).output.strip() == "again"


async def test_a_repository_split_over_two_folders_is_disabled(box: Sandbox, tmp_path: Path) -> None:
    """`evil` has a HEAD and a commondir naming `c`, which has objects, refs and a config setting a pager:
    neither folder alone looks like a git folder, but git takes `evil` for one (found by review)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    plant = (f"mkdir -p evil c/objects c/refs && echo 'ref: refs/heads/main' > evil/HEAD && echo ../c > evil/commondir"
             f" && printf '[core]\\n\\tpager = touch {marker}; cat\\n' > c/config")
    subprocess.run(plant, shell=True, cwd=tmp_path, check=True)  # the attack, outside the workspace, works
    assert pager_runs_it(tmp_path / "evil", marker)
    marker.unlink()
    out = await run_shell(plant, ws, 30, sandbox=box)
    assert any("evil/HEAD is a git repository the command made" in n for n in out.notes), out.notes
    assert not pager_runs_it(ws / "evil", marker)


async def test_everyday_git_in_a_command_leaves_no_false_alarm(box: Sandbox) -> None:
    """Clones with submodules, sparse checkouts and ordinary settings pass the check untouched."""
    ws = box.workspace
    git(ws, "init", "-q")
    lib = upstream(ws)
    (ws / "dep-src").mkdir()
    git(lib, "submodule", "add", "-q", str(upstream(ws / "dep-src")), "dep")
    git(lib, "commit", "-qm", "dep")
    out = await run_shell(
        f"git -c protocol.file.allow=always clone -q --recurse-submodules {lib} app && "
        "git -C app sparse-checkout set --no-cone /x.py && git -C app config push.default current && "
        "git -C app config color.ui auto && git clone -q --bare app bare.git && git init -q fresh && "
        "git -C app worktree add -q ../wt && mkdir store && git init -q --separate-git-dir store/sep.git sep && "
        "git -c http.postBuffer=524288000 clone -q app app2 && git -C app2 config user.signingkey ABC && "
        "git -C app2 config commit.gpgsign true && git -C app2 config submodule.recurse true && "
        "git -C app2 config rerere.enabled true && git -C app2 config credential.helper store", ws, 60,
        sandbox=box)
    assert out.exit_code == 0, out.output
    assert not out.notes, out.notes
    assert (ws / "app/.git/HEAD").is_file() and (ws / "app/dep/.git").is_file() and (ws / "bare.git/HEAD").is_file()


async def test_a_clean_clone_is_left_alone_and_then_kept_read_only(box: Sandbox, tmp_path: Path) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    lib = upstream(ws)
    out = await run_shell(f"git clone -q {lib} vendor/lib && git -C vendor/lib log --oneline", ws, 30, sandbox=box)
    assert out.exit_code == 0 and " x" in out.output, out.output
    assert not out.notes, out.notes
    assert (ws / "vendor/lib/.git/config").is_file()
    # the next command finds it there and cannot plant in it, nor swap its .git, nor move the folder
    for attack in (f"git -C vendor/lib config core.fsmonitor 'touch {marker}'",
                   f"rm -rf vendor/lib/.git && git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "
                   f"'touch {marker}'",
                   f"mv vendor/lib vendor/old && git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "
                   f"'touch {marker}'"):
        out = await run_shell(attack, ws, 30, sandbox=box)
        assert out.exit_code != 0, (attack, out.output)
        assert not prompt_runs_it(ws / "vendor/lib", marker), (attack, out.output, out.notes)
    assert "fsmonitor" not in (ws / "vendor/lib/.git/config").read_text()
    # reading it still works inside the sandbox
    out = await run_shell("git -C vendor/lib log --oneline && git -C vendor/lib status --short", ws, 30, sandbox=box)
    assert out.exit_code == 0 and " x" in out.output, out.output


async def test_a_program_a_users_clone_names_by_a_path_is_read_only(box: Sandbox, tmp_path: Path) -> None:
    """Program keys beyond fsmonitor and the editor: a pager for one command, an alias, an upload-pack."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "init", "-q", "vendor/lib")
    for key, program in (("pager.log", "tools/pager"), ("alias.st", "!tools/st"),
                         ("remote.origin.uploadpack", "tools/up")):
        (ws / "vendor/lib" / program.lstrip("!")).parent.mkdir(parents=True, exist_ok=True)
        (ws / "vendor/lib" / program.lstrip("!")).write_text("#!/bin/sh\ncat\n")
        git(ws / "vendor/lib", "config", key, program)
    for program in ("tools/pager", "tools/st", "tools/up"):
        out = await run_shell(f"echo 'touch {marker}' >> vendor/lib/{program}", ws, 30, sandbox=box)
        assert out.exit_code != 0, (program, out.output)
        assert "touch" not in (ws / "vendor/lib" / program).read_text()


async def test_a_users_own_placed_repository_keeps_its_settings(box: Sandbox, tmp_path: Path) -> None:
    """A repository there before any command is the user's: its config (a pager here) is never judged."""
    ws = box.workspace
    git(ws, "init", "-q", "tools/own")
    git(ws / "tools/own", "config", "core.pager", "less -R")
    out = await run_shell("git init -q fresh && echo ok", ws, 30, sandbox=box)
    assert out.exit_code == 0 and not out.notes, out.notes
    assert (ws / "tools/own/.git").is_dir() and (ws / "fresh/.git").is_dir()
    with pytest.raises(WorkspaceError, match="nested repository.s git folder"):
        git(ws, "init", "-q", "--bare", "bare")
        refuse_protected(ws, (ws / "bare" / "config").resolve())


def pager_runs_it(folder: Path, marker: Path) -> bool:
    """The user's git on a terminal in ``folder`` (``script`` gives it one), with its output paged."""
    subprocess.run(["script", "-qc", "git -p config --list", "/dev/null"], cwd=folder, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=30)
    return marker.exists()


def test_git_lfs_settings_and_hooks_pass(tmp_path: Path) -> None:
    repo = tmp_path / "ws" / "sub"
    git(tmp_path, "init", "-q", str(repo))
    for key, value in sandbox_repo_check._LFS_FILTER.items():
        git(repo, "config", key, value)
    hook = repo / ".git/hooks/pre-push"
    hook.write_text('#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 || { printf >&2 "\\n%s\\n\\n" "This repository '
                    "is configured for Git LFS but 'git-lfs' was not found on your path.\"; exit 2; }\n"
                    'git lfs pre-push "$@"\n')
    root = (tmp_path / "ws").resolve()
    assert why_unsafe(repo.resolve() / ".git", root) is None
    lfs = hook.read_text()
    hook.write_text(lfs.replace("exit 2;", "$(touch /tmp/x); exit 2;"))
    assert why_unsafe(repo.resolve() / ".git", root) == "it has a hook pre-push"
    hook.write_text(lfs.replace("path.", "path." + " " * 5000))  # a valid hook padded past any short read...
    assert why_unsafe(repo.resolve() / ".git", root) is None
    hook.write_text(lfs.replace("path.", "path." + " " * 20_000) + "touch /tmp/x\n")  # ...with a payload after it
    assert why_unsafe(repo.resolve() / ".git", root) == "it has a hook pre-push"
    hook.rename(repo / ".git/hooks/pre-commit")
    hook.with_name("pre-commit").write_text(lfs)  # git-lfs's pre-push hook under another hook's name
    assert why_unsafe(repo.resolve() / ".git", root) == "it has a hook pre-commit"
    hook.with_name("pre-commit").unlink()
    git(repo, "config", "filter.lfs.process", "git-lfs filter-process; touch /tmp/x")
    assert why_unsafe(repo.resolve() / ".git", root) == "its config sets filter.lfs.process"


def test_hooks_from_the_users_own_template_folder_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git init` copies the hooks of the user's template folder (git-secrets, pre-commit's
    init-templatedir): those are the user's, not a plant; any other content is not."""
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    (template / "hooks" / "pre-commit").write_text("#!/bin/sh\ngit secrets --pre_commit_hook -- \"$@\"\n")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(template))
    sandbox_repo_check._template_hooks.cache_clear()
    try:
        ws = tmp_path / "ws"
        git(tmp_path, "init", "-q", str(ws / "sub"))
        root = ws.resolve()
        assert (root / "sub/.git/hooks/pre-commit").is_file()
        assert why_unsafe(root / "sub/.git", root) is None
        twin = root / "lint.sh"  # the same bytes, but hard-linked to a file a later command could change
        os.link(root / "sub/.git/hooks/pre-commit", twin)
        assert why_unsafe(root / "sub/.git", root) == "it has a hook pre-commit"
        twin.unlink()
        (root / "sub/.git/hooks/pre-commit").write_text("#!/bin/sh\ntouch /tmp/x\n")
        assert why_unsafe(root / "sub/.git", root) == "it has a hook pre-commit"
        # the template is pre-commit's own (`pre-commit init-templatedir`): fine until a config sits beside it
        (template / "hooks" / "pre-commit").write_text("#!/usr/bin/env bash\n# File generated by pre-commit: "
                                                      "https://pre-commit.com\nexec pre-commit hook-impl "
                                                      "--hook-type=pre-commit -- \"$@\"\n")
        sandbox_repo_check._template_hooks.cache_clear()
        git(tmp_path, "init", "-q", str(ws / "pc"))
        assert why_unsafe(root / "pc/.git", root) is None
        (root / "pc/.pre-commit-config.yaml").write_text("repos: []\n")
        assert "hook manager" in (why_unsafe(root / "pc/.git", root) or "")
        git(tmp_path, "init", "-q", str(ws / "moved"))  # core.worktree puts the work tree (and its config) elsewhere
        git(ws / "moved", "config", "core.worktree", "../wt")
        (root / "moved/wt").mkdir()
        assert why_unsafe(root / "moved/.git", root) is None
        (root / "moved/wt/.pre-commit-config.yaml").write_text("repos: []\n")
        assert "hook manager" in (why_unsafe(root / "moved/.git", root) or "")
    finally:
        sandbox_repo_check._template_hooks.cache_clear()


def test_the_walk_follows_changes_and_matches_a_fresh_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After each change the walk finds what a walk from nothing finds; links are never followed and git
    folders never entered."""
    ws = tmp_path / "ws"
    (ws / "a/b/c").mkdir(parents=True)
    git(ws, "init", "-q")
    root = ws.resolve()

    def fresh() -> tuple[Path, ...]:
        sandbox_placed._memos.clear()
        return placed_repos(root).repos

    def both() -> tuple[Path, ...]:
        warm = placed_repos(root).repos
        assert warm == fresh()
        return warm

    assert both() == ()
    git(ws, "init", "-q", "a/b/c/deep")
    assert both() == (root / "a/b/c/deep/.git",)
    git(ws, "init", "-q", "--bare", "a/bare.git")
    (ws / "a/b/link").symlink_to(ws / "a/b/c")  # a link to a folder holding a repository: not followed
    assert both() == (root / "a/b/c/deep/.git", root / "a/bare.git")
    shutil.rmtree(ws / "a/b/c/deep")
    os.rename(ws / "a/bare.git", ws / "bare.git")
    assert both() == (root / "bare.git",)
    monkeypatch.setattr(sandbox_placed, "MAX_DIRS", 2)
    assert not placed_repos(root).complete


def test_a_warm_walk_lists_only_changed_folders_and_a_reset_mtime_does_not_hide_a_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    for i in range(20):
        (ws / f"d{i}" / "e").mkdir(parents=True)
    root = ws.resolve()
    listed: list[str] = []
    real_list = sandbox_placed._list
    monkeypatch.setattr(sandbox_placed, "_list",
                        lambda folder, *rest: listed.append(folder) or real_list(folder, *rest))
    monkeypatch.setattr(sandbox_placed, "RACY_NS", 0)  # (the sleeps below stand in for the racy margin)
    placed_repos(root)
    assert len(listed) == 41
    time.sleep(0.05)
    listed.clear()
    assert placed_repos(root).repos == () and listed == []  # nothing changed: one stat a folder, no listing
    before = os.stat(ws / "d3")
    time.sleep(0.05)
    git(ws, "init", "-q", "d3/x")
    os.utime(ws / "d3", ns=(before.st_atime_ns, before.st_mtime_ns))  # a command setting the mtime back
    listed.clear()
    assert placed_repos(root).repos == (root / "d3/x/.git",)
    assert str(root / "d3") in listed and str(root / "d7") not in listed


async def test_a_workspace_too_big_to_walk_is_told_once(box: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = box.workspace
    git(ws, "init", "-q")
    (ws / "a/b/c").mkdir(parents=True)
    monkeypatch.setattr(sandbox_placed, "MAX_DIRS", 3)
    notes = [n for _ in range(2) for n in (await run_shell("true", ws, 30, sandbox=box)).notes]
    assert sum("more than 3 folders" in n for n in notes) == 1, notes
    monkeypatch.setattr(sandbox_placed, "MAX_DIRS", 8)  # a command that pushes it past the limit: said each time
    for i in range(2):
        out = await run_shell(f"mkdir -p many{i}/a many{i}/b many{i}/c many{i}/d", ws, 30, sandbox=box)
        assert any("the command made the workspace pass 8 folders" in n for n in out.notes), out.notes
        shutil.rmtree(ws / f"many{i}")


def test_write_tools_never_complete_a_bare_repository(tmp_path: Path) -> None:
    """No check follows a write tool as one follows a command: the write that would make a folder a
    git folder (the last of HEAD, objects and refs) is refused, whatever the order."""
    ws = tmp_path / "ws"
    (ws / "x" / "objects").mkdir(parents=True)
    (ws / "x" / "config").write_text("[core]\n\tworktree = ..\n\tfsmonitor = touch /tmp/x\n")
    root = ws.resolve()
    refuse_protected(ws, root / "x" / "HEAD")  # HEAD alone (refs missing) is an ordinary file
    (ws / "x" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.raises(WorkspaceError, match="would make 'x' a git repository"):
        refuse_protected(ws, root / "x" / "refs" / "heads" / "main")
    refuse_protected(ws, root / "x" / "notes.txt")
    refuse_protected(ws, root / "y" / "refs" / "z")  # a new folder: nothing else there
    (ws / "y" / "HEAD").parent.mkdir()
    (ws / "y" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.raises(WorkspaceError, match="would make 'y' a git repository"):
        refuse_protected(ws, root / "y" / "commondir")  # git's other shape: HEAD and a commondir


async def test_a_workspace_without_git_cannot_be_made_a_bare_repository(box: Sandbox, tmp_path: Path) -> None:
    """The root itself, git-shaped by a command (`git init --bare .` with a work tree and fsmonitor), is
    judged like any folder: every subfolder's git would find it (fourth review)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    (ws / "src").mkdir()
    out = await run_shell("git init -q --bare . && git config -f config core.bare false && "
                          f"git config -f config core.worktree . && git config -f config core.fsmonitor 'touch {marker}'",
                          ws, 30, sandbox=box)
    assert any(n.startswith("HEAD is a git repository the command made") for n in out.notes), (out.output, out.notes)
    assert not prompt_runs_it(ws, marker) and not prompt_runs_it(ws / "src", marker)


def _deep(root: Path, parts: list[str]) -> list[str]:
    """The names in the folder ``root/parts…``, opened one level at a time (its path is too long to name)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for part in parts:
        inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    try:
        return sorted(os.listdir(fd))
    finally:
        os.close(fd)


async def test_a_repository_deeper_than_a_path_can_name_is_still_disabled(box: Sandbox, tmp_path: Path) -> None:
    """Its absolute path passes the system's limit, so naming it fails: the move aside goes one folder at
    a time instead, and the repository does not stay live with only a note (fourth review)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    need, parts = 4082 - len(str(ws)), []  # the folder is nameable; `.git.replaced-1` in it is not (4096)
    while need > 0:
        n = min(200, need - 1) - (3 if need - min(200, need - 1) - 1 in (1, 2) else 0)
        parts.append("d" * n)
        need -= n + 1
    assert len(str(ws.joinpath(*parts))) == 4082
    plant = (" && ".join(f"mkdir {p} && cd {p}" for p in parts) + " && mkdir -p .git/objects .git/refs/heads && "
             "echo 'ref: refs/heads/main' > .git/HEAD && "
             f"printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch {marker}\\n' > .git/config")
    out = await run_shell(plant, ws, 30, sandbox=box)
    assert out.exit_code == 0, out.output
    assert any("moved to .git.replaced-1" in n for n in out.notes), out.notes
    names = _deep(ws, parts)
    assert ".git" not in names and ".git.replaced-1" in names, names
