"""Pilot test: ``/undo`` after a turn puts the file the agent edited back, says so in the flow, and the
model's next request shows the file as it is now."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.messages import FilesUndone
from agent_tui.ui.widgets.chat_items import EventNote

from .conftest import Recorder, demo_app, demo_task_approved, wait_for


async def test_undo_takes_back_the_turns_edit_and_the_model_sees_it(demo_workspace: Path, recorder: Recorder) -> None:
    stock = demo_workspace / "inventory" / "stock.py"
    original = stock.read_bytes()
    app = demo_app(demo_workspace)
    async with app.run_test(size=(120, 40), message_hook=recorder) as pilot:
        await demo_task_approved(pilot)
        assert b"qty <= threshold" in stock.read_bytes(), "the demo's edit was made"

        await pilot.press(*"/undo", "enter")
        await wait_for(pilot, lambda: recorder.of(FilesUndone), "the undo")

        assert stock.read_bytes() == original
        done = recorder.of(FilesUndone)[0]
        assert done.complete and done.text == "Undid turn 1: restored inventory/stock.py."
        await wait_for(pilot, lambda: any(n.render() and "Undid turn 1" in str(n.render())
                                          for n in app.main.conversation.query(EventNote)), "the note in the flow")
        ctl = app.controller
        assert ctl is not None
        with ctl.lock:
            sent = ctl.engine.assemble(ctl.schemas(), auto_compact=False).messages
        tail = "\n".join(str(m.get("content") or "") for m in sent[-3:])
        assert "inventory/stock.py" in tail and "changed on disk" in tail, "the next request tells the model"
        assert "qty < threshold" in tail
        assert "[Note from agent-tui: the user undid your file changes of turn 1: restored inventory/stock.py." in tail

        await pilot.press(*"/undo", "enter")
        await wait_for(pilot, lambda: len(recorder.of(FilesUndone)) == 2, "the second undo")
        again = recorder.of(FilesUndone)[1]
        assert not again.complete and again.text.startswith("Nothing left to undo")
        assert stock.read_bytes() == original
