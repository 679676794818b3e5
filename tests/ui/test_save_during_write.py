"""A save the user makes while the model's write is on its way is never overwritten.

A tester saved notes.md in an editor while the model's reply (a write_file built from its earlier
read) was streaming, then typed ``/threshold 60``.  The threshold change assembled the request to
show the new gauge; the assembly re-read notes.md and recorded the new text as what the model had
seen, so the write already on its way passed the stale-read check and the user's line was gone.
Without the ``/threshold`` the write was refused.  Now only a request sent to the model moves what it
has seen (``ContextEngine.request_sent``), however often the UI assembles one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL, PLANTED_KEY
from tests.ui.conftest import ready, wait_for

SAVED = "# Notes\n- item one\n- USER'S NEW ITEM saved in the editor\n"


@pytest.mark.parametrize("action", ["/threshold 60", "/compact"])
async def test_a_save_during_the_models_write_survives_a_command_that_assembles(
        fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, action: str) -> None:
    xdg = tmp_path / "xdg"
    (xdg / "agent-tui").mkdir(parents=True)
    (xdg / "agent-tui" / "config.toml").write_text('[approval]\ndefault_write = "allow"\n')  # writes are not asked
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED_KEY)
    project = tmp_path / "project"
    project.mkdir()
    notes = project / "notes.md"
    notes.write_text("# Notes\n- item one\n")
    fake_llm.script(Reply.tool_call("read_file", {"path": "notes.md"}),
                    Reply.tool_call("write_file", {"path": "notes.md", "content": "# Notes\n\n- Item one\n"}, delay=3.0),
                    Reply.text("done"))
    app = make_app(UiOptions(workspace=project, session=SessionSpec(model=FAKE_MODEL, api_base=fake_llm.base_url),
                             theme="textual-dark", mcp=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"tidy notes.md", "enter")
        await wait_for(pilot, lambda: any(m.get("role") == "tool" for r in fake_llm.requests
                                          for m in r.body.get("messages", [])), "the request answered by the write")
        await pilot.pause(0.3)
        notes.write_text(SAVED)  # the user's save, while the write is on its way
        await pilot.press(*action, "enter")
        await wait_for(pilot, lambda: _results(fake_llm, "notes.md"), "the write's result", timeout=60)
        await wait_for(pilot, lambda: not app.turn_running, "the end of the turn", timeout=60)
    assert notes.read_text() == SAVED
    assert "changed on disk since you last read it" in _results(fake_llm, "notes.md")[0]


def _results(fake: FakeOpenAI, path: str) -> list[str]:
    """What the write_file calls on ``path`` returned, as the requests after them carry it."""
    out: list[str] = []
    for r in fake.requests:
        msgs = r.body.get("messages", []) if r.body else []
        writes = {c["id"] for m in msgs for c in m.get("tool_calls") or []
                  if c["function"]["name"] == "write_file" and path in c["function"]["arguments"]}
        out = [str(m.get("content")) for m in msgs if m.get("role") == "tool" and m.get("tool_call_id") in writes] or out
    return out
