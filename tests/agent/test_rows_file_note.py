"""The inspector's rows add up to the gauge: an active file whose text a file note carries is not counted
again (it showed the file twice, and a negative "(framing)" row made the total come out)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from agent_tui.ui.rows import FRAMING, build_rows
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


@asynccontextmanager
async def agent_that_read(tmp_path: Path, name: str, text: str) -> AsyncIterator[Any]:
    """An agent whose one turn read ``name`` (holding ``text``), its workspace closed afterwards."""
    root = make_repo(tmp_path / "repo")
    (root / name).write_text(text)
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": name}), Reply.text("read"))
        agent, ws = make_agent(root, server.base_url)
        try:
            await run_turn(agent, f"read {name}")
            yield agent
        finally:
            ws.close()


async def test_a_pinned_file_carried_by_its_file_note_is_counted_once(tmp_path: Path) -> None:
    big = "".join(f"line {i} of the big text file\n" for i in range(22_000))
    async with agent_that_read(tmp_path, "big.txt", big) as agent:
        eng = agent.engine
        eng.actions.pin("f:big.txt")
        asm = eng.assemble(agent.runner.schemas(eng), auto_compact=False)
        rows = {r.id: r for r in build_rows(eng.all_items(), asm.trace, eng.turn, asm.breakdown.total)}
    note = next(r for r in rows.values() if r.preview.startswith("[file note: current text of big.txt"))
    assert note.in_request and note.tokens > 0
    assert rows["f:big.txt"].in_request and rows["f:big.txt"].tokens == 0
    framing = rows[FRAMING].tokens if FRAMING in rows else 0
    assert 0 <= framing < 200, framing
    assert sum(r.tokens for r in rows.values() if r.in_request) == asm.breakdown.total


async def test_pinning_a_file_too_large_to_carry_whole_says_how_much_is_carried(tmp_path: Path) -> None:
    """A pin said "(in, pinned)" while the window kept 388 of 22,000 lines, or only a pointer to an outline."""
    from agent_tui.core.file_items import partial_view

    root = make_repo(tmp_path / "repo")
    (root / "big.txt").write_text("".join(f"line {i} of the big text file\n" for i in range(22_000)))
    (root / "outlined.txt").write_text("".join(f"row {i} of another big file\n" for i in range(22_000)))
    (root / "small.txt").write_text("a\nb\nTRUNCATED = '[… truncated in the window; use read_file with line ranges]'\n")
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "outlined.txt"}),
                      Reply.tool_call("read_file", {"path": "small.txt"}), Reply.text("read"))
        agent, ws = make_agent(root, server.base_url)
        try:
            await run_turn(agent, "read the files")
            eng = agent.engine
            for path in ("big.txt", "outlined.txt", "small.txt"):
                eng.actions.pin(f"f:{path}")  # big.txt was never read: the pin reads it
            said = partial_view(eng, "f:big.txt")
            shown = eng.window.file_item(eng.files.files["big.txt"]).content
            outlined, small = partial_view(eng, "f:outlined.txt"), partial_view(eng, "f:small.txt")
        finally:
            ws.close()
    first = int(said.split("only its first ")[1].split(" of ")[0].replace(",", ""))
    assert said.endswith("of 22,000 lines fit in the window; read_file with line ranges shows the rest"), said
    assert 100 < first < 22_000 and f"line {first - 1} of" in shown and f"line {first + 1} of" not in shown
    assert outlined.startswith("it was read only as an outline or a range (22,000 lines)"), outlined
    assert small == ""  # it quotes the marker, and is whole


async def test_releasing_a_file_names_the_messages_that_still_show_its_text(tmp_path: Path) -> None:
    """Evicting ``f:src/util.py`` said "released" while the read's output and the file note kept its text in
    the request (the history is append-only between events): the user expected it gone."""
    from agent_tui.core.file_items import history_copies

    async with agent_that_read(tmp_path, "util.py", "def helper():\n    return 42\n") as agent:
        eng = agent.engine
        copies = history_copies(eng, "f:util.py")
        read = next(it.id for it in eng.items.values() if it.role == "tool" and it.name == "read_file")
        eng.actions.evict("f:util.py")
        after = history_copies(eng, "f:util.py")
    assert read in copies and all(eng.items[i].state == "in" for i in copies)
    assert after == []  # released: no longer an active file
