"""The bubblewrap sandbox for commands, run for real: the workspace is writable, nothing else is;
.git/config, .git/hooks and .agent-tui/ stay read-only; the network is off unless allowed."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Sandbox, probe, sandbox_for
from agent_tui.tools.shell_exec import run_shell
from tests.support.bwrap import require_bwrap


@pytest.fixture
def box(tmp_path: Path) -> Sandbox:
    ws = tmp_path / "ws"
    ws.mkdir()
    return Sandbox(require_bwrap(), ws.resolve())


async def sh(box: Sandbox, command: str) -> tuple[int | None, str]:
    out = await run_shell(command, box.workspace, 30, sandbox=box)
    return out.exit_code, out.output


async def test_the_workspace_is_writable(box: Sandbox) -> None:
    code, out = await sh(box, "mkdir -p sub && echo hi > sub/f.txt && cat sub/f.txt && pwd")
    assert code == 0, out
    assert (box.workspace / "sub" / "f.txt").read_text() == "hi\n"
    assert str(box.workspace) in out


async def test_writes_outside_the_workspace_fail(box: Sandbox, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    probe_file = Path("/etc/agent-tui-sandbox-probe")
    home_file = Path.home() / ".agent-tui-sandbox-probe"
    try:
        for target in (probe_file, home_file):
            code, out = await sh(box, f"touch {target}")
            assert code != 0 and "Read-only file system" in out, out
            assert not target.exists()
        # under /tmp the sandbox sees its own private /tmp: the write lands there, never outside
        await sh(box, f"mkdir -p {outside} && touch {outside}/x; echo escaped > ../escaped.txt")
        assert not probe_file.exists()
        assert list(outside.iterdir()) == [] and not (tmp_path / "escaped.txt").exists()
    finally:
        probe_file.unlink(missing_ok=True)
        home_file.unlink(missing_ok=True)


async def test_tmp_is_private_and_writable(box: Sandbox, tmp_path: Path) -> None:
    code, out = await sh(box, "echo scratch > /tmp/agent-tui-scratch && cat /tmp/agent-tui-scratch && ls /tmp")
    assert code == 0 and "scratch" in out, out
    assert not Path("/tmp/agent-tui-scratch").exists(), "the sandbox's /tmp is its own"


async def test_git_config_hooks_and_agent_config_are_read_only(box: Sandbox) -> None:
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    (ws / ".agent-tui").mkdir()
    (ws / ".agent-tui" / "config.toml").write_text('[approval]\ndefault_command = "ask"\n')
    (ws / "a.txt").write_text("a\n")
    config_before = (ws / ".git" / "config").read_text()
    code, out = await sh(box, "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config; "
                              "echo 'touch pwned' > .git/hooks/pre-commit; "
                              "echo '[approval]' > .agent-tui/config.toml; touch .agent-tui/new")
    assert code != 0
    assert (ws / ".git" / "config").read_text() == config_before
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / ".agent-tui" / "config.toml").read_text().startswith("[approval]\ndefault_command")
    assert not (ws / ".agent-tui" / "new").exists()
    code, out = await sh(box, "git add a.txt && git -c user.name=t -c user.email=t@e commit -qm one && git log --oneline")
    assert code == 0 and "one" in out, "ordinary git work inside the workspace still works: " + out


async def test_missing_hooks_folder_cannot_be_created(box: Sandbox) -> None:
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["rm", "-rf", str(ws / ".git" / "hooks")], check=True)
    code, _ = await sh(box, "mkdir -p .git/hooks; echo 'touch pwned' > .git/hooks/post-checkout")
    assert code != 0
    assert not (ws / ".git" / "hooks" / "post-checkout").exists()


@pytest.fixture
def listener() -> Iterator[int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                conn.sendall(b"hello\n")
                conn.close()
            except OSError:
                continue

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join(2)
    srv.close()


async def test_network_is_off_unless_allowed(box: Sandbox, listener: int) -> None:
    import sys

    connect = (f"{sys.executable} -c \"import socket; s = socket.create_connection(('127.0.0.1', {listener}), 3); "
               f"print(s.recv(10).decode())\"")
    code, out = await sh(box, connect)
    assert code != 0 and "hello" not in out, out
    open_box = Sandbox(box.bwrap, box.workspace, network=True)
    code, out = await sh(open_box, connect)
    assert code == 0 and "hello" in out, out


def test_missing_bwrap_is_reported_with_how_to_install(tmp_path: Path) -> None:
    status = sandbox_for(tmp_path, "auto", bwrap=str(tmp_path / "no-such-bwrap"))
    assert status.sandbox is None
    assert "could not start" in status.message and "approval" in status.message
    missing = probe.__wrapped__  # type: ignore[attr-defined]
    import agent_tui.tools.sandbox as sb

    saved = sb.shutil.which
    sb.shutil.which = lambda _name: None  # type: ignore[assignment]
    try:
        path, why = missing(None)
    finally:
        sb.shutil.which = saved  # type: ignore[assignment]
    assert path is None and "apt install bubblewrap" in why
    off = sandbox_for(tmp_path, "off")
    assert off.sandbox is None and "off" in off.message


def test_sandbox_config_is_validated() -> None:
    from agent_tui.core.config import ConfigError, settings_from_dict

    s = settings_from_dict({"sandbox": {"mode": "off", "network": True}})
    assert s.sandbox.mode == "off" and s.sandbox.network is True
    assert settings_from_dict({}).sandbox.mode == "auto" and settings_from_dict({}).sandbox.network is False
    for bad in ({"mode": "on"}, {"network": "yes"}, {"netwrk": True}):
        with pytest.raises(ConfigError, match=r"\[sandbox\]"):
            settings_from_dict({"sandbox": bad})


def test_session_without_bwrap_warns_and_falls_back_to_approval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agent_tui.tools.sandbox as sb
    from agent_tui.agent.session import SessionOptions, build_agent
    from agent_tui.core.config import Settings

    monkeypatch.setattr(sb.shutil, "which", lambda _name: None)
    sb.probe.cache_clear()
    try:
        settings = Settings(approval={"sandboxed_commands": "allow"})
        agent, ws = build_agent(tmp_path, SessionOptions(), settings=settings)
        try:
            assert agent.ctx.sandbox is None and not agent.policy.sandboxed
            assert any("apt install bubblewrap" in w for w in agent.engine.warnings)
            assert agent.policy.decide("run_command", "command", {"command": "make"}) == "ask"
        finally:
            ws.close()
    finally:
        sb.probe.cache_clear()


def test_session_with_bwrap_runs_commands_sandboxed(tmp_path: Path) -> None:
    from agent_tui.agent.session import SessionOptions, build_agent
    from agent_tui.core.config import Settings

    require_bwrap()
    agent, ws = build_agent(tmp_path, SessionOptions(), settings=Settings(approval={"sandboxed_commands": "allow"}))
    try:
        assert agent.ctx.sandbox is not None and agent.policy.sandboxed
        assert agent.policy.decide("run_command", "command", {"command": "make && ./run"}) == "allow"
    finally:
        ws.close()
