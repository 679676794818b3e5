"""Whose memory store is this?  A repository can ship its own ``.agent-tui/memory.db``.

The store's pinned rules go into the system prompt of every request, its latest memo seeds every
new session, and its memos and capsules are recalled into turns.  A store committed to a
repository by someone else would put their text in front of the user's model, with the user's
key, without the user ever seeing it.  So a store is *the user's own* only when agent-tui created
it on this machine: a new store gets a random id (``store_meta``), and the id is written to
``<user config dir>/agent-tui/own-stores.txt`` — outside the workspace, where a repository cannot
forge it.  Any other store (shipped in a repository, or made before stores had ids) is a trust
ask: listed by the trust dialog and ``agent-tui trust``, and its rules, memos and recall are not
used until the user trusts the folder.  The ask's value is the store's id (or ``""``).

Trusting the folder *adopts* its store (``store/trust_grant.py``): the store gets a new id of the user's
own, registered here with the folder it was adopted in.  What the user writes to it later asks nothing
again, and a ``git pull`` or checkout that brings the repository's file back (under the id its author's
agent-tui gave it) is a store the user did not create again: asked about, with its rules and memos held
back until then.  Trust tied to the shipped id let a pull add rules that went into every request unasked.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from agent_tui.core.git_ignore import keep_out_of_git
from agent_tui.core.store_registry import own_store_ids
from agent_tui.core.trust import Ask

DEFAULT_STORE = Path(".agent-tui") / "memory.db"
"""The store's place in a workspace when ``store_path`` does not say otherwise."""

STORE_ASK_KEY = "memory store"
"""The key of the trust ask for a store the user did not create."""

LINK_ASK_KEY = "store location"
"""The key of the trust ask for a store that a link inside the workspace puts outside it."""

def new_store_id() -> str:
    return uuid.uuid4().hex


GLOBAL_SESSION = "global"
"""The store's session of project-wide items (pinned rules): ``core.engine.GLOBAL_SESSION``, not
imported so that reading the config before the first frame stays light (a test keeps them equal)."""


def refuse_resume(store: str, session_id: str) -> str:
    """Why ``session_id`` of the untrusted store ``store`` is not resumed, and how to trust it."""
    which = f"session {session_id!r}" if session_id else "a session"
    return (f"not resuming {which}: {store} is a memory store you did not create (shipped with the "
            "repository?), so its sessions hold text someone else wrote and none of it reaches the model "
            "until you trust this folder: review it with `agent-tui trust` (and `agent-tui memory list`), "
            "trust it with `agent-tui trust --yes` or `--trust` (in the TUI: /resume asks), then resume")


def store_file(root: Path, store_path: str | None) -> Path:
    """Where the workspace's store is: ``store_path`` (relative to the workspace), else the default."""
    path = Path(store_path).expanduser() if store_path else DEFAULT_STORE
    return path if path.is_absolute() else root / path


def escaping_link(root: Path, path: Path) -> Path | None:
    """Where the store really is when ``path`` lies inside ``root`` but a link on the way (a shipped
    ``.agent-tui -> /elsewhere``, or ``memory.db -> …``) puts it outside; None otherwise.

    The store holds the user's sessions (their messages, the files the agent read, the commands'
    output): a repository must not choose where on the machine they are written."""
    real_root = root.resolve()
    if not path.is_absolute() or not path.is_relative_to(real_root):
        return None  # a store_path outside the workspace is the user's own choice (or a trust ask already)
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return path  # a link loop: never opened unasked
    return None if real.is_relative_to(real_root) else real


def agent_dir(root: Path) -> Path | None:
    """The workspace's ``.agent-tui/`` folder for agent-tui's own files (server logs; an older agent-tui's
    input history), or None when a link puts it outside the workspace (nothing is written through it)."""
    path = root.resolve() / DEFAULT_STORE.parent
    return None if escaping_link(root, path) is not None else path


def agent_subdir(root: Path, *parts: str, make: bool = False) -> Path | None:
    """A folder under the workspace's ``.agent-tui/`` (``logs``), or None when a link on the way puts it
    outside the workspace: a repository can ship ``.agent-tui/logs -> ~/`` as well as ``.agent-tui -> ~/``.
    ``make``: create it (and ``.agent-tui/`` with its ``.gitignore``, ``core.git_ignore``: a folder first made
    for the session lock or the MCP logs showed in ``git status``); a read-only command leaves it to the caller."""
    own = agent_dir(root)
    path = own.joinpath(*parts) if own is not None else None
    if own is None or path is None or escaping_link(root, path) is not None:
        return None
    if make:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError:
            return path
    keep_out_of_git(own)
    return path


def link_ask(root: Path, store_path: str | None) -> Ask | None:
    """The trust ask for a store a link inside the workspace puts outside it."""
    path = store_file(root.resolve(), store_path)
    real = escaping_link(root, path)
    if real is None:
        return None
    shown = str(path.relative_to(root.resolve()))
    return Ask(shown, LINK_ASK_KEY, str(real),
               f"{shown} is a link to {real}, outside the workspace: your sessions (messages, files read, "
               "command output) would be written there")


def refuse_link(shown: str, real: str) -> str:
    """Why the store behind a link out of the workspace is not opened, and how to go on."""
    return (f"not opening the memory store: {shown} leads to {real}, outside the workspace (a link the "
            "repository may have shipped), and your sessions would be written there; review it with "
            "`agent-tui trust`, trust it with `agent-tui trust --yes` or `--trust`, or remove the link")


@dataclass(frozen=True)
class StoreFacts:
    """What a store holds that would reach the model."""

    store_id: str
    """Its id ("" for a store made before stores had ids)."""
    rules: tuple[str, ...]
    """The text of its pinned project rules."""
    memos: int
    """How many memos it keeps (the latest seeds a new session)."""
    problem: str = ""
    """Why the store could not be read ("" when it was): an unreadable store is nobody's own."""
    digest: str = ""
    """Digest of all it holds that can reach a model (``content_digest``; "" when not asked for)."""


DIGESTED = (("items", "session_id, id, pinned, content", "session_id, id"), ("memos", "id, session_id, content", "id"),
            ("capsules", "id, content", "id"), ("decisions", "id, content", "id"))
"""What can reach a model from a store, by table: pinned rules and the archive recall searches (items),
memos (the latest seeds a session), capsules and decisions (recalled): (table, columns, their order)."""


def content_digest(conn: sqlite3.Connection) -> str:
    """A digest of every row ``DIGESTED`` names, in a fixed order: any row added, changed or removed by
    anyone changes it.  Read in the caller's transaction (adoption checks it under its write lock)."""
    h = hashlib.sha256()
    for table, columns, order in DIGESTED:
        h.update(f"\x00{table}\x00".encode())
        for row in conn.execute(f"SELECT {columns} FROM {table} ORDER BY {order}"):
            h.update(repr(tuple(row)).encode("utf-8", "surrogatepass") + b"\x1e")
    return h.hexdigest()


_DIGESTS: dict[tuple[object, ...], str] = {}
"""Digests of store files this process read, by the files' identity and last change (a start reads the config
three or four times before the session opens: a 32 MB store took 0.1 s each)."""


def _file_key(path: Path) -> tuple[object, ...]:
    """The store file's and its journal's identity and last change (a change by anyone moves a size or a time;
    a checkout, the inode).  Taken before the store is read: a write in between then only makes a key that
    can no longer match."""
    key: list[object] = [str(path)]
    for f in (path, path.with_name(path.name + "-wal")):
        try:
            st = f.stat()
        except OSError:
            key.append(None)
            continue
        if f is path:
            key += [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]  # (a ctime no copy can set back)
        else:  # (an empty journal holds nothing, and a read-only open touches it each time)
            key += [st.st_ino, st.st_size, st.st_mtime_ns] if st.st_size else [None]
    return tuple(key)


def _digest_of(key: tuple[object, ...], conn: sqlite3.Connection) -> str:
    """``content_digest`` read on ``conn``, unless this process digested the file when its key was the same."""
    if key not in _DIGESTS:
        if len(_DIGESTS) >= 8:
            _DIGESTS.clear()
        _DIGESTS[key] = content_digest(conn)
    return _DIGESTS[key]


def read_store(path: Path, digest: bool = False) -> StoreFacts | None:
    """The facts of the store at ``path``, read-only; None when there is no file.  A file that cannot be
    read whole here (a journal a read-only open cannot replay, an id that is not text, a damaged file)
    gives facts with ``problem`` set: opening it for real may well work, and what it holds then reaches
    the model, so it must be asked about, never taken for the user's own (fail closed)."""
    if not path.is_file():
        return None
    facts = _read_store(path, "mode=ro", digest)
    if facts is not None and facts.problem and _frozen(path):
        # a read-only folder: a WAL store's read-only open cannot make its -shm file there, but with no
        # journal beside it the file alone is the whole store, and nothing can change it while it is read
        return _read_store(path, "immutable=1", digest)
    return facts


def _frozen(path: Path) -> bool:
    """The store's folder cannot be written and no journal is beside the file (nothing left to replay)."""
    journals = (path.with_name(path.name + suffix) for suffix in ("-wal", "-journal"))
    return not os.access(path.parent, os.W_OK) and not any(j.exists() for j in journals)


def _read_store(path: Path, mode: str, digest: bool) -> StoreFacts | None:
    key = _file_key(path) if digest else ()
    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?{mode}", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        return StoreFacts("", (), 0, f"cannot be read ({exc})")
    try:
        conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
        conn.execute("BEGIN")  # (one snapshot: the facts shown are those of the content digested)
        # (SQLite's names ignore case: a table named `Items` is the `items` every query reads)
        tables = {str(r[0]).lower() for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "items" not in tables:
            return None  # not an agent-tui store: opening it refuses it (store/db.py)
        row = conn.execute("SELECT value FROM store_meta WHERE key = 'store_id'").fetchone() \
            if "store_meta" in tables else None
        rules = tuple(r[0] or "" for r in conn.execute(
            "SELECT content FROM items WHERE session_id = ? AND pinned = 1 ORDER BY seq", [GLOBAL_SESSION]))
        memos = conn.execute("SELECT count(*) FROM memos").fetchone()[0] if "memos" in tables else 0
        store_id = str(row[0]) if row else ""
        if digest and not (store_id and store_id in own_store_ids()):
            return StoreFacts(store_id, rules, int(memos), digest=_digest_of(key, conn))
        return StoreFacts(store_id, rules, int(memos))
    except sqlite3.Error as exc:
        return StoreFacts("", (), 0, f"cannot be read ({exc})")
    finally:
        conn.close()


def foreign_store_ask(root: Path, store_path: str | None) -> Ask | None:
    """The trust ask for the workspace's store when this user's agent-tui did not create it.  Its value is the
    store's id and the digest of what it holds: trust is for exactly that content, so a pull that changes a rule
    under the same id is asked about again (trusting adopts the store: ``store/trust_grant.py``)."""
    path = store_file(root, store_path)
    facts = read_store(path, digest=True)
    if facts is None or (facts.store_id and facts.store_id in own_store_ids()):
        return None
    what = [f"{len(facts.rules)} pinned rule{'s' if len(facts.rules) != 1 else ''}",
            f"{facts.memos} memo{'s' if facts.memos != 1 else ''}"]
    first = f" (first: {facts.rules[0][:60]!r})" if facts.rules else ""
    try:
        shown = str(path.relative_to(root))
    except ValueError:
        shown = str(path)
    held = (f"it {facts.problem}, so what it holds is unknown" if facts.problem
            else f"{', '.join(what)}{first}")
    value = {"unreadable": facts.problem} if facts.problem else {"id": facts.store_id, "content": facts.digest}
    return Ask(shown, STORE_ASK_KEY, value,
               f"a store you did not create here: {held}; "
               "trusted, its rules go into every request and its memos seed and are recalled into sessions")
