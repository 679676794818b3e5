"""The assembler: turns context items into the exact request for one model call.

Order is fixed (DESIGN §1): one system message holding the system prompt,
pinned rules, recalled memory and memos, the rolling summary and the active
files; then recent history; this turn's tool results come last because they
follow their calls.  Mandatory parts (system prompt, pins, active files, tool
definitions, the task message and the latest step) always go in; the rest is
filled by priority under the plan's input budget: this turn's earlier steps,
the summary, the latest memo, older history newest-first, recalled memories.

The result carries a breakdown (tokens per category) and a trace (every item
in or out, with the reason), and the messages are always valid for the
OpenAI and Anthropic APIs: every tool call has exactly one result right after
it, no orphan results, the first turn is the user's, no two user or two plain
assistant messages in a row.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.budget import BudgetPlan
from agent_tui.core.items import CATEGORY_ORDER, Category, ContextItem, State
from agent_tui.core.memory import Group, recently_restored
from agent_tui.core.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, TokenCounter

SECTION_HEADERS: dict[Category, str] = {
    Category.RULES: "## Project rules and pins (always apply)",
    Category.MEMORY: "## Memory and progress memos (for reference; may be outdated — verify before relying on it)",
    Category.SUMMARY: "## Summary of earlier conversation (extracted; originals are searchable with `recall`)",
    Category.FILES: "## Active files (latest content; edit from these)",
}
CONTINUATION = "[Earlier turns are summarised in the system message.]"
STATUS_RESERVE = 48


@dataclass
class TraceEntry:
    """Why one item is or is not in the request."""

    item_id: str
    """The item."""
    included: bool
    """In the request or not."""
    reason: str
    """A short reason: 'pinned', 'active file', 'fits', 'over budget', 'summarised into sum2'..."""
    tokens: int = 0
    """Tokens it costs (or would cost)."""


@dataclass
class Breakdown:
    """Token accounting of one request (what the gauges show)."""

    window: int
    """Context window."""
    reserve: int
    """Output reserve."""
    input_budget: int
    """window - reserve - margin."""
    categories: dict[str, int] = field(default_factory=dict)
    """Tokens per category."""
    total: int = 0
    """Tokens of the whole request."""
    over_budget: bool = False
    """True when even the mandatory parts exceed the budget."""
    compact_at: float = 0.75
    """Compaction threshold (share of the input budget)."""
    fresh_at: float = 0.90
    """Fresh-session threshold."""

    @property
    def free(self) -> int:
        return self.input_budget - self.total

    @property
    def used_pct(self) -> float:
        return 100.0 * self.total / self.input_budget if self.input_budget else 100.0

    def to_json(self) -> dict[str, Any]:
        """The `context --json` shape."""
        return {
            "window": self.window,
            "reserve": self.reserve,
            "input_budget": self.input_budget,
            "total": self.total,
            "free": self.free,
            "used_pct": round(self.used_pct, 2),
            "categories": dict(self.categories),
            "over_budget": self.over_budget,
            "compact_at": self.compact_at,
            "fresh_at": self.fresh_at,
        }


@dataclass
class Assembly:
    """The exact request for one model call and its explanation."""

    messages: list[dict[str, Any]]
    """OpenAI-format messages, exactly as sent."""
    tools: list[dict[str, Any]]
    """Tool definitions sent with the request."""
    breakdown: Breakdown
    """Tokens per category."""
    trace: list[TraceEntry]
    """Every item considered, in or out."""
    compaction: Any = None
    """The CompactionResult if this assembly compacted first."""
    cache_breakpoints: list[int] = field(default_factory=list)
    """Indices into ``messages`` of the last message of each stable segment (head, compaction
    block, history), ascending; the LLM layer puts provider cache markers there."""

    @property
    def item_ids(self) -> list[str]:
        return [t.item_id for t in self.trace if t.included]


@dataclass
class AssemblyInput:
    """Everything the assembler needs, prepared by the engine."""

    plan: BudgetPlan
    counter: TokenCounter
    system: ContextItem
    blocks: list[ContextItem]
    """Rules, pins, memory, memos, summary and files items that may go into the system message."""
    groups: list[Group]
    """History groups still in the window, oldest first."""
    excluded: list[tuple[ContextItem, str]]
    """Items not eligible (evicted, summarised) with the reason, for the trace."""
    current_turn: int
    tools: list[dict[str, Any]]
    tools_tokens: int
    status: bool = True
    """Append the one-line budget status to the last message."""
    status_note: str = ""
    """Extra text for the status line (e.g. a warning)."""
    excluded_trace: list[TraceEntry] = field(default_factory=list)
    """Trace entries of excluded items the engine built already (kept between assemblies)."""


def _stub_for(item: ContextItem, why: str) -> str:
    handle = item.provenance.get("handle") or item.id
    return f"[output of {item.name or 'tool'} {item.id} {why} ({item.tokens:,} tokens); fetch_result(\"{handle}\") pages it]"


def _message(item: ContextItem, content: str | None = None) -> dict[str, Any]:
    text = item.content if content is None else content
    if item.role == "tool":
        return {"role": "tool", "tool_call_id": item.tool_call_id, "content": text}
    if item.role == "assistant":
        msg: dict[str, Any] = {"role": "assistant", "content": text if (text or not item.tool_calls) else None}
        if item.tool_calls:
            msg["tool_calls"] = item.tool_calls
        return msg
    return {"role": item.role or "user", "content": text}


class _Builder:
    """Accumulates chosen groups with their rendered contents and token costs."""

    def __init__(self, inp: AssemblyInput) -> None:
        self.inp = inp
        self.counter = inp.counter
        self.trace: list[TraceEntry] = []
        self.cats: dict[str, int] = {str(c): 0 for c in CATEGORY_ORDER}
        self.used = REQUEST_OVERHEAD
        self.chosen: dict[int, list[tuple[ContextItem, str | None, int]]] = {}
        self.stub_why: dict[str, str] = {}

    def stub_tokens(self, item: ContextItem, why: str) -> tuple[str, int]:
        self.stub_why[item.id] = why
        text = _stub_for(item, why)
        return text, self.counter.count_cached(text) + MESSAGE_OVERHEAD

    def render_group(self, g: Group, squeeze: bool,
                     keep_restored: bool = False, spare: frozenset[str] = frozenset()
                     ) -> tuple[list[tuple[ContextItem, str | None, int]], int]:
        """Messages of a group with their costs; ``squeeze`` stubs its tool outputs
        (except, with ``keep_restored``, the ones the user just restored)."""
        out: list[tuple[ContextItem, str | None, int]] = []
        answered: set[str] = set()
        for it in g.items:
            if it.role == "tool":
                answered.add(it.tool_call_id or "")
                if it.pinned:
                    out.append((it, None, it.tokens + MESSAGE_OVERHEAD))
                elif it.state == State.EVICTED:
                    text, n = self.stub_tokens(it, "evicted by the user")
                    out.append((it, text, n))
                elif it.state not in (State.IN, State.STALE):
                    why = f"summarised into {it.summarised_into}" if it.summarised_into else f"{it.state}"
                    text, n = self.stub_tokens(it, why)
                    out.append((it, text, n))
                elif it.provenance.get("stub"):
                    out.append((it, it.provenance["stub"], int(it.provenance["stub_tokens"]) + MESSAGE_OVERHEAD))
                elif squeeze and it.tokens > 64 and not (keep_restored and
                                                         recently_restored(it, self.inp.current_turn)) \
                        and it.id not in spare:
                    text, n = self.stub_tokens(it, "left out to fit the window")
                    out.append((it, text, n))
                else:
                    out.append((it, None, it.tokens + MESSAGE_OVERHEAD))
            else:
                extra = 0
                if it.tool_calls:
                    extra = it.provenance.get("calls_tokens") or self.counter.count(json.dumps(it.tool_calls))
                    it.provenance["calls_tokens"] = extra
                out.append((it, None, it.tokens + extra + MESSAGE_OVERHEAD))
        head = g.items[0]
        for call in head.tool_calls or []:
            if call.get("id") not in answered:
                synth = ContextItem(
                    id=f"{head.id}:{call.get('id')}",
                    category=Category.RESULTS,
                    content="[no result recorded: the call was interrupted before it finished]",
                    tokens=0,
                    role="tool",
                    tool_call_id=call.get("id"),
                    turn=head.turn,
                )
                synth.tokens = self.counter.count_cached(synth.content)
                out.append((synth, None, synth.tokens + MESSAGE_OVERHEAD))
        return out, sum(n for _, _, n in out)

    def category_of(self, it: ContextItem) -> str:
        if it.role == "tool" and it.turn == self.inp.current_turn:
            return str(Category.RESULTS)
        if it.role is not None:
            return str(Category.HISTORY)
        return str(it.category)

    def take(self, idx: int, rendered: list[tuple[ContextItem, str | None, int]], reason: str) -> None:
        self.chosen[idx] = rendered
        for it, text, n in rendered:
            self.cats[self.category_of(it)] += n
            self.used += n
            why = reason if text is None else f"stubbed: {self.stub_why.get(it.id, 'dropped after its turn')} ({reason})"
            self.trace.append(TraceEntry(it.id, True, why, n))


def assemble(inp: AssemblyInput) -> Assembly:
    """Build the request: mandatory parts first, then fill by priority under the budget."""
    plan, counter = inp.plan, inp.counter
    b = _Builder(inp)
    status_reserve = _status_reserve(plan, counter, inp.status_note) if inp.status else 0
    budget = plan.input_budget - status_reserve

    # Fixed: system prompt, tool definitions, pins and active files.
    sys_tokens = inp.system.tokens + MESSAGE_OVERHEAD
    b.cats[str(Category.SYSTEM)] += sys_tokens
    b.cats[str(Category.TOOLS)] += inp.tools_tokens
    b.used += sys_tokens + inp.tools_tokens
    b.trace.append(TraceEntry(inp.system.id, True, "system prompt", sys_tokens))
    header_cost: dict[Category, int] = {}

    def add_block(it: ContextItem, reason: str) -> None:
        cat = it.category if it.category in SECTION_HEADERS else Category.RULES
        if cat not in header_cost:
            header_cost[cat] = counter.count_cached(SECTION_HEADERS[cat]) + 2
            b.cats[str(Category.SYSTEM)] += header_cost[cat]
            b.used += header_cost[cat]
        b.cats[str(it.category)] += it.tokens + 1
        b.used += it.tokens + 1
        b.trace.append(TraceEntry(it.id, True, reason, it.tokens + 1))

    chosen_blocks: list[ContextItem] = []
    optional_blocks: list[ContextItem] = []
    for it in inp.blocks:
        if it.pinned:
            add_block(it, "pinned")
            chosen_blocks.append(it)
        elif it.category == Category.FILES:
            add_block(it, "active file (protected)")
            chosen_blocks.append(it)
        else:
            optional_blocks.append(it)

    groups = inp.groups
    cur = inp.current_turn
    task_idx = [i for i, g in enumerate(groups) if g.turn == cur and g.is_user]
    step_idx = [i for i, g in enumerate(groups) if g.turn == cur and not g.is_user]
    pinned_idx = [i for i, g in enumerate(groups) if g.pinned and i not in task_idx and i not in step_idx[-1:]]
    # Mandatory groups go in whole if they all fit; otherwise the unpinned outputs of pinned
    # groups are stubbed (oldest first), then those of the latest step.  The task is never cut.
    squeezable = pinned_idx + step_idx[-1:]
    full = {i: b.render_group(groups[i], squeeze=False) for i in task_idx + squeezable}
    chosen = dict(full)
    need = b.used + sum(cost for _, cost in full.values())
    # first spare what the user just restored, then, if still over, squeeze everything squeezable
    for keep_restored in (True, False):
        for i in squeezable:
            if need <= budget:
                break
            before = chosen[i][1]
            chosen[i] = b.render_group(groups[i], squeeze=True, keep_restored=keep_restored)
            need -= before - chosen[i][1]
    for i in task_idx + squeezable:
        reason = "current task" if i in task_idx else ("latest step" if i in step_idx else "pinned")
        b.take(i, chosen[i][0], reason)
    over_budget = b.used > budget

    def try_group(i: int, reason: str, allow_squeeze: bool, keep_restored: bool = False,
                  spare: frozenset[str] = frozenset()) -> bool:
        if i in b.chosen:
            return True
        rendered, cost = b.render_group(groups[i], squeeze=False)
        if b.used + cost > budget and allow_squeeze:
            rendered, cost = b.render_group(groups[i], squeeze=True, keep_restored=keep_restored, spare=spare)
        if b.used + cost > budget:
            return False
        b.take(i, rendered, reason)
        return True

    def try_block(it: ContextItem, reason: str) -> bool:
        hdr = 0 if (it.category in header_cost) else counter.count_cached(SECTION_HEADERS.get(it.category, "")) + 2
        if b.used + it.tokens + 1 + hdr > budget:
            b.trace.append(TraceEntry(it.id, False, "over budget", it.tokens))
            return False
        add_block(it, reason)
        chosen_blocks.append(it)
        return True

    # Groups the user restored this turn or the last come back first (tool outputs squeezed if needed).
    for i, g in enumerate(groups):
        if i not in b.chosen and any(recently_restored(it, cur) for it in g.items):
            if not try_group(i, "restored by the user", allow_squeeze=True, keep_restored=True):
                # too big with every restored output whole: stub the largest ones first, keeping the rest
                restored = sorted((it for it in g.items if recently_restored(it, cur)), key=lambda x: x.tokens)
                for k in range(len(restored) - 1, -1, -1):
                    if try_group(i, "restored by the user", allow_squeeze=True,
                                 spare=frozenset(it.id for it in restored[:k])):
                        break
    # This turn's earlier steps, newest first (squeezed rather than dropped).
    for i in reversed(step_idx[:-1]):
        if i in b.chosen:
            continue
        if not try_group(i, "this turn", allow_squeeze=True):
            for it in groups[i].items:
                b.trace.append(TraceEntry(it.id, False, "over budget (this turn)", it.tokens))
    summaries = [it for it in optional_blocks if it.category == Category.SUMMARY]
    memos = sorted((it for it in optional_blocks if it.id.startswith("memo")), key=lambda x: -x.created_at)
    recalls = [it for it in optional_blocks if it.category == Category.MEMORY and not it.id.startswith("memo")]
    others = [it for it in optional_blocks if it not in summaries and it not in memos and it not in recalls]
    for it in summaries + memos[:1] + others:
        try_block(it, "fits")
    # Older history, newest first, contiguous: once a group does not fit, older ones stay out.
    older = [i for i in range(len(groups)) if groups[i].turn != cur and i not in b.chosen]
    stop = False
    for i in reversed(older):
        if not stop and try_group(i, "recent history", allow_squeeze=False):
            continue
        stop = True
        for it in groups[i].items:
            b.trace.append(TraceEntry(it.id, False, "over budget (older history)", it.tokens))
    for it in recalls + memos[1:]:
        try_block(it, "fits")
    b.trace.extend(inp.excluded_trace)
    for it, reason in inp.excluded:
        b.trace.append(TraceEntry(it.id, False, reason, it.tokens))

    messages = _build_messages(inp, chosen_blocks, b)
    status_tokens = 0
    if inp.status and messages:
        line = _status_line(plan, b.cats, b.used, inp.status_note)
        last = messages[-1]
        if last["role"] in ("user", "tool"):
            last["content"] = f"{last['content']}\n\n{line}"
            status_tokens = status_reserve  # an upper bound, so the line is never re-tokenised
            b.cats[str(Category.SYSTEM)] += status_tokens
            b.used += status_tokens
    total = b.used
    bd = Breakdown(
        window=plan.window,
        reserve=plan.reserve,
        input_budget=plan.input_budget,
        categories=b.cats,
        total=total,
        over_budget=over_budget or total > plan.input_budget,
        compact_at=plan.compact_at,
        fresh_at=plan.fresh_at,
    )
    return Assembly(messages=messages, tools=inp.tools, breakdown=bd, trace=b.trace)


def _status_reserve(plan: BudgetPlan, counter: TokenCounter, note: str) -> int:
    """Tokens the status line can cost at most (its longest form: full window, memo advice, note)."""
    worst = _status_line(plan, {"history": plan.window * 10}, plan.input_budget * 10, note)
    return max(STATUS_RESERVE, counter.count_cached(worst) + 4)


def _status_line(plan: BudgetPlan, cats: dict[str, int], used: int, note: str) -> str:
    pct = 100.0 * used / plan.input_budget if plan.input_budget else 100.0
    big = max(cats.items(), key=lambda kv: kv[1])
    line = (
        f"[context: {pct:.0f}% of {plan.input_budget:,} tokens used; largest: {big[0]} {big[1]:,}; "
        f"compaction at {plan.compact_at:.0%}]"
    )
    if pct >= plan.compact_at * 100:
        line += " Save a progress memo now (save_memo: what changed, why, what is left)."
    if note:
        line += " " + note
    return line


def _system_content(inp: AssemblyInput, blocks: Sequence[ContextItem]) -> str:
    parts = [inp.system.content]
    for cat in (Category.RULES, Category.MEMORY, Category.SUMMARY, Category.FILES):
        these = [it for it in blocks if (it.category if it.category in SECTION_HEADERS else Category.RULES) == cat]
        if cat == Category.MEMORY:
            these.sort(key=lambda x: x.created_at)
        if these:
            parts.append(SECTION_HEADERS[cat] + "\n" + "\n".join(it.content for it in these))
    return "\n\n".join(parts)


def _build_messages(inp: AssemblyInput, blocks: Sequence[ContextItem], b: _Builder) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": _system_content(inp, blocks)}]
    for i in sorted(b.chosen):
        for it, text, _ in b.chosen[i]:
            msgs.append(_message(it, text))
    return _normalise(msgs)


def _normalise(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop orphan tool results, merge same-role neighbours, start with a user turn."""
    out: list[dict[str, Any]] = [msgs[0]]
    expected: set[str] = set()
    for m in msgs[1:]:
        role = m["role"]
        if role == "tool":
            if m.get("tool_call_id") in expected:
                expected.discard(m["tool_call_id"])
                out.append(m)
            continue
        expected = {c.get("id") for c in m.get("tool_calls") or []} if role == "assistant" else set()
        prev = out[-1]
        if len(out) == 1 and role == "assistant":
            out.append({"role": "user", "content": CONTINUATION})
            prev = out[-1]
        if role == "user" and prev["role"] == "user":
            prev["content"] = f"{prev['content']}\n\n{m['content']}"
            continue
        if role == "assistant" and prev["role"] == "assistant" and not prev.get("tool_calls"):
            merged = "\n\n".join(x for x in (prev.get("content"), m.get("content")) if x)
            prev["content"] = merged or None
            if m.get("tool_calls"):
                prev["tool_calls"] = m["tool_calls"]
            continue
        out.append(m)
    return out


def check_pairing(messages: Sequence[dict[str, Any]]) -> list[str]:
    """Problems with tool-call pairing or role order (empty list means valid)."""
    problems: list[str] = []
    pending: list[str] = []
    seen_non_system = False
    for n, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            if seen_non_system:
                problems.append(f"#{n}: system message after the conversation started")
            continue
        if not seen_non_system and role != "user":
            problems.append(f"#{n}: first message after system is {role}, not user")
        seen_non_system = True
        if role == "tool":
            tid = m.get("tool_call_id")
            if tid in pending:
                pending.remove(tid)
            else:
                problems.append(f"#{n}: tool result {tid} answers no pending call")
            continue
        if pending:
            problems.append(f"#{n}: calls {pending} have no result before a {role} message")
            pending = []
        if role == "assistant":
            pending = [c.get("id") for c in m.get("tool_calls") or []]
    if pending:
        problems.append(f"end: calls {pending} have no result")
    return problems
