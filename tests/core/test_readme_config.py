"""The README's configuration example is a real config: it loads under the strict schema and its
command rules mean what the comments beside them say (a stale example is a user's first error)."""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.agent.permissions import Policy
from agent_tui.core.config import load_settings

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_config(tmp_path: Path) -> Path:
    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "[approval]" in b and "[sandbox]" in b)
    path = tmp_path / "config.toml"
    path.write_text(example)
    return path


def test_the_readme_config_example_loads_and_its_rules_hold(tmp_path: Path) -> None:
    settings = load_settings(None, user_file=readme_config(tmp_path))
    assert settings.model == "openai/gpt-4o"
    assert settings.sandbox.mode == "auto" and settings.sandbox.network is False
    assert settings.approval["tools"] == {"git_diff": "allow"}, "tools = {…} belongs to [approval]"
    policy = Policy.from_config(settings.approval, yes=False, interactive=True, workspace=tmp_path)
    decide = lambda cmd: policy.decide("run_command", "command", {"command": cmd})  # noqa: E731
    assert decide("pytest -q tests") == "allow"
    assert decide("ruff check agent_tui") == "allow"
    assert decide("pytest -q; curl example.com") == "ask", "every simple command must match a prefix"
    assert decide("/bin/rm -fr build") == "deny" and decide("bash -c 'git push origin main'") == "deny"
    assert policy.decide("git_diff", "read", {}) == "allow"
