"""Helpers that start real MCP servers as local processes (no network).

The npm servers come from ``tests/mcp/node_modules`` (``scripts/install_mcp_servers.sh``),
the pip ones from the venv; the workspace they work on — a git repository and a
382 KB text file — is generated here.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
NODE_DIR = HERE / "node_modules" / "@modelcontextprotocol"
EVERYTHING_JS = NODE_DIR / "server-everything" / "dist" / "index.js"
FILESYSTEM_JS = NODE_DIR / "server-filesystem" / "dist" / "index.js"
FAULT_SERVER = HERE / "fault_server.py"
BIG_FILE_BYTES = 382 * 1024


def require_node_servers() -> None:
    missing = [p for p in (EVERYTHING_JS, FILESYSTEM_JS) if not p.is_file()]
    if missing or shutil.which("node") is None:
        pytest.fail(
            f"MCP test servers missing ({missing or 'node'}): run scripts/install_mcp_servers.sh"
        )


def realistic_text(size: int, seed: int = 7) -> str:
    """Exactly ``size`` UTF-8 bytes of varied log and source lines (a few errors, some non-ASCII)."""
    rng = random.Random(seed)
    services = ["api", "worker", "scheduler", "billing", "auth", "search"]
    verbs = ["handled", "queued", "retried", "cached", "validated", "rendered"]
    lines: list[str] = []
    total = 0
    i = 0
    while True:
        i += 1
        roll = rng.random()
        day = f"2026-03-{i % 28 + 1:02d}"
        if roll < 0.004:
            line = f"{day} ERROR {rng.choice(services)}: timeout after {rng.randint(5, 90)}s (request {i})"
        elif roll < 0.15:
            line = f"def handler_{i}(request, retries={rng.randint(1, 5)}):  # naïve retry — see RFC §{i % 9}"
        elif roll < 0.25:
            line = f"    return {{'status': {rng.choice([200, 201, 204, 404])}, 'id': {i}, 'user': 'Jürgen'}}"
        else:
            line = (
                f"{day}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d} INFO "
                f"{rng.choice(services)}-{i % 9} {rng.choice(verbs)} job {i} in {rng.randint(1, 999)} ms"
            )
        size_of = len(line.encode()) + 1
        if total + size_of > size - 200:
            break
        lines.append(line)
        total += size_of
    lines.append("# end of log " + "=" * (size - total - len("# end of log ") - 1))
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) == size
    return text


def four_servers(ws: Path) -> dict[str, dict[str, Any]]:
    """The four real servers as a ``[mcp.servers]`` table."""
    require_node_servers()
    return {
        "everything": {"command": "node", "args": [str(EVERYTHING_JS), "stdio"]},
        "filesystem": {"command": "node", "args": [str(FILESYSTEM_JS), str(ws)]},
        "git": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", str(ws / "repo")],
        },
        "time": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        },
    }


def fault_server(**extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER)], **extra}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port}")


class HttpServer:
    """server-everything over streamable HTTP on a fixed local port; can be killed and restarted."""

    def __init__(self, log: Path) -> None:
        require_node_servers()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "PORT": str(self.port)}
        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                ["node", str(EVERYTHING_JS), "streamableHttp"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        wait_port(self.port)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def child_pids(pattern: str) -> list[int]:
    """Processes whose parent is this test process and whose command line contains ``pattern``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == os.getpid() and pattern in cmd:
            found.append(int(entry.name))
    return found
