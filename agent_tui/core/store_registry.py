"""Which memory stores are the user's own: ``<user config dir>/agent-tui/own-stores.txt``.

Outside every workspace, where a repository cannot forge it.  One line per store: its id alone for a
store this user's agent-tui created, or ``<id>\tadopted\t<folder as JSON>`` for a store the user made
theirs by trusting the folder that shipped it (``store/trust_grant.py``), so ``trust --forget`` can give
it back.  Appends and rewrites hold ``own-stores.lock``; a rewrite goes through a temporary file and a
rename, so a reader never sees the file half written and a crash never empties it.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_tui.core.config import user_config_path

ADOPTED = "adopted"
"""The mark of a store adopted by trusting the folder that shipped it."""


def registry_path() -> Path:
    """``<user config dir>/agent-tui/own-stores.txt``."""
    return user_config_path().with_name("own-stores.txt")


def _lines() -> list[str]:
    try:
        return [line for line in registry_path().read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError:
        return []


def _adopted_in(line: str) -> str | None:
    """The folder a registry line says its store was adopted in (None: a store created here, or a bad line)."""
    parts = line.split("\t", 2)
    if len(parts) != 3 or parts[1] != ADOPTED:
        return None
    try:
        folder = json.loads(parts[2])
    except ValueError:
        return None
    return folder if isinstance(folder, str) else None


def own_store_ids() -> set[str]:
    """Ids of the stores agent-tui created for this user, or that the user adopted (an unreadable file: none)."""
    return {line.split("\t", 1)[0].strip() for line in _lines()}


@contextmanager
def _locked() -> Iterator[Path]:
    path = registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield path


def remember_own_store(store_id: str, adopted_in: Path | None = None) -> bool:
    """Record a store this user's agent-tui just created, or adopted in the folder ``adopted_in``; False when it
    could not be written: the store is then merely asked about, never trusted by mistake."""
    line = store_id if adopted_in is None else \
        f"{store_id}\t{ADOPTED}\t{json.dumps(str(adopted_in.resolve()), ensure_ascii=True)}"
    try:
        with _locked() as path, open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
        return True
    except OSError:
        return False


def disown_adopted(root: Path) -> int:
    """Forget the stores adopted by trusting ``root`` (``agent-tui trust --forget``): someone else's again, asked
    about before their rules and memos are used.  How many were forgotten."""
    real = str(root.resolve())
    try:
        with _locked() as path:
            lines = _lines()
            kept = [line for line in lines if _adopted_in(line) != real]
            if len(kept) < len(lines):
                fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".own-stores.")
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as fh:
                        fh.write("".join(line + "\n" for line in kept))
                    os.replace(tmp, path)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
            return len(lines) - len(kept)
    except OSError:
        return 0
