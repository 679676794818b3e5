"""A sandboxed command with the network on gets a network of its own (slirp4netns), run for real:
the host's loopback services and abstract Unix sockets are out of reach, which a shared network
namespace cannot hide; `[sandbox] host_network` shares the host's again."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Sandbox, sandbox_for
from agent_tui.tools.shell_exec import run_shell
from tests.support.bwrap import require_bwrap
from tests.support.hello import serving
from tests.support.slirp import require_slirp


@pytest.fixture
def services() -> Iterator[tuple[int, str]]:
    """A service on the host's loopback (its port) and one on an abstract Unix socket (its name)."""
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    name = f"agent-tui-test-{uuid.uuid4().hex[:8]}"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind("\0" + name)
    with serving(tcp, unix):
        yield tcp.getsockname()[1], name


def _reach(target: str) -> str:
    """A command printing what the service at ``target`` (a Python address expression) says."""
    family = "socket.AF_UNIX" if target.startswith("'\\0") else "socket.AF_INET"
    return (f"{sys.executable} -c \"import socket; s = socket.socket({family}); s.settimeout(3); "
            f"s.connect({target}); print(s.recv(10).decode())\"")


async def sh(box: Sandbox, command: str) -> tuple[int | None, str, tuple[str, ...]]:
    out = await run_shell(command, box.workspace, 30, sandbox=box)
    return out.exit_code, out.output, out.notes


def _slirps() -> set[str]:
    done = subprocess.run(["pgrep", "-f", "slirp4netns --configure"], capture_output=True, text=True)
    return set(done.stdout.split())


async def test_the_network_is_the_commands_own(tmp_path: Path, services: tuple[int, str]) -> None:
    port, name = services
    before = _slirps()
    box = Sandbox(require_bwrap(), tmp_path.resolve(), network=True, slirp=require_slirp())
    assert not box.shares_host_net and "its own" in box.describe() and "other addresses" in box.describe()
    # it is there: an interface with an address, a default route, a resolver slirp4netns answers
    address = (f"{sys.executable} -c \"import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
               "s.connect(('10.0.2.3', 53)); print(s.getsockname()[0])\"")  # a UDP connect sends nothing
    code, out, notes = await sh(box, f"grep -o tap0 /proc/net/dev; {address}; cat /etc/resolv.conf; "
                                     "grep -c tap0 /proc/net/route")
    assert code == 0 and not notes, (out, notes)
    assert out.split() == ["tap0", "10.0.2.100", "nameserver", "10.0.2.3", "2"], out
    # the host's own services are not: its loopback (directly or through the gateway), its abstract sockets
    for target in (f"('127.0.0.1', {port})", f"('10.0.2.2', {port})", f"'\\0{name}'"):
        code, out, _ = await sh(box, _reach(target))
        assert code != 0 and "hello" not in out, (target, out)
    # and the stack ends with the command
    assert _slirps() == before


async def test_host_network_shares_the_hosts_again(tmp_path: Path, services: tuple[int, str]) -> None:
    port, name = services
    box = Sandbox(require_bwrap(), tmp_path.resolve(), network=True, host_network=True, slirp=require_slirp())
    assert box.shares_host_net and "host_network" in box.describe()
    for target in (f"('127.0.0.1', {port})", f"'\\0{name}'"):
        code, out, _ = await sh(box, _reach(target))
        assert code == 0 and "hello" in out, (target, out)


async def test_a_failed_network_setup_still_runs_the_command_and_says_so(tmp_path: Path,
                                                                         services: tuple[int, str]) -> None:
    port, _ = services
    box = Sandbox(require_bwrap(), tmp_path.resolve(), network=True, slirp="/bin/false")
    code, out, notes = await sh(box, f"echo ran; {_reach(repr(('127.0.0.1', port)))}")
    assert out.startswith("ran") and "hello" not in out and code != 0, out
    assert any("network could not be set up" in n and "slirp4netns failed" in n for n in notes), notes


def test_the_start_message_says_which_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_bwrap()
    own = sandbox_for(tmp_path, "auto", network=True)
    assert own.sandbox is not None and own.sandbox.slirp == require_slirp() and "its own" in own.message
    shared = sandbox_for(tmp_path, "auto", network=True, host_network=True)
    assert shared.sandbox is not None and shared.sandbox.slirp is None and "host_network" in shared.message
    monkeypatch.setattr("agent_tui.tools.sandbox.slirp_path", lambda: None)
    missing = sandbox_for(tmp_path, "auto", network=True)
    assert missing.sandbox is not None and missing.sandbox.shares_host_net
    assert "apt install slirp4netns" in missing.message
    off = sandbox_for(tmp_path, "auto", network=False)
    assert off.sandbox is not None and "no network" in off.message


async def test_many_commands_in_a_row_all_get_their_network(tmp_path: Path) -> None:
    """bwrap's own loopback setup raced slirp4netns bringing `lo` up (a few percent of commands failed
    before running); the setup now waits for bwrap, and a lost race is retried."""
    box = Sandbox(require_bwrap(), tmp_path.resolve(), network=True, slirp=require_slirp())
    for _ in range(40):
        code, out, notes = await sh(box, "grep -c tap0 /proc/net/route")
        assert (code, out.strip(), notes) == (0, "2", ()), (code, out, notes)


async def test_a_cancel_during_the_network_setup_never_runs_the_command(tmp_path: Path) -> None:
    import asyncio

    from agent_tui.tools import reaper

    slow = tmp_path / "slow-slirp"
    pid_file = tmp_path / "child.pid"
    # never ready, ignores its exit fd; its child holds no pipe, so only killing the group ends it
    slow.write_text(f"#!/bin/sh\nsleep 30 </dev/null >/dev/null 2>&1 &\necho $! > {pid_file}\nwait\n")
    slow.chmod(0o755)
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    box = Sandbox(require_bwrap(), ws, network=True, slirp=str(slow))
    before = set(reaper.running())
    task = asyncio.ensure_future(run_shell("touch ran", ws, 30, sandbox=box))
    await asyncio.sleep(0.5)  # bwrap is up and blocked, slirp4netns never gets ready
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.3)
    assert not (ws / "ran").exists(), "the blocked command was let go"
    assert set(reaper.running()) == before, "the killed group is forgotten"
    # the stuck stack is ended with its children (a child holding its stderr kept a cancel waiting)
    stat = Path(f"/proc/{pid_file.read_text().strip()}/stat")
    assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z"), "slirp4netns' child lives on"


@pytest.mark.parametrize(("layout", "expected"), [
    ("file", "itself"), ("link into /run", "target"), ("dangling link elsewhere", None), ("missing", None),
])
def test_where_the_resolver_file_is_mounted(tmp_path: Path, layout: str, expected: str | None) -> None:
    from agent_tui.tools.sandbox_net import resolv_target

    etc = tmp_path / "resolv.conf"
    if layout == "file":
        etc.write_text("nameserver 127.0.0.53\n")
    elif layout == "link into /run":
        etc.symlink_to("/run/agent-tui-test-absent/stub-resolv.conf")
    elif layout == "dangling link elsewhere":
        etc.symlink_to(tmp_path / "gone" / "resolv.conf")
    want = {"itself": str(etc), "target": "/run/agent-tui-test-absent/stub-resolv.conf", None: None}[expected]
    assert resolv_target(etc) == want


async def test_slirp4netns_holds_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """slirp4netns parses what the command sends; it ran with agent-tui's whole environment, the key included."""
    import asyncio

    import agent_tui.tools.sandbox_net as net

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-slirp-0123456789abcdef")
    seen: list[dict[str, str]] = []
    real = asyncio.create_subprocess_exec

    async def recording(*args: object, **kwargs: object) -> object:
        if str(args[0]).endswith("slirp4netns"):
            seen.append(dict(kwargs.get("env") or os.environ))  # type: ignore[arg-type]
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(net.asyncio, "create_subprocess_exec", recording)
    box = Sandbox(require_bwrap(), tmp_path.resolve(), network=True, slirp=require_slirp())
    code, _, _ = await sh(box, "true")
    assert code == 0 and seen, "slirp4netns was started"
    assert all("OPENAI_API_KEY" not in env and "sk-test-slirp" not in str(env) for env in seen)
