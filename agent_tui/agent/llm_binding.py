"""Claude's preserved thinking: a thinking block goes back only with the prefix it was produced after.

The newest Claude models (Fable and Mythos from 5.1, Opus, Sonnet and Haiku from 5.5) read thinking blocks from
earlier turns, and check each one sent back: the request's ``system``, ``tools`` and everything before the
block must be what they were when the model wrote it, or the request is refused ("The block is bound to a
different conversation", the default for accounts made since 2026-08-31) or the block dropped.  agent-tui's
request only grows at its end between compaction events, so every block goes back — earlier turns' too,
which keeps the cached prefix whole — until an event rewrites what comes before it; a change of tools does the
same.  Each reply remembers a fingerprint of the request that produced it, and a block is sent back only when
the prefix in front of its message has that fingerprint, checked in order, as the API checks: once a block
stays out, every later one (whose prefix held it) does too.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

PRESERVED = re.compile(r"claude-(?:(?:fable|mythos)-(?:5-(?:[1-9]|\d{2,})|[6-9]|\d{2,})"
                       r"|(?:opus|sonnet|haiku)-(?:5-(?:[5-9]|\d{2,})|[6-9]|\d{2,}))(?!\d)")
"""Model names with preserved thinking (docs: build-with-claude/preserved-thinking; later majors assumed)."""


def preserved_thinking(model: str) -> bool:
    """Whether this Claude model checks thinking blocks against the prefix they were produced after."""
    return PRESERVED.search(model.lower()) is not None


def _plain(v: Any) -> Any:
    """``v`` without cache marks (they move every step and are no part of what the check compares)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if k != "cache_control"}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _digest(v: Any) -> bytes:
    return hashlib.sha256(json.dumps(_plain(v), sort_keys=True, default=str).encode()).digest()


def _start(tools: Sequence[Mapping[str, Any]] | None) -> Any:
    """The running fingerprint of a request before its first message: its tools."""
    return hashlib.sha256(_digest(list(tools or [])))


def prefix_prints(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """``out[i]``: the fingerprint of the tools and ``messages[:i]`` (``out[-1]`` is the whole request's)."""
    h = _start(tools)
    out = [h.hexdigest()]
    for m in messages:
        h.update(_digest(m))
        out.append(h.hexdigest())
    return out


def attach_bound(messages: list[dict[str, Any]], tools: Sequence[Mapping[str, Any]] | None,
                 reasoning: Mapping[str, Mapping[str, Any]], key_of: Callable[[Mapping[str, Any]], str | None]) -> int:
    """Put back each kept thinking block whose message follows the very prefix it was produced after
    (``reasoning[key]["prefix"]``); returns how many messages got theirs."""
    h = _start(tools)
    sent = 0
    for m in messages:
        m.pop("thinking_blocks", None)
        key = key_of(m) if m.get("role") == "assistant" else None
        data = reasoning.get(key) if key else None
        if data and data.get("thinking_blocks") and data.get("prefix") == h.hexdigest():
            m["thinking_blocks"] = copy.deepcopy(data["thinking_blocks"])
            sent += 1
        h.update(_digest(m))
    return sent
