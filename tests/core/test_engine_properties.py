"""Property tests over random sessions (issue 2, "Must show" (a)–(f)).

A session is a random sequence of user messages, assistant messages with 0–3
parallel tool calls (some interrupted) and results of random sizes, file reads
and edits, pins, unpins, evicts, restores, memos, end_turn, end_task, rules and
forced compactions, on small windows (4K–32K).  After every step the engine
assembles a request and the invariants are checked against it and the store.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.assembler import _status_reserve
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine, EngineError
from agent_tui.core.estimate import group_cost
from agent_tui.core.items import Category, State
from agent_tui.core.pairing import check_pairing
from agent_tui.store.workspace import Workspace
from tests.core.core_helpers import AlwaysFails, call, filler, request_text

TOOLS = [
    {"type": "function", "function": {"name": "run_command", "description": "Run a shell command.",
                                      "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}},
]

size = st.integers(0, 400)
big = st.integers(0, 3000)
pick = st.integers(0, 10_000)
OPS = st.one_of(
    st.tuples(st.just("user"), st.integers(1, 300)),
    st.tuples(st.just("user"), st.integers(1, 60)),
    st.tuples(st.just("assistant"), st.integers(0, 150), st.lists(st.one_of(st.none(), big), max_size=3)),
    st.tuples(st.just("assistant"), st.integers(0, 150), st.lists(st.integers(0, 200), min_size=1, max_size=3)),
    st.tuples(st.just("assistant"), st.integers(0, 150), st.lists(st.one_of(st.none(), big), max_size=3)),
    st.tuples(st.just("read"), st.integers(0, 3), st.integers(1, 1200)),
    st.tuples(st.just("edit"), st.integers(0, 3), st.integers(1, 1200)),
    st.tuples(st.just("pin"), pick),
    st.tuples(st.just("unpin"), pick),
    st.tuples(st.just("evict"), pick),
    st.tuples(st.just("restore"), pick),
    st.tuples(st.just("memo"), size),
    st.tuples(st.just("rule"), st.integers(1, 80)),
    st.tuples(st.just("end_turn")),
    st.tuples(st.just("end_task")),
    st.tuples(st.just("compact")),
)
#: Raise for a deeper search, e.g. ENGINE_EXAMPLES=2000.
EXAMPLES = int(os.environ.get("ENGINE_EXAMPLES", "120"))
WINDOWS = st.sampled_from([4096, 8192, 16384, 32768])


@dataclass
class Driver:
    """Applies ops to a real engine backed by a real store, remembering what was added."""

    eng: ContextEngine
    ws: Workspace
    allow_evict: bool = True
    added: list[tuple[str, str, str, str | None]] = field(default_factory=list)
    original: dict[str, str] = field(default_factory=dict)
    restored: list[str] = field(default_factory=list)
    n: int = 0

    def _tag(self, kind: str) -> str:
        self.n += 1
        return f"{kind}{self.n}"

    def _record(self, item: Any) -> None:
        self.added.append((item.id, item.role, item.content, item.tool_call_id))
        self.original[item.id] = item.content

    def apply(self, op: tuple[Any, ...]) -> None:
        eng, kind = self.eng, op[0]
        self.restored = []
        if kind == "user":
            self._record(eng.add_user(filler(self._tag("user"), op[1])))
        elif kind == "assistant":
            calls = [call(f"c{self.n}_{j}", command=f"cmd {j % 2}") for j in range(len(op[2]))]
            self._record(eng.add_assistant(filler(self._tag("asst"), op[1]) if op[1] else "", calls or None))
            for c, res in zip(calls, op[2], strict=True):
                if res is None:
                    continue  # interrupted: the call never got a result
                text = filler(self._tag("out"), res) + ("\n3 passed in 0.1s" if res % 3 == 0 else "")
                if res % 5 == 1:
                    text += "\nundecodable \udcff\udc80 bytes"  # as read with surrogateescape
                item = eng.add_tool_result(c["id"], "run_command", text,
                                           provenance={"command": c["function"]["arguments"]})
                self._record(item)
        elif kind in ("read", "edit"):
            path = f"src/mod{op[1]}.py"
            text = filler(self._tag(f"file{op[1]}-"), op[2])
            (eng.note_file_read if kind == "read" else eng.note_file_edit)(path, text)
        elif kind in ("pin", "unpin", "evict", "restore"):
            ids = list(eng.order)
            if kind == "unpin":
                ids = [i for i in ids if eng.items[i].pinned] or ids
            if kind == "restore":
                ids = [i for i in ids if eng.items[i].state in (State.EVICTED, State.SUMMARISED)] or ids
            if kind == "evict" and not self.allow_evict:
                return
            if not ids:
                return
            target = ids[op[1] % len(ids)]
            was_out = eng.items[target].state != State.IN or "stub" in eng.items[target].provenance
            try:
                getattr(eng, kind)(target)
            except EngineError:
                assert kind == "evict"
                item = eng.items[target]
                assert item.pinned or (item.role == "user" and item.turn == eng.turn)
                return
            if kind == "restore" and was_out:
                self.restored = [target]
        elif kind == "memo":
            eng.save_memo(filler(self._tag("memo"), op[1]))
        elif kind == "rule":
            eng.pin_rule(filler(self._tag("rule"), op[1]))
        elif kind == "end_turn":
            eng.end_turn()
        elif kind == "end_task":
            eng.end_task()
        elif kind == "compact":
            eng.compact(force=True)
        else:  # pragma: no cover
            raise AssertionError(kind)


def mandatory_tokens(eng: ContextEngine) -> int:
    """What must go in whatever the budget: system, pins, active files, the task, the latest step."""
    n = eng.system.tokens + eng.tools_tokens(TOOLS)
    n += sum(i.tokens + 12 for i in eng.items.values() if i.pinned)
    # a pinned output brings its group: the call (whole) and its sibling outputs (as stubs at least)
    for it in [i for i in eng.items.values() if i.pinned and i.role == "tool"]:
        owner = eng.actions.call_owner(it.tool_call_id)
        if owner is not None and not owner.pinned:
            n += owner.tokens + 4 + 80 * len(owner.tool_calls or [])
            n += sum(min(r.tokens, 30) + 4 for r in eng.actions.results_of(owner) if not r.pinned)
    n += sum(f.tokens + 1 for f in (eng.get("f:" + p) for p in eng.files.files))
    # the compaction block is frozen between events (a memo shown now stays until the next one)
    n += sum(it.tokens + 1 for it in eng.block.items if it.category != Category.FILES and not it.pinned)
    # ... and a file note showing an active file's current text is that file's content in the request
    notes = {i for i in eng.window.shown_note.values() if i in eng.items and eng.items[i].in_window}
    n += sum(eng.items[i].tokens + 4 for i in notes if eng.items[i].role == "user")
    msgs = [eng.items[i] for i in eng.order if eng.items[i].role is not None]
    task = [m for m in msgs if m.role == "user" and m.turn == eng.turn]
    n += sum(m.tokens + 4 for m in task)
    last_asst = [m for m in msgs if m.role == "assistant" and m.turn == eng.turn]
    if last_asst:
        a = last_asst[-1]
        n += a.tokens + 4 + 80 * len(a.tool_calls or [])
    return n + 400  # section headers, status line, stubs


#: The compaction block is frozen between events: it goes in whole, like the head.
MANDATORY_REASONS = {"system prompt", "pinned", "active file", "current task", "latest step", "compaction block"}


def base_reason(reason: str) -> str:
    """'active file (protected)' -> 'active file'; 'stubbed: why (latest step)' -> 'latest step'."""
    if reason.startswith("stubbed"):
        return reason.rsplit("(", 1)[-1].rstrip(")")
    return reason.split(" (")[0]


def group_tokens(eng: ContextEngine, it: Any) -> int:
    """At least what an item costs with the message it cannot go without (its call)."""
    n = it.tokens
    if it.role == "tool":
        owner = eng.actions.call_owner(it.tool_call_id)
        n += owner.tokens + 30 * len(owner.tool_calls or []) if owner is not None else 0
    elif it.tool_calls:
        n += 30 * len(it.tool_calls)
        # its results go with it, each at least as long as a stub would be
        n += sum(min(r.window_tokens, 30) for r in eng.actions.results_of(it))
    return n


def check_assembly(d: Driver) -> None:
    eng = d.eng
    # The request estimate remembers each group's cost; it must equal a fresh sum after any operation.
    groups = eng.history.window_groups()[0]
    remembered = sum(eng.history.group_cost(g, lambda g: group_cost(eng, g)) for g in groups)
    assert remembered == sum(group_cost(eng, g) for g in groups)
    asm = eng.assemble(TOOLS)
    bd = asm.breakdown
    plan = eng.plan
    text = request_text(asm.messages)

    # The request can be sent: JSON-encodable as UTF-8.
    json.dumps(asm.messages, ensure_ascii=False).encode("utf-8")

    # (c) pairing and roles are valid in every assembly.
    assert check_pairing(asm.messages) == []
    roles = {m["role"] for m in asm.messages}
    assert roles <= {"system", "user", "assistant", "tool"}

    # (a) fits the budget, or says so.
    real = eng.counter.count_messages(asm.messages) + eng.tools_tokens(TOOLS)
    assert bd.input_budget == plan.input_budget
    if mandatory_tokens(eng) <= plan.input_budget:
        assert not bd.over_budget, (bd, mandatory_tokens(eng))
    if not bd.over_budget:
        assert bd.total <= bd.input_budget
        assert real <= bd.input_budget + plan.margin, (real, bd)
    else:
        assert mandatory_tokens(eng) > plan.input_budget * 0.8, (bd, mandatory_tokens(eng))

    # (b) every pin and every active file's latest content is in the request.
    for it in eng.items.values():
        if it.pinned:
            assert it.content in text, f"pinned {it.id} missing"
    for path, af in eng.files.files.items():
        item = eng.get(f"f:{path}")
        note = eng.window.shown_note.get(path)
        if note and eng.items[note].provenance.get("region"):
            # an edit to a big file already shown: the note carries the changed lines (numbered), and
            # the rest reads as shown before; the next event puts the whole text in the block
            assert eng.items[note].content in text, f"file note of {path} missing"
            continue
        assert item.content in text, f"active file {path} missing"
        if af.content not in text:
            # Only a file over the per-file limit is cut: a pinned one keeps its head, any other is
            # named with its size (the read results carry what was read; no unrequested head).
            if af.pinned:
                assert "truncated in the window" in item.content, path
                assert af.content[:800] in text, path
            else:
                assert "Too large to keep whole" in item.content and af.content[:800] not in item.content, path

    # (e) a restored item comes back verbatim, and into this very assembly if it can fit at all.
    for rid in d.restored:
        it = eng.items[rid]
        assert it.content == d.original.get(rid, it.content)
        assert it.state == State.IN
        if it.role is not None and it.content not in text:
            why = [t.reason for t in asm.trace if t.item_id == rid]
            assert why and ("over budget" in why[0] or "to fit the window" in why[0]), (rid, why)
            # Only what must go in (tools, system, pins, files, the task, the latest step) came first.
            # (other items the user restored compete for the same room, and go in before it)
            first = eng.tools_tokens(TOOLS) + sum(t.tokens for t in asm.trace if t.included and (
                base_reason(t.reason) in MANDATORY_REASONS or "restored by the user" in t.reason))
            # 150 for message overheads and call JSON, plus the room kept for the status line
            slack = 150 + _status_reserve(plan, eng.counter, "")
            assert first + group_tokens(eng, it) + slack > plan.input_budget, (rid, first, asm.trace)

    # The trace accounts for every message, and what it says matches the items' states now.
    traced = {t.item_id: t for t in asm.trace}
    for it in eng.items.values():
        if it.role is None:
            continue
        assert it.id in traced, f"{it.id} is not in the trace"
        t = traced[it.id]
        if t.reason.startswith("summarised into"):
            assert it.state == State.SUMMARISED and t.reason == f"summarised into {it.summarised_into}", it.id
        if t.included and not it.pinned and t.reason in ("recent history", "current task", "this turn"):
            assert it.state in (State.IN, State.STALE) or it.role == "tool", (it.id, it.state)

    # (d) every message ever added is in the store, verbatim and in order.
    rows = eng.store.messages(eng.session_id)
    assert [(r["item_id"], r["role"], r["content"], r["tool_call_id"]) for r in rows] == d.added
    # ... and the store's item states agree with the engine's.
    stored = {i.id: i for i in eng.store.load_items(eng.session_id)}
    for it in eng.items.values():
        if it.id.startswith("rule"):
            continue
        s = stored[it.id]
        assert (s.state, s.pinned, s.content) == (it.state, it.pinned, it.content), it.id


def run_session(window: int, ops: list[tuple[Any, ...]], summarisers: Any = None,
                allow_evict: bool = True) -> Driver:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp), settings=Settings.default(window=window))
        try:
            eng = ws.engine(new=True, summarisers=summarisers)
            d = Driver(eng, ws, allow_evict=allow_evict)
            for op in ops:
                d.apply(op)
                check_assembly(d)
            return d
        finally:
            ws.close()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=WINDOWS, ops=st.lists(OPS, min_size=1, max_size=40))
# two restored outputs of the latest step that do not fit together: one still goes in whole
@example(window=8192, ops=[("assistant", 0, [None, 2925, 2961]), ("pin", 0), ("assistant", 0, []),
                           ("restore", 0), ("restore", 0)])
# a summary segment pinned between events rides in the head, not also in the frozen block
@example(window=4096, ops=[("user", 9), ("user", 94), ("user", 67), ("user", 93), ("user", 94), ("user", 93),
                           ("user", 231), ("assistant", 121, [None, 1338]), ("pin", 869), ("restore", 0),
                           ("restore", 0)])
# a restored message competes only with what must go in; the frozen block is part of that
@example(window=4096, ops=[("user", 20), ("assistant", 57, [0, 0, 0]), ("user", 68), ("user", 94), ("user", 93),
                           ("user", 233), ("user", 300), ("pin", 1), ("memo", 19), ("assistant", 150, [None, 1356]),
                           ("restore", 7)])
def test_random_sessions_keep_the_invariants(window: int, ops: list[tuple[Any, ...]]) -> None:
    run_session(window, ops)


@settings(max_examples=max(10, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=WINDOWS, ops=st.lists(OPS, min_size=1, max_size=40))
def test_failing_summariser_drops_nothing(window: int, ops: list[tuple[Any, ...]]) -> None:
    """(f): compaction attempts with a summariser that always fails evict nothing."""
    fails = AlwaysFails()
    d = run_session(window, ops + [("compact",)], summarisers=[fails], allow_evict=False)
    eng = d.eng
    for it in eng.items.values():
        assert it.state != State.SUMMARISED, it.id
        if it.role is not None:
            assert it.state == State.IN, it.id
    assert all(c.error for c in eng.compactions)
