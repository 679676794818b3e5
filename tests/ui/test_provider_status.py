"""The TUI on Claude's wire format (a fake Anthropic Messages API through litellm): the gauge plans
claude-sonnet-4-5's 200,000-token window from litellm's metadata, and the status line's cost is
litellm's cache-aware price of exactly the usage the provider reported (cache writes and reads)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui.app import make_app
from agent_tui.ui.options import SessionSpec, UiOptions
from agent_tui.ui.widgets.status_line import StatusLine, cache_cost_text
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn

from .conftest import ready, turn_done

MODEL = "anthropic/claude-sonnet-4-5"


async def test_status_line_cost_is_litellms_cache_aware_cost_on_claude(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789abcdef")
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# Notes\nThe answer is 42.\n")
    with FakeAnthropic() as fake:
        fake.script(Turn(calls=[("read_file", {"path": "notes.md"})]), Turn(calls=[("list_dir", {"path": "."})]),
                    Turn(text="The answer is 42."))
        app = make_app(UiOptions(workspace=project, session=SessionSpec(model=MODEL, api_base=fake.base_url),
                                 theme="textual-dark"))
        async with app.run_test(size=(140, 36)) as pilot:
            await ready(pilot)
            assert app.main.budget.gauge.window == 200_000
            await pilot.press(*"what do the notes say?", "enter")
            await turn_done(pilot)
            await pilot.pause()
            status = app.main.query_one(StatusLine)
            shown = status.cost
            line = str(status.render())
    assert fake.rejections == [] and len(fake.usages) == 3
    assert fake.usages[-1]["cache_read_input_tokens"] > 0 and fake.usages[0]["cache_creation_input_tokens"] > 0
    price = litellm.get_model_info(MODEL)
    expected = sum(u["input_tokens"] * price["input_cost_per_token"]
                   + u["cache_read_input_tokens"] * price["cache_read_input_token_cost"]
                   + u["cache_creation_input_tokens"] * price["cache_creation_input_token_cost"]
                   + u["output_tokens"] * price["output_cost_per_token"] for u in fake.usages)
    assert shown == pytest.approx(expected, rel=1e-6)
    assert cache_cost_text(None, expected) in line
    plain = sum((u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"])
                * price["input_cost_per_token"] + u["output_tokens"] * price["output_cost_per_token"]
                for u in fake.usages)
    assert shown != pytest.approx(plain, rel=1e-3)  # the cache pricing made a difference


async def test_reasoning_is_shown_collapsed_before_its_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepSeek's reasoning_content (through litellm) becomes a collapsed 'thinking' block placed before
    the tool call it led to and before the answer it led to."""
    from textual.widgets import Collapsible

    from agent_tui.ui.widgets.chat_items import ThinkingBlock
    from agent_tui.ui.widgets.reply import AssistantReply
    from agent_tui.ui.widgets.tool_panel import ToolCallPanel
    from tests.support.fake_strict_openai import FakeStrictOpenAI

    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test-deepseek-0123456789")
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("# Notes\nThe answer is 42.\n")
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(Turn(thinking="I should read the notes.", calls=[("read_file", {"path": "notes.md"})]),
                    Turn(thinking="It says 42.\nAnswer briefly.", text="The answer is 42."))
        app = make_app(UiOptions(workspace=project, session=SessionSpec(model="deepseek/deepseek-reasoner",
                                                                        api_base=fake.base_url + "/v1"),
                                 theme="textual-dark"))
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot)
            await pilot.press(*"what do the notes say?", "enter")
            await turn_done(pilot)
            flow = [w for w in app.main.conversation.children
                    if isinstance(w, ThinkingBlock | ToolCallPanel | AssistantReply)]
            kinds = [type(w).__name__ for w in flow]
            blocks = [w for w in flow if isinstance(w, ThinkingBlock)]
            texts = [b.text for b in blocks]
            titles = [str(b.title) for b in blocks]
            collapsed = [b.collapsed for b in blocks]
            assert all(isinstance(b, Collapsible) for b in blocks)
            bars = list(app.main.budget.query("#bar-reasoning"))  # its own bar appeared (it used to crash)
            assert len(bars) == 1 and bars[0].category == "reasoning"
    assert fake.rejections == []
    assert kinds == ["ThinkingBlock", "ToolCallPanel", "ThinkingBlock", "AssistantReply"]
    assert texts == ["I should read the notes.", "It says 42.\nAnswer briefly."]
    assert titles == ["thinking · 1 line", "thinking · 2 lines"] and collapsed == [True, True]
