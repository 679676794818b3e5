"""Assembly latency of the ``agent-tui`` strategy, compaction events apart from the other steps.

``agent-tui bench`` reports one p50/p95 per strategy over every replayed call; the
slow calls are the compaction events (about 5 % of the calls), so the p95 sits at
their edge.  This script replays the traces the same way (each recorded call: the
new messages observed, then the request built; see ``scripts/bench_ingest.py``) and
prints, per pass:

- all calls: p50 / p95 of wall time and of CPU time;
- compaction events: how many, mean and p95 (wall and CPU);
- the other calls: p95 (wall and CPU);
- the request's assembly alone (``build``, without taking in the step's new messages): p50 / p95;

and, over all passes, the same numbers for each step's least time (the steadier measure on a
shared machine).

Sessions are loaded one at a time, as a benchmark worker does (a process holding every
trace at once spends more in the garbage collector).  Wall time is what the benchmark
reports; on a shared machine a step that loses the CPU to another process gains a
scheduler slice (~4 ms), so CPU time is the steadier measure of the work itself.  A
benchmark, not a test: nothing is asserted.

    .venv/bin/python scripts/bench_events.py [--traces DIR ...] [--repeat 3] [--json]

``--traces`` may be given several times (e.g. ../shared/traces and a held-out folder); each pass
replays every session of every folder.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_ingest import fresh_process_state, pct, replay_steps  # noqa: E402

from agent_tui.bench.adapters import adapter_for, discover  # noqa: E402
from agent_tui.bench.cli import default_traces  # noqa: E402


def replay_all(traces: list[Path]) -> list[tuple[Any, ...]]:
    """Every recorded call of every session under ``traces``, timed (one session loaded at a time)."""
    out: list[tuple[Any, ...]] = []
    for f in sorted(discover(traces)):
        adapter = adapter_for(Path(f))
        session = adapter.load(Path(f)) if adapter is not None else None
        if session is not None and session.calls:
            out += replay_steps(session, None)
    return out


def summarise(steps: list[tuple[Any, ...]]) -> dict[str, float]:
    """The pass's numbers in milliseconds (``steps``: bench_ingest's Step tuples)."""
    wall = [s[0] * 1000 for s in steps]
    cpu = [s[3] * 1000 for s in steps]
    ev_wall = [s[0] * 1000 for s in steps if s[1]]
    ev_cpu = [s[3] * 1000 for s in steps if s[1]]
    other_wall = [s[0] * 1000 for s in steps if not s[1]]
    other_cpu = [s[3] * 1000 for s in steps if not s[1]]
    build = [s[5] * 1000 for s in steps]
    return {
        "calls": len(steps),
        "events": len(ev_wall),
        "p50_ms": statistics.median(wall),
        "p95_ms": pct(wall, 0.95),
        "cpu_p50_ms": statistics.median(cpu),
        "cpu_p95_ms": pct(cpu, 0.95),
        "event_mean_ms": statistics.mean(ev_wall) if ev_wall else 0.0,
        "event_p95_ms": pct(ev_wall, 0.95),
        "event_cpu_mean_ms": statistics.mean(ev_cpu) if ev_cpu else 0.0,
        "event_cpu_p95_ms": pct(ev_cpu, 0.95),
        "other_p95_ms": pct(other_wall, 0.95),
        "other_cpu_p95_ms": pct(other_cpu, 0.95),
        "build_p50_ms": statistics.median(build),
        "build_p95_ms": pct(build, 0.95),
        "total_s": sum(wall) / 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=Path, action="append",
                        help="trace folder or file (repeatable; default ../shared/traces)")
    parser.add_argument("--repeat", type=int, default=3, help="passes (each reported)")
    parser.add_argument("--json", action="store_true", help="print the passes as JSON")
    opts = parser.parse_args()
    traces = opts.traces or [default_traces()]
    passes = []
    runs = []
    for _ in range(opts.repeat):
        fresh_process_state()  # each pass starts as a new process would: nothing remembered
        runs.append(replay_all(traces))
        passes.append(summarise(runs[-1]))
    # each step's least time over the passes: its cost with the least interference from other
    # processes (on a shared machine one pass's p95 moves by a third from run to run)
    least = [(min(r[n][0] for r in runs), runs[0][n][1], {}, min(r[n][3] for r in runs), runs[0][n][4],
              min(r[n][5] for r in runs)) for n in range(len(runs[0]))]
    floor = summarise(least)
    if opts.json:
        print(json.dumps({"passes": passes, "least": floor}, indent=1))
        return
    print(f"{passes[0]['calls']} calls, {passes[0]['events']} compaction events from {', '.join(map(str, traces))}")
    for n, p in enumerate(passes, 1):
        print(f"pass {n}: all p50 {p['p50_ms']:5.2f} p95 {p['p95_ms']:5.2f} ms "
              f"(CPU {p['cpu_p50_ms']:5.2f} / {p['cpu_p95_ms']:5.2f}) | "
              f"events mean {p['event_mean_ms']:5.2f} p95 {p['event_p95_ms']:5.2f} ms "
              f"(CPU {p['event_cpu_mean_ms']:5.2f} / {p['event_cpu_p95_ms']:5.2f}) | "
              f"other p95 {p['other_p95_ms']:5.2f} ms (CPU {p['other_cpu_p95_ms']:5.2f}) | "
              f"assembly alone p50 {p['build_p50_ms']:5.2f} p95 {p['build_p95_ms']:5.2f} ms | total {p['total_s']:.2f} s")
    p = floor
    print(f"each step's least of {len(runs)}: all p50 {p['p50_ms']:5.2f} p95 {p['p95_ms']:5.2f} ms "
          f"(CPU {p['cpu_p50_ms']:5.2f} / {p['cpu_p95_ms']:5.2f}) | events mean {p['event_mean_ms']:5.2f} "
          f"(CPU {p['event_cpu_mean_ms']:5.2f}) | other p95 {p['other_p95_ms']:5.2f} ms (CPU {p['other_cpu_p95_ms']:5.2f}) | "
          f"assembly alone p50 {p['build_p50_ms']:5.2f} p95 {p['build_p95_ms']:5.2f} ms")


if __name__ == "__main__":
    main()
