"""The environment the model's commands get: the user's, minus their secrets.

A command the model runs executes the repository's code (``pytest`` runs its
``conftest.py``, ``npm test`` its scripts).  Inheriting the environment as is handed that
code the user's ``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY`` or ``GITHUB_TOKEN`` — the key
the repository must never receive without the user's say.  So every command, sandboxed or
not, gets the environment without variables whose names look secret (the names the Redactor masks,
``core.secret_names.secret_env_name``: ``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*_PASS``,
``*_PWD``, ``*_PAT``, ``*CREDENTIALS*``, ``*AUTH*``…; not ``KEY_FILE``, ``MAX_TOKENS``, ``PWD``) and
without any variable holding a registered API key, except the names the user lists in
``[sandbox] pass_env``.  A variable holding a URL with a password (``DATABASE_URL``) is kept unless
its name is secret: the Redactor masks the password wherever it shows.

Sandboxed commands also lose the variables that point at a way out: an ssh or gpg agent
(``SSH_AUTH_SOCK`` signs as the user), the session bus, docker, the terminal, editor or window
manager the agent runs in (``TMUX``, ``KITTY_LISTEN_ON``, ``NVIM``, ``I3SOCK`` can run commands
outside), the display and Kerberos tickets.  The sandbox hides those sockets too
(``tools/sandbox_hide.py``); unsandboxed commands, always asked or allowed by the user, keep them
(``git push`` over ssh needs its agent).

No command inherits what makes bash run code or parse differently at start-up
(``tools/shell_dialect.py``: ``BASH_ENV``, ``SHELLOPTS``, exported functions), not even by ``pass_env``.
And ``PATH`` keeps only its absolute entries (``tools/programs.py``): with ``./node_modules/.bin``, ``.`` or
an empty entry in it, an allowed ``ls`` or ``git status`` ran the repository's own ``ls`` or ``git``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from agent_tui.core.redact import default_redactor
from agent_tui.core.secret_names import secret_env_name
from agent_tui.tools.programs import absolute_path
from agent_tui.tools.shell_dialect import startup_var

#: Variables naming a socket or service that acts outside the sandbox (dropped for sandboxed commands).
AGENT_VARS = frozenset({
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL", "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS", "DOCKER_HOST", "CONTAINER_HOST", "PODMAN_HOST", "TMUX", "TMUX_PANE", "STY",
    "KITTY_LISTEN_ON", "KITTY_WINDOW_ID", "WEZTERM_UNIX_SOCKET", "NVIM", "NVIM_LISTEN_ADDRESS",
    "VSCODE_IPC_HOOK_CLI", "VSCODE_GIT_IPC_HANDLE", "I3SOCK", "SWAYSOCK", "HYPRLAND_INSTANCE_SIGNATURE",
    "EMACS_SOCKET_NAME", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "KRB5CCNAME",
})


#: Git variables dropped for sandboxed commands: config given on the environment (``GIT_CONFIG_PARAMETERS``,
#: ``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` can carry an ``http.extraHeader``
#: token, past the sanitized config of ``tools/sandbox_git.py``) and programs that hand out credentials.
GIT_VARS = frozenset({"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH",
                      "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_CONFIG"})
_GIT_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")


def command_env(keep: Iterable[str] = (), base: Mapping[str, str] | None = None,
                sandboxed: bool = False) -> dict[str, str]:
    """``base`` (default: this process's environment) without secret-named or key-holding variables
    (and, for a sandboxed command, without :data:`AGENT_VARS`; an unsandboxed one keeps them: ``git push``
    over ssh needs ``SSH_AUTH_SOCK``, which names a socket, not a secret)."""
    env = dict(os.environ if base is None else base)
    kept = set(keep)
    known = set(default_redactor().values)
    gone = AGENT_VARS | GIT_VARS if sandboxed else frozenset()
    out = {k: v for k, v in env.items()
           if not startup_var(k) and (k in kept or not (secret_env_name(k) or v in known or k in gone
                                or (sandboxed and k.startswith(_GIT_PREFIXES))))}
    if "PATH" in out:  # `./node_modules/.bin`, `.` or an empty entry would run the repository's own `ls` or `git`
        out["PATH"] = absolute_path(out["PATH"])
    return out


def dropped_names(keep: Iterable[str] = (), base: Mapping[str, str] | None = None) -> list[str]:
    """The variable names :func:`command_env` leaves out (sorted), for the user and the model."""
    env = dict(os.environ if base is None else base)
    return sorted(set(env) - set(command_env(keep, env)))
