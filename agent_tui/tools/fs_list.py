"""list_dir: a compact tree to a depth, with counts, minus the noise.

The model needs the shape of a project (where the code, tests and config live) before
it reads anything.  A tree to a small depth with per-folder counts gives that in a few
hundred tokens; .git, virtualenvs, node_modules, caches and .gitignored paths are left
out, big files are flagged with their size, and the listing is capped with a count of
what was omitted.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agent_tui.core.safe_files import UnsafeFileError, open_folder
from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.ignore import IgnoreMatcher, invisible
from agent_tui.tools.workspace import missing_message, relative, resolve

#: Lines of tree shown at most.
MAX_ENTRIES = 300
#: Folders scanned at most (bounds the cost on huge trees).
MAX_DIRS_SCANNED = 2000
#: Files at least this big get their size shown.
BIG_FILE_BYTES = 100_000
MAX_DEPTH = 6

SPEC = ToolSpec(
    name="list_dir",
    description=(
        "Show the directory tree under path to a depth (default 2) with file and folder "
        "counts per folder; skips .git, virtualenvs, node_modules, caches and .gitignored "
        "files. Use it to learn a project's layout. Not for finding text in files: use search."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "default": ".", "description": "Folder, relative."},
            "depth": {"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": 2},
        },
        "additionalProperties": False,
    },
    kind="read",
    group="files",
)


class Tree:
    """Visible children per folder, scanned level by level (one ignore check per level)."""

    def __init__(self, root: Path, top: Path, depth: int) -> None:
        self.root = root.resolve()
        self.matcher = IgnoreMatcher(self.root)
        self.children: dict[Path, tuple[list[Path], list[Path]]] = {}
        self.hidden: list[str] = []
        level, scanned = [top], 0
        for current in range(depth + 1):  # the extra level only counts the deepest folders
            if not level or scanned > MAX_DIRS_SCANNED:
                break
            scanned += len(level)
            level = self._scan(level, top, keep_hidden=current == 0)

    def _scan(self, folders: list[Path], top: Path, keep_hidden: bool) -> list[Path]:
        entries: list[tuple[Path, Path, bool]] = []
        for folder in folders:
            try:
                entries += [(folder, folder / name, is_dir) for name, is_dir in _names(folder)]
            except UnsafeFileError as exc:
                if folder == top:  # (the folder asked for: say so; a swapped one below is only left out)
                    raise ToolError(str(exc)) from None
                self.children[folder] = ([], [])
            except OSError:
                self.children[folder] = ([], [])
        rels = [p.relative_to(self.root).as_posix() for _, p, _ in entries]
        hidden = self.matcher.hidden(rels)
        nxt: list[Path] = []
        for folder in folders:
            self.children.setdefault(folder, ([], []))
        for (folder, path, is_dir), rel in zip(entries, rels, strict=True):
            if rel in hidden:
                if keep_hidden and not invisible(rel):
                    self.hidden.append(path.name + ("/" if is_dir else ""))
                continue
            dirs, files = self.children[folder]
            if is_dir:
                dirs.append(path)
                nxt.append(path)
            else:
                files.append(path)
        for dirs, files in self.children.values():
            dirs.sort(key=lambda p: p.name.lower())
            files.sort(key=lambda p: p.name.lower())
        return nxt

    def counts(self, folder: Path) -> str:
        if folder not in self.children:
            return ""
        dirs, files = self.children[folder]
        return f"  ({len(dirs)} dirs, {len(files)} files)"

    def render(self, folder: Path, depth: int, indent: str = "  ") -> list[str]:
        dirs, files = self.children.get(folder, ([], []))
        out: list[str] = []
        for d in dirs:
            out.append(f"{indent}{d.name}/{self.counts(d)}")
            if depth > 1:
                out += self.render(d, depth - 1, indent + "  ")
        for f in files:
            out.append(f"{indent}{f.name}{_size_note(f)}")
        return out


def _names(folder: Path) -> list[tuple[str, bool]]:
    """The names in ``folder`` with whether each is a folder (a link is not), read through a descriptor opened
    one level at a time from ``/`` following no link: a folder a running command swapped for a link to one
    outside the workspace is not listed (UnsafeFileError)."""
    walk = open_folder(folder)
    try:
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=walk)
    finally:
        os.close(walk)
    try:
        with os.scandir(fd) as it:
            return [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    finally:
        os.close(fd)


def _size_note(path: Path) -> str:
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            return f" -> {os.readlink(path)}"
    except OSError:
        return ""
    size = info.st_size
    if size < BIG_FILE_BYTES:
        return ""
    return f"  ({size / 1_000_000:.1f} MB)" if size >= 1_000_000 else f"  ({size // 1000} KB)"


async def list_dir(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The list_dir tool."""
    shown_path = args.get("path") or "."
    target = resolve(ctx.workspace, shown_path)
    if not target.exists():
        raise ToolError(missing_message(ctx.workspace, target, shown_path))
    rel = relative(ctx.workspace, target)
    if not target.is_dir():
        raise ToolError(f"'{rel}' is a file, not a folder; use read_file to read it.")
    depth = max(1, min(MAX_DEPTH, int(args.get("depth") or 2)))
    tree = Tree(ctx.workspace, target, depth)
    lines = tree.render(target, depth)
    omitted = max(0, len(lines) - MAX_ENTRIES)
    head = f"{rel}/{tree.counts(target)} — depth {depth}"
    body = lines[:MAX_ENTRIES]
    if omitted:
        body.append(f"… {omitted} more entries omitted; list a subfolder or use a smaller depth")
    if tree.hidden:
        names = sorted(tree.hidden)
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        body.append(f"[not shown here: {', '.join(names[:10])}{more} (skipped or .gitignored)]")
    meta = {"path": rel, "entries": len(lines), "omitted": omitted, "hidden": sorted(tree.hidden)}
    return make_result("\n".join([head, *body]), ctx, meta=meta)
