"""GPT-5/o-series, DeepSeek (thinking) and Ollama through litellm's real conversions, against fakes
that reject what those APIs reject: each completes a 5-step tool loop with a malformed call,
then a next turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_dialect import FakeDialect, Turn
from tests.support.fake_ollama import FakeOllama
from tests.support.fake_strict_openai import FakeStrictOpenAI


def _loop(malformed: tuple[str, dict | str]) -> list[Turn]:
    return [
        Turn(thinking="Read first.", calls=[("read_file", {"path": "calc.py"})]),
        Turn(thinking="Look around.", calls=[malformed]),
        Turn(thinking="Fix it.", calls=[("edit_file", {"path": "calc.py", "old_text": "return a - b",
                                                       "new_text": "return a + b"})]),
        Turn(thinking="Check.", calls=[("git_status", {})]),
        Turn(thinking="Report.", text="Fixed."),
    ]


async def _run(root: Path, fake: FakeDialect, model: str, base: str, table: dict, malformed: tuple) -> tuple:
    fake.script(*_loop(malformed))
    agent, ws = provider_agent(root, model, base, table)
    try:
        events = await run_turn(agent, "fix add in calc.py")
        fake.script(Turn(text="next turn ok"))
        second = await run_turn(agent, "thanks")
    finally:
        ws.close()
    return events, second


def _assert_loop(root: Path, fake: FakeDialect, events: list, second: list) -> None:
    assert fake.rejections == []
    assert len(fake.answered) == 6
    assert "return a + b" in (root / "calc.py").read_text()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [e.is_error for e in finished] == [False, True, False, False]
    assert events[-1].status == "done" and events[-1].text == "Fixed."
    assert second[-1].status == "done" and second[-1].text == "next turn ok"


async def test_openai_reasoning_model_loop(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("reasoning") as fake:
        events, second = await _run(root, fake, "openai/o4-mini", fake.base_url + "/v1",
                                    {"reasoning_effort": "low", "max_output_tokens": 8000},
                                    ("list_dir", '{"path": ".", '))
    _assert_loop(root, fake, events, second)
    assert all(r.body.get("reasoning_effort") == "low" and r.body.get("max_completion_tokens") == 8000
               for r in fake.answered)
    usages = [e for e in events if isinstance(e, ev.Usage)]
    assert usages[0].reasoning_tokens > 0 and any(u.cached_tokens > 0 for u in usages[1:])


async def test_deepseek_thinking_gets_reasoning_content_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        events, second = await _run(root, fake, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {},
                                    ("list_dir", '{"path": ".", '))
    _assert_loop(root, fake, events, second)
    step2 = fake.answered[1].body["messages"]
    assert [m.get("reasoning_content") for m in step2 if m["role"] == "assistant"][-1] == "Read first."
    assert [e.reasoning for e in events if isinstance(e, ev.AssistantMessage)][0] == "Read first."


async def test_deepseek_without_reasoning_content_is_rejected(tmp_path: Path, monkeypatch) -> None:
    from agent_tui.agent import loop

    monkeypatch.setattr(loop.Agent, "_reasoning_map", lambda self: {})
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(*_loop(("list_dir", {"path": "."}))[:2])
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {})
        try:
            events = await run_turn(agent, "fix")
        finally:
            ws.close()
    assert fake.rejections and "reasoning_content" in fake.rejections[0]
    assert events[-1].status == "error"


@pytest.mark.parametrize("model", ["ollama/qwen2.5-coder", "ollama_chat/qwen2.5-coder"])
async def test_ollama_chat_loop_with_num_ctx(tmp_path: Path, model: str) -> None:
    root = make_repo(tmp_path / "p")
    with FakeOllama() as fake:
        events, second = await _run(root, fake, model, fake.base_url, {}, ("list_dirs", {"path": "."}))
    _assert_loop(root, fake, events, second)
    assert all(r.path.endswith("/api/chat") for r in fake.answered)
    assert fake.num_ctx and all(n == 64_000 for n in fake.num_ctx)
