"""Two agent-tui on one session (the TUI, and a ``run --session`` or a second TUI, which the app warns about but
allows): both runs' turns are kept, and a resume replays them as they were recorded.  Each engine numbered its
items from its own count, so both turns got the same positions; the resume interleaved them, the two user
messages merged into one and each tool result went past its call, sent as "interrupted before it finished"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.store.workspace import Workspace
from tests.agent.helpers import make_repo


def test_turns_of_two_instances_resume_in_the_order_they_were_made(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = make_repo(tmp_path / "proj")
    first = Workspace(root)
    eng = first.engine(new=True)
    sid = eng.session_id
    eng.add_user("first")
    eng.add_assistant("hello")
    eng.end_turn()
    a, b = Workspace(root), Workspace(root)  # both open the session now, with the same items
    try:
        eng_a, eng_b = a.engine(sid), b.engine(sid)
        for eng_, who in ((eng_b, "B"), (eng_a, "A")):  # B's whole turn, then A's
            eng_.add_user(f"DO: read {who}.txt")
            call = {"id": f"call_{who}", "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps({"path": f"{who}.txt"})}}
            eng_.add_assistant("", [call])
            eng_.add_tool_result(f"call_{who}", "read_file", f"1: the text of {who}.txt")
            eng_.add_assistant(f"{who} done")
            eng_.end_turn()
    finally:
        a.close()
        b.close()
        first.close()
    later = Workspace(root)
    try:
        messages = later.engine(sid).assemble(status=False, log=False).messages
    finally:
        later.close()
    text = json.dumps(messages)
    assert "interrupted before it finished" not in text, "a recorded result was replaced"
    assert "[next message from the user]" not in text, "the two users' messages were merged"
    said = [(m["role"], m.get("content") or "", [c["id"] for c in m.get("tool_calls") or []], m.get("tool_call_id"))
            for m in messages if m["role"] != "system"]
    turns = [s for s in said if "B.txt" in s[1] or "A.txt" in s[1] or s[2] or s[3] or s[1] in ("A done", "B done")]
    assert [(r, c.split(":")[0] if r == "tool" else c, calls, tid) for r, c, calls, tid in turns] == [
        ("user", "DO: read B.txt", [], None), ("assistant", "", ["call_B"], None), ("tool", "1", [], "call_B"),
        ("assistant", "B done", [], None),
        ("user", "DO: read A.txt", [], None), ("assistant", "", ["call_A"], None), ("tool", "1", [], "call_A"),
        ("assistant", "A done", [], None)]
