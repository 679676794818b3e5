"""Deterministic apps for the snapshot tests: the demo on a fixed path with a fixed session id.

The system prompt names the workspace, so its path must not change between
runs (token counts would); the session id is shown on the status line.
"""

from __future__ import annotations

import fcntl
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_tui.demo_project import make_demo_workspace
from agent_tui.store.store import MemoryStore
from agent_tui.ui.app import AgentApp, make_app
from agent_tui.ui.options import SessionSpec, UiOptions

SNAPSHOT_ROOT = Path(tempfile.gettempdir()) / "agent-tui-snapshots" / "inventory-app"
SESSION_ID = "20250101-090000-snap01"


@contextmanager
def snapshot_root_lock() -> Iterator[None]:
    """Hold the fixed workspace path for one test: other checkouts on this machine use the same path
    (it must be fixed), and one test's rmtree under another's list_dir changes what the snapshot shows."""
    SNAPSHOT_ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(SNAPSHOT_ROOT.parent / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class _CountingUuid:
    """Stands in for the uuid module: ids count up instead of being random (ids are part of the
    request, so random ones would move the gauge numbers by a token or two)."""

    def __init__(self) -> None:
        self.n = 0

    def uuid4(self) -> uuid.UUID:
        self.n += 1
        return uuid.UUID(f"{self.n:08x}" + "a5" * 12)  # ids use the leading hex digits


def fixed_session_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """New sessions get SESSION_ID (then SESSION_ID-2 ...), created at a fixed time; the demo's call ids
    and the store's result handles count up (both are sent to the model, so both are counted in tokens); the
    demo's test command names ``python3``, not this machine's interpreter path."""
    counter = {"n": 0}
    monkeypatch.setattr("agent_tui.agent.demo.uuid", _CountingUuid())
    monkeypatch.setattr("agent_tui.agent.demo.interpreter", lambda: "python3")  # not this machine's path
    monkeypatch.setattr("agent_tui.store.store.uuid", _CountingUuid())

    def new_session(self: MemoryStore, model: str | None = None, title: str = "", parent: str | None = None) -> str:
        counter["n"] += 1
        sid = SESSION_ID if counter["n"] == 1 else f"{SESSION_ID}-{counter['n']}"
        with self.lock:
            self.db["sessions"].insert({"id": sid, "created": 1735722000.0, "updated": time.time(), "title": title,
                                        "model": model or "", "parent": parent or "", "status": "open"})
        return sid

    monkeypatch.setattr(MemoryStore, "new_session", new_session)


def snapshot_app(**kw: Any) -> AgentApp:
    """The demo app on a fresh copy of the sample project at a fixed path."""
    shutil.rmtree(SNAPSHOT_ROOT, ignore_errors=True)
    workspace = make_demo_workspace(SNAPSHOT_ROOT)
    return make_app(UiOptions(workspace=workspace, session=SessionSpec(demo=True), demo_reason="flag",
                              theme="textual-dark", **kw))
