"""Running the real `agent-tui` binary in tests: one place for the command line, the environment
(a dummy key for the fake server) and reading what it printed, shared by the end-to-end tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.fake_openai import FakeOpenAI
from tests.support.fixtures import FAKE_MODEL

BIN = str(Path(sys.executable).with_name("agent-tui"))
"""The installed entry point next to the test interpreter."""


def agent_tui(root: Path, *args: str, env: dict[str, str] | None = None, stdin: int | None = subprocess.DEVNULL,
              timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``agent-tui ARGS --workspace ROOT`` with a dummy OpenAI key (``env`` adds or replaces variables)."""
    full = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy", **(env or {})}
    return subprocess.run([BIN, *args, "--workspace", str(root)], capture_output=True, text=True, timeout=timeout,
                          env=full, stdin=stdin)


def run_json(root: Path, fake: FakeOpenAI, task: str, *extra: str, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    """``agent-tui run TASK --json`` against the fake server with the test model."""
    return agent_tui(root, "run", task, "--model", FAKE_MODEL, "--api-base", fake.base_url, "--json", *extra, env=env)


def events(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The JSON Lines events a ``run --json`` printed."""
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def memory_rows(root: Path) -> dict[str, dict[str, Any]]:
    """``memory list --all --json`` by item id."""
    proc = agent_tui(root, "memory", "list", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    return {r["id"]: r for r in json.loads(proc.stdout)}
