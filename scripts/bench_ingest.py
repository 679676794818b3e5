"""Where a replayed step's latency goes: ingestion (shaping, redaction, secret scanning,
token counting) and assembly (compaction events included).

The replay benchmark reports one number per strategy (``latency_p95_ms``); this script
replays the ``agent-tui`` strategy over the traces the same way (observe the step's new
messages, then build the request) and prints

- per-step latency p50 / p95 / p99 / max, uninstrumented (the benchmark's own measure);
- a second, instrumented pass: exclusive time per phase, over all steps and over the
  slowest 5 % of steps, and how many of those were compaction events.

Phases are attributed exclusively (time inside a nested phase is not counted twice).
Instrumentation adds overhead, so the phase totals are larger than the plain pass.

    .venv/bin/python scripts/bench_ingest.py [--traces DIR] [--repeat 3]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.bench.adapters import adapter_for, discover  # noqa: E402
from agent_tui.bench.cli import default_traces  # noqa: E402
from agent_tui.bench.engine_strategy import AgentTuiStrategy  # noqa: E402
from agent_tui.bench.measure import MessageCache  # noqa: E402
from agent_tui.bench.replay import calibrate  # noqa: E402
from agent_tui.bench.trace import Session  # noqa: E402
from agent_tui.core.tokens import TokenCounter, counter_for  # noqa: E402

#: (module path, class name or "", attribute, phase name) wrapped in the instrumented pass.
PHASES: tuple[tuple[str, str, str, str], ...] = (
    ("agent_tui.bench.shaping", "ProductShaper", "shape", "shaping"),
    ("agent_tui.core.redact", "Redactor", "__call__", "redact"),
    ("agent_tui.core.redact", "Redactor", "messages", "redact-request"),
    ("agent_tui.core.secrets", "", "find_secrets", "secret-scan"),
    ("agent_tui.core.tokens", "TokenCounter", "count", "token-count"),
    ("agent_tui.core.engine", "ContextEngine", "compact", "compaction"),
    ("agent_tui.core.engine", "ContextEngine", "assemble", "assemble"),
    ("agent_tui.core.file_window", "FileWindow", "note_read", "file-notes"),
    ("agent_tui.core.file_window", "FileWindow", "note_edit", "file-notes"),
    ("agent_tui.core.file_window", "FileWindow", "sync_notes", "file-notes"),
)


class PhaseClock:
    """Exclusive wall time per phase for the current step (a stack of open phases)."""

    def __init__(self) -> None:
        self.times: dict[str, float] = defaultdict(float)
        self._stack: list[tuple[str, float, float]] = []  # (phase, start, time spent in children)

    def wrap(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._stack.append((phase, time.perf_counter(), 0.0))
            try:
                return fn(*args, **kwargs)
            finally:
                name, start, child = self._stack.pop()
                spent = time.perf_counter() - start
                self.times[name] += spent - child
                if self._stack:
                    p, s, c = self._stack[-1]
                    self._stack[-1] = (p, s, c + spent)

        return timed

    def take(self) -> dict[str, float]:
        out, self.times = dict(self.times), defaultdict(float)
        return out


@contextmanager
def instrumented(clock: PhaseClock) -> Iterator[None]:
    """Wrap every function of ``PHASES`` with ``clock`` (restored on exit)."""
    import importlib

    saved: list[tuple[Any, str, Any]] = []
    try:
        for module_name, cls_name, attr, phase in PHASES:
            module = importlib.import_module(module_name)
            owner = getattr(module, cls_name) if cls_name else module
            original = owner.__dict__[attr] if cls_name else getattr(module, attr)
            saved.append((owner, attr, original))
            setattr(owner, attr, clock.wrap(phase, original))
            if not cls_name:  # modules that imported the function by name
                for other in ("agent_tui.core.redact",):
                    mod = importlib.import_module(other)
                    if getattr(mod, attr, None) is original:
                        saved.append((mod, attr, original))
                        setattr(mod, attr, clock.wrap(phase, original))
        yield
    finally:
        for owner, attr, original in reversed(saved):
            setattr(owner, attr, original)


def load_sessions(paths: list[Path]) -> list[Session]:
    out = []
    for f in sorted(discover(paths)):
        adapter = adapter_for(Path(f))
        if adapter is None:
            continue
        session = adapter.load(Path(f))
        if session.calls:
            out.append(session)
    return out


Step = tuple[float, bool, dict[str, float], float, str, float]
"""(wall latency, was a compaction event, phase times, CPU time, label, wall time of the request's
assembly alone: ``build``, without taking in the step's new messages) of one replayed step."""


def replay_steps(session: Session, clock: PhaseClock | None) -> list[Step]:
    """Every recorded call's step, timed as bench/replay.py times it (plus CPU time)."""
    cache = MessageCache(TokenCounter(session.model or None))  # the measuring side's own memo
    calibrate(session, cache)
    strategy = AgentTuiStrategy()
    strategy.start(session, session.default_window)
    out = []
    seen = 0
    for k, call in enumerate(session.calls):
        c0, t0 = time.process_time(), time.perf_counter()
        new = 0
        for i in range(seen, call.history_len):
            strategy.observe(i, session.messages[i])
            new += len(session.messages[i].raw_output or session.messages[i].content or "")
        seen = max(seen, call.history_len)
        t1 = time.perf_counter()
        req = strategy.build(k)
        latency, cpu = time.perf_counter() - t0, time.process_time() - c0
        build = time.perf_counter() - t1
        label = f"{session.id[:12]} step {k} (+{new:,} chars)"
        out.append((latency, req.summarising_input_tokens > 0, clock.take() if clock else {}, cpu, label, build))
    return out


def fresh_process_state() -> None:
    """Forget the product's remembered token counts and redactions, as a new process would."""
    from agent_tui.core import redact

    counter_for.cache_clear()
    redact._default = None


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=Path, default=default_traces())
    parser.add_argument("--repeat", type=int, default=3, help="plain passes (each reported)")
    parser.add_argument("--worst", type=int, default=0, help="also list the N slowest steps with their phases")
    opts = parser.parse_args()
    sessions = load_sessions([opts.traces])
    print(f"{len(sessions)} sessions, {sum(len(s.calls) for s in sessions)} steps from {opts.traces}")
    for r in range(opts.repeat):
        fresh_process_state()
        plain = [x for s in sessions for x in replay_steps(s, None)]
        lat, cpu = [x[0] * 1000 for x in plain], [x[3] * 1000 for x in plain]
        print(f"pass {r + 1}: wall p50 {statistics.median(lat):6.2f} ms  p95 {pct(lat, 0.95):6.2f} ms  "
              f"p99 {pct(lat, 0.99):6.2f} ms  max {max(lat):7.2f} ms  total {sum(lat) / 1000:5.2f} s | "
              f"CPU p50 {statistics.median(cpu):6.2f} ms  p95 {pct(cpu, 0.95):6.2f} ms")
    clock = PhaseClock()
    fresh_process_state()
    with instrumented(clock):
        steps = [x for s in sessions for x in replay_steps(s, clock)]
    cut = pct([x[0] for x in steps], 0.95)
    tail = [x for x in steps if x[0] >= cut]
    events = sum(1 for x in steps if x[1])
    print(f"\ninstrumented pass: {len(steps)} steps, {events} compaction events; "
          f"slowest 5 %: {len(tail)} steps (≥ {cut * 1000:.2f} ms), {sum(1 for x in tail if x[1])} of them events")
    groups = (("all steps", steps), ("slowest 5 %", tail), ("compaction events", [x for x in steps if x[1]]),
              ("slowest 5 %, events aside", [x for x in tail if not x[1]]))
    for label, group in groups:
        total = sum(x[0] for x in group)
        phases: dict[str, float] = defaultdict(float)
        for _, _, times, *_ in group:
            for name, t in times.items():
                phases[name] += t
        phases["other (replay glue)"] = total - sum(phases.values())
        lat = [x[0] * 1000 for x in group]
        print(f"\n{label}: {total * 1000:9.1f} ms in {len(group)} steps "
              f"({total * 1000 / max(1, len(group)):.2f} ms/step; median {statistics.median(lat) if lat else 0:.2f} ms)")
        for name, t in sorted(phases.items(), key=lambda kv: -kv[1]):
            print(f"  {name:22s} {t * 1000:9.1f} ms  {100 * t / total if total else 0:5.1f} %  "
                  f"{t * 1000 / max(1, len(group)):7.3f} ms/step")

    for latency, event, times, _, label, _ in sorted(steps, key=lambda x: -x[0])[:opts.worst]:
        top = ", ".join(f"{n} {t * 1000:.1f}" for n, t in sorted(times.items(), key=lambda kv: -kv[1])[:4])
        print(f"{latency * 1000:7.2f} ms {'event' if event else '     '} {label}: {top}")


if __name__ == "__main__":
    main()

