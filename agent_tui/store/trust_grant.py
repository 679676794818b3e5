"""The user trusts a folder: remember it, and make a memory store the folder shipped the user's own.

Trust in a shipped store used to follow the id its author's agent-tui gave it, so a ``git pull`` that
brought new pinned rules or memos under the same id went into every request without the user seeing
them.  Trusting now *adopts* the store: it gets a new id, registered as the user's own outside the
workspace (``core.store_owner``), and the folder is remembered for its asks without the store's.  What
the user's agent-tui writes to it later asks nothing; a pull or checkout that puts the repository's
file back brings back an id that is not the user's, so the folder asks again (marked changed) and the
store's text waits for the user's word.

The store is adopted only while it still has the id the user was shown; a store that cannot be written
(a read-only checkout) keeps the old behaviour: trusted by its id.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.store_owner import (
    STORE_ASK_KEY,
    disown_adopted,
    new_store_id,
    remember_own_store,
)
from agent_tui.core.trust import TrustReport
from agent_tui.core.trust_store import TrustStore
from agent_tui.store.db import StoreError, open_db


def adopt_store(path: Path, seen_id: str, root: Path) -> bool:
    """Give the store at ``path`` a new id of the user's own, if it still has ``seen_id`` (``""``: a store
    from before stores had ids); True when it did.  The id is registered before the store is changed: a
    store whose new id did not get registered is someone else's (asked about), never the reverse."""
    if not path.is_file():
        return False
    try:
        db = open_db(path)  # (migrates an older store and refuses one with triggers it did not make)
    except StoreError:
        return False
    conn, new = db.conn, new_store_id()
    try:
        if not remember_own_store(new, adopted_in=root):
            return False
        with conn:
            if seen_id:
                cur = conn.execute("UPDATE store_meta SET value = ? WHERE key = 'store_id' AND value = ?",
                                   [new, seen_id])
            else:
                cur = conn.execute("INSERT INTO store_meta (key, value) SELECT 'store_id', ? WHERE NOT EXISTS "
                                   "(SELECT 1 FROM store_meta WHERE key = 'store_id')", [new])
        return cur.rowcount == 1
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def grant(report: TrustReport, trusts: TrustStore | None = None) -> tuple[str, str]:
    """Remember that the user trusts ``report.root`` for what ``report`` lists, adopting the store it ships.
    Returns the fingerprint that now stands for that decision (``load_config(..., trust=<it>)`` for this run)
    and why it could not be remembered ("" when it was: the next runs are trusted too)."""
    fp = report.fingerprint
    if report.foreign_store:
        seen = next((a.value for a in report.asks if a.key == STORE_ASK_KEY), None)
        if isinstance(seen, str) and adopt_store(Path(report.foreign_store), seen, Path(report.root)):
            fp = report.adopted_fingerprint
    try:
        (trusts or TrustStore()).remember(Path(report.root), fp)
    except OSError as exc:
        return fp, f"cannot remember it: {exc}"
    return fp, ""


def forget(root: Path, trusts: TrustStore | None = None) -> bool:
    """Stop trusting ``root``, and give back the stores adopted there (someone else's again: asked about);
    False when the folder was not trusted."""
    disown_adopted(root)
    return (trusts or TrustStore()).forget(root)
