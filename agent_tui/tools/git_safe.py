"""Run git on a workspace without running the workspace's own programs.

A cloned repository controls its ``.git/config``: ``core.fsmonitor`` is a command git
runs on ``status``, ``filter.<x>.clean`` runs on ``diff``, ``diff.<x>.textconv`` and
``diff.external`` run on ``diff``, hooks run on commits.  A read tool (``list_dir``,
``search``, ``git_status``) must never become command execution, so every git call the
tools make goes through here: those settings are overridden on the command line
(``-c`` wins over every config file and is inherited by submodule git processes),
external diff and textconv are switched off, the system config is skipped and the
environment cannot redirect git elsewhere (``GIT_DIR``…).

Git also never reaches a remote: a repository that says it is a partial clone (a "promisor"
remote) makes ``diff``, ``log`` and ``status`` fetch a missing object, and the fetch runs the
remote's ``uploadpack`` or ``core.sshCommand`` through a shell — so lazy fetching is off and every
transport is refused (``GIT_ALLOW_PROTOCOL=none``, which a repository's ``protocol.<name>.allow`` cannot
override as it does ``protocol.allow``; both are inherited by any git that git starts).  Submodules are
not looked into (``diff.ignoreSubmodules=dirty``: a submodule's moved commit shows, its work tree is not
examined): a submodule's own config (in ``.git/modules``) is not overridden here.  And git
gets the environment without the user's secrets (``tools.cmd_env``), as a command does.

Git is also confined to the workspace's own repository: a workspace that is a subfolder of a larger
repository would otherwise show (and run the config of) a repository the user never opened, and a
``.git`` *file* can name any git folder on the disk (``gitdir: /etc/.git``, ``gitdir: ../../.git``).
A git folder outside the workspace is used only when it names the workspace back, which a folder the
workspace's files cannot write does only for the user's own linked worktree or submodule.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

from agent_tui.tools.cmd_env import command_env
from agent_tui.tools.programs import absolute_path

#: Config overrides for every git call (read tools never run repository programs).
SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "log.showSignature=false",
    "protocol.allow=never",
    "diff.ignoreSubmodules=dirty",
    "diff.submodule=short",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
)
#: Environment variables removed before running git (they can point git elsewhere).
_DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
)
#: Extra environment for every git call.
SAFE_ENV: dict[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_ALLOW_PROTOCOL": "none",
    "LC_ALL": "C",
}
#: Flags added to ``git diff`` (and ``log -p``): never run external diff or textconv programs.
DIFF_FLAGS: tuple[str, ...] = ("--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty")
"""(``--ignore-submodules`` on the command line: ``submodule.<name>.ignore = none`` in ``.gitmodules`` beats
the ``diff.ignoreSubmodules`` override, and a dirty submodule's work tree runs its own filters.)"""
GIT_TIMEOUT = 60.0


class OutsideRepoError(Exception):
    """The workspace is not its own git repository (none, or an enclosing one outside it)."""


def safe_env(base: dict[str, str] | None = None, top: Path | None = None,
             drivers: list[str] | None = None) -> dict[str, str]:
    """The environment for a git subprocess: ``base`` (default os.environ) without the user's secrets,
    without what points git elsewhere and with only absolute ``PATH`` entries (``tools.programs``), plus
    the overrides of :func:`config_env` (with ``top``, its filter drivers')."""
    env = command_env(base=dict(os.environ if base is None else base))
    for name in [*_DROPPED_ENV, *(k for k in env if k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")))]:
        env.pop(name, None)
    env["PATH"] = absolute_path(env.get("PATH", os.defpath))
    env.update(SAFE_ENV)
    env.update(config_env(top, drivers))
    return env


def filter_drivers(top: Path) -> list[str]:
    """Names of the ``filter.<name>.*`` drivers the repository's config defines, exactly as git has them
    (NUL-separated: a subsection name may hold any space, ``=`` or quote)."""
    try:
        done = subprocess.run(
            ["git", "config", "--null", "--name-only", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"],
            cwd=top, capture_output=True, timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    names: set[str] = set()
    for raw in done.stdout.split(b"\0"):
        key = os.fsdecode(raw.strip(b"\n"))
        name = key[len("filter.") :].rsplit(".", 1)[0]
        if name:
            names.add(name)
    return sorted(names)


def config_env(top: Path | None = None, drivers: list[str] | None = None) -> dict[str, str]:
    """The overrides as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``: the same scope as
    ``-c`` (over every config file, inherited by the git processes git starts), but a key may hold any
    character (``-c`` splits at the first ``=``, so a driver named ``a=b`` would stay armed)."""
    pairs = [tuple(pair.split("=", 1)) for pair in SAFE_CONFIG]
    for name in _drivers(top, drivers):
        pairs += [(f"filter.{name}.{part}", "") for part in ("clean", "smudge", "process")]
        pairs.append((f"filter.{name}.required", "false"))
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for i, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


def config_args(top: Path | None = None, drivers: list[str] | None = None) -> list[str]:
    """``-c key=value`` for the fixed overrides and, with ``top``, its filter drivers whose names ``-c`` can
    carry (all also in :func:`config_env`, which git before 2.31 ignores: there :func:`workspace_repo`
    refuses a repository with a driver ``-c`` cannot name)."""
    pairs = list(SAFE_CONFIG)
    for name in _drivers(top, drivers):
        if "=" not in name:
            pairs += [f"filter.{name}.{part}=" for part in ("clean", "smudge", "process")]
            pairs.append(f"filter.{name}.required=false")
    out: list[str] = []
    for pair in pairs:
        out += ["-c", pair]
    return out


def git_argv(*args: str, top: Path | None = None, drivers: list[str] | None = None) -> list[str]:
    """``git -c … <args>`` with the overrides in front (run it with :func:`safe_env`, same ``top``)."""
    return ["git", *config_args(top, drivers), *args]


def _drivers(top: Path | None, drivers: list[str] | None) -> list[str]:
    """``drivers`` when the caller listed them already (one git call for the argv and the environment),
    else ``top``'s ([] without one)."""
    if drivers is not None:
        return drivers
    return filter_drivers(top) if top is not None else []


@functools.lru_cache(maxsize=1)
def _git_version() -> tuple[int, ...]:
    """The installed git's version ((0,) when it cannot tell)."""
    try:
        done = subprocess.run(["git", "--version"], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              env=safe_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return (0,)
    words = done.stdout.split()
    numbers = words[2].split(".")[:3] if len(words) > 2 else []
    return tuple(int(n) for n in numbers if n.isdigit()) or (0,)


def locate(path: Path) -> tuple[Path, Path, Path] | None:
    """The repository containing ``path``: its work-tree root, its git folder and its common folder (a
    linked worktree's main ``.git``; else the git folder itself), in one git call; None outside any."""
    try:
        done = subprocess.run(
            ["git", *config_args(), "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"],
            cwd=path, capture_output=True, text=True, timeout=GIT_TIMEOUT, env=safe_env(),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 3 or not all(lines):
        return None
    common = Path(lines[2])  # relative to ``path`` when git prints it relative
    return Path(lines[0]).resolve(), Path(lines[1]).resolve(), (common if common.is_absolute() else path / common).resolve()


def workspace_repo(workspace: Path) -> Path:
    """The workspace's own repository root, or OutsideRepoError saying why there is none.

    Only a repository whose top level is the workspace (or inside it) is used, and only with a git
    folder inside the workspace or one that names the workspace back (``_claims``).
    """
    root = workspace.resolve()
    found = locate(root)
    if found is None:
        raise OutsideRepoError(
            f"not a git repository: the workspace {root} is not inside a git work tree"
        )
    top, git_dir, common = found
    if top != root and not top.is_relative_to(root):
        raise OutsideRepoError(
            f"not a git repository (the enclosing repo at {top} is outside the workspace "
            f"{root}); git tools only use a repository whose top level is the workspace"
        )
    own = git_dir.is_relative_to(root) or _claims(git_dir, top)
    # the common folder (config, objects, refs) is the git folder's own, or a linked worktree's main one
    shared = (common.is_relative_to(root) or common == git_dir
              or (git_dir.parent == common / "worktrees" and _claims(git_dir, top)))
    if not (own and shared):
        where = git_dir if not own else common
        raise OutsideRepoError(
            f"not a git repository this agent uses: {top}/.git leads to the git folder {where}, "
            f"outside the workspace, which does not name this folder as its worktree; git tools never "
            f"read another repository"
        )
    if _git_version() < (2, 31) and any("=" in name for name in filter_drivers(top)):
        raise OutsideRepoError(
            f"not a git repository this agent uses: {top} names a filter driver with '=' in its name, which "
            f"this git ({'.'.join(map(str, _git_version()))}, before 2.31) cannot be kept from running"
        )
    foreign = _foreign_storage((git_dir, common), root)
    if foreign is not None:
        raise OutsideRepoError(
            f"not a git repository this agent uses: {foreign} takes git's objects or refs from outside the "
            f"workspace {root}; git tools never read another repository (a clone made with --shared or "
            f"--reference: `git repack -a -d` and remove objects/info/alternates)"
        )
    return top


#: Where a git folder keeps what it reads objects and commit names from.
_STORAGE = ("objects", "objects/pack", "objects/info", "refs", "packed-refs", "logs", "HEAD", "index",
            "shallow", "info", "info/grafts")
#: Entries looked at under ``refs``, ``logs`` and ``objects/pack``; a folder with more is refused, not half
#: looked at (a repository with that many keeps them packed).
_MAX_ENTRIES = 20_000
#: Alternates git follows from one object folder to the next.
_MAX_ALTERNATE_DEPTH = 5


def _foreign_storage(folders: tuple[Path, ...], root: Path) -> Path | None:
    """The first place in the git ``folders`` that leads outside ``root``: an ``objects/info/alternates``
    entry (another repository's objects, read as this one's; followed as git does, from one alternate to
    the next), or a symbolic link under the folder's objects, refs, reflogs, index or ``HEAD`` (another
    repository's commit names, or its packs).  Together they show another repository's history and files
    as the workspace's own.  A loose object linked out is not looked for: reading it needs its name, which
    only such a link or an alternate gives.  A folder outside ``root`` was let in because it names the
    workspace back (the user's git wrote it, not the workspace), so only folders inside it are looked at.
    Whatever cannot be read the way git reads it (a quoted or indented alternate, a control character,
    too many entries to look at) is refused."""
    for folder in dict.fromkeys(f for f in folders if f.is_relative_to(root)):
        bad = _foreign_alternates(folder / "objects", root, _MAX_ALTERNATE_DEPTH)
        if bad is not None:
            return bad
        places = [folder / name for name in _STORAGE]
        places += [folder / "objects" / f"{n:02x}" for n in range(256)]
        for sub in ("refs", "logs", "objects/pack"):
            seen = 0
            for base, dirs, files in os.walk(folder / sub):
                seen += len(dirs) + len(files)
                if seen > _MAX_ENTRIES:
                    return folder / sub
                places += [Path(base) / name for name in (*dirs, *files)]
        for place in places:
            if place.is_symlink() and not _inside(place, root):
                return place
    return None


def _foreign_alternates(objects: Path, root: Path, depth: int) -> Path | None:
    """The alternates file under ``objects`` that leads outside ``root`` (or cannot be read as git reads it),
    following the alternates it names ``depth`` levels down."""
    alternates = objects / "info" / "alternates"
    try:
        raw = alternates.read_bytes()
    except OSError:
        return None
    if len(raw) > 65536 or depth <= 0:
        return alternates
    for line in raw.split(b"\n"):  # git splits on LF only; '#' is a comment only in the first column
        if not line or line.startswith(b"#"):
            continue
        text = line.decode("utf-8", "surrogateescape")
        if text[0] in "\" \t" or text[-1] in " \t" or any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
            return alternates  # quoted (git unquotes C escapes), indented or with controls: not read here
        other = objects / text
        if not _inside(other, root):
            return alternates
        deeper = _foreign_alternates(other.resolve(), root, depth - 1)
        if deeper is not None:
            return deeper
    return None


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path``, with its links followed, is in ``root``."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def _claims(git_dir: Path, top: Path) -> bool:
    """Whether a git folder outside the workspace names ``top`` as its worktree: a linked worktree's
    (``<git dir>/gitdir`` holds the path of ``top/.git``) or a submodule's (``core.worktree`` in its
    config).  Files the workspace cannot write, so a ``.git`` file pointing at another repository is
    not enough."""
    back = git_dir / "gitdir"
    try:
        if back.is_file():
            named = Path(back.read_text(encoding="utf-8").strip())
            if not named.is_absolute():
                named = git_dir / named
            return named.resolve() == (top / ".git").resolve()
        done = subprocess.run(
            ["git", "config", "--file", str(git_dir / "config"), "core.worktree"],
            capture_output=True, text=True, timeout=GIT_TIMEOUT, env=safe_env(), stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        return False
    worktree = done.stdout.strip()
    if done.returncode != 0 or not worktree:
        return False
    named = Path(worktree)
    return (named if named.is_absolute() else git_dir / named).resolve() == top


def own_repo(workspace: Path) -> Path | None:
    """The workspace's own repository root, or None (no repository, or one outside it)."""
    try:
        return workspace_repo(workspace)
    except OutsideRepoError:
        return None


def run_git(
    top: Path, *args: str, input_bytes: bytes | None = None, timeout: float = GIT_TIMEOUT
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git <args>`` safely in ``top`` (bytes in, bytes out, never raises on exit status)."""
    drivers = filter_drivers(top)
    return subprocess.run(
        git_argv(*args, drivers=drivers),
        cwd=top,
        input=input_bytes,
        capture_output=True,
        timeout=timeout,
        env=safe_env(drivers=drivers),
        stdin=None if input_bytes is not None else subprocess.DEVNULL,
    )


def tracked_by_own_repo(workspace: Path, path: Path) -> str | None:
    """``path``'s name in the workspace's own repository when git tracks it (None otherwise, or when
    git cannot tell)."""
    top = own_repo(workspace)
    target = path.resolve()
    if top is None or not target.is_relative_to(top):
        return None
    rel = target.relative_to(top).as_posix()
    try:
        done = run_git(top, "ls-files", "--error-unmatch", "--", rel)
    except (OSError, subprocess.SubprocessError):
        return None
    return rel if done.returncode == 0 else None
