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

Only the standard library is used (``ThreadingHTTPServer`` in a daemon thread).
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent_tui.core.tokens import counter_for
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


class FakeOpenAI:
    """The fake server; start with ``with FakeOpenAI() as s:`` or ``start()``/``stop()``."""

    def __init__(
        self,
        default_reply: Reply | str | None = None,
        *,
        model: str = "gpt-4o",
        always_stream_usage: bool = False,
    ) -> None:
        #: Served when the script queue is empty.
        self.default_reply: Reply | str | Callable[[dict[str, Any]], Reply | str] = (
            default_reply if default_reply is not None else Reply.text("done")
        )
        #: Model id reported when the request names none.
        self.model = model
        #: More ids ``GET /models`` lists besides ``model`` (a server serving several models).
        self.more_models: list[str] = []
        #: Send the final usage chunk even without ``stream_options.include_usage``.
        self.always_stream_usage = always_stream_usage
        #: Every request received, in order.
        self.requests: list[RecordedRequest] = []
        #: Exceptions raised by scripted callables.
        self.errors: list[str] = []
        #: Counters: disconnects, cuts, stalls, hangs, completed_streams.
        self.counters: dict[str, int] = {}
        #: Prompt tokens of each answered chat request, in order.
        self.prompt_tokens: list[int] = []
        #: Of those, the tokens served from the prefix cache (shared with the previous request).
        self.cached_tokens: list[int] = []
        self._prev_prompt: tuple[str, list[str]] | None = None
        self._cached_for: dict[int, int] = {}
        self._queue: deque[Any] = deque()
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
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

    # ---- scripting

    def script(self, *replies: Any) -> FakeOpenAI:
        """Append replies (Reply, str, or callable(request_json) -> Reply|str) to the queue."""
        with self._lock:
            self._queue.extend(replies)
        return self

    enqueue = script

    def clear(self) -> None:
        """Drop queued replies, recorded requests and counters."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.counters.clear()
            self.errors.clear()
            self.prompt_tokens.clear()
            self.cached_tokens.clear()
            self._prev_prompt = None
            self._cached_for.clear()

    @property
    def pending(self) -> int:
        """Replies still queued."""
        with self._lock:
            return len(self._queue)

    def count(self, name: str) -> int:
        with self._lock:
            return self.counters.get(name, 0)

    @property
    def disconnects(self) -> int:
        """Streams the client closed before the server finished writing."""
        return self.count("disconnects")

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST" and r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def last_request(self) -> RecordedRequest:
        return self.chat_requests[-1]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Block until ``predicate()`` is true (checked on every server event) or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        return self.wait_for(lambda: len(self.requests) >= n, timeout)

    async def await_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """:meth:`wait_for` for async tests: polls without blocking the event loop.

        (asyncio closes a client socket on the loop's next iteration, so a blocking
        wait in the loop's thread would never see a disconnect.)
        """
        import asyncio

        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.01)
        return True

    # ---- internals used by the handler

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._conns.add if add else self._conns.discard)(conn)

    def _count(self, name: str) -> None:
        with self._cond:
            self.counters[name] = self.counters.get(name, 0) + 1
            self._cond.notify_all()

    def _record(self, handler: _Handler, raw: bytes) -> RecordedRequest:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        req = RecordedRequest(
            method=handler.command,
            path=handler.path,
            headers={k: v for k, v in handler.headers.items()},
            body=body,
            raw=raw,
            time=time.monotonic(),
        )
        with self._cond:
            self.requests.append(req)
            self._cond.notify_all()
        return req

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            item = self._queue.popleft() if self._queue else self.default_reply
        return self._resolve(item, body)

    def _resolve(self, item: Any, body: dict[str, Any]) -> Reply:
        for _ in range(5):  # a callable may return another callable
            if isinstance(item, Reply):
                return item
            if isinstance(item, str):
                return Reply.text(item)
            if callable(item):
                item = item(body)
                continue
            break
        raise TypeError(f"not a reply: {item!r}")

    def _note_prefix(self, body: dict[str, Any]) -> None:
        """Measure the request against the previous answered one (before its reply is served)."""
        cached = self._cached_prefix(body)
        with self._lock:
            self._cached_for[id(body)] = cached

    def _cached_prefix(self, body: dict[str, Any]) -> int:
        """Tokens of the leading messages this request shares with the previous one (a prompt cache)."""
        messages = body.get("messages") or []
        tools = json.dumps(body.get("tools") or [], sort_keys=True)
        keys = [json.dumps(m, sort_keys=True) for m in messages]
        with self._lock:
            prev, self._prev_prompt = self._prev_prompt, (tools, keys)
        if prev is None or prev[0] != tools:
            return 0
        n = 0
        for a, b in zip(prev[1], keys, strict=False):
            if a != b:
                break
            n += 1
        if not n:
            return 0
        return counter_for(body.get("model") or self.model).count_messages(messages[:n])

    def _usage(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        model = body.get("model") or self.model
        counter = counter_for(model)
        with self._lock:
            cached = self._cached_for.pop(id(body), 0)
        if reply.usage is not None:
            prompt = int(reply.usage.get("prompt_tokens", 0))
            completion = int(reply.usage.get("completion_tokens", 0))
            cached = int(reply.usage.get("cached_tokens", min(cached, prompt)))
        else:
            prompt = counter.count_messages(body.get("messages") or [])
            completion = counter.count(reply.content)
            for c in reply.calls:
                completion += counter.count(c.name) + counter.count(c.arguments_json())
            completion = max(completion, 1)
        cached = min(cached, prompt)
        with self._lock:
            self.prompt_tokens.append(prompt)
            self.cached_tokens.append(cached)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached}}

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
