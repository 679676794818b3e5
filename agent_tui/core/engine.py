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
:mod:`agent_tui.core.eventplan` fills.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core import aging
from agent_tui.core.activefiles import ActiveFiles
from agent_tui.core.assembler import Assembly, AssemblyInput, Breakdown, assemble
from agent_tui.core.block import CompactionBlock
from agent_tui.core.budget import BudgetPlan, make_plan
from agent_tui.core.compaction import CompactionResult, summarise_plan
from agent_tui.core.config import Settings
from agent_tui.core.costmodel import Decision, costs_for, decide
from agent_tui.core.eventplan import kept_tokens, plan_event
from agent_tui.core.file_items import FileLedger
from agent_tui.core.file_window import ActiveFileWindow
from agent_tui.core.history_index import HistoryIndex
from agent_tui.core.instructions import Instructions
from agent_tui.core.item_actions import EngineError, ItemActions
from agent_tui.core.items import Category, ContextItem, IdAllocator, Priority, Scope, State
from agent_tui.core.memory import EvictionPlan
from agent_tui.core.memos import drop_memos_in_window, save_rolling_memo
from agent_tui.core.redact import default_redactor, register_secret
from agent_tui.core.results import MemoryResultStore, ResultStore
from agent_tui.core.store_sync import StoreSync, adopt, id_backend
from agent_tui.core.summary import ExtractiveSummariser, Summariser, Summary, extract_decisions
from agent_tui.core.text import clean_text
from agent_tui.core.tokens import MESSAGE_OVERHEAD, TokenCounter, counter_for
from agent_tui.core.tool_items import PREFIX as TOOL_PREFIX
from agent_tui.core.tool_items import ToolItems

__all__ = ["ContextEngine", "EngineError", "GLOBAL_SESSION"]

DEFAULT_SYSTEM = "You are a careful coding agent."
GLOBAL_SESSION = "global"
"""Session id under which workspace-wide pins (project rules) are stored."""


class EngineStore(Protocol):
    """What the engine needs from persistence (agent_tui.store.MemoryStore provides it)."""

    def append_message(self, session_id: str, item: ContextItem) -> None: ...
    def save_item(self, session_id: str, item: ContextItem, seq: int | None = None) -> None: ...
    def save_summary(self, session_id: str, item_id: str, content: str, data: str, covers: list[str]) -> None: ...
    def add_decisions(self, session_id: str, entries: Sequence[tuple[str, str]]) -> None: ...
    def save_memo(self, session_id: str, item_id: str, content: str, kind: str) -> None: ...
    def log_assembly(self, session_id: str, turn: int, step: int, breakdown: dict[str, Any],
                     item_ids: list[str], trace: list[dict[str, Any]], request: dict[str, Any]) -> None: ...
    def load_items(self, session_id: str) -> list[ContextItem]: ...
    def put(self, content: str, meta: dict[str, Any] | None = None, session_id: str = "") -> str: ...
    def get(self, handle: str) -> str | None: ...


class ContextEngine(ItemActions, HistoryIndex, ActiveFileWindow):
    """Items, memory, active files and assembly for one session."""

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
        self.redact = default_redactor()
        self.settings = settings.for_model()
        self.plan: BudgetPlan = make_plan(self.settings)
        self.counter = counter or counter_for(self.settings.model)
        self.store = store
        self.session_id = session_id
        self.results: ResultStore = _SessionResults(store, session_id, self) if store else MemoryResultStore()
        self.ids = IdAllocator(backend=id_backend(store, session_id, GLOBAL_SESSION))
        self._sync = StoreSync(store, [session_id, GLOBAL_SESSION]) if store is not None else None
        self.items: dict[str, ContextItem] = {}
        self.order: list[str] = []
        self.files = ActiveFiles(workspace)
        self.summary: Summary | None = None
        self.summary_item: ContextItem | None = None
        self.summarisers: list[Summariser] = list(summarisers) if summarisers is not None else [ExtractiveSummariser()]
        self.turn = 0
        self.step = 0
        self.last: Assembly | None = None
        self.log_requests = log_requests
        self.compactions: list[CompactionResult] = []
        self.warnings: list[str] = [self.plan.warning] if self.plan.warning else []
        self._failed_at_len = -1
        self.tool_items = ToolItems()
        """Tool definitions as items (``tool:NAME``): their tokens, and the ones the user disabled."""
        self._tools_tokens = 0
        """Tokens of the tool definitions the latest request sent (the cost model counts them)."""
        self._file_cache: dict[str, tuple[tuple[Any, ...], ContextItem]] = {}
        self._file_releases: list[tuple[ContextItem, str]] = []
        self._file_ledger = FileLedger()
        """Which active files the store holds (they persist with the session: core/file_items)."""
        self.instructions = Instructions(workspace) if workspace is not None else None
        """AGENTS.md / CLAUDE.md files as pinned rule items (core/instructions)."""
        self.steps_total = 0
        """Model steps (assistant messages) over the whole session: the clock tool outputs age by."""
        self.block = CompactionBlock()
        """The compaction block, frozen between events."""
        self.costs = costs_for(self.settings)
        """Cache prices the cost model weighs compaction with."""
        self.decision: Decision | None = None
        """The cost model's latest answer (why the last request did or did not compact)."""
        self._shown: dict[str, str] = {}
        """Per active file, the rendered text the request already shows (block or a file note)."""
        self._shown_raw: dict[str, str | None] = {}
        """Per active file, the raw text the request shows (what a change-region note diffs against)."""
        self._shown_note: dict[str, str | None] = {}
        self._known_raw: dict[str, str] = {}
        """Per active file, the raw text the engine knew at the last request (an edit's note diffs
        against it when the file is too large to show)."""
        """Per active file, the history item showing it (a note or a read output), None for the block."""
        self._event_step = 0
        self._event_size = 0
        self._reset_history()
        self.system = ContextItem(id="sys", category=Category.SYSTEM, content=DEFAULT_SYSTEM,
                                  tokens=self.counter.count(DEFAULT_SYSTEM), pinned=True, scope=Scope.GLOBAL)
        if self.instructions is not None:
            self.instructions.refresh(self)  # loaded now, so their warnings are known before the first step

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
        self._version += 1
        self.items[item.id] = item
        self.order.append(item.id)
        if self.store is not None:
            if message:
                self.store.append_message(self.session_id, item)
            self.store.save_item(self._home(item), item, seq=len(self.order))
        return item

    def _store_batch(self) -> AbstractContextManager[Any]:
        """The store's transaction for many writes, when it offers one (MemoryStore.batch)."""
        batch = getattr(self.store, "batch", None)
        return batch() if batch is not None else nullcontext()

    def _save(self, item: ContextItem) -> None:
        self._version += 1  # every change of state goes through here: the window cache is stale
        g = self._hgroups.where.get(item.id)
        if g is not None and g < self._scan_from:
            self._scan_from = g
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
                return self._file_item(af)
            if item_id in self._file_ledger.released:
                return self._file_ledger.released[item_id]
        raise EngineError(f"no item {item_id!r} (see the inspector or `agent-tui memory list`)")

    def all_items(self) -> list[ContextItem]:
        """Every item of the session, in creation order, active files included."""
        out = [self.system] + [self.items[i] for i in self.order]
        out += [self._file_item(af) for af in self.files.files.values()]
        out += [it for it in self._file_ledger.released.values() if it.provenance.get("path") not in self.files.files]
        out += list(self.tool_items.items.values())
        return out

    # building the session --------------------------------------------------------
    def set_system_prompt(self, text: str) -> None:
        self.system.content = clean_text(text)
        self.system.tokens = self.counter.count(self.system.content)

    def pin_rule(self, text: str, item_id: str | None = None) -> ContextItem:
        """A project rule pinned into every request."""
        item = self._new_item("rule", Category.RULES, text, pinned=True, scope=Scope.GLOBAL,
                              priority=Priority.HIGH)
        if item_id:
            item.id = item_id
            self.ids.observe(item_id)
        return self._add(item)

    def add_user(self, text: str) -> ContextItem:
        """A user message; starts a new turn."""
        if self.turn > 0:
            self.end_turn()
        self.turn += 1
        self.step = 0
        item = self._new_item("m", Category.HISTORY, text, role="user", priority=Priority.HIGH)
        return self._add(item, message=True)

    def add_assistant(self, text: str, tool_calls: list[dict[str, Any]] | None = None,
                      provenance: dict[str, Any] | None = None) -> ContextItem:
        self.steps_total += 1
        prov = {**(provenance or {}), "step": self.steps_total}
        item = self._new_item("m", Category.HISTORY, text or "", role="assistant",
                              tool_calls=self._redact_calls(tool_calls), provenance=prov)
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
        self._add(item, message=True)
        path = prov.get("path")
        if path and (name == "read_file" or prov.get("file_read")) and not prov.get("error"):
            self.note_shown(str(path), item.id, outline=bool(prov.get("partial")))
        return item

    def end_turn(self) -> None:
        """The turn is over: release idle files.  Its turn-scoped tool outputs stay as they were
        sent (the history is append-only); the next compaction event evicts them."""
        after = self.settings.memory.release_files_after
        for af in self.files.release_idle(self.turn + 1, after):
            self._file_releases.append((self._file_item(af), f"released: untouched for {after} turns"))
        self._file_ledger.flush(self)

    def _stub(self, item: ContextItem, why: str) -> None:
        """Replace a tool output in the window by a stub; the whole output stays behind a handle."""
        handle = item.provenance.get("handle")
        if handle is None:
            handle = self.results.put(item.content, {"tool": item.name, "item": item.id})
            item.provenance["handle"] = handle
        path = item.provenance.get("path")
        is_read = item.name == "read_file" or item.provenance.get("file_read")
        active = path if (path and path in self.files.files and is_read) else None
        stub = aging.stub_text(item, handle, why, active)
        item.provenance["stub"] = stub
        item.provenance["stub_tokens"] = self.counter.count(stub)
        self._save(item)

    def end_task(self) -> None:
        """The task is done: release every active file."""
        for af in self.files.release_all():
            self._file_releases.append((self._file_item(af), "released: the task ended (pinned files stay)"))
        self._file_ledger.flush(self)

    # memos and recall -----------------------------------------------------------------
    def save_memo(self, text: str, kind: str = "manual", show_now: bool | None = None) -> ContextItem:
        """The task's rolling memo, updated in place within a task (core/memos).  ``show_now``
        rebuilds the compaction block so the next request carries it (one cache break, like a pin):
        by default for a memo the user asks for, or before the first request; an automatic memo, or
        one the model wrote with save_memo (its call's arguments are in the history already), waits
        for the next compaction event."""
        item = save_rolling_memo(self, text, kind)
        if show_now is None:
            show_now = self.last is None or kind not in ("auto", "pre-compaction")
        if show_now:
            self.rebuild_block()
        return item

    def add_recalled(self, hits: Sequence[dict[str, Any]]) -> list[ContextItem]:
        """Recalled memories for this turn, labelled for reference: a note appended to the history
        (after the user's message), evicted by the next event like any other (never a memo the
        request already carries)."""
        hits = drop_memos_in_window(self, hits)
        out = []
        for h in hits:
            text = f"- (for reference, {h.get('kind')} {h.get('id')}) {h.get('content', '')}"
            item = self._new_item("rc", Category.MEMORY, text, role="user", scope=Scope.TURN, priority=Priority.LOW,
                                  provenance={"recall": h.get("kind"), "ref": h.get("id"), "score": h.get("score"),
                                              "note": "recall"})
            out.append(self._add(item))
        return out

    # compaction ---------------------------------------------------------------------------
    def prepare_step(self) -> None:
        """Before a model call: adopt what another process wrote to the store, re-read files
        changed on disk and release idle read-only files.  Nothing already sent changes here
        (aging happens only inside an event).  Idempotent."""
        self.sync_from_store()
        if self.instructions is not None:
            self.instructions.refresh(self)
        self.files.refresh()
        m = self.settings.memory
        for af in self.files.release_idle_reads(self.steps_total, m.release_reads_after_steps):
            self._file_releases.append((self._file_item(af), f"released: only read, untouched for "
                                                             f"{m.release_reads_after_steps} steps"))

    def _keep_steps(self, forced: bool) -> int:
        """Steps an event keeps verbatim: the latest one (the model works on it); more when asked."""
        return max(1, self.settings.memory.keep_recent_steps) if forced else 1

    def _user_cap(self) -> int:
        return max(256, min(6000, int(self.plan.input_budget * 0.05)))

    def request_estimate(self) -> int:
        """Tokens the next request would have now (head, block, history, tools, status)."""
        groups, _, carried = self._window_groups()
        head = self.system.tokens + sum(i.tokens + 12 for i in carried)
        head += sum(it.tokens + 1 for it in self._head_blocks())
        history = sum(g.tokens + sum(self._message_extra(it) for it in g.items) for g in groups)
        return head + self.block.tokens + history + self._tools_tokens + 80

    def _message_extra(self, item: ContextItem) -> int:
        """What a history message costs beyond its content: the role overhead and its tool calls
        (cached on the item, as the assembler does)."""
        if not item.tool_calls:
            return MESSAGE_OVERHEAD
        extra = item.provenance.get("calls_tokens")
        if not extra:
            extra = item.provenance["calls_tokens"] = self.counter.count(json.dumps(item.tool_calls))
        return int(extra) + MESSAGE_OVERHEAD

    def sync_from_store(self) -> list[ContextItem]:
        """Adopt the rules, pins and evictions another process wrote to the store (core/store_sync)."""
        if self._sync is None:
            return []
        rows = self._sync.changed()
        touched = adopt(self.items, self.order, rows) if rows else []
        if rows and self.tool_items.adopt([r for r in rows if r.id.startswith(TOOL_PREFIX)]):
            self._version += 1
        if rows and self._file_ledger.adopt(self, rows):
            self._version += 1
        if touched:
            self._reset_history()  # states changed under the incremental index: rescan once
        return touched

    def plan_compaction(self, force: bool = False) -> EvictionPlan | None:
        """The batch a compaction event would evict now, or None when the cost model says an
        event does not pay yet and the window is not near (``force``: evict what there is)."""
        self._sync_file_notes()  # the notes the next request will carry count (and may go in this event)
        groups, _, _ = self._window_groups()
        if force:
            return plan_event(groups, current_turn=self.turn, keep_steps=self._keep_steps(True),
                              user_cap=self._user_cap(), reason="forced", notes_alone=True)
        if len(self.order) == self._failed_at_len:
            return None  # the last attempt failed and nothing changed since: do not hammer
        request = self.request_estimate()
        hard_limit = int(self.plan.compact_at * self.plan.input_budget)
        hard = request >= hard_limit
        plan = plan_event(groups, current_turn=self.turn, keep_steps=self._keep_steps(False),
                          user_cap=self._user_cap(), reason="window limit" if hard else "cost model")
        if plan is None:
            return None
        evicted = plan.tokens
        summary_now = self.summary_item.tokens if self.summary_item is not None else 0
        summary = min(2000, summary_now + max(100, evicted // 20))
        files = sum(self._file_item(af).tokens for af in self.files.files.values())
        head = self.system.tokens + self._tools_tokens
        floor = head + kept_tokens(groups, plan) + summary + files + 120
        steps = max(1, self.steps_total - self._event_step)
        growth = max(0, request - self._event_size) / steps if self._event_size else request / steps
        self.decision = decide(self.costs, request=request, floor=floor, head=head, growth=growth,
                               summary=summary, hard_limit=hard_limit,
                               min_excess=max(512, self.plan.input_budget // 20))
        return plan if self.decision.compact else None

    def apply_compaction(self, plan: EvictionPlan, summary: Summary, summariser: str = "",
                         input_tokens: int = 0) -> CompactionResult:
        """Mark the plan's items summarised into a new summary item."""
        before = sum(g.tokens for g in self._window_groups()[0])
        items = plan.items  # (a property: computed before the states change)
        text = summary.render() or "(nothing worth keeping was found in the evicted rounds)"
        item = self._new_item("sum", Category.SUMMARY, text, scope=Scope.SESSION, priority=Priority.HIGH,
                              provenance={"summariser": summariser, "covers": len(summary.covers)})
        evicted = []
        with self._store_batch():  # one transaction for the whole batch, not one per item
            if self.summary_item is not None:
                self.summary_item.state = State.SUMMARISED
            self._add(item)
            if self.summary_item is not None:
                self.summary_item.summarised_into = item.id
                self._save(self.summary_item)
            for it in items:
                it.state = State.SUMMARISED
                it.summarised_into = item.id
                evicted.append(it.id)
                self._save(it)
            self.summary, self.summary_item = summary, item
            if self.store is not None:
                self.store.save_summary(self.session_id, item.id, text, summary.to_json(), summary.covers)
                found = extract_decisions(items) + summary.decisions()
                self.store.add_decisions(self.session_id, list(dict.fromkeys((e.text, e.source) for e in found)))
        decisions = [e.text for e in summary.decisions()]
        self._age_kept()
        self.rebuild_block()
        after = sum(g.tokens for g in self._window_groups()[0]) + item.tokens
        res = CompactionResult(evicted=evicted, summary_id=item.id, summariser=summariser, tokens_before=before,
                               tokens_after=after, summary_tokens=item.tokens, input_tokens=input_tokens,
                               reason=plan.reason, decisions=decisions)
        self.compactions.append(res)
        return res

    def _age_kept(self) -> None:
        """Inside an event: the kept steps of earlier turns lose their turn-scoped outputs to stubs
        (the only place a message already sent changes)."""
        for g in self._window_groups()[0]:
            for it in g.items:
                if it.role == "tool" and it.scope == Scope.TURN and it.turn < self.turn and not it.pinned \
                        and "stub" not in it.provenance and it.state == State.IN \
                        and it.provenance.get("restored_turn") is None:
                    self._stub(it, "dropped after its turn")

    def compact(self, force: bool = False, chain: Sequence[Summariser] | None = None) -> CompactionResult | None:
        """Evict a batch into the rolling summary with the summariser chain (sync)."""
        plan = self.plan_compaction(force=force)
        if plan is None:
            if force:  # an event with nothing to evict still ages the kept steps and refreshes the block
                self._age_kept()
                self.rebuild_block()
            return None
        summary, name, sent, errors = summarise_plan(plan, self.summary, chain or self.summarisers)
        if summary is None:
            self._failed_at_len = len(self.order)
            res = CompactionResult(reason=plan.reason, error="; ".join(errors) or "no summariser")
            self.compactions.append(res)
            return res
        return self.apply_compaction(plan, summary, name, sent)

    # assembly -------------------------------------------------------------------------------
    def tools_tokens(self, tools: Sequence[dict[str, Any]] | None) -> int:
        """What ``tools`` cost in a request: the sum of their items (disabled tools cost nothing)."""
        self._tools_tokens = self.tool_items.tokens(self, tools)
        return self._tools_tokens

    def _head_blocks(self) -> list[ContextItem]:
        """Pinned items that are not messages (rules, pinned memos or summaries): the head."""
        self._history_items()
        return [it for it in self._blocks if it.pinned]

    def rebuild_block(self) -> None:
        """Freeze the compaction block from the current summary, memo, recalls and active files
        (only a compaction event or a resume calls this)."""
        self._history_items()
        memos = sorted((it for it in self._blocks if it.id.startswith("memo") and it.in_window and not it.pinned),
                       key=lambda x: -x.created_at)
        recalls = [it for it in self._blocks if it.category == Category.MEMORY and not it.id.startswith("memo")
                   and it.state == State.IN and not it.pinned]
        items: list[ContextItem] = []
        if self.summary_item is not None and self.summary_item.state == State.IN and not self.summary_item.pinned:
            items.append(self.summary_item)
        items += memos[:1] + recalls
        files = self._file_blocks([])
        items += files
        self.block.rebuild(items, self.counter)
        self._shown = {f.provenance["path"]: f.content for f in files}
        self._shown_raw = {p: af.content if not af.outline or af.edited else None
                           for p, af in self.files.files.items() if p in self._shown}
        self._shown_note = {}
        self._event_step = self.steps_total
        self._event_size = 0

    def assemble(self, tools: Sequence[dict[str, Any]] | None = None, *, auto_compact: bool = True,
                 status: bool = True, status_note: str = "", log: bool = True) -> Assembly:
        """The exact request for the next model call (a compaction event first if one pays)."""
        self.tools_tokens(tools)
        self.prepare_step()
        compaction = self.compact() if auto_compact else None
        file_trace = self._sync_file_notes()
        groups, excluded_trace, carried = self._window_groups()
        excluded: list[tuple[ContextItem, str]] = []
        blocks: list[ContextItem] = []
        self._history_items()
        for it in self._blocks:
            if it.category == Category.SUMMARY:
                if it.pinned:
                    blocks.append(it)
                elif it.state != State.IN:
                    excluded.append((it, f"superseded by {it.summarised_into}" if it.summarised_into else str(it.state)))
                elif not self.block.covers(it.id):
                    excluded.append((it, "waits for the next compaction event"))
                continue
            if it.pinned:
                blocks.append(it)
            elif not it.in_window:
                excluded.append((it, str(it.state)))
            elif not self.block.covers(it.id):
                excluded.append((it, "waits for the next compaction event"))
        for it in carried:
            blocks.append(_carried(it))
        self._file_blocks(excluded)  # (the block carries the files: this reports releases)
        sent_tools, tools_tokens = self.tool_items.apply(self, tools)
        self._tools_tokens = tools_tokens
        inp = AssemblyInput(plan=self.plan, counter=self.counter, system=self.system, blocks=blocks,
                            groups=groups, excluded=excluded, current_turn=self.turn, tools=sent_tools,
                            tools_tokens=tools_tokens, status=status, status_note=status_note,
                            excluded_trace=excluded_trace + file_trace, block=self.block,
                            keep=frozenset(n for n in self._shown_note.values() if n),
                            turn_start=bool(self._hist) and self._hist[-1].role == "user"
                            and not self._hist[-1].provenance.get("note"))
        asm = assemble(inp)
        self.tool_items.trace(asm, sent_tools)
        asm.messages = self.redact.messages(asm.messages)  # the boundary: active files included
        asm.compaction = compaction
        if not log:
            return asm  # a preview (memo writer, CLI): not a request, so not the latest one
        if not self._event_size:
            self._event_size = asm.breakdown.total
        self.step += 1
        self.last = asm
        if self.store is not None and self.log_requests:
            self.store.log_assembly(
                self.session_id, self.turn, self.step, asm.breakdown.to_json(), asm.item_ids,
                [t.__dict__ for t in asm.trace], {"messages": asm.messages, "tools": asm.tools},
            )
        return asm

    def breakdown(self) -> Breakdown:
        """The breakdown of the latest assembly (assembling once if there is none)."""
        return (self.last or self.assemble(auto_compact=False, log=False)).breakdown

    # loading -------------------------------------------------------------------------------
    def load(self, items: Sequence[ContextItem]) -> None:
        """Rebuild state from stored items (resume after a crash or a restart)."""
        self._reset_history()
        self._file_ledger.load(self, [it for it in items if it.id.startswith("f:")])
        self.tool_items.load([it for it in items if it.id.startswith(TOOL_PREFIX)])
        for it in items:
            if it.id == "sys" or it.id.startswith(("f:", TOOL_PREFIX)):
                continue
            self.ids.observe(it.id)
            if it.id not in self.items:
                self.order.append(it.id)
            self.items[it.id] = it
            self.turn = max(self.turn, it.turn)
            self.steps_total = max(self.steps_total, int(it.provenance.get("step") or 0))
            if it.category == Category.SUMMARY and it.state == State.IN:
                self.summary_item = it
        if self.summary_item is not None and self.store is not None:
            row = getattr(self.store, "latest_summary", lambda _s: None)(self.session_id)
            if row and row.get("data"):
                self.summary = Summary.from_json(row["data"])
        self.rebuild_block()


def _carried(item: ContextItem) -> ContextItem:
    """A pinned message whose group left the window, shown as a quoted rule."""
    text = f"Pinned {item.role} message {item.id}: {item.content}"
    return ContextItem(id=item.id, category=Category.RULES, content=text, tokens=item.tokens + 8, pinned=True,
                       turn=item.turn, created_at=item.created_at)


class _SessionResults:
    """ResultStore over the engine store, tagging blobs with the session."""

    def __init__(self, store: EngineStore, session_id: str, engine: ContextEngine) -> None:
        self.store, self.session_id, self.engine = store, session_id, engine

    def put(self, content: str, meta: dict[str, Any] | None = None) -> str:
        return self.store.put(self.engine.redact(content), meta, session_id=self.session_id)

    def get(self, handle: str) -> str | None:
        return self.store.get(handle)

