"""The user's own stdio MCP servers and folder trust, at the config level (no binary, no server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.config import load_config
from agent_tui.core.trust import USER_MCP_SOURCE
from agent_tui.core.trust_store import TrustStore

OWN = """
[mcp.servers.time]
command = "python"
args = ["-m", "mcp_server_time"]
[mcp.servers.remote]
url = "http://127.0.0.1:9/mcp"
[mcp.servers.off]
command = "x"
disabled = true
[mcp.servers.elsewhere]
command = "x"
cwd = "/"
"""


def _load(root: Path, tmp_path: Path, user: str = OWN, trust: bool | None = None) -> Any:
    uf = tmp_path / "user.toml"
    uf.write_text(user)
    return load_config(root, user_file=uf, trust=trust, trust_file=tmp_path / "trusted.toml")


def test_only_own_stdio_servers_in_the_folder_wait(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    root.mkdir()
    loaded = _load(root, tmp_path)
    assert [(a.source, a.key) for a in loaded.trust.asks] == [(USER_MCP_SOURCE, "mcp.servers.time")]
    assert loaded.trust.pending and loaded.trust.fingerprint == ""
    assert set(loaded.settings.mcp["servers"]) == {"remote", "off", "elsewhere"}
    trusted = _load(root, tmp_path, trust=True)
    assert "time" in trusted.settings.mcp["servers"] and trusted.trust.trusted


def test_a_folder_trusted_once_keeps_them_when_its_own_asks_change(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    (root / ".agent-tui").mkdir(parents=True)
    (root / ".agent-tui" / "config.toml").write_text('[approval]\ndefault_command = "allow"\n')
    first = _load(root, tmp_path)
    assert {a.key for a in first.trust.asks} == {"approval.default_command", "mcp.servers.time"}
    TrustStore(tmp_path / "trusted.toml").remember(root, first.trust.fingerprint)
    again = _load(root, tmp_path)
    assert again.trust.trusted and {a.source for a in again.trust.asks} == {".agent-tui/config.toml"}
    # the user adds a server of their own: no new question for a folder already trusted
    more = _load(root, tmp_path, OWN + '[mcp.servers.git]\ncommand = "uvx"\nargs = ["mcp-server-git"]\n')
    assert more.trust.trusted and not more.trust.pending and "git" in more.settings.mcp["servers"]
    # the repository asks for more: that is asked again, but the user's own servers still start
    (root / ".agent-tui" / "config.toml").write_text('[approval]\ndefault_command = "allow"\nallow_commands = ["x"]\n')
    changed = _load(root, tmp_path)
    assert changed.trust.changed and {a.source for a in changed.trust.asks} == {".agent-tui/config.toml"}
    assert "time" in changed.settings.mcp["servers"]


def test_no_own_servers_asks_nothing(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    root.mkdir()
    loaded = _load(root, tmp_path, user='model = "openai/gpt-4o"\n')
    assert loaded.trust.asks == () and loaded.trust.trusted


def test_a_server_line_never_prints_a_key_from_its_arguments_or_url() -> None:
    """`agent-tui trust` printed the user's own MCP server arguments (`--api-key sk-…`, a GitHub token) in
    clear, while `run --json` and the env values beside them were redacted."""
    from agent_tui.core.trust import server_summary

    key, token = "sk-proj-" + "a1B2c3D4e5" * 4, "ghp_" + "Zx9Yw8Vu7T" * 4
    line = server_summary({"command": "npx", "args": ["-y", "srv", "--api-key", key, f"--token={token}"],
                           "env": {"GITHUB_TOKEN": token}})
    assert key not in line and token not in line and line.startswith("starts `npx -y srv --api-key [REDACTED:")
    assert key not in server_summary({"url": f"https://mcp.example/v1?key={key}"})
