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
def ctx(ws: Path) -> JournalContext:  # (``ws``: the tool tests' temp workspace)
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
    assert last.turn is None and last.text().startswith("Nothing left to undo: every file change")
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
    assert report.text() == ("Undid turn 1: restored b.py. Left a.py as it is: it changed since the agent wrote it. "
                             "This turn counts as undone: the next /undo goes to the one before.")
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
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o700 for f in (folder, folder.parent, journal_root()))
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
    report = ctx.undo.undo_last()  # type: ignore[union-attr]
    assert report.turn == 1 and report.missed == ["a.py"] and not report.changed
    assert "Not undone (its old text could not be saved): a.py." in report.text()


@pytest.mark.parametrize("leftover", ["000002.json", "000002.before", "notes.before"])
async def test_a_half_written_entry_does_not_stop_later_ones(ctx: JournalContext, ws: Path, leftover: str) -> None:
    """A crash or a full disk while an entry was written leaves a part of it: the numbers go on past it.  A file
    not of the journal's naming is passed over (its bounds check read every ``.before`` name as a number)."""
    (ws / "a.py").write_text("v = 0\n")
    await edit(ctx, "a.py", "v = 0", "v = 1")
    journal = ctx.undo
    assert journal is not None
    (journal.folder / leftover).write_bytes(b"")
    ctx.turn = 2
    await edit(ctx, "a.py", "v = 1", "v = 2")
    assert journal.undo_last().turn == 2 and (ws / "a.py").read_text() == "v = 1\n"
    assert journal.undo_last().turn == 1 and (ws / "a.py").read_text() == "v = 0\n"


async def test_two_undos_at_once_take_two_turns(ctx: JournalContext, ws: Path) -> None:
    import threading

    for n in range(12):
        (ws / f"f{n}.py").write_text("v = 0\n")
    for turn in (1, 2):
        ctx.turn = turn
        for n in range(12):
            await edit(ctx, f"f{n}.py", f"v = {turn - 1}", f"v = {turn}")
    journal = ctx.undo
    assert journal is not None
    reports: list[undo_journal.UndoReport] = []
    threads = [threading.Thread(target=lambda: reports.append(journal.undo_last())) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.turn for r in reports if r.turn is not None) == [1, 2]
    assert all(not r.kept and len(r.restored) == 12 for r in reports)
    assert all((ws / f"f{n}.py").read_text() == "v = 0\n" for n in range(12))


async def test_the_folders_a_new_file_made_go_with_it(ctx: JournalContext, ws: Path) -> None:
    (ws / "pkg").mkdir()
    await write_file({"path": "pkg/sub/deep/new.py", "content": "x = 1\n"}, ctx)
    await write_file({"path": "pkg/sub/other.py", "content": "y = 1\n"}, ctx)
    ctx.undo.undo_last()  # type: ignore[union-attr]
    assert sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*")) == ["pkg"], "pkg was there before"


async def test_a_refused_restore_says_why_in_the_users_words(ctx: JournalContext, ws: Path) -> None:
    (ws / "a.py").write_text("a = 1\n")
    await edit(ctx, "a.py", "a = 1", "a = 2")
    (ws / "a.py").chmod(0o444)
    report = ctx.undo.undo_last()  # type: ignore[union-attr]
    assert report.kept == [("a.py", "writing it back failed: 'a.py' is read-only (mode 0444), so it was not changed")]


async def test_old_turns_are_pruned_whole(ctx: JournalContext, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(undo_journal, "MAX_ENTRIES", 3)
    for name in ("a", "b"):
        (ws / f"{name}.py").write_text("v = 0\n")
    for turn in range(1, 4):
        ctx.turn = turn
        await edit(ctx, "a.py", f"v = {turn - 1}", f"v = {turn}")
        await edit(ctx, "b.py", f"v = {turn - 1}", f"v = {turn}")
    assert [c.turn for c in ctx.undo.changes()] == [3, 3], "never half a turn"  # type: ignore[union-attr]


async def test_the_latest_turn_is_kept_whole_past_the_bounds(ctx: JournalContext, ws: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(undo_journal, "MAX_BYTES", 10)
    (ws / "a.py").write_text("v = 0 and some more text\n")
    for n in range(1, 5):
        await edit(ctx, "a.py", f"v = {n - 1}", f"v = {n}")
    ctx.undo.undo_last()  # type: ignore[union-attr]
    assert (ws / "a.py").read_text() == "v = 0 and some more text\n"


def test_nothing_to_undo_in_a_session_that_changed_no_file(ctx: JournalContext) -> None:
    assert ctx.undo.undo_last().text().startswith("Nothing to undo: the agent's file tools changed no file")  # type: ignore[union-attr]


def test_stale_journals_are_removed_but_not_the_one_being_opened(ws: Path) -> None:
    old, new, resumed = (UndoJournal.for_session(ws, s) for s in ("old", "new", "resumed"))
    for j in (old, new, resumed):
        j.folder.mkdir(parents=True)
    os.utime(old.folder, (0, 0))
    os.utime(resumed.folder, (0, 0))
    assert remove_stale(keep=resumed.folder) == 1
    assert not old.folder.exists() and new.folder.exists() and resumed.folder.exists()
    assert remove_stale() == 0, "the one opened was touched: in use"
