"""The config's ``rules`` reach the model: the README's example sets ``rules = ["Use pnpm, never npm"]``, the key was
read and checked, and then sent nowhere.  A tester put a rule in the workspace's config and the user's, trusted the
folder, and found it in 0 of 38 requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.config import load_config
from agent_tui.core.instructions import CONFIG_RULES_ID
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn

USER_RULE = "RULE-USER-7: answer in English"
WS_RULE = "RULE-ZEBRA-42: never use tabs"


async def test_config_rules_are_in_every_request_through_compaction_and_resume(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".agent-tui").mkdir(exist_ok=True)
    (root / ".agent-tui" / "config.toml").write_text(f'rules = ["{WS_RULE}"]\n')
    user = tmp_path / "user.toml"
    user.write_text(f'rules = ["{USER_RULE}"]\n')
    settings = load_config(root, user_file=user).settings
    assert WS_RULE in settings.rules  # (a workspace may always set it, untrusted too, as its AGENTS.md)
    steps = {"n": 0}

    def reply(req: dict[str, Any]) -> Reply:
        steps["n"] += 1
        if steps["n"] % 7 == 0:
            return Reply.text("done")
        return Reply.tool_call("read_file", {"path": "README.md"})

    with FakeOpenAI() as server:
        server.default_reply = reply
        agent, ws = make_agent(root, server.base_url, window=8_192, settings=settings)
        try:
            for n in range(4):
                await run_turn(agent, f"look at the readme, pass {n} " + "z " * 300)
            await agent.compact(force=True)
            session = agent.engine.session_id
        finally:
            ws.close()
        first = len(server.chat_requests)
        again, ws2 = make_agent(root, server.base_url, window=8_192, settings=settings, session=session)
        try:
            await run_turn(again, "and once more")
            item = again.engine.items[CONFIG_RULES_ID]
        finally:
            ws2.close()
    requests = server.chat_requests
    assert len(requests) > first > 10
    missing = [n for n, r in enumerate(requests) if WS_RULE not in str(r.messages) or USER_RULE not in str(r.messages)]
    assert not missing, f"{len(missing)} of {len(requests)} requests lack a config rule: {missing[:10]}"
    assert item.pinned and item.provenance["source"] == "config"
