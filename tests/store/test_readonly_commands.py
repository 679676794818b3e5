"""Read-only commands in a folder with no store: they say so, exit 0, and create nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = str(Path(sys.executable).with_name("agent-tui"))


@pytest.mark.parametrize("cmd", [["memory", "list"], ["memory", "list", "--all", "--json"], ["memory", "show", "m1"],
                                 ["context"], ["context", "--json"], ["mcp", "list"], ["mcp", "list", "--json"]])
def test_read_only_command_in_empty_folder_leaves_it_empty(tmp_path: Path, cmd: list[str]) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run([BIN, *cmd], cwd=folder, capture_output=True, text=True, timeout=120, env=env,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(folder.iterdir()) == []
    if cmd[0] != "mcp":
        assert "no store yet" in proc.stderr
    if cmd[:2] == ["memory", "list"] and "--json" in cmd:
        assert json.loads(proc.stdout) == []
    if cmd == ["context", "--json"]:
        assert json.loads(proc.stdout)["session"] is None
    if cmd[0] == "context":
        assert "what a first request in this folder would hold" in proc.stderr, "the breakdown says what it is"


def test_explicit_session_in_empty_folder_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    proc = subprocess.run([BIN, "memory", "list", "--session", "s1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and "no session 's1'" in proc.stderr
    assert list(tmp_path.iterdir()) == []
