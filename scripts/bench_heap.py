"""What loading litellm costs a process, with and without freezing its objects out of the cyclic GC.

Two numbers a user feels: a full garbage collection's pause once litellm is loaded (the TUI cannot draw
during it), and the wall time of a one-shot ``agent-tui run`` against a local fake model server.

    python scripts/bench_heap.py [--runs 5] [--json]

"unfrozen" imports litellm plainly (what agent-tui did before ``llm._import_frozen``); "frozen" goes
through ``preload_litellm``.  Each variant runs in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import gc, json, os, sys, time
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
t = time.perf_counter()
if sys.argv[1] == "frozen":
    from agent_tui.agent.llm import preload_litellm
    preload_litellm()
else:
    import litellm  # noqa: F401
load = time.perf_counter() - t
pauses = []
for _ in range(5):
    t = time.perf_counter(); gc.collect(); pauses.append(time.perf_counter() - t)
print(json.dumps({"load_s": load, "full_gc_s": sorted(pauses)[2], "scanned": len(gc.get_objects())}))
"""


def heap(variant: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", PROBE, variant], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def headless_runs(runs: int) -> list[float]:
    """Wall seconds of ``agent-tui run hello --json`` against the fake server, ``runs`` times."""
    sys.path.insert(0, str(ROOT))
    from tests.support.fake_openai import FakeOpenAI, Reply
    from tests.support.fixtures import FAKE_MODEL

    binary = Path(sys.executable).with_name("agent-tui")
    times = []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI() as fake:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        for _ in range(runs):
            fake.script(Reply.text("ok"))
            started = time.perf_counter()
            subprocess.run([str(binary), "run", "hello", "--model", FAKE_MODEL, "--api-base", fake.base_url, "--json",
                            "--workspace", tmp], capture_output=True, check=True,
                           env={**os.environ, "OPENAI_API_KEY": "sk-bench"})
            times.append(time.perf_counter() - started)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = {v: heap(v) for v in ("unfrozen", "frozen")}
    runs = headless_runs(args.runs)
    report["headless_run_s"] = {"median": statistics.median(runs), "max": max(runs)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for v in ("unfrozen", "frozen"):
        r = report[v]
        print(f"{v:9} litellm load {r['load_s']:.2f} s · full GC pause {r['full_gc_s'] * 1000:.0f} ms "
              f"over {r['scanned']:,} objects")
    print(f"agent-tui run (fake server, {args.runs} runs): median {report['headless_run_s']['median']:.2f} s, "
          f"max {report['headless_run_s']['max']:.2f} s")


if __name__ == "__main__":
    main()
