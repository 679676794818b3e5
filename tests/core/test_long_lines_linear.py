"""Error-line patterns meet whatever a tool printed: a minified bundle, a lockfile hash, a base64 blob on one line.
Unbounded ``[\\w./-]+\\.\\w+:\\d+`` and ``\\w+Error`` were tried from every position of such a run: quadratic, 40 s
for one 80K-character line in the core, 655 s for one replayed session.  Here each runs on a 1M-character line in
a child process with a minute to spare: linear, it takes well under a second; quadratic, hours."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECKS = {
    "core": "from agent_tui.core.aging import kept_lines as f",
    "bench": "from agent_tui.bench.replay import error_lines as f",
    "shaping": "from agent_tui.tools.shaping_text import is_error_line as f",
}


@pytest.mark.parametrize("where", sorted(CHECKS))
@pytest.mark.parametrize("line", ["'a' * 1_000_000", "'a-' * 500_000", "'Ab9_' * 250_000", "'a.b/' * 200_000"])
def test_an_error_line_check_is_linear_on_a_huge_line(where: str, line: str) -> None:
    code = f"{CHECKS[where]}\nf({line})\nprint('done')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "done", done.stderr[-2000:]


def test_the_bounded_patterns_still_find_what_they_are_for() -> None:
    from agent_tui.bench.replay import error_lines
    from agent_tui.core.aging import kept_lines

    out = "starting\n  File \"src/app.py\", line 3, in main\nValueError: bad\nsrc/app.py:12:5: E501\nall fine\n"
    assert kept_lines(out) == ['File "src/app.py", line 3, in main', "ValueError: bad", "src/app.py:12:5: E501"]
    assert len(error_lines(out)) == 3 and error_lines("tests/test_x.py:33: in test_it") != []
