"""Error-line patterns meet whatever a tool printed: a minified bundle, a lockfile hash, a base64 blob on one line.
Unbounded ``[\\w./-]+\\.\\w+:\\d+`` and ``\\w+Error`` were tried from every position of such a run: quadratic, 40 s
for one 80K-character line in the core, 655 s for one replayed session.  Each check here reads 200K-character lines
and must find exactly what they hold (linear, that is milliseconds; quadratic, the suite would stall for hours, which
CI's time limit catches: no timed assertion here)."""

from __future__ import annotations

import pytest

from agent_tui.bench.replay import error_lines
from agent_tui.core.aging import kept_lines
from agent_tui.tools.shaping_text import is_error_line

RUNS = ["a" * 200_000, "a-" * 100_000, "Ab9_" * 50_000, "a.b/" * 40_000]


@pytest.mark.parametrize("run", RUNS, ids=["letters", "dashes", "base64url", "path-chars"])
def test_an_error_line_check_reads_a_huge_line_for_what_it_holds(run: str) -> None:
    assert kept_lines(run) == [] and error_lines(run) == [] and not is_error_line(run)
    failing = f"{run[:1000]} src/app.py:12: ValueError: bad"
    assert kept_lines(failing) and error_lines(failing) and is_error_line(failing)


def test_the_bounded_patterns_still_find_what_they_are_for() -> None:
    out = "starting\n  File \"src/app.py\", line 3, in main\nValueError: bad\nsrc/app.py:12:5: E501\nall fine\n"
    assert kept_lines(out) == ['File "src/app.py", line 3, in main', "ValueError: bad", "src/app.py:12:5: E501"]
    assert len(error_lines(out)) == 3 and error_lines("tests/test_x.py:33: in test_it") != []
