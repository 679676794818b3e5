"""write_file replaces a file only when the model was shown all of it.

A tester's model read a 1,800-line file (an outline came back: the file is over the read cap), then
wrote two lines over it; the write was accepted and 1,799 lines nobody had seen were gone.  The same
after reading lines 1-5 of a 100-line file.  The stale-read check only compared hashes, and a partial
read records the hash of the whole text.  These run the real tools with the real engine's context
(``EngineToolContext``), the one the agent loop uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.toolctx import EngineToolContext
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.tools.base import ToolResult
from agent_tui.tools.builtin import builtin_registry

BIG = "".join(f"def func_{i}(x):\n    return x * {i}  # some explanation text here\n\n" for i in range(600))
SMALL = "".join(f"line {i}\n" for i in range(1, 101))


class Tools:
    def __init__(self, ws: Path) -> None:
        self.ws = ws
        self.engine = ContextEngine(Settings.default(window=200_000), workspace=ws)
        self.engine.add_user("tidy the files")
        self.ctx = EngineToolContext(self.engine, ws)
        self.reg = builtin_registry()

    async def __call__(self, name: str, **args: Any) -> ToolResult:
        return await self.reg.run(name, args, self.ctx)


@pytest.fixture
def tools(tmp_path: Path) -> Tools:
    (tmp_path / "big.py").write_text(BIG)
    (tmp_path / "c.txt").write_text(SMALL)
    return Tools(tmp_path)


async def test_a_file_seen_as_an_outline_is_not_overwritten(tools: Tools) -> None:
    read = await tools("read_file", path="big.py")
    assert "outline" in read.text and not read.is_error
    result = await tools("write_file", path="big.py", content="def func_0(x):\n    return 0\n")
    assert result.is_error and "seen only part of 'big.py'" in result.text and "1,800 lines" in result.text
    assert (tools.ws / "big.py").read_text() == BIG


@pytest.mark.parametrize("args", [{"start_line": 1, "end_line": 5}, {"query": "line 42"}, {"start_line": 50}])
async def test_a_file_seen_in_part_is_not_overwritten(tools: Tools, args: dict[str, Any]) -> None:
    assert not (await tools("read_file", path="c.txt", **args)).is_error
    result = await tools("write_file", path="c.txt", content="only this\n")
    assert result.is_error and "seen only part" in result.text and "edit_file" in result.text
    assert (tools.ws / "c.txt").read_text() == SMALL


async def test_ranges_that_cover_every_line_allow_the_write(tools: Tools) -> None:
    await tools("read_file", path="c.txt", start_line=1, end_line=60)
    refused = await tools("write_file", path="c.txt", content="x\n")
    assert refused.is_error and "60 of its 100 lines" in refused.text
    await tools("read_file", path="c.txt", start_line=61, end_line=100)
    done = await tools("write_file", path="c.txt", content="x\n")
    assert not done.is_error, done.text
    assert (tools.ws / "c.txt").read_text() == "x\n"


async def test_a_whole_read_or_the_models_own_write_allows_the_next_write(tools: Tools) -> None:
    await tools("read_file", path="c.txt")
    assert not (await tools("write_file", path="c.txt", content="one\n")).is_error
    assert not (await tools("write_file", path="c.txt", content="two\n")).is_error  # it wrote all of it
    assert not (await tools("edit_file", path="c.txt", old_text="two", new_text="three")).is_error
    assert not (await tools("write_file", path="c.txt", content="four\n")).is_error  # an edit of a whole view
    assert (tools.ws / "c.txt").read_text() == "four\n"


async def test_an_edit_of_a_file_seen_in_part_does_not_make_it_seen_whole(tools: Tools) -> None:
    await tools("read_file", path="c.txt", start_line=1, end_line=5)
    assert not (await tools("edit_file", path="c.txt", old_text="line 3\n", new_text="line three\n")).is_error
    result = await tools("write_file", path="c.txt", content="x\n")
    assert result.is_error and "seen only part" in result.text
    assert "line 99" in (tools.ws / "c.txt").read_text()


async def test_a_part_read_after_a_whole_read_of_the_same_text_keeps_it_whole(tools: Tools) -> None:
    await tools("read_file", path="c.txt")
    await tools("read_file", path="c.txt", start_line=10, end_line=12)
    assert not (await tools("write_file", path="c.txt", content="x\n")).is_error


async def test_what_was_seen_comes_back_with_a_resumed_session(tools: Tools) -> None:
    """The engine keeps it with the active file's row: a resumed session does not forget it saw only a part."""
    from agent_tui.core.file_items import active_from_row, file_row

    await tools("read_file", path="c.txt", start_line=1, end_line=5)
    af = tools.engine.files.files["c.txt"]
    back = active_from_row(file_row(af, tokens=10))
    assert back.seen == af.seen and back.seen_part == [(1, 5)]
    await tools("read_file", path="c.txt")
    whole = active_from_row(file_row(tools.engine.files.files["c.txt"], tokens=10))
    assert whole.seen_part is None


async def test_a_file_the_user_pins_is_seen_only_once_a_request_shows_it(tools: Tools) -> None:
    """Pinning brings a file in by the user's hand: the model has not seen it until a request carries it, so a
    call already on its way is not based on it; the request that shows it whole makes it known whole."""
    (tools.ws / "p.txt").write_text("pinned\ntext\n")
    tools.engine.pin("f:p.txt")
    refused = await tools("edit_file", path="p.txt", old_text="pinned", new_text="PINNED")
    assert refused.is_error and "read 'p.txt' first" in refused.text
    asm = tools.engine.assemble()
    assert "pinned\ntext" in "\n".join(str(m.get("content")) for m in asm.messages)
    tools.engine.request_sent(asm)
    assert not (await tools("edit_file", path="p.txt", old_text="pinned", new_text="PINNED")).is_error
    assert not (await tools("write_file", path="p.txt", content="x\n")).is_error


async def test_a_save_between_the_loops_assembly_and_its_send_is_not_seen(tmp_path: Path) -> None:
    """The request sent is the one the loop assembled: an assembly in between (the UI's gauge, /threshold in
    its thread) re-reads a save, but the model is shown only what the loop's request carries."""
    (tmp_path / "n.md").write_text("# Notes\n- one\n")
    t = Tools(tmp_path)
    await t("read_file", path="n.md")
    asm = t.engine.assemble()
    (tmp_path / "n.md").write_text("# Notes\n- one\n- USER SAVE\n")
    t.engine.assemble(auto_compact=False, log=False)
    t.engine.request_sent(asm)
    assert (await t("write_file", path="n.md", content="# Notes\n- One\n")).is_error
    assert "USER SAVE" in (tmp_path / "n.md").read_text()


async def test_a_pin_adopted_from_another_process_is_not_seen(tmp_path: Path) -> None:
    from agent_tui.core.file_items import file_row

    (tmp_path / "p.txt").write_text("pinned\ntext\n")
    cli = Tools(tmp_path)
    cli.engine.pin("f:p.txt")  # `agent-tui memory pin f:p.txt`
    tui = Tools(tmp_path)
    assert tui.engine.window.ledger.adopt(tui.engine, [file_row(cli.engine.files.files["p.txt"], tokens=5)])
    assert (await tui("edit_file", path="p.txt", old_text="pinned", new_text="PINNED")).is_error


async def test_a_row_from_before_the_view_was_kept_comes_back_seen_in_part(tools: Tools) -> None:
    from agent_tui.core.file_items import active_from_row, file_row

    t = tools
    await t("read_file", path="big.py")  # an outline
    row = file_row(t.engine.files.files["big.py"], tokens=10)
    del row.provenance["seen_part"], row.provenance["seen"]  # as the previous version wrote it
    t.engine.files.files["big.py"] = active_from_row(row)
    assert (await t("write_file", path="big.py", content="x\n")).is_error
    assert (t.ws / "big.py").read_text() == BIG


async def test_ranges_covering_every_line_make_the_file_known_whole(tools: Tools) -> None:
    """Read by ranges, then edited, then written whole: the ranges made it known whole, and an edit keeps that."""
    await tools("read_file", path="c.txt", start_line=1, end_line=60)
    await tools("read_file", path="c.txt", start_line=61, end_line=100)
    assert tools.engine.files.files["c.txt"].seen_part is None
    assert not (await tools("edit_file", path="c.txt", old_text="line 7\n", new_text="line seven\n")).is_error
    assert not (await tools("write_file", path="c.txt", content="x\n")).is_error
