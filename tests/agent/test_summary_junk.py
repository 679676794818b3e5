"""A summarising call whose answer is not a summary must not replace the rounds it folds: a model that
answered "Sure - the session so far went fine, nothing important to note." made that the summary, and
the user's instructions of the folded rounds were in neither the window nor the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent import events as ev
from agent_tui.agent.prompts import load_prompt
from agent_tui.core.summary import VERBATIM_TITLE
from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn

JUNK = {
    "chatty": "Sure - the session so far went fine, nothing important to note.",
    "echo": "ok, noted: " + load_prompt("summary")[:400],
}


async def _compact_answered(tmp_path: Path, answer: str) -> tuple[ev.Compacted, str]:
    """Four turns of user rules, then a forced compaction whose summarising call gets ``answer``: the event
    and the summary it left."""
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.default_reply = lambda req: Reply.text("noted")
        agent, ws = make_agent(root, server.base_url, window=16_000)
        try:
            for n in range(1, 5):
                await run_turn(agent, f"USER-FACT-r{n}: the API key must never be logged, rule {n} " + "x " * 300)
            server.default_reply = lambda req: Reply.text(answer)
            (done,) = [e for e in await agent.compact(force=True) if isinstance(e, ev.Compacted)]
            return done, agent.engine.items[done.summary_id].content
        finally:
            ws.close()


@pytest.mark.parametrize("answer", sorted(JUNK))
async def test_a_summary_without_its_sections_is_replaced_by_the_extractive_one(tmp_path: Path, answer: str) -> None:
    done, summary = await _compact_answered(tmp_path, JUNK[answer])
    assert done.summariser == "extractive" and "not used" in (done.error or ""), done
    assert JUNK[answer][:30] not in summary
    assert "USER-FACT-r1" in summary, summary


@pytest.mark.parametrize("good", ["User instructions, constraints and preferences:\n- USER-FACT-r1: never log the key",
                                  "Summary: read the data files one by one."])
async def test_a_real_summary_is_kept(tmp_path: Path, good: str) -> None:
    done, summary = await _compact_answered(tmp_path, good)
    assert done.summariser == "llm" and not done.error and good in summary


async def test_a_kept_summary_that_drops_the_users_words_carries_them_verbatim(tmp_path: Path) -> None:
    """The check above is a heuristic; this is the guarantee: whatever a model's summary says, every user
    message it folds is in the summary word for word (a prose summary left out all three)."""
    done, summary = await _compact_answered(tmp_path, "Summary: read the data files one by one.")
    assert done.summariser == "llm"
    head, _, kept = summary.partition(f"\n\n{VERBATIM_TITLE}:\n")
    assert head == "Summary: read the data files one by one."
    folded = [n for n in range(1, 5) if f"USER-FACT-r{n}:" in kept]
    assert folded and folded == list(range(1, len(folded) + 1)), kept
    assert all(f"USER-FACT-r{n}: the API key must never be logged, rule {n} x x" in kept for n in folded)
