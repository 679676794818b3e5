"""Fixtures for the MCP tests: a generated workspace and a restartable HTTP server.

Helpers live in ``mcp_testkit`` (a uniquely named module, so it never clashes with the
``mcp`` SDK or other test folders' conftests).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_testkit import BIG_FILE_BYTES, HttpServer, realistic_text


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with a git repository (one commit, one change) and a 382 KB file."""
    ws = tmp_path_factory.mktemp("mcp-ws")
    repo = ws / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "app.py").write_text("print('hello')\n")
    subprocess.run(["git", "-C", str(repo), "add", "app.py"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "first"], check=True, env=env)
    (repo / "app.py").write_text("print('hello, world')\n")
    text = realistic_text(BIG_FILE_BYTES)
    big = ws / "big.log"
    big.write_bytes(text.encode())
    assert big.stat().st_size == BIG_FILE_BYTES
    return ws


@pytest.fixture
def http_everything(tmp_path: Path) -> Iterator[HttpServer]:
    server = HttpServer(tmp_path / "everything-http.log")
    server.start()
    try:
        yield server
    finally:
        server.kill()
