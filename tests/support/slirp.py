"""The one way network-sandbox tests get slirp4netns: under CI a missing one FAILS the test (CI
installs it); on a developer machine it skips, saying why."""

from __future__ import annotations

import os

import pytest

from agent_tui.tools.sandbox_net import slirp_path


def require_slirp() -> str:
    """Path of a working slirp4netns, or fail (CI) / skip (locally)."""
    path = slirp_path()
    if path:
        return path
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail("CI must test the sandbox's own network for real, but slirp4netns is missing")
    pytest.skip("these tests need slirp4netns (apt install slirp4netns)")
