"""The terminal closing mid-answer: agent-tui ends, with the draft on disk (a real run in a pseudo-terminal).

A tester closed tmux while an answer streamed: 5 times in 7 agent-tui ran on with no terminal.  gdb showed the
shutdown stuck in Textual's ``WriterThread.stop``, on ``queue.put(None)``: the writer thread had stopped
draining its queue (blocked on, then failing at, the closed terminal), and the queue was full.  The child here
gets that same stuck ``stop``; a stop signal must still end the process, after its grace period."""

from __future__ import annotations

import os
import re
import select
import signal
import sys
import time
from pathlib import Path

from agent_tui.ui.app import STOP_GRACE

from .test_prompt_draft import draft_text

#: The demo app with the shutdown stuck where the tester's was.
SCRIPT = """
import sys, threading
from pathlib import Path
from textual.drivers import _writer_thread
from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
_writer_thread.WriterThread.stop = lambda self: threading.Event().wait()
app = make_app(UiOptions(workspace=Path(sys.argv[1]), session=SessionSpec(demo=True), demo_reason='flag',
                         theme='textual-dark', preload_llm=False, mcp=False))
sys.exit(app.run())
"""


def test_a_stop_signal_ends_agent_tui_even_when_its_shutdown_is_stuck(tmp_path: Path) -> None:
    import pty

    from agent_tui.demo_project import make_demo_workspace

    workspace = make_demo_workspace(tmp_path / "ws")
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
                           "COLUMNS": "100", "LINES": "30"})
        os.execv(sys.executable, [sys.executable, "-c", SCRIPT, str(workspace)])
    out = b""
    deadline = time.monotonic() + 60
    status = 0
    try:
        while b"enter sends the demo task" not in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out) \
                and time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                out += os.read(fd, 65536)
        assert time.monotonic() < deadline, out[-2000:]
        os.write(fd, b"words typed before the terminal closed")
        time.sleep(0.15)
        os.kill(pid, signal.SIGHUP)
        sent = time.monotonic()
        while time.monotonic() < sent + STOP_GRACE + 25:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    os.read(fd, 65536)
                except OSError:
                    pass
        else:
            raise AssertionError(f"agent-tui was still running {STOP_GRACE + 25:.0f} s after SIGHUP")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + signal.SIGHUP, status
    assert draft_text(workspace) == "words typed before the terminal closed"
