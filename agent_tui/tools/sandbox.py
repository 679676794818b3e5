"""Running the model's shell commands inside bubblewrap, so a command can only change the workspace.

Approval rules can be fooled by a clever command line; a sandbox cannot.  With ``bwrap``
(the Debian package ``bubblewrap``) each command sees the whole file system read-only
except the workspace and a private ``/tmp``; inside the workspace ``.git/config``,
``.git/hooks`` and ``.agent-tui/`` stay read-only (a command must not plant a git hook,
an fsmonitor line or a looser approval config for the next run); the network is off
unless ``[sandbox] network = true``; the command gets its own PID namespace, so killing
its process group ends every process it started, and ``--die-with-parent`` ends it when
the agent dies, even by SIGKILL.

At start the session probes ``bwrap`` once with the same flags (a container without user
namespaces has the binary but cannot use it).  When it is missing or broken, commands run
unsandboxed, approval is the only guard, and the user is told why and how to install it.

Config::

    [sandbox]
    mode = "auto"       # auto: use bwrap when it works | off: never
    network = false     # let sandboxed commands reach the network
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: How to get bwrap, said whenever it is missing.
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `apt install bubblewrap`, Fedora: `dnf install bubblewrap`)"
#: Paths inside the workspace that commands may read but never change.
PROTECTED = (".git/config", ".git/hooks", ".agent-tui")
_BASE_FLAGS = ("--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
               "--new-session")


@dataclass(frozen=True)
class Sandbox:
    """How to run one command inside bubblewrap for a workspace."""

    bwrap: str
    """Path of the bwrap binary."""
    workspace: Path
    """The only writable folder (besides a private /tmp)."""
    network: bool = False
    """Whether commands may use the network."""

    def argv(self, command: str, cwd: Path | None = None) -> list[str]:
        """The argv that runs ``command`` with ``/bin/sh -c`` inside the sandbox."""
        ws = str(self.workspace)
        args = [self.bwrap, "--ro-bind", "/", "/", *_BASE_FLAGS, "--tmpfs", "/tmp"]
        if Path("/var/tmp").is_dir():
            args += ["--tmpfs", "/var/tmp"]
        args += ["--bind", ws, ws]
        for rel in PROTECTED:
            path = self.workspace / rel
            if path.exists() or path.is_symlink():
                real = path.resolve()
                args += ["--ro-bind", str(real), str(path)] if real.exists() else []
            elif rel != ".git/config" and (rel == ".agent-tui" or (self.workspace / ".git").is_dir()):
                args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        if not self.network:
            args.append("--unshare-net")
        args += ["--chdir", str(cwd or self.workspace), "--setenv", "TMPDIR", "/tmp", "/bin/sh", "-c", command]
        return args

    def describe(self) -> str:
        """One line for the model and the user: what the sandbox allows."""
        net = "network on" if self.network else "no network"
        return (f"sandboxed: only the workspace and a private /tmp are writable ({', '.join(PROTECTED)} "
                f"read-only), {net}")


@dataclass(frozen=True)
class SandboxStatus:
    """What the start-up check found."""

    sandbox: Sandbox | None
    """The sandbox to use, or None when commands run without one."""
    message: str
    """Why there is none (and how to get one), or what the sandbox allows."""


@functools.lru_cache(maxsize=4)
def probe(bwrap: str | None = None) -> tuple[str | None, str]:
    """(path, "") when bwrap exists and really works here, else (None, why)."""
    path = bwrap or shutil.which("bwrap")
    if not path:
        return None, f"bwrap was not found; {INSTALL_HINT}"
    cmd = [path, "--ro-bind", "/", "/", *_BASE_FLAGS, "--tmpfs", "/tmp", "--unshare-net", "true"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bwrap at {path} could not start ({exc})"
    if done.returncode != 0:
        err = (done.stderr or "").strip().splitlines()
        why = err[-1] if err else f"exit code {done.returncode}"
        return None, f"bwrap at {path} does not work here ({why}; user namespaces may be disabled)"
    return path, ""


def sandbox_for(workspace: Path, mode: str = "auto", network: bool = False,
                bwrap: str | None = None) -> SandboxStatus:
    """The sandbox for ``workspace`` under ``[sandbox] mode``, or None with the reason."""
    if mode == "off":
        return SandboxStatus(None, "the sandbox is off ([sandbox] mode = \"off\"): commands run unconfined, "
                                   "approval is the only guard")
    path, why = probe(bwrap)
    if path is None:
        return SandboxStatus(None, f"commands run without a sandbox: {why}. Until then every command needs "
                                   "approval as configured.")
    box = Sandbox(path, workspace.resolve(), network)
    return SandboxStatus(box, box.describe())
