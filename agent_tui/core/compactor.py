"""The compaction block's segment: when an event happens, what it evicts, and what it freezes.

Everything that changes only at a compaction event lives here: the rolling
summary, the frozen block (:mod:`agent_tui.core.block`), the cost model's latest
decision (:mod:`agent_tui.core.costmodel`) and the clock of the last event.  An
event evicts a batch chosen by :mod:`agent_tui.core.eventplan`, folds it into the
summary, ages the kept steps' turn-scoped outputs into stubs (the only place a
message already sent changes) and rebuilds the block — so between two events the
request only grows at its end.

The summary is append-only as well: each event adds one *segment* — what the
evicted batch adds, in the summary's role sections — after the segments already
sent, which stay byte-identical (a cache read, not a rewrite; the summarising
call writes only the new part).  When the segments outgrow the summary's share of
the budget, the event consolidates them into one (the structured summary merged
over every event: newer facts win), and the cycle starts again.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from agent_tui.core import aging
from agent_tui.core.block import CompactionBlock
from agent_tui.core.compaction import CompactionResult, summarise_plan
from agent_tui.core.costmodel import Decision, costs_for, decide
from agent_tui.core.eventplan import kept_tokens, plan_event
from agent_tui.core.items import Category, ContextItem, Priority, Scope, State
from agent_tui.core.memory import EvictionPlan
from agent_tui.core.summary import Summariser, Summary, extract_decisions, with_user_words

CALL_RATIO = 4
"""A summarising model call is made for a batch at least this many times what it asks the model to write."""
MIN_CALL_TOKENS = 1_000
"""...and never for a batch under this many tokens."""


class Compactor:
    """Compaction events for one session (the engine delegates ``compact`` and friends here)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        """The engine it serves (history, files, store, plan, counter)."""
        self.block = CompactionBlock()
        """The compaction block, frozen between events."""
        self.summary: Summary | None = None
        """The rolling summary's structured form (what the next event folds into)."""
        self.segments: list[ContextItem] = []
        """The rolling summary as items in the block, oldest first (one per event since the last
        consolidation)."""
        self.costs = costs_for(engine.settings)
        """Cache prices the cost model weighs compaction with."""
        self.decision: Decision | None = None
        """The cost model's latest answer (why the last request did or did not compact)."""
        self.results: list[CompactionResult] = []
        """Every event of the session, failed ones included."""
        self.event_step = 0
        """``steps_total`` at the last event (the growth since is what the cost model weighs)."""
        self.rebuilt_at = 0.0
        """When the block was last rebuilt (``time.time()``): what comes before a message made earlier changed."""
        self.event_size = 0
        """Request tokens of the first request after the last event."""
        self.region_step = -1
        """``steps_total`` at the last real event: a block carries the file regions seen after it (a
        memo or a resume rebuilds the block without moving it, so no region is skipped)."""
        self.failed_at = -1
        """History length when the last event failed (not retried until it grows)."""

    @property
    def summary_item(self) -> ContextItem | None:
        """The newest summary segment (None before the first event)."""
        return self.segments[-1] if self.segments else None

    def summary_cap(self) -> int:
        """Tokens the summary segments may take before an event consolidates them."""
        return max(256, int(self.engine.plan.caps[Category.SUMMARY]))

    def summary_target(self) -> int:
        """Tokens a consolidated summary is cut to: 60 % of the share, so that the segments of a few
        events fit beside it before the next consolidation (cut to the whole share, every event after
        the first consolidation was one again)."""
        return max(128, self.summary_cap() * 6 // 10)

    def summary_words(self, whole: bool) -> int:
        """Words the summarising call is asked for (about 0.7 words a token): a whole summary, what
        ``summary_target`` holds; a segment, what the share has left beside it.  Up to 400 either way: fewer
        only where the share is small (an 8K window's is ~300 tokens)."""
        tokens = self.summary_target() if whole else self.summary_cap() - self.summary_target()
        return max(50, min(400, tokens * 7 // 10))

    def segment_text(self, summary: Summary) -> str:
        """What ``summary`` adds to the segments already in the block (the next segment)."""
        covered = set(self.summary.covers) if self.summary is not None else set()
        return summary.render_since(covered)

    def worth_a_call(self, plan: EvictionPlan, whole: bool) -> bool:
        """Whether a summarising model call pays for this batch: it holds at least ``CALL_RATIO`` times
        what the call is asked to write (and ``MIN_CALL_TOKENS``).  A smaller batch keeps its extractive
        summary, which is free and loses little of it; the call would resend the whole request for a
        few hundred tokens of summary (in an 8K window, at almost every other step)."""
        live = sum(it.tokens for it in self.segments if it.state == State.IN and not it.pinned) if whole else 0
        asked = self.summary_words(whole) * 10 // 7
        return sum(it.tokens for it in plan.summary_items) + live >= max(MIN_CALL_TOKENS, CALL_RATIO * asked)

    def consolidates(self, new_tokens: int) -> bool:
        """Whether an event adding a segment of ``new_tokens`` rewrites the summary as one, within the
        summary's share (segments the user pinned ride in the head and stay as they are).  A first
        segment over the share is one too: it is cut to ``summary_target`` like any consolidation."""
        live = [it for it in self.segments if it.state == State.IN and not it.pinned]
        return sum(it.tokens for it in live) + new_tokens > self.summary_cap()

    def keep_steps(self, forced: bool) -> int:
        """Steps an event keeps verbatim: the latest one (the model works on it); more when asked."""
        return max(1, self.engine.settings.memory.keep_recent_steps) if forced else 1

    def user_cap(self) -> int:
        return max(256, min(6000, int(self.engine.plan.input_budget * 0.05)))

    def task_cap(self) -> int:
        """Tokens up to which the task statement stays verbatim in place through every event of its task."""
        return max(self.user_cap(), self.engine.plan.input_budget // 4)

    def task_kept(self) -> list[str]:
        """The task statement's id while events keep it (in the window and within ``task_cap``), else nothing."""
        e = self.engine
        task = e.items.get(e.task_item) if e.task_item else None
        return [task.id] if task is not None and task.in_window and task.tokens <= self.task_cap() else []

    def plan(self, force: bool = False) -> EvictionPlan | None:
        """The batch a compaction event would evict now, or None when the cost model says an
        event does not pay yet and the window is not near (``force``: evict what there is)."""
        e = self.engine
        e.window.sync_notes()  # the notes the next request will carry count (and may go in this event)
        groups, _, _ = e.history.window_groups()
        if force:
            return plan_event(groups, current_turn=e.turn, keep_steps=self.keep_steps(True),
                              user_cap=self.user_cap(), reason="forced", notes_alone=True,
                              answer_cap=e.plan.input_budget // 2, task=self.task_kept())
        if len(e.order) == self.failed_at:
            return None  # the last attempt failed and nothing changed since: do not hammer
        request = e.request_estimate()
        hard_limit = int(e.plan.compact_at * e.plan.input_budget)
        hard = request >= hard_limit
        plan = plan_event(groups, current_turn=e.turn, keep_steps=self.keep_steps(False),
                          user_cap=self.user_cap(), reason="window limit" if hard else "cost model",
                          recent_cap=0 if hard else e.plan.input_budget // 4,
                          answer_cap=e.plan.input_budget // 4, task=self.task_kept())
        if plan is None:
            return None
        segments = sum(it.tokens for it in self.segments)
        new = max(100, plan.tokens // 20)
        whole = self.consolidates(new)
        summary = min(2000, self.summary_target(), segments + new) if whole else new  # what the summarising call writes
        current = {it.id: it for it in (e.window.file_item(af) for af in e.files.files.values())}
        current.update((it.id, it) for it in e.window.heads.current())
        files = sum(it.tokens for it in current.values())
        staying = {} if whole else {it.id: it.content for it in self.segments}
        stable = self.block.stable_prefix({**{i: it.content for i, it in current.items()}, **staying})
        head = e.system.tokens + e.head.tools_tokens
        floor = head + kept_tokens(groups, plan) + (summary if whole else segments + new) + files + 120
        steps = max(1, e.steps_total - self.event_step)
        growth = max(0, request - self.event_size) / steps if self.event_size else request / steps
        self.decision = decide(self.costs, request=request, floor=floor, head=head, growth=growth,
                               summary=summary, hard_limit=hard_limit,
                               min_excess=max(512, e.plan.input_budget // 20), stable=stable,
                               since_event=e.steps_total - self.event_step if self.event_step else None,
                               budget=e.plan.input_budget)
        return plan if self.decision.compact else None

    def apply(self, plan: EvictionPlan, summary: Summary, summariser: str = "",
              input_tokens: int = 0, whole: bool | None = None) -> CompactionResult:
        """Mark the plan's items summarised into a new summary segment, or (``whole``; by default
        when the segments would outgrow their share) into one summary replacing the segments.
        ``summary``: the structured summary merged over every event; its ``text_override`` (an
        LLM's text) is the new segment's text, or the whole summary's when ``whole``."""
        e = self.engine
        live = [it for it in self.segments if it.state == State.IN]
        before = sum(g.tokens for g in e.history.window_groups()[0]) + sum(it.tokens for it in live)
        items = plan.items  # (a property: computed before the states change)
        override, summary.text_override = summary.text_override, None
        part = self.segment_text(summary)
        if whole is None:
            whole = self.consolidates(e.counter.count(override or part))
        call = self.worth_a_call(plan, whole)
        if override:
            override = with_user_words(override, summary, None if whole else {it.id for it in items})
        text = (override or (summary.render(self.summary_target(), e.counter.count) if whole else part)).strip()
        empty = not text
        text = text or "(nothing worth keeping was found in the evicted rounds)"
        item = e._new_item("sum", Category.SUMMARY, text, scope=Scope.SESSION, priority=Priority.HIGH,
                           provenance={"summariser": summariser, "covers": len(summary.covers),
                                       "segment": not whole})
        if empty:  # nothing to carry: a segment of only that line went out with every later request
            item.state = State.RELEASED
        replaced = [it for it in self.segments if it.state == State.IN and not it.pinned] if whole else []
        evicted = []
        with e._store_batch():  # one transaction for the whole batch, not one per item
            for seg in replaced:
                seg.state = State.SUMMARISED
            e._add(item)
            for seg in replaced:
                seg.summarised_into = item.id
                e._save(seg)
            kept = [it for it in self.segments if it.pinned and it.state == State.IN] if whole else self.segments
            self.segments = [*kept, *([] if empty else [item])]  # a pinned segment stays one (folded in once unpinned)
            for it in items:
                it.state = State.SUMMARISED
                it.summarised_into = item.id
                evicted.append(it.id)
                e._save(it)
            self.summary = summary
            if e.store is not None:
                e.store.save_summary(e.session_id, item.id, text, summary.to_json(), summary.covers)
                found = extract_decisions(items) + summary.decisions()
                e.store.add_decisions(e.session_id, list(dict.fromkeys((d.text, d.source) for d in found)))
        decisions = [d.text for d in summary.decisions()]
        self.age_kept()
        self.rebuild_block()
        self.region_step = self.event_step
        after = sum(g.tokens for g in e.history.window_groups()[0]) + sum(it.tokens for it in self.segments
                                                                          if it.state == State.IN)
        res = CompactionResult(evicted=evicted, summary_id=item.id, summariser=summariser, tokens_before=before,
                               tokens_after=after, summary_tokens=item.tokens, input_tokens=input_tokens,
                               reason=plan.reason, decisions=decisions, worth_a_call=call)
        self.results.append(res)
        return res

    def age_kept(self) -> None:
        """Inside an event: the kept steps of earlier turns lose their turn-scoped outputs to stubs
        (the only place a message already sent changes)."""
        e = self.engine
        for g in e.history.window_groups()[0]:
            for it in g.items:
                if it.role == "tool" and it.scope == Scope.TURN and it.turn < e.turn and not it.pinned \
                        and "stub" not in it.provenance and it.state == State.IN \
                        and it.provenance.get("restored_turn") is None:
                    self.stub(it, "dropped after its turn")

    def stub(self, item: ContextItem, why: str) -> None:
        """Replace a tool output in the window by a stub; the whole output stays behind a handle."""
        e = self.engine
        handle = item.provenance.get("handle")
        if handle is None:
            handle = e.results.put(item.content, {"tool": item.name, "item": item.id})
            item.provenance["handle"] = handle
        path = item.provenance.get("path")
        is_read = item.name == "read_file" or item.provenance.get("file_read")
        active = path if (path and path in e.files.files and is_read) else None
        stub = aging.stub_text(item, handle, why, active)
        item.provenance["stub"] = stub
        item.provenance["stub_tokens"] = e.counter.count(stub)
        e._save(item)

    def compact(self, force: bool = False, chain: Sequence[Summariser] | None = None) -> CompactionResult | None:
        """Evict a batch into the rolling summary with the summariser chain (sync)."""
        plan = self.plan(force=force)
        if plan is None:
            if force:  # an event with nothing to evict still ages the kept steps and refreshes the block
                self.age_kept()
                self.rebuild_block()
                self.region_step = self.event_step
            return None
        summary, name, sent, errors = summarise_plan(plan, self.summary, chain or self.engine.summarisers)
        if summary is None:
            self.failed_at = len(self.engine.order)
            res = CompactionResult(reason=plan.reason, error="; ".join(errors) or "no summariser")
            self.results.append(res)
            return res
        return self.apply(plan, summary, name, sent)

    def release_idle_written(self) -> None:
        """At a block rebuild: a file the agent created, only ever wrote whole and ran as a program
        (a scratch script: core/scripts_run), untouched for ``release_written_after_steps`` steps,
        leaves the block; a read brings it back.  A file it created and never ran (a new module, a
        new test its test runner runs), one the task names, or one it edited in part stays
        protected for the task."""
        e = self.engine
        after = e.settings.memory.release_written_after_steps
        task = e.window.current_task_text()
        for af in [af for af in e.files.files.values() if af.written and af.ran]:
            path = af.path
            if af.pinned or e.steps_total - af.last_step <= after or path in task \
                    or path.rsplit("/", 1)[-1] in task:
                continue
            e.files.files.pop(path)
            e.window.release(af, f"released: a script the agent wrote and ran, untouched for {after} steps "
                                 "(read_file shows it again)", head=False)

    def carried(self) -> list[ContextItem]:
        """What a block frozen now carries besides the active files: the live summary segments, the
        latest memo and recalled memories (pinned ones ride in the head instead)."""
        blocks = self.engine.history.blocks()
        memos = sorted((it for it in blocks if it.id.startswith("memo") and it.in_window and not it.pinned),
                       key=lambda x: -x.created_at)
        recalls = [it for it in blocks if it.category == Category.MEMORY and not it.id.startswith("memo")
                   and it.state == State.IN and not it.pinned]
        items: list[ContextItem] = [it for it in self.segments if it.state == State.IN and not it.pinned]
        return items + memos[:1] + recalls

    def rebuild_block(self) -> None:
        """Freeze the compaction block from the current summary, memo, recalls and active files
        (only a compaction event or a resume calls this)."""
        e = self.engine
        e.stuck.clear()  # the prefix changes here: the messages after it carry no earlier status line
        self.rebuilt_at = time.time()
        self.release_idle_written()
        items = self.carried()
        files = e.window.blocks([])
        e.window.note_block(files)
        items += files + e.window.heads.current()
        self.block.rebuild(items, e.counter)
        w = e.window
        w.shown = {f.provenance["path"]: f.content for f in files}
        w.shown_raw = {p: af.content if not af.outline or af.edited else None
                       for p, af in e.files.files.items() if p in w.shown}
        w.shown_note = {}
        self.event_step = e.steps_total
        self.event_size = 0
