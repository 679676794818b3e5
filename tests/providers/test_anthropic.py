"""Claude through litellm's real Anthropic conversion, against a fake Messages API that rejects
what Anthropic rejects: a 5-step tool loop with extended thinking (signed blocks sent back), a
malformed call and a ``max_tokens`` cut mid-``tool_use``, then a next turn; prompt caching and
its cost on the wire."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent, turn_without_reasoning
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn

MODEL = "anthropic/claude-sonnet-4-5"
TABLE = {"thinking": 2048, "max_output_tokens": 8192, "temperature": 0.1}


def _loop() -> list[Turn]:
    return [
        Turn(thinking="First read the code.", calls=[("read_file", {"path": "calc.py"})]),
        Turn(thinking="List the folder.", calls=[("list_dir", '{"path": ".", ')]),  # malformed
        Turn(thinking="Write a helper.", calls=[("write_file", '{"path": "helper.py", "content": "def h(')],
             finish="length"),  # cut mid-tool_use by max_tokens
        Turn(thinking="Fix add.", calls=[("edit_file", {"path": "calc.py", "old_text": "return a - b",
                                                        "new_text": "return a + b"})]),
        Turn(thinking="Done.", text="Fixed add in calc.py."),
    ]


async def test_five_step_tool_loop_with_thinking_then_next_turn(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(*_loop())
        agent, ws = provider_agent(root, MODEL, fake.base_url, TABLE)
        try:
            events = await run_turn(agent, "fix add in calc.py")
            fake.script(Turn(thinking="Easy.", text="Still here."))
            second = await run_turn(agent, "are you there?")
        finally:
            ws.close()
    assert fake.rejections == []
    assert len(fake.answered) == 6
    assert "return a + b" in (root / "calc.py").read_text() and not (root / "helper.py").exists()
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished)]
    assert [e.is_error for e in finished] == [False, True, True, False]
    assert "cut off by the output limit" in finished[2].text
    assert events[-1].status == "done" and events[-1].text == "Fixed add in calc.py."
    assert second[-1].status == "done" and second[-1].text == "Still here."
    reasoning = [e.reasoning for e in events if isinstance(e, ev.AssistantMessage)]
    assert reasoning[0] == "First read the code."
    for req in fake.answered:  # temperature 0.1 is configured but never sent with thinking
        assert "temperature" not in req.body and req.body["max_tokens"] == 8192
    step2 = fake.answered[1].body["messages"]
    assistant = [m for m in step2 if m["role"] == "assistant"][-1]
    assert assistant["content"][0]["type"] == "thinking" and assistant["content"][0]["signature"]
    budgets = [e for e in events if isinstance(e, ev.BudgetUpdated)]
    assert "reasoning" not in budgets[0].categories and budgets[1].categories["reasoning"] > 0


async def test_without_the_thinking_blocks_anthropic_rejects_step_two(tmp_path: Path, monkeypatch) -> None:
    """The fake really checks: drop the kept blocks and step 2 is refused (as on main before)."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        events = await turn_without_reasoning(monkeypatch, root, fake, _loop()[:2], MODEL, fake.base_url, TABLE)
    assert fake.rejections and "Expected `thinking`" in fake.rejections[0]
    assert events[-1].status == "error"


async def test_cache_breakpoints_reads_and_cost(tmp_path: Path) -> None:
    import litellm

    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(calls=[("list_dir", {"path": "."})]), Turn(calls=[("git_status", {})]), Turn(text="ok"))
        agent, ws = provider_agent(root, MODEL, fake.base_url, {})
        try:
            events = await run_turn(agent, "look around")
        finally:
            ws.close()
    assert fake.rejections == []
    for req in fake.answered:
        marks = [b for m in req.body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])
                 if isinstance(b, dict) and "cache_control" in b]
        system_marked = any("cache_control" in b for b in req.body.get("system") or [])
        assert marks and system_marked
    usages = [e for e in events if isinstance(e, ev.Usage)]
    assert [u.cached_tokens for u in usages] == [u["cache_read_input_tokens"] for u in fake.usages]
    assert [u.cache_write_tokens for u in usages] == [u["cache_creation_input_tokens"] for u in fake.usages]
    assert usages[1].cached_tokens > 0 and usages[2].cache_hit_pct > 50
    price = litellm.model_cost["claude-sonnet-4-5"]
    expected = sum(u["input_tokens"] * price["input_cost_per_token"]
                   + u["cache_read_input_tokens"] * price["cache_read_input_token_cost"]
                   + u["cache_creation_input_tokens"] * price["cache_creation_input_token_cost"]
                   + u["output_tokens"] * price["output_cost_per_token"] for u in fake.usages)
    assert usages[-1].session_cost_usd == pytest.approx(expected, rel=1e-6)


async def test_unpriced_model_is_said_once_and_configured_prices_are_cache_aware(tmp_path: Path) -> None:
    """litellm 1.110 has no price for claude-opus-4-1: say so once (cost and max_cost would silently be 0);
    with prices in its [models."x"] table the cost is computed from them, cache reads and writes included."""
    root = make_repo(tmp_path / "p")
    model = "anthropic/claude-opus-4-1"
    prices = {"input_cost_per_token": 15e-6, "output_cost_per_token": 75e-6,
              "cache_read_input_token_cost": 1.5e-6, "cache_creation_input_token_cost": 18.75e-6}
    runs = []
    for table in ({}, prices):
        with FakeAnthropic() as fake:
            fake.script(Turn(calls=[("list_dir", {"path": "."})]), Turn(calls=[("git_status", {})]), Turn(text="ok"))
            agent, ws = provider_agent(root, model, fake.base_url, table)
            try:
                runs.append((await run_turn(agent, "look around"), list(fake.usages)))
            finally:
                ws.close()
    (bare, _), (priced, usages) = runs
    notices = [e.message for e in bare if isinstance(e, ev.ErrorEvent)]
    assert len(notices) == 1 and f'No price is known for {model}' in notices[0]
    assert f'[models."{model}"]' in notices[0] and bare[-1].status == "done"
    assert not [e for e in priced if isinstance(e, ev.ErrorEvent)]
    expected = sum(u["input_tokens"] * prices["input_cost_per_token"]
                   + u["cache_read_input_tokens"] * prices["cache_read_input_token_cost"]
                   + u["cache_creation_input_tokens"] * prices["cache_creation_input_token_cost"]
                   + u["output_tokens"] * prices["output_cost_per_token"] for u in usages)
    assert any(u["cache_read_input_tokens"] for u in usages)
    assert [e for e in priced if isinstance(e, ev.Usage)][-1].session_cost_usd == pytest.approx(expected, rel=1e-6)


async def test_reading_a_file_keeps_the_head_of_the_prompt_cached(tmp_path: Path) -> None:
    """Active files change on every read and edit; they live in the compaction block and in file
    notes, never in the head, so those steps still read the prompt's head from Anthropic's cache."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(calls=[("read_file", {"path": "calc.py"})]),
                    Turn(calls=[("read_file", {"path": "test_calc.py"})]),
                    Turn(calls=[("edit_file", {"path": "calc.py", "old_text": "return a - b",
                                               "new_text": "return a + b"})]),
                    Turn(calls=[("git_status", {})]), Turn(text="ok"))
        agent, ws = provider_agent(root, MODEL, fake.base_url, {})
        try:
            events = await run_turn(agent, "fix add")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    assert all(u["cache_read_input_tokens"] > 0 for u in fake.usages[1:]), fake.usages
    system = fake.answered[2].body["system"]  # the head: the files live in the block and in file notes
    assert "cache_control" in system[0] and not any("## Active files" in b["text"] for b in system[:1])


# ---- the fake refuses what Anthropic refuses (raw requests, no litellm in between) -------------------
def _use(i: str = "toolu_1") -> dict:
    return {"type": "tool_use", "id": i, "name": "read_file", "input": {"path": "a.py"}}


def _result(i: str = "toolu_1") -> dict:
    return {"type": "tool_result", "tool_use_id": i, "content": "x"}


def _text(t: str = "go") -> dict:
    return {"type": "text", "text": t}


@pytest.mark.parametrize(("messages", "needle"), [
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_use("toolu_1"), _use("toolu_2")]},
      {"role": "user", "content": [_result("toolu_1"), _text()]}],
     "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_2"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_use()]},
      {"role": "user", "content": [_text(), _result()]}],
     "Did not find 1 `tool_result` block(s) at the beginning of this message"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_use()]},
      {"role": "user", "content": [_result(), _result()]}], "each tool_use must have a single result"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_use()]},
      {"role": "assistant", "content": [_text("hm")]}], "were found without `tool_result` blocks"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_text("\n\n"), _use()]},
      {"role": "user", "content": [_result()]}], "text content blocks must contain non-whitespace text"),
    ([{"role": "user", "content": [_text("")]}], "text content blocks must be non-empty"),
    ([{"role": "user", "content": [{**_text(""), "cache_control": {"type": "ephemeral"}}]}],
     "cache_control cannot be set for empty text blocks"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": []}, {"role": "user", "content": "x"}],
     "all messages must have non-empty content"),
    ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [_use()]},
      {"role": "user", "content": [_result()]}, {"role": "assistant", "content": [_use()]},
      {"role": "user", "content": [_result()]}], "`tool_use` ids must be unique"),
])
def test_fake_anthropic_refuses_what_anthropic_refuses(messages: list[dict], needle: str) -> None:
    import httpx

    with FakeAnthropic() as fake:
        r = httpx.post(f"{fake.base_url}/v1/messages", json={"model": "claude-sonnet-4-5", "max_tokens": 100,
                                                             "messages": messages},
                       timeout=60)  # (the fake's first check imports litellm: seconds on a busy machine)
    assert r.status_code == 400 and needle in r.json()["error"]["message"], r.json()


def test_fake_anthropic_accepts_results_first_then_text() -> None:
    import httpx

    with FakeAnthropic() as fake:
        r = httpx.post(f"{fake.base_url}/v1/messages", json={"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
            {"role": "user", "content": "go"}, {"role": "assistant", "content": [_text("Reading."), _use()]},
            {"role": "user", "content": [_result(), _text("[file note: a.py]")]}]}, timeout=60)
    assert r.status_code == 200
