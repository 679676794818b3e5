"""Keys typed before the first frame: the user launches agent-tui and goes on typing the question.

A tester typed ahead 5 times of 5 and agent-tui died each time (``NoMatches: PromptInput`` from the app's
key routing, before the main screen had composed its message box), with exit status 0 and the typing lost.
Here the keys are in the terminal before the app even starts; they must end up in the box (and so in the
draft), and the app must keep running."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from .pty_run import DemoInTerminal
from .test_prompt_draft import draft_text


def test_keys_typed_before_the_first_frame_go_into_the_box(tmp_path: Path) -> None:
    from agent_tui.demo_project import make_demo_workspace

    workspace = make_demo_workspace(tmp_path / "ws")
    early = DemoInTerminal(workspace, tmp_path)
    early.type("typed ahead")  # (in the terminal's buffer before the app reads it)
    with early as app:
        time.sleep(1.0)
        done, status = os.waitpid(app.pid, os.WNOHANG)
        assert done == 0, f"agent-tui ended (status {status}) after keys typed ahead"
        status = app.stopped(signal.SIGTERM, within=30)
    assert os.WIFEXITED(status), status
    assert draft_text(workspace) == "typed ahead"
