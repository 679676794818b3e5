"""The session behind the UI: one Agent and its Workspace, and the engine operations the UI offers.

Nothing here imports Textual: it is the thin, synchronous glue between widgets
and the core (pin, evict, re-assemble, read the store), so the app can run each
call in a worker and tests can check it directly.  Heavy modules (the agent,
the tools, sqlite-utils) are imported when a session is opened — in a worker,
after the first frame — never when the UI module is imported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.ui.rows import ItemRow, build_rows

if TYPE_CHECKING:
    from agent_tui.agent.events import Event
    from agent_tui.agent.loop import Agent, Approver
    from agent_tui.agent.session import SessionOptions
    from agent_tui.core.engine import ContextEngine
    from agent_tui.core.items import ContextItem
    from agent_tui.store.workspace import Workspace
    from agent_tui.tools.undo_journal import UndoReport

ITEM_ACTIONS: tuple[str, ...] = ("pin", "unpin", "evict", "restore")

MIN_COMPACT_TOKENS = 150
"""Below this a summary (with its header) would be as big as what it replaces: compaction is refused."""

McpFactory = Callable[[Path, Any], Any]
"""Builds an MCP manager for a workspace and settings (None when nothing is configured)."""


class SessionController:
    """One open session: the agent, its workspace, and what the UI may do with them."""

    def __init__(self, agent: Agent, workspace: Workspace, options: SessionOptions, mcp: Any | None = None) -> None:
        self.agent = agent
        self.ws = workspace
        self.options = options
        self.mcp = mcp
        self.lock = agent.engine.lock
        """The engine's own lock: held by worker threads across several engine calls that belong together."""
        self.session_lock: Any = None
        """This process's hold on the session (``store.session_lock``): ``shared`` when another has it open."""

    @classmethod
    def open(cls, root: Path, options: SessionOptions, approver: Approver | None,
             mcp: Any | None = None) -> SessionController:
        """Build the agent for ``options`` (blocking: call it from a worker thread)."""
        from agent_tui.agent.session import build_agent
        from agent_tui.core.store_owner import agent_subdir
        from agent_tui.store.session_lock import SessionLock

        agent, ws = build_agent(root, options, approver, mcp=mcp)
        ctl = cls(agent, ws, options, mcp)
        ctl.session_lock = SessionLock(agent_subdir(root, "locks", make=True), ctl.session_id)
        return ctl

    def attach_mcp(self, manager: Any) -> None:
        """Give the agent the MCP servers' tools (the manager outlives session switches)."""
        self.mcp = manager
        self.agent.runner.mcp = manager
        manager.store = self.engine.results

    def compactable_tokens(self) -> int:
        """Tokens a compaction would fold now (0: no finished rounds outside the latest steps)."""
        with self.lock:
            plan = self.engine.plan_compaction(force=True)
            return sum(int(i.tokens) for i in plan.items) if plan is not None else 0

    async def compact(self, focus: str = "") -> list[Event]:
        """Compact now (memo, then summary); the events say what happened ([] if nothing to fold)."""
        return await self.agent.compact(force=True, focus=focus)

    def undo_last(self) -> UndoReport:
        """Take back the files the agent's file tools changed in the latest turn not yet undone
        (blocking: call it from a worker thread; see ``tools/undo_journal.py``)."""
        report = self.agent.ctx.undo_journal().undo_last()
        if report.changed:  # (a file no longer active gets no note of its own that it changed on disk)
            self.engine.add_note(report.model_note(), "undo", undone=report.changed)
        return report

    # facts ------------------------------------------------------------------------------
    @property
    def engine(self) -> ContextEngine:
        return self.agent.engine

    @property
    def session_id(self) -> str:
        return self.engine.session_id

    @property
    def model(self) -> str:
        return self.engine.settings.model or "(no model)"

    @property
    def root(self) -> Path:
        return self.ws.root

    def item_ids(self) -> list[str]:
        """Ids the user can act on (completion for /pin, /evict ...)."""
        return [i.id for i in self.engine.all_items() if i.id != "sys" and not i.id.startswith("f:")]

    # assembly ---------------------------------------------------------------------------
    def schemas(self) -> list[dict[str, Any]]:
        return self.agent.runner.schemas(self.engine)

    def assemble(self) -> dict[str, Any]:
        """Assemble (and log) the request as it stands now; returns its breakdown.

        Logged so the gauge, the request view and `agent-tui context --json` all
        describe the same latest assembly.
        """
        asm = self.engine.assemble(self.schemas(), auto_compact=False)
        return asm.breakdown.to_json()

    def next_request_tokens(self) -> int:
        """What the next request would hold now (assembled, not logged): an item action says what it changed."""
        return self.engine.assemble(self.schemas(), auto_compact=False, log=False).breakdown.total

    def breakdown(self) -> dict[str, Any] | None:
        last = self.engine.last
        return last.breakdown.to_json() if last is not None else None

    # user actions on items ----------------------------------------------------------------
    def act(self, action: str, item_id: str) -> ContextItem:
        """pin, unpin, evict or restore ``item_id`` (EngineError with a clear message if it cannot)."""
        if action not in ITEM_ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        return getattr(self.engine, action)(item_id)

    def left_out(self, item_id: str) -> str | None:
        """Why the latest assembly left ``item_id`` out (None when it is in, or was not considered)."""
        return self.engine.actions.left_out(item_id)

    def pin_rule(self, text: str) -> ContextItem:
        """Pin an item by id (``f:path`` pins a file's current text), else ``text`` as a project rule
        (every session of this workspace); an id that names nothing is an EngineError."""
        from agent_tui.core.pinning import pin_target

        return pin_target(self.engine, text, self.engine.pin_rule)

    def set_compact_at(self, share: float) -> tuple[float, float]:
        """Move the compaction point (the fresh-session point stays above it); returns both."""
        plan = self.engine.plan
        fresh = max(plan.fresh_at, min(0.99, share + 0.05))
        self.engine.plan = dataclasses.replace(plan, compact_at=share, fresh_at=fresh)
        return share, fresh

    # reading ------------------------------------------------------------------------------
    def rows(self) -> list[ItemRow]:
        items = self.engine.all_items()
        last = self.engine.last
        trace = last.trace if last is not None else None
        return build_rows(items, trace, self.engine.turn, last.breakdown.total if last is not None else None)

    def sent_tokens(self, item_id: str) -> int | None:
        """What ``item_id`` cost in the latest request (its text plus message framing, as the inspector's
        "sent" column shows it); None when it was not in it."""
        last = self.engine.last
        costs = [t.tokens for t in (last.trace if last is not None else ()) if t.item_id == item_id and t.included]
        return max(costs) if costs else None

    def sent_text(self, item_id: str) -> str | None:
        """The text of the latest request's message that carried ``item_id``, when it is more than the item's
        own (the status line appended to the last message, a note merged into the user's turn); None when the
        message was the item's text alone, or it was not found."""
        item = self.engine.get(item_id)
        last = self.engine.last
        if last is None or not item.content:
            return None
        for m in reversed(last.messages):  # (the newest first: "yes" is also inside an earlier "yes, do it")
            content = m.get("content")
            if isinstance(content, str) and m.get("role") == (item.role or m.get("role")) and item.content in content:
                return content if content != item.content else None
        return None

    def history_copies(self, item_id: str) -> list[str]:
        """The history messages that also show an active file's text (core/file_items)."""
        from agent_tui.core.file_items import history_copies

        return history_copies(self.engine, item_id)

    def partial_view(self, item_id: str) -> str:
        """What part of an active file the window shows, when not all of it ("" otherwise)."""
        from agent_tui.core.file_items import partial_view

        return partial_view(self.engine, item_id)

    def item(self, item_id: str) -> ContextItem:
        return self.engine.get(item_id)

    def whole_output(self, item: ContextItem) -> str | None:
        """The whole output behind a shaped or stubbed tool result, if stored."""
        handle = item.provenance.get("handle")
        return self.engine.results.get(handle) if handle else None

    def requests(self, limit: int = 2) -> list[dict[str, Any]]:
        """The latest logged assemblies of this session, newest first (store rows)."""
        return self.ws.store.assemblies(self.session_id, limit=limit)

    def request_totals(self, limit: int) -> list[int]:
        """The tokens of this session's last ``limit`` requests, oldest first (blocking: from a worker)."""
        return self.ws.store.request_totals(self.session_id, limit)

    def memos(self) -> list[dict[str, Any]]:
        """The workspace's latest memo rows, each with ``version`` and ``versions`` of its memo item (a
        rolling memo's texts share one id) and ``session_id`` — what tells two rows of memo1 apart."""
        rows = self.ws.store.memos(limit=50)
        versions = self.ws.store.memo_versions([r["id"] for r in rows])
        for r in rows:
            r["version"], r["versions"] = versions.get(r["id"], (1, 1))
        return rows

    def ensure_title(self, text: str) -> str:
        """Give the session a title from its first message (kept if it has one); returns the title."""
        return self.ws.store.ensure_title(self.session_id, text)

    def sessions(self) -> list[dict[str, Any]]:
        return self.ws.sessions(limit=50)

    def transcript(self) -> list[ContextItem]:
        """The session's chat messages in order (to redraw the conversation on resume)."""
        return [self.engine.items[i] for i in self.engine.order if self.engine.items[i].role is not None]

    def close(self) -> None:
        if self.session_lock is not None:
            self.session_lock.release()
        self.ws.close()
