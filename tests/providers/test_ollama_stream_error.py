"""Ollama reports a failure of its model runner (a crash, out of memory) as an ``{"error": …}`` line in a
stream that began with HTTP 200.  litellm raises it as a bad request, and the turn failed for good with
"Request rejected … (HTTP 400): 'message', Got unexpected response from Ollama: {'error': …}": no 400 was
sent, a KeyError's text leaked into the message, and nothing was retried.  It is a server failure: retried,
and said as Ollama said it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_dialect import Turn
from tests.support.fake_ollama import FakeOllama

RUNNER_DIED = "an error was encountered while running the model: CUDA error: out of memory"


class FailingOllama(FakeOllama):
    """Answers a turn whose text is ``FAIL-AFTER-TEXT`` or ``FAIL-AT-ONCE`` with Ollama's error line."""

    def respond(self, path: str, body: dict[str, Any], turn: Any) -> Any:
        if self.consumes(path) and turn.text in ("FAIL-AFTER-TEXT", "FAIL-AT-ONCE"):
            lines: list[bytes] = []
            if turn.text == "FAIL-AFTER-TEXT":
                lines.append(json.dumps({"model": "m", "created_at": "x", "done": False,
                                         "message": {"role": "assistant", "content": "half an answ"}}).encode() + b"\n")
            lines.append(json.dumps({"error": RUNNER_DIED}).encode() + b"\n")
            stream: Iterator[bytes] = iter(lines)
            return True, stream, "application/x-ndjson"
        return super().respond(path, body, turn)


@pytest.mark.parametrize("failure", ["FAIL-AFTER-TEXT", "FAIL-AT-ONCE"])
async def test_a_model_runner_failure_in_the_stream_is_retried_and_said_plainly(tmp_path: Path, failure: str) -> None:
    root = make_repo(tmp_path / "repo")
    with FailingOllama() as fake:
        fake.script(Turn(text=failure), Turn(text="the answer after the retry"))
        agent, ws = provider_agent(root, "ollama/qwen2.5-coder", fake.base_url, {"max_output_tokens": 2048})
        try:
            events = await run_turn(agent, "say something")
        finally:
            ws.close()
    retries = [e for e in events if isinstance(e, ev.Retrying)]
    assert retries and RUNNER_DIED in retries[0].reason and "HTTP 400" not in retries[0].reason
    assert "'message'" not in retries[0].reason
    assert events[-1].status == "done" and events[-1].text == "the answer after the retry"
    assert not [e for e in events if isinstance(e, ev.ErrorEvent) and e.fatal]
