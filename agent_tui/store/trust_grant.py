"""The user trusts a folder: remember it, and make a memory store the folder shipped the user's own.

A shipped store is asked about for its id and a digest of everything in it that can reach a model
(``core.store_owner.foreign_store_ask``), so trust covers exactly what the user was shown.  Trusting
*adopts* the store: under the store's write lock, if it still holds what was shown, it gets a new id,
registered as the user's own outside the workspace (``core.store_registry``), and the folder is
remembered for its asks without the store's.  What the user's agent-tui writes to it later asks
nothing; a ``git pull`` or checkout that puts the repository's file back brings back an id that is not
the user's, so the folder asks again (marked changed).  Before, trust followed the author's id, and a
pulled rule went into every request unasked.

A store that cannot be adopted (read-only, locked for longer than ``ADOPT_TIMEOUT``, built so the
change fails, or changed since the user saw it) is trusted for its id and content as shown: a change
by anyone, the user's own writes included, asks again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_tui.core.store_owner import STORE_ASK_KEY, content_digest, new_store_id
from agent_tui.core.store_registry import disown_adopted, remember_own_store
from agent_tui.core.trust import USER_MCP_SOURCE, Ask, TrustReport, fingerprint
from agent_tui.core.trust_store import TrustStore
from agent_tui.store.db import StoreError, open_db

ADOPT_TIMEOUT = 1.0
"""Seconds adoption waits for another process's write lock (the trust dialog's answer waits for it)."""


def adopt_store(path: Path, seen: dict[str, str], root: Path) -> bool:
    """Give the store at ``path`` a new id of the user's own if it still has the id and content ``seen``
    (``foreign_store_ask``'s value); True when it did.  The id is registered before the store is changed
    (a store whose new id was not registered is someone else's: asked about, never the reverse), and the
    change is checkpointed into the file itself: left in the ``-wal`` beside it, it would be replayed onto
    a file a checkout puts there and make that file look like the user's."""
    if not path.is_file() or not seen.get("content"):
        return False
    try:
        db = open_db(path, timeout=ADOPT_TIMEOUT)  # (migrates an older store; refuses triggers it did not make)
    except StoreError:
        return False
    conn, new = db.conn, new_store_id()
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")  # (as the store was read for the ask)
    try:
        conn.execute("BEGIN IMMEDIATE")
        row = conn.execute("SELECT value FROM store_meta WHERE key = 'store_id'").fetchone()
        if (str(row[0]) if row else "") != seen.get("id") or content_digest(conn) != seen["content"]:
            conn.execute("ROLLBACK")
            return False
        if not remember_own_store(new, adopted_in=root):
            conn.execute("ROLLBACK")
            return False
        conn.execute("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('store_id', ?)", [new])
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return True
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    finally:
        conn.close()


def _shown_store(report: TrustReport) -> Ask | None:
    """The ask of the store a trusted run opens, as the user was shown it."""
    if not report.foreign_store:
        return None
    asks = [a for a in report.asks if a.key == STORE_ASK_KEY and isinstance(a.value, dict) and "id" in a.value]
    return asks[-1] if asks else None  # (the config's loop puts the store trusting opens last)


def _adopted_meanwhile(report: TrustReport) -> bool:
    """Another decision on the same dialog (a second window, ``trust --yes`` in another terminal) adopted the
    store first: the folder now asks exactly what this report asks, less that store."""
    from agent_tui.core.config import ConfigError, load_config

    try:
        now = load_config(Path(report.root), trust=False).trust
    except ConfigError:
        return False
    asks = [a for a in now.asks if a.source != USER_MCP_SOURCE]  # (the user's own servers are not in it)
    return (fingerprint(asks) if asks else "") == report.adopted_fingerprint


def grant(report: TrustReport, trusts: TrustStore | None = None) -> tuple[str, str]:
    """Remember that the user trusts ``report.root`` for what ``report`` lists, adopting the store it ships.
    Returns the fingerprint that now stands for that decision (``load_config(..., trust=<it>)`` for this run)
    and why it could not be remembered ("" when it was: the next runs are trusted too).

    With a store to adopt, the folder is remembered for its asks less the store's first, then the store is
    adopted: a trust file that cannot be written leaves the store as it was (trusted for this run only), and
    an adoption that fails puts the decision back to the asks as shown (the store trusted for its content)."""
    root, fp, shown = Path(report.root), report.fingerprint, _shown_store(report)
    trusts = trusts or TrustStore()
    try:
        trusts.remember(root, report.adopted_fingerprint if shown is not None else fp)
    except OSError as exc:
        return fp, f"cannot remember it: {exc}"
    if shown is None:
        return fp, ""
    if adopt_store(Path(report.foreign_store), shown.value, root) or _adopted_meanwhile(report):
        return report.adopted_fingerprint, ""
    try:
        trusts.remember(root, fp)
    except OSError as exc:
        return fp, f"cannot remember it: {exc}"
    return fp, ""


def forget(root: Path, trusts: TrustStore | None = None) -> bool:
    """Stop trusting ``root``, and give back the stores adopted there (someone else's again: asked about);
    False when the folder was not trusted."""
    disown_adopted(root)
    return (trusts or TrustStore()).forget(root)
