"""A detached tmux session on its own server, driven by keys and read back with capture-pane
(shared by the end-to-end tests; the fixture is in conftest.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

AGENT_TUI = Path(sys.executable).parent / "agent-tui"
HANG = 90.0


class Tmux:
    """One detached tmux session running a command."""

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, *args: str) -> str:
        """A tmux command on this test's own server (other tmux users cannot resize its window)."""
        return subprocess.run(["tmux", "-L", self.name, *args], check=True, capture_output=True, text=True).stdout

    def start(self, command: list[str], width: int, height: int, env: dict[str, str]) -> None:
        exports = [f"{k}={v}" for k, v in env.items()]
        # COLUMNS/LINES left in this process's environment (by in-process app tests) would
        # override the pane's real size in the child: drop them.
        self.run("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
                 "env", "-u", "COLUMNS", "-u", "LINES", *exports, *command)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def answer(self, key: str) -> None:
        """Answer a dialog that just opened, as a person does: after reading it (a key in its first
        ``SETTLE`` seconds is typing for the message box, ``ui/typing_guard``)."""
        from agent_tui.ui.typing_guard import SETTLE

        time.sleep(SETTLE)
        self.keys(key)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def styled(self) -> str:
        """The screen with its SGR escapes (to tell a focused button, drawn in reverse, from the others)."""
        return self.run("capture-pane", "-p", "-e", "-t", self.name)

    def wait_for(self, found: Callable[[str], bool], what: str, timeout: float = HANG, styled: bool = False) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.styled() if styled else self.screen()
            if found(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what}; the screen was:\n{text}")
            time.sleep(0.2)

    def quit_app(self, timeout: float = 30) -> None:
        """Press ctrl+q and wait until the app has exited and taken its tmux session with it."""
        self.keys("C-q")
        deadline = time.monotonic() + timeout
        while subprocess.run(["tmux", "-L", self.name, "has-session", "-t", self.name],
                             capture_output=True).returncode == 0:
            if time.monotonic() > deadline:
                raise AssertionError(f"agent-tui did not quit; the screen was:\n{self.screen()}")
            time.sleep(0.2)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True)
