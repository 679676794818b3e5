"""Time from process start to the TUI's first painted frame, and what was loaded by then.

Runs the installed ``agent-tui --demo`` in a pseudo-terminal (the real Linux
driver, as a user's terminal would) with ``AGENT_TUI_FIRST_FRAME_PROBE`` set:
the app writes the wall-clock time of its first frame and whether litellm was
imported, then exits.  Startup = painted_at - the moment just before spawning.

    python scripts/bench_startup.py [--runs 10] [--json]

Also reports the interpreter's own start-up and `import textual.app` as
baselines, so the number can be read against what any Textual app pays here.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def agent_tui_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m agent_tui`."""
    script = Path(sys.executable).parent / "agent-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent_tui"]


def run_once(workspace: Path, timeout: float = 60.0) -> dict[str, Any]:
    """One start-up in a pty; the probe's facts plus `startup_s`."""
    probe = Path(tempfile.mkdtemp(prefix="agent-tui-probe-")) / "probe.json"
    env = {**os.environ, "AGENT_TUI_FIRST_FRAME_PROBE": str(probe), "TERM": os.environ.get("TERM", "xterm-256color"),
           "COLUMNS": "120", "LINES": "40"}
    master, slave = pty.openpty()
    started = time.time()
    proc = subprocess.Popen([*agent_tui_command(), "--demo", "--workspace", str(workspace)], stdin=slave,
                            stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    try:
        deadline = time.time() + timeout
        while proc.poll() is None and time.time() < deadline:
            try:
                os.read(master, 65536)  # keep the pty drained so the app never blocks on output
            except OSError:
                break
        proc.wait(timeout=max(1.0, deadline - time.time()))
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    facts = json.loads(probe.read_text(encoding="utf-8"))
    shutil.rmtree(probe.parent, ignore_errors=True)
    facts["startup_s"] = facts["painted_at"] - started
    facts["exit_code"] = proc.returncode
    return facts


def baseline(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    workspace = Path(tempfile.mkdtemp(prefix="agent-tui-bench-")) / "inventory-app"
    run_once(workspace)  # warm-up: copies the sample project, fills the OS file cache
    runs = [run_once(workspace) for _ in range(args.runs)]
    times = sorted(r["startup_s"] for r in runs)
    report = {
        "runs": args.runs,
        "first_frame_s": {"median": statistics.median(times), "min": times[0], "max": times[-1],
                          "p90": times[min(len(times) - 1, int(0.9 * len(times)))]},
        "litellm_loaded_at_first_frame": any(r["litellm"] for r in runs),
        "agent_loop_loaded_at_first_frame": any(r["agent_loaded"] for r in runs),
        "baseline_python_s": statistics.median(baseline("pass") for _ in range(3)),
        "baseline_import_textual_app_s": statistics.median(baseline("import textual.app") for _ in range(3)),
    }
    shutil.rmtree(workspace.parent, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        ff = report["first_frame_s"]
        print(f"first frame: median {ff['median']:.3f} s, min {ff['min']:.3f} s, p90 {ff['p90']:.3f} s, "
              f"max {ff['max']:.3f} s over {args.runs} runs")
        print(f"litellm imported before the first frame: {report['litellm_loaded_at_first_frame']}")
        print(f"agent loop imported before the first frame: {report['agent_loop_loaded_at_first_frame']}")
        print(f"baselines: python {report['baseline_python_s']:.3f} s, "
              f"import textual.app {report['baseline_import_textual_app_s']:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
