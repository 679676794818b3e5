"""A folder swapped for a link between a path's check and its use: nothing outside is read or written.

A command the agent started can still be running while the model reads or edits: it can replace
``sub/`` by a link to a folder outside the workspace after the tool resolved ``sub/f.txt`` and found
it inside, before the tool opens it.  Each test makes that swap at exactly that moment (right after
the real ``resolve`` returns) and checks that the outside file was neither sent to the model nor
changed, and that nothing was created outside.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_tui.tools import fs_edit, fs_read, fs_write, search_backends, workspace

from .fakes import Call

SECRET = "TOP-SECRET-KEY-1234\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "f.txt").write_text(SECRET)
    return folder


def _swap_after_resolve(monkeypatch: pytest.MonkeyPatch, ws: Path, outside: Path,
                        modules: tuple[object, ...]) -> list[Path]:
    """Make every ``resolve`` of a path under ``sub/`` swap ``sub`` for a link to ``outside`` once it
    has returned; the list gets each path resolved so (the test checks the swap was reached)."""
    real: Callable[[Path, str], Path] = workspace.resolve
    seen: list[Path] = []

    def resolve_then_swap(root: Path, path: str) -> Path:
        target = real(root, path)
        if path.startswith("sub/") and not (ws / "sub").is_symlink():
            os.rename(ws / "sub", ws / "sub.moved")
            os.symlink(outside, ws / "sub")
            seen.append(target)
        return target

    for module in modules:
        monkeypatch.setattr(module, "resolve", resolve_then_swap)
    return seen


async def test_a_read_after_the_swap_never_sends_the_outside_file(
    ws: Path, outside: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("inside\n")
    seen = _swap_after_resolve(monkeypatch, ws, outside, (workspace, fs_read))
    result = await call("read_file", path="sub/f.txt")
    assert seen, "the swap happened between the check and the open"
    assert result.is_error and "changed while it was being opened" in result.text, result.text
    assert "TOP-SECRET" not in result.text


@pytest.mark.parametrize("tool", ["write_file", "edit_file"])
async def test_a_write_after_the_swap_leaves_the_outside_file_alone(
    ws: Path, outside: Path, call: Call, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text(SECRET)  # same text as outside: the expected-bytes check passes
    result = await call("read_file", path="sub/f.txt")
    assert not result.is_error, result.text
    module = fs_write if tool == "write_file" else fs_edit
    real_write = module.atomic_write

    def swap_then_write(target: Path, *args: object, **kwargs: object) -> None:
        os.rename(ws / "sub", ws / "sub.moved")
        os.symlink(outside, ws / "sub")
        real_write(target, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "atomic_write", swap_then_write)
    args = {"content": "overwritten\n"} if tool == "write_file" else {"old_text": "TOP", "new_text": "x"}
    result = await call(tool, path="sub/f.txt", **args)
    assert (ws / "sub").is_symlink(), "the swap happened between the checks and the write"
    assert result.is_error and "swapped it" in result.text and "Nothing was written" in result.text, result.text
    assert (outside / "f.txt").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"], "no temp file left outside"
    assert (ws / "sub.moved" / "f.txt").read_text() == SECRET


async def test_a_new_file_after_the_swap_is_not_created_outside(
    ws: Path, outside: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "sub").mkdir()
    seen = _swap_after_resolve(monkeypatch, ws, outside, (fs_write,))
    result = await call("write_file", path="sub/deeper/new.txt", content="hello\n")
    assert seen
    assert result.is_error and "Nothing was written" in result.text, result.text
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"], "no folder or file made outside"


async def test_missing_folders_of_a_new_file_are_made(ws: Path, call: Call) -> None:
    result = await call("write_file", path="a/b/c/new.txt", content="hello\n")
    assert not result.is_error, result.text
    assert (ws / "a" / "b" / "c" / "new.txt").read_text() == "hello\n"


async def test_a_link_inside_the_workspace_is_still_followed(ws: Path, call: Call) -> None:
    (ws / "real").mkdir()
    (ws / "real" / "f.txt").write_text("one\n")
    (ws / "alias").symlink_to(ws / "real")
    result = await call("read_file", path="alias/f.txt")
    assert not result.is_error and "one" in result.text, result.text
    result = await call("edit_file", path="alias/f.txt", old_text="one", new_text="two")
    assert not result.is_error, result.text
    assert (ws / "real" / "f.txt").read_text() == "two\n"


async def test_search_without_rg_skips_a_file_whose_folder_was_swapped(
    ws: Path, outside: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("TOP-SECRET-KEY-0000 inside\n")
    real_resolve = Path.resolve

    def swapped_on_the_way(self: Path, strict: bool = False) -> Path:
        found = real_resolve(self, strict)
        if self.name == "f.txt" and not (ws / "sub").is_symlink():
            os.rename(ws / "sub", ws / "sub.moved")
            os.symlink(outside, ws / "sub")
        return found

    monkeypatch.setattr(Path, "resolve", swapped_on_the_way)
    hits = search_backends.search_python(ws.resolve(), ws.resolve(), "TOP-SECRET", None, False)
    assert (ws / "sub").is_symlink(), "the swap happened"
    assert all("1234" not in hit.text for hit in hits), hits


async def test_a_listing_after_the_swap_never_shows_the_outside_folder(
    ws: Path, outside: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.tools import fs_list

    (ws / "sub").mkdir()
    (ws / "sub" / "inside.txt").write_text("inside\n")
    (outside / "private-notes.txt").write_text(SECRET)
    seen = _swap_after_resolve(monkeypatch, ws, outside, (workspace, fs_list))
    result = await call("list_dir", path="sub/")
    assert seen, "the swap happened between the check and the listing"
    assert result.is_error and "changed while it was being opened" in result.text, result.text
    assert "private-notes" not in result.text and "f.txt" not in result.text
    plain = await call("list_dir", path=".", depth=3)
    assert "inside.txt" in plain.text and "private-notes" not in plain.text, plain.text
