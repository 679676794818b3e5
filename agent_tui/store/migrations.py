"""Numbered schema migrations, applied in order and recorded in ``PRAGMA user_version``.

Never edit a released migration: add a new one.  A database whose user_version
is higher than ``len(MIGRATIONS)`` was written by a newer agent-tui and is
refused rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database


def _m1_initial(db: Database) -> None:
    db["sessions"].create(
        {"id": str, "created": float, "updated": float, "title": str, "model": str, "parent": str, "status": str},
        pk="id",
    )
    db["messages"].create(
        {
            "id": int, "session_id": str, "item_id": str, "turn": int, "role": str, "content": str,
            "tool_calls": str, "tool_call_id": str, "name": str, "created": float,
        },
        pk="id",
    )
    db["messages"].create_index(["session_id", "id"])
    db["items"].create(
        {
            "session_id": str, "id": str, "category": str, "role": str, "tokens": int, "pinned": int,
            "state": str, "priority": str, "scope": str, "turn": int, "provenance": str,
            "summarised_into": str, "tool_calls": str, "tool_call_id": str, "name": str,
            "content": str, "created": float, "updated": float, "seq": int,
        },
        pk=("session_id", "id"),
    )
    db["items"].create_index(["session_id", "seq"])
    db["summaries"].create(
        {"id": int, "session_id": str, "item_id": str, "content": str, "data": str, "covers": str, "created": float},
        pk="id",
    )
    db["decisions"].create(
        {"id": int, "session_id": str, "content": str, "source": str, "created": float}, pk="id"
    )
    db["memos"].create(
        {"id": int, "session_id": str, "item_id": str, "content": str, "kind": str, "created": float}, pk="id"
    )
    db["capsules"].create(
        {
            "id": int, "session_id": str, "content": str, "type": str, "confidence": float,
            "access_count": int, "last_access": float, "created": float,
        },
        pk="id",
    )
    db["assemblies"].create(
        {
            "id": int, "session_id": str, "turn": int, "step": int, "created": float,
            "breakdown": str, "item_ids": str, "trace": str, "request": bytes,
        },
        pk="id",
    )
    db["assemblies"].create_index(["session_id", "id"])
    db["blobs"].create(
        {"handle": str, "session_id": str, "content": str, "meta": str, "created": float}, pk="handle"
    )
    for table in ("items", "capsules", "decisions", "memos"):
        db[table].enable_fts(["content"], create_triggers=True, tokenize="porter")


def _m2_id_counters(db: Database) -> None:
    """Item ids are handed out by the store, atomically, so two processes (the CLI and a TUI, two TUIs)
    never give the same id to different items; seeded with the highest id already used."""
    db["id_counters"].create({"scope": str, "prefix": str, "n": int}, pk=("scope", "prefix"))
    high: dict[tuple[str, str], int] = {}
    for session_id, item_id in db.execute("SELECT session_id, id FROM items").fetchall():
        prefix = item_id.rstrip("0123456789")
        digits = item_id[len(prefix):]
        if digits and prefix and ":" not in prefix:
            key = (session_id, prefix)
            high[key] = max(high.get(key, 0), int(digits))
    if high:
        db["id_counters"].insert_all([{"scope": s, "prefix": p, "n": n} for (s, p), n in high.items()])


def _m3_calibration(db: Database) -> None:
    """Per-model token calibration: the provider's prompt_tokens over the engine's count."""
    db["calibration"].create({"model": str, "factor": float, "samples": int, "updated": float}, pk="model")


def _m4_session_usage(db: Database) -> None:
    """What each session has spent, summed over every process that ran it, so a resumed session
    keeps its cost (``max_session_cost`` and the TUI's cost read it) instead of starting at $0."""
    for column, kind in (("cost_usd", float), ("prompt_tokens", int), ("completion_tokens", int),
                         ("cached_tokens", int)):
        db["sessions"].add_column(column, kind, not_null_default=0)


def _m5_store_meta(db: Database) -> None:
    """Facts about the store itself: ``store_id``, set only when agent-tui creates a store (see
    ``core/store_owner.py``: a store the user did not create waits for the workspace's trust)."""
    db["store_meta"].create({"key": str, "value": str}, pk="key")


def _m6_partial_replies(db: Database) -> None:
    """The answer a session's model is streaming, kept as it grows: a process killed mid-answer (kill -9, a
    lost terminal) left none of it, while esc keeps what streamed; the next open puts it back, marked cut."""
    db["partial_replies"].create({"session_id": str, "turn": int, "text": str, "updated": float}, pk="session_id")


MIGRATIONS: list[Callable[[Database], None]] = [_m1_initial, _m2_id_counters, _m3_calibration, _m4_session_usage,
                                                _m5_store_meta, _m6_partial_replies]
