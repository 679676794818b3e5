"""A session's opening warning (a model whose window is unknown) is shown once per app, not again at every /new."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.app import make_app
from agent_tui.ui.messages import SessionOpened
from agent_tui.ui.options import SessionSpec, UiOptions
from tests.support.fake_openai import FakeOpenAI

from .conftest import Recorder, ready, wait_for


async def test_the_unknown_window_warning_is_shown_once(fake_llm: FakeOpenAI, tmp_path: Path, recorder: Recorder,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000000000")
    shown: list[str] = []
    app = make_app(UiOptions(workspace=tmp_path, theme="textual-dark",
                             session=SessionSpec(model="openai/no-such-model-anywhere", api_base=fake_llm.base_url)))
    real_notify = app.notify

    def notify(message: str, **kw: object) -> None:
        shown.append(message)
        real_notify(message, **kw)  # type: ignore[arg-type]

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30), message_hook=recorder) as pilot:
        await ready(pilot)
        for n in (2, 3):
            await pilot.press(*"/new", "enter")
            await wait_for(pilot, lambda n=n: len(recorder.of(SessionOpened)) >= n, "the next session")
            await pilot.pause()
        assert len({m.session_id for m in recorder.of(SessionOpened)}) == 3
        assert sum("unknown window for openai/no-such-model-anywhere" in m for m in shown) == 1, shown
