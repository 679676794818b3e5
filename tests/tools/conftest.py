"""Fixtures for the tool tests: a temp workspace, a fake ToolContext and a registry runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolResult
from agent_tui.tools.builtin import builtin_registry
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.sandbox import Sandbox
from tests.support.bwrap import require_bwrap

from .fakes import Call, FakeContext


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def box(ws: Path) -> Sandbox:
    """A real bubblewrap sandbox on the temp workspace (fails under CI, skips locally, without bwrap)."""
    return Sandbox(require_bwrap(), ws.resolve())


@pytest.fixture
def ctx(ws: Path) -> FakeContext:
    return FakeContext(workspace=ws)


@pytest.fixture
def registry() -> ToolRegistry:
    return builtin_registry()


@pytest.fixture
def call(registry: ToolRegistry, ctx: FakeContext) -> Call:
    """``await call("read_file", path="a.py")`` runs a tool through the registry."""

    async def run(name: str, **args: Any) -> ToolResult:
        return await registry.run(name, args, ctx)

    return run
