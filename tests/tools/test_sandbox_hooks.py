"""Git hooks and config files kept in the work tree, run for real through the sandbox: a command
must not plant what the user's own next `git status` or `git commit` runs unsandboxed
(``tools/sandbox_hooks.py``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.sandbox_hooks import hook_flags
from agent_tui.tools.shell_exec import run_shell
from agent_tui.tools.workspace import WorkspaceError, refuse_protected, resolve
from tests.support.bwrap import require_bwrap, sh


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


def fsmonitor(marker: Path) -> str:
    """A config line (printf format) that makes git run `touch marker` on the user's next status."""
    return f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n'"


def hook(marker: Path, path: str) -> str:
    """A shell line that writes an executable hook touching ``marker``."""
    return f"printf '#!/bin/sh\\ntouch {marker}\\n' > {path} && chmod +x {path}"


def users_git_runs_it(ws: Path, marker: Path) -> bool:
    """The user's own, unsandboxed git status and commit afterwards: did they run the plant?"""
    subprocess.run("git status --short; git -c user.name=u -c user.email=e commit -q --allow-empty -m x",
                   shell=True, cwd=ws, capture_output=True)
    return marker.exists()


@pytest.mark.parametrize(("hooks", "layout", "attack"), [
    (".githooks", [".githooks/pre-commit"], "echo 'touch pwned' > .githooks/pre-commit; touch .githooks/post-checkout"),
    # husky: core.hooksPath is .husky/_, whose wrappers run the scripts in .husky/
    (".husky/_", [".husky/_/h", ".husky/pre-commit"], "echo 'touch pwned' > .husky/pre-commit; rm -rf .husky/_"),
    # named but not made yet: it cannot be created
    ("tools/hooks", ["tools/lint.sh"], "mkdir -p tools/hooks && echo 'touch pwned' > tools/hooks/pre-commit"),
    # nested: the folder above cannot be renamed away to make a fresh hooks folder in its place
    ("tools/git/hooks", ["tools/git/hooks/pre-commit", "tools/lint.sh"],
     "mv tools tools2 || mv tools/git tools/git2; mkdir -p tools/git/hooks && echo 'touch pwned' > tools/git/hooks/pre-commit"),
])
async def test_hooks_kept_in_the_work_tree_are_read_only(box: Sandbox, hooks: str, layout: list[str],
                                                          attack: str) -> None:
    """With core.hooksPath inside the workspace, a command could plant a hook that the user's own
    next `git commit` runs outside the sandbox."""
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "core.hooksPath", hooks], cwd=ws, check=True)
    for rel in layout:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("#!/bin/sh\nexit 0\n")
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and ".git" not in p.parts}
    code, out = await sh(box, attack)
    assert code != 0 and ("Read-only file system" in out or "busy" in out), out
    after = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == before
    # the rest of the workspace stays writable, the folders above the hooks too
    code, out = await sh(box, "mkdir -p src && echo ok > src/app.py && cat src/app.py")
    assert code == 0 and out.strip() == "ok", out
    if hooks.count("/") > 1:
        code, out = await sh(box, "echo new > tools/new.sh && cat tools/new.sh")
        assert code == 0 and out.strip() == "new", out


async def test_hooks_outside_the_workspace_or_unset_change_nothing(box: Sandbox, tmp_path: Path) -> None:
    ws = box.workspace
    assert hook_flags(ws, []) == []  # not a repository
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    assert hook_flags(ws, []) == []  # .git/hooks: protected with .git
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    subprocess.run(["git", "config", "core.hooksPath", str(shared)], cwd=ws, check=True)
    assert hook_flags(ws, []) == []  # outside: read-only anyway
    subprocess.run(["git", "config", "core.hooksPath", "hooks"], cwd=ws, check=True)
    (ws / "hooks").mkdir()
    assert hook_flags(ws, []) == ["--ro-bind", str(ws / "hooks"), str(ws / "hooks")]  # a config change is seen at once


@pytest.mark.parametrize(("include", "exists"), [
    ("include.path=../.gitconfig", True),
    ("include.path=../config/git.cfg", True),
    ("includeIf.onbranch:main.path=../.gitconfig", True),
    ("include.path=../.gitconfig", False),  # not made yet: it cannot be created
    ("include.path=../config/git.cfg", False),
])
async def test_config_files_git_includes_from_the_work_tree_are_read_only(box: Sandbox, include: str,
                                                                        exists: bool) -> None:
    """A repository whose .git/config includes a tracked file: a command appending
    `core.fsmonitor = <program>` to it would have the user's next `git status` run the program."""
    ws = box.workspace
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=ws, check=True)
    key, value = include.split("=")
    subprocess.run(["git", "config", key, value], cwd=ws, check=True)
    target = ws / value.removeprefix("../")
    if exists:
        target.parent.mkdir(exist_ok=True)
        target.write_text("[user]\n\tname = dev\n")
    before = sorted(p.relative_to(ws) for p in ws.rglob("*") if ".git" not in p.parts)
    rel = target.relative_to(ws)
    code, out = await sh(box, f"mkdir -p {rel.parent}; printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> {rel}; "
                              f"mv {rel} {rel}.x; mv {rel.parts[0]} moved")
    assert code != 0, out
    assert not (ws / "moved").exists() and not list(ws.glob("*.x")) and not list(ws.glob("*/*.x"))
    if exists:
        assert target.read_text() == "[user]\n\tname = dev\n"
    else:
        assert not target.exists(), "nothing was created, and the placeholder is gone"
    assert sorted(p.relative_to(ws) for p in ws.rglob("*") if ".git" not in p.parts) == before
    subprocess.run(["git", "status", "--short"], cwd=ws, capture_output=True, check=True)
    assert not (ws / "pwned").exists()


async def test_a_missing_hooks_folder_in_the_work_tree_cannot_be_created(box: Sandbox) -> None:
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=ws, check=True)
    code, out = await sh(box, "mkdir -p .githooks; echo 'touch pwned' > .githooks/pre-commit")
    assert code != 0, out
    assert not (ws / ".githooks").exists(), "no hook, and the placeholder folder is removed"


@pytest.mark.parametrize("target", ["inside", "outside"])
async def test_a_symlink_on_the_way_is_put_back_when_a_command_replaces_it(box: Sandbox, tmp_path: Path,
                                                                           target: str) -> None:
    """`.gitconfig -> conf/git.cfg` (or a dotfile outside): the link itself cannot be mounted over, so a
    command can replace it; it is put back after the command, what replaced it moved aside."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "config", "include.path", "../.gitconfig")
    real = ws / "conf" / "git.cfg" if target == "inside" else tmp_path / "dotfiles" / "repo.cfg"
    real.parent.mkdir()
    real.write_text("[user]\n\tname = dev\n")
    (ws / ".gitconfig").symlink_to(real)
    out = await run_shell(f"rm .gitconfig && {fsmonitor(marker)} > .gitconfig", ws, 30, sandbox=box)
    assert os.readlink(ws / ".gitconfig") == str(real) and real.read_text() == "[user]\n\tname = dev\n"
    aside = ws / ".gitconfig.replaced-1"
    assert aside.is_file() and "fsmonitor" in aside.read_text(), (out, sorted(p.name for p in ws.iterdir()))
    assert any(".gitconfig was a link" in n for n in out.notes), out.notes
    assert not users_git_runs_it(ws, marker)


async def test_a_symlinked_folder_above_the_hooks_is_put_back(box: Sandbox, tmp_path: Path) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", "tools/hooks")
    (ws / "src" / "tools" / "hooks").mkdir(parents=True)
    (ws / "tools").symlink_to("src/tools")
    await sh(box, f"rm tools && mkdir -p tools/hooks && {hook(marker, 'tools/hooks/pre-commit')}")
    assert os.readlink(ws / "tools") == "src/tools" and not (ws / "src/tools/hooks/pre-commit").exists()
    assert not users_git_runs_it(ws, marker)


async def test_pinning_a_folder_above_the_hooks_leaves_a_git_folder_in_it_read_only(box: Sandbox,
                                                                                  tmp_path: Path) -> None:
    """The folders above a hooks folder are bound writable; that must not cover the read-only mount of
    a git folder kept inside one of them (`--separate-git-dir tools/repo.git`)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    (ws / "tools").mkdir()
    git(ws, "init", "-q", "--separate-git-dir", str(ws / "tools" / "repo.git"))
    git(ws, "config", "core.hooksPath", "tools/hooks")
    (ws / "tools" / "hooks").mkdir()
    code, out = await sh(box, f"{fsmonitor(marker)} >> tools/repo.git/config")
    assert code != 0 and "Read-only file system" in out, out
    assert not users_git_runs_it(ws, marker)


async def test_an_include_behind_a_condition_that_is_false_now_is_protected_too(box: Sandbox,
                                                                               tmp_path: Path) -> None:
    """On main, `includeIf.onbranch:release` is off, but it is live after the user's next checkout,
    and so is every file it includes."""
    ws = box.workspace
    git(ws, "init", "-q", "-b", "main")
    (ws / "ci").mkdir()
    (ws / "ci" / "release.cfg").write_text("[include]\n\tpath = common.cfg\n")
    (ws / "ci" / "common.cfg").write_text("")
    git(ws, "config", "includeIf.onbranch:release.path", "../ci/release.cfg")
    code, out = await sh(box, f"{fsmonitor(tmp_path / 'pwned')} >> ci/common.cfg")
    assert code != 0 and (ws / "ci" / "common.cfg").read_text() == "", out
    with pytest.raises(WorkspaceError, match="config file git uses"):
        refuse_protected(ws, resolve(ws, "ci/common.cfg"))
    code, out = await sh(box, "echo ok > ci/notes.txt")  # the folder itself stays writable
    assert code == 0, out


async def test_hooks_in_the_workspace_root_protect_each_hook_name(box: Sandbox, tmp_path: Path) -> None:
    """core.hooksPath = the workspace itself: the root cannot be read-only; a hook the command makes
    there is moved aside after it (and write tools refuse it); husky's `_` folder at the root does not
    make the whole workspace read-only."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", str(ws))
    (ws / "pre-push").write_text("#!/bin/sh\nexit 0\n")  # the user's own hook: read-only
    out = await run_shell(f"{hook(marker, 'pre-commit')}; echo evil >> pre-push", ws, 30, sandbox=box)
    assert not (ws / "pre-commit").exists() and "touch" in (ws / "pre-commit.replaced-1").read_text()
    assert any("pre-commit is a git hook here" in n for n in out.notes), out.notes
    assert (ws / "pre-push").read_text() == "#!/bin/sh\nexit 0\n" and "Read-only" in out.output
    with pytest.raises(WorkspaceError, match="hook file"):
        refuse_protected(ws, resolve(ws, "pre-commit"))
    assert not users_git_runs_it(ws, marker)
    git(ws, "config", "core.hooksPath", "_")
    (ws / "_").mkdir()
    code, out2 = await sh(box, "mkdir -p src && echo 1 > src/main.py && cat src/main.py")
    assert code == 0 and out2.strip() == "1", out2
    refuse_protected(ws, resolve(ws, "src/main.py"))
    assert sorted(p.name for p in ws.iterdir()) == [".git", "_", "pre-commit.replaced-1", "pre-push", "src"]


async def test_a_config_change_in_the_main_repository_reaches_a_worktree_at_once(tmp_path: Path) -> None:
    """A worktree's `.git` is a file: its config lives in the main repository's `.git`, which is
    watched too, so a hooksPath the user sets mid-session applies to the next command."""
    main, wt, marker = tmp_path / "main", tmp_path / "wt", tmp_path / "pwned"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "-c", "user.name=u", "-c", "user.email=e", "commit", "-q", "--allow-empty", "-m", "i")
    git(main, "worktree", "add", "-q", str(wt))
    box = Sandbox(require_bwrap(), wt.resolve())
    code, _ = await sh(box, "mkdir -p .githooks && echo x > .githooks/notes")  # warms the cache
    assert code == 0
    git(main, "config", "core.hooksPath", ".githooks")
    code, out = await sh(box, hook(marker, ".githooks/pre-commit"))
    assert code != 0 and not (wt / ".githooks" / "pre-commit").exists(), out
    assert not users_git_runs_it(wt, marker)


async def test_a_workspace_inside_a_larger_repository_resolves_paths_from_its_top(tmp_path: Path) -> None:
    repo, marker = tmp_path / "repo", tmp_path / "pwned"
    (repo / "sub" / "hooks").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "core.hooksPath", "sub/hooks")
    git(repo, "config", "include.path", "../sub/git.cfg")
    (repo / "sub" / "git.cfg").write_text("[user]\n\tname = dev\n")
    box = Sandbox(require_bwrap(), (repo / "sub").resolve())
    for attack in (hook(marker, "hooks/pre-commit"), f"{fsmonitor(marker)} >> git.cfg"):
        code, out = await sh(box, attack)
        assert code != 0, out
    assert (repo / "sub" / "git.cfg").read_text() == "[user]\n\tname = dev\n"
    assert not users_git_runs_it(repo, marker)


async def test_every_link_of_a_chain_is_put_back_and_the_repair_stays_in_the_workspace(box: Sandbox,
                                                                                       tmp_path: Path) -> None:
    """`.gitconfig -> conf/git.cfg` and `conf -> settings`: swapping the second link is caught too;
    the folder holding a link is pinned, so swapping it for a link to elsewhere cannot make the repair
    write there."""
    ws, marker, elsewhere = box.workspace, tmp_path / "pwned", tmp_path / "elsewhere"
    git(ws, "init", "-q")
    git(ws, "config", "include.path", "../.gitconfig")
    (ws / "settings").mkdir()
    (ws / "settings" / "git.cfg").write_text("[user]\n\tname = dev\n")
    (ws / "conf").symlink_to("settings")
    (ws / ".gitconfig").symlink_to("conf/git.cfg")
    out = await run_shell(f"rm conf && mkdir evil && {fsmonitor(marker)} > evil/git.cfg && ln -s evil conf",
                          ws, 30, sandbox=box)
    assert os.readlink(ws / "conf") == "settings", out.notes
    assert not users_git_runs_it(ws, marker)
    (ws / "deep").mkdir()
    (ws / "deep" / "git.cfg").symlink_to("../settings/git.cfg")
    git(ws, "config", "include.path", "../deep/git.cfg")
    elsewhere.mkdir()
    (elsewhere / "git.cfg").write_text("not yours\n")
    code, out2 = await sh(box, f"rm -rf deep && ln -s {elsewhere} deep")
    assert code != 0 and "busy" in out2, out2
    assert (elsewhere / "git.cfg").read_text() == "not yours\n" and not (elsewhere / "git.cfg").is_symlink()
    assert os.readlink(ws / "deep" / "git.cfg") == "../settings/git.cfg"


async def test_hooks_the_repository_links_from_the_work_tree_are_read_only(box: Sandbox, tmp_path: Path) -> None:
    """`.git/hooks/pre-commit -> ../../scripts/pre-commit.sh` (an install-hooks script's layout)."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    (ws / "scripts").mkdir()
    (ws / "scripts" / "pre-commit.sh").write_text("#!/bin/sh\nexit 0\n")
    (ws / "scripts" / "pre-commit.sh").chmod(0o755)
    (ws / ".git" / "hooks" / "pre-commit").symlink_to("../../scripts/pre-commit.sh")
    code, out = await sh(box, hook(marker, "scripts/pre-commit.sh"))
    assert code != 0 and "Read-only" in out, out
    assert not users_git_runs_it(ws, marker)


async def test_a_global_git_config_kept_in_the_workspace_is_read_only(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A dotfiles repository as the workspace, with ~/.gitconfig linked into it."""
    home, ws, marker = tmp_path / "home", (tmp_path / "dotfiles").resolve(), tmp_path / "pwned"
    home.mkdir()
    ws.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    git(ws, "init", "-q")
    (ws / "gitconfig").write_text("[user]\n\tname = me\n")
    (home / ".gitconfig").symlink_to(ws / "gitconfig")
    code, out = await sh(Sandbox(require_bwrap(), ws), f"{fsmonitor(marker)} >> gitconfig")
    assert code != 0 and (ws / "gitconfig").read_text() == "[user]\n\tname = me\n", out
    with pytest.raises(WorkspaceError, match="config file git uses"):
        refuse_protected(ws, resolve(ws, "gitconfig"))


async def test_odd_layouts_neither_blind_the_scan_nor_break_commands(box: Sandbox, tmp_path: Path) -> None:
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    # a `.git` planted beside an included file: the file is still read (git config runs from /)
    (ws / "conf").mkdir()
    (ws / "conf" / "gitconfig").write_text("[core]\n\thooksPath = .githooks\n")
    git(ws, "config", "include.path", "../conf/gitconfig")
    (ws / ".githooks").mkdir()
    await sh(box, "echo 'gitdir: /nonexistent' > conf/.git")
    git(ws, "add", "-A")  # the user's next git command changes .git: the cache is read again
    code, out = await sh(box, hook(marker, ".githooks/pre-commit"))
    assert code != 0 and "Read-only" in out, out
    # an include under a regular file: that file cannot be swapped for a folder holding the include
    (ws / "notes").write_text("plain file\n")
    git(ws, "config", "--add", "include.path", "../notes/x.cfg")
    code, out = await sh(box, f"rm notes && mkdir notes && {fsmonitor(marker)} > notes/x.cfg")
    assert code != 0 and (ws / "notes").is_file(), out
    assert not users_git_runs_it(ws, marker)
    # a symlink loop on the way (git itself fails on it): commands and write tools go on working
    git(ws, "config", "--add", "include.path", "../loop/x.cfg")
    (ws / "loop").symlink_to("loop2")
    (ws / "loop2").symlink_to("loop")
    code, out = await sh(box, "echo ok > src.txt && cat src.txt")
    assert code == 0 and out.split() == ["ok"], out
    refuse_protected(ws, resolve(ws, "src.txt"))


async def test_a_missing_included_file_is_an_empty_readable_placeholder(box: Sandbox) -> None:
    """Git inside the sandbox reads the placeholder (an empty file, not /dev/null, which bwrap's
    mount leaves unreadable) and works; afterwards nothing is left."""
    ws = box.workspace
    git(ws, "init", "-q")
    git(ws, "config", "include.path", "../.gitconfig")
    code, out = await sh(box, "git status --short && git config --get include.path && echo done")
    assert code == 0 and out.strip().endswith("done") and "fatal" not in out, out
    assert not (ws / ".gitconfig").exists()


async def test_a_global_git_config_not_made_yet_in_the_workspace_cannot_be_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace is the home folder: `~/.gitconfig` does not exist yet, and a command must not
    create one (git would read it for every repository of the user)."""
    ws = (tmp_path / "home").resolve()
    ws.mkdir()
    monkeypatch.setenv("HOME", str(ws))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    code, out = await sh(Sandbox(require_bwrap(), ws), f"{fsmonitor(tmp_path / 'pwned')} > .gitconfig")
    assert code != 0 and not (ws / ".gitconfig").exists(), out
    with pytest.raises(WorkspaceError, match="config file git uses"):
        refuse_protected(ws, resolve(ws, ".gitconfig"))


async def test_only_links_named_like_hooks_in_a_hooks_folder_count(box: Sandbox) -> None:
    """With the hooks folder at the workspace root, an ordinary link there (`build -> out`) must not
    make its target read-only."""
    ws = box.workspace
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", str(ws))
    (ws / "out").mkdir()
    (ws / "build").symlink_to("out")
    code, out = await sh(box, "echo 1 > out/app.js && cat build/app.js")
    assert code == 0 and out.strip() == "1", out


@pytest.mark.parametrize(("key", "value", "program"), [
    ("core.fsmonitor", "tools/fsmon", "tools/fsmon"),
    ("filter.strip.clean", "./scripts/strip --keep-output", "scripts/strip"),
    ("credential.helper", "!tools/cred.sh get", "tools/cred.sh"),
])
async def test_a_program_config_names_by_a_work_tree_path_is_read_only(box: Sandbox, tmp_path: Path, key: str,
                                                                       value: str, program: str) -> None:
    """`core.fsmonitor = tools/fsmon`: the user's next `git status` runs that file, so a command must
    not rewrite (or, when it is missing, create) it."""
    ws, marker = box.workspace, tmp_path / "pwned"
    git(ws, "init", "-q")
    git(ws, "config", key, value)
    (ws / program).parent.mkdir(parents=True, exist_ok=True)
    code, out = await sh(box, hook(marker, program))
    assert code != 0 and not (ws / program).exists(), out  # missing: it cannot be made
    (ws / program).write_text("#!/bin/sh\nexit 0\n")
    code, out = await sh(box, hook(marker, program))
    assert code != 0 and (ws / program).read_text() == "#!/bin/sh\nexit 0\n", out
    with pytest.raises(WorkspaceError, match="a program git uses"):
        refuse_protected(ws, resolve(ws, program))
    git(ws, "config", key, "fsmon-on-path")  # a bare name is looked up in PATH: nothing to protect
    code, out = await sh(box, f"echo ok > {program} && cat {program}")
    assert code == 0 and out.strip() == "ok", out
