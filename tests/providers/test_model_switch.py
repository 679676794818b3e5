"""One stored session carried across providers, as /model does: each provider gets a history another
provider wrote (Gemini ids carrying thought signatures, Claude's signed thinking, DeepSeek's
reasoning_content) and every fake, each rejecting what its API rejects, accepts it."""

from __future__ import annotations

from pathlib import Path

from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini
from tests.support.fake_strict_openai import FakeStrictOpenAI


async def test_one_session_across_gemini_claude_deepseek_and_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeGemini() as gemini, FakeAnthropic() as claude, FakeStrictOpenAI("deepseek") as deepseek:
        legs = [
            (gemini, "gemini/gemini-3-pro-preview", gemini.base_url + "/v1beta", {}),
            (claude, "anthropic/claude-sonnet-4-5", claude.base_url, {"thinking": 2048, "max_output_tokens": 8192}),
            (deepseek, "deepseek/deepseek-reasoner", deepseek.base_url + "/v1", {}),
            (gemini, "gemini/gemini-3-pro-preview", gemini.base_url + "/v1beta", {}),
        ]
        session: str | None = None
        finals = []
        for n, (fake, model, base, table) in enumerate(legs):
            fake.script(Turn(thinking=f"Look {n}.", calls=[("read_file", {"path": "calc.py"})]),
                        Turn(thinking=f"Answer {n}.", calls=[("git_status", {})]),
                        Turn(text=f"leg {n} ok"))
            agent, ws = provider_agent(root, model, base, table, session=session)
            try:
                events = await run_turn(agent, f"leg {n}: look at calc.py")
                session = agent.engine.session_id
            finally:
                ws.close()
            finals.append((events[-1].status, events[-1].text))
        sent_to_claude = [m for m in claude.answered[-1].body["messages"] if m["role"] == "assistant"]
    assert gemini.rejections == [] and claude.rejections == [] and deepseek.rejections == []
    assert finals == [("done", f"leg {n} ok") for n in range(4)]
    assert gemini.placeholders == 0
    ids = [b["id"] for m in sent_to_claude for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert len(ids) == 4 and all("__thought__" not in i for i in ids)  # Gemini's ids, cleaned by litellm


async def test_kimi_ids_that_repeat_across_replies_reach_claude_unique_and_well_formed(tmp_path: Path) -> None:
    """Kimi K2 served by vLLM names each call ``functions.NAME:N`` with N counted in each reply: two replies that
    read a file both call theirs ``functions.read_file:0``.  An OpenAI-compatible server takes that; Claude
    refuses an id with ``.`` or ``:`` and an id used twice.  After ``/model`` the same history must pass."""
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("plain", ids="kimi") as kimi, FakeAnthropic() as claude:
        kimi.script(Turn(calls=[("read_file", {"path": "calc.py"})]),
                    Turn(calls=[("read_file", {"path": "test_calc.py"}), ("git_status", {})]),
                    Turn(text="kimi ok"))
        agent, ws = provider_agent(root, "openai/kimi-k2", kimi.base_url + "/v1", {})
        try:
            first = await run_turn(agent, "look at calc.py and its test")
            session = agent.engine.session_id
        finally:
            ws.close()
        claude.script(Turn(calls=[("read_file", {"path": "calc.py"})]), Turn(text="claude ok"))
        agent, ws = provider_agent(root, "anthropic/claude-sonnet-4-5", claude.base_url, {}, session=session)
        try:
            second = await run_turn(agent, "and once more")
        finally:
            ws.close()
    assert kimi.rejections == [] and claude.rejections == [], claude.rejections
    sent = claude.answered[-1].body["messages"]
    assert (first[-1].status, second[-1].status) == ("done", "done"), second[-1]
    ids = [b["id"] for m in sent if m["role"] == "assistant" for b in m["content"]
           if isinstance(b, dict) and b.get("type") == "tool_use"]
    answers = [b["tool_use_id"] for m in sent if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert len(ids) == 4 and len(set(ids)) == 4 and answers == ids, (ids, answers)


def test_a_repeated_call_id_takes_the_next_free_number_or_a_suffix() -> None:
    from agent_tui.agent.llm_types import ToolCall, unique_call_ids

    used = {"functions.read_file:0", "functions.read_file:1", "toolu_x", "call_9"}
    calls = [ToolCall("functions.read_file:0", "read_file", "{}"), ToolCall("toolu_x", "git_status", "{}"),
             ToolCall("toolu_x", "git_status", "{}"), ToolCall("call_new", "list_dir", "{}"),
             ToolCall("call_9", "list_dir", "{}")]
    assert unique_call_ids(calls, used) == 4
    assert [c.id for c in calls] == ["functions.read_file:2", "toolu_x-2", "toolu_x-3", "call_new", "call_10"]
    assert {c.id for c in calls} <= used
