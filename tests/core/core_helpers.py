"""Shared helpers for the context-engine tests (text of a known size, a failing summariser)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.core.items import ContextItem
from agent_tui.core.summary import SummariserError, Summary

WORDS = (
    "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river stone cloud "
    "paper table green orange window button kernel socket buffer thread module parser"
).split()


def filler(tag: str, n_words: int) -> str:
    """``tag`` followed by about ``n_words`` ordinary words (roughly one token each)."""
    k = len(WORDS)
    start = sum(map(ord, tag)) % k
    body = " ".join(WORDS[(start + i * 7) % k] for i in range(max(0, n_words)))
    return f"<{tag}> {body}".strip()


class AlwaysFails:
    """A summariser that always raises (a model that is down)."""

    name = "always-fails"
    max_input_tokens: int | None = None

    def __init__(self) -> None:
        self.calls = 0

    def summarise(self, items: Sequence[ContextItem], previous: Summary | None) -> Summary:
        self.calls += 1
        raise SummariserError("the summarising model is unreachable")


class CountingSummariser:
    """Wraps another summariser and counts calls (to check summaries stay rare)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = f"counting-{inner.name}"
        self.max_input_tokens = inner.max_input_tokens
        self.calls = 0
        self.batches: list[int] = []

    def summarise(self, items: Sequence[ContextItem], previous: Summary | None) -> Summary:
        self.calls += 1
        self.batches.append(len(items))
        return self.inner.summarise(items, previous)


def call(call_id: str, name: str = "run_command", **args: Any) -> dict[str, Any]:
    """An OpenAI-format tool call."""
    import json

    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def request_text(messages: Sequence[dict[str, Any]]) -> str:
    """Everything a request says, as one string (to check what is in it)."""
    import json

    parts = []
    for m in messages:
        c = m.get("content")
        parts.append(c if isinstance(c, str) else json.dumps(c))
        if m.get("tool_calls"):
            parts.append(json.dumps(m["tool_calls"]))
    return "\n".join(p for p in parts if p)


def without_re2(monkeypatch: Any) -> None:
    """Make ``import re2`` fail from now on in this test (google-re2 missing, a broken install)."""
    import builtins

    real_import = builtins.__import__

    def no_re2(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "re2":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_re2)
