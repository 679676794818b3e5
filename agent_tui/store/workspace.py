"""A workspace: its settings, its database, and the engines of its sessions.

This is where a session is built the same way for the TUI, headless runs, the
CLI and tests: global pins (project rules) first, then either the stored
items of the session being resumed, or — for a new session — the latest
progress memo as its seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tui.core.config import Settings, load_settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.git_ignore import keep_out_of_git
from agent_tui.core.item_actions import EngineError
from agent_tui.core.items import ContextItem
from agent_tui.core.store_owner import (
    LINK_ASK_KEY,
    STORE_ASK_KEY,
    agent_dir,
    escaping_link,
    refuse_link,
    refuse_resume,
    store_file,
)
from agent_tui.core.summary import Summariser
from agent_tui.core.trust import TrustReport
from agent_tui.store.db import StoreError, UnknownSession
from agent_tui.store.known_stores import remember as remember_store
from agent_tui.store.store import GLOBAL_SESSION, MemoryStore

KILLED_MARK = "\n\n[cut: agent-tui ended while this answer was streaming; this is what had arrived]"
"""Ends an answer put back from what was kept while it streamed (``MemoryStore.take_partial``)."""
STALE_PARTIAL = 5.0
"""Seconds since an answer was last kept after which its process is taken for gone (it keeps it every second)."""


def unknown_session(session_id: str, store: MemoryStore) -> UnknownSession:
    """The one-line error for ``--session ID`` naming a session the store does not have."""
    empty = " (the store is empty: it has no sessions)" if store.latest_session() is None else \
        " (`agent-tui memory list` shows the latest; /resume in the TUI lists them all)"
    return UnknownSession(f"no session {session_id!r} in {store.path}{empty}")


class UntrustedStore(StoreError):
    """Resuming (or listing) the sessions of a store the user did not create, before the folder is trusted."""


def untrusted_resume(path: Path, session_id: str) -> UntrustedStore:
    """The one-line refusal for resuming ``session_id`` from the untrusted store at ``path``."""
    return UntrustedStore(refuse_resume(str(path), session_id))


def store_path(root: Path, settings: Settings) -> Path:
    """Where this workspace's database lives (``store_path`` in config, else ``.agent-tui/memory.db``)."""
    return store_file(root, settings.store_path)


def require_session(root: Path, session_id: str) -> None:
    """Raise UnknownSession unless the workspace's store has ``session_id`` (creates no store)."""
    settings = load_settings(root)
    path = store_path(root.resolve(), settings)
    if not path.exists():
        raise UnknownSession(f"no session {session_id!r}: {root} has no agent-tui store yet ({path})")
    _check_link(root.resolve(), path, None)  # not even opened (migrated) behind a link out of the workspace
    store = MemoryStore.open(path)
    try:
        if not store.session_exists(session_id):
            raise unknown_session(session_id, store)
    finally:
        store.close()


def _check_link(root: Path, path: Path, trusted: bool | None) -> None:
    """Raise UntrustedStore when a link inside the workspace puts ``path`` outside it, untrusted."""
    real = escaping_link(root, path)
    if real is None:
        return
    if trusted is None:
        from agent_tui.core.config import load_config

        report = load_config(root).trust
        trusted = report.trusted or not any(a.key == LINK_ASK_KEY for a in report.asks)
    if not trusted:
        raise UntrustedStore(refuse_link(str(path.relative_to(root)), str(real)))


class Workspace:
    """One project folder with its store."""

    def __init__(self, root: Path, settings: Settings | None = None, store: MemoryStore | None = None,
                 trusted: bool | None = None) -> None:
        """``trusted``: whether the workspace's asks are granted (None: ask the trust store); a store
        that a link inside the workspace puts outside it is opened only when they are."""
        self.root = root.resolve()
        self.settings = settings if settings is not None else load_settings(self.root)
        if store is None:
            path = store_path(self.root, self.settings)
            _check_link(self.root, path, trusted)
            store = MemoryStore.open(path)
            remember_store(path)  # (so other projects' sandboxed commands never see it)
            keep_out_of_git(agent_dir(self.root))
        self.store = store
        self.trust: TrustReport = TrustReport(root=str(self.root))
        """What the workspace's own config asked for and whether it applies (set by build_agent)."""

    @property
    def memory_trusted(self) -> bool:
        """Whether what the store already holds — project rules, memos, recall — may reach the model:
        agent-tui created this store for the user, or the user trusted the workspace that ships it."""
        opened = Path(self.store.path).resolve()  # (an ask can be of the store only trusting opens: store_path)
        return self.trust.trusted or not any(a.key == STORE_ASK_KEY and (self.root / a.source).resolve() == opened
                                             for a in self.trust.asks)

    def sessions(self, limit: int = 50) -> list[dict[str, Any]]:
        """The store's sessions, newest first; none from a store the user did not create until the
        folder is trusted (their titles and ids are someone else's text)."""
        return self.store.sessions(limit=limit) if self.memory_trusted else []

    # global pins ------------------------------------------------------------------------
    def rules(self) -> list[ContextItem]:
        return [i for i in self.store.load_items(GLOBAL_SESSION) if i.pinned]

    def global_items(self) -> list[ContextItem]:
        return self.store.load_items(GLOBAL_SESSION)

    def add_rule(self, text: str) -> ContextItem:
        """Pin a project rule for every session of this workspace (never an empty one: EngineError)."""
        if not text.strip():
            raise EngineError("an empty rule cannot be pinned: give the rule's text")
        eng = ContextEngine(self.settings, store=self.store, session_id=GLOBAL_SESSION, log_requests=False)
        eng.load(self.store.load_items(GLOBAL_SESSION))
        return eng.pin_rule(text)

    # sessions -----------------------------------------------------------------------------
    def engine(self, session_id: str | None = None, *, new: bool = False,
               summarisers: Sequence[Summariser] | None = None, system_prompt: str | None = None) -> ContextEngine:
        """The engine of ``session_id`` (resumed), the latest one, or a new seeded session."""
        sid = session_id
        trusted = self.memory_trusted
        if sid is not None and not trusted:
            raise untrusted_resume(self.store.path, sid)
        if sid is not None and not self.store.session_exists(sid):
            raise unknown_session(sid, self.store)
        if sid is None and not new and trusted:  # an untrusted store's latest session is not continued
            sid = self.store.latest_session()
        fresh = sid is None
        if fresh:
            sid = self.store.new_session(model=self.settings.model)
        eng = ContextEngine(self.settings, store=self.store, session_id=sid, workspace=self.root,
                            summarisers=summarisers)
        if system_prompt:
            eng.set_system_prompt(system_prompt)
        if trusted:
            eng.load(self.global_items())
        elif eng._sync is not None:  # nor adopt the shipped store's rules later as "changed elsewhere"
            eng._sync.session_ids = [sid]
        if fresh:
            memo = self.store.latest_memo() if trusted else None
            if memo:
                eng.save_memo(memo["content"], kind=f"seed from session {memo['session_id']}")
        else:
            eng.load(self.store.load_items(sid))
            streamed = self.store.take_partial(sid, older_than=STALE_PARTIAL)  # (a live one is refreshed each second)
            if streamed is not None and streamed[1].strip():  # (the process ended while an answer streamed)
                eng.add_assistant(streamed[1] + KILLED_MARK, None, provenance={"cut": True})
            # the model it runs on now (a /model switch reopens it): the session list showed the first one
            self.store.touch_session(sid, **({"model": self.settings.model} if self.settings.model else {}))
        eng.warnings.extend(f"memory store: {line}" for line in self.store.unreadable)
        return eng

    def close(self) -> None:
        self.store.close()
