"""The context item: the one unit of everything that can be sent to the model.

Every message, pinned rule, file copy, tool output, memo and summary is an item
with a stable short id, a category, a cached token count and a state, so the
UI can show it, the user can pin or evict it, and the assembler can explain
why it is or is not in a request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Category(StrEnum):
    """Where an item's tokens are accounted in the breakdown."""

    SYSTEM = "system"
    RULES = "rules"
    TOOLS = "tools"
    MEMORY = "memory"
    SUMMARY = "summary"
    FILES = "files"
    HISTORY = "history"
    RESULTS = "results"


#: The fixed order of categories in a request (DESIGN §1).
CATEGORY_ORDER: tuple[Category, ...] = (
    Category.SYSTEM,
    Category.RULES,
    Category.TOOLS,
    Category.MEMORY,
    Category.SUMMARY,
    Category.FILES,
    Category.HISTORY,
    Category.RESULTS,
)


class State(StrEnum):
    """Whether an item is in the window, and if not, where it went."""

    IN = "in"
    EVICTED = "evicted"
    SUMMARISED = "summarised"
    STALE = "stale"
    RELEASED = "released"


class Scope(StrEnum):
    """How long an item lives in the window."""

    TURN = "turn"
    SESSION = "session"
    GLOBAL = "global"


class Priority(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass
class ContextItem:
    """One piece of text that can be sent to the model."""

    id: str
    """Stable short id shown in the UI: m42, t17, f:src/app.py, memo3, rule2, sum1."""
    category: Category
    """Budget category the tokens count against."""
    content: str
    """The text as it would be sent (for tool results: the shaped view)."""
    tokens: int
    """Token count of ``content``, counted once when the item is created or changed."""
    role: str | None = None
    """Chat role for message items (user/assistant/tool); None for blocks."""
    pinned: bool = False
    """Pinned items are never evicted nor summarised."""
    priority: Priority = Priority.MEDIUM
    """A hint for what to drop first under pressure."""
    scope: Scope = Scope.SESSION
    """`turn` items (tool output) leave the window when their turn ends."""
    state: State = State.IN
    """In the window, evicted (restorable), summarised into another item, stale."""
    turn: int = 0
    """The user turn the item was created in."""
    provenance: dict[str, Any] = field(default_factory=dict)
    """Where it came from: message id, path + hash, tool_call_id, MCP server, memo id, handle."""
    summarised_into: str | None = None
    """The summary item that absorbed this one, when state is `summarised`."""
    tool_calls: list[dict[str, Any]] | None = None
    """OpenAI-format tool calls carried by an assistant message."""
    tool_call_id: str | None = None
    """For tool results: the call they answer."""
    name: str | None = None
    """For tool results: the tool's name."""
    created_at: float = field(default_factory=time.time)
    """Wall-clock creation time."""

    @property
    def is_message(self) -> bool:
        """True for chat messages (they carry a role and live in history)."""
        return self.role is not None

    @property
    def window_tokens(self) -> int:
        """Tokens this item costs in a request (a dropped turn-scoped result costs its stub)."""
        stub = self.provenance.get("stub_tokens")
        return int(stub) if stub is not None and not self.pinned else self.tokens

    @property
    def in_window(self) -> bool:
        """True if the item may be sent (pinned items always may)."""
        return self.pinned or self.state in (State.IN, State.STALE)

    def preview(self, width: int = 80) -> str:
        """One line of the content for lists; an assistant message's tool calls follow its text (one that
        only called tools showed an empty preview)."""
        flat = " ".join(self.content.split())
        calls = [_call_line(c) for c in self.tool_calls or ()]
        if calls:
            flat = " ".join([flat, *calls]) if flat else " ".join(calls)
        return flat if len(flat) <= width else flat[: width - 1] + "…"

    def to_row(self) -> dict[str, Any]:
        """A JSON-friendly dict (what `memory list --json` and the store use)."""
        return {
            "id": self.id,
            "category": str(self.category),
            "tokens": self.tokens,
            "pinned": self.pinned,
            "state": str(self.state),
            "role": self.role,
            "priority": str(self.priority),
            "scope": str(self.scope),
            "turn": self.turn,
            "provenance": self.provenance,
            "summarised_into": self.summarised_into,
            "tool_calls": self.tool_calls,
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "created_at": self.created_at,
            "content": self.content,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ContextItem:
        """Rebuild an item from `to_row` output (or a store row)."""
        return cls(
            id=row["id"],
            category=Category(row["category"]),
            content=row.get("content") or "",
            tokens=int(row.get("tokens") or 0),
            role=row.get("role"),
            pinned=bool(row.get("pinned")),
            priority=Priority(row.get("priority") or "medium"),
            scope=Scope(row.get("scope") or "session"),
            state=State(row.get("state") or "in"),
            turn=int(row.get("turn") or 0),
            provenance=dict(row.get("provenance") or {}),
            summarised_into=row.get("summarised_into"),
            tool_calls=row.get("tool_calls"),
            tool_call_id=row.get("tool_call_id"),
            name=row.get("name"),
            created_at=float(row.get("created_at") or time.time()),
        )


def _call_line(call: Any) -> str:
    """``→ read_file(path="a.py")`` for one OpenAI-format tool call (its arguments as sent, flattened)."""
    fn = call.get("function") if isinstance(call, dict) else None
    if not isinstance(fn, dict):
        return "→ (tool call)"
    args = fn.get("arguments")
    shown = " ".join(str(args).split()) if args not in (None, "", "{}") else ""
    if shown.startswith("{") and shown.endswith("}"):
        shown = shown[1:-1].strip()
    return f"→ {fn.get('name') or '?'}({shown})"


class IdAllocator:
    """Hands out short, stable, per-session ids by prefix (m1, m2, t1, memo1...).

    With a ``backend`` (the store's atomic counter: ``(prefix, floor) -> n``) every number comes from
    the store, so two processes writing one workspace never hand out the same id; ``next`` then only
    remembers the highest number seen, as a floor."""

    def __init__(self, start: dict[str, int] | None = None,
                 backend: Callable[[str, int], int] | None = None) -> None:
        self.next: dict[str, int] = dict(start or {})
        self.backend = backend

    def new(self, prefix: str) -> str:
        floor = self.next.get(prefix, 0)
        n = self.backend(prefix, floor) if self.backend is not None else floor + 1
        self.next[prefix] = n
        return f"{prefix}{n}"

    def observe(self, item_id: str) -> None:
        """Account for an id loaded from the store so new ids never collide."""
        prefix = item_id.rstrip("0123456789")
        digits = item_id[len(prefix):]
        if digits and ":" not in prefix:
            self.next[prefix] = max(self.next.get(prefix, 0), int(digits))
