"""The scripting and recording half of the fake OpenAI server (``tests/support/fake_openai.py``).

What a test talks to: the queue of replies it scripts, every request the server received, the
counters, the waits, and the usage each reply reports (prompt tokens counted like a provider,
with a prefix cache).  The HTTP server subclasses :class:`ReplyRecorder` and only moves bytes.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Self

from agent_tui.core.tokens import counter_for
from tests.support.fake_replies import RecordedRequest, Reply


class ReplyRecorder:
    """Scripted replies in, recorded requests out (no sockets: see ``FakeOpenAI``)."""

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

    # ---- scripting

    def script(self, *replies: Any) -> Self:
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

    # ---- what the server calls

    def _count(self, name: str) -> None:
        with self._cond:
            self.counters[name] = self.counters.get(name, 0) + 1
            self._cond.notify_all()

    def _record(self, handler: Any, raw: bytes) -> RecordedRequest:
        """Keep one request (``handler``: the HTTP handler, with ``command``, ``path`` and ``headers``)."""
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
        counter = counter_for(body.get("model") or self.model)
        defs = counter.count(json.dumps(body["tools"], ensure_ascii=False)) if body.get("tools") else 0
        return defs + counter.count_messages(messages[:n])  # (the tool definitions lead the cached prefix)

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
            if body.get("tools"):  # (providers count the tool definitions as prompt too)
                prompt += counter.count(json.dumps(body["tools"], ensure_ascii=False))
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
