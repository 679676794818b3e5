"""run_command: exit codes, timeouts that kill the whole group, head/tail/error shaping."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from agent_tui.tools.paging import page_count

from .fakes import Call, FakeContext


def _gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie waiting for its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in {"Z", "X"}


async def test_small_output_shown_whole_with_exit_code(ws: Path, call: Call) -> None:
    (ws / "f.txt").write_text("content\n")
    result = await call("run_command", command="cat f.txt; echo err >&2; exit 3")
    assert not result.is_error  # a failing command is a result, not a tool error
    lines = result.text.splitlines()
    assert lines[0] == "$ cat f.txt; echo err >&2; exit 3"
    assert lines[1].startswith("exit code 3 (")
    assert lines[2:] == ["content", "err"]
    assert result.handle is None and result.meta["exit_code"] == 3


async def test_runs_in_workspace(ws: Path, call: Call) -> None:
    result = await call("run_command", command="pwd")
    assert result.text.splitlines()[-1] == str(ws.resolve())


async def test_timeout_kills_process_group(ws: Path, call: Call) -> None:
    began = time.monotonic()
    result = await call(
        "run_command", command="sleep 30 & echo $! > child.pid; echo started; wait", timeout=1
    )
    assert time.monotonic() - began < 10
    assert result.is_error and "TIMED OUT after 1s" in result.text
    assert "started" in result.text
    child = int((ws / "child.pid").read_text())
    for _ in range(50):
        if _gone(child):
            break
        await asyncio.sleep(0.05)
    assert _gone(child), "the background child survived the timeout"
    assert result.meta["timed_out"] is True


async def test_long_output_keeps_head_tail_and_middle_errors(
    ws: Path, call: Call, ctx: FakeContext
) -> None:
    script = (
        'for i in $(seq 1 1000); do echo "progress line $i"; '
        "if [ $i = 500 ]; then echo 'Traceback (most recent call last):'; "
        "echo '  File \"app.py\", line 12, in main'; echo 'ValueError: boom'; fi; done"
    )
    result = await call("run_command", command=script)
    text = result.text
    assert "progress line 1\n" in text and "progress line 40\n" in text
    assert "progress line 41\n" not in text
    assert text.rstrip().endswith("progress line 1000")
    assert "progress line 921" in text and "progress line 919" not in text
    assert "Traceback (most recent call last):" in text and "ValueError: boom" in text
    assert 'File "app.py", line 12' in text
    assert "lines omitted" in text
    assert "1,003 lines of output" in text
    assert result.handle is not None
    full = ctx.results.get(result.handle)
    assert full is not None and full.count("\n") == 1003
    assert f'fetch_result("{result.handle}", page=N), N=1..{page_count(full)}' in text
    rebuilt = ""
    for page in range(1, page_count(full) + 1):
        fetched = await call("fetch_result", handle=result.handle, page=page)
        rebuilt += fetched.meta["page_text"]
    assert rebuilt == full
    assert result.raw_tokens > result.shaped_tokens


async def test_ansi_cleaned_in_view(ws: Path, call: Call) -> None:
    result = await call("run_command", command="printf '\\033[31mred\\033[0m plain\\n'")
    assert result.text.splitlines()[-1] == "red plain"


async def test_no_output(ws: Path, call: Call) -> None:
    result = await call("run_command", command="true")
    assert result.text.endswith("(no output)")


async def test_cancellation_kills_group(ws: Path, ctx: FakeContext) -> None:
    from agent_tui.tools.shell_exec import run_shell

    # the waits below are hang guards (a loaded machine can be slow to start or reap), not speed bounds;
    # the child sleeps far longer than both, so it is never gone by itself
    task = asyncio.create_task(run_shell("sleep 300 & echo $! > c.pid; wait", ws, 600))
    deadline = time.monotonic() + 30
    while not ((ws / "c.pid").exists() and (ws / "c.pid").read_text().strip()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    child = int((ws / "c.pid").read_text())
    deadline = time.monotonic() + 30
    while not _gone(child) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    try:
        assert _gone(child), "cancelling the command left its backgrounded child running"
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)


async def test_cancel_while_the_subprocess_is_being_created_kills_its_group(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn is cancelled in the one await of process creation: the shell already runs (asyncio
    started it) and has started a child, but ``create_subprocess_shell`` has not returned.  asyncio then
    kills only the shell; the child, in the shell's own session, must die too."""
    from asyncio import base_subprocess

    from agent_tui.tools import reaper
    from agent_tui.tools.shell_exec import run_shell

    connecting = asyncio.Event()
    release = asyncio.Event()
    original = base_subprocess.BaseSubprocessTransport._connect_pipes

    async def held(self: base_subprocess.BaseSubprocessTransport, waiter: asyncio.Future[None]) -> None:
        connecting.set()  # the process exists; asyncio is about to connect its pipes
        await release.wait()
        await original(self, waiter)  # type: ignore[arg-type]

    monkeypatch.setattr(base_subprocess.BaseSubprocessTransport, "_connect_pipes", held)
    task = asyncio.create_task(run_shell("sleep 300 & echo $! > c.pid; wait", ws, 600))
    await asyncio.wait_for(connecting.wait(), 30)  # hang guards, as above
    deadline = time.monotonic() + 30
    while not ((ws / "c.pid").exists() and (ws / "c.pid").read_text().strip()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    child = int((ws / "c.pid").read_text())
    group = os.getpgid(child)
    task.cancel()  # delivered before the pipes are connected (the release below is queued after it)
    release.set()
    try:
        await asyncio.wait({task}, timeout=30)  # hang guard: asyncio's own cleanup waits for the child's pipe
        deadline = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert _gone(child), "a cancel during process creation left the command's child running"
        assert task.done() and task.cancelled(), "the cancel went through"
        assert group not in reaper.running(), "and its group is not left registered"
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_background_child_holding_pipe_does_not_hang(
    ws: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.tools import shell_exec

    monkeypatch.setattr(shell_exec, "DRAIN_GRACE", 0.3)
    began = time.monotonic()
    result = await call("run_command", command="echo first; (sleep 3; echo late) &")
    assert time.monotonic() - began < 2.5
    assert result.text.splitlines()[1].startswith("exit code 0")
    assert result.text.splitlines()[2:] == ["first"]
