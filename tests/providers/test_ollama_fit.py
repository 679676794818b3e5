"""An Ollama request leaves room for its answer inside ``num_ctx``, or is not sent.

Ollama refuses nothing: a prompt past ``num_ctx`` loses its oldest messages, and an answer past it shifts
the context, without a word.  When the request is over the engine's budget (what must stay is more than
the budget: here a task longer than the window's input share), agent-tui used to send the configured
``num_predict`` anyway (prompt + answer past ``num_ctx``), and a prompt past ``num_ctx`` itself."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.llm_errors import ContextOverflow
from agent_tui.agent.llm_types import LLMConfig
from agent_tui.agent.ollama_fit import MIN_ANSWER, fit_answer
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_dialect import Turn
from tests.support.fake_ollama import FakeOllama

WINDOW = 8_000
ANSWER = 2_048


def test_the_answer_limit_is_lowered_to_the_room_left_and_only_for_ollama() -> None:
    ollama = LLMConfig(model="ollama_chat/qwen2.5-coder", num_ctx=WINDOW, max_output_tokens=ANSWER)
    assert fit_answer(ollama, 4_000) is ollama  # room for the whole answer: unchanged
    lowered = fit_answer(ollama, 7_000)
    assert lowered.max_output_tokens is not None and lowered.max_output_tokens < WINDOW - 7_000
    assert lowered.max_output_tokens >= MIN_ANSWER
    unlimited = fit_answer(replace(ollama, max_output_tokens=None), 1_000)
    assert unlimited.max_output_tokens is not None and 1_000 + unlimited.max_output_tokens <= WINDOW
    with pytest.raises(ContextOverflow, match="num_ctx"):
        fit_answer(ollama, WINDOW - 100)
    small = replace(ollama, max_output_tokens=300)  # the user's own limit fits the room: sent as set
    assert fit_answer(small, WINDOW - 500) is small
    with pytest.raises(ContextOverflow):
        fit_answer(small, WINDOW - 250)
    other = LLMConfig(model="openai/gpt-4o", num_ctx=WINDOW, max_output_tokens=ANSWER)
    assert fit_answer(other, WINDOW + 5_000) is other  # (other servers refuse it themselves)
    assert fit_answer(ollama, None) is ollama


def _agent(root: Path, fake: FakeOllama) -> object:
    agent, ws = provider_agent(root, "ollama_chat/qwen2.5-coder", fake.base_url, {"max_output_tokens": ANSWER},
                               window=WINDOW)
    return agent, ws


def _words(n: int) -> str:
    return " ".join(f"helper_{i} to util_{i};" for i in range(n))


def _sent(events: list[ev.Event]) -> list[ev.BudgetUpdated]:
    """The budget of each request that went out (an attempt refused before sending is followed by a retry)."""
    out: list[ev.BudgetUpdated] = []
    for e in events:
        if isinstance(e, ev.BudgetUpdated):
            out.append(e)
        elif isinstance(e, ev.Retrying) and "context window" in e.reason and out:
            out.pop()
    return out


async def _two_steps(root: Path, task_entries: int, file_entries: int) -> tuple[FakeOllama, list[ev.Event]]:
    """A long task; the model writes a long file (its call's arguments stay in the latest step), then answers."""
    with FakeOllama() as fake:
        fake.script(Turn(calls=[("write_file", {"path": "renames.txt", "content": _words(file_entries)})]),
                    Turn(text="written"))
        agent, ws = _agent(root, fake)
        try:
            events = await run_turn(agent, "Rename every helper as listed. " + _words(task_entries))
        finally:
            ws.close()
    return fake, events


async def test_an_answer_past_num_ctx_is_never_asked_for(tmp_path: Path) -> None:
    fake, events = await _two_steps(make_repo(tmp_path / "repo"), 120, 330)
    sent = [r.body.get("options") or {} for r in fake.answered]
    budgets = _sent(events)
    assert len(sent) == len(budgets) == 2 and all(o.get("num_ctx") == WINDOW for o in sent)
    assert sent[0].get("num_predict") == ANSWER  # in budget: the configured answer limit, as before
    assert budgets[1].over_budget, "the request must be over the budget for this test to mean anything"
    assert budgets[1].estimated_prompt_tokens + ANSWER > WINDOW
    assert MIN_ANSWER <= sent[1]["num_predict"] < ANSWER
    assert budgets[1].estimated_prompt_tokens + sent[1]["num_predict"] <= WINDOW
    assert events[-1].status == "done" and events[-1].text == "written"


async def test_a_prompt_ollama_would_cut_is_not_sent(tmp_path: Path) -> None:
    """Refused before it goes out, as other servers refuse it: the loop shortens the arguments of the call
    that already ran and sends a request that fits."""
    fake, events = await _two_steps(make_repo(tmp_path / "repo"), 120, 520)
    assert any(isinstance(e, ev.Retrying) and "context window" in e.reason for e in events)
    sent = [r.body.get("options") or {} for r in fake.answered]
    budgets = _sent(events)
    assert len(sent) == len(budgets) == 2
    for budget, options in zip(budgets, sent, strict=True):
        assert budget.estimated_prompt_tokens + options["num_predict"] <= WINDOW
    call = [m for m in fake.answered[1].body["messages"] if m.get("tool_calls")][-1]["tool_calls"][0]
    assert len(str(call["function"]["arguments"])) < len(_words(520)) // 2  # the call that ran, shortened
    assert events[-1].status == "done" and events[-1].text == "written"
