"""The user's git config as sandboxed commands see it: who they are, nothing that logs in or runs.

``~/.gitconfig`` (and ``~/.config/git/config``, ``$GIT_CONFIG_GLOBAL``, ``/etc/gitconfig``) holds the
identity ``git commit`` needs, but also tokens: ``url."https://TOKEN@github.com/".insteadOf``,
``http.extraHeader = Authorization: …``, ``credential.helper = store --file …``, ``[github] token``,
``sendemail.smtpPass``; and programs: ``core.sshCommand``, ``core.fsmonitor``, ``gpg.program``,
``filter.*``, ``!shell`` aliases.  A repository's test that prints the file sends all of it to the
model provider; hiding the file wholesale breaks ``git commit`` (no identity).  So each config file
git would read is replaced, inside the sandbox only, by a copy holding only the keys of an
allow-list (:data:`KEEP_KEYS`, colours, advice, plain aliases), read with git itself
(``git config --file F --includes --list --null --show-origin``, evaluated for the workspace, so an
``includeIf "gitdir:~/work/"`` identity applies) and flattened: the copy has no ``include``, and
every file included from one (matched or not) is hidden (``/dev/null``).  A file git cannot parse
is hidden whole.  Without git on the host nothing in the sandbox can use git config, so the files
are hidden whole (no parser of our own to get wrong).  Values that still look like a secret or a
URL with a user name are dropped even under a kept key.

The copies live in a private folder (``0700``) made once per process and removed at exit; each is
named by its content, so a running command never sees it change.  Reading is cached by the files'
``stat`` (size, mtime, inode), costing a few ``stat`` calls per command once warm.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools.programs import find_program

#: ``section.key`` names kept (lower case, no subsection): identity and behaviour, nothing that runs
#: a program, names a credential or rewrites where git connects.
KEEP_KEYS: frozenset[str] = frozenset({
    "user.name", "user.email", "user.useconfigonly", "author.name", "author.email", "committer.name",
    "committer.email", "init.defaultbranch", "safe.directory",
    "core.autocrlf", "core.eol", "core.safecrlf", "core.filemode", "core.ignorecase", "core.quotepath",
    "core.whitespace", "core.abbrev", "core.precomposeunicode", "core.longpaths", "core.symlinks",
    "core.excludesfile", "core.attributesfile", "core.compression", "core.bigfilethreshold", "core.checkstat",
    "core.trustctime", "core.untrackedcache", "core.commentchar", "core.commentstring",
    "core.logallrefupdates", "core.splitindex", "core.preloadindex", "core.multipackindex",
    "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "push.followtags", "fetch.prune",
    "fetch.prunetags", "fetch.fsckobjects", "transfer.fsckobjects", "receive.fsckobjects",
    "rebase.autosquash", "rebase.autostash", "rebase.updaterefs", "rebase.missingcommitscheck",
    "rerere.enabled", "rerere.autoupdate", "merge.conflictstyle", "merge.ff", "merge.log",
    "diff.algorithm", "diff.colormoved", "diff.colormovedws", "diff.renames", "diff.renamelimit",
    "diff.mnemonicprefix", "diff.noprefix", "diff.context", "diff.indentheuristic", "diff.submodule",
    "status.showuntrackedfiles", "status.short", "status.branch", "status.submodulesummary",
    "status.relativepaths", "log.date", "log.decorate", "log.abbrevcommit", "log.follow", "format.pretty",
    "commit.verbose", "commit.cleanup", "commit.status", "tag.sort", "branch.sort", "branch.autosetupmerge",
    "branch.autosetuprebase", "help.autocorrect", "column.ui", "grep.linenumber", "grep.patterntype",
    "grep.extendedregexp", "submodule.recurse", "gc.auto", "feature.manyfiles", "index.version",
    "color.ui", "protocol.version", "checkout.defaultremote", "worktree.guessremote",
})
#: Sections kept whole when their values look harmless: colours (``color.diff.meta = blue bold``)
#: and advice switches.
KEEP_SECTIONS: frozenset[str] = frozenset({"color", "advice"})
#: Files at most followed through ``include``/``includeIf`` (a loop or a huge tree stops here).
MAX_FILES = 32
#: Seconds one ``git config`` read may take.
GIT_TIMEOUT = 10.0

_COLOUR = re.compile(r"^[A-Za-z0-9 #_-]{0,80}$")
_BOOLISH = re.compile(r"^(true|false|yes|no|on|off|1|0|)$", re.I)
_USERINFO_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s]*@")
#: Environment variables that redirect git's own reading (removed when we read).
_READ_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
                  "GIT_COMMON_DIR")


@dataclass(frozen=True)
class GitConfigView:
    """What the sandbox mounts so commands see a harmless git config."""

    binds: tuple[tuple[Path, Path], ...] = ()
    """(sanitized copy, the config file it stands in for)."""
    hidden: tuple[Path, ...] = ()
    """Config files shown as empty: included files, unparsable files, every file when git is missing."""
    dropped: tuple[str, ...] = ()
    """Keys left out (names only, never values), for tests and the curious."""
    sources: tuple[Path, ...] = ()
    """Every file read or looked for (a change to any of them rebuilds the view)."""

    def flags(self, hidden: list[Path], workspace: Path) -> list[str]:
        """bwrap flags: each copy read-only over its original, ``/dev/null`` over hidden files.

        ``hidden`` is what the sandbox hides already: a file the user hid is left hidden, a copy
        still goes into a hidden folder (``hide = ["~"]`` keeps ``git commit`` working), and nothing
        is mounted inside the workspace (the model sees it anyway)."""
        out: list[str] = []
        for copy, target in self.binds:
            if target not in hidden and not target.is_relative_to(workspace):
                out += ["--ro-bind", str(copy), str(target)]
        for path in self.hidden:
            if not path.is_relative_to(workspace) and not any(path.is_relative_to(h) for h in hidden):
                out += ["--ro-bind", "/dev/null", str(path)]
        return out


def config_files(env: Mapping[str, str], home: Path) -> list[Path]:
    """The system and global config files git would read for this environment (existing ones, real
    paths), in git's order: system, then XDG, then ``~/.gitconfig`` (or ``$GIT_CONFIG_GLOBAL``)."""
    found: list[Path] = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        found.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if env.get("GIT_CONFIG_GLOBAL"):
        found.append(Path(env["GIT_CONFIG_GLOBAL"]).expanduser())
    else:
        xdg = env.get("XDG_CONFIG_HOME")
        found.append((Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config") / "git" / "config")
        found.append(home / ".gitconfig")
    out: list[Path] = []
    for p in found:
        try:
            if p.is_file() and p.resolve() not in out and p.resolve() != Path(os.devnull):
                out.append(p.resolve())
        except OSError:
            continue
    return out


def keep(key: str, value: str) -> bool:
    """Whether ``key = value`` (as ``git config --list`` names it) may reach a sandboxed command."""
    section, _, rest = key.partition(".")
    section = section.lower()
    if not rest:
        return False
    if _USERINFO_URL.search(value) or "\n" in value:
        return False
    sub, _, name = rest.rpartition(".")
    if section in KEEP_SECTIONS:
        return bool(_COLOUR.match(value) if section == "color" else (not sub and _BOOLISH.match(value)))
    if section == "alias":
        return not sub and not value.lstrip().startswith("!") and not _looks_secret(value)
    return not sub and f"{section}.{name.lower()}" in KEEP_KEYS and not _looks_secret(value)


def _looks_secret(value: str) -> bool:
    from agent_tui.core.secrets import find_secrets

    return bool(find_secrets(value))


def _quote(value: str) -> str:
    """``value`` as a git config string (double-quoted, escaped)."""
    esc = value.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\b", "\\b")
    return f'"{esc}"'


def render(entries: list[tuple[str, str]]) -> str:
    """A config file holding ``entries`` (``section[.sub].name``, value) in order."""
    lines = ["# agent-tui: the keys of your git config that sandboxed commands may see (see sandbox_git.py)"]
    current: tuple[str, str | None] | None = None
    for key, value in entries:
        section, _, rest = key.partition(".")
        sub, _, name = rest.rpartition(".")
        head = (section, sub or None)
        if head != current:
            current = head
            lines.append(f"[{section}]" if not sub else f"[{section} {_quote(sub)}]")
        lines.append(f"\t{name} = {_quote(value)}")
    return "\n".join(lines) + "\n"


def _read(git: str, path: Path, cwd: Path, env: Mapping[str, str]) -> list[tuple[Path, str, str]] | None:
    """(origin file, key, value) of ``path`` with its includes, as git reads it from ``cwd``;
    None when git cannot read it."""
    clean = {k: v for k, v in env.items()
             if k not in _READ_ENV_DROP and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}
    try:
        done = subprocess.run([git, "config", "--file", str(path), "--includes", "--list", "--null",
                               "--show-origin"], cwd=cwd if cwd.is_dir() else "/", env=clean,
                              capture_output=True, timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    fields = done.stdout.decode("utf-8", errors="replace").split("\0")
    out: list[tuple[Path, str, str]] = []
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.partition("\n")
        where = origin[5:] if origin.startswith("file:") else origin
        out.append((Path(where), key, value))
    return out


def _include_target(origin: Path, value: str, home: Path) -> Path | None:
    """The file an ``include.path`` value in ``origin`` names."""
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        p = Path(str(home) + value[1:])
    else:
        p = Path(value)
        if not p.is_absolute():
            p = origin.parent / p
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return None


def _is_include(key: str) -> bool:
    low = key.lower()
    return low == "include.path" or (low.startswith("includeif.") and low.endswith(".path"))


def build_view(workspace: Path, env: Mapping[str, str] | None = None, home: Path | None = None,
               git: str | None = None, out_dir: Path | None = None) -> GitConfigView:
    """The sanitized copies (written to ``out_dir``) and hidden files for the git config this
    environment would read in ``workspace``."""
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    tops = config_files(env, home)
    git = git if git is not None else find_program("git", env.get("PATH"))
    if not tops:
        return GitConfigView()
    if not git:
        return GitConfigView(hidden=tuple(tops), sources=tuple(tops))
    out_dir = out_dir or _private_dir()
    binds: list[tuple[Path, Path]] = []
    hidden: list[Path] = []
    dropped: list[str] = []
    seen: set[Path] = set(tops)
    queue: list[Path] = []
    for top in tops:
        entries = _read(git, top, workspace, env)
        if entries is None:
            hidden.append(top)
            continue
        kept: list[tuple[str, str]] = []
        for origin, key, value in entries:
            if _is_include(key):
                target = _include_target(origin, value, home)
                if target is not None and target not in seen:
                    seen.add(target)
                    queue.append(target)
            elif keep(key, value):
                kept.append((key, value))
            else:
                dropped.append(key)
        binds.append((_write(out_dir, render(kept)), top))
    while queue and len(seen) <= MAX_FILES:  # every included file, matched by a condition or not
        path = queue.pop(0)
        if path.is_file():
            hidden.append(path)
            for origin, key, value in _read(git, path, workspace, env) or []:
                target = _include_target(origin, value, home) if _is_include(key) else None
                if target is not None and target not in seen:
                    seen.add(target)
                    queue.append(target)
    return GitConfigView(tuple(binds), tuple(dict.fromkeys(hidden)), tuple(dict.fromkeys(dropped)),
                         tuple(seen))


def _write(folder: Path, text: str) -> Path:
    """``text`` in ``folder`` under a name made of its digest (written once, never changed)."""
    path = folder / f"gitconfig-{hashlib.sha256(text.encode()).hexdigest()[:16]}"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    return path


_lock = threading.Lock()
_dir: Path | None = None
_cache: dict[tuple[object, ...], GitConfigView] = {}


def _private_dir() -> Path:
    """The folder of this process's copies (``0700``, removed at exit)."""
    global _dir
    with _lock:
        if _dir is None or not _dir.is_dir():
            _dir = Path(tempfile.mkdtemp(prefix="agent-tui-gitconfig-"))
            atexit.register(shutil.rmtree, _dir, True)
        return _dir


def stat_signature(paths: Iterable[Path]) -> tuple[object, ...]:
    """What tells whether any of ``paths`` changed: each one's size, mtime and inode (None when
    it is missing), cheap enough to check before every command."""
    out: list[object] = []
    for p in paths:
        try:
            st = p.stat()
            out.append((str(p), st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            out.append((str(p), None))
    return tuple(out)


def git_view(workspace: Path, env: Mapping[str, str] | None = None) -> GitConfigView:
    """:func:`build_view` for this process's environment, cached until one of the files changes."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    tops = config_files(env, home)
    base = (str(workspace), str(home), tuple(str(t) for t in tops), find_program("git", env.get("PATH")))
    with _lock:
        for key, view in list(_cache.items()):
            if key[0] == base and key[1] == stat_signature(view.sources):
                return view
    view = build_view(workspace, env, home)
    with _lock:
        if len(_cache) > 16:
            _cache.clear()
        _cache[(base, stat_signature(view.sources))] = view
    return view
