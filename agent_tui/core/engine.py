"""The context engine: the one model of what is in the window and why.

It owns a session's items (messages, pins, files, memos, summaries, recalls),
keeps them in the store as they change, and assembles the exact request for
every model call under the budget plan.  It knows nothing of Textual or of
litellm: the agent loop, the TUI, headless mode and the benchmark all drive
this same object.

It composes the request's segments (DESIGN §1, :mod:`agent_tui.core.assembler`):
the head (system prompt, pins), the compaction block (:mod:`agent_tui.core.block`,
frozen between events), the append-only history (:mod:`agent_tui.core.history_index`,
file notes from :mod:`agent_tui.core.file_window`) and the tail
(:mod:`agent_tui.core.tail`).  History changes in the middle only at a compaction
event, which the cost model (:mod:`agent_tui.core.costmodel`) schedules and
:mod:`agent_tui.core.eventplan` fills; :mod:`agent_tui.core.engine_request` composes
each request from the segments and records it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from agent_tui.core.activefiles import ActiveFiles
from agent_tui.core.assembler import Assembly, Breakdown
from agent_tui.core.block import CompactionBlock
from agent_tui.core.budget import BudgetPlan, make_plan
from agent_tui.core.compaction import CompactionResult
from agent_tui.core.compactor import Compactor
from agent_tui.core.config import Settings
from agent_tui.core.costmodel import CacheCosts, Decision
from agent_tui.core.engine_request import compose, record, shorten_answered
from agent_tui.core.engine_store import EngineStore
from agent_tui.core.estimate import request_estimate
from agent_tui.core.file_window import FileWindow
from agent_tui.core.head import DEFAULT_SYSTEM, Head
from agent_tui.core.history_index import HistoryIndex
from agent_tui.core.instructions import Instructions, config_rules
from agent_tui.core.item_actions import EngineError, ItemActions
from agent_tui.core.items import Category, ContextItem, IdAllocator, Priority, Scope
from agent_tui.core.locked import locked
from agent_tui.core.memory import EvictionPlan
from agent_tui.core.memos import add_recalled, save_rolling_memo
from agent_tui.core.redact import default_redactor, register_secret
from agent_tui.core.released_heads import PREFIX as HEAD_PREFIX
from agent_tui.core.results import MemoryResultStore, ResultStore, SessionResults
from agent_tui.core.resume import load_items
from agent_tui.core.scripts_run import commands_of, scripts_run
from agent_tui.core.store_sync import StoreSync, adopt, id_backend
from agent_tui.core.summary import ExtractiveSummariser, Summariser, Summary
from agent_tui.core.task_statement import CONTINUES, closes, opens_task
from agent_tui.core.text import clean_text
from agent_tui.core.tokens import TokenCounter, counter_for
from agent_tui.core.tool_items import PREFIX as TOOL_PREFIX
from agent_tui.core.tool_items import ToolItems

__all__ = ["DEFAULT_SYSTEM", "ContextEngine", "EngineError", "GLOBAL_SESSION"]

GLOBAL_SESSION = "global"
"""Session id under which workspace-wide pins (project rules) are stored."""


@locked
class ContextEngine:
    """Items, memory, active files and assembly for one session, composed of its segments:
    ``head`` (system prompt, tools, pins), ``compactor`` (the compaction block and its events),
    ``history`` (the items, append-only between events) and ``window`` (the active files, shown
    by the block or by file notes appended to the history); ``actions`` are the user's."""

    def __init__(
        self,
        settings: Settings,
        store: EngineStore | None = None,
        session_id: str = "local",
        workspace: Path | None = None,
        counter: TokenCounter | None = None,
        summarisers: Sequence[Summariser] | None = None,
        log_requests: bool = True,
    ) -> None:
        self.lock = threading.RLock()
        """Held by each public method (``core.locked``), and by a caller reading the items directly from another thread."""
        self.redact = default_redactor()
        self.settings = settings.for_model()
        self.plan: BudgetPlan = make_plan(self.settings)
        self.counter = counter or counter_for(self.settings.model)
        self.store = store
        self.session_id = session_id
        self.results: ResultStore = SessionResults(store, session_id, self) if store else MemoryResultStore()
        self.ids = IdAllocator(backend=id_backend(store, session_id, GLOBAL_SESSION))
        self._sync = StoreSync(store, [session_id, GLOBAL_SESSION]) if store is not None else None
        self.summarisers: list[Summariser] = list(summarisers) if summarisers is not None else [ExtractiveSummariser()]
        self.turn = 0
        self.step = 0
        self.steps_total = 0
        """Model steps (assistant messages) over the whole session: the clock tool outputs age by."""
        self.quiet_turns: set[int] = set()
        """Turns that ended with no assistant message (a "continue" typed before the agent answered,
        a command's output pasted in): they do not age the active files."""
        self.worked_turn = 0
        """The turn of the latest assistant message."""
        self.task_item: str | None = None
        """The task statement (``core/task_statement``): events keep it verbatim until a message opens a new task."""
        self.answered = False
        """The latest assistant message calls no tool: the agent answered, so the user's next message opens a task."""
        self.last: Assembly | None = None
        self.stuck: dict[str, str] = {}
        """Status lines sent joined to a history message, by item id: that message keeps its line until the
        block is rebuilt (a compaction event, a resume), so the request only ever grows at its end (core/tail)."""
        self.log_requests = log_requests
        self.warnings: list[str] = [self.plan.warning] if self.plan.warning else []
        self.head_warned = False
        """The crowded-window warning was given (once a session: core/engine_request.record)."""
        self.reasoning_cost: Callable[[ContextItem], int] | None = None
        """Tokens of provider reasoning the next request sends back with an assistant message (set by
        the agent, which knows the provider: DeepSeek's thinking mode resends every turn's, Claude its
        tool loop's); the compaction trigger counts them, as the provider does."""
        self.head = Head(self.counter)
        """The stable head: system prompt, tool definitions, pins (core/head)."""
        self.history = HistoryIndex()
        """The session's items and the window scan (core/history_index)."""
        self.window = FileWindow(self, workspace)
        """The active files and what shows each (core/file_window)."""
        self.compactor = Compactor(self)
        """The compaction block, the rolling summary and the events (core/compactor)."""
        self.actions = ItemActions(self)
        """The user's pin / unpin / evict / restore (core/item_actions)."""
        self.instructions = Instructions(workspace) if workspace is not None else None
        """AGENTS.md / CLAUDE.md files as pinned rule items (core/instructions)."""
        config_rules(self)
        if self.instructions is not None:
            self.instructions.refresh(self)  # loaded now, so their warnings are known before the first step

    # the segments' state, under the names the rest of the program uses ----------------------
    @property
    def items(self) -> dict[str, ContextItem]:
        return self.history.items

    @property
    def order(self) -> list[str]:
        return self.history.order

    @property
    def files(self) -> ActiveFiles:
        return self.window.files

    @property
    def system(self) -> ContextItem:
        return self.head.system

    @property
    def tool_items(self) -> ToolItems:
        return self.head.tool_items

    @property
    def block(self) -> CompactionBlock:
        return self.compactor.block

    @property
    def summary(self) -> Summary | None:
        return self.compactor.summary

    @property
    def summary_item(self) -> ContextItem | None:
        return self.compactor.summary_item

    @property
    def compactions(self) -> list[CompactionResult]:
        return self.compactor.results

    @property
    def decision(self) -> Decision | None:
        return self.compactor.decision

    @property
    def costs(self) -> CacheCosts:
        return self.compactor.costs

    # item plumbing ---------------------------------------------------------------
    def _new_item(self, prefix: str, category: Category, content: str, **kw: Any) -> ContextItem:
        content = clean_text(self.redact(content))
        item = ContextItem(id=self.ids.new(prefix), category=category, content=content,
                           tokens=self.counter.count(content), turn=self.turn, **kw)
        return item

    def _home(self, item: ContextItem) -> str:
        """Project rules live under the workspace-wide session; everything else in this one."""
        if item.category == Category.RULES and item.scope == Scope.GLOBAL:
            return GLOBAL_SESSION
        return self.session_id

    def _add(self, item: ContextItem, message: bool = False) -> ContextItem:
        self.history.add(item)
        if self.store is not None:
            if message:
                self.store.append_message(self.session_id, item)
            self.store.save_item(self._home(item), item, last=True)
        return item

    def _store_batch(self) -> AbstractContextManager[Any]:
        """The store's transaction for many writes, when it offers one (MemoryStore.batch)."""
        batch = getattr(self.store, "batch", None)
        return batch() if batch is not None else nullcontext()

    def _save(self, item: ContextItem) -> None:
        self.history.touched(item)  # every change of state goes through here: the window scan is stale
        if self.store is not None:
            self.store.save_item(self._home(item), item)

    def get(self, item_id: str) -> ContextItem:
        if item_id == "sys":
            return self.system
        if item_id in self.items:
            return self.items[item_id]
        if item_id.startswith(TOOL_PREFIX) and item_id in self.tool_items.items:
            return self.tool_items.items[item_id]
        if item_id.startswith("f:"):
            af = self.files.files.get(item_id[2:])
            if af is not None:
                return self.window.file_item(af)
            if item_id in self.window.ledger.released:
                return self.window.ledger.released[item_id]
        if item_id.startswith(HEAD_PREFIX) and (head := self.window.heads.get(item_id)) is not None:
            return head
        raise EngineError(f"no item {item_id!r} (see the inspector or `agent-tui memory list`)")

    def all_items(self) -> list[ContextItem]:
        """Every item of the session, in creation order, active files included."""
        out = [self.system] + [self.items[i] for i in self.order]
        out += [self.window.file_item(af) for af in self.files.files.values()]
        out += [it for it in self.window.ledger.released.values() if it.provenance.get("path") not in self.files.files]
        out += list(self.window.heads.items.values())
        out += list(self.tool_items.items.values())
        return out

    # building the session --------------------------------------------------------
    def set_system_prompt(self, text: str) -> None:
        self.head.set_prompt(text)

    def pin_rule(self, text: str, item_id: str | None = None) -> ContextItem:
        """A project rule pinned into every request."""
        item = self._new_item("rule", Category.RULES, text, pinned=True, scope=Scope.GLOBAL,
                              priority=Priority.HIGH)
        if item_id:
            item.id = item_id
            self.ids.observe(item_id)
        return self._add(item)

    def add_user(self, text: str, continues: bool | None = None) -> ContextItem:
        """A user message; starts a new turn (and a new task unless it continues one: ``core/task_statement``)."""
        if self.turn > 0:
            if self.worked_turn != self.turn:
                self.quiet_turns.add(self.turn)
            self.end_turn()
        self.turn += 1
        self.step = 0
        marked = {"provenance": {CONTINUES: continues}} if continues is not None else {}
        item = self._new_item("m", Category.HISTORY, text, role="user", priority=Priority.HIGH, **marked)
        if self.task_item is None or opens_task(self.answered, continues):
            self.task_item = item.id
        self.answered = False
        return self._add(item, message=True)

    def add_note(self, text: str, kind: str, undone: Sequence[str] = ()) -> ContextItem:
        """Tell the model what the user did outside its tools (``kind``, e.g. ``undo``): a user-role note
        appended to the history, never taken for the task.  ``undone``: the files an undo put back (a memo then
        no longer reports them as changed)."""
        prov: dict[str, Any] = {"note": kind, **({"undone": list(undone)} if undone else {})}
        item = self._new_item("m", Category.HISTORY, text, role="user", priority=Priority.HIGH, provenance=prov)
        return self._add(item, message=True)

    def add_assistant(self, text: str, tool_calls: list[dict[str, Any]] | None = None,
                      provenance: dict[str, Any] | None = None) -> ContextItem:
        self.steps_total += 1
        self.worked_turn = self.turn
        prov = {**(provenance or {}), "step": self.steps_total}
        item = self._new_item("m", Category.HISTORY, text or "", role="assistant",
                              tool_calls=self._redact_calls(tool_calls), provenance=prov)
        for command in commands_of(tool_calls):
            self.files.note_ran(scripts_run(command))
        named = [text or ""] + [str((c.get("function") or {}).get("arguments") or "") for c in tool_calls or ()]
        self.files.touch_named("\n".join(named), self.steps_total)
        self.answered = bool(closes(item))
        return self._add(item, message=True)

    def _redact_calls(self, calls: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        if not calls:
            return None
        out = []
        for c in calls:
            fn = dict(c.get("function") or {})
            fn["arguments"] = self.redact(str(fn.get("arguments") or ""))
            out.append({**c, "function": fn})
        return out

    def add_secret(self, value: str | None) -> None:
        """Also mask ``value`` (e.g. an API key given in config rather than the environment)."""
        if value:
            register_secret(value)
            self.redact = default_redactor()

    def add_tool_result(self, tool_call_id: str, name: str, content: str, *, raw: str | None = None,
                        scope: Scope | str = Scope.TURN, provenance: dict[str, Any] | None = None) -> ContextItem:
        """A tool output (``content`` is what the model sees; ``raw`` the whole output if shaped)."""
        prov = {**(provenance or {}), "step": self.steps_total}
        if raw is not None and raw != content and "handle" not in prov:
            prov["handle"] = self.results.put(raw, {"tool": name, "call": tool_call_id})
            prov["raw_tokens"] = self.counter.count(raw)
        item = self._new_item("t", Category.RESULTS, content, role="tool", tool_call_id=tool_call_id,
                              name=name, scope=Scope(scope), provenance=prov)
        if closes(item):
            self.answered = True  # (the user stopped the turn: their next message is a new request)
        self._add(item, message=True)
        path = prov.get("path")
        if path and (name == "read_file" or prov.get("file_read")) and not prov.get("error"):
            self.window.note_shown(str(path), item.id, outline=bool(prov.get("partial")))
        return item

    def end_turn(self) -> None:
        """The turn is over: release idle files.  Its turn-scoped tool outputs stay as they were
        sent (the history is append-only); the next compaction event evicts them."""
        after = self.settings.memory.release_files_after
        for af in self.files.release_idle(self.turn + 1, after, self.quiet_turns):
            self.window.release(af, f"released: untouched for {after} turns")
        self.window.flush()

    def end_task(self) -> None:
        """The task is done: release every active file."""
        for af in self.files.release_all():
            self.window.release(af, "released: the task ended (pinned files stay)", head=False)
        self.window.heads.clear("the task ended")
        self.window.flush()
        self.task_item = None
        self.answered = True

    # memos and recall -----------------------------------------------------------------
    def save_memo(self, text: str, kind: str = "manual", show_now: bool | None = None,
                  by_model: bool = False) -> ContextItem:
        """The task's rolling memo, updated in place within a task (core/memos).  ``show_now``
        rebuilds the compaction block so the next request carries it (one cache break, like a pin):
        by default for a memo the user asks for, or before the first request; an automatic memo, or
        one the model wrote with save_memo (its call's arguments are in the history already), waits
        for the next compaction event."""
        item = save_rolling_memo(self, text, kind, by_model)
        if show_now is None:
            show_now = self.last is None or kind not in ("auto", "pre-compaction")
        if show_now:
            self.rebuild_block()
        return item

    def add_recalled(self, hits: Sequence[dict[str, Any]]) -> list[ContextItem]:
        """Recalled memories for this turn, labelled for reference: a note appended to the history
        (after the user's message), evicted by the next event like any other (never a memo the
        request already carries)."""
        return add_recalled(self, hits)

    # compaction ---------------------------------------------------------------------------
    def prepare_step(self) -> None:
        """Before a model call: adopt what another process wrote to the store, re-read files
        changed on disk and release idle read-only files.  Nothing already sent changes here
        (aging happens only inside an event).  Idempotent."""
        self.sync_from_store()
        config_rules(self)
        if self.instructions is not None:
            self.instructions.refresh(self)
        self.files.refresh()
        m = self.settings.memory
        for af in self.files.release_idle_reads(self.steps_total, m.release_reads_after_steps):
            self.window.release(af, f"released: only read, untouched for {m.release_reads_after_steps} steps")

    def request_estimate(self) -> int:
        """Tokens the next request would have now (core/estimate)."""
        return request_estimate(self)

    def sync_from_store(self) -> list[ContextItem]:
        """Adopt the rules, pins and evictions another process wrote to the store (core/store_sync)."""
        if self._sync is None:
            return []
        rows = self._sync.changed()
        touched = adopt(self.items, self.order, rows) if rows else []
        if rows and self.tool_items.adopt([r for r in rows if r.id.startswith(TOOL_PREFIX)]):
            self.history.version += 1
        if rows and self.window.ledger.adopt(self, rows):
            self.history.version += 1
        if touched:
            self.history.reset()  # states changed under the incremental index: rescan once
        return touched

    def plan_compaction(self, force: bool = False) -> EvictionPlan | None:
        """The batch a compaction event would evict now, or None (core/compactor)."""
        return self.compactor.plan(force)

    def apply_compaction(self, plan: EvictionPlan, summary: Summary, summariser: str = "",
                         input_tokens: int = 0, whole: bool | None = None) -> CompactionResult:
        """Mark the plan's items summarised into a new summary segment (core/compactor)."""
        return self.compactor.apply(plan, summary, summariser, input_tokens, whole)

    def compact(self, force: bool = False, chain: Sequence[Summariser] | None = None) -> CompactionResult | None:
        """Evict a batch into the rolling summary with the summariser chain (sync)."""
        return self.compactor.compact(force, chain)

    def rebuild_block(self) -> None:
        """Freeze the compaction block now (a compaction event, a resume, a memo shown now)."""
        self.compactor.rebuild_block()

    # active files and user actions (core/file_window, core/item_actions) ---------------------
    def note_file_read(self, path: str, content: str, *, edited: bool = False, shown_by: str | None = None,
                       outline: bool = False, whole: bool = False,
                       lines: list[tuple[int, int]] | None = None) -> ContextItem:
        """The model now knows ``content`` of ``path`` (see FileWindow.note_read)."""
        return self.window.note_read(path, content, edited=edited, shown_by=shown_by, outline=outline, whole=whole,
                                     lines=lines)

    def note_file_edit(self, path: str, content: str, *, shown_by: str | None = None,
                       kind: str = "edit") -> ContextItem:
        """An edit or write made ``content`` current (``shown_by``: a call that shows it whole;
        ``kind``: ``create``, ``write`` or ``edit``, see ``ToolContext.note_edit``)."""
        return self.window.note_edit(path, content, shown_by=shown_by, kind=kind)

    def note_shown(self, path: str, item_id: str, *, outline: bool = False) -> None:
        """Tool output ``item_id`` showed the model the current version of ``path`` (a read)."""
        self.window.note_shown(path, item_id, outline=outline)

    def last_seen_hash(self, path: str) -> str | None:
        return self.files.last_seen_hash(path)

    def seen_part(self, path: str) -> list[tuple[int, int]] | None:
        return self.files.seen_part(path)

    def request_sent(self, asm: Assembly) -> None:
        """``asm`` goes to the model: its answer may be based on the files as it shows them
        (``ActiveFiles.mark_sent``; an assembly alone, a preview, moves nothing)."""
        self.files.mark_sent(asm.file_views)

    def pin(self, item_id: str) -> ContextItem:
        return self.actions.pin(item_id)

    def unpin(self, item_id: str) -> ContextItem:
        return self.actions.unpin(item_id)

    def evict(self, item_id: str) -> ContextItem:
        return self.actions.evict(item_id)

    def restore(self, item_id: str) -> ContextItem:
        """Bring an item back verbatim (see ItemActions.restore)."""
        return self.actions.restore(item_id)

    # assembly -------------------------------------------------------------------------------
    def tools_tokens(self, tools: Sequence[dict[str, Any]] | None) -> int:
        """What ``tools`` cost in a request: the sum of their items (disabled tools cost nothing)."""
        self.head.tools_tokens = self.tool_items.tokens(self, tools)
        return self.head.tools_tokens

    def assemble(self, tools: Sequence[dict[str, Any]] | None = None, *, auto_compact: bool = True,
                 status: bool = True, status_note: str = "", log: bool = True) -> Assembly:
        """The exact request for the next model call (a compaction event first if one pays;
        core/engine_request composes it and, unless it is a preview, ``log=False``, records it)."""
        self.tools_tokens(tools)
        self.prepare_step()
        compaction = self.compact() if auto_compact else None
        asm = compose(self, tools, status=status, status_note=status_note)
        bd = asm.breakdown
        if log and bd.over_budget and shorten_answered(self, need=bd.total - bd.input_budget):
            asm = compose(self, tools, status=status, status_note=status_note)  # (before a server refuses it)
        asm.compaction = compaction
        if log:
            record(self, asm)
        return asm

    def breakdown(self) -> Breakdown:
        """The breakdown of the latest assembly (assembling once if there is none)."""
        return (self.last or self.assemble(auto_compact=False, log=False)).breakdown

    # loading -------------------------------------------------------------------------------
    def load(self, items: Sequence[ContextItem]) -> None:
        """Rebuild state from stored items (resume after a crash or a restart; core/resume)."""
        load_items(self, items)
