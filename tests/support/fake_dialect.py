"""The shared base of the provider fakes: an HTTP server on 127.0.0.1 speaking one wire dialect.

Each dialect (Anthropic Messages, Gemini generateContent, Ollama ``/api/chat``,
strict OpenAI chat) subclasses :class:`FakeDialect` with ``check`` (reject what
the real API rejects, with its status and error body) and ``respond`` (a
scripted :class:`Turn` in the dialect's JSON or stream format).  Tests script
dialect-neutral turns:

    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="plan", calls=[("read_file", {"path": "a.py"})]), Turn(text="done"))
        ...  # api_base=fake.base_url
        fake.rejections   # what was refused and why
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_tui.core.tokens import counter_for

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):06d}"


@dataclass
class Turn:
    """One scripted model reply, whatever the dialect."""

    text: str = ""
    """Visible answer text."""
    thinking: str = ""
    """Reasoning text (signed thinking for Anthropic, thought parts for Gemini, reasoning_content...)."""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    """Tool calls ``(name, arguments)``; a string is sent verbatim (malformed or cut JSON)."""
    finish: str | None = None
    """stop, length or tool_calls (default: tool_calls when there are calls, else stop)."""
    redacted: bool = False
    """Anthropic: a ``redacted_thinking`` block (encrypted, no text) before the thinking block."""
    interleaved: str = ""
    """Anthropic: a second thinking block, between the first tool call and the next (interleaved thinking)."""

    @property
    def finish_reason(self) -> str:
        return self.finish or ("tool_calls" if self.calls else "stop")


@dataclass
class Received:
    """One request the fake received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    rejected: str | None = None
    """Why the fake refused it (None: answered)."""


class Rejected(Exception):
    """Raised by ``check``: answer with ``status`` and the dialect's error body for ``message``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeDialect


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        fake = self.server.fake
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        rec = Received(self.path, body, {k.lower(): v for k, v in self.headers.items()})
        with fake.lock:
            fake.requests.append(rec)
        try:
            fake.check_headers(self.path, rec.headers)
            fake.check(self.path, body)
        except Rejected as r:
            rec.rejected = r.message
            self._send(r.status, fake.error_body(r.message, r.status), "application/json")
            return
        turn = fake.next_turn(body) if fake.consumes(self.path) else Turn()
        stream, payload, ctype = fake.respond(self.path, body, turn)
        if stream:
            self._stream(payload, ctype)
        else:
            self._send(200, payload, ctype)

    def _send(self, status: int, obj: Any, ctype: str) -> None:
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, pieces: Iterable[bytes], ctype: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for p in pieces:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(p), p))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def sse(event: str | None, data: Any) -> bytes:
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + json.dumps(data).encode() + b"\n\n"


class FakeDialect:
    """Base fake: scripting, recording, rejecting; subclasses implement the wire format."""

    #: The model string's tokenizer for usage numbers.
    count_model = "gpt-4o"

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.requests: list[Received] = []
        self._queue: deque[Turn | Callable[[dict[str, Any]], Turn]] = deque()
        #: Served when the queue is empty.
        self.default: Turn = Turn(text="done")
        #: Multiply the reported prompt tokens (calibration tests).
        self.prompt_factor = 1.0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle
    def __enter__(self) -> FakeDialect:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # ---- scripting and records
    def script(self, *turns: Turn | Callable[[dict[str, Any]], Turn]) -> FakeDialect:
        with self.lock:
            self._queue.extend(turns)
        return self

    def next_turn(self, body: dict[str, Any]) -> Turn:
        with self.lock:
            item = self._queue.popleft() if self._queue else self.default
        return item(body) if callable(item) else item

    def consumes(self, path: str) -> bool:
        """True for the model-call route (metadata routes answer without using a scripted turn)."""
        return True

    @property
    def answered(self) -> list[Received]:
        """Model calls answered (not rejected, not metadata lookups)."""
        return [r for r in self.requests if r.rejected is None and self.consumes(r.path)]

    @property
    def rejections(self) -> list[str]:
        return [r.rejected for r in self.requests if r.rejected is not None]

    def count(self, obj: Any) -> int:
        """Tokens of any JSON-able part of a request, scaled by ``prompt_factor``."""
        text = obj if isinstance(obj, str) else json.dumps(obj, sort_keys=True, ensure_ascii=False)
        return int(counter_for(self.count_model).count(text) * self.prompt_factor)

    @staticmethod
    def args_json(args: dict[str, Any] | str) -> str:
        return args if isinstance(args, str) else json.dumps(args)

    @staticmethod
    def args_object(args: dict[str, Any] | str) -> dict[str, Any] | None:
        """The arguments as an object (None when the scripted string is not a JSON object)."""
        if isinstance(args, dict):
            return args
        try:
            value = json.loads(args)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    # ---- to implement
    def check_headers(self, path: str, headers: dict[str, str]) -> None:
        """Raise :class:`Rejected` for a request the API refuses by its headers (lower-case names)."""

    def check(self, path: str, body: dict[str, Any]) -> None:
        """Raise :class:`Rejected` for what the real API refuses."""

    def error_body(self, message: str, status: int) -> dict[str, Any]:
        return {"error": {"message": message, "type": "invalid_request_error"}}

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        """``(streaming, payload, content type)``: payload is JSON or an iterable of byte chunks."""
        raise NotImplementedError


def now() -> int:
    return int(time.time())
