"""Issue 10 through the real loop: a 16K window, 64 steps of large outputs, the fake server's prefix cache.

The same scripted session as test_long_session, measured on the wire: most of every request
is served from the server's prefix cache (it compares each request with the previous one),
the session sends far fewer tokens than appending everything would, and compaction events
are rare — at least 4 steps apart, each with at most one summarising call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.agent import events as ev
from agent_tui.core.tokens import counter_for
from tests.agent.helpers import is_agent_request, request_tokens
from tests.agent.test_long_session import WINDOW, run_long_session


def _is_summary(req: Any) -> bool:
    return str(req.messages[-1].get("content", "")).startswith("You compress")


async def test_long_session_is_served_from_the_prefix_cache(tmp_path: Path, fake_llm) -> None:
    root, agent, events, stored, seen = await run_long_session(tmp_path, fake_llm)
    assert events[-1].status == "done"
    reqs = fake_llm.chat_requests
    agent_reqs = [r for r in reqs if is_agent_request(r)]
    assert len(agent_reqs) >= 60
    assert max(request_tokens(r) for r in reqs) <= WINDOW
    assert all(s["rule"] and s["task"] and s["file"] for s in seen)

    # Served from the prefix cache: the server reports cached tokens per request.
    assert len(fake_llm.cached_tokens) == len(reqs)
    share = sum(fake_llm.cached_tokens) / sum(fake_llm.prompt_tokens)
    print(f"\nprefix-cache share on the wire: {share:.1%} over {len(reqs)} requests")
    assert share >= 0.60, share

    # Far fewer tokens than an agent appending everything (counted as test_long_session does).
    c = counter_for("openai/gpt-4o")
    tools = c.count(json.dumps(agent_reqs[0].tools, sort_keys=True))
    full, running = [], c.count(agent.engine.system.content) + 3
    for m in stored:
        running += c.count(m["content"] or "") + 4 + (c.count(m["tool_calls"]) if m["tool_calls"] else 0)
        if m["role"] in ("user", "tool"):
            full.append(running + tools)
    ours = sum(request_tokens(r) for r in reqs)  # summarising calls included
    print(f"tokens: ours {ours:,} vs append-everything {sum(full):,} ({ours / sum(full):.1%})")
    assert ours <= 0.40 * sum(full)

    # Rare events: at least 4 steps apart, one summarising call each at most.
    step, at = 0, []
    for e in events:
        if isinstance(e, ev.StepStarted):
            step = e.step
        elif isinstance(e, ev.Compacted) and e.summary_id:
            at.append(step)
    assert at, "a 64-step session over a 16K window compacts"
    assert all(b - a >= 4 for a, b in zip(at, at[1:], strict=False)), at
    assert sum(1 for r in reqs if _is_summary(r)) <= len(at)
