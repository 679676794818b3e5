"""agent-tui installed in the workspace (a project's ``.venv``, an editable install) is read-only to
sandboxed commands: the host runs that code at the next start, with the user's keys (audit 6).

Before, the workspace's writable bind covered it: a ``conftest.py`` under an approved ``pytest`` could
drop a ``.pth`` into the venv's site-packages, and the next ``agent-tui`` ran it on the host."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import agent_tui
from agent_tui.tools.sandbox import Sandbox, own_code_inside
from tests.support.bwrap import require_bwrap, sh


@pytest.fixture
def installed_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = (tmp_path / "ws").resolve()
    site = ws / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    (ws / "src" / "agent_tui").mkdir(parents=True)
    (ws / "src" / "agent_tui" / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "prefix", str(ws / ".venv"))
    monkeypatch.setattr(sys, "exec_prefix", str(ws / ".venv"))
    monkeypatch.setattr(agent_tui, "__file__", str(ws / "src" / "agent_tui" / "__init__.py"))
    return ws


def test_the_installation_inside_the_workspace_is_found(installed_inside: Path) -> None:
    ws = installed_inside
    assert set(own_code_inside(ws)) == {ws / ".venv", ws / "src" / "agent_tui"}
    assert own_code_inside(ws / "src" / "agent_tui" / "x") == []  # (none lies in a folder below it)


async def test_a_command_cannot_change_agent_tuis_own_code(installed_inside: Path) -> None:
    ws = installed_inside
    box = Sandbox(require_bwrap(), ws)
    site = ".venv/lib/python3/site-packages"
    code, out = await sh(box, f"echo 'import os' > {site}/zz.pth; echo x >> src/agent_tui/__init__.py; "
                              "echo ok > project.txt && cat project.txt")
    assert not (ws / site / "zz.pth").exists(), out
    assert (ws / "src" / "agent_tui" / "__init__.py").read_text() == ""
    assert "Read-only file system" in out
    assert (ws / "project.txt").read_text() == "ok\n", "the rest of the workspace stays writable"
    assert "agent-tui's own installation" in box.describe()
