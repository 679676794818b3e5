"""An MCP tool result as the model should see it: said once, clean, within its cap.

Servers often send the same data twice (a text block and ``structured_content``) and
wrap binary data in base64; both waste the window.  A result is rendered to one text
(the structured copy dropped when the text already carries it, binary blocks named
instead of inlined), then handed to the generic shaper, which stores the whole text
behind a handle when it is over the tool's cap.  A single text block is rendered
unchanged, so the stored copy is byte-for-byte what the server sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from agent_tui.core.parse import loads_json
from agent_tui.core.redact_whole import redact_whole
from agent_tui.core.results import ResultStore
from agent_tui.core.tokens import counter_for
from agent_tui.mcp.config import ToolSettings
from agent_tui.tools.paging import fetch_hint, get_page
from agent_tui.tools.shaping import shape_result


@dataclass(frozen=True)
class McpResult:
    """One MCP tool call's outcome, ready to become a tool message."""

    name: str
    text: str
    """What the model gets."""
    is_error: bool
    handle: str | None
    """Where the whole output is stored (None when it was sent whole)."""
    raw_tokens: int
    shaped_tokens: int
    scope: str = "turn"
    """How long the result may stay in the window: ``turn``, ``session`` or ``global``."""
    server: str | None = None
    call_id: str | None = None
    """The model's tool-call id (parallel calls keep their results paired with it)."""
    error_kind: str | None = None
    elapsed: float = 0.0

    @property
    def text_for_model(self) -> str:
        """The text the tool message carries (alias of ``text``)."""
        return self.text


def _size(n: int) -> str:
    return f"{n / 1024:.1f} KB" if n >= 1024 else f"{n} B"


def _b64_bytes(data: str) -> int:
    return len(data.rstrip("=")) * 3 // 4


def render_block(block: Any) -> str:
    """One content block as text; binary payloads are described, never inlined."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent | types.AudioContent):
        kind = "image" if isinstance(block, types.ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {_size(_b64_bytes(block.data))} not shown]"
    if isinstance(block, types.EmbeddedResource):
        res = block.resource
        if isinstance(res, types.TextResourceContents):
            return f"[resource {res.uri}]\n{res.text}"
        size = _size(_b64_bytes(getattr(res, "blob", "") or ""))
        return f"[resource {res.uri} {res.mime_type or 'binary'}, {size} not shown]"
    if isinstance(block, types.ResourceLink):
        about = f": {block.description}" if block.description else ""
        return f"[resource link {block.name} {block.uri} {block.mime_type or ''}]{about}".replace(
            " ]", "]"
        )
    dump = (
        block.model_dump(mode="json", exclude_none=True) if hasattr(block, "model_dump") else block
    )
    return json.dumps(dump, ensure_ascii=False)


def _payload(block: Any) -> str:
    """Every string a block carries (what structured content may duplicate)."""
    dump = (
        block.model_dump(mode="json", by_alias=True, exclude_none=True)
        if hasattr(block, "model_dump")
        else block
    )
    return "\n".join(_leaves(dump))


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [json.dumps(value)]


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return False
    try:
        loads_json(stripped)
    except ValueError:
        return False
    return True


def render(result: types.CallToolResult) -> str:
    """The result as one text, with text and ``structured_content`` carrying the same data sent once."""
    blocks = list(result.content or [])
    structured = result.structured_content
    if isinstance(structured, dict) and set(structured) == {"result"}:
        structured = structured["result"]  # the SDKs' wrapper for non-object outputs
    rendered = "\n".join(render_block(b) for b in blocks)
    if structured is None:
        return rendered
    as_json = json.dumps(structured, ensure_ascii=False)
    if not blocks:
        return as_json
    payload = "\n".join(_payload(b) for b in blocks)
    if all(leaf in payload for leaf in _leaves(structured)):
        texts = [b for b in blocks if isinstance(b, types.TextContent)]
        compound = isinstance(structured, dict | list)
        if (
            compound
            and texts
            and len(texts) == len(blocks)
            and all(_is_json(b.text) for b in texts)
        ):
            return as_json  # one compact JSON document instead of pretty-printed pieces
        return rendered
    return f"{rendered}\n[structured content]\n{as_json}"


def exact_view(
    text: str, max_tokens: int, store: ResultStore, label: str, model: str | None
) -> tuple[str, str | None, int, int]:
    """Shape ``exact``: the text verbatim, or its verbatim head plus a handle to the rest."""
    counter = counter_for(model)
    raw = counter.count(text)
    if raw <= max_tokens:
        return text, None, raw, raw
    text = redact_whole(text)  # before the cut: the part of a secret left after it is not recognisable
    handle = store.put(text, {"label": label, "chars": len(text), "tokens": raw, "shape": "exact"})
    footer = f"\n[truncated; whole output stored as {handle}: {len(text):,} chars, {raw:,} tokens; {fetch_hint(handle, text)}]"
    head = get_page(text, 1)
    budget = max(0, max_tokens - counter.count(footer))
    while head and counter.count(head) > budget:
        head = head[: int(len(head) * 0.8)]
    shaped = head + footer
    return shaped, handle, raw, counter.count(shaped)


def shape(
    result: types.CallToolResult,
    *,
    name: str,
    server: str,
    settings: ToolSettings,
    max_tokens: int,
    intent: str,
    store: ResultStore,
    model: str | None = None,
) -> McpResult:
    """Render and shape one tool result under the tool's settings."""
    body = render(result)
    cap = settings.max_tokens or max_tokens
    if settings.shape == "exact":
        text, handle, raw, shaped = exact_view(body, cap, store, f"mcp:{name}", model)
    else:
        out = shape_result(
            body, max_tokens=cap, store=store, intent=intent, label=f"mcp:{name}", model=model,
            html_page=True,
        )
        text, handle, raw, shaped = out.text, out.handle, out.raw_tokens, out.shaped_tokens
    is_error = bool(result.is_error)
    if is_error and not text.startswith("Error"):
        text = f"Error from {name}: {text}"
        shaped = counter_for(model).count(text)
    return McpResult(name, text, is_error, handle, raw, shaped, settings.scope, server)


def error(
    name: str, message: str, kind: str, server: str | None = None, model: str | None = None
) -> McpResult:
    """A failed call as a result the model can read and act on."""
    text = f"Error ({kind}): {message}"
    tokens = counter_for(model).count(text)
    return McpResult(name, text, True, None, tokens, tokens, "turn", server, error_kind=kind)
