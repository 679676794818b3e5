"""Realistic sessions on each real dialect, against fakes that refuse what the real APIs refuse:
several tool rounds with parallel calls, compaction summaries and memos written by the model,
a second turn, a turn cancelled mid-call, and an empty reply (the dialect-specific rules are in
test_deepseek_reasoning.py and test_claude_sessions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.providers.session_support import (
    DIALECTS,
    cancel_during_command,
    data_repo,
    long_turn,
)
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini


@pytest.mark.parametrize("dialect", list(DIALECTS))
async def test_long_session_with_compaction_and_a_second_turn(tmp_path: Path, dialect: str) -> None:
    """11 steps in a 16K window: the model writes the compaction summaries (nothing refused, no fallback)
    and the memo, and the next turn's tool loop goes through as well."""
    cls, model, suffix, table = DIALECTS[dialect]
    root = data_repo(tmp_path)
    with cls() as fake:
        fake.default = long_turn()
        agent, ws = provider_agent(root, model, fake.base_url + suffix, table, window=16_000)
        agent.opts.memo_writer = "llm"
        try:
            first = await run_turn(agent, "Read the data files and tell me what is in them.")
            fake.default = long_turn(4)
            second = await run_turn(agent, "Once more, and run the script.")
        finally:
            ws.close()
    assert fake.rejections == []
    assert first[-1].status == "done" and second[-1].status == "done"
    compactions = [e for e in first + second if isinstance(e, ev.Compacted)]
    assert compactions and all(c.summariser == "llm" and c.error is None for c in compactions)
    memos = [e for e in first + second if isinstance(e, ev.MemoSaved) and e.kind == "auto"]
    assert memos and memos[0].text.startswith("Changed: nothing.")


@pytest.mark.parametrize("dialect", list(DIALECTS))
async def test_a_turn_after_a_cancelled_parallel_call_goes_through(tmp_path: Path, dialect: str) -> None:
    """Cancelled while the second of two parallel calls runs: the pending call is answered as cancelled, and
    the next turn (a tool round, then an answer) is accepted by every dialect."""
    cls, model, suffix, table = DIALECTS[dialect]
    root = make_repo(tmp_path / "p")
    with cls() as fake:
        fake.script(Turn(thinking="Two.", calls=[("read_file", {"path": "calc.py"}),
                                                 ("run_command", {"command": "sleep 20"})]))
        agent, ws = provider_agent(root, model, fake.base_url + suffix, table)
        try:
            await cancel_during_command(agent, "look")
            fake.script(Turn(thinking="Again.", calls=[("list_dir", {"path": "."})]), Turn(thinking="Ok.", text="Here."))
            second = await run_turn(agent, "never mind, list the folder")
        finally:
            ws.close()
    assert fake.rejections == [] and second[-1].status == "done" and second[-1].text == "Here."


@pytest.mark.parametrize("empty", [Turn(finish="malformed"), Turn(thinking="Hmm.", text="")])
async def test_gemini_empty_reply_does_not_poison_the_session(tmp_path: Path, empty: Turn) -> None:
    """Gemini sometimes answers nothing (MALFORMED_FUNCTION_CALL with no parts, or only thoughts). That reply
    was kept as an empty assistant message, sent back as {"text": ""}, which Gemini refuses ("required oneof
    field 'data' must have one initialized field") on every later request of the session."""
    root = make_repo(tmp_path / "p")
    with FakeGemini() as fake:
        fake.script(Turn(thinking="Read.", calls=[("read_file", {"path": "calc.py"})]), empty,
                    Turn(thinking="Again.", calls=[("list_dir", {"path": "."})]), Turn(thinking="Ok.", text="Listed."))
        agent, ws = provider_agent(root, "gemini/gemini-3-pro-preview", fake.base_url + "/v1beta",
                                   {"reasoning_effort": "low", "api_key": "AIza-test-key"})
        try:
            first = await run_turn(agent, "read calc.py")
            second = await run_turn(agent, "continue")
        finally:
            ws.close()
    assert first[-1].status == "empty"
    assert fake.rejections == [] and second[-1].status == "done" and second[-1].text == "Listed."
    model_turns = [c for c in fake.answered[-1].body["contents"] if c["role"] == "model"]
    assert all(p for c in model_turns for p in c["parts"])
