"""The answer a model is streaming, kept in the store as it grows.

Esc keeps what streamed (``Agent._keep_partial``), but a process killed mid-answer (kill -9, a closed
terminal, a crash) kept nothing: the resumed session said "no reply was recorded", and the tokens the
model had written were paid for and gone.  So about once a second while an answer streams its text so far is
kept (one row per session, replaced), dropped once the answer is recorded, and put back, marked cut, when the
session is opened again (``store.workspace``).
"""

from __future__ import annotations

import time
from typing import Any

from agent_tui.store.db import StoreError

#: Seconds between two saves of an answer while it streams.
STREAM_KEEP_EVERY = 1.0


class StreamKeeper:
    """Mixed into the agent loop (which has ``engine``)."""

    engine: Any
    _streamed_at = 0.0
    """When the streaming answer was last kept in the store (0: no answer streaming yet)."""
    _streamed_kept = False
    """A copy of the streaming answer is in the store."""

    def _keep_streamed(self, partial: str) -> None:
        """Keep the answer streaming now (``partial``, all of it so far) in the store, about once a second."""
        store, now = self.engine.store, time.monotonic()
        if not self._streamed_at:  # (the answer's first piece: a short answer is recorded before a save is due)
            self._streamed_at = now
            return
        if store is None or now - self._streamed_at < STREAM_KEEP_EVERY:
            return
        self._streamed_at = now
        try:
            store.save_partial(self.engine.session_id, self.engine.turn, partial)
            self._streamed_kept = True
        except StoreError:  # (the answer goes on; only a kill would lose it)
            pass

    def _streamed_recorded(self) -> None:
        """The answer is recorded (or cut and kept): the copy kept while it streamed goes."""
        self._streamed_at = 0.0
        if self._streamed_kept and self.engine.store is not None:
            self._streamed_kept = False
            try:
                self.engine.store.take_partial(self.engine.session_id)
            except StoreError:
                pass
