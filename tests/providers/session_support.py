"""What the session tests of every dialect share: the dialects and their fakes, a scripted long turn
over a data folder, the text of a request's last message whatever the dialect, and a cancel mid-command."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini
from tests.support.fake_ollama import FakeOllama
from tests.support.fake_strict_openai import FakeStrictOpenAI

DIALECTS: dict[str, tuple[Any, str, str, dict[str, Any]]] = {
    "claude": (FakeAnthropic, "anthropic/claude-sonnet-4-5", "", {"thinking": 2048, "max_output_tokens": 4096}),
    "gemini3": (FakeGemini, "gemini/gemini-3-pro-preview", "/v1beta",
                {"reasoning_effort": "low", "api_key": "AIza-test-key", "max_output_tokens": 4096}),
    "deepseek": (lambda: FakeStrictOpenAI("deepseek"), "deepseek/deepseek-reasoner", "/v1", {"max_output_tokens": 4096}),
    "ollama": (FakeOllama, "ollama/qwen2.5-coder", "", {"max_output_tokens": 4096}),
}


def last_text(body: dict[str, Any]) -> str:
    """The text of a request's last message, whatever the dialect."""
    if "contents" in body:
        return " ".join(p.get("text", "") for p in body["contents"][-1].get("parts") or [])
    content = body["messages"][-1].get("content")
    if isinstance(content, list):
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content or "")


def data_repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "p")
    (root / "data").mkdir()
    for n in range(9):
        (root / "data" / f"d{n}.txt").write_text("\n".join(f"record {n}-{i}: value={i * 7 % 13}" for i in range(260)))
    return root


def long_turn(steps: int = 11) -> Any:
    """A reply per request: summaries and memos when asked, else reads (some parallel) and commands."""
    state = {"k": 0}

    def reply(body: dict[str, Any]) -> Turn:
        text = last_text(body)
        if "Summarise" in text:
            return Turn(thinking="Fold it in.", text="Summary: read the data files one by one.")
        if "Write a progress memo" in text:
            return Turn(thinking="Memo.", text="Changed: nothing. Why: survey. Left: nothing.")
        state["k"] += 1
        k = state["k"]
        if k >= steps:
            return Turn(thinking="Done.", text="All data files read.")
        if k % 5 == 0:
            return Turn(thinking=f"Two at once {k}.", calls=[("read_file", {"path": f"data/d{k % 9}.txt"}),
                                                             ("read_file", {"path": f"data/d{(k + 1) % 9}.txt"})])
        if k % 3 == 0:
            return Turn(thinking=f"Run {k}.", text="Running it.",
                        calls=[("run_command", {"command": f"python -c \"print('line {k} ' * 600)\""})])
        return Turn(thinking=f"Read {k}.", calls=[("read_file", {"path": f"data/d{k % 9}.txt"})])

    return reply


CLAUDE, THINKING = "anthropic/claude-sonnet-4-5", {"thinking": 2048, "max_output_tokens": 8192}


def wire(req: Any) -> list[tuple[str, list[str]]]:
    return [(m["role"], [b["type"] for b in m["content"]]) for m in req.body["messages"]]


async def cancel_during_command(agent: Any, task: str) -> None:
    """Run ``task`` and cancel it while its run_command call runs (the user's ctrl+c)."""
    seen: list[Any] = []

    async def consume() -> None:
        async for e in agent.run(task):
            seen.append(e)

    job = asyncio.create_task(consume())
    for _ in range(1000):
        await asyncio.sleep(0.01)
        if any(isinstance(e, ev.ToolCallStarted) and e.name == "run_command" for e in seen):
            break
    await asyncio.sleep(0.2)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
