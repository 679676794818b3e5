"""Anchor strategies: what published context managers do, so agent-tui is judged against them.

* ``masking`` — observation masking: every message is kept, but only the last
  ``keep`` tool outputs are sent verbatim; older ones become a one-line
  placeholder (the "simple observation masking" baseline of agent-context studies).
* ``auto-compact`` — append everything; when a request passes ``threshold`` of
  the window, replace the history by a summary of it plus the last few
  messages (Claude Code's auto-compact).  The summarising call is charged: its
  input is the whole request that tripped it, its output the summary.
* ``batch`` — append-only with a cap: the system prompt and the task stay; when
  the history passes ``cap`` tokens, the oldest rounds are dropped in one batch
  down to half the cap, a rolling summary takes their place and the current
  text of the edited files is re-appended.  The summarising call (the dropped
  rounds and the previous summary) is charged.

Summaries here are the core's extractive summary (copy-only), so the anchors
and the engine summarise alike; only where and when differs.  None of them
sees the recording agent's own compaction summary.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.bench.fileview import FileView
from agent_tui.bench.strategies import Request, system_message
from agent_tui.bench.trace import COMPACT_SUMMARY, FileEvent, Message, Session
from agent_tui.core.items import Category, ContextItem
from agent_tui.core.summary import ExtractiveSummariser, Summary
from agent_tui.core.tokens import REQUEST_OVERHEAD, TokenCounter

#: Characters of one edited file re-appended by ``batch`` (about 2,000 tokens).
BATCH_FILE_CHARS = 8000


def _items(messages: list[dict[str, Any]], start: int) -> list[ContextItem]:
    """Request messages as context items, for the extractive summariser."""
    out: list[ContextItem] = []
    for n, m in enumerate(messages):
        out.append(ContextItem(id=f"m{start + n}", category=Category.HISTORY, content=str(m.get("content") or ""),
                               tokens=0, role=str(m.get("role")), tool_calls=m.get("tool_calls"),
                               tool_call_id=m.get("tool_call_id"), name=m.get("name")))
    return out


class _Counted:
    """A history of request messages with their token counts (counted once each)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.messages: list[dict[str, Any]] = []
        self.tokens: list[int] = []

    def count(self, m: dict[str, Any]) -> int:
        calls = json.dumps(m["tool_calls"]) if m.get("tool_calls") else ""
        return self.counter.count_message(str(m.get("content") or ""), calls)

    def append(self, m: dict[str, Any]) -> None:
        self.messages.append(m)
        self.tokens.append(self.count(m))

    def replace(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)
        self.tokens = [self.count(m) for m in messages]

    @property
    def total(self) -> int:
        return sum(self.tokens)


def _group_starts(messages: list[dict[str, Any]]) -> list[int]:
    """Indexes where a group starts (a user message, or an assistant message with its results)."""
    return [i for i, m in enumerate(messages) if m.get("role") != "tool"]


class MaskingStrategy:
    """Keep every message; only the last ``keep`` tool outputs verbatim."""

    name = "masking"

    def __init__(self, keep: int = 10) -> None:
        self.keep = keep
        self.system: list[dict[str, Any]] = []
        self.history: list[dict[str, Any]] = []
        self.tools: list[int] = []

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.history, self.tools = [], []

    def observe(self, index: int, message: Message) -> str | None:
        if message.kind == COMPACT_SUMMARY:
            return None
        if message.role == "tool":
            self.tools.append(len(self.history))
        self.history.append(message.to_openai())
        return message.content if message.role == "tool" else None

    def build(self, call_index: int) -> Request:
        masked = set(self.tools[:-self.keep] if self.keep else self.tools)
        out = []
        for i, m in enumerate(self.history):
            if i in masked:
                lines = str(m.get("content") or "").count("\n") + 1
                m = {**m, "content": f"[old tool output omitted: {lines} lines]"}
            out.append(m)
        return Request([*self.system, *out])


class AutoCompactStrategy:
    """Append everything; at ``threshold`` of the window, summary + the last few messages."""

    name = "auto-compact"

    def __init__(self, threshold: float = 0.83, keep_groups: int = 2) -> None:
        self.threshold = threshold
        self.keep_groups = keep_groups
        self.system: list[dict[str, Any]] = []
        self.hist: _Counted | None = None
        self.window = 0
        self.prefix = 0
        self.summary: Summary | None = None
        self.seen = 0

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.hist = _Counted(TokenCounter(session.model or None))  # its own memo: timed alone
        self.window, self.prefix = window, session.prefix_tokens
        self.summary, self.seen = None, 0

    def observe(self, index: int, message: Message) -> str | None:
        assert self.hist is not None
        if message.kind == COMPACT_SUMMARY:
            return None
        self.hist.append(message.to_openai())
        return message.content if message.role == "tool" else None

    def build(self, call_index: int) -> Request:
        h = self.hist
        assert h is not None
        sys_tokens = sum(h.count(m) for m in self.system)
        total = self.prefix + REQUEST_OVERHEAD + sys_tokens + h.total
        summarising = summary_out = 0
        starts = _group_starts(h.messages)
        if total > self.threshold * self.window and len(starts) > self.keep_groups:
            cut = starts[-self.keep_groups]
            dropped = h.messages[:cut]
            self.summary = ExtractiveSummariser().summarise(_items(dropped, self.seen), self.summary)
            self.seen += len(dropped)
            text = "This session continues from an earlier conversation, summarised:\n" + self.summary.render()
            summarising, before = total, h.messages[cut:]
            h.replace([{"role": "user", "content": text}, *before])
            summary_out = h.tokens[0]
        return Request([*self.system, *h.messages], summarising_input_tokens=summarising, summary_tokens=summary_out)


class BatchStrategy:
    """Append-only under a cap; one batch drop to half the cap, summary and edited files in its place."""

    name = "batch"

    def __init__(self, cap: int = 8000) -> None:
        self.cap = cap
        self.system: list[dict[str, Any]] = []
        self.task: list[dict[str, Any]] = []
        self.hist: _Counted | None = None
        self.summary: Summary | None = None
        self.views: dict[str, FileView] = {}
        self.edited: list[str] = []
        self.events: dict[int, list[FileEvent]] = {}
        self.seen = 0
        self.block = False
        """The history starts with the summary block of the last batch."""

    def start(self, session: Session, window: int) -> None:
        self.system = system_message(session)
        self.task = []
        self.hist = _Counted(TokenCounter(session.model or None))  # its own memo: timed alone
        self.summary, self.views, self.edited, self.seen, self.block = None, {}, [], 0, False
        self.events = session.events_by_message()

    def observe(self, index: int, message: Message) -> str | None:
        assert self.hist is not None
        if message.kind == COMPACT_SUMMARY:
            return None
        if message.role == "user" and not self.task and not self.hist.messages:
            self.task = [message.to_openai()]
        else:
            self.hist.append(message.to_openai())
        for ev in self.events.get(index, []):
            view = self.views.setdefault(ev.path, FileView())
            if ev.kind == "read":
                view.read(ev.content, ev.start_line, ev.whole)
                continue
            if ev.kind == "revert":
                view.revert()
                continue
            if ev.kind == "copy":
                source = self.views.get(ev.source)
                if source is None:
                    continue
                view.copy_from(source)
            elif ev.kind == "write":
                view.write(ev.content)
            elif not view.edit(ev.old, ev.new, ev.full_after):
                continue
            if ev.path in self.edited:
                self.edited.remove(ev.path)
            self.edited.append(ev.path)
        return message.content if message.role == "tool" else None

    def build(self, call_index: int) -> Request:
        h = self.hist
        assert h is not None
        summarising = summary_out = 0
        first = 1 if self.block else 0  # the summary block is not a round: the cap counts rounds
        starts = [s for s in _group_starts(h.messages) if s >= first]
        if h.total - sum(h.tokens[:first]) > self.cap and len(starts) > 1:
            left, cut = h.total, 0
            for s in starts[1:]:
                left = sum(h.tokens[s:])
                cut = s
                if left <= self.cap // 2:
                    break
            dropped = h.messages[first:cut]
            summarising = sum(h.tokens[first:cut]) + (h.count({"content": self.summary.render()})
                                                      if self.summary else 0)
            self.summary = ExtractiveSummariser().summarise(_items(dropped, self.seen), self.summary)
            self.seen += len(dropped)
            parts = ["Earlier rounds, summarised:\n" + self.summary.render()]
            for path in self.edited:
                text = self.views[path].render()
                if len(text) > BATCH_FILE_CHARS:
                    text = text[:BATCH_FILE_CHARS] + "\n[… cut]"
                parts.append(f"Current text of {path}:\n```\n{text}\n```")
            block = {"role": "user", "content": "\n\n".join(parts)}
            h.replace([block, *h.messages[cut:]])
            self.block = True
            summary_out = h.count({"content": self.summary.render()})
        return Request([*self.system, *self.task, *h.messages], summarising_input_tokens=summarising,
                       summary_tokens=summary_out)
