"""Active files persist with the session: `--session ID` brings them back with the same ids and
text, the CLI lists and shows them, and pin / evict (release) work and are in the trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.store.store import MemoryStore
from tests.agent.helpers import make_repo
from tests.support.binary import agent_tui, memory_rows, run_json
from tests.support.fake_openai import FakeOpenAI, Reply


def _system_text(messages: list[dict[str, Any]]) -> str:
    """The leading system messages of a request: the head and the compaction block."""
    out = []
    for m in messages:
        if m["role"] != "system":
            break
        out.append(str(m["content"]))
    return "\n".join(out)


def test_active_file_comes_back_with_the_session_and_can_be_pinned_and_released(tmp_path: Path,
                                                                                  fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.tool_call("read_file", {"path": "calc.py"}), Reply.text("add() subtracts."))
    first = run_json(root, fake_llm, "look at calc.py")
    assert first.returncode == 0, first.stderr
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    sid = store.latest_session()
    store.close()
    rows = memory_rows(root)
    assert rows["f:calc.py"]["category"] == "files" and rows["f:calc.py"]["state"] == "in"
    shown = agent_tui(root, "memory", "show", "f:calc.py", "--json")
    assert "return a - b" in json.loads(shown.stdout)["content"]

    fake_llm.clear()
    fake_llm.script(Reply.text("still there"))
    again = run_json(root, fake_llm, "is calc.py still in view?", "--session", sid)
    assert again.returncode == 0, again.stderr
    system = _system_text(fake_llm.requests[0].messages)  # head + compaction block
    assert "### calc.py" in system and "return a - b" in system  # same id, same text, back in the request

    assert agent_tui(root, "memory", "pin", "f:calc.py").returncode == 0
    assert memory_rows(root)["f:calc.py"]["pinned"]
    evicted = agent_tui(root, "memory", "evict", "f:calc.py")
    assert evicted.returncode == 0, evicted.stderr
    assert memory_rows(root)["f:calc.py"]["state"] == "released"
    fake_llm.clear()
    fake_llm.script(Reply.text("gone"))
    assert run_json(root, fake_llm, "and now?", "--session", sid).returncode == 0
    assert "### calc.py" not in _system_text(fake_llm.requests[0].messages)
    store = MemoryStore.open(root / ".agent-tui" / "memory.db")
    trace = store.assemblies(sid, limit=50)
    store.close()
    assert any(t["item_id"] == "f:calc.py" and "released by the user" in t["reason"]
               for a in trace for t in a["trace"])
