"""Trace adapters: one module per recorded format, all returning a :class:`Session`.

To add a format, write a module with a class implementing
:class:`agent_tui.bench.trace.Adapter` and append an instance to ``ADAPTERS``;
discovery tries them in order and the first whose ``detect`` says yes reads
the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent_tui.bench.adapters.claude_code import ClaudeCodeAdapter
from agent_tui.bench.adapters.mini_swe import MiniSweAdapter
from agent_tui.bench.trace import Adapter, Session

ADAPTERS: list[Adapter] = [MiniSweAdapter(), ClaudeCodeAdapter()]


def adapter_for(path: Path) -> Adapter | None:
    """The first adapter that recognises ``path``."""
    for adapter in ADAPTERS:
        if adapter.detect(path):
            return adapter
    return None


def discover(paths: Iterable[Path]) -> list[Path]:
    """Every ``.json``/``.jsonl`` file under ``paths`` (files or folders), sorted: one no adapter recognises is
    reported as skipped with its reason, never left out unseen."""
    found: set[Path] = set()
    for p in paths:
        candidates = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file())
        found.update(q for q in candidates if q.suffix in (".json", ".jsonl"))
    return sorted(found)


def load_sessions(paths: Iterable[Path]) -> list[Session]:
    """Read every recognised trace under ``paths``; sessions without model calls are dropped."""
    out: list[Session] = []
    for path in discover(paths):
        adapter = adapter_for(path)
        if adapter is None:
            continue
        session = adapter.load(path)
        if session.calls:
            out.append(session)
    return out
