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


def locked_message(path: Path) -> str:
    return (f"{path} is locked by another process (another agent-tui?); close it and retry. "
            "The file was not changed.")


def corrupt_message(path: Path, exc: BaseException) -> str:
    return (f"{path}: the database is corrupt or not an agent-tui database ({exc}). It was left untouched; "
            "move it aside to start a fresh one.")


def store_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError | None:
    """The StoreError for a locked, busy, corrupt or full database (None for other errors: bugs)."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StoreError(locked_message(path))
    if any(w in text for w in ("malformed", "not a database", "disk i/o", "file is encrypted", "corrupt")):
        return StoreError(corrupt_message(path, exc))
    if "full" in text or "readonly" in text or "read-only" in text:
        return StoreError(f"{path}: cannot write to the database ({exc}).")
    return None


def default_db_path(workspace: Path) -> Path:
    return workspace / DB_DIRNAME / DB_FILENAME


def open_db(path: Path, *, timeout: float = 5.0) -> Database:
    """Open (creating if needed) and migrate the database at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False, isolation_level=None)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise StoreError(
                f"{path}: schema version {version} is newer than this agent-tui understands "
                f"({len(MIGRATIONS)}); upgrade agent-tui. The file was not changed."
            )
        # Read the schema before writing anything: a damaged file fails here, untouched.
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if version == 0 and tables:
            raise StoreError(
                f"{path}: this SQLite file is not an agent-tui database (it has tables but no agent-tui "
                "schema version). It was left untouched; point store_path elsewhere."
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
        _close(conn)
        raise
    except sqlite3.OperationalError as exc:
        _close(conn)
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreError(locked_message(path)) from exc
        raise StoreError(f"{path}: cannot open the database ({exc}). The file was not changed.") from exc
    except sqlite3.DatabaseError as exc:
        _close(conn)
        raise StoreError(corrupt_message(path, exc)) from exc


def _close(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass
