"""search: which files contain a pattern, grouped by folder, with the total count.

Grouping by folder then file shows where the matches concentrate (one module, or the
whole tree?) at a glance and repeats each path once, which is far cheaper than
``path:line:text`` per hit.  Only the first ``max_results`` hits are shown; the total
is always given, and when hits were left out the complete list is stored behind a
handle the model can page through.
"""

from __future__ import annotations

import asyncio
from itertools import groupby
from typing import Any

from agent_tui.core.redact_whole import redact_whole
from agent_tui.core.tokens import count_tokens
from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.paging import fetch_hint
from agent_tui.tools.search_backends import MAX_HITS, Hit, rg_binary, search_python, search_rg
from agent_tui.tools.workspace import PROTECTED_DIRS, missing_message, relative, resolve

#: Characters of a matching line shown.
LINE_WIDTH = 160

SPEC = ToolSpec(
    name="search",
    description=(
        "Find lines containing a text (or a regex with regex=true) in the workspace's files, "
        "grouped by folder and file with line numbers and the total count. Case-insensitive "
        "unless the pattern has capitals. Skips .git, node_modules, virtualenvs and "
        ".gitignored files. glob filters files (e.g. '*.py', 'tests/**'). Use it to locate "
        "definitions and usages; then read_file the relevant ranges. Not for listing a "
        "folder: use list_dir."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1},
            "path": {"type": "string", "default": ".", "description": "Folder or file to search."},
            "glob": {"type": "string", "description": "Only files matching this glob."},
            "regex": {"type": "boolean", "default": False},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    kind="read",
    group="files",
)


def _clip(text: str) -> str:
    text = text.strip()
    if len(text) <= LINE_WIDTH:
        return text
    text = redact_whole(text)  # before the cut: half a token is not recognisable as one
    return text if len(text) <= LINE_WIDTH else text[:LINE_WIDTH] + "…"


def format_grouped(hits: list[Hit]) -> str:
    """Hits grouped by folder, then file: ``folder/ (n)`` / ``  file`` / ``    12: text``."""
    out: list[str] = []

    def folder_of(h: Hit) -> str:
        return h.path.rsplit("/", 1)[0] + "/" if "/" in h.path else "./"

    for folder, in_folder in groupby(hits, key=folder_of):
        group = list(in_folder)
        out.append(f"{folder} ({len(group)})")
        for path, in_file in groupby(group, key=lambda h: h.path):
            out.append(f"  {path.rsplit('/', 1)[-1]}")
            out += [f"    {h.line}: {_clip(h.text)}" for h in in_file]
    return "\n".join(out)


def format_flat(hits: list[Hit]) -> str:
    """Every hit as ``path:line: text`` (the stored full list)."""
    return "\n".join(f"{h.path}:{h.line}: {h.text}" for h in hits)


async def find(
    ctx: ToolContext, pattern: str, path: str, glob: str | None, regex: bool
) -> tuple[list[Hit], str]:
    """All hits (sorted by path and line) and the backend that found them."""
    start = resolve(ctx.workspace, path)
    if not start.exists():
        raise ToolError(missing_message(ctx.workspace, start, path))
    root = ctx.workspace.resolve()
    inside = sorted(set(start.resolve().relative_to(root).parts) & PROTECTED_DIRS)
    if inside:
        raise ToolError(f"{path} is inside {inside[0]}/, which search never looks into (git's internals, "
                        "or agent-tui's own store and logs); search the project's files instead.")
    rg = rg_binary()
    if rg:
        hits, backend = await search_rg(rg, root, start, pattern, glob, regex), "rg"
    else:
        hits = await asyncio.to_thread(search_python, root, start, pattern, glob, regex)
        backend = "python"
    return sorted(hits, key=lambda h: (h.path, h.line)), backend


async def search(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The search tool."""
    pattern: str = args["pattern"]
    where = args.get("path") or "."
    limit = int(args.get("max_results") or 50)
    hits, backend = await find(ctx, pattern, where, args.get("glob"), bool(args.get("regex")))
    scope = relative(ctx.workspace, resolve(ctx.workspace, where))
    glob_note = f", files matching {args['glob']}" if args.get("glob") else ""
    meta: dict[str, Any] = {"total": len(hits), "backend": backend, "pattern": pattern}
    if not hits:
        text = f"No matches for {pattern!r} in {scope}{glob_note}."
        return make_result(text, ctx, meta=meta)
    files = len({h.path for h in hits})
    total = f"at least {len(hits):,}" if len(hits) >= MAX_HITS else f"{len(hits):,}"
    shown = hits[:limit]
    head = f"{total} match{'es' if total != 1 else ''} in {files} file{'s' if files != 1 else ''} for {pattern!r} in {scope}{glob_note}"
    head += f" (showing the first {len(shown)}):" if len(shown) < len(hits) else ":"
    text = f"{head}\n{format_grouped(shown)}"
    handle, raw_tokens = None, None
    if len(shown) < len(hits):
        full = format_flat(hits)
        handle = ctx.results.put(full, {"kind": "search", "pattern": pattern})
        text += (
            f"\n[{len(hits) - len(shown):,} more matches not shown; all {len(hits):,} stored as "
            f"{handle}: {fetch_hint(handle, full)}. Or narrow with path/glob.]"
        )
        raw_tokens = count_tokens(full, ctx.model)
    return make_result(text, ctx, handle=handle, raw_tokens=raw_tokens, meta=meta)
