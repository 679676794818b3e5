"""An item's one-line preview (the inspector's column, `memory list`): an assistant message that only
called tools showed an empty preview, so its row said nothing of what it did."""

from __future__ import annotations

from agent_tui.core.items import Category, ContextItem
from tests.core.core_helpers import call


def _reply(text: str, *calls: dict[str, object]) -> ContextItem:
    return ContextItem(id="m3", category=Category.HISTORY, content=text, tokens=5, role="assistant",
                       tool_calls=list(calls) or None)


def test_a_tool_call_reply_previews_its_calls() -> None:
    only = _reply("", call("c1", name="read_file", path="src/app.py"), call("c2", command="pytest -q"))
    assert only.preview(200) == '→ read_file("path": "src/app.py") → run_command("command": "pytest -q")'
    said = _reply("Reading it.", call("c1", name="read_file", path="a.py"))
    assert said.preview(200) == 'Reading it. → read_file("path": "a.py")'
    assert len(only.preview(20)) == 20 and only.preview(20).endswith("…")
    assert _reply("plain answer").preview() == "plain answer"
    odd = _reply("", {"id": "x", "type": "function", "function": {"name": "git_status", "arguments": "{}"}},
                 {"id": "y"})
    assert odd.preview() == "→ git_status() → (tool call)"
