"""Whether a git repository a sandboxed command made could make the user's git run a program.

``tools/sandbox_placed.py`` finds the repositories a command made; this module judges each one
(:func:`why_unsafe`).  The user's git runs what a repository's config and hooks say, and it reads
``.git`` files and ``commondir`` its own way, from wherever it is run: so a repository passes only
when every part is plain (no symbolic or hard link, no path whose meaning depends on where git
runs, nothing missing that a later command could add), its config holds only keys that never name a program, its hooks
are samples, git-lfs's or the user's own template's, and git itself takes that very folder for the
repository there now.  Anything the check cannot read counts against the repository.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import subprocess
from pathlib import Path

from agent_tui.tools.git_safe import config_args, safe_env
from agent_tui.tools.sandbox_managers import manager_paths
from agent_tui.tools.sandbox_nested import read_pointer, run_git

#: What git reads in a git folder: none may be a link in one a command made (git makes none there).
_GIT_PARTS = ("HEAD", "objects", "refs", "commondir", "config", "config.worktree", "hooks", "info", "packed-refs")
#: Those of them git opens as files.
_GIT_FILES = frozenset({"HEAD", "commondir", "config", "config.worktree", "packed-refs"})
#: Seconds git is given to say which git folder it takes (it reads only plain files by then).
GIT_CHECK_TIMEOUT = 10.0
#: A hook longer than this is not read to the end, and so not taken for git-lfs's.
MAX_HOOK_BYTES = 16_384
#: Config keys ``git clone``, ``git init`` and everyday settings write: none makes git run a program.
_SAFE_KEY = re.compile(
    r"^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|"
    r"autocrlf|eol|safecrlf|quotepath|sparsecheckout|sparsecheckoutcone|checkstat|trustctime|compression|"
    r"bigfilethreshold|abbrev|untrackedcache|splitindex|commitgraph|multipackindex|filesreflocklimit|worktree)"
    r"|extensions\.(objectformat|refstorage|partialclone|noop|preciousobjects|worktreeconfig)"
    r"|remote\..+\.(url|pushurl|fetch|push|tagopt|prune|prunetags|mirror|promisor|partialclonefilter"
    r"|skipdefaultupdate|skipfetchall)"
    r"|branch\..+\.(remote|pushremote|merge|rebase|description)"
    r"|submodule\.active|submodule\..+\.(url|active|branch|ignore|shallow|fetchrecursesubmodules)"
    r"|user\.(name|email|useconfigonly)|init\.defaultbranch|pull\.(rebase|ff)|fetch\.(prune|prunetags|parallel)"
    r"|gc\.(auto|autodetach)|push\.(default|autosetupremote|followtags)|color\.[^.]+(\.[^.]+)?"
    r"|merge\.(ff|conflictstyle|log)|rebase\.(autosquash|autostash|updaterefs)|status\.(short|branch)"
    r"|diff\.(renames|algorithm|noprefix|mnemonicprefix)|log\.(date|decorate)|advice\.[^.]+|protocol\.version"
    r"|core\.longpaths|user\.signingkey|(commit|tag)\.gpgsign|gpg\.format|maintenance\.(auto|strategy)"
    r"|submodule\.recurse|rerere\.(enabled|autoupdate)|feature\.(manyfiles|experimental)|index\.(version|threads)"
    r"|http\.(postbuffer|version|lowspeedlimit|lowspeedtime|maxrequests|sslverify)|core\.(excludesfile|attributesfile)"
    r"|receive\.(denycurrentbranch|denynonfastforwards|denydeletes|fsckobjects)"
    r"|lfs\.repositoryformatversion|lfs\..+\.access)$")
#: git-lfs's own filter settings (``git lfs install --local``), allowed with exactly these values.
_LFS_FILTER = {"filter.lfs.clean": "git-lfs clean -- %f", "filter.lfs.smudge": "git-lfs smudge -- %f",
               "filter.lfs.process": "git-lfs filter-process", "filter.lfs.required": "true"}
#: Credential helpers git ships (run as ``git credential-<name>``): the name alone names no planted program.
_HELPER_KEY = re.compile(r"^credential\.(.+\.)?helper$")
_BUILTIN_HELPERS = frozenset({"store", "cache", "", "manager", "manager-core", "osxkeychain", "libsecret", "wincred"})
#: A hook git-lfs writes: it checks git-lfs is there, then runs it.
_LFS_HOOK = re.compile(
    r'#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 \|\| \{ (echo|printf) >&2 "([^"$`\\]|\\n)*"'
    r'( "([^"$`\\]|\\n)*")?; exit 2; \}\ngit lfs (?P<name>pre-push|post-checkout|post-commit|post-merge) "\$@"\n?')


def is_gitdir(names: set[str]) -> bool:
    """git's rule for a git folder (``HEAD``, and ``objects`` and ``refs`` or a ``commondir``), by name
    only: wider than git's, which also looks at what they hold."""
    return "HEAD" in names and ("commondir" in names or ("objects" in names and "refs" in names))


def _config_problem(config: Path) -> str | None:
    """Why git would run a program from this config file (None: it would not)."""
    try:
        if not config.exists() and not config.is_symlink():
            return None
        if config.is_symlink() or not config.is_file():
            return f"{config.name} is not a plain file"
    except (OSError, ValueError) as exc:
        return f"{config.name} cannot be read ({exc})"
    raw = run_git(Path("/"), "config", "--file", str(config), "--null", "--list")
    if raw is None:
        return f"{config.name} is not a config git can read"
    for entry in raw.split("\0"):
        name, _, value = entry.partition("\n")
        if not name:
            continue
        low = name.lower()  # git lowercases section and key; a subsection keeps its case
        if _SAFE_KEY.match(low) or _LFS_FILTER.get(low) == value:
            continue
        if _HELPER_KEY.match(low) and value in _BUILTIN_HELPERS:  # git's own `git credential-store`…
            continue
        return f"its config sets {name}"
    return None


@functools.lru_cache(maxsize=1)
def _template_hooks() -> dict[str, bytes]:
    """The hooks of the user's own template folder (``init.templateDir``, ``GIT_TEMPLATE_DIR``), which
    every ``git init`` and ``git clone`` copies in: outside the workspace, so the user's, not a plant."""
    named = os.environ.get("GIT_TEMPLATE_DIR") or (run_git(Path("/"), "config", "--global", "--path", "--get",
                                                           "init.templatedir") or "").strip()
    hooks: dict[str, bytes] = {}
    if named:
        with contextlib.suppress(OSError), os.scandir(Path(named).expanduser() / "hooks") as entries:
            for entry in entries:
                if entry.is_file() and not entry.name.endswith(".sample"):
                    with contextlib.suppress(OSError):
                        hooks[entry.name] = Path(entry.path).read_bytes()[:MAX_HOOK_BYTES + 1]
    return hooks


def _hooks_problem(hooks: Path) -> str | None:
    try:
        if not hooks.is_dir():
            return None
        with os.scandir(hooks) as entries:
            names = sorted(e.name for e in entries)
    except OSError as exc:
        return f"its hooks folder cannot be read ({exc.strerror})"
    for name in names:
        if name.endswith(".sample"):
            continue
        try:
            fd = os.open(hooks / name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return f"it has a hook {name}"
        try:
            st = os.fstat(fd)
            raw = os.read(fd, MAX_HOOK_BYTES + 1) if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 else b"\0"
        finally:
            os.close(fd)
        if len(raw) <= MAX_HOOK_BYTES and _template_hooks().get(name) == raw:
            continue
        lfs = _LFS_HOOK.fullmatch(raw.decode("utf-8", "replace")) if len(raw) <= MAX_HOOK_BYTES else None
        if lfs is None or lfs.group("name") != name:
            return f"it has a hook {name}"
    return None


def _plain_folder(text: str, base: Path, root: Path) -> Path | None:
    """The folder ``text`` names from ``base``, when where it leads cannot depend on where git runs nor
    be read two ways: no blank at either end, no control character, no link on the way, inside the
    workspace but not its own ``.git``, and there; else None."""
    if not text or text != text.strip() or any(ord(c) < 32 or ord(c) == 127 for c in text):
        return None
    joined = text if os.path.isabs(text) else os.path.join(base, text)
    lexical = os.path.normpath(joined)
    if os.path.realpath(joined) != lexical:  # a link on the way (`/proc/self/cwd`, `a/..` through a link)
        return None
    path, own = Path(lexical), root / ".git"
    if not path.is_relative_to(root) or path == root or path == own or own in path.parents:
        return None
    return path if path.is_dir() else None


def _gitdir_problem(gitdir: Path, root: Path, common: bool = False) -> str | None:
    """Why git would run a program from this git folder a command made (None: it would not)."""
    for part in _GIT_PARTS:
        try:
            st = os.lstat(gitdir / part)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(st.st_mode):
            return f"its git folder holds a link ({part})"
        if not stat.S_ISDIR(st.st_mode) and st.st_nlink != 1:  # a twin elsewhere would stay writable
            return f"its {part} is hard-linked to another file"
        if part in _GIT_FILES and not stat.S_ISREG(st.st_mode):  # a FIFO would hang git, and the check
            return f"its {part} is not a plain file"
    if not common and ((pointer := gitdir / "commondir").exists() or pointer.is_symlink()):
        text = read_pointer(pointer, single_link=True)
        target = None if text is None else _plain_folder(text, gitdir, root)
        if target is None:
            return "its commondir names a folder that is not there, or by a path git could read another way"
        if not is_gitdir(set(os.listdir(target))):
            return "its commondir names a folder that is not a git folder"
        if (problem := _gitdir_problem(target, root, common=True)) is not None:
            return problem
    for problem in (_config_problem(gitdir / "config"), _config_problem(gitdir / "config.worktree"),
                    _hooks_problem(gitdir / "hooks")):
        if problem is not None:
            return problem
    return None


def _manager_problem(gitdir: Path, top: Path | None) -> str | None:
    """A hook that passed (the user's template copies pre-commit's, say) may be a hook manager's, which
    runs what a config in the work tree lists: the command could have written that config too."""
    hooks = gitdir / "hooks"
    try:
        installed = sorted(n for n in os.listdir(hooks) if not n.endswith(".sample"))
    except OSError:
        return None
    if not installed:
        return None
    if top is None:
        top = gitdir  # a bare folder: no work tree of its own to look in; any manager fails below
    for path, kind in manager_paths(hooks, installed, top).items():
        if kind == "manager" and (top == gitdir or path.exists() or path.is_symlink()):
            return f"its hooks run a hook manager whose config ({path.name}) is in its work tree"
    return None


def _rev_parse(folder: Path, as_gitdir: bool, what: str) -> Path | None:
    """What ``git rev-parse <what>`` (``--absolute-git-dir``, ``--show-toplevel``) answers run in
    ``folder`` (``as_gitdir``: with ``GIT_DIR`` set to it), not looking above it; None when git takes
    no repository (or work tree) there.  RuntimeError when git could not be asked or answered oddly."""
    env = safe_env()
    env["GIT_CEILING_DIRECTORIES"] = str(folder.parent)
    if as_gitdir:
        env["GIT_DIR"] = str(folder)
    try:
        done = subprocess.run(["git", *config_args(), "-c", "safe.directory=*", "rev-parse", what], cwd=folder,
                              capture_output=True, timeout=GIT_CHECK_TIMEOUT, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeError(f"git could not be asked ({exc})") from exc
    if done.returncode != 0:
        return None
    out = os.fsdecode(done.stdout)
    if not out.endswith("\n") or out.count("\n") != 1 or out == "\n":
        raise RuntimeError("git's answer could not be read")
    return Path(out[:-1])


def why_unsafe(repo: Path, root: Path) -> str | None:
    """Why a repository a command made could make the user's git run a program (None: it cannot).
    ``repo``: a ``.git`` entry, or a folder shaped as a git folder.  Its parts are read as git reads
    them and must be plain (no link, no path git could follow another way); then git itself must take
    that very folder for the repository there now, so nothing can make it one later."""
    try:
        gitdir = repo
        if repo.name == ".git" and repo.is_symlink():
            return "its .git is a link"
        if repo.name == ".git" and not (repo.is_dir() or repo.is_file()):
            return "its .git is neither a folder nor a plain file"
        if repo.name == ".git" and not repo.is_dir():
            text = read_pointer(repo, single_link=True)
            if text is None or not text.startswith("gitdir: "):
                return "its .git is a file git does not read"
            if (named := _plain_folder(text[len("gitdir: "):], repo.parent, root)) is None:
                return "its .git names a folder that is not there, or by a path git could read another way"
            gitdir = named
        if (problem := _gitdir_problem(gitdir, root)) is not None:
            return problem
        where, as_gitdir = (repo.parent, False) if repo.name == ".git" else (repo, True)
        taken = _rev_parse(where, as_gitdir, "--absolute-git-dir")
        if taken is None:
            return "git does not take it for a repository now, and could later"
        if os.path.realpath(taken) != os.path.realpath(gitdir):
            return f"git takes another git folder for it ({taken})"
        # the work tree as git finds it (`core.worktree` may move it), where a hook manager reads its config
        return _manager_problem(gitdir, _rev_parse(where, as_gitdir, "--show-toplevel"))
    except Exception as exc:  # whatever it is, it cannot be shown safe: disabled, never let through
        return f"it could not be checked ({type(exc).__name__}: {exc})"
