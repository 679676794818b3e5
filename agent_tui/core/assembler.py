"""The assembler: turns context items into the exact request for one model call.

The request is laid out by how often each part changes (DESIGN §1), because a
provider's prompt cache bills a repeated prefix at about a tenth:

1. **head** — one system message: the system prompt, pinned rules and pins
   carried out of their groups (tool definitions travel beside it).  Changes
   only when the user pins or unpins.
2. **compaction block** — system messages frozen at the last compaction
   event: the protected files' text, one message per file (unchanged files
   keep their bytes and place across events), then the rolling summary, the
   latest memo and recalled memories (:mod:`agent_tui.core.block`).
3. **history** — every message since the last event, append-only: a message
   once sent is sent byte-identical until the next event (shaping happened when
   it entered; stubs and evictions happen only inside an event).  File notes
   (a file's new text after an edit or an outside change) are history too.
4. **tail** — the one-line budget status, last (:mod:`agent_tui.core.tail`).

``cache_breakpoints`` marks the head, the block's last file and its last
message, and the history's end.  Mandatory parts (head, block, tool definitions, the task and the
latest step) always go in; when the history does not fit (an event could not
run, e.g. every summariser failed) older groups are left out newest-last and
outputs squeezed to stubs, visibly in the trace.

The result carries a breakdown (tokens per category) and a trace (every item
in or out, with the reason), and the messages are always valid for the
OpenAI and Anthropic APIs: every tool call has exactly one result right after
it, no orphan results, the first turn is the user's, no two user or two plain
assistant messages in a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_tui.core.block import SECTION_HEADERS, CompactionBlock, render_sections, section_of
from agent_tui.core.budget import BudgetPlan
from agent_tui.core.call_args import calls_tokens
from agent_tui.core.items import CATEGORY_ORDER, Category, ContextItem, State
from agent_tui.core.memory import Group, recently_restored
from agent_tui.core.pairing import normalise
from agent_tui.core.tail import (
    STATUS_RESERVE,
    append_tail,
    status_line,
    status_reserve,
    worth_sending,
)
from agent_tui.core.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, TokenCounter

__all__ = ["SECTION_HEADERS", "STATUS_RESERVE", "Assembly", "AssemblyInput", "Breakdown", "TraceEntry", "assemble"]
_status_reserve = status_reserve
_status_line = status_line


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
    """Tokens per category, each item under its own category (as the inspector lists it); they add up to
    ``total``: what is no item's (message and request framing, section headers, the status line) is ``system``."""
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
    tail_on: tuple[str, str] | None = None
    """(item id, line) when the status line joined that item's message: the engine keeps it there."""
    file_views: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Active files this request shows changed by a file note: path → (hash, ``whole``/``region``/``none``)."""

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
    """The head's items: pinned rules and pins carried out of their groups."""
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
    block: CompactionBlock | None = None
    """The compaction block (frozen at the last event)."""
    keep: frozenset[str] = frozenset()
    """History items that must go in like pins (the file notes showing active files, the task statement)."""
    turn_start: bool = False
    """The newest history message is the user's (the status line goes with it)."""
    stuck: dict[str, str] = field(default_factory=dict)
    """Status lines sent joined to an item's message, by item id: sent with it again (``core/tail``)."""


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


def _squeeze_sparing(b: _Builder, g: Group, turn: int, room: int
                     ) -> tuple[list[tuple[ContextItem, str | None, int]], int]:
    """``g`` squeezed, keeping as many of the outputs the user just restored as fit in ``room``
    (smallest first): two restored outputs that do not fit together still leave one whole."""
    restored = sorted((it for it in g.items if recently_restored(it, turn)), key=lambda x: x.tokens)
    for k in range(len(restored), 0, -1):
        rendered = b.render_group(g, squeeze=True, spare=frozenset(it.id for it in restored[:k]))
        if rendered[1] <= room:
            return rendered
    return b.render_group(g, squeeze=True)


def _kept_why(g: Group) -> str:
    """Why a group outside the current turn must go in: a pin, the task statement, or a note showing a file."""
    if g.pinned:
        return "pinned"
    head = g.items[0]
    if head.role == "user" and not head.provenance.get("note"):
        return "task statement (kept until a message opens a new task)"
    return "pinned" if any(it.pinned for it in g.items) else "shows an active file's text"


class _Builder:
    """Accumulates chosen groups with their rendered contents and token costs."""

    def __init__(self, inp: AssemblyInput) -> None:
        self.inp = inp
        self.counter = inp.counter
        self.trace: list[TraceEntry] = []
        self.cats: dict[str, int] = {str(c): 0 for c in CATEGORY_ORDER}
        # The request's own framing (reply priming) is counted under system, with the other framing
        # (block message overhead, section headers, the status line), so the categories add up to the total.
        self.cats[str(Category.SYSTEM)] = REQUEST_OVERHEAD
        self.used = REQUEST_OVERHEAD
        self.chosen: dict[int, list[tuple[ContextItem, str | None, int]]] = {}
        self.stub_why: dict[str, str] = {}
        block_items = inp.block.items if inp.block is not None else []
        self.heads = frozenset(it.id for it in [*inp.blocks, *block_items])  # (what a stub may name as sent)

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
                    if it.summarised_into and it.summarised_into not in self.heads:
                        why = f"summarised into {it.summarised_into}, which is not sent"
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
                out.append((it, None, it.tokens + calls_tokens(it, self.counter) + MESSAGE_OVERHEAD))
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
        if self.inp.stuck:
            out = [(it, text, n + self.stuck_tokens(it)) for it, text, n in out]
        return out, sum(n for _, _, n in out)

    def stuck_tokens(self, it: ContextItem) -> int:
        """What the status line kept on ``it``'s message costs (0 for none)."""
        line = self.inp.stuck.get(it.id)
        return self.counter.count_cached(line) + 2 if line else 0

    def category_of(self, it: ContextItem) -> str:
        """Where a message's tokens are counted: under the item's own category, as the inspector lists it,
        whatever segment carries the message (a tool output of any turn is ``results``, a file note ``files``,
        a recalled memory ``memory``, a plain message ``history``)."""
        return str(it.category)

    def take(self, idx: int, rendered: list[tuple[ContextItem, str | None, int]], reason: str) -> None:
        self.chosen[idx] = rendered
        for it, text, n in rendered:
            self.cats[self.category_of(it)] += n
            self.used += n
            why = reason if text is None else f"stubbed: {self.stub_why.get(it.id, 'dropped after its turn')} ({reason})"
            self.trace.append(TraceEntry(it.id, True, why, n))


def assemble(inp: AssemblyInput) -> Assembly:
    """Build the request: head, block, history (all of it when it fits), tail."""
    plan, counter = inp.plan, inp.counter
    b = _Builder(inp)
    status_reserve_n = status_reserve(plan, counter, inp.status_note) if inp.status else 0
    budget = plan.input_budget - status_reserve_n

    # The head: system prompt, tool definitions, pinned rules and carried pins.
    sys_tokens = inp.system.tokens + MESSAGE_OVERHEAD
    b.cats[str(Category.SYSTEM)] += sys_tokens
    b.cats[str(Category.TOOLS)] += inp.tools_tokens
    b.used += sys_tokens + inp.tools_tokens
    b.trace.append(TraceEntry(inp.system.id, True, "system prompt", sys_tokens))
    header_cost: dict[Category, int] = {}
    for it in inp.blocks:
        cat = section_of(it)
        if cat not in header_cost:
            header_cost[cat] = counter.count_cached(SECTION_HEADERS[cat]) + 2
            b.cats[str(Category.SYSTEM)] += header_cost[cat]
            b.used += header_cost[cat]
        b.cats[str(it.provenance.get("counted_as") or it.category)] += it.tokens + 1
        b.used += it.tokens + 1
        b.trace.append(TraceEntry(it.id, True, "pinned", it.tokens + 1))
    # The compaction block, as frozen at the last event.
    block = inp.block if inp.block is not None and inp.block.texts else None
    if block is not None:
        b.used += MESSAGE_OVERHEAD * len(block.texts)
        b.cats[str(Category.SYSTEM)] += MESSAGE_OVERHEAD * len(block.texts)
        for it in block.items:
            b.cats[str(it.category)] += it.tokens + 1
            b.used += it.tokens + 1
            why = "compaction block"
            if it.category == Category.FILES:
                why = "a released file's import lines" if it.provenance.get("head") else "active file (protected)"
            b.trace.append(TraceEntry(it.id, True, why, it.tokens + 1))
        extra = max(0, block.tokens - MESSAGE_OVERHEAD * len(block.texts) - sum(it.tokens + 1 for it in block.items))
        b.cats[str(Category.SYSTEM)] += extra  # section headers
        b.used += extra

    groups = inp.groups
    cur = inp.current_turn
    task_idx = [i for i, g in enumerate(groups) if g.turn == cur and g.is_user]
    step_idx = [i for i, g in enumerate(groups) if g.turn == cur and not g.is_user]
    pinned_idx = [i for i, g in enumerate(groups) if (g.pinned or any(it.id in inp.keep for it in g.items))
                  and i not in task_idx and i not in step_idx[-1:]]
    # Mandatory groups go in whole if they all fit; otherwise the unpinned outputs of pinned
    # groups are stubbed (oldest first), then those of the latest step.  The task is never cut.
    squeezable = pinned_idx + step_idx[-1:]
    full = {i: b.render_group(groups[i], squeeze=False) for i in task_idx + squeezable}
    chosen = dict(full)
    need = b.used + sum(cost for _, cost in full.values())
    # first spare what the user just restored, then, if still over, squeeze everything squeezable
    # but the smallest restored outputs that still fit
    for keep_restored in (True, False):
        for i in squeezable:
            if need <= budget:
                break
            before = chosen[i][1]
            if keep_restored:
                chosen[i] = b.render_group(groups[i], squeeze=True, keep_restored=True)
            else:
                chosen[i] = _squeeze_sparing(b, groups[i], cur, budget - (need - before))
            need -= before - chosen[i][1]
    for i in task_idx + squeezable:
        reason = "current task" if i in task_idx else ("latest step" if i in step_idx else _kept_why(groups[i]))
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

    # The usual case: the whole history since the last event fits, and goes in as it was sent.
    rest = [i for i in range(len(groups)) if i not in b.chosen]
    rest_cost = {i: b.render_group(groups[i], squeeze=False) for i in rest}
    if b.used + sum(c for _, c in rest_cost.values()) <= budget:
        for i in rest:
            g = groups[i]
            reason = ("restored by the user" if any(recently_restored(it, cur) for it in g.items)
                      else "this turn" if g.turn == cur else "recent history")
            b.take(i, rest_cost[i][0], reason)
        rest = []
    # Otherwise (no event could make room): restored groups first, this turn's steps newest first
    # (squeezed rather than dropped), then older history newest first and contiguous.
    for i in [i for i in rest if any(recently_restored(it, cur) for it in groups[i].items)]:
        if not try_group(i, "restored by the user", allow_squeeze=True, keep_restored=True):
            restored = sorted((it for it in groups[i].items if recently_restored(it, cur)), key=lambda x: x.tokens)
            for k in range(len(restored) - 1, -1, -1):
                if try_group(i, "restored by the user", allow_squeeze=True,
                             spare=frozenset(it.id for it in restored[:k])):
                    break
    for i in reversed([i for i in step_idx[:-1] if i in rest]):
        if i in b.chosen:
            continue
        if not try_group(i, "this turn", allow_squeeze=True):
            for it in groups[i].items:
                b.trace.append(TraceEntry(it.id, False, "over budget (this turn)", it.tokens))
    older = [i for i in rest if groups[i].turn != cur and i not in b.chosen]
    stop = False
    for i in reversed(older):
        if not stop and try_group(i, "recent history", allow_squeeze=False):
            continue
        stop = True
        for it in groups[i].items:
            b.trace.append(TraceEntry(it.id, False, "over budget (older history)", it.tokens))
    traced = {t.item_id for t in b.trace if t.included}
    b.trace.extend(t for t in inp.excluded_trace if not (t.included and t.item_id in traced))  # (a file the block carries)
    for it, reason in inp.excluded:
        b.trace.append(TraceEntry(it.id, False, reason, it.tokens))

    messages, last = _build_messages(inp, b, block)
    history_end = len(messages) - 1
    tail_on = None
    if messages[-1]["role"] == "user" and history_end > 0:
        history_end -= 1  # a user message may still grow (a note or the status line joins it)
    shown = last is not None and last in inp.stuck  # (the last message carries a status line already)
    if inp.status and messages and not shown and worth_sending(plan, b.used, inp.status_note,
                                                               "user" if inp.turn_start else ""):
        line = status_line(plan, b.cats, b.used, inp.status_note)
        joined = not append_tail(messages, line)
        if joined and last is not None:
            tail_on = (last, line)  # it stays on that message from now on
        elif joined and messages[-1]["role"] == "tool":
            history_end -= 1  # the tail joined a message it will not stay on: the stable part ends before it
        b.cats[str(Category.SYSTEM)] += status_reserve_n  # an upper bound, so the line is never re-tokenised
        b.used += status_reserve_n
    heads = 1 + (len(block.texts) if block is not None else 0)
    marks = [0] + ([heads - 2, heads - 1] if heads > 2 else [1] if heads == 2 else [])
    if history_end >= heads:
        marks.append(history_end)
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
    return Assembly(messages=messages, tools=inp.tools, breakdown=bd, trace=b.trace, cache_breakpoints=marks,
                    tail_on=tail_on)


def _head_content(inp: AssemblyInput) -> str:
    order = (Category.RULES, Category.MEMORY, Category.SUMMARY, Category.FILES)
    return "\n\n".join([inp.system.content, *render_sections(inp.blocks, order)])


def _build_messages(inp: AssemblyInput, b: _Builder, block: CompactionBlock | None
                   ) -> tuple[list[dict[str, Any]], str | None]:
    """The request's messages, and the id of the item whose text ends the last message (None when none does:
    a made-up result, or ``normalise`` put another text after it)."""
    msgs: list[dict[str, Any]] = [{"role": "system", "content": _head_content(inp)}]
    if block is not None:
        msgs.extend(block.messages())
    last: tuple[str, dict[str, Any]] | None = None
    for i in sorted(b.chosen):
        for it, text, _ in b.chosen[i]:
            msg = _message(it, text)
            line = inp.stuck.get(it.id)
            if line and isinstance(msg.get("content"), str):
                msg["content"] = f"{msg['content']}\n\n{line}"
            msgs.append(msg)
            last = (it.id, msg) if ":" not in it.id else None
    out = normalise(msgs)
    if last is None:
        return out, None
    item_id, msg = last
    end = out[-1]
    merged_at_end = isinstance(end.get("content"), str) and isinstance(msg.get("content"), str) \
        and bool(msg["content"]) and end["content"].endswith(msg["content"])  # (normalise joined it after its neighbour: the line goes there)
    return out, item_id if end is msg or merged_at_end else None
