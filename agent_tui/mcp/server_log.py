"""A stdio server's log: its stderr, redacted and made printable line by line, and our notes.

A server that fails often prints why, and what it prints can hold a secret: ``Authorization:
Bearer sk-…`` from an HTTP client's debug output, an environment dump, a connection string.
Its stderr used to go straight into the log file, and from there (``stderr_tail``) into the
server's error, the MCP panel and the error the model reads.  Now the child writes into a pipe;
a thread reads it and writes each line through the session's Redactor (``core.redact``: the
process's secret-named environment, registered keys, detect-secrets' formats) and
``core.terminal.printable`` (an escape sequence in a log is acted on by ``tail -f``/``cat``), so
the file, and everything read back from it, never holds the raw text.  A PEM private key is masked
from its BEGIN line to its END line, across lines.

Lines are written as they come (a hung server's last words are in the log while it hangs), and a
line longer than ``MAX_LINE`` is cut there.  ``settle`` waits until everything the child has
written so far is in the file, so an error message built right after a death has its last words.
"""

from __future__ import annotations

import fcntl
import logging
import os
import select
import termios
import threading
import time
from pathlib import Path
from typing import TextIO

from agent_tui.core.redact import mask, redact_text
from agent_tui.core.safe_files import UnsafeFileError, open_append
from agent_tui.core.terminal import printable

MAX_LINE = 16_384
"""Longest stderr line kept whole (bytes); a longer one is cut, the rest counted."""
_PEM_BEGIN = b"-----BEGIN "
_PEM_END = b"-----END "


def clean_line(line: str) -> str:
    """One line of someone else's output, fit for a log, an error message or the model: no secret,
    no control character."""
    return printable(redact_text(line), newlines=False)


class ServerLog:
    """The log file of one connection attempt, written by our notes and by the child's stderr pump."""

    def __init__(self, path: Path | None) -> None:
        self._file: TextIO
        try:
            if path is None:
                raise UnsafeFileError("no log file")
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open_append(path)  # never through a link the repository shipped
        except (OSError, UnsafeFileError):
            self._file = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        self._lock = threading.Lock()
        self._read_fd = -1
        self._child_end: TextIO | None = None
        self._pump: threading.Thread | None = None
        self._busy = False
        self._done = False
        """The pump met the pipe's end (its read end is closed)."""
        self._closing = False
        self._idle = threading.Condition()
        self._pending = b""
        """Read but not yet written: a line the child has not ended (the pump owns it while busy)."""
        self._in_key = False
        """Inside a PEM private key (its body lines are masked)."""

    # ------------------------------------------------------------------ writing
    def note(self, line: str) -> None:
        """One line of ours (``[agent-tui 12:00:00] connecting (stdio)``)."""
        self._write(clean_line(f"[agent-tui {time.strftime('%H:%M:%S')}] {line}"))

    def _write(self, line: str) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.write(line + "\n")
                self._file.flush()

    # ------------------------------------------------------------------ the child's stderr
    def child_stderr(self) -> TextIO:
        """The file the server process gets as its stderr (the write end of the pump's pipe)."""
        if self._child_end is None:
            read_fd, write_fd = os.pipe()
            self._read_fd = read_fd
            self._child_end = os.fdopen(write_fd, "w", encoding="utf-8")
            self._pump = threading.Thread(target=self._run_pump, name="mcp-stderr", daemon=True)
            self._pump.start()
        return self._child_end

    def _run_pump(self) -> None:
        fd = self._read_fd
        try:
            while True:
                with self._idle:  # idle only with nothing left in the pipe (``settle`` relies on it)
                    self._busy = False
                    self._idle.notify_all()
                select.select([fd], [], [])
                with self._idle:
                    self._busy = True
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                self._pending += chunk
                *lines, self._pending = self._pending.split(b"\n")
                if len(self._pending) > MAX_LINE:
                    lines.append(self._pending)
                    self._pending = b""
                for raw in lines:
                    self._in_key = self._pump_line(raw, self._in_key)
            if self._pending:
                self._pump_line(self._pending, self._in_key)
        except OSError:
            pass
        finally:
            with self._idle:
                self._done = True
                os.close(fd)
                self._busy = False
                self._idle.notify_all()
            with self._lock:
                if self._closing:
                    self._file.close()

    def _pump_line(self, raw: bytes, in_key: bool) -> bool:
        """Write one stderr line; True while inside a PEM private key (its body lines are masked)."""
        if len(raw) > MAX_LINE:
            raw = raw[:MAX_LINE] + f" … ({len(raw) - MAX_LINE:,} bytes cut)".encode()
        if in_key or (_PEM_BEGIN in raw and b"PRIVATE KEY" in raw and _PEM_END not in raw):
            self._write(mask("private-key"))
            return _PEM_END not in raw
        self._write(clean_line(raw.decode("utf-8", "replace").rstrip("\r")))
        return False

    def settle(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until what the child wrote so far is in the file, a line it
        has not ended included."""
        if self._pump is None:
            return
        deadline = time.monotonic() + timeout
        with self._idle:
            while not self._done and (self._busy or _unread(self._read_fd)):
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._idle.wait(min(left, 0.05))
            if not self._done and self._pending:
                # a last line with no newline ("boom: the token is missing", then exit) is what says why;
                # the pump holds it until the pipe ends, which it does not while our end is open
                pending, self._pending = self._pending, b""
                self._in_key = self._pump_line(pending, self._in_key)

    def close(self) -> None:
        """Stop writing: our end of the pipe is closed; the pump writes the rest of what the child wrote,
        if anything, and closes the file at the pipe's end (a grandchild holding the pipe keeps it open)."""
        if self._child_end is not None and not self._child_end.closed:
            self._child_end.close()
        with self._lock:
            self._closing = True
            if self._pump is None or self._done:
                self._file.close()


def _unread(fd: int) -> int:
    """Bytes waiting in the pipe (0 once it is closed)."""
    try:
        buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    except OSError:
        return 0
    return int.from_bytes(buf, "little")


class RedactingFormatter(logging.Formatter):
    """Log records as text with secrets masked and control characters made visible (the SDK's log)."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(redact_text(super().format(record)))
