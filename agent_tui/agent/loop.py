"""The agent loop: one user turn as an async generator of plain events.

Each step (model call) is assembled by the engine under the budget — not only
turn boundaries.  Before a step, if the sliding memory's caps tripped, the
loop writes a progress memo, summarises the evicted batch with the LLM (the
extractive summariser as fallback) and applies it.  The model's answer streams
out as events; its tool calls pass the approval policy, run, and their shaped
results go back into the engine.  A context-window error compacts harder and
retries once.  Cancelling keeps the partial answer, marked as cut.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.agent.limits import DEFAULT_MAX_STEPS, Limits, check
from agent_tui.agent.llm_calibration import Calibration
from agent_tui.agent.llm_finish import CUT_CALL_RESULT
from agent_tui.agent.llm_settings import LOCAL_KEY
from agent_tui.agent.llm_types import assistant_calls, unique_call_ids
from agent_tui.agent.llm_usage import unpriced_notice
from agent_tui.agent.loop_memory import MemoryEvents
from agent_tui.agent.loop_reasoning import ReasoningMixin, thinking_text
from agent_tui.agent.loop_streamed import StreamKeeper
from agent_tui.agent.loop_window import WindowLimits
from agent_tui.agent.ollama_fit import fit_answer
from agent_tui.agent.permissions import Policy
from agent_tui.agent.prompts import render_prompt
from agent_tui.agent.text_tool_calls import TextCalls, adopt_text_calls, local_server
from agent_tui.agent.toolctx import EngineToolContext
from agent_tui.agent.toolrun import ToolRunner
from agent_tui.core.budget import make_plan
from agent_tui.core.engine import ContextEngine
from agent_tui.core.engine_request import shorten_answered
from agent_tui.core.items import Category
from agent_tui.core.message_fit import too_large
from agent_tui.core.parse import loads_json
from agent_tui.store.db import StoreError
from agent_tui.store.store import SessionUsage

Approver = Callable[[ev.ApprovalRequested], Awaitable[str]]
"""Answers an approval request with 'once', 'always' (the exact command), 'prefix' (the offered prefix) or 'deny'."""

CUT_MARK = "\n\n[cut: the turn was stopped before this answer finished (cancelled by the user, or agent-tui was closed)]"


@dataclass
class LoopOptions:
    """Knobs of one agent (from settings and flags)."""

    max_steps: int = DEFAULT_MAX_STEPS
    """Model calls per turn."""
    max_cost: float | None = None
    """Dollars one turn may spend (None: no limit)."""
    max_session_cost: float | None = None
    """Dollars this session may spend, over every process that ran it (None: no limit)."""
    memo_writer: str = "llm"
    """`llm` or `extractive` for automatic memos."""
    summariser: str = "llm"
    """`llm` or `extractive` for compaction."""
    recall: bool = True
    """Recall memories at the start of each turn."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Reserved for front-ends."""


class Agent(ReasoningMixin, StreamKeeper, WindowLimits, MemoryEvents):
    """A model, tools and a context engine, run turn by turn."""

    def __init__(self, engine: ContextEngine, *, llm: Any, runner: ToolRunner, policy: Policy,
                 approver: Approver | None = None, workspace: Path, store: Any | None = None,
                 options: LoopOptions | None = None) -> None:
        self.engine = engine
        self.llm = llm
        self.runner = runner
        self.policy = policy
        self.approver = approver
        self.workspace = workspace
        self.store = store
        self.opts = options or LoopOptions(max_steps=engine.settings.max_steps,
                                           max_cost=engine.settings.budget.max_cost,
                                           max_session_cost=engine.settings.budget.max_session_cost)
        self.turn_cost = 0.0
        self.ctx = EngineToolContext(engine, workspace, store)
        spent = store.session_usage(engine.session_id) if store is not None else SessionUsage()
        self.session_cost = spent.cost_usd
        """Dollars the session has spent, in this process and every earlier one (from the store)."""
        self.session_prompt_tokens = spent.prompt_tokens
        self.session_cached_tokens = spent.cached_tokens
        self._announced: set[str] = set()
        engine.reasoning_cost = self._reasoning_tokens
        self._warned = 0
        self._handed: set[str] = set()
        model = str(getattr(llm, "model", "") or "")
        self.calibration = Calibration(model, store if model else None)
        if abs(self.calibration.factor - 1.0) > 1e-9:
            engine.plan = make_plan(engine.settings, self.calibration.factor)
        self.engine.set_system_prompt(render_prompt("system", workspace=str(workspace)))
        key = getattr(llm, "api_key", None)
        self.engine.add_secret(None if key == LOCAL_KEY else key)

    def new_warnings(self) -> list[str]:
        """The engine's warnings not handed out yet (a front-end shows the opening ones; the loop raises
        the later ones as events), each once: one said again (the store failing at every call: "session
        cost not saved") is not handed out again."""
        fresh = []
        for warning in self.engine.warnings[self._warned:]:
            if warning not in self._handed:
                self._handed.add(warning)
                fresh.append(warning)
        self._warned = len(self.engine.warnings)
        return fresh

    # helpers ------------------------------------------------------------------------
    async def _complete_text(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                             cache_breakpoints: Sequence[int] = (), max_tokens: int | None = None) -> str:
        """A plain model call (summaries, memos); ``tools``, ``cache_breakpoints`` and the turn's kept
        reasoning are sent to keep the cached prefix identical and marked (a DeepSeek step's
        reasoning_content, not a placeholder), the answer is text.  ``max_tokens``: the answer's own limit,
        when lower than the configured one."""
        from agent_tui.agent.llm import Completion, stream_completion

        llm = self.llm
        if max_tokens is not None and llm is not None and (not llm.max_output_tokens or max_tokens < llm.max_output_tokens):
            llm = replace(llm, max_output_tokens=max_tokens)
        text = ""
        async for e in stream_completion(llm, messages, tools, cache_breakpoints=cache_breakpoints,
                                         session_id=self.engine.session_id, reasoning=self._reasoning_map()):
            if isinstance(e, Completion):
                text = e.text
                await self._count_usage(e)
        return text.strip()

    async def _count_usage(self, completion: Any) -> ev.Usage | None:
        """Count one call's usage in the turn and the session; the session's totals live in the store
        (written in a thread: the TUI's event loop never waits on SQLite), so a resumed session
        goes on from what it had spent."""
        u = getattr(completion, "usage", None)
        if u is None:
            return None
        cost = float(getattr(u, "cost_usd", 0.0) or 0.0)
        prompt, cached = int(u.prompt_tokens or 0), int(getattr(u, "cached_tokens", 0) or 0)
        self.turn_cost += cost
        self.session_cost += cost
        self.session_prompt_tokens += prompt
        self.session_cached_tokens += cached
        if self.store is not None:
            call = SessionUsage(cost, prompt, int(u.completion_tokens or 0), cached)
            try:
                total = await asyncio.to_thread(self.store.add_session_usage, self.engine.session_id, call)
            except StoreError as exc:  # counted in memory; the limit still applies in this process
                self.engine.warnings.append(f"session cost not saved: {exc}")
            else:
                self.session_cost = total.cost_usd
                self.session_prompt_tokens, self.session_cached_tokens = total.prompt_tokens, total.cached_tokens
        session_pct = 100.0 * self.session_cached_tokens / self.session_prompt_tokens if self.session_prompt_tokens else 0.0
        return ev.Usage(prompt, int(u.completion_tokens or 0), cost, self.session_cost,
                        cached_tokens=cached, cache_write_tokens=int(getattr(u, "cache_write_tokens", 0) or 0),
                        cache_hit_pct=round(100.0 * cached / prompt, 1) if prompt else 0.0,
                        session_cache_hit_pct=round(session_pct, 1),
                        reasoning_tokens=int(getattr(u, "reasoning_tokens", 0) or 0))

    async def _recall(self, task: str) -> None:
        if not self.opts.recall or self.store is None:
            return
        from agent_tui.store.recall import recall

        m = self.engine.settings.memory
        hits = await asyncio.to_thread(recall, self.store, task, limit=m.recall_limit,
                                       min_score=m.recall_min_score, kinds=("capsule", "decision", "memo"))
        if hits:
            self.engine.add_recalled(hits)

    # the turn -------------------------------------------------------------------------
    async def run(self, task: str) -> AsyncIterator[ev.Event]:
        """Run one user turn, yielding events until TurnFinished."""
        from agent_tui.agent import llm as llm_mod

        eng = self.engine
        refused = too_large(eng, task, self.runner.schemas(eng))
        if refused:
            yield ev.ErrorEvent(refused, fatal=True)
            yield ev.TurnFinished(eng.turn, 0, "", "error")
            return
        eng.add_user(task)
        if self.runner.mcp is not None:
            try:
                self.runner.mcp.select_for_task(task)  # load the MCP tool groups this task needs
            except Exception as exc:  # MCP trouble must not stop the built-in tools
                yield ev.ErrorEvent(f"MCP tool selection failed: {exc}", fatal=False)
        yield ev.TurnStarted(eng.turn, eng.session_id, task)
        await self._recall(task)
        final_text, status, step = "", "done", 0
        self.turn_cost = 0.0
        memo_saved_this_turn = False
        partial = ""
        try:
            while True:
                stop = check(Limits(self.opts.max_steps, self.opts.max_cost, self.opts.max_session_cost),
                             steps=step, turn_cost=self.turn_cost, session_cost=self.session_cost)
                if stop is not None:
                    status = stop.status
                    yield ev.ErrorEvent(stop.message, fatal=False)
                    break
                step += 1
                for e in await self.compact():
                    yield e
                for warning in self.new_warnings():
                    yield ev.WarningRaised(warning)
                yield ev.StepStarted(step)
                overflow_retry = False
                while True:
                    asm = eng.assemble(self.runner.schemas(eng), auto_compact=False)
                    bd = self._with_reasoning(asm.breakdown.to_json(), asm.messages)
                    budget_event = ev.BudgetUpdated.from_breakdown(bd, step, eng.turn)
                    budget_event.calibration = round(self.calibration.factor, 4)
                    budget_event.estimated_prompt_tokens = self.calibration.estimate(bd["total"])
                    decision = eng.compactor.decision
                    budget_event.compaction = decision.reason if decision is not None else ""
                    yield budget_event
                    for e in self._thresholds(bd):
                        yield e
                    completion = None
                    partial = ""
                    try:
                        llm = fit_answer(self.llm, budget_event.estimated_prompt_tokens)  # (Ollama: may refuse it here)
                        eng.request_sent(asm)
                        async for e in llm_mod.stream_completion(
                                llm, asm.messages, asm.tools or None, cache_breakpoints=asm.cache_breakpoints,
                                session_id=eng.session_id, reasoning=self._reasoning_map()):
                            if isinstance(e, llm_mod.TextDelta):
                                partial += e.text
                                self._keep_streamed(partial)
                                yield ev.TextDelta(e.text)
                            elif isinstance(e, llm_mod.Retrying):
                                if e.discarded:
                                    partial = ""
                                yield ev.Retrying(e.attempt, e.delay, e.reason, discarded=e.discarded)
                            elif isinstance(e, llm_mod.Completion):
                                completion = e
                        break
                    except llm_mod.ContextOverflow as exc:
                        if overflow_retry:
                            raise llm_mod.LLMError(f"the request is still too large after compacting: {exc}") from exc
                        overflow_retry = True
                        yield ev.Retrying(1, 0.0, "context window exceeded: compacting harder, then retrying once")
                        if exc.size and self.calibration.observe(bd["total"], exc.size):  # (its count, not ours)
                            eng.plan = make_plan(eng.settings, self.calibration.factor)
                        smaller = self._window_stated(exc.limit)
                        if smaller:
                            yield ev.ErrorEvent(smaller, fatal=False)
                        self._shorten_old_calls()
                        for e in await self.compact(force=True, summarise=False):  # (said after the retry line)
                            yield e
                if completion is None:
                    raise llm_mod.LLMError("the model returned no completion")
                usage = await self._count_usage(completion)
                if usage is not None:
                    yield usage
                    unpriced = unpriced_notice(self.llm.model, self.llm.prices, completion.usage, self.llm.api_base) \
                        if self.llm is not None and "unpriced" not in self._announced else None
                    if unpriced:
                        self._announced.add("unpriced")
                        yield ev.ErrorEvent(unpriced, fatal=False)
                    if not completion.usage.estimated and self.calibration.observe(bd["total"], usage.prompt_tokens):
                        eng.plan = make_plan(eng.settings, self.calibration.factor)
                written = adopt_text_calls(completion, asm.tools) if local_server(self.llm) else None  # (its text)
                with eng.lock:  # (a pin from the inspector's thread may add an item meanwhile)
                    earlier = {str(c.get("id")) for it in eng.items.values() for c in it.tool_calls or () if c.get("id")}
                unique_call_ids(completion.tool_calls, earlier)
                finish = self._judge(completion)
                item = eng.add_assistant(completion.text, assistant_calls(completion.tool_calls) or None,
                                         provenance=self._reply_provenance(completion, finish.status, written))
                self._streamed_recorded()
                partial = ""
                yield ev.AssistantMessage(item.id, completion.text, len(completion.tool_calls),
                                          reasoning=completion.reasoning or thinking_text(completion))
                if written is not None and "calls_from_text" not in self._announced:
                    self._announced.add("calls_from_text")  # (a model that does it once does it at every step)
                    yield ev.WarningRaised(written.notice + " Later ones are run the same way without a word.")
                if finish.notice:
                    yield ev.ErrorEvent(finish.notice, fatal=False)
                if finish.window_filled and (smaller := self._window_stated(finish.window_filled, "stopped a reply")):
                    yield ev.ErrorEvent(smaller, fatal=False)
                if not completion.tool_calls:
                    final_text = completion.text
                    if finish.status != "ok":
                        status = finish.status
                    break
                for call in completion.tool_calls:
                    if call.id in finish.cut_calls:
                        for e in self._answer_cut_call(call):
                            yield e
                        continue
                    async for e in self.runner.run_call(call, self):
                        if isinstance(e, ev.MemoSaved):
                            memo_saved_this_turn = True
                        yield e
        except asyncio.CancelledError:
            self._keep_partial(partial)
            self._streamed_recorded()
            raise
        except llm_mod.LLMError as exc:
            status = "error"
            cut = getattr(exc, "partial_text", "") or partial
            self._streamed_recorded()
            if cut:
                eng.add_assistant(cut + "\n\n[cut: the model's stream broke]", None, provenance={"cut": True})
                final_text = cut
            else:
                self._close_unanswered(f"the request failed ({str(exc).splitlines()[0][:160]})")
            yield ev.ErrorEvent(str(exc), fatal=True)
        if status == "done" and not memo_saved_this_turn and self._was_task():
            yield await self.write_memo("auto")
        for warning in self.new_warnings():
            yield ev.WarningRaised(warning)
        yield ev.TurnFinished(eng.turn, step, final_text, status)

    def _reply_provenance(self, completion: Any, finish: str, written: TextCalls | None = None) -> dict[str, Any] | None:
        """What the record keeps beyond the message: unparsable arguments as received, how it ended, the text
        its calls were read from."""
        prov: dict[str, Any] = {}
        if written is not None:
            prov["calls_from_text"] = self.engine.redact(written.text)[:4000]
        raw = {c.id: self.engine.redact(c.arguments)[:4000] for c in completion.tool_calls if c.arguments_error}
        if raw:
            prov["raw_arguments"] = raw
        if finish != "ok":
            prov["finish"] = finish
        data = getattr(completion, "provider_data", None)
        if data and (completion.tool_calls or self._closes_tool_turn(data)):
            prov["provider_data"] = data  # sent back while this tool loop runs (llm_provider)
        return prov or None

    def _answer_cut_call(self, call: Any) -> list[ev.Event]:
        """A call cut mid-arguments by the output limit: answered with an error, never run."""
        item = self.engine.add_tool_result(call.id, call.name, CUT_CALL_RESULT, provenance={"error": True, "cut": True})
        return [ev.ToolCallStarted(call.id, call.name, call.arguments, self.runner.kind_of(call.name)),
                ev.ToolCallFinished(call.id, call.name, CUT_CALL_RESULT, True, None, 0,
                                    self.engine.counter.count(CUT_CALL_RESULT), item.id, {})]

    def _shorten_old_calls(self) -> int:
        """Before the 'compacted harder' retry: shorten long arguments of calls that already ran."""
        return shorten_answered(self.engine)

    def _was_task(self) -> bool:
        """True if this turn changed something (edits or commands), i.e. a task ended."""
        for i in reversed(self.engine.order):
            it = self.engine.items[i]
            if it.turn != self.engine.turn:
                break
            for c in it.tool_calls or []:
                if c.get("function", {}).get("name") in ("edit_file", "write_file", "run_command"):
                    return True
        return False

    def _close_unanswered(self, why: str, cancelled: bool = False) -> None:
        """A turn that ended before any reply leaves the user's message last: the next one would be sent
        joined to it (two user messages in a row), so every later turn repeated the cancelled or failing
        request.  A short assistant note closes it and says why."""
        eng = self.engine
        last = next((eng.items[i] for i in reversed(eng.order) if eng.items[i].role is not None), None)
        if last is not None and last.role == "user" and last.turn == eng.turn:
            eng.add_assistant(f"[no reply: {why}]", None, provenance={"cut": True, **({"cancelled": True} if cancelled else {})})

    def _keep_partial(self, partial: str) -> None:
        """Cancelled: keep what streamed, marked cut; answer pending calls as cancelled."""
        eng = self.engine
        if partial:
            eng.add_assistant(partial + CUT_MARK, None, provenance={"cut": True, "cancelled": True})
        else:
            self._close_unanswered("the user cancelled the turn before the model answered; do not act on that "
                                   "message unless the user asks again", cancelled=True)
        pending = self.runner.pending_calls(eng)
        for call_id, name in pending:
            eng.add_tool_result(call_id, name, "[stopped before this call finished (cancelled by the user, or agent-tui was closed)]",
                                provenance={"error": True, "cancelled": True})  # never ran: shown as failed


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """(args, None) or (None, error) for a tool call's JSON arguments."""
    try:
        val = loads_json(raw or "{}")
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(val, dict):
        return None, f"must be a JSON object, got {type(val).__name__}"
    return val, None


__all__ = ["Agent", "LoopOptions", "Approver", "Category"]
