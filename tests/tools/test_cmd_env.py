"""Commands get the user's environment minus secrets (tools/cmd_env.py)."""

from __future__ import annotations

from agent_tui.core import redact
from agent_tui.tools.cmd_env import command_env, dropped_names


def test_secret_named_and_key_holding_variables_are_dropped() -> None:
    key = "sk-registered-0123456789abcdef"
    redact.register_secret(key)
    base = {"PATH": "/usr/bin", "HOME": "/home/u", "OPENAI_API_KEY": "sk-x-0123456789abcdef",
            "AWS_SECRET_ACCESS_KEY": "abc", "GH_TOKEN": "t", "DB_PASSWORD": "p", "SSH_AUTH_SOCK": "/run/s",
            "LLM": key, "EDITOR": "vi"}
    env = command_env(base=base)
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "EDITOR": "vi"}
    assert command_env(["GH_TOKEN"], base=base)["GH_TOKEN"] == "t"
    assert dropped_names(base=base) == ["AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "GH_TOKEN", "LLM",
                                        "OPENAI_API_KEY", "SSH_AUTH_SOCK"]
