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
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "EDITOR": "vi", "SSH_AUTH_SOCK": "/run/s"}
    assert command_env(["GH_TOKEN"], base=base)["GH_TOKEN"] == "t"
    assert dropped_names(base=base) == ["AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "GH_TOKEN", "LLM",
                                        "OPENAI_API_KEY"]
    assert command_env(base=base, sandboxed=True) == {"PATH": "/usr/bin", "HOME": "/home/u", "EDITOR": "vi"}


def test_an_unsandboxed_command_keeps_the_ssh_agent_but_never_a_key_under_its_name() -> None:
    """``git push`` over ssh, asked and run outside the sandbox, needs the user's agent socket; the
    name is secret-looking (``AUTH``), the value is a path.  A registered key under any name still goes."""
    key = "sk-registered-agent-0123456789abcdef"
    redact.register_secret(key)
    base = {"SSH_AUTH_SOCK": "/run/user/1000/ssh-agent.sock", "DOCKER_HOST": "unix:///run/docker.sock",
            "DOCKER_AUTH_CONFIG": '{"auths": {}}'}
    assert command_env(base=base) == {"SSH_AUTH_SOCK": "/run/user/1000/ssh-agent.sock",
                                      "DOCKER_HOST": "unix:///run/docker.sock"}
    assert command_env(base=base, sandboxed=True) == {}
    assert command_env(base={"SSH_AUTH_SOCK": key}) == {}
    assert redact.secrets_from_env(base) == {}  # not masked, so not dropped as a known value either
