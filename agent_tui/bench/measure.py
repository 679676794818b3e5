"""Counting and searching request messages once each, however many requests repeat them.

A session of 150 calls resends the same messages thousands of times; the
replay must not re-tokenise them.  :class:`MessageCache` keys a message by
(role, content, tool_call_id, tool calls) and keeps, per distinct message,
its token count and a *search text*: the content plus the string values of
its tool-call arguments, line by line with line-number prefixes (``  12→``,
``  12<TAB>``) and surrounding whitespace removed and blank lines dropped.
Presence checks (rules, replaced text) are substring tests on search texts,
so a file shown with line numbers still "contains" the code an edit replaces.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from agent_tui.core.tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD, TokenCounter

MessageKey = tuple[str, str, str, str]
_LINE_NO = re.compile(r"^\s*\d+(?:→|\t)")


def normalise(text: str) -> str:
    """Text for presence checks: trimmed lines, no line-number prefixes, no blank lines."""
    out: list[str] = []
    for line in text.split("\n"):
        s = _LINE_NO.sub("", line, count=1).strip()
        if s:
            out.append(s)
    return "\n".join(out)


def content_text(content: Any) -> str:
    """A message's content as text (OpenAI content parts are joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content
        )
    return json.dumps(content, ensure_ascii=False)


def message_key(msg: dict[str, Any]) -> MessageKey:
    """Equality key of a request message (same key: same bytes sent)."""
    calls = msg.get("tool_calls")
    return (
        str(msg.get("role") or ""),
        content_text(msg.get("content")),
        str(msg.get("tool_call_id") or ""),
        json.dumps(calls, ensure_ascii=False, sort_keys=True) if calls else "",
    )


def _argument_strings(calls_json: str) -> list[str]:
    out: list[str] = []
    for call in json.loads(calls_json):
        args = ((call or {}).get("function") or {}).get("arguments") or ""
        try:
            data = json.loads(args)
        except (ValueError, TypeError):
            out.append(str(args))
            continue
        stack = [data]
        while stack:
            d = stack.pop()
            if isinstance(d, str):
                out.append(d)
            elif isinstance(d, dict):
                stack.extend(d.values())
            elif isinstance(d, list):
                stack.extend(d)
    return out


@dataclass
class MessageInfo:
    tokens: int
    search: str


class MessageCache:
    """Token counts and search texts of distinct messages, computed once."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._info: dict[MessageKey, MessageInfo] = {}
        self._text_tokens: dict[str, int] = {}

    def info(self, key: MessageKey) -> MessageInfo:
        """Tokens (with role overhead) and search text of the message ``key``."""
        got = self._info.get(key)
        if got is None:
            _, content, _, calls = key
            tokens = self.counter.count_message(content, calls)
            parts = [content, *(_argument_strings(calls) if calls else [])]
            got = MessageInfo(tokens, normalise("\n".join(parts)))
            self._info[key] = got
        return got

    def text_tokens(self, text: str) -> int:
        """Tokens of a bare text (tool outputs), cached."""
        n = self._text_tokens.get(text)
        if n is None:
            n = self.counter.count(text)
            self._text_tokens[text] = n
        return n

    def request_tokens(self, keys: list[MessageKey]) -> int:
        """Tokens of a request made of these messages (without any unrecorded prefix)."""
        return REQUEST_OVERHEAD + sum(self.info(k).tokens for k in keys)


__all__ = ["MESSAGE_OVERHEAD", "MessageCache", "MessageInfo", "MessageKey", "content_text",
           "message_key", "normalise"]
