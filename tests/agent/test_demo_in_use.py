"""A demo started beside a running one leaves the copy's files as they are, and says so.

A tester ran the demo's fix in one `agent-tui --demo`, started a second: the second put the shipped files
back under the first, whose fix was lost and whose `/undo` then found the file "changed since".  Each start
now records its process in the copy; a start while that process lives leaves the files alone."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.agent import headless
from agent_tui.demo_project import IN_USE_NOTE, OWNER_FILE, make_demo_workspace, running_elsewhere
from agent_tui.ui.launch import options_from_args

FIXED = "inventory/stock.py"

HOLDER = """
import sys, time
from pathlib import Path
from agent_tui.agent import headless
from agent_tui.demo_project import make_demo_workspace
make_demo_workspace(Path(sys.argv[1]))
print("ready", flush=True)
time.sleep(120)
"""


def _start(dest: Path) -> subprocess.Popen[str]:
    """Another process starting the demo on ``dest`` and staying (until killed)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(dest)], stdout=subprocess.PIPE, text=True,
                            env={**os.environ})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def running_demo(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """Another process that started the demo on a copy and is still running."""
    dest = tmp_path / "copy"
    proc = _start(dest)
    try:
        yield dest, proc
    finally:
        proc.kill()
        proc.wait()


def test_a_start_after_the_first_of_two_demos_ended_leaves_the_files_of_the_second(
        running_demo: tuple[Path, subprocess.Popen[str]]) -> None:
    """(A reviewer's case: only the first demo was recorded, so a third start put the files back under the
    second.)"""
    dest, first = running_demo
    second = _start(dest)
    try:
        fixed = (dest / FIXED).read_text().replace("qty < threshold", "qty <= threshold")
        (dest / FIXED).write_text(fixed)  # the second demo's agent fixed it
        first.kill()
        first.wait()
        assert running_elsewhere(dest)
        make_demo_workspace(dest)
        assert (dest / FIXED).read_text() == fixed
    finally:
        second.kill()
        second.wait()


def test_a_second_start_leaves_the_running_demos_files_and_a_later_one_puts_them_back(
        running_demo: tuple[Path, subprocess.Popen[str]]) -> None:
    dest, proc = running_demo
    fixed = (dest / FIXED).read_text().replace("qty < threshold", "qty <= threshold")
    assert fixed != (dest / FIXED).read_text(), "the sample still has the bug the demo fixes"
    (dest / FIXED).write_text(fixed)  # the first demo's agent fixed it

    assert running_elsewhere(dest)
    assert make_demo_workspace(dest) == dest
    assert (dest / FIXED).read_text() == fixed, "the running demo's work is kept"

    proc.kill()
    proc.wait()
    assert not running_elsewhere(dest)
    make_demo_workspace(dest)
    assert "qty < threshold" in (dest / FIXED).read_text(), "with no demo running there, the sample is put back"


def test_the_tui_and_run_say_why_the_files_were_left(running_demo: tuple[Path, subprocess.Popen[str]],
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    dest, _ = running_demo
    args = argparse.Namespace(demo=True, workspace=dest, model=None, api_base=None, window=None, session=None,
                              trust=False, max_steps=None, max_cost=None, max_session_cost=None, task=None)
    banner = options_from_args(args, dest).banner()
    assert banner is not None and IN_USE_NOTE in banner

    async def no_turn(task: str, args: argparse.Namespace, workspace: Path) -> int:
        return 0  # (the demo's turn itself is tested elsewhere: here only what `run --demo` says first)

    monkeypatch.setattr(headless, "_run", no_turn)
    assert headless.run_headless(args, dest) == 0
    assert IN_USE_NOTE in capsys.readouterr().err


def test_the_same_process_starting_again_and_a_stale_record_put_the_files_back(tmp_path: Path) -> None:
    dest = make_demo_workspace(tmp_path / "copy")
    (dest / FIXED).write_text("changed\n")
    make_demo_workspace(dest)  # this process's own record: a restart of the same demo
    assert "qty < threshold" in (dest / FIXED).read_text()

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (dest / OWNER_FILE).write_text(f'{{"owners": [{{"pid": {int(done.stdout)}, "started": "1"}}]}}')  # ended
    (dest / FIXED).write_text("changed\n")
    assert not running_elsewhere(dest)
    make_demo_workspace(dest)
    assert "qty < threshold" in (dest / FIXED).read_text()

    (dest / OWNER_FILE).write_text(f'{{"owners": [{{"pid": {os.getppid()}, "started": "1"}}]}}')  # a reused pid
    assert not running_elsewhere(dest), "a live pid with another start time is not a demo"
    for broken in ("{not json", '{"pid": Infinity, "started": "1"}', '{"owners": [{"pid": Infinity, "started": "1"}]}', '{"owners": [{"pid": 1e99}]}',
                   '{"owners": [{"pid": -1, "started": "1"}]}', '{"pid": 1}', "[]"):
        (dest / OWNER_FILE).write_text(broken)
        assert not running_elsewhere(dest), broken
        make_demo_workspace(dest)  # (never an error at start-up)


def test_options_of_a_lone_demo_say_nothing_more(tmp_path: Path) -> None:
    args = argparse.Namespace(demo=True, workspace=tmp_path / "copy", model=None, api_base=None, window=None,
                              session=None, trust=False, max_steps=None, max_cost=None, max_session_cost=None)
    banner = options_from_args(args, tmp_path / "copy").banner()
    assert banner is not None and IN_USE_NOTE not in banner
