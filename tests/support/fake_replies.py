"""The scripted side of the fake model server: replies, recorded requests, pairing checks.

Split from the HTTP machinery in ``fake_openai.py`` so a test reads what it can script
(``Reply`` and its fault constructors) without the server's socket handling.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):06d}"


def _split(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text] if text else []
    return [text[i : i + size] for i in range(0, len(text), size)]


# --------------------------------------------------------------------------- replies


@dataclass
class ToolCallSpec:
    """One tool call in a scripted reply; ``arguments`` is sent verbatim when a str."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass
class Reply:
    """One scripted answer to one chat-completions request.

    Build with the class methods; the fields are the knobs they set.
    """

    #: "ok" (text and/or tool calls), "error" (status + body) or "hang".
    kind: str = "ok"
    #: Assistant text content.
    content: str = ""
    #: Tool calls (parallel when several).
    calls: list[ToolCallSpec] = field(default_factory=list)
    #: finish_reason; None means "stop", or "tool_calls" when there are calls.
    finish_reason: str | None = None
    #: HTTP status for error replies.
    status: int = 200
    #: JSON body for error replies.
    body: dict[str, Any] | None = None
    #: Extra response headers.
    headers: dict[str, str] = field(default_factory=dict)
    #: Seconds to wait before answering at all.
    delay: float = 0.0
    #: Seconds to wait between stream chunks.
    chunk_delay: float = 0.0
    #: Characters per streamed text chunk.
    chunk_size: int = 8
    #: Characters per streamed tool-call arguments chunk.
    args_chunk_size: int = 7
    #: Interleave the argument chunks of parallel tool calls (some providers do).
    interleave: bool = False
    #: Stream every parallel call with ``index`` 0 (Ollama's ``/v1`` and some gateways do).
    shared_index: bool = False
    #: Streaming only: close the connection after this many data chunks.
    cut_after: int | None = None
    #: Streaming only: after this many chunks, stall for ``hang_seconds``, then close.
    stall_after: int | None = None
    #: For "hang" and stalls: seconds to hold the request (None = until shutdown).
    hang_seconds: float | None = None
    #: For "hang": reply to serve once the hang is over (None = close the connection).
    then: Reply | None = None
    #: Override usage numbers (prompt_tokens / completion_tokens) instead of counting.
    usage: dict[str, int] | None = None
    #: False: report no usage at all (no usage chunk, no ``usage`` in JSON).
    send_usage: bool = True

    # ---- constructors

    @classmethod
    def text(cls, text: str, **kw: Any) -> Reply:
        """A plain text answer (streamed in ``chunk_size`` pieces)."""
        return cls(kind="ok", content=text, **kw)

    @classmethod
    def tool_calls(
        cls,
        calls: Iterable[tuple[str, dict[str, Any] | str] | ToolCallSpec],
        text: str = "",
        **kw: Any,
    ) -> Reply:
        """Tool calls: ``[("read_file", {"path": "a.py"}), ...]``; several = parallel."""
        specs = [c if isinstance(c, ToolCallSpec) else ToolCallSpec(c[0], c[1]) for c in calls]
        return cls(kind="ok", content=text, calls=specs, **kw)

    @classmethod
    def tool_call(cls, name: str, arguments: dict[str, Any] | str | None = None, **kw: Any) -> Reply:
        return cls.tool_calls([(name, arguments if arguments is not None else {})], **kw)

    @classmethod
    def malformed_tool_call(
        cls, name: str = "read_file", raw_arguments: str = '{"path": "a.py", ', **kw: Any
    ) -> Reply:
        """A tool call whose ``arguments`` string is not valid JSON."""
        return cls(kind="ok", calls=[ToolCallSpec(name, raw_arguments)], **kw)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "error",
        *,
        type: str = "server_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        **kw: Any,
    ) -> Reply:
        if body is None:
            body = {"error": {"message": message, "type": type, "param": None, "code": code}}
        return cls(kind="error", status=status, body=body, headers=dict(headers or {}), **kw)

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1, **kw: Any) -> Reply:
        """HTTP 429 with ``Retry-After: <seconds>`` (omitted when None)."""
        headers = {} if retry_after is None else {"Retry-After": _fmt_num(retry_after)}
        return cls.error(
            429,
            "Rate limit reached for requests. Please try again later.",
            type="requests",
            code="rate_limit_exceeded",
            headers=headers,
            **kw,
        )

    @classmethod
    def server_error(cls, status: int = 500, message: str = "The server had an error", **kw: Any) -> Reply:
        return cls.error(status, message, type="server_error", **kw)

    @classmethod
    def context_length_exceeded(cls, max_tokens: int = 8192, requested: int = 9000, **kw: Any) -> Reply:
        """HTTP 400 with OpenAI's ``context_length_exceeded`` error body."""
        msg = (
            f"This model's maximum context length is {max_tokens} tokens. However, your "
            f"messages resulted in {requested} tokens. Please reduce the length of the messages."
        )
        return cls.error(400, msg, type="invalid_request_error", code="context_length_exceeded", **kw)

    @classmethod
    def hang(cls, seconds: float | None = None, then: Reply | None = None) -> Reply:
        """Hold the request open without answering for ``seconds`` (None: until shutdown)."""
        return cls(kind="hang", hang_seconds=seconds, then=then)

    @classmethod
    def cut(cls, text: str = "partial answer that never ends", after_chunks: int = 2, **kw: Any) -> Reply:
        """Stream some chunks, then close the connection mid-body (streaming only)."""
        kw.setdefault("chunk_size", 4)
        return cls(kind="ok", content=text, cut_after=after_chunks, **kw)


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


#: What a script queue entry may be.
ReplySource = Reply | str | Callable[[dict[str, Any]], "Reply | str"]


# --------------------------------------------------------------------------- recording


@dataclass
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    raw: bytes
    time: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("tools") or [])

    @property
    def stream(self) -> bool:
        return bool((self.body or {}).get("stream"))

    def header(self, name: str) -> str | None:
        low = name.lower()
        for k, v in self.headers.items():
            if k.lower() == low:
                return v
        return None


def check_tool_pairing(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Problems with tool-call/result pairing in a chat ``messages`` list (empty = fine).

    Every assistant ``tool_calls`` id must be answered by exactly one ``tool``
    message before the next assistant or user message; a ``tool`` message must
    answer a call of the preceding assistant message.
    """
    problems: list[str] = []
    pending: dict[str, int] = {}  # call id -> answers seen
    owner: int | None = None  # index of the assistant message whose calls are open

    def close(at: int) -> None:
        nonlocal pending, owner
        for cid, n in pending.items():
            if n == 0:
                problems.append(f"message {owner}: tool call {cid!r} has no tool result before message {at}")
        pending = {}
        owner = None

    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "tool":
            cid = m.get("tool_call_id")
            if owner is None:
                problems.append(f"message {i}: tool result {cid!r} without a preceding tool call")
            elif cid not in pending:
                problems.append(f"message {i}: tool result {cid!r} answers no call of message {owner}")
            else:
                pending[cid] += 1
                if pending[cid] > 1:
                    problems.append(f"message {i}: tool call {cid!r} answered more than once")
            continue
        if role in ("assistant", "user"):
            close(i)
        if role == "assistant" and m.get("tool_calls"):
            owner = i
            for tc in m["tool_calls"]:
                cid = tc.get("id")
                if cid in pending:
                    problems.append(f"message {i}: duplicate tool call id {cid!r}")
                pending[cid] = 0
    close(len(messages))
    return problems


