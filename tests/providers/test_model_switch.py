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
