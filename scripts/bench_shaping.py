"""CPU cost of shaping pathological tool outputs (one-line megabyte files, long output lines).

Issue 9 item 7: a regex in ``tools/shaping_text.py`` was quadratic in the line length, so
``read_file`` with a line range on a 1 MB one-line file hung for minutes on the event loop,
and a 200 KB line of command output took two minutes.  This measures the CPU seconds of
each case through the real tool code (registry, shaping, cleaning).  Target: < 2 s each.

    .venv/bin/python scripts/bench_shaping.py [--size 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.core.tokens import counter_for  # noqa: E402
from agent_tui.tools.builtin import builtin_registry  # noqa: E402
from agent_tui.tools.cleaning import clean_text  # noqa: E402
from agent_tui.tools.shaping import shape_result  # noqa: E402
from agent_tui.tools.shell import shape_output  # noqa: E402
from tests.tools.fakes import FakeContext  # noqa: E402


def path_like(n: int, seed: int = 1) -> str:
    """A line of ``[a-z./]`` (minified paths/URLs): the worst case of the old error regex."""
    rnd = random.Random(seed)
    return "".join(rnd.choice(string.ascii_lowercase + "./") for _ in range(n))


def cpu(fn: object, *args: object) -> float:
    start = time.process_time()
    fn(*args)  # type: ignore[operator]
    return time.process_time() - start


def bench_read(size: int) -> float:
    ws = Path(tempfile.mkdtemp())
    (ws / "one-line.txt").write_text(path_like(size) + "\n")
    reg, ctx = builtin_registry(), FakeContext(workspace=ws, model="openai/gpt-4o")
    args = {"path": "one-line.txt", "start_line": 1, "end_line": 1}
    return cpu(lambda: asyncio.run(reg.run("read_file", args, ctx)))


def bench_command_line(size: int) -> float:
    output = "collecting ...\n" + path_like(size, seed=2) + "\n1 failed, 3 passed\n"
    counter = counter_for("openai/gpt-4o")

    def run() -> None:
        shown, _ = shape_output(output, counter)
        shape_result(
            shown, max_tokens=2000, store=FakeContext(Path(".")).results, intent="why failed"
        )

    return cpu(run)


def bench_html(size: int) -> float:
    text = "<html>" + "<script x" * (size // 9) + "<div " * (size // 10)
    return cpu(clean_text, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    opts = parser.parse_args()
    counter_for("openai/gpt-4o").count("warm up the encoding")
    rows = [
        (f"read_file range, {opts.size:,}-char one-line file", bench_read(opts.size)),
        ("run_command output with a 200,000-char line", bench_command_line(200_000)),
        (
            f"clean_text on {opts.size // 5:,} chars of unclosed <script>/<div>",
            bench_html(opts.size // 5),
        ),
    ]
    width = max(len(name) for name, _ in rows)
    for name, seconds in rows:
        print(f"{name:<{width}}  {seconds:6.2f} s CPU")


if __name__ == "__main__":
    main()
