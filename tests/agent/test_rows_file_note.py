"""The inspector's rows add up to the gauge: an active file whose text a file note carries is not counted
again (it showed the file twice, and a negative "(framing)" row made the total come out)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.rows import FRAMING, build_rows
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


async def test_a_pinned_file_carried_by_its_file_note_is_counted_once(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "big.txt").write_text("".join(f"line {i} of the big text file\n" for i in range(22_000)))
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "big.txt"}), Reply.text("read"))
        agent, ws = make_agent(root, server.base_url)
        try:
            await run_turn(agent, "read big.txt")
            eng = agent.engine
            eng.actions.pin("f:big.txt")
            asm = eng.assemble(agent.runner.schemas(eng), auto_compact=False)
            rows = {r.id: r for r in build_rows(eng.all_items(), asm.trace, eng.turn, asm.breakdown.total)}
        finally:
            ws.close()
    note = next(r for r in rows.values() if r.preview.startswith("[file note: current text of big.txt"))
    assert note.in_request and note.tokens > 0
    assert rows["f:big.txt"].in_request and rows["f:big.txt"].tokens == 0
    framing = rows[FRAMING].tokens if FRAMING in rows else 0
    assert 0 <= framing < 200, framing
    assert sum(r.tokens for r in rows.values() if r.in_request) == asm.breakdown.total
