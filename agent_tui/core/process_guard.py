"""Keep the commands the agent runs from reading the agent's own environment and memory.

A command run as the user without the sandbox (no bubblewrap, ``[sandbox] mode = "off"``, or a command
allowed outside it) has the user's rights over every process of the user: it can read
``/proc/<agent>/environ``, where ``OPENAI_API_KEY`` still is even though the command's own environment goes
without it (``tools.cmd_env``), and ``/proc/<agent>/mem``.  A repository's ``conftest.py`` under an allowed
``pytest`` needs nothing more.  Marking the process not dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``) gives
those files to root, as the kernel does for a setuid program; the programs the agent starts are dumpable
again after their ``exec``, so nothing they do about themselves changes.  (Root reads them all the same, and
the sandbox hides them with a PID namespace of its own.)
"""

from __future__ import annotations

import sys

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4


def _prctl(option: int, value: int = 0) -> int | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0))
    except (OSError, AttributeError):
        return None


def keep_private() -> bool:
    """Make this process not dumpable; False where the system has no such switch."""
    return _prctl(PR_SET_DUMPABLE, 0) == 0


def is_private() -> bool:
    """Whether this process is marked not dumpable (False off Linux)."""
    return _prctl(PR_GET_DUMPABLE) == 0
