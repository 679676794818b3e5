"""fetch_result: read a stored output page by page.

Large results are stored whole behind a handle (``r12``) and only summarised in the
context; this is how the model reads the rest when the summary is not enough.

The text is exactly ``header + "\\n" + page_text``: the first line is a one-line header
(``[r12 page 2/5, chars 8,000-16,000 of 38,211; next: ...]``) and the rest is the exact
page slice.  ``meta["page_text"]`` holds that slice too, so callers rebuild the original
exactly by joining ``meta["page_text"]`` of pages 1..K (or ``text.split("\\n", 1)[1]``).
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.redact_whole import redact_whole
from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.paging import get_page, page_count, page_header

FETCH_SPEC = ToolSpec(
    name="fetch_result",
    description=(
        "Read one page of an output stored behind a handle (e.g. r12) when a result said it "
        "was stored whole. Pages are 8,000 characters; the first line tells the page count. "
        "Use it only when the summary you got is not enough. Not for re-reading files: "
        "read_file with a range is cheaper."
    ),
    parameters={
        "type": "object",
        "properties": {
            "handle": {"type": "string", "minLength": 1},
            "page": {"type": "integer", "minimum": 1, "default": 1},
        },
        "required": ["handle"],
        "additionalProperties": False,
    },
    kind="read",
    group="memory",
    max_result_tokens=None,  # a page is bounded by PAGE_CHARS already
)


async def fetch_result(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The fetch_result tool (see the module docstring for the exact text layout)."""
    handle: str = args["handle"].strip()
    page = int(args.get("page") or 1)
    content = ctx.results.get(handle)
    if content is None:
        raise ToolError(f"Unknown handle '{handle}': nothing is stored under it.")
    content = redact_whole(content)  # (a store kept in memory holds it as it came) before a page cuts it
    try:
        text = get_page(content, page)
    except ValueError as exc:
        raise ToolError(f"{handle}: {exc}.") from None
    header = page_header(handle, content, page)
    meta = {
        "handle": handle,
        "page": page,
        "pages": page_count(content),
        "header": header,
        "page_text": text,
    }
    return make_result(f"{header}\n{text}", ctx, meta=meta)
