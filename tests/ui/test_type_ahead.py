"""Keys typed before the first frame: the user launches agent-tui and goes on typing the question.

A tester typed ahead 5 times of 5 and agent-tui died each time (``NoMatches: PromptInput`` from the app's
key routing, before the main screen had composed its message box), with exit status 0 and the typing lost.
Here the keys are in the terminal before the app even starts; they must end up in the box (and so in the
draft), and the app must keep running."""

from __future__ import annotations

import os
import re
import select
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


def _typed_ahead(workspace: Path, home: Path, keys: str) -> str | None:
    """The draft after ``keys`` were in the terminal before the app read them, and the app was stopped."""
    app = DemoInTerminal(workspace, home)
    app.type(keys)
    try:
        out, deadline = b"", time.monotonic() + 60
        shown = keys.split()[-1].encode()  # (the box shows the keys: the hint the other tests wait for is gone)
        while shown not in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out):
            assert time.monotonic() < deadline, out[-2000:]
            if select.select([app.fd], [], [], 0.2)[0]:
                out += os.read(app.fd, 65536)
        time.sleep(2.0)
        status = app.stopped(signal.SIGTERM, within=30)
    finally:
        app.__exit__()
    assert os.WIFEXITED(status), status
    return draft_text(workspace)


def test_an_enter_typed_ahead_is_a_line_end_and_a_restored_draft_is_typed_over(tmp_path: Path) -> None:
    """A tester typed "abc⏎def⏎" before the first frame: the box held "abcdef" (the enters were dropped).  With
    a draft from an earlier run, the keys typed ahead were joined to its end, though the notice said it was
    selected, to be typed over."""
    from agent_tui.demo_project import make_demo_workspace

    workspace = make_demo_workspace(tmp_path / "ws")
    assert _typed_ahead(workspace, tmp_path, "abc\rdef\r") == "abc\ndef"
    assert _typed_ahead(workspace, tmp_path, "fresh start") == "fresh start"
