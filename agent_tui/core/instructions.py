"""Instruction files (AGENTS.md, CLAUDE.md) as pinned project rules.

Users keep their project rules in ``AGENTS.md`` (Codex, OpenCode) or ``CLAUDE.md`` (Claude
Code); an agent that ignores them ignores the user.  Each file found is one pinned ``rules``
item ``ins:<path>`` whose provenance names its source, so it is in every request, visible in
the inspector and ``memory list``, and never summarised away.  Where they come from, in the
order they are sent (later, nearer files win where they conflict, as in Codex):

1. the user's config dir (``$XDG_CONFIG_HOME/agent-tui/AGENTS.md``);
2. every folder from the git root down to the workspace;
3. a subfolder's own file, once the agent first reads or edits a file under it.

In each folder ``AGENTS.md`` is used, ``CLAUDE.md`` only when there is no ``AGENTS.md``.
Files are checked (one ``stat`` each) before every step: an edit on disk changes the item at
the next step, and only then — the request's stable head stays byte-identical otherwise.
A file over ``MAX_BYTES`` is cut, with a warning naming the file and its size; no more than that is
read (a clone can carry a file of gigabytes of zeros), and a file holding NUL bytes is not text: not
loaded.  A file in the workspace must be one of the workspace's: a link out of it (``AGENTS.md ->
~/.ssh/id_rsa``) is refused even when an enclosing repository (dotfiles at ``~``) holds the target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.items import Category, ContextItem, Priority, Scope
from agent_tui.core.safe_files import UnsafeFileError, open_regular
from agent_tui.core.text import clean_text

NAMES = ("AGENTS.md", "CLAUDE.md")
"""File names, by preference: CLAUDE.md is read only in a folder with no AGENTS.md."""
MAX_BYTES = 32 * 1024
"""An instruction file larger than this is cut (with a visible warning): it is sent on every request."""
PREFIX = "ins:"


def user_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agent-tui"


def git_root(start: Path) -> Path | None:
    """The folder of the nearest ``.git`` at or above ``start``, or None; a ``.git`` another user owns (with
    its folder) ends the search, as git's own ``safe.directory`` check does: ``/tmp/.git`` planted by someone
    else would make their ``/tmp/AGENTS.md`` a pinned rule of every project under ``/tmp``."""
    for d in (start, *start.parents):
        try:
            marker = (d / ".git").lstat()
        except OSError:
            continue
        return d if _owned(marker.st_uid) and _owned(d.stat().st_uid) else None
    return None


def _owned(uid: int) -> bool:
    """Whether a file with owner ``uid`` is this user's."""
    return uid == os.geteuid()


def pick(folder: Path) -> Path | None:
    """The instruction file of one folder (AGENTS.md, else CLAUDE.md), if any."""
    for name in NAMES:
        p = folder / name
        if p.is_file():
            return p
    return None


def chain(workspace: Path) -> list[Path]:
    """Folders whose instruction files always apply: the git root down to the workspace."""
    root = git_root(workspace) or workspace
    folders = [workspace]
    d = workspace
    while d != root and d.parent != d:
        d = d.parent
        folders.append(d)
    return list(reversed(folders))


@dataclass
class Loaded:
    """One instruction file as last read."""

    path: Path
    stamp: tuple[float, int]
    item_id: str


def _stamp(path: Path) -> tuple[float, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime, st.st_size


CONFIG_RULES_ID = PREFIX + "config rules"
"""The item of the config's ``rules``."""


def config_rules(engine: Any) -> None:
    """Keep the config's ``rules`` (the user's file, and a workspace's: a key it may always set, like its
    AGENTS.md) as one pinned rule item, in every request and visible as every rule is.  The key was read and
    documented, and then never sent.  Called before each step: a resumed session's items come from the store,
    where this one is not kept (the engine's settings, and so the text, do not change in a session)."""
    if CONFIG_RULES_ID in engine.items:
        return
    rules = [" ".join(r.split()) for r in engine.settings.rules if r.strip()]
    if not rules:
        return
    content = clean_text(engine.redact("From your config's `rules` (every request):\n" + "\n".join(f"- {r}" for r in rules)))
    engine.items[CONFIG_RULES_ID] = ContextItem(
        id=CONFIG_RULES_ID, category=Category.RULES, content=content, tokens=engine.counter.count(content),
        pinned=True, priority=Priority.HIGH, scope=Scope.SESSION, turn=engine.turn,
        provenance={"source": "config", "instructions": True})
    engine.order.append(CONFIG_RULES_ID)
    engine.history.version += 1


class Instructions:
    """The instruction files of one engine's workspace, kept as pinned rule items."""

    def __init__(self, workspace: Path | None, config_dir: Path | None = None) -> None:
        self.workspace = workspace.resolve() if workspace is not None else None
        self.config_dir = config_dir if config_dir is not None else user_dir()
        self.loaded: dict[str, Loaded] = {}
        self.nested: list[Path] = []
        """Subfolders whose own file was found on first touch (kept for the session)."""
        self.warnings: list[str] = []

    # which files ---------------------------------------------------------------------------
    def folders(self) -> list[tuple[Path, str]]:
        """(folder, scope note) in sending order."""
        out: list[tuple[Path, str]] = [(self.config_dir, "your user instructions, every project")]
        if self.workspace is not None:
            out += [(d, "project instructions") for d in chain(self.workspace)]
            out += [(d, f"instructions for files under {d.relative_to(self.workspace)}/ (nearer files win)")
                    for d in self.nested]
        return out

    def display(self, path: Path) -> str:
        if self.workspace is not None:
            try:
                return str(path.relative_to(self.workspace))
            except ValueError:
                pass
            root = git_root(self.workspace)
            if root is not None and path.is_relative_to(root):
                return os.path.relpath(path, self.workspace)
        home = Path.home()
        return "~/" + str(path.relative_to(home)) if path.is_relative_to(home) else str(path)

    # keeping items current --------------------------------------------------------------------
    def refresh(self, engine: Any) -> bool:
        """Add, update or drop the items whose files appeared, changed or went; True if any did."""
        seen: set[str] = set()
        changed = False
        for folder, note in self.folders():
            path = pick(folder)
            if path is None:
                continue
            exact = folder != self.config_dir  # (the user's own folder may be a link to their dotfiles)
            try:
                real = path.resolve() if exact else path
                allowed = self._allowed(path, folder, engine, real)
            except (OSError, RuntimeError) as exc:  # (swapped or looped while it was resolved)
                self._warn(engine, f"{self.display(path)}: cannot resolve it ({exc}); not loaded")
                continue
            if not allowed:
                continue
            stamp = _stamp(path)
            if stamp is None:
                continue
            item_id = PREFIX + self.display(path)
            seen.add(item_id)
            old = self.loaded.get(item_id)
            if old is not None and old.stamp == stamp and old.path == path and item_id in engine.items:
                continue
            self._put(engine, path, real, item_id, note, stamp, exact=exact)
            changed = True
        for item_id in [i for i in self.loaded if i not in seen]:
            del self.loaded[item_id]
            if item_id in engine.items:
                del engine.items[item_id]
                engine.order.remove(item_id)
                engine.history.reset()
            changed = True
        if changed:
            engine.history.version += 1
        return changed

    def _allowed(self, path: Path, folder: Path, engine: Any, real: Path | None = None) -> bool:
        """A project's instruction file must be a file of the project: a link out (to ``~/.ssh/…``) would put
        that file into every request, past the workspace guard the file tools keep.  A file in the workspace
        must stay in the workspace (its files may come from anyone); one in a folder above it (a monorepo's
        root), in that repository.  ``real``: ``path`` resolved already (the path that is then opened)."""
        if folder == self.config_dir or self.workspace is None:
            return True
        inside = folder.resolve().is_relative_to(self.workspace.resolve())
        root = (self.workspace if inside else (git_root(self.workspace) or self.workspace)).resolve()
        real = real or path.resolve()
        if real.is_relative_to(root):
            return True
        self._warn(engine, f"{self.display(path)} links outside the project (to {real}); not loaded")
        return False

    def touch(self, engine: Any, rel_path: str) -> bool:
        """The agent read or edited ``rel_path``: load instruction files of its subfolders (first touch)."""
        if self.workspace is None:
            return False
        target = (self.workspace / rel_path).resolve()
        if not target.is_relative_to(self.workspace):
            return False
        added = False
        d = target.parent
        found: list[Path] = []
        while d != self.workspace and d.is_relative_to(self.workspace):
            if d not in self.nested and pick(d) is not None:
                found.append(d)
            d = d.parent
        for d in reversed(found):  # outer first: the nearest is sent last and wins
            self.nested.append(d)
            added = True
        return self.refresh(engine) if added else False

    def _warn(self, engine: Any, warning: str) -> None:
        if warning not in self.warnings:  # tried again at every refresh: warned once
            self.warnings.append(warning)
            engine.warnings.append(warning)

    def _put(self, engine: Any, path: Path, real: Path, item_id: str, note: str, stamp: tuple[float, int],
             exact: bool) -> None:
        """Load ``path`` as the item from ``real``; ``exact``: a project's file, ``real`` its resolved path as
        ``_allowed`` checked it, opened following no link (one swapped in since is refused, not read)."""
        try:
            fd = open_regular(real, self.display(path), exact=exact)
            with os.fdopen(fd, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                data = fh.read(MAX_BYTES + 1)
        except (OSError, UnsafeFileError) as exc:
            self._warn(engine, f"{self.display(path)}: cannot read it ({getattr(exc, 'strerror', None) or exc}); "
                               "not loaded")
            return
        if b"\0" in data:
            self._warn(engine, f"{self.display(path)} holds NUL bytes: not a text file; not loaded")
            return
        size = max(size, len(data))
        text = data[:MAX_BYTES].decode("utf-8", "replace")
        if size > MAX_BYTES:
            self._warn(engine, f"{self.display(path)} is {size:,} bytes; only the first {MAX_BYTES:,} are sent "
                               "(instruction files go into every request: keep them short)")
            text += f"\n[… cut: {self.display(path)} is {size:,} bytes, only the first {MAX_BYTES:,} are loaded]"
        content = clean_text(engine.redact(f"From {self.display(path)} ({note}):\n{text.strip()}"))
        item = engine.items.get(item_id)
        if item is None:
            item = ContextItem(id=item_id, category=Category.RULES, content=content,
                               tokens=engine.counter.count(content), pinned=True, priority=Priority.HIGH,
                               scope=Scope.SESSION, turn=engine.turn,
                               provenance={"source": str(path), "instructions": True, "bytes": size})
            engine.items[item_id] = item
            engine.order.append(item_id)
        else:
            item.content, item.tokens = content, engine.counter.count(content)
            item.provenance.update(source=str(path), bytes=size)
        self.loaded[item_id] = Loaded(path, stamp, item_id)
