"""The user's own MCP servers wait until the folder is trusted, through the real `agent-tui` binary.

A stdio server from the user's config starts with the workspace as working directory, where a cloned
repository can steer it (`python -m mcp_server_time` would import the repository's own
`mcp_server_time.py`).  So in a folder the user never trusted it does not start: `run` says why in one
line; after `agent-tui trust --yes` (or `--trust`) it starts, and even then `PYTHONSAFEPATH` keeps the
planted module out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.helpers import make_repo
from tests.support.fake_openai import FakeOpenAI, Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _env(xdg: Path) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        env.pop(k, None)
    env.update(XDG_CONFIG_HOME=str(xdg), OPENAI_API_KEY="sk-test")
    return env


def _user_config(xdg: Path, base_url: str, servers: str = "") -> None:
    (xdg / "agent-tui").mkdir(parents=True, exist_ok=True)
    (xdg / "agent-tui" / "config.toml").write_text(f'model = "openai/gpt-4o"\napi_base = "{base_url}"\n{servers}')


TIME_SERVER = f'[mcp.servers.time]\ncommand = "{sys.executable}"\nargs = ["-m", "mcp_server_time"]\n'


def _hijacked_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository that ships its own `mcp_server_time.py`; the marker it would write when imported."""
    root = make_repo(tmp_path / "proj")
    marker = tmp_path / "hijacked"
    (root / "mcp_server_time.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n")
    return root, marker


def _run(root: Path, xdg: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, "run", "do it", "--json", "--workspace", str(root), *extra], capture_output=True,
                          text=True, timeout=180, env=_env(xdg), stdin=subprocess.DEVNULL, cwd=root)


def _events(proc: subprocess.CompletedProcess[str], kind: str) -> list[dict[str, Any]]:
    return [e for e in (json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{"))
            if e["type"] == kind]


def _trust_cli(root: Path, xdg: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, "trust", "--workspace", str(root), *extra], capture_output=True, text=True,
                          timeout=60, env=_env(xdg))


def test_own_mcp_server_waits_for_trust_then_starts_without_the_planted_module(
        tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root, marker = _hijacked_repo(tmp_path)
    xdg = tmp_path / "xdg"
    _user_config(xdg, fake_llm.base_url, TIME_SERVER)

    fake_llm.script(Reply.text("ok"))
    proc = _run(root, xdg)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not marker.exists(), "the user's MCP server started in an untrusted folder"
    assert _events(proc, "mcp") == []
    notice = [line for line in proc.stderr.splitlines() if "mcp.servers.time" in line]
    assert len(notice) == 1 and "not trusted" in notice[0] and "agent-tui trust" in notice[0], proc.stderr
    (trust,) = _events(proc, "trust")
    assert trust["trusted"] is False and [a["key"] for a in trust["asks"]] == ["mcp.servers.time"]
    assert "mcp_server_time" in trust["asks"][0]["summary"]

    shown = _trust_cli(root, xdg)
    assert shown.returncode == 1 and "your MCP server would start in this folder" in shown.stdout
    assert f"{sys.executable} -m mcp_server_time" in shown.stdout
    assert _trust_cli(root, xdg, "--yes").returncode == 0

    fake_llm.script(Reply.text("ok"))
    proc = _run(root, xdg)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (started,) = _events(proc, "mcp")
    assert started["servers"] == [{"name": "time", "state": "up", "error": None}]
    assert not marker.exists(), "python -m imported the repository's mcp_server_time.py"
    assert _events(proc, "trust") == [] and "not trusted" not in proc.stderr
    assert _trust_cli(root, xdg).stdout.strip().endswith("asks for nothing that needs trust")


def test_trust_flag_starts_it_and_is_remembered(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    xdg = tmp_path / "xdg"
    _user_config(xdg, fake_llm.base_url, TIME_SERVER)
    fake_llm.script(Reply.text("ok"), Reply.text("ok"))
    proc = _run(root, xdg, "--trust")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _events(proc, "mcp")[0]["servers"][0]["state"] == "up"
    proc = _run(root, xdg)
    assert _events(proc, "mcp")[0]["servers"][0]["state"] == "up" and "not trusted" not in proc.stderr


def test_a_folder_is_asked_nothing_new_without_own_stdio_servers(tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    xdg = tmp_path / "xdg"
    _user_config(xdg, fake_llm.base_url, '[mcp.servers.off]\ncommand = "x"\ndisabled = true\n'
                                         '[mcp.servers.remote]\nurl = "http://127.0.0.1:9/mcp"\n')
    shown = _trust_cli(root, xdg)
    assert shown.returncode == 0 and "asks for nothing" in shown.stdout
