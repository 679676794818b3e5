"""A read of a large file is paid once: the model gets the outline (and later the ranges it reads)
in the tool results, and the active-file block names the file and its size instead of also
injecting an unrequested head of the raw text (issue 12, item 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.tokens import counter_for
from agent_tui.tools.fs_read import READ_TOKEN_CAP
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


def _big_module(classes: int) -> str:
    parts = []
    for c in range(classes):
        parts.append(f"class Stock{c}:\n    \"\"\"Stock ledger number {c}.\"\"\"\n\n")
        for m in range(6):
            parts.append(f"    def move_{m}(self, sku_{c}_{m}: str, qty: int) -> int:\n"
                         f"        total_{c}_{m} = qty * {m + 1} + len(sku_{c}_{m})\n"
                         f"        return total_{c}_{m} - {c}\n\n")
    return "".join(parts)


async def test_outline_read_is_not_paid_again_as_a_raw_head(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    text = _big_module(60)
    (root / "ledger.py").write_text(text)
    counter = counter_for("openai/gpt-4o")
    assert counter.count(text) > READ_TOKEN_CAP
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "ledger.py"}),
                      Reply.tool_call("read_file", {"path": "ledger.py", "start_line": 1, "end_line": 12}),
                      Reply.text("read it"))
        agent, ws = make_agent(root, server.base_url, window=32_000)
        try:
            await run_turn(agent, "What does ledger.py do?")
        finally:
            ws.close()
        after_outline, after_range = server.chat_requests[1], server.chat_requests[2]
    for req in (after_outline, after_range):
        # What the engine adds besides the tool results: the system message, the compaction block
        # and file notes. The file is named there with its size; its raw text is not.
        context = "\n".join(str(m.get("content")) for m in req.messages if m.get("role") in ("system", "user"))
        results = "\n".join(str(m.get("content")) for m in req.messages if m.get("role") == "tool")
        assert "### ledger.py (1620 lines" in context
        assert "def move_0(self, sku_0_0" not in context, "no raw head of the file outside what the model read"
        assert "is large" in results and "outline" in results
    ranged = "\n".join(str(m.get("content")) for m in after_range.messages if m.get("role") == "tool")
    assert "def move_0(self, sku_0_0" in ranged, "the range the model asked for is what it gets"
    notes = [str(m["content"]) for m in after_outline.messages if "### ledger.py" in str(m.get("content"))]
    assert notes and all(counter.count(n) < 80 for n in notes), notes


@pytest.mark.parametrize(("args", "line"), [({"start_line": 700, "end_line": 712}, 706),
                                            ({"end_line": 12}, 6),  # no start_line: still a range
                                            ({"end_line": 1620}, 6)])  # to the end, cut at the read cap
async def test_the_ranges_read_survive_a_compaction_event(tmp_path: Path, args: dict[str, int], line: int) -> None:
    """The real read_file records the range it showed (a start_line/end_line range, or the lines
    a read cut at the cap shows); after a compaction event (its output evicted) the block still
    carries those lines, with their line numbers."""
    root = make_repo(tmp_path / "repo")
    text = _big_module(60)
    (root / "ledger.py").write_text(text)
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "ledger.py", **args}),
                      *[Reply.tool_call("run_command", {"command": f"echo step {k}"}) for k in range(4)],
                      Reply.text("read it"), Reply.text("next"))
        agent, ws = make_agent(root, server.base_url, window=32_000)
        try:
            await run_turn(agent, "What does ledger.py do around line 700?")
            agent.engine.compact(force=True)
            await run_turn(agent, "And now?")
        finally:
            ws.close()
        last = server.chat_requests[-1]
    wanted = text.split("\n")[line - 1]  # inside the range read
    assert wanted.strip()
    tools = "\n".join(str(m.get("content")) for m in last.messages if m.get("role") == "tool")
    block = "\n".join(str(m.get("content")) for m in last.messages if m.get("role") == "system")
    assert wanted not in tools, "the read output was evicted by the event"
    assert f"{line:>6}\t{wanted}" in block
    if line > 100:
        assert text.split("\n")[0] not in block  # not the file's head
