"""The shell that runs the model's commands is the one the approval rules read them as: bash.

Rules (allow prefixes, deny rules, the outside-the-workspace checks) decide from a
tree-sitter-bash parse of the line.  ``/bin/sh`` is dash on Debian and Ubuntu, which reads
some lines differently: ``git commit $'\\' ; touch x #'`` is one ``git commit`` to bash and
two commands to dash, so an ``allow git commit`` rule ran ``touch`` unasked.  Every command
therefore runs with ``bash -c``.  Where there is no bash (a minimal image), the line runs
with ``sh`` and no rule may allow it: the user is asked each time (``rules_apply``).

Variables that make bash run code before the line (``BASH_ENV``, ``ENV``), change how it
parses (``SHELLOPTS``, ``BASHOPTS``), or define functions that shadow programs
(``BASH_FUNC_git%%``: an allowed ``git status`` running anything) are left out of the
command's environment.
"""

from __future__ import annotations

import functools
import os

from agent_tui.tools.programs import find_program

STARTUP_VARS = frozenset({"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "POSIXLY_CORRECT",
                          "BASH_COMPAT"})
"""Variables bash acts on at start-up (a file it sources, options that change parsing, code it runs)."""
FUNCTION_PREFIX = "BASH_FUNC_"
"""How exported bash functions travel in the environment."""


BASH_PATHS = ("/bin/bash", "/usr/bin/bash")
"""Where bash is looked for first (then on the absolute entries of ``PATH``)."""


@functools.cache
def bash_path() -> str | None:
    """bash's absolute path, or None when this machine has none."""
    for candidate in BASH_PATHS:
        if os.access(candidate, os.X_OK):
            return candidate
    found = find_program("bash")  # (only absolute PATH entries: a repository's ``bin/bash`` would run every command)
    return os.path.realpath(found) if found else None


def rules_apply() -> bool:
    """Whether the approval rules' reading of a line is the shell's: only when bash runs it."""
    return bash_path() is not None


def shell_argv(command: str) -> list[str]:
    """The argv that runs ``command``: ``bash -c`` (``sh -c`` without bash)."""
    return [bash_path() or "/bin/sh", "-c", command]


def startup_var(name: str) -> bool:
    """True for a variable the command's shell must not inherit (:data:`STARTUP_VARS`, exported functions)."""
    return name in STARTUP_VARS or name.startswith(FUNCTION_PREFIX)
