"""Commands get the user's environment minus secrets (tools/cmd_env.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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


def test_relative_path_entries_never_reach_a_command(tmp_path: Path) -> None:
    """A seventh audit: with ``./node_modules/.bin`` (or ``.``, or an empty entry) on the user's ``PATH``, an
    allowed ``ls`` ran the repository's own ``node_modules/.bin/ls``.  Only absolute entries are passed on."""
    planted = tmp_path / "node_modules" / ".bin"
    planted.mkdir(parents=True)
    for folder in (planted, tmp_path):
        (folder / "ls").write_text("#!/bin/sh\necho PLANTED\n")
        (folder / "ls").chmod(0o755)
    real = os.environ.get("PATH", "/usr/bin:/bin")
    for path in (f"./node_modules/.bin:{real}", f":{real}", f"{real}:", f".:{real}", f"node_modules/.bin:{real}"):
        env = command_env(base={"PATH": path, "HOME": str(tmp_path)})
        assert all(os.path.isabs(e) for e in env["PATH"].split(os.pathsep)), env["PATH"]
        out = subprocess.run(["/bin/sh", "-c", "ls"], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert "PLANTED" not in out.stdout and "node_modules" in out.stdout, (path, out.stdout)
    assert command_env(base={"PATH": "/opt/tools/bin:/usr/bin"})["PATH"] == "/opt/tools/bin:/usr/bin"
