"""The summarising call asks for a summary that fits the summary's share of the window: 400 words in a
large window, fewer in a small one.  An 8K window's share is about 300 tokens; asked for 400 words, the
model wrote a segment larger than the share and every event consolidated the summary again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


@pytest.mark.parametrize("window", [8_192, 32_000])
async def test_the_summarising_call_asks_for_what_the_summary_share_holds(tmp_path: Path, window: int) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=window)
        try:
            cap = agent.engine.compactor.summary_cap()
            for n in range(1, 4):
                await run_turn(agent, f"USER-FACT-r{n}: keep the logs quiet, rule {n} " + "x " * 150)
            server.default_reply = lambda req: Reply.text("Agent decisions:\n- keep the logs quiet")
            done = [e for e in await agent.compact(force=True) if isinstance(e, ev.Compacted)]
            assert done and done[0].summariser == "llm"
            ask = str(server.last_request.messages[-1]["content"])
            asked = re.search(r"at most (\d+) words", ask)
            assert asked is not None, ask[-600:]
            words = int(asked.group(1))
            if window < 16_000:
                assert 50 <= words <= cap * 0.75, (words, cap)  # about 0.7 words a token: the answer fits the share
            else:
                assert words == 400 < cap * 0.75, (words, cap)  # a large share: the usual length
        finally:
            ws.close()
