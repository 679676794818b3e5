"""What parsed approval and the bubblewrap sandbox cost per command.

Commands are now parsed with tree-sitter-bash and matched against allow prefixes and deny
rules (looking through wrappers) before each run, and run inside bwrap.  This measures:

* decision time: ``Policy.verdict`` for typical, chained and wrapped commands (µs each,
  median of many runs, parser warm) and the parser's first-use cost;
* sandbox overhead: wall time of ``true`` and of a small Python start, run through
  ``run_shell`` with and without the sandbox (median of N).

    .venv/bin/python scripts/bench_commands.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.agent.permissions import Policy  # noqa: E402
from agent_tui.tools.sandbox import Sandbox, probe  # noqa: E402
from agent_tui.tools.shell_exec import run_shell  # noqa: E402

COMMANDS = {
    "simple": "pytest -q tests/",
    "chained": "pytest -q && ruff check . | tail -5 > out.txt 2>&1",
    "substitution": "pytest -q $(git diff --name-only)",
    "wrapped": "env -i PATH=/bin bash -lc 'cd / && timeout 5 xargs rm -rf < list.txt'",
    "inline code": "python3 -c \"import shutil; shutil.rmtree('build')\"",
    "long (60 cmds)": " && ".join(f"echo step{i} > s{i}.txt" for i in range(60)),
}


def bench_decisions(runs: int) -> None:
    ws = Path(tempfile.mkdtemp())
    cfg = {"allow_commands": ["pytest", "ruff check", "tail", "echo", "git diff"],
           "deny_commands": ["rm -rf", "git push --force", "git reset --hard"]}
    started = time.perf_counter()
    first = Policy.from_config(cfg, workspace=ws)
    first.verdict("run_command", "command", {"command": "pytest -q"})
    print(f"first decision (loads the grammar): {(time.perf_counter() - started) * 1000:.1f} ms")
    policy = Policy.from_config(cfg, workspace=ws)
    print(f"{'command':<16} {'decision':<6} {'median µs':>10} {'p95 µs':>8}")
    for label, cmd in COMMANDS.items():
        times = []
        for _ in range(runs * 10):
            t = time.perf_counter()
            v = policy.verdict("run_command", "command", {"command": cmd})
            times.append((time.perf_counter() - t) * 1e6)
        times.sort()
        print(f"{label:<16} {v.decision:<6} {statistics.median(times):>10.0f} {times[int(len(times) * 0.95)]:>8.0f}")


async def wall(command: str, ws: Path, box: Sandbox | None, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = await run_shell(command, ws, 30, sandbox=box)
        assert out.exit_code == 0, out.output
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


async def bench_sandbox(runs: int) -> None:
    path, why = probe()
    if path is None:
        print(f"sandbox: not measured ({why})")
        return
    ws = Path(tempfile.mkdtemp()).resolve()
    box = Sandbox(path, ws)
    print(f"{'command':<28} {'plain ms':>9} {'bwrap ms':>9} {'overhead':>9}")
    for label, cmd in (("true", "true"), ("python3 -c pass", f"{sys.executable} -c pass"),
                       ("git init + status", "git init -q . 2>/dev/null; git status --short")):
        plain = await wall(cmd, ws, None, runs)
        boxed = await wall(cmd, ws, box, runs)
        print(f"{label:<28} {plain:>9.1f} {boxed:>9.1f} {boxed - plain:>+9.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    bench_decisions(args.runs)
    print()
    asyncio.run(bench_sandbox(args.runs))


if __name__ == "__main__":
    main()
