"""Unsent drafts: one file per running instance, taken over by the next start when its instance is gone.

Two agent-tui on one folder used to share one draft file, and the last one written won: the other
instance's typing was on disk only until its neighbour's next keystroke, so a crash of the first
lost it.  Now each instance writes ``<history stem>.draft.<token>.json`` beside the input history and
holds ``<history stem>.draft.<token>.lock`` with ``flock`` while it lives.  The kernel drops that lock
when the process ends, however it ends (a quit, a crash, ``kill -9``), so "is the draft's owner still
running?" is one non-blocking lock attempt, and a start never takes a draft from a running instance.
A start takes over every orphaned draft (renamed away first, so two starts at once cannot both take
one): the newest goes back in the box, the older ones are returned for the input history.  A taken
draft's file is removed only once its text is kept elsewhere (the new owner's draft, the history file),
and until then its name marks it as a draft of the taking run, so a crash in between leaves it to the
next start.  The single ``<stem>.draft.json`` of earlier versions is an orphan like any other (an
instance of that version still running cannot be told apart: its draft may be offered twice, never lost).

Secrets are masked before a draft is written (``core/redact``), as in the history.  No Textual here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Draft:
    """An unsent draft taken over from an ended run."""

    text: str
    """What was in its box (secrets masked)."""
    at: float
    """When it was last written (seconds since the epoch)."""
    path: Path
    """Its file, renamed to this run's claim until the text is kept elsewhere (``Drafts.drop``)."""
    folded: Folded | None = None
    """The box as it showed ``text``: large pastes as ``[paste #N · L lines]`` tokens, and their texts."""


Folded = tuple[str, dict[int, str]]
"""A box with folded pastes: its text with paste tokens, and the text of each paste by number."""


def folded_record(text: str, folded: Folded | None) -> dict[str, object] | None:
    """``folded`` as written beside the masked ``text``, when masking its parts gives the same text (else
    the draft comes back expanded, as before: never a form that would send something else)."""
    if not folded or not folded[1]:
        return None
    from agent_tui.core.redact import redact_text

    shown, pastes = redact_text(folded[0]), {n: redact_text(t) for n, t in folded[1].items()}
    if expand(shown, pastes) != text:
        return None
    return {"text": shown, "pastes": {str(n): t for n, t in pastes.items()}}


TOKEN = re.compile(r"\[paste #(\d+) · [\d,]+ (?:lines?|characters)\]")
"""A folded paste in the box."""


def expand(shown: str, pastes: dict[int, str]) -> str:
    """``shown`` with each paste token replaced by its paste (what sending it sends)."""
    return TOKEN.sub(lambda m: pastes.get(int(m.group(1)), m.group(0)), shown)


def renumbered(folded: Folded, after: int) -> Folded | None:
    """``folded`` with its pastes numbered from ``after + 1``, to sit beside the box's own pastes (a message
    recalled with ↑); None when its text holds a token of no paste of its own (it could take a new number's)."""
    shown, pastes = folded
    if any(int(m.group(1)) not in pastes for m in TOKEN.finditer(shown)):
        return None
    new = {old: after + n for n, old in enumerate(sorted(pastes), 1)}
    text = TOKEN.sub(lambda m: m.group(0).replace(f"#{m.group(1)} ", f"#{new[int(m.group(1))]} ", 1), shown)
    return text, {new[old]: pasted for old, pasted in pastes.items()}


def folded_of(record: dict[str, object]) -> Folded | None:
    raw = record.get("folded")
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or not isinstance(raw.get("pastes"), dict):
        return None
    pastes = {int(k): v for k, v in raw["pastes"].items()
              if isinstance(k, str) and k.isascii() and k.isdigit() and isinstance(v, str)}
    folded = (str(raw["text"]), pastes)
    return folded if pastes and expand(*folded) == record.get("text") else None


class Drafts:
    """This instance's draft file, and the orphans of instances that are gone."""

    def __init__(self, history_path: Path) -> None:
        self.folder = history_path.parent
        self.stem = history_path.stem
        self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
        """Names this instance's files (the pid for a reader; the random part tells apart two
        instances in one process, as tests run them)."""
        self._lock_fd: int | None = None
        self._claims = 0
        self.problem = ""
        """Why the last save failed ("" when it did not)."""

    @property
    def path(self) -> Path:
        """This instance's draft file."""
        return self._file(self.token, ".json")

    def _file(self, token: str, suffix: str) -> Path:
        return self.folder / f"{self.stem}.draft{'.' + token if token else ''}{suffix}"

    def save(self, text: str, folded: Folded | None = None, slot: str = "") -> bool:
        """Keep ``text`` as this instance's draft (masked, written atomically); an empty one removes it.
        ``folded``: the box as it shows ``text`` (its large pastes folded), kept beside it so the draft comes
        back folded.  ``slot``: a second text of this instance (``"before"``: what was typed before browsing,
        while the box holds an edited earlier entry), its own file, dated a second older than the box's so
        the next start puts the box's back in the box.  True when that is done (False: an unwritable state
        directory, the draft lives in the box only)."""
        token = f"{self.token}-{slot}" if slot else self.token
        path = self._file(token, ".json")
        tmp = self._file(token, ".tmp")
        try:
            if not text.strip():
                path.unlink(missing_ok=True)
                self.problem = ""
                return True
            from agent_tui.core.redact import redact_text

            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # what the user typed: theirs alone
            self._hold()
            at = time.time() - (1.0 if slot else 0.0)
            record: dict[str, object] = {"text": redact_text(text[:MAX_DRAFT]), "at": at, "pid": os.getpid()}
            if len(text) <= MAX_DRAFT and (kept := folded_record(str(record["text"]), folded)) is not None:
                record["folded"] = kept
            tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            tmp.replace(path)
            self.problem = ""
            return True
        except OSError as exc:
            self.problem = f"{self.folder}: {exc.strerror or exc}"
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)  # a half-written copy of a full disk helps nobody
            return False

    def take_over(self) -> list[Draft]:
        """The drafts of instances no longer running, newest first, claimed by this instance: each
        file is renamed to a name of this run's (so no other start takes it) and stays until
        ``drop`` says its text is kept elsewhere."""
        found: list[Draft] = []
        try:
            candidates = sorted(self.folder.glob(f"{self.stem}.draft*.json"))
            if candidates:
                self._hold()  # this run's claims have a live owner from the first one
        except OSError:
            return []
        for f in candidates:
            token = self._token_of(f)
            if token is None or token == self.token or token.startswith(self.token + "-") or self._alive(token):
                continue
            self._claims += 1
            claimed = self._file(f"{self.token}-c{self._claims}", ".json")
            try:
                os.rename(f, claimed)  # atomic: a second start finds nothing to take
            except OSError:
                continue
            if token:
                self._remove_lock(token)
            record = _read(claimed)
            text, at = record.get("text"), record.get("at")
            if isinstance(text, str) and text.strip():
                found.append(Draft(text, float(at) if isinstance(at, (int, float)) else 0.0, claimed,
                                   folded_of(record)))
            else:
                claimed.unlink(missing_ok=True)
        self._sweep_locks()
        return sorted(found, key=lambda d: -d.at)

    def drop(self, draft: Draft) -> None:
        """``draft``'s text is kept elsewhere now: remove its file."""
        try:
            draft.path.unlink(missing_ok=True)
        except OSError:
            pass

    def close(self) -> None:
        """This instance is done (its last draft is saved): let the next start take the draft over."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is None:
            return
        try:
            self._file(self.token, ".lock").unlink(missing_ok=True)
        except OSError:
            pass
        finally:
            os.close(fd)  # (closing drops the lock)

    def _hold(self) -> None:
        """Lock this instance's lock file (once): the sign that its draft has a live owner.  Waits
        if a start is probing it at this moment (a probe holds it only for an instant)."""
        if self._lock_fd is not None or fcntl is None:
            return
        fd = os.open(self._file(self.token, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            os.close(fd)
            return
        self._lock_fd = fd

    def _alive(self, token: str) -> bool:
        """The instance that wrote ``token``'s draft still runs (it holds its lock).  Only a lock file
        that is not there, or that nobody holds, says it ended: a lock this user cannot open (another
        user's, too many open files) counts as alive, so no running instance loses its draft."""
        if not token:
            return False  # the shared file of earlier versions: nobody holds it
        base = "-".join(token.split("-")[:2])  # (a claim, ``<token>-c<n>``, lives as long as its taker)
        if fcntl is None:
            return True
        try:
            fd = os.open(self._file(base, ".lock"), os.O_RDONLY)
        except FileNotFoundError:
            return False
        except OSError:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # (our probe's lock, if taken, goes with it)
        return False

    def _remove_lock(self, token: str) -> None:
        """Remove an ended instance's lock file, only while holding it (so never a live one's)."""
        if fcntl is None:
            return
        lock = self._file(token, ".lock")
        try:
            fd = os.open(lock, os.O_RDONLY)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lock.unlink(missing_ok=True)
        except OSError:
            pass
        finally:
            os.close(fd)

    def _sweep_locks(self) -> None:
        """Remove old lock files that nobody holds and that have no draft (an instance that crashed
        with an empty box), and half-written copies of ended runs."""
        now = time.time()
        try:
            locks = list(self.folder.glob(f"{self.stem}.draft.*.lock"))
        except OSError:
            return
        try:
            tmps = list(self.folder.glob(f"{self.stem}.draft.*.tmp"))
        except OSError:
            tmps = []
        for tmp in tmps:  # a copy a run killed mid-write left (its draft file is whole: written by rename)
            token = tmp.name[len(self.stem) + len(".draft."):-len(".tmp")]
            if token != self.token and not self._alive(token):
                with contextlib.suppress(OSError):
                    tmp.unlink()
        for lock in locks:
            token = lock.name[len(self.stem) + len(".draft."):-len(".lock")]
            try:
                old = now - lock.stat().st_mtime > STALE_LOCK_SECONDS
            except OSError:
                continue
            if old and token != self.token and not self._file(token, ".json").exists():
                self._remove_lock(token)

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
