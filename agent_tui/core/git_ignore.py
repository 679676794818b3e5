"""The workspace's ``.agent-tui/`` keeps itself out of git.

It holds the user's sessions (every message, the files the agent read, command output), logs
and locks.  Untracked, it showed in ``git status`` as ``?? .agent-tui/``, and one ``git add -A``
would have committed the conversation.  Like ``.pytest_cache``, the folder carries its own
``.gitignore`` that ignores everything in it, itself included, but the workspace's shared
settings (``config.toml``), which a team may choose to commit.  An existing file is left alone (the
user's, or the repository's), and nothing is written through a link.
"""

from __future__ import annotations

import os
from pathlib import Path

IGNORE_TEXT = ("# agent-tui's own files: your sessions, logs, locks. Private: keep them out of git.\n"
               "*\n!config.toml\n")
"""What the folder's ``.gitignore`` says."""


def keep_out_of_git(folder: Path | None) -> bool:
    """Write ``folder/.gitignore`` when the folder exists and has none; True when it was written."""
    if folder is None or not folder.is_dir() or folder.is_symlink():
        return False
    try:
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError:  # there already (a file or a link), or a folder we cannot write
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(IGNORE_TEXT)
    return True
