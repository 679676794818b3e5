"""Where agent-tui finds the programs it runs itself: git, rg, bwrap, slirp4netns.

A ``PATH`` entry that is not absolute (``.``, ``bin``, ``./node_modules/.bin``, or the empty entry a
trailing ``:`` leaves) names a folder of whatever directory a program starts in, and agent-tui starts
git and rg in the workspace.  With such an entry a cloned repository's ``bin/git`` would run for a read
tool, outside the sandbox and unasked, and its ``bin/rg`` would get the environment.  Like Go's
``exec.LookPath`` since 1.19, only absolute entries are searched, and the programs agent-tui starts get
a ``PATH`` without the others (so git's own helpers are found the same way).
"""

from __future__ import annotations

import os
import shutil

#: The ``PATH`` left when none of the entries is absolute (an empty ``PATH`` means the current folder).
FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin"


def absolute_path(path: str | None = None) -> str:
    """``path`` (default: this process's ``PATH``) with only its absolute entries (never empty)."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    kept = os.pathsep.join(entry for entry in value.split(os.pathsep) if entry and os.path.isabs(entry))
    return kept or FALLBACK_PATH


def find_program(name: str, path: str | None = None) -> str | None:
    """The absolute path of ``name`` on the absolute entries of ``path`` (default: ``PATH``), or None."""
    return shutil.which(name, path=absolute_path(path))


def pin_gitpython() -> bool:
    """Point GitPython at git's absolute path before it is imported: its import runs ``git version``
    through ``PATH`` as it stands, in the current folder (usually the workspace).  False when there is no git
    on an absolute entry: then GitPython must not be imported at all (it would fall back to a bare ``git``,
    a repository's ``bin/git`` under a relative entry, or fail to import)."""
    found = find_program("git")
    if found is not None:
        os.environ["GIT_PYTHON_GIT_EXECUTABLE"] = found
    return found is not None
