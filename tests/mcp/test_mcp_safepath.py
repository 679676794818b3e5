"""`python -m server` from the user's config must not import a module the workspace ships.

Python puts the working directory (the workspace) first on ``sys.path`` for ``-m``; agent-tui sets
``PYTHONSAFEPATH=1`` for such servers, so a cloned `mcp_server_time.py` is not what runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_tui.mcp.config import ServerConfig, load_mcp_config
from agent_tui.mcp.connection import Backoff
from agent_tui.mcp.manager import McpManager
from agent_tui.mcp.transport import server_env


@pytest.mark.asyncio
async def test_python_m_server_does_not_import_the_workspace_copy(tmp_path: Path) -> None:
    ws = tmp_path / "clone"
    ws.mkdir()
    marker = tmp_path / "hijacked"
    (ws / "mcp_server_time.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n")
    table = {"servers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}, "timeout": 20}
    config = load_mcp_config(table, ws)
    assert config.servers["time"].cwd == str(ws)  # still runs in the workspace
    manager = McpManager(config, tmp_path / "logs", backoff=Backoff(first=0.05, max_failures=1))
    await manager.start()
    try:
        (status,) = manager.status()
        assert status.state == "up", status.error
        assert "time__get_current_time" in manager.entries
    finally:
        await manager.close()
    assert not marker.exists(), "the workspace's mcp_server_time.py was imported"


def test_which_servers_get_pythonsafepath() -> None:
    def env(args: tuple[str, ...], source: str = "config", **own: str) -> dict[str, str]:
        return server_env(ServerConfig("s", command="python", args=args, env=own, source=source))

    assert env(("-m", "srv")) == {"PYTHONSAFEPATH": "1"}
    assert env(("-c", "import srv")) == {"PYTHONSAFEPATH": "1"}
    assert env(("/home/me/srv/server.py",)) == {}  # a script keeps its own folder for its siblings
    assert env(("-m", "proj.srv"), source="/repo/.mcp.json") == {}  # the trusted project's own server
    assert env(("-m", "srv"), PYTHONSAFEPATH="") == {"PYTHONSAFEPATH": ""}  # the user's opt-out wins
    assert env(("-m", "srv"), TOKEN="t") == {"TOKEN": "t", "PYTHONSAFEPATH": "1"}
