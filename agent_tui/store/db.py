"""Opening the per-workspace database safely.

Default location: ``<workspace>/.agent-tui/memory.db`` (``store_path`` in config
overrides it).  WAL journal, a busy timeout, numbered migrations.  A corrupt,
locked or newer-schema database stops with a message naming the file and is
never reset or overwritten.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from sqlite_utils import Database

from agent_tui.core.store_owner import DEFAULT_STORE, new_store_id
from agent_tui.core.store_registry import remember_own_store
from agent_tui.store.migrations import MIGRATIONS

DB_DIRNAME, DB_FILENAME = DEFAULT_STORE.parts
BUSY_TIMEOUT = 15.0
"""Seconds SQLite waits for another process's write lock before a statement reports busy."""
RETRIES = 6
"""Attempts of a write that still found the database busy (jittered, growing pauses between)."""

T = TypeVar("T")


class StoreError(Exception):
    """The database cannot be used; the message names the file and what to do."""


class StoreBusy(StoreError):
    """Another process held the write lock for longer than the busy timeout (retried before raised)."""


class UnknownSession(StoreError):
    """``--session ID`` names a session this workspace's store does not have."""


def locked_message(path: Path) -> str:
    return (f"{path} is locked by another process (another agent-tui?); close it and retry. "
            "The file was not changed.")


def corrupt_message(path: Path, exc: BaseException) -> str:
    return (f"{path}: the database is corrupt or not an agent-tui database ({exc}). It was left untouched; "
            "move it aside to start a fresh one.")


def io_message(path: Path, exc: BaseException) -> str:
    return (f"{path}: I/O error writing the database ({exc}): the disk may be full or a file-size limit "
            "reached. The database itself was not reset; free space (or raise the limit) and retry.")


def store_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError | None:
    """The StoreError for a locked, busy, corrupt, full or unwritable database (None for other errors: bugs).

    An I/O error (disk full, RLIMIT_FSIZE) is named as such: it says nothing about the file's health,
    and "move it aside" would throw away a healthy store.
    """
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StoreBusy(locked_message(path))
    if "disk i/o" in text or "full" in text:
        return StoreError(io_message(path, exc))
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return StoreError(f"{path}: cannot write to the database ({exc}); check the folder's permissions.")
    if any(w in text for w in ("malformed", "not a database", "file is encrypted", "corrupt")):
        return StoreError(corrupt_message(path, exc))
    return None


def retry_busy(fn: Callable[[], T], *, attempts: int = RETRIES, is_busy: Callable[[BaseException], bool] | None = None
               ) -> T:
    """``fn()``, retried with jittered, growing pauses while the database is busy (the last failure raises)."""
    busy = is_busy or _is_busy
    for attempt in range(attempts):
        try:
            return fn()
        except (StoreBusy, sqlite3.OperationalError) as exc:
            if attempt == attempts - 1 or not busy(exc):
                raise
            time.sleep(min(2.0, 0.05 * 2 ** attempt) * random.uniform(0.5, 1.5))
    raise AssertionError("unreachable")


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, StoreBusy) or "locked" in text or "busy" in text


def default_db_path(workspace: Path) -> Path:
    return workspace / DB_DIRNAME / DB_FILENAME


def open_db(path: Path, *, timeout: float = BUSY_TIMEOUT) -> Database:
    """Open (creating if needed) and migrate the database at ``path``.

    Migrations run inside ``BEGIN IMMEDIATE`` (the schema version is read again under the lock), so
    several processes opening a new store at once migrate it exactly once.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path.parent}: cannot create the store folder ({exc.strerror or exc}); "
                         "run agent-tui in a folder you can write to, or set store_path.") from exc
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False, isolation_level=None)
        _check_version(conn, path)
        _check_schema(conn, path)
        retry_busy(lambda: conn.execute("PRAGMA journal_mode=WAL"))  # type: ignore[union-attr]
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        db = Database(conn)
        if conn.execute("PRAGMA user_version").fetchone()[0] < len(MIGRATIONS):
            retry_busy(lambda: _migrate(conn, db, path))  # type: ignore[arg-type]
        return db
    except StoreError:
        _close(conn)
        raise
    except sqlite3.DatabaseError as exc:
        _close(conn)
        err = store_error(path, exc)
        if err is None or (isinstance(exc, sqlite3.OperationalError) and not isinstance(err, StoreBusy)
                           and "corrupt" in str(err)):
            err = StoreError(f"{path}: cannot open the database ({exc}). The file was not changed.")
        raise err from exc


def _check_version(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a newer schema, or a SQLite file that is not ours, before anything is written."""
    # one statement, one snapshot: read apart, another process's first migration could commit in
    # between (version 0, then its tables) and a new store would look like someone else's file
    version, tables = conn.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)").fetchone()
    if version > len(MIGRATIONS):
        raise StoreError(
            f"{path}: schema version {version} is newer than this agent-tui understands "
            f"({len(MIGRATIONS)}); upgrade agent-tui. The file was not changed."
        )
    if version == 0 and tables:
        raise StoreError(
            f"{path}: this SQLite file is not an agent-tui database (it has tables but no agent-tui "
            "schema version). It was left untouched; point store_path elsewhere."
        )


def _norm(sql: str | None) -> str:
    return " ".join((sql or "").lower().replace('"', "").replace("[", "").replace("]", "").split())


@lru_cache(maxsize=1)
def _own_code() -> frozenset[tuple[str, str, str]]:
    """(type, name, SQL) of every trigger and view the migrations make (SQL with spacing, case and
    quoting evened out): the only code a store of ours holds."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db = Database(conn)
        for migrate in MIGRATIONS:
            migrate(db)
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')").fetchall()
    finally:
        conn.close()
    return frozenset((t, n, _norm(q)) for t, n, q in rows)


def _check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a store holding triggers or views the migrations did not make.  A store can come with a
    repository; a trigger in it runs SQL of the repository's at every write of the user's session (it
    can plant rows that ``recall`` then offers as the user's own memory, or change and delete them)."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view')").fetchall()
    own = _own_code()
    foreign = sorted(n for t, n, q in rows if (t, n, _norm(q)) not in own)
    if foreign:
        raise StoreError(f"{path}: this store holds {len(foreign)} trigger(s) or view(s) agent-tui did not make "
                         f"({', '.join(foreign[:5])}): code that would run on every write. It was left untouched; "
                         "remove them, or point store_path elsewhere.")


def _migrate(conn: sqlite3.Connection, db: Database, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    created: str | None = None
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # again, under the write lock
        if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            raise StoreError(f"{path}: this SQLite file is not an agent-tui database. It was left untouched.")
        for n in range(version, len(MIGRATIONS)):
            MIGRATIONS[n](db)
            conn.execute(f"PRAGMA user_version = {n + 1}")
        if version == 0:  # this process made the store: it is the user's own
            created = new_store_id()
            conn.execute("INSERT INTO store_meta (key, value) VALUES ('store_id', ?)", [created])
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    if created is not None:
        remember_own_store(created)


def _close(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass
