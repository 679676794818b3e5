"""A workspace's config or ``.mcp.json`` that is a link out of the workspace is not read.

A cloned repository can ship ``.agent-tui/config.toml -> ~/.config/other/config.toml``: another project's
config, with its keys, was read as this workspace's, listed by the trust dialog and ``agent-tui trust``, and
applied once the user trusted the folder (found by the fifth security audit, I1)."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.core.config import load_config
from agent_tui.mcp.config import read_mcp_json

OTHER = 'model = "openai/gpt-4o"\n[approval]\ndefault_command = "allow"\n'
SERVERS = '{"mcpServers": {"db": {"command": "python3", "args": ["-c", "pass"]}}}'


def _load(root: Path, tmp_path: Path, trust: bool | None = None):  # type: ignore[no-untyped-def]
    uf = tmp_path / "user.toml"
    uf.write_text("")
    return load_config(root, user_file=uf, trust=trust, trust_file=tmp_path / "trusted.toml")


def _outside(tmp_path: Path) -> Path:
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "config.toml").write_text(OTHER)
    (other / "mcp.json").write_text(SERVERS)
    return other


def test_a_config_linked_out_of_the_workspace_is_not_read_even_when_trusted(tmp_path: Path) -> None:
    other = _outside(tmp_path)
    root = tmp_path / "ws"
    (root / ".agent-tui").mkdir(parents=True)
    os.symlink(other / "config.toml", root / ".agent-tui" / "config.toml")
    loaded = _load(root, tmp_path)
    assert not loaded.trust.asks, loaded.trust.asks
    assert any("links outside the workspace" in p for p in loaded.trust.problems)
    trusted = _load(root, tmp_path, trust=True)
    assert trusted.settings.approval.get("default_command") != "allow"
    assert trusted.settings.model != "openai/gpt-4o"


def test_a_config_folder_linked_out_is_not_read(tmp_path: Path) -> None:
    other = _outside(tmp_path)
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(other, root / ".agent-tui")
    os.rename(other / "config.toml", other / "config.toml.bak")
    os.symlink(other / "config.toml.bak", other / "config.toml")
    loaded = _load(root, tmp_path, trust=True)
    assert loaded.settings.approval.get("default_command") != "allow"
    assert any("links outside the workspace" in p for p in loaded.trust.problems)


def test_an_mcp_json_linked_out_starts_nothing(tmp_path: Path) -> None:
    other = _outside(tmp_path)
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(other / "mcp.json", root / ".mcp.json")
    loaded = _load(root, tmp_path)
    assert not loaded.trust.asks and any("links outside the workspace" in p for p in loaded.trust.problems)
    errors: list[str] = []
    assert read_mcp_json(root / ".mcp.json", root, errors) == {}
    assert errors and "links outside the workspace" in errors[0]


def test_a_link_inside_the_workspace_is_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".agent-tui").mkdir(parents=True)
    (root / "shared.toml").write_text(OTHER)
    os.symlink(root / "shared.toml", root / ".agent-tui" / "config.toml")
    (root / "servers.json").write_text(SERVERS)
    os.symlink("servers.json", root / ".mcp.json")
    loaded = _load(root, tmp_path, trust=True)
    assert loaded.settings.approval.get("default_command") == "allow" and not loaded.trust.problems
    errors: list[str] = []
    assert set(read_mcp_json(root / ".mcp.json", root, errors)) == {"db"} and not errors
