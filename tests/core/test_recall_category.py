"""The breakdown counts an item under the category the item has (what the inspector lists), wherever the
request carries it: a recalled memory (``rc…``, a user-role note in the history segment) is ``memory``, not
``history``.  And the breakdown's categories add up to its total (no overhead counted in none of them)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agent_tui.core.assembler import Assembly
from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine, EngineError
from agent_tui.core.items import Category, ContextItem
from tests.core.core_helpers import call, filler

TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "run_command", "description": "Run a shell command.",
                                      "parameters": {"type": "object",
                                                     "properties": {"command": {"type": "string"}}}}},
]


def _session(*, compact: bool = False) -> tuple[ContextEngine, ContextItem, Assembly]:
    """A demo-like session: one turn with a tool call, a memo, two more user messages, a recalled memo."""
    eng = ContextEngine(Settings.default(window=32_768))
    eng.set_system_prompt("You are a careful coding agent. " + filler("sys", 40))
    eng.add_user("Look at the parser and tell me what is left. " + filler("u1", 30))
    eng.add_assistant("Listing the files.", [call("c1", command="ls")])
    eng.add_tool_result("c1", "run_command", "parser.py\ncli.py\n" + filler("ls", 20))
    eng.add_assistant("The parser is done; the CLI is left. " + filler("a1", 20))
    eng.save_memo("the parser is done, the CLI is left " + filler("memo", 30))
    eng.end_turn()
    eng.add_user("Now the CLI. " + filler("u2", 20))
    eng.add_assistant("On it. " + filler("a2", 10))
    eng.end_turn()
    if compact:
        eng.compact(force=True)  # an event: the compaction block carries the memo
    eng.add_user("And keep the old flags. " + filler("u3", 20))
    recalled = eng.add_recalled([{"kind": "memo", "id": 1, "score": 0.8,
                                  "content": "the parser is done, the CLI is left " + filler("rc", 50)}])
    assert len(recalled) == 1
    asm = eng.assemble(tools=TOOLS)
    return eng, recalled[0], asm


def _sent_by_category(eng: ContextEngine, asm: Assembly) -> dict[str, int]:
    """What the trace says each item in the request cost, summed by the item's own category (as the inspector
    lists them; an id the engine does not know is a made-up tool result)."""
    sent: dict[str, int] = {}
    for t in asm.trace:
        if t.included:
            sent[t.item_id] = max(sent.get(t.item_id, 0), t.tokens)
    out: dict[str, int] = defaultdict(int)
    for item_id, n in sent.items():
        try:
            cat = str(eng.get(item_id).category)
        except EngineError:
            cat = str(Category.RESULTS)
        out[cat] += n
    return dict(out)


def test_recalled_memory_is_counted_under_its_own_category() -> None:
    eng, rc, asm = _session()
    assert rc.id.startswith("rc") and rc.category == Category.MEMORY
    assert rc.id in asm.item_ids
    rc_sent = next(t.tokens for t in asm.trace if t.item_id == rc.id and t.included)
    assert rc_sent >= rc.tokens > 0
    # the request layout is unchanged: the recalled memory is a user-role message of the history segment
    assert any(m["role"] == "user" and "(for reference, memo 1)" in (m["content"] or "") for m in asm.messages)

    cats = asm.breakdown.categories
    by_item = _sent_by_category(eng, asm)
    # memory holds the memo and the recalled memory; history holds only the history items
    assert cats["memory"] == by_item["memory"], (cats, by_item)
    assert cats["history"] == by_item["history"], (cats, by_item)
    # and every other category but system (the prompt plus framing) agrees with the items listed under it
    for c in ("rules", "tools", "summary", "files", "results"):
        assert cats[c] == by_item.get(c, 0), (c, cats, by_item)


def test_recalled_memory_after_a_compaction_event_is_still_memory() -> None:
    eng, rc, asm = _session(compact=True)
    assert rc.id in asm.item_ids
    assert [t.reason for t in asm.trace if t.item_id == "memo1" and t.included] == ["compaction block"]
    cats = asm.breakdown.categories
    by_item = _sent_by_category(eng, asm)
    assert cats["memory"] == by_item["memory"], (cats, by_item)
    assert cats["history"] == by_item["history"], (cats, by_item)


def test_breakdown_categories_add_up_to_its_total() -> None:
    for compact in (False, True):
        eng, _, asm = _session(compact=compact)
        bd = asm.breakdown
        assert sum(bd.categories.values()) == bd.total, (compact, bd.categories, bd.total)
        # so the system category is what the inspector lists under system: the prompt and the framing
        # (everything in the request that is not an item)
        others = sum(n for c, n in _sent_by_category(eng, asm).items() if c != "system")
        assert bd.categories["system"] == bd.total - others
        # the JSON the gauge and `context --json` show agrees too
        js = bd.to_json()
        assert sum(js["categories"].values()) == js["total"]


def test_categories_add_up_with_the_status_line_and_a_note() -> None:
    eng, _, _ = _session()
    asm = eng.assemble(tools=TOOLS, status_note="NOTE: the user undid an edit")
    assert "[context:" in asm.messages[-1]["content"]
    bd = asm.breakdown
    assert sum(bd.categories.values()) == bd.total, (bd.categories, bd.total)
