"""``agent-tui mcp list``: servers, status, tools and their raw and shaped token costs."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_testkit import four_servers

from agent_tui.mcp.cli import run_mcp_list

ROOT = Path(__file__).resolve().parents[2]


def test_mcp_list_json_for_the_four_servers(workspace: Path, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": four_servers(workspace)}))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui.mcp.cli",
            "list",
            "--json",
            "--config",
            str(config),
            "--workspace",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    servers = {s["name"]: s for s in report["servers"]}
    assert list(servers) == ["everything", "filesystem", "git", "time"]
    assert all(s["status"] == "up" for s in servers.values())
    assert [len(servers[n]["tools"]) for n in servers] == [13, 14, 12, 2]
    tool = servers["time"]["tools"][0]
    assert {"name", "tokens_raw", "tokens_shaped"} <= set(tool) and tool["name"].startswith(
        "time__"
    )
    assert all(t["tokens_shaped"] < t["tokens_raw"] for s in servers.values() for t in s["tools"])
    totals = report["totals"]
    assert totals["tokens_raw"] == sum(
        t["tokens_raw"] for s in servers.values() for t in s["tools"]
    )
    assert totals["tokens_shaped"] == sum(
        t["tokens_shaped"] for s in servers.values() for t in s["tools"]
    )
    assert totals["tokens_meta"] < 0.1 * totals["tokens_raw"]
    print(f"\nmcp list --json totals: {totals}")
    assert Path(servers["everything"]["log"]).is_file()
    assert not (tmp_path / ".agent-tui").exists()  # a read-only command creates no store folder


def test_mcp_list_text_with_a_toml_config_and_a_broken_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "agent.toml"
    config.write_text(
        f"""
[mcp]
timeout = 5
[mcp.servers.time]
command = "{sys.executable}"
args = ["-m", "mcp_server_time"]
[mcp.servers.broken]
command = "{tmp_path / "missing-binary"}"
[mcp.servers.bad]
nothing = 1
"""
    )
    args = argparse.Namespace(json=False, config=str(config), workspace=str(tmp_path))
    assert run_mcp_list(args) == 1
    out = capsys.readouterr().out
    assert "time__get_current_time" in out and "time__convert_time" in out
    assert "broken" in out and "missing-binary" in out
    assert "1/2 up" in out and "config: config: server 'bad'" in out
    bad = argparse.Namespace(json=True, config=str(tmp_path / "nope.toml"), workspace=str(tmp_path))
    assert run_mcp_list(bad) == 2


def test_mcp_list_names_a_server_that_does_not_answer_while_it_waits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mute = tmp_path / "mute.py"
    mute.write_text("import sys, time\nsys.stdin.read()\ntime.sleep(60)\n")  # reads, never answers
    config = tmp_path / "agent.toml"
    config.write_text(
        f"""
[mcp]
connect_timeout = 4
[mcp.servers.quiet]
command = "{sys.executable}"
args = ["{mute}"]
"""
    )
    args = argparse.Namespace(json=False, config=str(config), workspace=str(tmp_path))
    assert run_mcp_list(args) == 1
    captured = capsys.readouterr()
    assert "waiting for quiet to answer (at most 4 s; connect_timeout in [mcp] sets it)" in captured.err
    assert "quiet" in captured.out and "0/1 up" in captured.out
