"""A provider that refuses a request for its size and states its limit: the session keeps to that limit.

A ``window`` set above what the model really takes (``window = 1_000_000`` for a Claude model without the 1M
beta) made every request past the real limit fail: the forced compaction aimed at the configured window, so it
removed nothing, and the summarising call resent the request that was too large.  The refusal states the
limit (``prompt is too long: N tokens > M maximum``); the agent now plans for it, says which setting keeps it,
compacts without a summarising call and retries once, and the next turns fit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.agent.llm_errors import stated_limit
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Rejected, Turn

LIMIT = 9000


class LimitedAnthropic(FakeAnthropic):
    """Refuses a prompt over ``LIMIT`` tokens the way Anthropic does (HTTP 400, invalid_request_error)."""

    def check(self, path: str, body: dict[str, Any]) -> None:
        super().check(path, body)
        n = sum(self.count(t) for t, _ in self._flat(body))
        if n > LIMIT:
            raise Rejected(f"prompt is too long: {n} tokens > {LIMIT} maximum")


async def test_a_stated_limit_below_the_window_is_kept_from_then_on(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    for n in range(14):
        (root / f"notes{n}.txt").write_text("".join(f"note {n}.{i}: the parser keeps field {i} as text\n"
                                                    for i in range(60)))
    with LimitedAnthropic() as fake:
        fake.script(*[Turn(calls=[("read_file", {"path": f"notes{n}.txt"})]) for n in range(9)], Turn(text="Read them."),
                    *[Turn(calls=[("read_file", {"path": f"notes{n}.txt"})]) for n in range(9, 14)], Turn(text="Again."))
        agent, ws = provider_agent(root, "anthropic/claude-sonnet-4-5", fake.base_url, {"max_output_tokens": 1024},
                                   window=64_000)
        try:
            first = await run_turn(agent, "read the notes")
            second = await run_turn(agent, "read the rest")
        finally:
            ws.close()
    said = [e.message for e in first if isinstance(e, ev.ErrorEvent)]
    assert any("its context limit is 9,000 tokens" in m and "window = 9000" in m for m in said), said
    assert first[-1].status == "done" and first[-1].text == "Read them."
    assert second[-1].status == "done" and second[-1].text == "Again."
    assert len(fake.rejections) == 1, f"one refusal, then every request fits: {fake.rejections}"
    assert "prompt is too long" in fake.rejections[0]
    assert agent.engine.plan.window == LIMIT
    compacted = [e for e in first if isinstance(e, ev.Compacted)]
    assert compacted and compacted[0].summariser == "extractive", "no summarising call resending the refused request"


def test_the_limits_providers_state_are_read() -> None:
    assert stated_limit("prompt is too long: 210,345 tokens > 200000 maximum") == 200_000
    assert stated_limit("This model's maximum context length is 128000 tokens. However, your messages "
                        "resulted in 130512 tokens.") == 128_000
    assert stated_limit("The input token count (1200000) exceeds the maximum number of tokens allowed "
                        "(1048576).") == 1_048_576
    assert stated_limit("context window exceeded") is None


def test_an_error_body_passed_on_as_bytes_reads_as_its_message() -> None:
    """litellm passes Anthropic's streamed errors on as a Python bytes dump of the JSON body."""
    from agent_tui.agent.llm_errors import provider_message

    body = b'{"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 9567 tokens > 9000 maximum"}}'
    said = provider_message(Exception(f"AnthropicException - {body!r}"))
    assert said == "prompt is too long: 9567 tokens > 9000 maximum"
    assert provider_message(Exception('AnthropicException - {"type":"error","error":{"message":"Overloaded"}}')) == \
        "Overloaded"
    assert provider_message(Exception("plain words {not json}")) == "plain words {not json}"


class WindowedAnthropic(FakeAnthropic):
    """Takes a prompt of up to ``LIMIT`` tokens whatever its ``max_tokens``, and stops a reply where prompt and
    reply fill ``LIMIT``: ``stop_reason: model_context_window_exceeded`` (Claude Sonnet 4.5 and later), with the
    output tokens it wrote."""

    def respond(self, path: str, body: dict[str, Any], turn: Turn) -> tuple[bool, Any, str]:
        n = sum(self.count(t) for t, _ in self._flat(body))
        room = LIMIT - n
        if n + self.count(turn.text) > LIMIT:
            words = turn.text.split(" ")
            while words and self.count(" ".join(words)) > room:
                words = words[: len(words) * 9 // 10]
            turn = Turn(text=" ".join(words), finish="window")
        return super().respond(path, body, turn)

    def _usage(self, body: dict[str, Any], output: int) -> dict[str, int]:
        usage = super()._usage(body, output)
        n = sum(self.count(t) for t, _ in self._flat(body))
        return {**usage, "output_tokens": min(usage["output_tokens"], max(1, LIMIT - n))} if n < LIMIT else usage


async def test_a_reply_stopped_by_a_full_window_is_not_blamed_on_the_output_limit(tmp_path: Path) -> None:
    """litellm reports Claude's ``model_context_window_exceeded`` as ``length``: the user was told to raise
    max_output_tokens, which changes nothing.  A reply that stopped below its output limit filled the window:
    the notice says so, the session plans for the window the provider showed, and the next reply fits."""
    root = make_repo(tmp_path / "p")
    (root / "notes.txt").write_text("".join(f"note {i}: the parser keeps field {i} as text\n" for i in range(400)))
    essay = " ".join(f"word{i}" for i in range(3000))
    with WindowedAnthropic() as fake:
        # (the cut essay is over a quarter of the window the session then plans for: the next message's
        # compaction folds it, with one summarising call, before the reply)
        fake.script(Turn(calls=[("read_file", {"path": "notes.txt"})]), Turn(text=essay),
                    Turn(text="User instructions:\n- read the notes and explain them at length\n"
                              "Agent answers to the user:\n- a long explanation of the notes, cut by the window"),
                    Turn(text="Short answer."))
        agent, ws = provider_agent(root, "anthropic/claude-sonnet-4-5", fake.base_url, {"max_output_tokens": 4096},
                                   window=64_000)
        try:
            first = await run_turn(agent, "read the notes and explain them at length")
            second = await run_turn(agent, "in short?")
        finally:
            ws.close()
    said = [e.message for e in first if isinstance(e, ev.ErrorEvent)]
    assert fake.rejections == []
    assert not any("Raise max_output_tokens" in m for m in said), said
    assert any("filled the model's context window" in m for m in said), said
    assert any("stopped a reply: its context limit is" in m for m in said), said
    assert first[-1].status == "truncated"
    assert agent.engine.plan.window <= LIMIT
    assert second[-1].status == "done" and second[-1].text == "Short answer."
    last = json.dumps(fake.requests[-1].body)
    assert "a long explanation of the notes, cut by the window" in last and "word2999" not in last


def test_the_output_cap_is_the_models_own_when_the_configured_one_is_higher() -> None:
    """128,000 configured on a model that writes at most 64,000: a reply stopped at 64,000 hit the output limit
    (the request was sent with the model's own), not a full window."""
    from types import SimpleNamespace

    from agent_tui.agent.llm_finish import judge
    from agent_tui.agent.llm_provider import output_ceiling
    from agent_tui.agent.loop import Agent

    model = "anthropic/claude-sonnet-4-5"
    ceiling = output_ceiling(model)
    assert ceiling and ceiling < 128_000
    agent = SimpleNamespace(llm=SimpleNamespace(max_output_tokens=128_000, model=model))
    cap = Agent._output_cap(agent)  # type: ignore[arg-type]
    assert cap == ceiling
    assert judge("length", "x", [], cap, (30_000, ceiling)).window_filled is None
    assert judge("length", "x", [], 128_000, (30_000, ceiling)).window_filled is not None, "the old misreading"
