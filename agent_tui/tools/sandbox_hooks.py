"""Git hooks and config files kept in the work tree, out of a sandboxed command's reach.

``.git`` is out of a command's reach as a whole, but git also runs what two kinds of work-tree
files say, and the user's own next ``git status`` or ``git commit`` runs it outside any sandbox:

* **hooks**: many projects point ``core.hooksPath`` at a folder of the work tree (husky's
  ``.husky/_``, a ``.githooks`` folder).  A command could write ``.husky/pre-commit``;
* **included config**: a repository's ``.git/config`` may ``include.path = ../.gitconfig``
  (or ``includeIf``) a tracked file.  A command could append ``core.fsmonitor = <program>``.

What git may use is read from the config files themselves, one by one, following every include
whatever its condition (a branch-conditional include becomes live on the user's next checkout),
from the system, global and repository files git reads (``git config --file``, which runs no
repository program; ``tools/sandbox_gitpaths.py``).  Every hooks folder any of them names and every included file, when inside
the workspace, is mounted read-only for commands.  Husky's ``_`` folder only holds wrappers that
run the scripts one level up, so for it the parent is protected too.  A hooks folder that is the
workspace root itself cannot be mounted read-only: there each hook name is, one file at a time.

Around each protected path:

* a missing one (a folder named but not made yet) gets an empty read-only placeholder on its
  first missing part while the command runs, removed afterwards like ``.git``'s, so it cannot
  be created;
* each real folder between the workspace root and it is bound onto itself, still writable: a
  mount point cannot be renamed, so ``mv tools tools2 && mkdir -p tools/hooks`` cannot put a
  fresh, writable folder where git looks;
* a symlink on the way (``.gitconfig -> conf/git.cfg``, even to a file outside the workspace, and
  every further link its target goes through) cannot be mounted over; it is recorded before the
  command and put back after it if the command replaced it, as ``.git`` links are
  (``sandbox_guard.repair_links``), and the folder holding it is pinned, so the repair never
  writes through a folder the command swapped for a link.

Programs that config names by a path run the same way (``core.fsmonitor = tools/fsmon``, a
filter, diff or merge driver, an editor or credential helper given as ``./scripts/x``): each one
inside the workspace is protected too; a bare name is looked up in ``PATH``, out of the workspace.
Besides ``core.hooksPath``: the repository's own ``hooks`` folder, when it or a hook in it is a
link into the work tree (``.git/hooks/pre-commit -> ../../scripts/pre-commit.sh``), protects the
target; a hook, config file or program that is hard-linked protects its other names in the work
tree (``tools/sandbox_hardlinks.py``); and a global or system git config file that lives in the
workspace (a dotfiles repository) is protected like an included one.  A hook created where none was, in a hooks folder that is the
workspace root, is moved aside after the command (a placeholder for each of git's hook names would
litter the root while every command runs).

Repositories the user's git walks into from the root (submodules, worktrees kept in the workspace;
``tools/sandbox_nested.py`` finds them) are protected the same way: their ``.git`` (kind ``repo``),
the git folders a ``.git`` file leads to when they are in the work tree, and what their own configs
name.  So are repositories merely placed in the workspace (a ``git clone`` into a subfolder, a bare
repository; ``tools/sandbox_placed.py`` finds them, and checks the ones a command makes).  A
submodule not checked out has no ``.git`` to protect; its (empty) folder is read-only instead
(kind ``submodule``), or, when missing, gets a placeholder folder: an empty *folder* is what git
expects there, while a placeholder ``.git`` would make the user's git fail meanwhile.  A folder a
command made unsearchable (``chmod 000``) on the way to any of these is kept read-only (kind
``shut``), so a later command cannot open it again and plant behind it.

An installed hook manager's hook (pre-commit, lefthook) reads a config from the work tree and runs
what it lists: ``tools/sandbox_managers.py`` names those files (kinds ``manager`` and ``manager
program``), protected here like the rest; a missing config name is moved aside after a command that
makes it, as a hook at a root hooks folder is.

The answer is cached by the ``stat`` of every config file involved, so a command pays a few
``stat`` calls once warm.  The file tools refuse to write these paths too, approved or not, as
they refuse ``.git`` (``tools.workspace.refuse_protected``).
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.tools.sandbox_after import remember
from agent_tui.tools.sandbox_gitpaths import HOOK_NAMES, HOOK_SET, GitPaths, git_paths
from agent_tui.tools.sandbox_hardlinks import other_names
from agent_tui.tools.sandbox_managers import PROGRAM, manager_paths
from agent_tui.tools.sandbox_nested import gitdir_named, nested_repos
from agent_tui.tools.sandbox_placed import Placed, placed_repos, remember_before


def _inside(path: Path, root: Path) -> bool:
    return path.is_relative_to(root) and (path == root or path.relative_to(root).parts[0] != ".git")


#: Links followed on one path before it counts as a loop (the kernel's own limit).
MAX_HOPS = 40


@dataclass
class _Found:
    """What one look at the workspace found (see ``run_later_paths``)."""

    wanted: dict[Path, str] = field(default_factory=dict)
    """Real paths git may run or read -> what each is (see ``run_later_paths``)."""
    links: dict[str, str] = field(default_factory=dict)
    """Symlinks met on the way, inside the workspace: relative path -> link text."""
    link_folders: set[Path] = field(default_factory=set)
    """The real folders holding those links (pinned, so the repair never goes through a swapped one)."""
    placed: Placed = field(default_factory=Placed)
    """The repositories found by walking the workspace (``tools/sandbox_placed.py``)."""
    files: set[Path] = field(default_factory=set)
    """Hooks and config files git runs or reads, wherever they are (their hard links are protected)."""


def _walk(path: Path, root: Path, found: _Found) -> Path:
    """``path`` resolved one link at a time (as the kernel does), recording each symlink met
    inside ``root`` and the folder holding it; OSError on a loop."""
    here = Path("/")
    todo = list(path.parts[1:]) if path.is_absolute() else list(path.parts)
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            here = here.parent
            continue
        step = here / part
        if not step.is_symlink():
            here = step
            continue
        hops += 1
        if hops > MAX_HOPS:
            raise OSError(f"too many levels of symbolic links at {step}")
        target = os.readlink(step)
        if step.is_relative_to(root):
            found.links[step.relative_to(root).as_posix()] = target
            if here != root:
                found.link_folders.add(here)
        link = Path(target)
        if link.is_absolute():
            here = Path("/")
            todo = list(link.parts[1:]) + todo
        else:
            todo = list(link.parts) + todo
    return here


def _walked(path: Path, root: Path, found: _Found) -> Path | None:
    """:func:`_walk` from ``root`` for a relative path; None on a loop (git cannot read it either;
    the links met are recorded and put back) or behind a folder that cannot be searched (a command's
    ``chmod 000``: that folder is kept read-only, so it cannot be opened again to plant behind it)."""
    full = path if path.is_absolute() else root / path
    if "\0" in str(full):  # no such path can exist (a planted `.git` file's text)
        return None
    try:
        return _walk(full, root, found)
    except PermissionError:
        if (shut := _unsearchable(full, root)) is not None:
            found.wanted.setdefault(shut, "shut")
        return None
    except (OSError, RuntimeError, ValueError):
        return None


def _add_paths(paths: GitPaths, root: Path, found: _Found, done: set[Path]) -> None:
    """Record what one repository's config makes git run or read inside ``root`` (``done``: paths
    already looked at for another repository, such as the user's global config, skipped)."""
    folders: list[Path] = []
    for hooks in paths.hooks:
        if (real := _walked(hooks, root, found)) is None:
            continue
        installed, linked = _present_hooks(real)
        if installed and paths.top is not None:  # a hook manager: its config in each work tree using the folder
            for named, kind in manager_paths(real, installed, paths.top).items():
                if (target := _walked(named, root, found)) is not None and _inside(target, root) and target != root:
                    found.wanted.setdefault(target, kind)
        found.files.update(real / name for name in installed)  # (a symlinked one: the file it leads to)
        if real.name == "_":  # husky: the wrappers in `_` run the scripts of the same names one level up
            found.files.update(real.parent / name for name in _present_hooks(real.parent)[0])
        if hooks in done:
            continue
        done.add(hooks)
        folders.append(real)
        if real.name == "_":
            folders.append(real.parent)
        for name in linked:  # hooks that are links into the work tree
            if (target := _walked(real / name, root, found)) is not None and _inside(target, root):
                found.wanted.setdefault(target, "program")
    for folder in folders:
        if folder == root:
            found.wanted.update({root / name: "hook" for name in HOOK_NAMES})
        elif _inside(folder, root):
            found.wanted[folder] = "hooks"
    for named, kind in [*((p, "config") for p in paths.includes), *((p, "program") for p in paths.programs)]:
        if named in done:
            continue
        done.add(named)
        real = _walked(named, root, found)
        if real is not None and _inside(real, root) and real != root:
            found.wanted.setdefault(real, kind)


def _present_hooks(folder: Path) -> tuple[list[str], list[str]]:
    """The hook names in ``folder``, and those of them that are symlinks (one directory read, not a
    look per name)."""
    try:
        with os.scandir(folder) as entries:
            hooks = [(e.name, e.is_symlink()) for e in entries if e.name in HOOK_SET]
    except OSError:
        return [], []
    return [name for name, _ in hooks], [name for name, link in hooks if link]


def _add_repo(dotgit: Path, root: Path, found: _Found) -> None:
    """Record a nested repository's ``.git`` and, for a ``.git`` file, the git folder it names; for
    a submodule not checked out (no ``.git``), its folder, so that no ``.git`` can be made there."""
    real = _walked(dotgit, root, found)
    if real is None or not _inside(real, root):
        return
    try:
        present = real.exists() or real.is_symlink()
    except OSError:
        present = True
    if not present:
        if real.parent != root:
            found.wanted[real.parent] = "submodule"
        return
    found.wanted[real] = "repo"
    named = gitdir_named(real)
    if named is not None and (gitdir := _walked(named, root, found)) is not None and _inside(gitdir, root) \
            and gitdir != root:
        found.wanted[gitdir] = "repo"


def _look(workspace: Path) -> _Found:
    root = workspace.resolve()
    found = _Found()
    nested = nested_repos(root)
    for dotgit in nested.dotgits:
        _add_repo(dotgit, root, found)
    for gitdir in nested.gitdirs:  # kept in the work tree (`gitdir: ../store/sub`, its `commondir`)
        if (real := _walked(gitdir, root, found)) is not None and _inside(real, root) and real != root:
            found.wanted[real] = "repo"
    tops = [root, *nested.tops]
    found.placed = placed_repos(root)  # registered nowhere (a `git clone` into a subfolder): protected alike
    for repo in found.placed.repos:
        if repo in nested.dotgits or repo in nested.gitdirs or repo == root:  # (the root cannot be read-only)
            continue
        if repo.name == ".git":
            _add_repo(repo, root, found)
            tops.append(repo.parent)
        else:  # a bare repository
            found.wanted.setdefault(repo, "repo")
    done: set[Path] = set()
    for top in dict.fromkeys(tops):
        paths = git_paths(top)
        found.files.update(paths.watched)
        _add_paths(paths, root, found, done)
    for path, kind in other_names(root, [*found.files, *found.wanted]).items():  # `ln scripts/x .git/hooks/`
        found.wanted.setdefault(path, kind)
    return found


def run_later_paths(workspace: Path) -> dict[Path, str]:
    """The real paths inside ``workspace`` git may run or read (existing or not; resolved), each
    with what it is: ``hooks`` (a folder), ``hook`` (one hook file, when the hooks folder is the
    workspace root), ``config`` (a file), ``program`` (one that config names by a path), ``repo``
    (a submodule's, worktree's or placed repository's ``.git``, a bare repository, or a git folder
    such a ``.git`` file leads to), ``hard link`` (another name of a hook, config or program:
    ``tools/sandbox_hardlinks.py``),
    ``submodule`` (the folder of a submodule not checked out), ``shut`` (a folder on the way
    that a command made unsearchable), ``manager`` (a file or folder an installed hook manager
    reads) or ``manager program`` (a program its config names by a path)."""
    return _look(workspace).wanted


def _unsearchable(path: Path, root: Path) -> Path | None:
    """The folder below ``root`` on the way to ``path`` that cannot be searched (mounted read-only,
    a command cannot make it searchable again and plant behind it), if any."""
    for folder in [*reversed(path.parents), path]:
        if folder == root or not folder.is_relative_to(root):
            continue
        try:
            os.lstat(folder)
        except PermissionError:
            return folder.parent if folder.parent != root else None
        except OSError:
            return None
    return None


def _first_missing(path: Path, root: Path) -> tuple[Path, bool]:
    """The first missing part of ``path`` below ``root`` and True; or, when an existing part of it
    is not a folder (git cannot read it today, and a command could swap it for one), that part and
    False.  (Called only for a path whose folders can be searched.)"""
    while not path.parent.exists() and path.parent != root:
        path = path.parent
    return (path, True) if path.parent.is_dir() else (path.parent, False)


@functools.lru_cache(maxsize=1)
def _empty_file() -> str:
    """An empty regular file to mount as a placeholder (``/dev/null`` cannot be opened there)."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="agent-tui-empty-")
    path = Path(folder) / "empty"
    path.touch(mode=0o444)
    atexit.register(shutil.rmtree, folder, True)
    return str(path)


def _real_dir(path: Path) -> bool:
    try:
        return path.is_dir() and not path.is_symlink()
    except OSError:
        return False


def _under(path: Path, folders: set[Path]) -> bool:
    """``path`` is one of ``folders`` or lies below one (a walk up its parents, not a test per folder:
    a workspace may nest hundreds of repositories)."""
    return path in folders or any(parent in folders for parent in path.parents)


def hook_flags(workspace: Path, covered: list[Path]) -> list[str]:
    """bwrap flags, right after the workspace's own bind (before any read-only mount inside it):
    folders pinned in place (writable), each protected path read-only, placeholders for missing
    ones.  ``covered``: folders already read-only (the git folder behind a ``gitdir:`` file),
    left to their own mounts."""
    root = workspace.resolve()
    found = _look(root)
    repos = {p for p, kind in found.wanted.items() if kind == "repo" and _real_dir(p)}
    mounted = {*covered, *repos}  # read-only as a whole: nothing below needs a mount of its own
    wanted = {p: kind for p, kind in found.wanted.items() if p in repos or not _under(p, mounted)}
    protected: dict[Path, None] = {}
    missing: dict[Path, bool] = {}  # first missing part -> a file goes there (else a folder)
    absent: list[Path] = []  # hook names at the root: moved aside after the command if made
    for path, kind in wanted.items():
        try:
            exists, dangling = path.exists(), path.is_symlink()
        except OSError:  # a folder on the way cannot be searched (`chmod 000`): nor changed back, then
            if (shut := _unsearchable(path, root)) is not None:
                protected[shut] = None
            continue
        if exists:
            protected[path] = None
        elif dangling:
            continue  # a dangling link: put back after the command if replaced
        elif kind in ("hook", "manager"):  # made by the command: moved aside after it
            absent.append(path)
        else:
            first, is_missing = _first_missing(path, root)
            if not is_missing:
                protected[first] = None
            else:
                missing[first] = first == path and kind in ("config", "program", PROGRAM)
    pins: dict[Path, None] = {}
    for path in [*protected, *missing, *found.link_folders]:
        for parent in [*reversed(path.parents), path] if path in found.link_folders else reversed(path.parents):
            if parent in pins or parent in protected or not parent.is_relative_to(root) or parent == root or \
                    _under(parent, mounted):
                continue
            with contextlib.suppress(OSError):
                if parent.is_dir() and not parent.is_symlink():
                    pins[parent] = None
    out: list[str] = []
    for path in pins:
        out += ["--bind", str(path), str(path)]
    for path in protected:
        out += ["--ro-bind", str(path), str(path)]
    for path, is_file in missing.items():
        out += ["--ro-bind", _empty_file(), str(path)] if is_file else ["--tmpfs", str(path), "--remount-ro", str(path)]
    remember(root, found.links, absent, set(missing))
    remember_before(root, found.placed)
    return out
