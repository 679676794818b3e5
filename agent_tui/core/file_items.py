"""Active files as stored items: they persist with the session and can be pinned and released.

An active file used to live only in the engine's memory, so resuming a session, switching
models or `--session ID` lost every file (files 104 → 0 tokens) and `memory list --all`
could not show them.  Each file is now an ``f:<path>`` row of the session in the store
(its raw text, hash, and whether it was edited or pinned), written when it changes and
marked released — with the reason — when it leaves.  A pinned file is kept across tasks;
evicting one releases it (the reason goes to the trace).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agent_tui.core.activefiles import TOO_LARGE, TRUNCATED, ActiveFile
from agent_tui.core.file_regions import Region
from agent_tui.core.item_actions import EngineError
from agent_tui.core.items import Category, ContextItem, Priority, State
from agent_tui.core.pinning import read_for_pin

USER_RELEASE = "released by the user (evict)"
"""The trace reason of a file the user evicted."""

_FIELDS = ("hash", "mtime", "size", "last_touched", "changed_on_disk", "missing", "edited", "written", "ran", "last_step",
           "read_step", "pinned", "dropped", "seen")


def _key(af: ActiveFile) -> tuple[Any, ...]:
    part = None if af.seen_part is None else tuple(af.seen_part)
    return (*(getattr(af, f) for f in _FIELDS), tuple(af.regions), part)


def file_row(af: ActiveFile, tokens: int, state: State = State.IN, why: str = "") -> ContextItem:
    """The store row of one active file (content: the file's raw text, so it can be rebuilt)."""
    prov: dict[str, Any] = {"path": af.path, **{f: getattr(af, f) for f in _FIELDS},
                            "regions": [[r.start, r.end, r.seq, r.step] for r in af.regions],
                            "seen_part": None if af.seen_part is None else [list(s) for s in af.seen_part]}
    if why:
        prov["why"] = why
    return ContextItem(id=af.item_id, category=Category.FILES, content=af.content, tokens=tokens, pinned=af.pinned,
                       priority=Priority.HIGH, state=state, turn=af.last_touched, provenance=prov)


def active_from_row(row: ContextItem) -> ActiveFile:
    p = row.provenance
    path = str(p.get("path") or row.id[2:])
    af = ActiveFile(path, row.content, str(p.get("hash") or ""), float(p.get("mtime") or 0.0), int(p.get("size") or 0),
                    int(p.get("last_touched") or row.turn))
    for f in ("changed_on_disk", "missing", "edited", "written", "ran", "pinned"):
        setattr(af, f, bool(p.get(f)))
    af.last_step = int(p.get("last_step") or 0)
    af.read_step = int(p.get("read_step") if p.get("read_step") is not None else -1)
    af.dropped = str(p.get("dropped") or "")
    # (a row from before these were kept: what the model saw was this text, in some part)
    af.seen = str(p["seen"]) if "seen" in p else af.hash
    part = p.get("seen_part", [])
    af.seen_part = None if part is None else [(int(s[0]), int(s[1])) for s in part if isinstance(s, list)
                                              and len(s) == 2 and all(isinstance(x, int) for x in s)]
    af.regions = [Region(*map(int, r)) for r in p.get("regions") or []
                  if isinstance(r, list) and len(r) == 4 and all(isinstance(x, int) for x in r)]
    return af


class FileLedger:
    """Which version of each active file the store holds, so only changes are written."""

    def __init__(self) -> None:
        self.saved: dict[str, tuple[tuple[Any, ...], ActiveFile]] = {}
        self.released: dict[str, ContextItem] = {}
        """Rows of files no longer active (``memory list --all``, ``memory show f:x``)."""

    def load(self, engine: Any, rows: list[ContextItem]) -> None:
        """Rebuild the active files of a resumed session from its ``f:`` rows."""
        active = [r for r in rows if r.state == State.IN]
        active.sort(key=lambda r: (int(r.provenance.get("last_touched") or 0), int(r.provenance.get("last_step") or 0)))
        for row in rows:
            if row.state != State.IN:
                self.released[row.id] = row
        for row in active:
            af = active_from_row(row)
            engine.files.files.pop(af.path, None)
            engine.files.files[af.path] = af
            engine.files.clock = max([engine.files.clock, *(r.seq for r in af.regions)])
            self.saved[af.path] = (_key(af), af)
            self.released.pop(row.id, None)

    def flush(self, engine: Any) -> None:
        """Write the files that changed and mark the ones gone as released (with the reason)."""
        store = engine.store
        current: dict[str, ActiveFile] = engine.files.files
        reasons = {it.id: why for it, why in engine.window.releases}
        writes: list[ContextItem] = []
        for path, af in current.items():
            k = _key(af)
            if self.saved.get(path, (None,))[0] != k:
                writes.append(file_row(af, engine.window.file_item(af).tokens))
                self.saved[path] = (k, af)
                self.released.pop(af.item_id, None)
        for path in [p for p in self.saved if p not in current]:
            _, af = self.saved.pop(path)
            why = reasons.get(af.item_id, "released")
            row = file_row(af, engine.window.file_item(af).tokens, State.RELEASED, why)
            self.released[af.item_id] = row
            writes.append(row)
        if store is None or not writes:
            return
        with engine._store_batch():
            for row in writes:
                store.save_item(engine.session_id, row)

    def adopt(self, engine: Any, rows: list[ContextItem]) -> bool:
        """Apply ``f:`` rows another process wrote (a CLI pin, unpin or evict); True if anything changed."""
        changed = False
        for row in rows:
            if not row.id.startswith("f:"):
                continue
            path = str(row.provenance.get("path") or row.id[2:])
            af = engine.files.files.get(path)
            if row.state == State.IN:
                if af is None and row.pinned:
                    af = active_from_row(row)
                    engine.files.files[path] = af
                    self.saved[path] = (_key(af), af)
                    changed = True
                elif af is not None and af.pinned != row.pinned:
                    af.pinned = row.pinned
                    self.saved[path] = (_key(af), af)
                    changed = True
            elif af is not None and row.provenance.get("why") == USER_RELEASE:
                del engine.files.files[path]
                self.saved.pop(path, None)
                self.released[row.id] = row
                engine.window.releases.append((row, USER_RELEASE))
                changed = True
        return changed


def file_action(engine: Any, action: str, item_id: str) -> ContextItem:
    """pin / unpin / evict / restore an active file (``f:path``)."""
    path = item_id[2:]
    af: ActiveFile | None = engine.files.files.get(path)
    if action in ("pin", "restore"):
        if af is None:
            text = read_for_pin(engine.files.workspace, path)
            af = engine.files.note(path, text, engine.turn, step=engine.steps_total)
            af.seen, af.seen_part = "", []  # (the model has not been shown it yet: the next request does)
        if action == "pin":
            af.pinned = True
    elif af is None:
        gone = " (it was released; restore or pin it to bring it back)" if item_id in engine.window.ledger.released \
            else ""
        raise EngineError(f"{item_id} is not an active file now{gone}")
    elif action == "unpin":
        af.pinned = False
    else:
        del engine.files.files[path]
        engine.window.releases.append((engine.window.file_item(af), USER_RELEASE))
    engine.window.ledger.flush(engine)
    engine.history.version += 1
    item = engine.window.file_item(af)
    if action == "evict":
        return dataclasses.replace(item, state=State.RELEASED, pinned=False)
    return item


def partial_view(engine: Any, item_id: str) -> str:
    """For an active file (``f:path``) the window shows only in part, what it shows ("" when it shows
    it whole): a pin keeps the file, but a file past the per-file limit is cut."""
    af: ActiveFile | None = engine.files.files.get(item_id[2:]) if item_id.startswith("f:") else None
    if af is None:
        return ""
    shown = engine.window.file_item(af).content
    total = af.content.count("\n") + (0 if af.content.endswith("\n") else 1)
    if shown.rstrip("`\n").endswith(TRUNCATED):  # (a file may quote the marker in its own text)
        body = shown.split("```\n", 1)[-1].rsplit(TRUNCATED, 1)[0]
        return (f"only its first {body.count(chr(10)):,} of {total:,} lines fit in the window; read_file with "
                "line ranges shows the rest")
    if TOO_LARGE in shown:
        return f"it is too large for the window ({total:,} lines): only the regions read or edited last are shown"
    if af.outline:
        return (f"it was read only as an outline or a range ({total:,} lines): the window points to that read; "
                "read_file with line ranges shows the text")
    return ""


def history_copies(engine: Any, item_id: str) -> list[str]:
    """The history messages that also show an active file's text (the read that showed it, its file notes),
    still in the window: releasing ``f:path`` takes the file out of the block, not out of those (between
    compaction events the history is append-only, so the prompt cache holds)."""
    path = item_id[2:] if item_id.startswith("f:") else ""
    af: ActiveFile | None = engine.files.files.get(path) if path else None
    if af is None:
        return []
    out = [af.shown_by] if af.shown_by and af.shown_by in engine.items else []
    marks = (f"[file note: current text of {path},", f"[file note: {path} ")
    out += [it.id for it in engine.items.values()
            if it.role == "user" and it.content.startswith(marks) and it.id not in out]
    return [i for i in out if engine.items[i].state == State.IN]
