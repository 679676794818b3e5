"""Opening the database: WAL, migrations, and bad files refused with a message, untouched."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from agent_tui.core.items import Category, ContextItem
from agent_tui.store.db import StoreError, open_db
from agent_tui.store.migrations import MIGRATIONS
from agent_tui.store.store import MemoryStore


def snapshot(path: Path) -> dict[str, bytes]:
    """The bytes of the database and any side files, to prove nothing was written."""
    out = {}
    for suffix in ("", "-wal", "-shm", "-journal"):
        p = Path(str(path) + suffix)
        if p.exists():
            out[suffix] = p.read_bytes()
    return out


def test_new_database_is_wal_and_migrated(tmp_path: Path) -> None:
    path = tmp_path / ".agent-tui" / "memory.db"
    store = MemoryStore.open(path)
    try:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) >= 1
        names = set(store.db.table_names())
        for t in ("sessions", "messages", "items", "summaries", "decisions", "memos", "capsules",
                  "assemblies", "blobs", "items_fts", "capsules_fts"):
            assert t in names
    finally:
        store.close()
    # Reopening does not migrate again and keeps the data.
    store = MemoryStore.open(path)
    try:
        sid = store.new_session(model="m")
        assert store.session_exists(sid)
    finally:
        store.close()
    store = MemoryStore.open(path)
    try:
        assert store.session_exists(sid)
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    finally:
        store.close()


def test_migrations_run_in_order_from_an_older_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.db"
    MemoryStore.open(path).close()
    ran: list[int] = []

    def m2(db: object) -> None:
        ran.append(2)
        db["extra"].create({"id": int}, pk="id")  # type: ignore[index]

    monkeypatch.setattr("agent_tui.store.db.MIGRATIONS", [*MIGRATIONS, m2])
    db = open_db(path)
    assert ran == [2]
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) + 1
    assert "extra" in db.table_names()
    db.conn.close()


def test_newer_schema_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute("INSERT INTO future VALUES (1)")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.commit()
    conn.close()
    before = snapshot(path)
    with pytest.raises(StoreError) as e:
        MemoryStore.open(path)
    msg = str(e.value)
    assert str(path) in msg and "newer" in msg and "upgrade" in msg
    assert snapshot(path) == before


@pytest.mark.parametrize("size", [100, 4096, 70_000])
def test_corrupt_file_is_refused_and_left_unchanged(tmp_path: Path, size: int) -> None:
    path = tmp_path / "memory.db"
    path.write_bytes(os.urandom(size))
    before = snapshot(path)
    with pytest.raises(StoreError) as e:
        MemoryStore.open(path)
    assert str(path) in str(e.value) and "corrupt" in str(e.value)
    assert snapshot(path) == before


def test_damaged_pages_are_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = MemoryStore.open(path)
    store.new_session()
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    for side in ("-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    data = bytearray(path.read_bytes())
    data[100:4096] = os.urandom(4096 - 100)  # the schema page, header kept
    path.write_bytes(bytes(data))
    before = snapshot(path)
    with pytest.raises(StoreError) as e:
        MemoryStore.open(path)
    assert str(path) in str(e.value)
    assert snapshot(path) == before


def test_foreign_sqlite_file_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name)")
    conn.commit()
    conn.close()
    before = snapshot(path)
    with pytest.raises(StoreError) as e:
        MemoryStore.open(path)
    assert str(path) in str(e.value) and "not an agent-tui database" in str(e.value)
    assert snapshot(path) == before


def test_locked_database_is_a_clear_error_within_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    MemoryStore.open(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        store = MemoryStore.open(path, timeout=0.2)  # reading works in WAL mode...
        try:
            t0 = time.monotonic()
            with pytest.raises(StoreError) as e:  # ...writing waits 0.2 s, then says why
                store.append_message("s1", ContextItem("m1", Category.HISTORY, "hello", 1, role="user"))
            assert time.monotonic() - t0 < 60  # gives up instead of hanging (retries are bounded)
            assert str(path) in str(e.value) and "locked" in str(e.value)
            with pytest.raises(StoreError, match="locked"):
                store.new_session()
        finally:
            store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # Once released, the same store file works and nothing was lost.
    store = MemoryStore.open(path)
    try:
        store.append_message("s1", ContextItem("m1", Category.HISTORY, "hello", 1, role="user"))
        assert [m["content"] for m in store.messages("s1")] == ["hello"]
    finally:
        store.close()


def test_locked_rollback_journal_database_fails_at_open(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()  # an empty file nobody has migrated yet, held by another process
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        t0 = time.monotonic()
        with pytest.raises(StoreError) as e:
            MemoryStore.open(path, timeout=0.2)
        assert time.monotonic() - t0 < 60  # gives up instead of hanging
        assert str(path) in str(e.value) and "locked" in str(e.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_store_another_process_is_creating_is_not_taken_for_someone_elses_file(tmp_path: Path) -> None:
    """Six runs starting at once in a new workspace: one read the schema version (0) just before
    another's first migration committed, then its tables, and refused the store as not ours."""
    from agent_tui.store.db import _check_version

    path = tmp_path / "memory.db"
    writer = sqlite3.connect(str(path), isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE items (id TEXT)")
    writer.execute("PRAGMA user_version = 1")

    class Interleaved:
        """A reader whose first statement is followed by the writer's commit."""

        def __init__(self) -> None:
            self.conn = sqlite3.connect(str(path), isolation_level=None)
            self.calls = 0

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            cur = self.conn.execute(sql, *args)
            self.calls += 1
            if self.calls == 1:
                writer.execute("COMMIT")
            return cur

    reader = Interleaved()
    try:
        _check_version(reader, path)  # type: ignore[arg-type]  # must not raise: the store is being made
    finally:
        reader.conn.close()
        writer.close()
