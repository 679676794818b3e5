"""Opening the per-workspace database safely.

Default location: ``<workspace>/.agent-tui/memory.db`` (``store_path`` in config
overrides it).  WAL journal, a busy timeout, numbered migrations.  A corrupt,
locked or newer-schema database stops with a message naming the file and is
never reset or overwritten.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from agent_tui.store.migrations import MIGRATIONS

DB_DIRNAME = ".agent-tui"
DB_FILENAME = "memory.db"


class StoreError(Exception):
    """The database cannot be used; the message names the file and what to do."""


def default_db_path(workspace: Path) -> Path:
    return workspace / DB_DIRNAME / DB_FILENAME


def open_db(path: Path, *, timeout: float = 5.0) -> Database:
    """Open (creating if needed) and migrate the database at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False, isolation_level=None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            conn.close()
            raise StoreError(
                f"{path}: schema version {version} is newer than this agent-tui understands "
                f"({len(MIGRATIONS)}); upgrade agent-tui. The file was not changed."
            )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        db = Database(conn)
        for n in range(version, len(MIGRATIONS)):
            with conn:
                conn.execute("BEGIN")
                MIGRATIONS[n](db)
                conn.execute(f"PRAGMA user_version = {n + 1}")
        return db
    except StoreError:
        raise
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreError(
                f"{path} is locked by another process (another agent-tui?); close it and retry. "
                "The file was not changed."
            ) from exc
        raise StoreError(f"{path}: cannot open the database ({exc}). The file was not changed.") from exc
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path}: the database is corrupt or not an agent-tui database ({exc}). It was left untouched; "
            "move it aside to start a fresh one."
        ) from exc
