"""Unsent drafts: one file per running instance, taken over by the next start when its instance is gone.

Two agent-tui on one folder used to share one draft file, and the last one written won: the other
instance's typing was on disk only until its neighbour's next keystroke, so a crash of the first
lost it.  Now each instance writes ``<history stem>.draft.<token>.json`` beside the input history and
holds ``<history stem>.draft.<token>.lock`` with ``flock`` while it lives.  The kernel drops that lock
when the process ends, however it ends (a quit, a crash, ``kill -9``), so "is the draft's owner still
running?" is one non-blocking lock attempt, and a start never takes a draft from a running instance.
A start takes over every orphaned draft (renamed away first, so two starts at once cannot both take
one): the newest goes back in the box, the older ones are returned for the input history.  The single
``<stem>.draft.json`` of earlier versions is an orphan like any other.

Secrets are masked before a draft is written (``core/redact``), as in the history.  No Textual here.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # (not POSIX: an owner cannot be told alive, so no draft is taken from anyone)
    fcntl = None  # type: ignore[assignment]

MAX_DRAFT = 1_000_000
"""An unsent draft is kept up to this many characters (pastes included)."""
STALE_LOCK_SECONDS = 60
"""A lock file nobody holds and with no draft is removed once it is this old (an instance creates and
locks its file in one go, so a young unlocked one may be a start in progress)."""


class Drafts:
    """This instance's draft file, and the orphans of instances that are gone."""

    def __init__(self, history_path: Path) -> None:
        self.folder = history_path.parent
        self.stem = history_path.stem
        self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
        """Names this instance's files (the pid for a reader; the random part tells apart two
        instances in one process, as tests run them)."""
        self._lock_fd: int | None = None

    @property
    def path(self) -> Path:
        """This instance's draft file."""
        return self._file(self.token, ".json")

    def _file(self, token: str, suffix: str) -> Path:
        return self.folder / f"{self.stem}.draft{'.' + token if token else ''}{suffix}"

    def save(self, text: str) -> None:
        """Keep ``text`` as this instance's draft (masked, written atomically); an empty one removes it."""
        try:
            if not text.strip():
                self.path.unlink(missing_ok=True)
                return
            from agent_tui.core.redact import redact_text

            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # what the user typed: theirs alone
            self._hold()
            tmp = self._file(self.token, ".tmp")
            record = {"text": redact_text(text[:MAX_DRAFT]), "at": round(time.time(), 3), "pid": os.getpid()}
            tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            tmp.replace(self.path)
        except OSError:
            pass  # an unwritable state directory: the draft lives in the box only

    def take_over(self) -> list[str]:
        """The drafts of instances no longer running, newest first, now this instance's: the newest is
        saved as its own draft at once (a crash right after the start loses nothing), the others'
        files are removed (the caller keeps their text)."""
        found: list[tuple[float, str]] = []
        try:
            candidates = sorted(self.folder.glob(f"{self.stem}.draft*.json"))
        except OSError:
            return []
        for f in candidates:
            token = self._token_of(f)
            if token is None or token == self.token or self._alive(token):
                continue
            claimed = self._file(self.token, f".claim{len(found)}")
            try:
                os.rename(f, claimed)  # atomic: a second start finds nothing to take
            except OSError:
                continue
            record = _read(claimed)
            claimed.unlink(missing_ok=True)
            if token:
                self._file(token, ".lock").unlink(missing_ok=True)
            text = record.get("text")
            if isinstance(text, str) and text.strip():
                at = record.get("at")
                found.append((float(at) if isinstance(at, (int, float)) else 0.0, text))
        self._sweep_locks()
        texts = [t for _, t in sorted(found, key=lambda x: -x[0])]
        if texts:
            self.save(texts[0])
        return texts

    def close(self) -> None:
        """This instance is done (its last draft is saved): let the next start take the draft over."""
        if self._lock_fd is not None:
            self._file(self.token, ".lock").unlink(missing_ok=True)
            os.close(self._lock_fd)  # (closing drops the lock)
            self._lock_fd = None

    def _hold(self) -> None:
        """Lock this instance's lock file (once): the sign that its draft has a live owner."""
        if self._lock_fd is not None or fcntl is None:
            return
        fd = os.open(self._file(self.token, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return
        self._lock_fd = fd

    def _alive(self, token: str) -> bool:
        """The instance that wrote ``token``'s draft still runs (it holds its lock)."""
        if not token:
            return False  # the shared file of earlier versions: nobody holds it
        if fcntl is None:
            return True
        try:
            fd = os.open(self._file(token, ".lock"), os.O_RDWR)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # (our probe's lock, if taken, goes with it)
        return False

    def _sweep_locks(self) -> None:
        """Remove old lock files that nobody holds and that have no draft (an instance that crashed
        with an empty box)."""
        now = time.time()
        for lock in self.folder.glob(f"{self.stem}.draft.*.lock"):
            token = lock.name[len(self.stem) + len(".draft."):-len(".lock")]
            try:
                old = now - lock.stat().st_mtime > STALE_LOCK_SECONDS
            except OSError:
                continue
            if old and token != self.token and not self._file(token, ".json").exists() and not self._alive(token):
                lock.unlink(missing_ok=True)

    def _token_of(self, f: Path) -> str | None:
        """The token in a draft file's name ("" for the shared file of earlier versions)."""
        middle = f.name[len(self.stem):-len(".json")]
        if middle == ".draft":
            return ""
        if middle.startswith(".draft.") and "." not in middle[len(".draft."):]:
            return middle[len(".draft."):]
        return None


def _read(path: Path) -> dict[str, object]:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}
