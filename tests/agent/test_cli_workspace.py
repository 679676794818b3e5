"""A ``--workspace`` that does not exist is refused by every command, and nothing is made there.

``agent-tui memory pin "x" --workspace /tmp/typo_ws`` answered ``pin: rule1 (rules, …)`` and made
``/tmp/typo_ws/.agent-tui/``: a typo'd path got a new folder and a store, and the pin went nowhere the
user would look."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.binary import BIN


@pytest.mark.parametrize("args", [["memory", "pin", "use pnpm"], ["run", "hi", "--json"], ["context"], ["trust"],
                                  ["init", "--yes"]])
def test_a_missing_workspace_is_refused_and_not_made(tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "typo_ws"
    proc = subprocess.run([BIN, *args, "--workspace", str(typo)], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "x")})
    assert proc.returncode == 2, proc.stderr
    assert f"--workspace {typo} does not exist (nothing was created)" in proc.stderr
    assert not typo.exists()


def test_a_file_given_as_workspace_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    proc = subprocess.run([BIN, "memory", "list", "--workspace", str(file)], capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 2 and "is not a folder" in proc.stderr
