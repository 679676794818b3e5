"""Turn the many ways an MCP call can fail into one clear, classified error.

The model and the user both need to know *what* went wrong in a sentence — the server
timed out, died, was never reachable, or answered nonsense — not a pydantic dump or an
``ExceptionGroup``.  ``kind`` lets the caller decide (retry, restart, report).
"""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationError

ErrorKind = Literal[
    "timeout", "died", "down", "malformed", "protocol", "unknown_tool", "bad_arguments"
]


class McpCallError(Exception):
    """A failed MCP request, with a one-line message fit for the model."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message


def leaf_exceptions(exc: BaseException) -> list[BaseException]:
    """The non-group exceptions inside ``exc`` (itself when it is not a group)."""
    if isinstance(exc, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in exc.exceptions:
            found.extend(leaf_exceptions(inner))
        return found
    return [exc]


def describe(exc: BaseException) -> str:
    """A one-line description of ``exc`` (groups unwrapped, validation errors summarised)."""
    leaves = leaf_exceptions(exc)
    first = leaves[0] if leaves else exc
    if isinstance(first, ValidationError):
        errors = first.errors()
        where = ".".join(str(p) for p in errors[0]["loc"]) if errors else "?"
        what = errors[0]["msg"] if errors else str(first)
        return f"malformed message ({first.error_count()} schema errors; first at {where}: {what})"
    text = str(first).strip().splitlines()[0] if str(first).strip() else ""
    name = type(first).__name__
    return f"{name}: {text}" if text else name
