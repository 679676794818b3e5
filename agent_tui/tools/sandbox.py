"""Running the model's shell commands inside bubblewrap, so a command can only change the workspace.

Approval rules can be fooled by a clever command line; a sandbox cannot.  With ``bwrap``
(the Debian package ``bubblewrap``) each command sees the whole file system read-only
except the workspace and a private ``/tmp``; inside the workspace ``.git`` (whole) and
``.agent-tui/`` stay read-only (a command must not plant a git hook, an fsmonitor line, a
``commondir`` pointing at its own config, or a looser approval config for the next run).
Each is its own mount point, so it cannot be renamed away and re-created either (protecting
only ``.git/config`` let ``mv .git .gitx && mkdir .git`` plant a new config); a missing one
is an empty read-only folder while the command runs, so ``git init`` cannot create one
(symlinked ``.git``, ``gitdir:`` files and two agents on one workspace: ``tools/sandbox_guard.py``).
Hooks and git config files kept in the work tree (``core.hooksPath = .husky/_``,
``include.path = ../.gitconfig``) are read-only as well (``tools/sandbox_hooks.py``): the
user's next ``git commit`` or ``git status`` would run what they say, unsandboxed.
Git *writes* (commit, checkout) therefore fail inside the sandbox and need an unsandboxed,
approved command; the network is off unless ``[sandbox] network = true``, and then it is the
command's own, not the host's (``tools/sandbox_net.py``).

What a command can *read* matters too: its output goes to the model provider.  The user's secret
stores under ``~`` (``~/.ssh``, ``~/.aws``, ``~/.config/gcloud``, ``~/.docker``, ``~/.netrc``,
agent-tui's own config…, the full list is ``sandbox_hide.DEFAULT_HIDDEN``) are hidden, with the
paths in ``[sandbox] hide``; the user's git config is replaced by a copy without credentials or
programs (``tools/sandbox_git.py``: ``git commit`` keeps the user's identity).  The host's Unix sockets are hidden as well (all of ``/run``
without network, else the session bus, container and agent sockets, and every other listening
socket found in ``/proc/net/unix``: a read-only mount does not stop ``connect()``, and
``systemd-run --user`` over the session bus, an ssh agent or the docker socket would act outside);
the command gets its own PID namespace, so killing
its process group ends every process it started, and ``--die-with-parent`` ends it when
the agent dies, even by SIGKILL.

At start the session probes ``bwrap`` once with the same flags (a container without user
namespaces has the binary but cannot use it).  When it is missing or broken, commands run
unsandboxed, approval is the only guard, and the user is told why and how to install it.

Config::

    [sandbox]
    mode = "auto"       # auto: use bwrap when it works | off: never
    network = false     # let sandboxed commands reach the network (their own stack: tools/sandbox_net.py)
    host_network = false  # with the network on, share the host's (its localhost services reachable)
    hide = ["~/work/secrets", "/srv/keys"]   # hidden besides the default secret stores ("~" hides all of home)
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_tui.tools import sandbox_journal, sandbox_seccomp, shell_dialect
from agent_tui.tools.programs import absolute_path, find_program
from agent_tui.tools.sandbox_after import move_made_hooks, take_hook_links
from agent_tui.tools.sandbox_git import git_view
from agent_tui.tools.sandbox_guard import PROTECTED, protected_reals, repair_links, snapshot_links
from agent_tui.tools.sandbox_hide import (
    hidden_paths,
    hide_flags,
    host_sockets,
    outermost,
    remount_flags,
)
from agent_tui.tools.sandbox_hooks import hook_flags
from agent_tui.tools.sandbox_net import SLIRP_HINT, NetSetup, slirp_path
from agent_tui.tools.sandbox_placed import check_made
from agent_tui.tools.shell_dialect import shell_argv

#: How to get bwrap, said whenever it is missing.
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: `apt install bubblewrap`, Fedora: `dnf install bubblewrap`)"
#: ``--cap-drop ALL``: bwrap run by root keeps root's capabilities otherwise, and a command could then
#: ``umount`` every read-only mount (or ``chattr +i`` what the repair must move).  ``/proc/sys``
#: read-only: bwrap leaves it writable, and sysctls check only for uid 0, so a command of root's could
#: set ``kernel.core_pattern`` to a program the kernel then runs as root on the host.  ``--unshare-uts``:
#: nor may it rename the host.  ``/proc/keys``: the names of the keys and keyrings it could see.
_BASE_FLAGS = ("--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
               "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
               "--ro-bind-try", "/dev/null", "/proc/keys", "--ro-bind-try", "/dev/null", "/proc/key-users",
               "--unshare-pid", "--unshare-ipc",
               "--unshare-uts", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


def _rebound_interpreter_dirs(hidden: list[Path], secrets: Sequence[Path] = ()) -> list[str]:
    """The Python agent-tui runs on, and the bash that runs every command, when either lives under a
    folder the sandbox hides (read-only again).

    The demo and many users run ``<that python> -m …``; a venv made in /tmp (or under a hidden ``~``)
    would otherwise vanish.  A bash found only under a hidden folder (``hide = ["~"]`` with bash from a
    per-user package manager) would make every command fail with bwrap's execvp error, so its
    installation comes back too: the folder holding its ``bin``, or only the ``bin`` itself when that
    folder is the home or holds one of the ``secrets`` (every hidden path, nested ones included).
    """
    import sys

    dirs = [Path(p).resolve() for p in (sys.prefix, sys.base_prefix)]
    dirs += _shell_dirs([*hidden, *secrets])
    shown = [d for d in dirs if any(d == h or d.is_relative_to(h) for h in hidden)]
    return [str(d) for d in dict.fromkeys(shown) if d.is_dir()]


def own_code_inside(ws: Path) -> list[Path]:
    """agent-tui's own code where it lies in the workspace: the Python it runs on (a project's ``.venv``
    it was installed into) and its package's folder (an editable install).  The host runs that code at
    the next start, with the user's keys: a sandboxed command must not change it (a ``.pth`` dropped in
    site-packages, a patched module), so these are read-only to commands."""
    import sys

    import agent_tui

    found = [Path(p).resolve() for p in (sys.prefix, sys.exec_prefix, sys.base_prefix)]
    found.append(Path(sys.executable).resolve().parent)
    found.append(Path(agent_tui.__file__).resolve().parent)
    inside = [d for d in dict.fromkeys(found) if d != ws and d.is_relative_to(ws) and d.is_dir()]
    return [d for d in inside if not any(d != o and d.is_relative_to(o) for o in inside)]


def _shell_dirs(secrets: list[Path]) -> list[Path]:
    """The installation of the bash commands run with (``shell_dialect.bash_path``), if any, short of
    re-exposing the home or a hidden path inside it."""
    bash = shell_dialect.bash_path()
    if bash is None:
        return []
    binary = Path(bash).resolve()
    folder = binary.parent
    prefix = folder.parent if folder.name == "bin" else folder
    home = Path.home().resolve()
    if prefix == home or any(h != prefix and h.is_relative_to(prefix) for h in secrets):
        prefix = folder
    if folder == home or any(h != folder and h.is_relative_to(folder) for h in secrets):
        return []
    return [prefix]


def _empty(folder: Path) -> bool:
    """True for an empty folder (an unreadable one counts as full: it is mounted read-only as it is)."""
    try:
        return not any(folder.iterdir())
    except OSError:
        return False


def _covered(network: bool) -> list[Path]:
    """Folders every sandbox replaces with its own empty ones (nothing under them needs hiding again)."""
    roots = ["/tmp", "/var/tmp", *(("/run", "/var/run") if not network else _SOCKET_DIRS)]
    return [Path(r).resolve() for r in roots if Path(r).exists()]


#: Sockets (and folders of them) that lead out of the sandbox: a read-only mount does not stop
#: ``connect()``, and the session bus starts programs (``systemd-run --user``), docker is root.
_SOCKET_DIRS = ("/run/user", "/run/dbus", "/run/containerd", "/run/podman", "/run/screen", "/var/run/dbus")
_SOCKET_FILES = ("/run/docker.sock", "/var/run/docker.sock", "/run/snapd.socket", "/run/snapd-snap.socket")


def _socket_hiding(network: bool) -> list[str]:
    """bwrap flags that hide the host's Unix sockets: all of ``/run`` when the network is off
    (nothing there is needed then), else the session, container and agent sockets."""
    out: list[str] = []
    seen: set[Path] = set()

    def hide(path: str, how: list[str]) -> None:
        p = Path(path)
        if not p.exists():
            return
        real = p.resolve()  # /var/run is usually a link to /run: hide each real path once
        if real not in seen and not any(parent in seen for parent in real.parents):
            seen.add(real)
            out.extend([*how, str(real)])

    for d in ("/run", "/var/run") if not network else _SOCKET_DIRS:
        hide(d, ["--tmpfs"])
    if network:
        for f in _SOCKET_FILES:
            hide(f, ["--ro-bind", "/dev/null"])
    return out


@dataclass(frozen=True)
class Sandbox:
    """How to run one command inside bubblewrap for a workspace."""

    bwrap: str
    """Path of the bwrap binary."""
    workspace: Path
    """The only writable folder (besides a private /tmp)."""
    network: bool = False
    """Whether commands may use the network."""
    hide: tuple[str, ...] = ()
    """Paths hidden besides the default secret stores (``[sandbox] hide``)."""
    links: tuple[tuple[str, str], ...] | None = None
    """``.git`` / ``.agent-tui`` symlinks as the session found them (None: taken now)."""
    host_network: bool = False
    """With the network on, share the host's (its loopback services and abstract sockets too)."""
    slirp: str | None = None
    """slirp4netns, which gives a command with the network on a stack of its own (``tools/sandbox_net.py``)."""

    def __post_init__(self) -> None:
        if self.links is None:
            object.__setattr__(self, "links", snapshot_links(self.workspace))

    @property
    def shares_host_net(self) -> bool:
        """Commands use the host's network namespace (the network is on without slirp4netns)."""
        return self.network and (self.host_network or self.slirp is None)

    def net_setup(self) -> NetSetup | None:
        """The pipes for one command's own network, when it gets one."""
        own = self.network and not self.shares_host_net  # (then slirp is set)
        return NetSetup(self.slirp) if own and self.slirp is not None else None

    def hidden(self, every: list[Path] | None = None) -> list[Path]:
        """The secret stores this sandbox hides (real paths that exist now), from ``every`` hidden path
        (``hidden_paths(…, nested=True)``, scanned now when not given)."""
        every = hidden_paths(self.hide, self.workspace, nested=True) if every is None else every
        covered = _covered(self.shares_host_net)  # (the workspace is mounted again on top of them)
        return [p for p in outermost(every)
                if p.is_relative_to(self.workspace) or not any(p == c or p.is_relative_to(c) for c in covered)]

    def argv(self, command: str, cwd: Path | None = None, net: NetSetup | None = None,
             seccomp: int | None = None) -> list[str]:
        """The argv that runs ``command`` with ``bash -c`` (``shell_dialect``) inside the sandbox (``net``: its own
        network, from ``net_setup``; without it a command that is not to share the host's has none;
        ``seccomp``: an fd on ``sandbox_seccomp``'s filter, which bwrap must inherit)."""
        ws = self.workspace
        args = [self.bwrap, "--ro-bind", "/", "/", *_BASE_FLAGS, "--tmpfs", "/tmp"]
        if Path("/var/tmp").is_dir():
            args += ["--tmpfs", "/var/tmp"]
        host_net = self.shares_host_net
        args += _socket_hiding(host_net)
        every = hidden_paths(self.hide, ws, nested=True)  # (scanned once: the env, the known stores)
        hidden = self.hidden(every)
        inside = [p for p in hidden if p.is_relative_to(ws)]
        args += hide_flags(p for p in hidden if p not in inside)
        rebound = _rebound_interpreter_dirs([*_covered(host_net), *hidden], every)
        for prefix in rebound:
            args += ["--ro-bind", prefix, prefix]
        args += ["--bind", str(ws), str(ws)]
        reals = protected_reals(ws)
        args += hook_flags(ws, reals)  # first: its writable pins must not cover a read-only mount
        for rel in PROTECTED:
            path = ws / rel
            if path.is_symlink() or path.is_file() or (path.is_dir() and not _empty(path)):
                continue
            # missing (or an empty placeholder): an empty read-only folder, removed afterwards
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        for real in reals:
            args += ["--ro-bind", str(real), str(real)]
        for own in own_code_inside(ws):  # (after the workspace's bind, which would cover it)
            args += ["--ro-bind", str(own), str(own)]
        args += hide_flags(inside)
        for sock in host_sockets([*_covered(host_net), *hidden], [ws, *map(Path, rebound)]):
            args += ["--ro-bind", "/dev/null", str(sock)]
        args += git_view(ws).flags(hidden, ws)  # identity kept, tokens and programs left out
        args += remount_flags(hidden)
        if net is not None:
            args += net.flags()
        elif not host_net:
            args.append("--unshare-net")
        if seccomp is not None:
            args += ["--seccomp", str(seccomp)]
        args += ["--chdir", str(cwd or ws), "--setenv", "TMPDIR", "/tmp", *shell_argv(command)]
        return args

    def record(self) -> str | None:
        """Keep on disk what the repair after the command ``argv`` just built needs, in case the
        agent dies before it (``sandbox_journal``); when it could not, a note for the user (the
        first time only)."""
        if sandbox_journal.write(self.workspace, self.links or ()):
            return None
        return sandbox_journal.unkept_note(self.workspace)

    def repair(self) -> list[str]:
        """Put back a ``.git`` / ``.agent-tui`` link, or one on the way to a hooks folder, an
        included git config file or a submodule's ``.git``, that a command replaced, and move aside a
        hook it made at a root hooks folder, and disable a git repository it made whose git would run a
        program (notes for the model and user)."""
        ws = self.workspace
        notes = (repair_links(ws, self.links or ()) + repair_links(ws, take_hook_links(ws)) + move_made_hooks(ws)
                 + check_made(ws))
        sandbox_journal.clear(ws)
        return notes

    def describe(self) -> str:
        """One line for the model and the user: what the sandbox allows."""
        if not self.network:
            net = "no network"
        elif not self.shares_host_net:
            net = ("network on (its own: the host's localhost services are out of reach, but services the host "
                   "offers on its other addresses, such as its LAN or docker0 address, are not)")
        elif self.host_network:
            net = "network on (the host's, localhost services included: [sandbox] host_network)"
        else:
            net = f"network on (the host's, localhost services included: {SLIRP_HINT})"
        return (f"sandboxed: only the workspace and a private /tmp are writable ({', '.join(PROTECTED)} "
                "and the git hooks folder, included git config files, the .git of repositories nested in the work tree "
                "and agent-tui's own installation when it lies in the workspace are "
                f"read-only: git commits and checkouts need outside_sandbox), {net}; the user's keys, "
                "credentials and histories under ~ (~/.ssh, ~/.aws, ~/.config/gcloud…, [sandbox] hide) "
                f"and agent sockets are hidden, {sandbox_seccomp.describe()}; git config shows identity and "
                "settings, no credentials")


@dataclass(frozen=True)
class SandboxStatus:
    """What the start-up check found."""

    sandbox: Sandbox | None
    """The sandbox to use, or None when commands run without one."""
    message: str
    """Why there is none (and how to get one), or what the sandbox allows."""
    repaired: tuple[str, ...] = ()
    """What was put right that a session which died during a command left (``sandbox_journal``)."""


@functools.lru_cache(maxsize=4)
def probe(bwrap: str | None = None) -> tuple[str | None, str]:
    """(path, "") when bwrap exists and really works here, else (None, why)."""
    path = bwrap or find_program("bwrap")
    if not path:
        return None, f"bwrap was not found; {INSTALL_HINT}"
    # Nothing of the workspace takes part: a relative PATH entry (``./node_modules/.bin``) would otherwise
    # run a repository's own ``true``, with the user's environment, and let it say the sandbox fails.
    true = find_program("true") or "/bin/true"
    cmd = [path, "--ro-bind", "/", "/", *_BASE_FLAGS, "--tmpfs", "/tmp", "--unshare-net", "--chdir", "/", true]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL, cwd="/",
                              env={"PATH": absolute_path(), "LANG": "C"})
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"bwrap at {path} could not start ({exc})"
    if done.returncode != 0:
        err = (done.stderr or "").strip().splitlines()
        why = err[-1] if err else f"exit code {done.returncode}"
        return None, f"bwrap at {path} does not work here ({why}; user namespaces may be disabled)"
    return path, ""


def sandbox_for(workspace: Path, mode: str = "auto", network: bool = False,
                bwrap: str | None = None, hide: tuple[str, ...] = (), host_network: bool = False) -> SandboxStatus:
    """The sandbox for ``workspace`` under ``[sandbox] mode``, or None with the reason (after
    repairing what a session that died during a command left, before links are snapshot again)."""
    repaired = tuple(sandbox_journal.recover(workspace))
    if mode == "off":
        return SandboxStatus(None, "the sandbox is off ([sandbox] mode = \"off\"): commands run unconfined, "
                                   "approval is the only guard", repaired)
    path, why = probe(bwrap)
    if path is None:
        return SandboxStatus(None, f"commands run without a sandbox: {why}. Until then every command needs "
                                   "approval as configured (--yes does not cover them).", repaired)
    slirp = slirp_path() if network and not host_network else None
    box = Sandbox(path, workspace.resolve(), network, tuple(hide), host_network=host_network, slirp=slirp)
    return SandboxStatus(box, box.describe(), repaired)
