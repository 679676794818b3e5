"""Which paths a listing or search should not show: VCS/tool folders and .gitignored files.

Inside the workspace's own git repository git itself decides (``git check-ignore --stdin``), so nested
.gitignore files, negations and global excludes all behave as the user expects.  One
call checks a whole batch of paths (a directory level), so walking a tree costs one
subprocess per level, not per file.  Git runs through ``git_safe`` (the repository's
fsmonitor, hooks and filters never run).  Outside a repository the root .gitignore is
applied with fnmatch: good enough for the common patterns (``*.log``, ``build/``,
``/dist``, ``!keep.log``).
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from agent_tui.core.safe_files import UnsafeFileError, read_regular
from agent_tui.tools.git_safe import own_repo, run_git
from agent_tui.tools.workspace import AGENT_DIR, SKIP_DIRS


class GitIgnore:
    """Asks git which of a batch of workspace-relative paths are ignored."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def ignored(self, rel_paths: Iterable[str]) -> set[str]:
        paths = [p for p in rel_paths if p and p != "."]
        if not paths:
            return set()
        try:
            done = run_git(
                self.root,
                "check-ignore",
                "--stdin",
                "-z",
                input_bytes="\0".join(paths).encode("utf-8", "surrogateescape") + b"\0",
                timeout=30,
            )
        except (OSError, subprocess.SubprocessError):
            return set()
        if done.returncode not in (0, 1):  # 1 = nothing ignored; 128 = fatal
            return set()
        out = done.stdout.decode("utf-8", "surrogateescape")
        return {p for p in out.split("\0") if p}


MAX_GITIGNORE_BYTES = 1 << 20
"""A root .gitignore read at most (larger ones, or links and special files, are not applied)."""


class PatternIgnore:
    """The root .gitignore applied with fnmatch (no repository to ask)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rules: list[tuple[str, bool, bool, bool]] = []  # pattern, negate, dir_only, anchored
        try:  # a regular file of the workspace's own, of a sane size: not a link to /proc, not a sparse 50 GB file
            text = read_regular(root.resolve() / ".gitignore", limit=MAX_GITIGNORE_BYTES, exact=True)
        except (OSError, UnsafeFileError):
            return
        for raw in text.decode("utf-8", errors="replace").splitlines():
            self._add(raw)

    def _add(self, raw: str) -> None:
        line = raw.strip()
        if not line or line.startswith("#"):
            return
        negate = line.startswith("!")
        line = line[1:] if negate else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line.startswith("**/"):
            line, anchored = line[3:], "/" in line[3:]
        if line:
            self.rules.append((line, negate, dir_only, anchored))

    def _match(self, rel: str) -> bool:
        is_dir = (self.root / rel).is_dir()
        name = rel.rsplit("/", 1)[-1]
        result = False
        for pattern, negate, dir_only, anchored in self.rules:
            if dir_only and not is_dir:
                continue
            target = rel if anchored else name
            if fnmatch.fnmatchcase(target, pattern):
                result = not negate
        return result

    def ignored(self, rel_paths: Iterable[str]) -> set[str]:
        return {p for p in rel_paths if p and p != "." and self._match(p)}


def invisible(rel: str) -> bool:
    """True for the agent's own folder (``.agent-tui/``) and anything in it: never shown."""
    return AGENT_DIR in rel.split("/")


class IgnoreMatcher:
    """Skips SKIP_DIRS by name and asks git (or the .gitignore patterns) about the rest."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.backend: GitIgnore | PatternIgnore = (
            GitIgnore(self.root) if own_repo(self.root) else PatternIgnore(self.root)
        )

    def hidden(self, rel_paths: list[str]) -> set[str]:
        """The subset of ``rel_paths`` that must not be shown."""
        skipped = {p for p in rel_paths if p.rsplit("/", 1)[-1] in SKIP_DIRS or invisible(p)}
        rest = [p for p in rel_paths if p not in skipped]
        return skipped | self.backend.ignored(rest)


def walk_files(root: Path, start: Path, matcher: IgnoreMatcher | None = None) -> Iterator[Path]:
    """Every visible file under ``start`` (level by level, one ignore check per level)."""
    matcher = matcher or IgnoreMatcher(root)
    root = root.resolve()
    level = [start]
    while level:
        entries: list[Path] = []
        for folder in level:
            try:
                with os.scandir(folder) as it:
                    entries.extend(Path(e.path) for e in it)
            except OSError:
                continue
        rels = [p.relative_to(root).as_posix() for p in entries]
        hidden = matcher.hidden(rels)
        level = []
        for path, rel in sorted(zip(entries, rels, strict=True), key=lambda pr: pr[1]):
            if rel in hidden or path.is_symlink() and not _link_inside(path, root):
                continue
            if path.is_dir():
                if not path.is_symlink():  # like rg: never follow directory links (loops)
                    level.append(path)
            elif path.is_file():
                yield path


def _link_inside(link: Path, root: Path) -> bool:
    """Whether the symbolic link ``link`` leads to a place inside ``root`` (a loop or a dangling chain
    leads nowhere: skipped, not an error for the whole walk)."""
    try:
        return link.resolve(strict=True).is_relative_to(root)
    except (OSError, RuntimeError):
        return False
