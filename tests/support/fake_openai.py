"""An OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

The wire path in tests is real: litellm talks HTTP to this server, which
answers from a per-test script of replies.

    with FakeOpenAI() as server:
        server.script(
            Reply.tool_calls([("read_file", {"path": "a.py"})]),
            lambda req: Reply.text(f"saw {len(req['messages'])} messages"),
            Reply.rate_limit(retry_after=1),
            Reply.text("done"),
        )
        ...  # point the model at server.base_url ("http://127.0.0.1:PORT/v1")
        server.requests[0].messages   # what the model was sent

Each queued reply is consumed by one ``POST /v1/chat/completions``; when the
queue is empty, ``server.default_reply`` (plain text "done") is served.  A queue
entry may be a :class:`Reply`, a plain string (text reply) or a callable
``(request_json) -> Reply | str``.

Both ``stream: true`` (SSE in the OpenAI chunk format, tool calls streamed as
index-based ``delta.tool_calls`` with arguments split over several chunks, a
final ``usage`` chunk when ``stream_options.include_usage`` is set, then
``data: [DONE]``) and plain JSON responses are served.  Streams use chunked
transfer encoding, so a cut stream (``Reply.cut``) is seen by the client as an
incomplete body, not as a normal end.

Fault replies: ``Reply.rate_limit`` (429 + Retry-After), ``Reply.server_error``
(500), ``Reply.hang`` (hold the request open), ``Reply.malformed_tool_call``
(arguments that are not JSON), ``Reply.context_length_exceeded`` (400 with the
OpenAI error body), ``Reply.cut`` (connection closed mid-stream) and
``Reply.error`` for any status/body.

Usage in every reply: prompt tokens are the request messages counted with
``agent_tui.core.tokens.counter_for(model).count_messages``; completion tokens
count the reply text plus tool-call names and arguments.  Like a provider's
prompt cache, ``prompt_tokens_details.cached_tokens`` is the tokens of the
leading messages the request shares, byte for byte (same tools too), with the
previous chat request the server received; ``server.cached_tokens`` and
``server.prompt_tokens`` keep the per-request numbers so tests assert the hit
rate on the wire.

Only the standard library is used (``ThreadingHTTPServer`` in a daemon thread).  This module is
the HTTP half; the script queue, the recorded requests, the waits and the usage numbers live in
``tests/support/fake_recorder.py`` (``ReplyRecorder``, which ``FakeOpenAI`` extends).
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.fake_recorder import ReplyRecorder
from tests.support.fake_replies import (  # noqa: F401  (re-exported: tests import them from here)
    RecordedRequest,
    Reply,
    ToolCallSpec,
    _fmt_num,
    _new_id,
    _split,
    check_tool_pairing,
)

# --------------------------------------------------------------------------- server


class _Disconnected(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeOpenAI


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        self.server.fake._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.fake._track(self.connection, add=False)

    # ---- plumbing

    def _read_body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError as e:  # client went away
            raise _Disconnected from e

    def _abort(self) -> None:
        """Close the connection now, without finishing the response."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    # ---- routes

    def do_GET(self) -> None:
        fake = self.server.fake
        fake._record(self, b"")
        if self.path.rstrip("/").endswith("/models"):
            ids = [fake.model, *fake.more_models]
            self._send_json(200, {"object": "list", "data": [{"id": i, "object": "model"} for i in ids]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        raw = self._read_body()
        req = fake._record(self, raw)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        if req.body is None:
            self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            return
        try:
            reply = fake._next_reply(req.body)
        except Exception as e:  # a scripted callable failed: tell the test, not crash the server
            fake.errors.append(repr(e))
            self._send_json(500, {"error": {"message": f"fake server script error: {e!r}", "type": "server_error"}})
            return
        try:
            self._serve(reply, req.body)
        except _Disconnected:
            fake._count("disconnects")
            self.close_connection = True

    def _serve(self, reply: Reply, body: dict[str, Any]) -> None:
        fake = self.server.fake
        if reply.delay and fake._stop.wait(reply.delay):
            self._abort()
            return
        if reply.kind == "hang":
            fake._count("hangs")
            stopped = fake._stop.wait(reply.hang_seconds)
            if stopped or reply.then is None:
                self._abort()
                return
            reply = reply.then
            if reply.kind == "hang":
                self._serve(reply, body)
                return
        if reply.kind == "error":
            self._send_json(reply.status, reply.body, reply.headers)
            return
        fake._note_prefix(body)
        if body.get("stream"):
            self._stream(reply, body)
        else:
            self._send_json(200, fake._completion_json(reply, body), reply.headers)

    def _stream(self, reply: Reply, body: dict[str, Any]) -> None:
        fake = self.server.fake
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        include_usage = reply.send_usage and (
            bool((body.get("stream_options") or {}).get("include_usage")) or fake.always_stream_usage
        )
        sent = 0
        for chunk in fake._stream_chunks(reply, body, include_usage):
            if reply.cut_after is not None and sent >= reply.cut_after:
                fake._count("cuts")
                self._abort()
                return
            if reply.stall_after is not None and sent >= reply.stall_after:
                fake._count("stalls")
                fake._stop.wait(reply.hang_seconds)
                self._abort()
                return
            if sent and reply.chunk_delay and fake._stop.wait(reply.chunk_delay):
                self._abort()
                return
            self._write_chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            sent += 1
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")  # terminating zero-length chunk
        fake._count("completed_streams")


class FakeOpenAI(ReplyRecorder):
    """The fake server; start with ``with FakeOpenAI() as s:`` or ``start()``/``stop()``.  Scripting,
    recorded requests and waits come from :class:`ReplyRecorder`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The arguments of :class:`ReplyRecorder` (``default_reply``, ``model``, ``always_stream_usage``)."""
        super().__init__(*args, **kwargs)
        self._stop = threading.Event()
        self._conns: set[socket.socket] = set()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle

    def start(self) -> FakeOpenAI:
        if self._httpd is not None:
            return self
        self._stop.clear()
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd = self._httpd
        if httpd is None:
            return
        self._stop.set()  # releases hangs, stalls and chunk delays
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for c in conns:  # idle keep-alive connections block in readline otherwise
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` — what litellm's ``api_base`` should be."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- internals used by the handler

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._conns.add if add else self._conns.discard)(conn)

    @staticmethod
    def _finish(reply: Reply) -> str:
        if reply.finish_reason:
            return reply.finish_reason
        return "tool_calls" if reply.calls else "stop"

    def _call_ids(self, reply: Reply) -> list[str]:
        return [c.id or _new_id("call_") for c in reply.calls]

    def _completion_json(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json()}}
                for cid, c in zip(self._call_ids(reply), reply.calls, strict=True)
            ]
        out: dict[str, Any] = {
            "id": _new_id("chatcmpl-"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": self._finish(reply)}],
        }
        if reply.send_usage:
            out["usage"] = self._usage(reply, body)
        return out

    def _stream_chunks(self, reply: Reply, body: dict[str, Any], include_usage: bool) -> Iterable[dict[str, Any]]:
        cid = _new_id("chatcmpl-")
        created = int(time.time())
        model = body.get("model") or self.model

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            c: dict[str, Any] = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            if include_usage:
                c["usage"] = None
            return c

        yield chunk({"role": "assistant", "content": ""})
        for piece in _split(reply.content, reply.chunk_size):
            yield chunk({"content": piece})
        if reply.calls:
            ids = self._call_ids(reply)
            per_call: list[list[dict[str, Any]]] = []
            for n, (call_id, c) in enumerate(zip(ids, reply.calls, strict=True)):
                index = 0 if reply.shared_index else n
                parts = _split(c.arguments_json(), reply.args_chunk_size)
                first = {
                    "index": index,
                    "id": call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": ""},
                }
                deltas = [first] + [{"index": index, "function": {"arguments": p}} for p in parts]
                per_call.append(deltas)
            if reply.interleave:
                ordered = [d for group in itertools.zip_longest(*per_call) for d in group if d is not None]
            else:
                ordered = [d for group in per_call for d in group]
            for d in ordered:
                yield chunk({"tool_calls": [d]})
        yield chunk({}, self._finish(reply))
        if include_usage:
            yield {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [],
                "usage": self._usage(reply, body),
            }
