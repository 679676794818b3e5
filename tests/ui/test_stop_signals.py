"""The terminal closing mid-answer: agent-tui ends, with the draft on disk (a real run in a pseudo-terminal).

A tester closed tmux while an answer streamed: 5 times in 7 agent-tui ran on with no terminal.  gdb showed the
shutdown stuck in Textual's ``WriterThread.stop``, on ``queue.put(None)``: the writer thread had stopped
draining its queue (blocked on, then failing at, the closed terminal), and the queue was full.  The child here
gets that same stuck ``stop``; a stop signal must still end the process, after its grace period."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from agent_tui.ui.app import STOP_GRACE

from .pty_run import DemoInTerminal
from .test_prompt_draft import draft_text

#: The shutdown stuck where the tester's was.
STUCK = "import threading; from textual.drivers import _writer_thread; " \
        "_writer_thread.WriterThread.stop = lambda self: threading.Event().wait()"


def test_a_stop_signal_ends_agent_tui_even_when_its_shutdown_is_stuck(tmp_path: Path) -> None:
    from agent_tui.demo_project import make_demo_workspace

    workspace = make_demo_workspace(tmp_path / "ws")
    with DemoInTerminal(workspace, tmp_path, patch=STUCK) as app:
        app.type("words typed before the terminal closed")
        time.sleep(0.15)
        status = app.stopped(signal.SIGHUP, within=STOP_GRACE + 25)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + signal.SIGHUP, status
    assert draft_text(workspace) == "words typed before the terminal closed"
