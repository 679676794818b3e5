"""The [mcp] TOML table and the workspace .mcp.json are read together, and bad entries are reported."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from agent_tui.mcp.config import ToolSettings, expand_env, load_mcp_config

TOML = """
[mcp]
timeout = 5
tool_budget = 900
always_load = ["fs_read"]

[mcp.servers.git]
command = "python"
args = ["-m", "mcp_server_git", "--repository", "."]
env = { GIT_PAGER = "cat" }
cwd = "sub"

[mcp.servers.remote]
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer ${TOKEN:-none}" }
timeout = 30

[mcp.groups]
fs_read = ["filesystem__read_*", "filesystem__list_*"]

[mcp.tools."filesystem__read_text_file"]
scope = "session"
shape = "exact"
max_tokens = 4000

[mcp.tools."git__*"]
scope = "global"
read_only = true
"""


def test_toml_and_mcp_json_are_merged(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "filesystem": {
                        "command": "npx",
                        "args": ["-y", "server-fs", "${HOME}"],
                        "env": {"A": "1"},
                    },
                    "git": {"command": "ignored-because-toml-wins"},
                    "web": {"type": "http", "url": "http://127.0.0.1:8/mcp"},
                }
            }
        )
    )
    config = load_mcp_config(tomllib.loads(TOML)["mcp"], tmp_path)
    assert set(config.servers) == {"filesystem", "git", "remote", "web"}
    git = config.servers["git"]
    assert git.command == "python" and git.args[-1] == "." and git.env == {"GIT_PAGER": "cat"}
    assert git.cwd == str(tmp_path / "sub") and git.transport == "stdio" and git.source == "config"
    fs = config.servers["filesystem"]
    assert fs.args[-1] != "${HOME}" and fs.source.endswith(".mcp.json")
    assert config.servers["web"].transport == "http"
    assert config.servers["remote"].headers == {"Authorization": "Bearer none"}
    assert config.servers["remote"].timeout == 30
    assert config.timeout == 5 and config.tool_budget == 900
    assert config.groups["fs_read"] == ("filesystem__read_*", "filesystem__list_*")
    assert config.always_load == ("fs_read",)
    assert config.tool_settings("filesystem__read_text_file") == ToolSettings(
        "session", "exact", 4000
    )
    assert config.tool_settings("git__git_status").scope == "global"
    assert config.tool_settings("git__git_status").read_only is True
    assert config.tool_settings("time__convert_time") == ToolSettings()
    assert config.errors == ()


def test_bad_entries_are_reported_not_fatal(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"old": {"type": "sse", "url": "http://x"}}}'
    )
    table = {
        "timeout": -1,
        "servers": {"empty": {}, "ok": {"command": "true"}, "weird": "nope"},
        "tools": {"x__y": {"scope": "forever", "shape": "tiny", "max_tokens": "big"}},
    }
    config = load_mcp_config(table, tmp_path)
    assert set(config.servers) == {"ok"}
    text = "\n".join(config.errors)
    for needle in ("SSE", "'empty'", "'weird'", "scope", "shape", "max_tokens", "mcp.timeout"):
        assert needle in text
    assert config.timeout == 10.0
    assert config.tool_settings("x__y") == ToolSettings()


def test_unreadable_json_and_explicit_file(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text("{not json")
    assert "cannot read" in load_mcp_config({}, tmp_path).errors[0]
    other = tmp_path / "other.json"
    other.write_text('{"mcpServers": {"t": {"command": "x", "disabled": true}}}')
    config = load_mcp_config({}, tmp_path, mcp_json=other)
    assert config.servers["t"].enabled is False and config.errors == ()
    assert load_mcp_config({}, tmp_path, workspace_json=False).servers == {}


def test_expand_env() -> None:
    env = {"A": "1"}
    assert expand_env("${A}-${B:-two}-${C}", env) == "1-two-"
    assert expand_env("plain $A", env) == "plain $A"
