"""The recall tool never pays twice for text the model already has: what matched but is in the
window (the asking message, a read still in, the current memo) is named by id, not repeated, and
does not take a place from what compaction took out."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.toolctx import EngineToolContext
from agent_tui.core.config import Settings
from agent_tui.core.items import State
from agent_tui.store.workspace import Workspace
from agent_tui.tools.memory_tools import format_memories, recall
from tests.core.core_helpers import filler


async def test_recall_names_in_window_matches_and_returns_what_left_the_window(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, settings=Settings.default(window=32_000))
    try:
        eng = ws.engine(new=True)
        eng.add_user("Note: the quokka migration checklist lives in docs/quokka.md " + filler("a", 10))
        eng.add_assistant("Understood.")
        eng.add_user("Go on with the release notes.")
        gone = eng.evict("m1")
        assert gone.state == State.EVICTED
        eng.save_memo("quokka migration: step 2 of the checklist done, step 3 left")
        eng.add_user("What did we say about the quokka migration checklist?")
        asking = eng.order[-1]
        result = await recall({"query": "quokka migration checklist", "limit": 1}, EngineToolContext(eng, tmp_path, ws.store))
    finally:
        ws.close()
    lines = result.text.splitlines()
    assert lines[0] == "1 memory for 'quokka migration checklist' (for reference):"
    assert lines[1].startswith(f"[m1@{eng.session_id} ") and "docs/quokka.md" in lines[1]
    memo = next(it.id for it in eng.all_items() if it.id.startswith("memo") and it.state == State.IN)
    assert lines[2].startswith("Also matched, already in your context: ")
    named = lines[2].removeprefix("Also matched, already in your context: ").rstrip(".").split(", ")
    assert named == [memo], "the current memo is named, not repeated; the asking message is not news to anyone"
    assert asking not in result.text
    assert "step 3 left" not in result.text and len(lines) == 3
    assert result.meta["ids"] == [f"m1@{eng.session_id}"]


def test_only_in_context_matches_say_so() -> None:
    text = format_memories("deploy", [{"id": "m4@s1", "kind": "archive", "content": "deploy with make", "score": 0.9,
                                       "in_context": True}])
    assert text == "No memories match 'deploy' beyond your context. Also matched, already in your context: m4."
    assert format_memories("deploy", []) == "No memories match 'deploy'."
