"""The demo app run for real in a pseudo-terminal: typed to, signalled, waited for (the stop-signal tests)."""

from __future__ import annotations

import os
import re
import select
import signal
import sys
import time
from pathlib import Path

#: The demo app as a child process; ``PATCH`` (a line of Python) runs first.
SCRIPT = """
import sys
from pathlib import Path
PATCH
from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
app = make_app(UiOptions(workspace=Path(sys.argv[1]), session=SessionSpec(demo=True), demo_reason='flag',
                         theme='textual-dark', preload_llm=False, mcp=False))
sys.exit(app.run())
"""


class DemoInTerminal:
    """The demo app in a terminal of its own, ready for keys (a context manager that kills it at the end)."""

    def __init__(self, workspace: Path, home: Path, patch: str = "") -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child
            os.environ.update({"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(home / "xdg"),
                               "COLUMNS": "100", "LINES": "30"})
            os.execv(sys.executable, [sys.executable, "-c", SCRIPT.replace("PATCH", patch), str(workspace)])

    def __enter__(self) -> DemoInTerminal:
        self.drain_until("enter sends the demo task", within=60)
        return self

    def drain_until(self, text: str, within: float) -> None:
        """Read what the app draws until ``text`` is on screen (AssertionError if not ``within`` seconds)."""
        out = b""
        deadline = time.monotonic() + within
        while text.encode() not in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", out):
            assert time.monotonic() < deadline, out[-2000:]
            if select.select([self.fd], [], [], 0.02)[0]:
                out += os.read(self.fd, 65536)

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def drain(self, seconds: float) -> None:
        """Read what the app draws for ``seconds`` (a terminal that is not read from blocks the app's writes)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if select.select([self.fd], [], [], min(left, 0.02))[0]:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    return

    def stopped(self, sig: int, within: float) -> int:
        """Send ``sig``; the exit status once the app ended (AssertionError if not ``within`` seconds)."""
        os.kill(self.pid, sig)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                return status
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    pass
        raise AssertionError(f"the app was still running {within:.0f} s after signal {sig}")

    def __exit__(self, *exc: object) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)
