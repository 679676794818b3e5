"""The request is append-only between compaction events (issue 10, "What to build" 1).

Random agent sessions (user turns, steps with tool outputs of random sizes, file reads
and edits, files changed on disk) on small windows, assembled after every step: when
no compaction event ran, every request starts with the previous request's stable part
(everything up to its last cache breakpoint, i.e. all but the tail) byte for byte.
Events are rare and each one evicts deep; pinned rules and the task stay in every request.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.pairing import check_pairing
from tests.core.core_helpers import call, filler, request_text

OPS = st.one_of(
    st.tuples(st.just("step"), st.lists(st.integers(0, 1500), min_size=1, max_size=3)),
    st.tuples(st.just("step"), st.lists(st.integers(0, 200), min_size=1, max_size=2)),
    st.tuples(st.just("read"), st.integers(0, 3), st.integers(1, 600)),
    st.tuples(st.just("edit"), st.integers(0, 3), st.integers(1, 600)),
    st.tuples(st.just("disk"), st.integers(0, 3)),
    st.tuples(st.just("user"), st.integers(1, 80)),
)


def stable(asm: Any) -> list[dict[str, Any]]:
    """The request without its tail: up to the last cache breakpoint."""
    return asm.messages[: asm.cache_breakpoints[-1] + 1]


def run(window: int, ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        eng = ContextEngine(Settings.default(window=window), workspace=root)
        eng.pin_rule("RULE: never push to main")
        eng.add_user("TASK: fix src/mod0.py and keep the tests green")
        prev = eng.assemble()
        n = 0
        events: list[int] = []
        for k, op in enumerate(ops):
            kind = op[0]
            if kind == "step":
                calls = [call(f"c{k}_{j}", command=f"cmd {j}") for j in range(len(op[1]))]
                eng.add_assistant(f"step {k}", calls)
                for c, size in zip(calls, op[1], strict=True):
                    n += 1
                    eng.add_tool_result(c["id"], "run_command", filler(f"out{n}", size), scope="session")
            elif kind in ("read", "edit", "disk"):
                rel = f"src/mod{op[1]}.py"
                path = root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                text = filler(f"{kind}{k}", op[2] if kind != "disk" else 20)
                path.write_text(text)
                if kind == "read":
                    eng.note_file_read(rel, text)
                elif kind == "edit":
                    eng.note_file_edit(rel, text)
            else:
                eng.add_user(f"user {k}: " + filler(f"u{k}", op[1]))
            asm = eng.assemble()
            assert check_pairing(asm.messages) == []
            text = request_text(asm.messages)
            assert "RULE: never push to main" in text and "TASK: fix src/mod0.py" in text
            json.dumps(asm.messages)
            fallback = any(not t.included and "over budget" in t.reason for t in asm.trace)
            if asm.compaction is None and not fallback:
                old = stable(prev)
                assert asm.messages[: len(old)] == old, f"op {k} {kind}: the prefix changed without an event"
            elif not (asm.compaction is not None and asm.compaction.reason == "window limit"):
                events.append(k)
            prev = asm
        # events the cost model chooses are batches: never two in a row. Only the window itself may
        # force one right after another (one step's own outputs can fill a small window; they stay).
        assert all(b - a >= 2 for a, b in zip(events, events[1:], strict=False)), events


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=st.sampled_from([8192, 16384, 32768]), ops=st.lists(OPS, min_size=1, max_size=60))
@example(window=8192, ops=[("step", [0, 313]), ("step", [0, 0, 120]), ("step", [0, 0, 228]), ("step", [67, 218]),
                          ("step", [0, 1485, 1500]), ("step", [0])])
def test_requests_are_append_only_between_events(window: int, ops: list[tuple[Any, ...]]) -> None:
    run(window, ops)


def test_a_long_session_keeps_the_prefix_and_compacts_rarely() -> None:
    ops: list[tuple[Any, ...]] = []
    for k in range(80):
        ops.append(("step", [900 if k % 3 else 150]))
        if k % 10 == 0:
            ops.append(("edit", 0, 200))
    run(16384, ops)
