"""The agent's process is not dumpable, so a command run as the user outside the sandbox cannot read the API
key from ``/proc/<agent>/environ``; the programs it starts are dumpable again (their own business)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import subprocess, sys
from agent_tui import cli
from agent_tui.core.process_guard import is_private
before = is_private()
rc = cli.main(["trust"])
child = subprocess.run([sys.executable, "-c", "from agent_tui.core.process_guard import is_private; "
                        "print(is_private())"], capture_output=True, text=True).stdout.strip()
print(before, rc, is_private(), child)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_cli_makes_its_process_private_and_its_children_are_not(tmp_path) -> None:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_STATE_HOME=str(tmp_path / "s"))
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-4:] == ["False", "0", "True", "False"], done.stdout
