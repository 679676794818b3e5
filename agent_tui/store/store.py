"""The memory store: everything a session said, kept, and why — in one SQLite file.

Messages are appended before they are sent; item state (pinned, evicted,
summarised) is upserted on every change; summaries, decisions, memos, memory
capsules and a per-step assembly log sit beside them.  Every text and JSON column is
written through the process-wide secret Redactor (``core.redact``).  Nothing compaction
removes from the window is deleted here: the ``items`` table with its FTS
index is the archive that ``recall`` and the user can search.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlite_utils import Database

from agent_tui.core.engine import GLOBAL_SESSION
from agent_tui.core.items import ContextItem
from agent_tui.core.redact import redact_text, redact_value
from agent_tui.core.text import clean_text
from agent_tui.store.db import BUSY_TIMEOUT, open_db, retry_busy, store_error
from agent_tui.store.rows import item_from_row

__all__ = ["GLOBAL_SESSION", "MemoryStore", "SessionUsage"]


_ITEM_COLUMNS = ("session_id", "id", "category", "role", "tokens", "pinned", "state", "priority", "scope", "turn",
                 "provenance", "summarised_into", "tool_calls", "tool_call_id", "name", "content", "created",
                 "updated")


def _upsert_sql(columns: tuple[str, ...], last: bool = False) -> str:
    """The item upsert; ``last`` also puts the item after every item its session holds (``seq``)."""
    keep = ("session_id", "id", "created")
    sets = ", ".join(f"{c} = excluded.{c}" for c in (*columns, *(("seq",) if last else ())) if c not in keep)
    values = ", ".join("?" * len(columns))
    if last:  # (computed in the statement: two processes appending to one session interleave, never collide)
        values += ", (SELECT COALESCE(MAX(seq), -1) + 1 FROM items WHERE session_id = ?)"
    return (f"INSERT INTO items ({', '.join(columns)}{', seq' if last else ''}) VALUES ({values}) "
            f"ON CONFLICT (session_id, id) DO UPDATE SET {sets}")


_UPSERT = _upsert_sql(_ITEM_COLUMNS)
_UPSERT_LAST = _upsert_sql(_ITEM_COLUMNS, last=True)


_USAGE_COLUMNS = "cost_usd, prompt_tokens, completion_tokens, cached_tokens"
#: The longest session title (a first message's first line, cut).
TITLE_CHARS = 80


@dataclass(frozen=True)
class SessionUsage:
    """A session's spending, kept in its ``sessions`` row (migration 4)."""

    cost_usd: float = 0.0
    """Dollars spent by every model call of the session (memos and summaries included)."""
    prompt_tokens: int = 0
    """Input tokens sent, as the provider counted them."""
    completion_tokens: int = 0
    """Output tokens received."""
    cached_tokens: int = 0
    """Input tokens served from the provider's prompt cache."""


def _j(v: Any) -> str | None:
    """A value as JSON text, secrets redacted (every JSON column goes through here)."""
    return None if v is None else clean_text(json.dumps(redact_value(v), ensure_ascii=False))


def _pack(v: Any) -> bytes:
    """A value as compressed JSON, secrets redacted (the logged request and trace)."""
    return zlib.compress(clean_text(json.dumps(redact_value(v), ensure_ascii=False)).encode("utf-8"), 1)


def _unpack(v: str | bytes) -> Any:
    """A logged JSON value: compressed bytes, or plain text as the first schema wrote the trace."""
    return json.loads(zlib.decompress(v).decode("utf-8") if isinstance(v, bytes) else v)


def _s(v: str | None) -> str | None:
    """Text as SQLite can hold it (lone surrogates from undecodable bytes become U+FFFD)."""
    return None if v is None else clean_text(redact_text(v))


class _Guard:
    """The store's lock: serialises threads, and turns a locked, busy or corrupt database into a
    StoreError naming the file (other sqlite errors are bugs and propagate as they are)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()

    def __enter__(self) -> _Guard:
        self._lock.acquire()
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.DatabaseError):
            err = store_error(self.path, exc)
            if err is not None:
                raise err from exc


F = TypeVar("F", bound=Callable[..., Any])


def _writes(fn: F) -> F:
    """A write method: one ``BEGIN IMMEDIATE`` transaction (the write lock taken up front, so SQLite's
    busy timeout applies instead of a deferred transaction failing at once on upgrade), retried with
    jitter while another process holds the lock.  Inside a ``batch()`` it joins that transaction."""

    @functools.wraps(fn)
    def wrapper(self: MemoryStore, *args: Any, **kwargs: Any) -> Any:
        def attempt() -> Any:
            with self.lock:
                conn = self.db.conn
                if conn.in_transaction:
                    return fn(self, *args, **kwargs)
                conn.execute("BEGIN IMMEDIATE")
                try:
                    out = fn(self, *args, **kwargs)
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return out

        if self.db.conn.in_transaction:
            return attempt()
        return retry_busy(attempt)

    return wrapper  # type: ignore[return-value]


class MemoryStore:
    """Thread-safe access to one workspace database."""

    def __init__(self, path: Path, db: Database | None = None, *, timeout: float = BUSY_TIMEOUT) -> None:
        self.path = path
        self.db = db if db is not None else open_db(path, timeout=timeout)
        self.lock = _Guard(path)
        self.unreadable: list[str] = []
        """What rows read so far could not be read as written (``store.rows``), once each."""

    @classmethod
    def open(cls, path: Path, *, timeout: float = BUSY_TIMEOUT) -> MemoryStore:
        """Open (creating and migrating) the database; ``timeout``: seconds to wait for a lock."""
        return cls(path, timeout=timeout)

    def close(self) -> None:
        with self.lock:
            self.db.conn.close()

    # sessions -----------------------------------------------------------------
    @_writes
    def new_session(self, model: str | None = None, title: str = "", parent: str | None = None) -> str:
        sid = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        now = time.time()
        with self.lock:
            self.db["sessions"].insert(
                {"id": sid, "created": now, "updated": now, "title": _s(title), "model": model or "",
                 "parent": parent or "", "status": "open"}
            )
        return sid

    @_writes
    def ensure_title(self, session_id: str, text: str, limit: int = TITLE_CHARS) -> str:
        """Give the session a title from its first message's first line, unless it has one; returns the
        title (what the session picker shows, for TUI and headless sessions alike)."""
        line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        title = _s(redact_value(line if len(line) <= limit else line[: limit - 1] + "…"))
        if title:
            self.db.execute("UPDATE sessions SET title = ?, updated = ? WHERE id = ? AND (title IS NULL OR title = '')",
                            [title, time.time(), session_id])
        row = self.db.execute("SELECT title FROM sessions WHERE id = ?", [session_id]).fetchone()
        return str(row[0] or "") if row else ""

    def touch_session(self, session_id: str, **fields: Any) -> None:
        with self.lock:
            self.db["sessions"].upsert({"id": session_id, "updated": time.time(), **redact_value(fields)}, pk="id")

    def sessions(self, limit: int = 50) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute(
                "SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages "
                "FROM sessions s ORDER BY updated DESC LIMIT ?", [limit]
            ).fetchall()
            cols = [d[0] for d in self.db.execute("SELECT s.*, 0 AS messages FROM sessions s LIMIT 0").description]
        return [dict(zip(cols, r, strict=False)) for r in rows]

    def latest_session(self) -> str | None:
        rows = self.sessions(limit=1)
        return rows[0]["id"] if rows else None

    def session_exists(self, session_id: str) -> bool:
        with self.lock:
            return self.db.execute("SELECT 1 FROM sessions WHERE id = ?", [session_id]).fetchone() is not None

    def session_usage(self, session_id: str) -> SessionUsage:
        """What the session has spent so far, over every process that ran it (zeros when unknown)."""
        with self.lock:
            row = self.db.execute(f"SELECT {_USAGE_COLUMNS} FROM sessions WHERE id = ?", [session_id]).fetchone()
        return SessionUsage(*row) if row else SessionUsage()

    @_writes
    def save_partial(self, session_id: str, turn: int, text: str) -> None:
        """Keep the answer streaming now in ``session_id`` (redacted, as everything stored), replacing the last."""
        with self.lock:
            self.db["partial_replies"].upsert({"session_id": session_id, "turn": turn, "text": _s(text),
                                               "updated": time.time()}, pk="session_id")

    @_writes
    def take_partial(self, session_id: str, older_than: float = 0.0) -> tuple[int, str] | None:
        """The answer a session was streaming when its process ended (turn, text), removed; None when none, or
        when it was kept less than ``older_than`` seconds ago (another process is streaming it now)."""
        with self.lock:
            row = self.db.execute("SELECT turn, text, updated FROM partial_replies WHERE session_id = ?",
                                  [session_id]).fetchone()
            if row is None or time.time() - float(row[2] or 0) < older_than:
                return None
            self.db.execute("DELETE FROM partial_replies WHERE session_id = ?", [session_id])
        return int(row[0]), str(row[1] or "")

    @_writes
    def add_session_usage(self, session_id: str, usage: SessionUsage) -> SessionUsage:
        """Add one model call's cost and tokens to the session (atomic, so two processes running the
        same session both count); returns the session's new totals."""
        with self.lock:
            self.db.execute(
                "UPDATE sessions SET cost_usd = cost_usd + ?, prompt_tokens = prompt_tokens + ?, "
                "completion_tokens = completion_tokens + ?, cached_tokens = cached_tokens + ? WHERE id = ?",
                [usage.cost_usd, usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, session_id])
            return self.session_usage(session_id)

    # messages and items ---------------------------------------------------------
    @_writes
    def append_message(self, session_id: str, item: ContextItem) -> None:
        """Append one chat message to the log (called before it is sent anywhere)."""
        with self.lock:
            self.db.execute(
                "INSERT INTO messages (session_id, item_id, turn, role, content, tool_calls, tool_call_id, name, "
                "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [session_id, item.id, item.turn, item.role, _s(item.content), _j(item.tool_calls),
                 item.tool_call_id, item.name, item.created_at],
            )
            # the latest session is the one last used, not the one last opened: with two TUIs on one folder
            # the other one, opened later but idle, was what `memory list` and `run` continued
            self.db.execute("UPDATE sessions SET updated = ? WHERE id = ?", [time.time(), session_id])

    @_writes
    def save_item(self, session_id: str, item: ContextItem, last: bool = False) -> None:
        """Insert or update an item's content and state; ``last``: it goes after every item the session holds,
        numbered in the write itself.  Two instances on one session (the TUI and a ``run --session``) numbered
        from their own items, gave theirs the same numbers, and a resume interleaved the two turns: the user
        messages merged and each tool result went past its call, read as "interrupted"."""
        row = [session_id, item.id, str(item.category), item.role, item.tokens, int(item.pinned), str(item.state),
               str(item.priority), str(item.scope), item.turn, _j(item.provenance), item.summarised_into,
               _j(item.tool_calls), item.tool_call_id, item.name, _s(item.content), item.created_at, time.time()]
        with self.lock:
            self.db.execute(_UPSERT_LAST if last else _UPSERT, [*row, session_id] if last else row)

    def save_items(self, session_id: str, items: Iterable[ContextItem]) -> None:
        with self.batch():
            for it in items:
                self.save_item(session_id, it)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many writes in one transaction (the engine folds a compaction's item changes in one)."""
        with self.lock:
            conn = self.db.conn
            if conn.in_transaction:
                yield
                return
            retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"))
            try:
                yield
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def load_items(self, session_id: str) -> list[ContextItem]:
        with self.lock:
            rows = list(self.db["items"].rows_where("session_id = ?", [session_id], order_by="seq, created"))
        return [it for r in rows if (it := self._item(r)) is not None]

    def get_item(self, session_id: str, item_id: str) -> ContextItem | None:
        with self.lock:
            rows = list(self.db["items"].rows_where("session_id = ? AND id = ?", [session_id, item_id]))
        return self._item(rows[0]) if rows else None

    def _item(self, r: dict[str, Any]) -> ContextItem | None:
        item, problem = item_from_row(r)
        if problem and problem not in self.unreadable:
            self.unreadable.append(problem)
        return item

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.db["messages"].rows_where("session_id = ?", [session_id], order_by="id"))

    def message_count(self, session_id: str | None = None) -> int:
        with self.lock:
            if session_id is None:
                return self.db["messages"].count
            return self.db.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", [session_id]).fetchone()[0]

    @_writes
    def allocate_id(self, scope: str, prefix: str, floor: int = 0) -> int:
        """The next number for ``prefix`` ids under ``scope`` (a session, or the workspace-wide one),
        atomically across processes; never at or below ``floor`` (ids the caller has already seen)."""
        row = self.db.execute(
            "INSERT INTO id_counters (scope, prefix, n) VALUES (?, ?, ?) ON CONFLICT (scope, prefix) "
            "DO UPDATE SET n = max(n, excluded.n - 1) + 1 RETURNING n", [scope, prefix, floor + 1]).fetchone()
        return int(row[0])

    def data_version(self) -> int:
        """SQLite's data_version: changes when another connection commits (cheap: no table read)."""
        with self.lock:
            return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def items_changed_since(self, session_ids: Iterable[str], since: float) -> list[ContextItem]:
        """Items of these sessions written at or after ``since`` (wall clock), oldest first."""
        ids = list(session_ids)
        marks = ", ".join("?" * len(ids))
        with self.lock:
            rows = list(self.db["items"].rows_where(f"session_id IN ({marks}) AND updated >= ?", [*ids, since],
                                                    order_by="seq, created"))
        return [it for r in rows if (it := self._item(r)) is not None]

    # summaries, decisions, memos ------------------------------------------------
    @_writes
    def save_summary(self, session_id: str, item_id: str, content: str, data: str, covers: list[str]) -> None:
        with self.lock:
            self.db["summaries"].insert(
                {"session_id": session_id, "item_id": item_id, "content": _s(content), "data": _s(data),
                 "covers": _j(covers), "created": time.time()}
            )

    def latest_summary(self, session_id: str) -> dict[str, Any] | None:
        with self.lock:
            rows = list(self.db["summaries"].rows_where("session_id = ?", [session_id], order_by="id desc", limit=1))
        return rows[0] if rows else None

    @_writes
    def add_decisions(self, session_id: str, entries: Iterable[tuple[str, str]]) -> None:
        """Store (content, source item id) pairs; duplicates of a session are skipped."""
        with self.lock:
            have = {r["content"] for r in self.db["decisions"].rows_where("session_id = ?", [session_id])}
            rows = [{"session_id": session_id, "content": _s(c), "source": s, "created": time.time()}
                    for c, s in entries if c not in have]
            if rows:
                self.db["decisions"].insert_all(rows)

    def decisions(self, session_id: str | None = None) -> list[dict[str, Any]]:
        with self.lock:
            if session_id is None:
                return list(self.db["decisions"].rows_where(order_by="id"))
            return list(self.db["decisions"].rows_where("session_id = ?", [session_id], order_by="id"))

    @_writes
    def save_memo(self, session_id: str, item_id: str, content: str, kind: str) -> None:
        with self.lock:
            self.db["memos"].insert(
                {"session_id": session_id, "item_id": item_id, "content": _s(content), "kind": kind,
                 "created": time.time()}
            )

    def memos(self, session_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        with self.lock:
            where, args = ("session_id = ?", [session_id]) if session_id else (None, [])
            return list(self.db["memos"].rows_where(where, args, order_by="id desc", limit=limit))

    def memo_versions(self, row_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """Memo row id -> (its version, how many versions its memo has): a task's rolling memo keeps one
        item id while its text is replaced, and each text it held is a row (core.memos)."""
        ids = [int(i) for i in row_ids]
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self.lock:
            rows = self.db.execute(
                "SELECT id, version, versions FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY session_id, item_id "
                "ORDER BY id) AS version, COUNT(*) OVER (PARTITION BY session_id, item_id) AS versions FROM memos) "
                f"WHERE id IN ({marks})", ids).fetchall()
        return {int(i): (int(v), int(n)) for i, v, n in rows}

    def latest_memo(self) -> dict[str, Any] | None:
        rows = self.memos(limit=1)
        return rows[0] if rows else None

    # capsules (long-term memory) ---------------------------------------------------
    @_writes
    def add_capsule(self, content: str, type: str = "fact", confidence: float = 0.8,
                    session_id: str | None = None, created: float | None = None) -> int:
        now = time.time()
        with self.lock:
            t = self.db["capsules"].insert(
                {"session_id": session_id or "", "content": _s(content), "type": type, "confidence": confidence,
                 "access_count": 0, "last_access": created or now, "created": created or now}
            )
            return int(t.last_pk)

    # assembly log -----------------------------------------------------------------
    @_writes
    def calibration(self, model: str) -> tuple[float, int] | None:
        """``(factor, samples)`` of the token calibration for ``model``, if any."""
        if "calibration" not in self.db.table_names():
            return None
        rows = list(self.db["calibration"].rows_where("model = ?", [model]))
        return (float(rows[0]["factor"]), int(rows[0]["samples"])) if rows else None

    @_writes
    def save_calibration(self, model: str, factor: float, samples: int) -> None:
        """Remember ``model``'s token calibration (provider count over engine count)."""
        self.db["calibration"].upsert({"model": model, "factor": factor, "samples": samples,
                                       "updated": time.time()}, pk="model")

    def log_assembly(self, session_id: str, turn: int, step: int, breakdown: dict[str, Any],
                     item_ids: list[str], trace: list[dict[str, Any]], request: dict[str, Any]) -> None:
        """Log one request with its breakdown and trace (request and trace zlib-compressed: a long
        session's trace lists every summarised item, on every step)."""
        blob = _pack(request)
        with self.lock:
            self.db.execute(
                "INSERT INTO assemblies (session_id, turn, step, created, breakdown, item_ids, trace, request) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [session_id, turn, step, time.time(), _j(breakdown), _j(item_ids), _pack(trace), blob],
            )

    def request_totals(self, session_id: str, limit: int) -> list[int]:
        """The tokens of a session's last ``limit`` logged requests, oldest first (a resumed session's sparkline)."""
        with self.lock:
            rows = self.db.execute("SELECT breakdown FROM assemblies WHERE session_id = ? ORDER BY id DESC LIMIT ?",
                                   [session_id, limit]).fetchall()
        totals = []
        for (raw,) in reversed(rows):
            try:
                totals.append(int(json.loads(raw).get("total") or 0))
            except (ValueError, TypeError, AttributeError):
                continue  # (a damaged row is not worth a traceback on a sparkline)
        return totals

    def assemblies(self, session_id: str | None, limit: int = 2) -> list[dict[str, Any]]:
        """Latest assemblies (newest first), decoded."""
        with self.lock:
            where, args = ("session_id = ?", [session_id]) if session_id else (None, [])
            rows = list(self.db["assemblies"].rows_where(where, args, order_by="id desc", limit=limit))
        out = []
        for r in rows:
            r = dict(r)
            r["breakdown"] = json.loads(r["breakdown"])
            r["item_ids"] = json.loads(r["item_ids"])
            r["trace"] = _unpack(r["trace"])
            r["request"] = _unpack(r["request"])
            out.append(r)
        return out

    # blobs: whole tool outputs behind handles (the ResultStore protocol) -------------
    @_writes
    def put(self, content: str, meta: dict[str, Any] | None = None, session_id: str = "") -> str:
        handle = "r" + uuid.uuid4().hex[:8]
        with self.lock:
            self.db["blobs"].insert(
                {"handle": handle, "session_id": session_id, "content": _s(content), "meta": _j(meta or {}),
                 "created": time.time()}
            )
        return handle

    def get(self, handle: str, session_id: str | None = None) -> str | None:
        """The blob behind ``handle`` (only if ``session_id``'s, when given)."""
        with self.lock:
            if session_id is None:
                row = self.db.execute("SELECT content FROM blobs WHERE handle = ?", [handle]).fetchone()
            else:
                row = self.db.execute("SELECT content FROM blobs WHERE handle = ? AND session_id = ?",
                                      [handle, session_id]).fetchone()
        return row[0] if row else None
