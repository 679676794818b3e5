"""The one way sandbox tests get bubblewrap: under CI a missing or broken bwrap FAILS the test
(CI installs it, so the sandbox is tested for real there); on a developer machine it skips, saying why."""

from __future__ import annotations

import os

import pytest

from agent_tui.tools.sandbox import Sandbox, probe
from agent_tui.tools.shell_exec import run_shell


def require_bwrap() -> str:
    """Path of a working bwrap, or fail (CI) / skip (locally) with the reason."""
    path, why = probe()
    if path:
        return path
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI must test the sandbox for real, but {why}")
    pytest.skip(f"sandbox tests need a working bwrap: {why}")


async def sh(box: Sandbox, command: str) -> tuple[int | None, str]:
    """Run ``command`` in ``box``'s workspace through the sandbox: (exit code, output)."""
    out = await run_shell(command, box.workspace, 30, sandbox=box)
    return out.exit_code, out.output
