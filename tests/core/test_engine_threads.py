"""The engine is used from two threads at once: the agent loop (on the UI's event loop) and the UI's worker
threads (a pin from the inspector, the inspector's listing).  A listing made while the loop took in a new file
could raise "dictionary changed size during iteration", and so could the loop while a pin added an item.
Every public method of the engine holds the engine's lock (the controller's lock is that same lock)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine

SECONDS = 1.5
"""How long the two threads race (a lost race shows within a fraction of it)."""


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Threads switch every 10 µs: a race that needs an unlucky switch gets many chances."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _race(loop: Callable[[int], object], ui: Callable[[int], object]) -> tuple[list[BaseException], int, int]:
    """``loop`` and ``ui`` each called over and over in their own thread for :data:`SECONDS`; what either
    raised, and how many rounds each made."""
    errors: list[BaseException] = []
    rounds = [0, 0]
    stop = time.monotonic() + SECONDS

    def run(work: Callable[[int], object], k: int) -> None:
        try:
            while time.monotonic() < stop and not errors:
                work(rounds[k])
                rounds[k] += 1
        except BaseException as exc:  # noqa: BLE001  (the test reports whatever broke)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w, k)) for k, w in enumerate((loop, ui))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors, rounds[0], rounds[1]


def _engine(tmp_path: Path) -> ContextEngine:
    eng = ContextEngine(Settings.default(window=1_000_000), workspace=tmp_path)
    eng.add_user("read the files and fix the bug")
    return eng


def test_a_listing_while_the_loop_takes_in_files(tmp_path: Path, fast_switching: None) -> None:
    eng = _engine(tmp_path)

    def loop(n: int) -> None:
        eng.add_tool_result(f"c{n}", "read_file", f"def f{n}():\n    return {n}\n")
        eng.note_file_read(f"m{n}.py", f"def f{n}():\n    return {n}\n")

    errors, added, listed = _race(loop, lambda n: eng.all_items())
    assert not errors, errors[:1]
    assert added > 20 and listed > 20, (added, listed)


def test_pins_while_the_loop_reads_the_items(tmp_path: Path, fast_switching: None) -> None:
    """The loop's own reads of the items (the ids of earlier calls, the answered calls) hold the lock too."""
    eng = _engine(tmp_path)

    def loop(n: int) -> None:
        with eng.lock:
            sum(1 for it in eng.items.values() if it.tool_calls)

    errors, _, pinned = _race(loop, lambda n: eng.pin_rule(f"rule number {n}: keep the public API"))
    assert not errors, errors[:1]
    assert pinned > 20 and sum(1 for it in eng.all_items() if it.content.startswith("rule number")) == pinned
