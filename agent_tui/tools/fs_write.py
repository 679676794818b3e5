"""write_file: create files, and overwrite only what the model has seen, all of it.

Creating a file is the common case and needs no prior read.  Overwriting an existing
file throws its content away, so it is held to the same rule as an edit, and more: the
model must have been shown all of the current version (``require_whole_view``), not an
outline, a range or search hits, or the lines it never saw would go with it.  Parent folders
are created (inside the workspace only: the path guard runs first).  An overwritten file keeps
its format (``in_file_format``): its line endings (given LF content, a line kept from the old
file keeps its ending and a new line takes that of the line it replaces or follows, so a CRLF
file stays CRLF), its byte order mark and its final newline.  The write is atomic
(``fs_atomic``): a full disk leaves the old file whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.fs_atomic import atomic_write
from agent_tui.tools.fs_common import (
    compact_diff,
    diff_stats,
    in_file_format,
    require_fresh,
    require_whole_view,
    to_lf,
    unified,
)
from agent_tui.tools.fs_unmask import MaskedFile, has_mask, masked_view, refuse_masks, unmask
from agent_tui.tools.workspace import (
    decode_text,
    read_file_bytes,
    refuse_protected,
    relative,
    resolve,
    split_lines,
)

SPEC = ToolSpec(
    name="write_file",
    description=(
        "Create a file with the given content (parent folders are created). Use it for new "
        "files. Overwriting an existing file is allowed only after reading all of it. Not for "
        "changing part of an existing file: use edit_file, which is cheaper and safer."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "content": {"type": "string", "description": "The complete file content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    kind="write",
    group="files",
)


def plan_write(args: dict[str, Any], ctx: ToolContext) -> tuple[Path, str, str | None, str]:
    """Every check of a write, without writing: (target, rel, old text or None, content to write);
    raises ToolError otherwise.  Run before the user is asked too (``check_write``)."""
    target = resolve(ctx.workspace, args["path"])
    rel = relative(ctx.workspace, target)
    refuse_protected(ctx.workspace, target)
    content: str = args["content"]
    if target.is_dir():
        raise ToolError(f"'{rel}' is a directory; give a file path.")
    old: str | None = None
    if target.exists():
        old = decode_text(read_file_bytes(target, rel), target, rel)
        require_fresh(ctx, rel, old, "overwrite")
        require_whole_view(ctx, rel, old)
    if has_mask(content):  # copied from a redacted read (tools/fs_unmask)
        view = masked_view(old) if old is not None else MaskedFile()
        content = unmask(to_lf(content), view)
        refuse_masks(content, view, "content", rel)
    if old is not None:
        content = in_file_format(old, content)
    return target, rel, old, content


async def check_write(args: dict[str, Any], ctx: ToolContext) -> None:
    """Raise ToolError when the write could not apply (see ``plan_write``)."""
    plan_write(args, ctx)


async def write_file(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The write_file tool."""
    target, rel, old, content = plan_write(args, ctx)
    before, after = None if old is None else old.encode("utf-8"), content.encode("utf-8")
    with ctx.journaled(rel, before, after):
        atomic_write(target, after, rel, expected=before)
    ctx.note_edit(rel, content, kind="create" if old is None else "write")
    lines = len(split_lines(content))
    size = len(content.encode("utf-8"))
    if old is None:
        text = f"Created {rel} ({lines} line{'' if lines == 1 else 's'}, {size:,} byte{'' if size == 1 else 's'})."
        return make_result(text, ctx, meta={"path": rel, "created": True, "diff": ""})
    diff = unified(to_lf(old), to_lf(content), rel)
    added, removed = diff_stats(diff)
    text = f"Overwrote {rel}: +{added} -{removed} lines, {lines} lines now.\n"
    text += compact_diff(to_lf(old), to_lf(content), rel)
    return make_result(text, ctx, meta={"path": rel, "created": False, "diff": diff})
