"""The bubblewrap sandbox for commands, run for real: the workspace is writable, nothing else is;
.git and .agent-tui/ stay read-only (and cannot be renamed away); the network is off unless allowed."""

from __future__ import annotations

import os
import platform
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools import sandbox_seccomp
from agent_tui.tools.sandbox import Sandbox, probe, sandbox_for
from tests.support.bwrap import require_bwrap, sh
from tests.support.hello import serving


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
    subprocess.run(["git", "add", "a.txt"], cwd=ws, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one"], cwd=ws, check=True)
    code, out = await sh(box, "echo b >> a.txt; git status --short && git log --oneline && git diff --stat")
    assert code == 0 and "one" in out and "M a.txt" in out, "reading git still works: " + out
    code, out = await sh(box, "git -c user.name=t -c user.email=t@e commit -qam two")
    assert code != 0 and "Read-only file system" in out, "git writes need outside_sandbox: " + out


async def test_a_command_has_no_capabilities_even_when_the_agent_runs_as_root(box: Sandbox) -> None:
    """bwrap started by root keeps root's capabilities unless told otherwise: a command could then
    `umount` the read-only `.git` and plant in the real one (found by review; CI runs as root)."""
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    code, out = await sh(box, "grep CapEff /proc/self/status")
    assert code == 0 and out.split() == ["CapEff:", "0000000000000000"], out
    code, out = await sh(box, "umount .git; printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config")
    assert code != 0, out
    git = subprocess.run(["git", "config", "--get", "core.fsmonitor"], cwd=ws, capture_output=True, text=True)
    assert git.stdout == "", out


async def test_a_command_cannot_set_the_hosts_sysctls_nor_its_name(box: Sandbox) -> None:
    """Run by root, bwrap leaves /proc/sys writable and sysctls check only for uid 0: `core_pattern`
    pointed at a workspace program ran it as root on the host (found by review).  The writes below put
    back the value already there, so a failure of the sandbox changes nothing on the machine."""
    code, out = await sh(box, "cat /proc/sys/vm/swappiness > /proc/sys/vm/swappiness && echo wrote-sysctl; "
                              "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern && echo wrote-core; "
                              "readlink /proc/self/ns/uts")
    assert "wrote-sysctl" not in out and "wrote-core" not in out, out
    assert "Read-only file system" in out or "Permission denied" in out, out
    assert out.split()[-1] != os.readlink("/proc/self/ns/uts"), out  # its own host name, not the machine's


_KEYCTL = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
add_key, _, keyctl = map(int, sys.argv[1:4])
got = libc.syscall(keyctl, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
print("keyctl", got, ctypes.get_errno())
got = libc.syscall(add_key, b"user", b"planted", b"x", 1, -3)
print("add_key", got, ctypes.get_errno())
"""


async def test_the_kernel_keyring_is_out_of_a_commands_reach(box: Sandbox, tmp_path: Path) -> None:
    """A command inherited the agent's session keyring (Kerberos caches, tokens) and could read it or
    plant keys later programs use (found by review): the keyring calls are refused by a seccomp filter."""
    numbers = [str(n) for n in sandbox_seccomp._ARCHES[platform.machine()][0][2]]
    (box.workspace / "k.py").write_text(_KEYCTL)
    host = subprocess.run([sys.executable, box.workspace / "k.py", *numbers], capture_output=True, text=True)
    assert host.stdout.split()[1] != "-1", host.stdout  # outside, the calls work: the test can fail
    code, out = await sh(box, f"{sys.executable} k.py {' '.join(numbers)}")
    assert code == 0 and out.split() == ["keyctl", "-1", "1", "add_key", "-1", "1"], out  # EPERM both


def _bpf(code: bytes, arch: int, nr: int, args: tuple[int, ...] = (0,) * 6) -> int:
    """What a classic BPF seccomp program answers for one call (a small interpreter of the ops used)."""
    ops = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = ops[pc]
        if op == 0x20:
            acc = arch if k == 4 else nr if k == 0 else args[(k - 16) // 8] & 0xFFFFFFFF
        elif op == 0x54:
            acc &= k
        elif op == 0x15:
            pc += jt if acc == k else jf
        elif op == 0x45:
            pc += jt if acc & k else jf
        elif op == 0x06:
            return k
        pc += 1


def test_the_filter_refuses_exactly_the_keyring_calls_and_set_id_modes() -> None:
    """Per architecture: the three keyring numbers refused (x32's too); chmod-like calls refused only
    with set-ID bits; openat2 answered ENOSYS; every other call and an unknown architecture allowed."""
    x86 = sandbox_seccomp.program("x86_64")
    assert x86 is not None and sandbox_seccomp.program("sparc") is None
    refused, absent, allowed = 0x00050001, 0x00050026, 0x7FFF0000
    for nr in (248, 249, 250, 0x40000000 | 250):
        assert _bpf(x86, 0xC000003E, nr) == refused, nr
    for nr in (0, 1, 59, 247, 251, 0x40000000 | 1):
        assert _bpf(x86, 0xC000003E, nr) == allowed, nr
    assert _bpf(x86, 0xC000003E, 437) == absent
    # chmod(path, mode), fchmodat(dirfd, path, mode), openat(dirfd, path, flags, mode), mkdir(path, mode)
    for nr, arg in ((90, 1), (268, 2), (257, 3), (83, 1), (133, 1)):
        mode = [0] * 6
        for bits, want in ((0o755, allowed), (0o4755, refused), (0o2775, refused), (0o644, allowed)):
            mode[arg] = bits
            assert _bpf(x86, 0xC000003E, nr, tuple(mode)) == want, (nr, oct(bits))
    assert _bpf(x86, 0xC000003E, 1, (1, 0o4755, 0, 0, 0, 0)) == allowed  # write(fd, buf…): not a mode
    assert [_bpf(x86, 0x40000003, nr) for nr in (286, 287, 288, 285, 11)] == [refused] * 3 + [allowed] * 2
    assert _bpf(x86, 0x40000003, 15, (0, 0o4755, 0, 0, 0, 0)) == refused  # i386 chmod
    assert _bpf(x86, 0xDEAD, 250) == allowed
    arm = sandbox_seccomp.program("aarch64")
    assert arm is not None and [_bpf(arm, 0xC00000B7, nr) for nr in (217, 218, 219, 220)] == [refused] * 3 + [allowed]
    assert _bpf(arm, 0xC00000B7, 53, (0, 0, 0o4755, 0, 0, 0)) == refused


async def test_a_command_cannot_leave_a_set_id_program(box: Sandbox) -> None:
    """As root, a command's files are root's, and an owner may set the set-user-ID bit without any
    capability: a set-UID-root shell left in the workspace made any local user root (found by review)."""
    code, out = await sh(box, "cp /bin/sh sh2 && chmod u+s sh2; chmod g+s sh2; chmod 4755 sh2; "
                              "install -m 4755 /bin/sh sh3; mkdir -m 2775 d; "
                              "python3 -c \"import os; os.close(os.open('sh4', os.O_CREAT | os.O_WRONLY, 0o4755))\"; "
                              "cp /bin/sh sh5 && chmod +x sh5 && echo plain-ok")
    assert "plain-ok" in out, out  # ordinary modes still work
    for name in ("sh2", "sh3", "d", "sh4", "sh5"):
        path = box.workspace / name
        if path.exists():
            assert not path.stat().st_mode & 0o6000, (name, oct(path.stat().st_mode), out)
    assert (box.workspace / "sh5").stat().st_mode & 0o111


async def test_git_folder_cannot_be_renamed_away_and_replaced(box: Sandbox) -> None:
    """Protecting only .git/config let `mv .git .gitx && mkdir .git` plant a new config (and hooks)
    that the user's own `git status` would run after the session."""
    ws = box.workspace
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    (ws / ".agent-tui").mkdir()
    (ws / ".agent-tui" / "config.toml").write_text('[approval]\ndefault_command = "ask"\n')
    evil = "[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch pwned\\n"
    for attack in (
        f"mv .git .gitx && mkdir .git && cp -r .gitx/. .git/; printf '{evil}' > .git/config",
        f"mkdir -p evil && cp -r .git/. evil/ && printf '{evil}' > evil/config && echo ../evil > .git/commondir",
        f"mkdir -p .git/modules/sub && printf '{evil}' > .git/modules/sub/config",
        "mv .agent-tui .agent-tuix && mkdir .agent-tui && echo '[approval]' > .agent-tui/config.toml",
        "rm -rf .git .agent-tui",
    ):
        await sh(box, attack)
        git = subprocess.run(["git", "config", "--get", "core.fsmonitor"], cwd=ws, capture_output=True, text=True)
        assert git.stdout == "" and (ws / ".git" / "HEAD").is_file(), attack
        assert not (ws / ".git" / "commondir").exists() and not (ws / ".git" / "modules").exists(), attack
        assert "default_command" in (ws / ".agent-tui" / "config.toml").read_text(), attack
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, check=True)
    assert not (ws / "pwned").exists()


async def test_git_init_cannot_create_a_repository_and_leaves_no_trace(box: Sandbox) -> None:
    ws = box.workspace
    code, out = await sh(box, "git init -q . && printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config")
    assert code != 0
    assert not (ws / ".git").exists(), "the empty mount point is removed after the command"


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
    with serving(srv):
        yield srv.getsockname()[1]


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

    saved = sb.find_program
    sb.find_program = lambda _name: None  # type: ignore[assignment]
    try:
        path, why = missing(None)
    finally:
        sb.find_program = saved
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

    monkeypatch.setattr(sb, "find_program", lambda _name: None)
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


async def test_outside_sandbox_runs_unconfined_for_git_writes(tmp_path: Path) -> None:
    from agent_tui.agent.session import SessionOptions, build_agent
    from agent_tui.core.config import Settings
    from agent_tui.tools.shell import run_command

    require_bwrap()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "a.txt").write_text("a\n")
    agent, ws = build_agent(tmp_path, SessionOptions(), settings=Settings())
    try:
        commit = "git add a.txt && git -c user.name=t -c user.email=t@e commit -qm one"
        boxed = await run_command({"command": commit}, agent.ctx)
        assert "exit code 0" not in boxed.text and "outside_sandbox" in boxed.text, boxed.text
        free = await run_command({"command": commit, "outside_sandbox": True}, agent.ctx)
        assert "exit code 0" in free.text and "sandboxed" not in free.text, free.text
        log = subprocess.run(["git", "log", "--oneline"], cwd=tmp_path, capture_output=True, text=True)
        assert "one" in log.stdout
    finally:
        ws.close()


async def test_an_interpreter_living_in_tmp_stays_visible_read_only(box: Sandbox, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A venv made under /tmp (as CI clones do) would vanish behind the private /tmp; the agent's own
    Python stays visible there, read-only; the rest of the host's /tmp stays hidden."""
    import sys

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "marker").write_text("here\n")
    (tmp_path / "other.txt").write_text("private\n")
    monkeypatch.setattr(sys, "prefix", str(venv))
    code, out = await sh(box, f"cat {venv}/bin/marker && ! cat {tmp_path}/other.txt 2>/dev/null && echo hidden")
    assert code == 0 and "here" in out and "hidden" in out, out
    code, out = await sh(box, f"echo x > {venv}/bin/marker")
    assert code != 0 and (venv / "bin" / "marker").read_text() == "here\n", out


def _socket_dir() -> Path:
    """A folder under /run we may create a socket in (root: /run itself; a user: their runtime dir)."""
    import os

    for base in (Path("/run"), Path(os.environ.get("XDG_RUNTIME_DIR") or "/nonexistent")):
        if base.is_dir() and os.access(base, os.W_OK):
            return base
    pytest.fail("no writable folder under /run to plant a socket in")


@pytest.mark.parametrize("network", [False, True])
async def test_host_unix_sockets_are_out_of_reach(box: Sandbox, network: bool) -> None:
    """A read-only mount does not stop connect(): the session bus (systemd-run --user) or the docker socket
    would run anything outside the sandbox, so the folders they live in are hidden."""
    import os
    import sys

    folder = _socket_dir() / ("user" if network and _socket_dir() == Path("/run") else "") / f"agent-tui-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bus"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen(1)
    srv.settimeout(5)
    try:
        connect = (f"{sys.executable} -c \"import socket; s = socket.socket(socket.AF_UNIX); "
                   f"s.connect('{path}'); print('REACHED')\"")
        code, out = await sh(Sandbox(box.bwrap, box.workspace, network=network), connect)
        assert code != 0 and "REACHED" not in out, out
    finally:
        srv.close()
        path.unlink(missing_ok=True)
        folder.rmdir()
