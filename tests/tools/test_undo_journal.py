"""The undo journal: what the agent's file tools overwrite is kept outside the workspace, and ``/undo``
puts a turn's files back exactly, never over a later change by someone else."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_tui.tools import undo_journal
from agent_tui.tools.base import ToolResult
from agent_tui.tools.fs_edit import edit_file
from agent_tui.tools.fs_read import read_file
from agent_tui.tools.fs_write import write_file
from agent_tui.tools.undo_journal import UndoJournal, journal_root, remove_stale
from agent_tui.tools.workspace import WorkspaceError

from .fakes import FakeContext


@dataclass
class JournalContext(FakeContext):
    """A FakeContext whose writes go through a real journal, at a turn the test sets."""

    turn: int = 1
    undo: UndoJournal | None = None

    @contextmanager
    def journaled(self, path: str, before: bytes | None, after: bytes) -> Iterator[None]:
        assert self.undo is not None
        with self.undo.journaled(self.turn, path, before, after):
            yield


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> JournalContext:
    return JournalContext(ws, undo=UndoJournal.for_session(ws, "s1"))


async def edit(ctx: JournalContext, path: str, old: str, new: str) -> ToolResult:
    await read_file({"path": path}, ctx)
    result = await edit_file({"path": path, "old_text": old, "new_text": new}, ctx)
    assert not result.is_error, result.text
    return result


async def test_undo_puts_back_the_exact_bytes_of_every_file_the_turn_changed(ctx: JournalContext, ws: Path) -> None:
    (ws / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")  # CRLF, kept byte for byte
    (ws / "b.txt").write_bytes(b"no newline at end")
    await edit(ctx, "a.py", "x = 1", "x = 10")
    await edit(ctx, "a.py", "y = 2", "y = 20")  # twice in one turn: back to before the first
    await edit(ctx, "b.txt", "no newline", "NO NEWLINE")
    made = await write_file({"path": "pkg/new.py", "content": "print('hi')\n"}, ctx)
    assert not made.is_error
    assert (ws / "a.py").read_bytes() == b"x = 10\r\ny = 20\r\n"

    report = ctx.undo.undo_last()  # type: ignore[union-attr]

    assert report.turn == 1
    assert (ws / "a.py").read_bytes() == b"x = 1\r\ny = 2\r\n"
    assert (ws / "b.txt").read_bytes() == b"no newline at end"
    assert not (ws / "pkg" / "new.py").exists()
    assert report.restored == ["b.txt", "a.py"] and report.removed == ["pkg/new.py"] and not report.kept
    assert "Undid turn 1: restored b.txt, a.py; deleted the new pkg/new.py." == report.text()


async def test_each_undo_takes_back_one_turn_newest_first(ctx: JournalContext, ws: Path) -> None:
    (ws / "a.py").write_text("v = 0\n")
    for turn in (1, 2, 3):
        ctx.turn = turn
        await edit(ctx, "a.py", f"v = {turn - 1}", f"v = {turn}")
    journal = ctx.undo
    assert journal is not None
    assert journal.undo_last().turn == 3 and (ws / "a.py").read_text() == "v = 2\n"
    assert journal.undo_last().turn == 2 and (ws / "a.py").read_text() == "v = 1\n"
    assert journal.undo_last().turn == 1 and (ws / "a.py").read_text() == "v = 0\n"
    last = journal.undo_last()
    assert last.turn is None and "Nothing to undo" in last.text()
    assert (ws / "a.py").read_text() == "v = 0\n"


async def test_a_file_changed_since_is_left_and_named_the_others_go_back(ctx: JournalContext, ws: Path) -> None:
    (ws / "a.py").write_text("a = 1\n")
    (ws / "b.py").write_text("b = 1\n")
    await edit(ctx, "a.py", "a = 1", "a = 2")
    await edit(ctx, "b.py", "b = 1", "b = 2")
    (ws / "a.py").write_text("a = 2\n# the user's own line\n")  # saved in an editor after the agent

    report = ctx.undo.undo_last()  # type: ignore[union-attr]

    assert (ws / "a.py").read_text() == "a = 2\n# the user's own line\n", "a later change is never dropped"
    assert (ws / "b.py").read_text() == "b = 1\n"
    assert report.kept == [("a.py", "it changed since the agent wrote it")]
    assert "Left a.py as it is: it changed since the agent wrote it." in report.text()
    assert ctx.undo.undo_last().turn is None, "the turn counts as undone: the next /undo goes further back"  # type: ignore[union-attr]


async def test_a_created_file_the_user_changed_is_not_deleted(ctx: JournalContext, ws: Path) -> None:
    await write_file({"path": "notes.md", "content": "draft\n"}, ctx)
    (ws / "notes.md").write_text("draft\nmine too\n")
    report = ctx.undo.undo_last()  # type: ignore[union-attr]
    assert (ws / "notes.md").read_text() == "draft\nmine too\n"
    assert report.removed == [] and report.kept[0][0] == "notes.md"


async def test_a_refused_write_leaves_no_entry(ctx: JournalContext, ws: Path) -> None:
    target = ws / "ro.py"
    target.write_text("k = 1\n")
    await read_file({"path": "ro.py"}, ctx)
    target.chmod(0o444)
    with pytest.raises(WorkspaceError, match="read-only"):
        await edit_file({"path": "ro.py", "old_text": "k = 1", "new_text": "k = 2"}, ctx)
    assert target.read_text() == "k = 1\n"
    assert ctx.undo.changes() == []  # type: ignore[union-attr]


async def test_the_journal_lives_outside_the_workspace_private_to_the_user(ctx: JournalContext, ws: Path) -> None:
    (ws / "a.py").write_text("secret = 'kept only here'\n")
    await edit(ctx, "a.py", "kept only here", "changed")
    folder = ctx.undo.folder  # type: ignore[union-attr]
    assert folder.is_relative_to(journal_root()) and not folder.is_relative_to(ws)
    assert journal_root().is_relative_to(Path(os.environ["XDG_STATE_HOME"]))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir())
    assert not list(ws.rglob("*.before"))


async def test_a_tampered_entry_cannot_write_outside_the_workspace(ctx: JournalContext, ws: Path, tmp_path: Path) -> None:
    (ws / "a.py").write_text("a = 1\n")
    await edit(ctx, "a.py", "a = 1", "a = 2")
    outside = tmp_path / "outside.txt"
    outside.write_text("a = 2\n")
    journal = ctx.undo
    assert journal is not None
    entry = journal.folder / "000001.json"
    meta = json.loads(entry.read_text())
    entry.write_text(json.dumps({**meta, "path": "../outside.txt"}))

    report = journal.undo_last()

    assert outside.read_text() == "a = 2\n"
    assert report.restored == [] and report.kept[0][0] == "../outside.txt"
    assert "cannot be read safely" in report.kept[0][1]


async def test_a_file_too_large_to_keep_is_named_not_restored(ctx: JournalContext, ws: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(undo_journal, "MAX_FILE_BYTES", 8)
    (ws / "big.txt").write_text("0123456789 long\n")
    await edit(ctx, "big.txt", "long", "short")
    report = ctx.undo.undo_last()  # type: ignore[union-attr]
    assert (ws / "big.txt").read_text() == "0123456789 short\n"
    assert report.kept and "not saved" in report.kept[0][1]


async def test_a_journal_that_cannot_be_written_does_not_stop_the_write(ctx: JournalContext, ws: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(UndoJournal, "_make_folder", full)
    (ws / "a.py").write_text("a = 1\n")
    await edit(ctx, "a.py", "a = 1", "a = 2")
    assert (ws / "a.py").read_text() == "a = 2\n"
    assert ctx.undo.undo_last().turn is None  # type: ignore[union-attr]


async def test_old_changes_are_pruned(ctx: JournalContext, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(undo_journal, "MAX_ENTRIES", 3)
    (ws / "a.py").write_text("v = 0\n")
    for turn in range(1, 6):
        ctx.turn = turn
        await edit(ctx, "a.py", f"v = {turn - 1}", f"v = {turn}")
    assert [c.turn for c in ctx.undo.changes()] == [3, 4, 5]  # type: ignore[union-attr]


def test_stale_journals_are_removed(ws: Path) -> None:
    old, new = UndoJournal.for_session(ws, "old"), UndoJournal.for_session(ws, "new")
    for j in (old, new):
        j.folder.mkdir(parents=True)
    os.utime(old.folder, (0, 0))
    assert remove_stale() == 1
    assert not old.folder.exists() and new.folder.exists()
