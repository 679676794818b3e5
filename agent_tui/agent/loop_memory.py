"""What the agent loop writes into its own memory: progress memos, compaction events, threshold notices.

Split from the loop (``agent/loop.py``) because it is one idea of its own: each of these asks the model
for text about the session (a memo, a summary) with the request as it stands, so the provider's cache
serves it, and falls back to the extractive writer when the model's text cannot be used.
"""

from __future__ import annotations

from typing import Any

from agent_tui.agent import events as ev
from agent_tui.agent.memo_writer import extractive_memo, repeats_instruction
from agent_tui.agent.prompts import render_prompt
from agent_tui.agent.summariser_llm import (
    summary_call_room,
    summary_request_cached,
    unusable_summary,
)
from agent_tui.core.items import State
from agent_tui.core.summary import ExtractiveSummariser


class MemoryEvents:
    """Mixed into the agent loop (which has ``engine``, ``llm``, ``opts``, ``runner``, ``_announced`` and
    ``_complete_text``)."""

    engine: Any
    llm: Any
    opts: Any
    runner: Any
    _announced: set[str]
    _complete_text: Any

    async def write_memo(self, kind: str) -> ev.MemoSaved:
        """Write and store a progress memo (LLM first, extractive fallback)."""
        text = ""
        if self.llm is not None and self.opts.memo_writer == "llm":
            try:
                # the tools and cache marks of a step: the prefix stays the cached one (with no tools, litellm
                # adds a dummy tool to a Claude history that holds tool calls, and nothing was served from cache)
                asm = self.engine.assemble(self.runner.schemas(self.engine), auto_compact=False, status=False,
                                           log=False)
                msgs = [dict(m) for m in asm.messages]
                prompt = render_prompt("memo", max_words=150)
                if msgs[-1]["role"] == "user":
                    msgs[-1]["content"] = f"{msgs[-1]['content']}\n\n{prompt}"
                else:
                    msgs.append({"role": "user", "content": prompt})
                text = await self._complete_text(msgs, asm.tools or None, asm.cache_breakpoints)
                if repeats_instruction(text, prompt):  # (an echo is no memo: the next session would start from it)
                    text = ""
            except Exception:  # the extractive memo below never fails
                text = ""
        by_model = bool(text)
        if not text:
            text = extractive_memo(self.engine)
        item = self.engine.save_memo(text, kind=kind, by_model=by_model)
        return ev.MemoSaved(item.id, kind, text)

    async def compact(self, force: bool = False, focus: str = "", summarise: bool = True) -> list[ev.Event]:
        """A compaction event: memo, then one summarising call, then the batch is applied.

        The memo is extractive (no model call).  The summarising call resends the request as it
        stands — same head, same block, same history, so a provider bills it mostly as cache
        reads — with the instruction at the end (``summary_request_cached``).  It writes only the
        next summary segment (what the rounds leaving add), unless the segments outgrow their
        share, when it rewrites the whole summary.  If it fails, the extractive summary is used.
        ``focus`` (from `/compact FOCUS`) says what to keep above all.  ``summarise=False``: no summarising
        call (after a refusal for size, it would resend the request that was too large); nor is one made
        for a batch too small to pay for it (``Compactor.worth_a_call``) unless the user asked for the event.
        """
        self.engine.prepare_step()
        plan = self.engine.plan_compaction(force=force)
        if plan is None:
            return []
        out: list[ev.Event] = self._memo_event(extractive_memo(self.engine), "pre-compaction")
        summary = ExtractiveSummariser().summarise(plan.summary_items, self.engine.summary)
        comp = self.engine.compactor
        whole = comp.consolidates(self.engine.counter.count(comp.segment_text(summary)))
        name, sent, error = "extractive", 0, None
        if summarise and self.llm is not None and self.opts.summariser == "llm" and plan.summary_items \
                and (force or focus or comp.worth_a_call(plan, whole)):
            try:
                previous = "\n\n".join(it.content for it in comp.segments if it.state == State.IN
                                         and not it.pinned) if whole else None
                asm = self.engine.assemble(self.runner.schemas(self.engine), auto_compact=False, status=False,
                                           log=False)
                msgs = summary_request_cached(asm.messages, plan.summary_items, previous, focus,
                                              max_words=comp.summary_words(whole))
                sent = self.engine.counter.count_messages(msgs)
                room = summary_call_room(self.engine.plan, sent + self.engine.head.tools_tokens,
                                         self.llm.max_output_tokens)
                if room is None:
                    error = ("the summarising call would not fit the window (the request as it stands, the "
                             "instruction and the summary); used the extractive summary")
                    sent = 0
                    text = ""
                else:
                    text = await self._complete_text(msgs, asm.tools or None, asm.cache_breakpoints, max_tokens=room)
                junk = unusable_summary(text) if text else ""
                size = self.engine.counter.count(text) if text else 0
                if junk:
                    error = f"the model's summary was not used ({junk}); used the extractive summary"
                elif text and size > comp.summary_cap():
                    error = (f"the model's summary ({size:,} tokens) is larger than the summary's share of the window "
                             f"({comp.summary_cap():,}); used the extractive summary, cut to the share")
                elif text:
                    summary.text_override = text
                    name = "llm"
            except Exception as exc:  # fall back to the extractive summary already made
                error = f"LLM summariser failed ({exc}); used the extractive summary"
        res = self.engine.apply_compaction(plan, summary, name, sent, whole)
        if self.runner.mcp is not None:
            try:
                self.runner.mcp.compact()  # the loaded tool set shrinks only at compaction
            except Exception:
                pass
        out.append(ev.Compacted(len(res.evicted), res.summary_id, name, res.tokens_before, res.tokens_after,
                                res.reason, error))
        return out

    def _memo_event(self, text: str, kind: str) -> list[ev.Event]:
        """Save a memo; the event that says so, or none when the task's own memo was kept instead (core/memos)."""
        item = self.engine.save_memo(text, kind=kind)
        return [ev.MemoSaved(item.id, kind, text)] if item.provenance.get("kind") == kind else []

    def _thresholds(self, bd: dict[str, Any]) -> list[ev.Event]:
        out: list[ev.Event] = []
        pct = bd["used_pct"] / 100.0
        for level, at, msg in (
            ("fresh", bd["fresh_at"], "The window is {p:.0f}% full: start a fresh session seeded by a memo (/new)."),
            ("compact", bd["compact_at"], ("The window is {p:.0f}% full, past the compaction point: older rounds are "
                                          "summarised when they exceed their share; /compact does it now.")),
        ):
            if pct >= at and level not in self._announced:
                self._announced.add(level)
                if level == "fresh":
                    self._announced.add("compact")  # (past both: "past the compaction point" after it read backwards)
                out.append(ev.ThresholdCrossed(level, bd["used_pct"], msg.format(p=bd["used_pct"])))
                break
            if pct < at * 0.9:
                self._announced.discard(level)
        return out
