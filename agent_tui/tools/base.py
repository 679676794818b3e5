"""The vocabulary every tool shares: what a tool is, what it returns, what it may touch.

Tools are plain async functions ``handler(args, ctx) -> ToolResult``.  They never see
the agent, the UI or the store directly: everything they may do to the outside world
goes through ``ToolContext``, a Protocol the agent implements (tests use fakes).  That
keeps the tools testable on a temp directory and keeps the approval layer honest: a
tool's ``kind`` says whether it reads, writes or runs commands.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from agent_tui.core.results import ResultStore
from agent_tui.core.tokens import count_tokens

ToolKind = Literal["read", "write", "command"]
ToolScope = Literal["turn", "session", "global"]

#: Default hard cap on what one tool result may cost; the registry shapes anything larger.
DEFAULT_MAX_RESULT_TOKENS = 8000


@dataclass(frozen=True)
class ToolSpec:
    """What the model is told about a tool, and what the approval layer needs to know.

    ``description`` is written for a model: one line of what it does, then when to use
    it and when not to.  ``parameters`` is a JSON Schema object for the arguments.
    ``max_result_tokens`` is the registry's safety net (None: never re-shape, used by
    ``fetch_result`` whose pages are already bounded).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    kind: ToolKind = "read"
    scope: ToolScope = "turn"
    group: str = "core"
    optional: bool = False
    max_result_tokens: int | None = DEFAULT_MAX_RESULT_TOKENS

    def openai_schema(self) -> dict[str, Any]:
        """This tool in the OpenAI/litellm ``tools=[...]`` function format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass
class ToolResult:
    """One tool call's outcome.

    ``text`` is exactly what the model sees.  ``handle`` names the whole output in the
    ResultStore when ``text`` is only a view of it.  ``raw_tokens`` is what the full
    output would have cost, ``shaped_tokens`` what ``text`` costs (the gauges show the
    saving).  ``meta`` is for the UI and the engine (e.g. ``{"path": ..., "diff": ...}``)
    and is never sent to the model.
    """

    text: str
    is_error: bool = False
    handle: str | None = None
    raw_tokens: int = 0
    shaped_tokens: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


class ToolContext(Protocol):
    """What a tool may use from the running agent.

    Paths passed to ``note_read``/``note_edit``/``last_seen_hash`` are workspace-relative
    POSIX paths (``src/app.py``), always as produced by ``workspace.relative``.
    """

    workspace: Path
    results: ResultStore
    model: str | None

    def note_read(self, path: str, content: str, lines: list[tuple[int, int]] | None = None) -> None:
        """The model has seen (part of) ``path``; ``content`` is the full file text.

        Partial reads (ranges, queries, outlines) also pass the full text: the engine
        decides what to keep in the window, and the hash of the full text is what
        makes a later edit safe.  ``lines``: the 1-based inclusive line spans shown
        (``[]`` for an outline; spans that cover every line, or None, mean the whole text).
        """
        ...

    def note_edit(self, path: str, content: str, kind: str = "edit") -> None:
        """``path`` now holds ``content`` (full text as written) after an edit or write.

        ``kind``: ``"create"`` (a write made a new file), ``"write"`` (a whole-file overwrite) or
        ``"edit"`` (part of the text replaced).  The engine protects files the task edits for the
        whole task, and lets a file the agent only ever wrote whole go when it lies untouched.
        """
        ...

    def last_seen_hash(self, path: str) -> str | None:
        """``content_hash`` of the text the model last saw for ``path``; None if never read.  It moves
        on with the model's reads and edits and with a request sent to it, never with a re-read alone:
        a call already on its way was made from the text before."""
        ...

    def seen_part(self, path: str) -> list[tuple[int, int]] | None:
        """The line spans of that text the model was shown; None when it saw all of it (or wrote it)."""
        ...

    def journaled(self, path: str, before: bytes | None, after: bytes) -> AbstractContextManager[None]:
        """Around a write of ``path`` (``before``: its bytes now, None when it does not exist; ``after``:
        what is written): keeps the old bytes so the user can undo the change, dropped if the write fails."""
        ...

    def save_memo(self, text: str) -> str:
        """Store a progress memo; returns its id."""
        ...

    def recall(self, query: str, limit: int = 5) -> list[dict[str, Any]]:
        """Memories matching ``query``: ``[{"id", "kind", "content", "score"}]``."""
        ...


ToolHandler = Callable[[dict[str, Any], ToolContext], Awaitable[ToolResult]]
ToolCheck = Callable[[dict[str, Any], ToolContext], Awaitable[None]]
"""Raises ToolError for a call that could not succeed, changing nothing (``ToolRegistry.refusal``)."""


class ToolError(Exception):
    """Raised inside a tool to reply with a clear error message (no traceback)."""


def make_result(
    text: str,
    ctx: ToolContext,
    *,
    is_error: bool = False,
    handle: str | None = None,
    raw_tokens: int | None = None,
    meta: dict[str, Any] | None = None,
) -> ToolResult:
    """A ToolResult with its token counts filled in for ``ctx.model``."""
    shaped = count_tokens(text, ctx.model)
    return ToolResult(
        text=text,
        is_error=is_error,
        handle=handle,
        raw_tokens=shaped if raw_tokens is None else raw_tokens,
        shaped_tokens=shaped,
        meta=dict(meta or {}),
    )


def error_result(message: str, model: str | None = None) -> ToolResult:
    """An error result for the model (``is_error`` set, tokens counted)."""
    n = count_tokens(message, model)
    return ToolResult(text=message, is_error=True, raw_tokens=n, shaped_tokens=n)
