"""Claude's rules in real sessions: signed thinking blocks go back unchanged in the tool loop (also for
models that think by default), a loop a turn left open is closed before the next user message, no
temperature beside thinking, the cache survives a wide parallel step, and thinking counts in the
budget only while its loop runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.providers.session_support import (
    CLAUDE,
    THINKING,
    cancel_during_command,
    data_repo,
    wire,
)
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn


async def test_claude_thinking_turn_after_a_loop_stopped_by_max_steps(tmp_path: Path) -> None:
    """A turn stopped by max_steps ends on tool results; the next user message used to be merged into them
    (one user turn), so the old loop's last assistant message needed thinking blocks nobody had any more."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Both.", calls=[("read_file", {"path": "calc.py"}), ("list_dir", {"path": "."})]),
                    Turn(thinking="Again.", calls=[("git_status", {})]), Turn(thinking="Done.", text="Clean."))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        agent.opts.max_steps = 1
        try:
            first = await run_turn(agent, "look around")
            agent.opts.max_steps = 10
            second = await run_turn(agent, "go on")
        finally:
            ws.close()
    assert first[-1].status != "done" and second[-1].status == "done" and second[-1].text == "Clean."
    assert fake.rejections == []
    step2 = fake.answered[1]
    assert step2.body["thinking"]["type"] == "enabled"
    assert wire(step2)[1:] == [("assistant", ["tool_use", "tool_use"]), ("user", ["tool_result", "tool_result"]),
                                ("assistant", ["text"]), ("user", ["text"])]
    step3 = fake.answered[2].body["messages"]  # the new loop's blocks go back as usual
    assert step3[-2]["content"][0]["type"] == "thinking"


async def test_claude_thinking_turn_after_a_loop_whose_file_changed_between_the_turns(tmp_path: Path) -> None:
    """The turn stopped inside its tool loop; the user then edits the file the loop read, and something assembles
    the request before the next message (the TUI's gauge after /pin or an item action, or opening the session
    on /resume): a file note lands after the tool results, before the user's message.  The two were merged with
    the note first, so the message read as the engine's and the loop was not closed: a 400 on Claude with
    thinking.  The user's words now come first in the merged message."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read.", calls=[("read_file", {"path": "calc.py"})]), Turn(thinking="Ok.", text="Seen."))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        agent.opts.max_steps = 1
        try:
            first = await run_turn(agent, "look around")
            (root / "calc.py").write_text((root / "calc.py").read_text() + "\n# edited by the user\n")
            agent.engine.assemble(agent.runner.schemas(agent.engine), auto_compact=False)  # what the TUI does
            agent.opts.max_steps = 10
            second = await run_turn(agent, "go on")
        finally:
            ws.close()
    assert first[-1].status == "step_limit"
    assert fake.rejections == [] and second[-1].status == "done" and second[-1].text == "Seen."
    sent = fake.answered[-1].body["messages"]
    assert wire(fake.answered[-1])[-2:] == [("assistant", ["text"]), ("user", ["text"])]
    assert sent[-1]["content"][0]["text"].startswith("go on\n\n[file note: current text of calc.py")


def test_a_users_message_merged_with_a_note_before_it_still_reads_as_the_users() -> None:
    from agent_tui.core.notes import said_by_user
    from agent_tui.core.pairing import normalise

    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    head = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]}, {"role": "tool", "tool_call_id": "c1",
                                                                          "content": "r"}]
    note = "[file note: current text of a.py, changed on disk]\nx = 1"
    merged = normalise([*head, {"role": "user", "content": note}, {"role": "user", "content": "next"}])[-1]
    assert merged["content"] == f"next\n\n{note}" and said_by_user(merged)
    kept = normalise([*head, {"role": "user", "content": "next"}, {"role": "user", "content": note}])[-1]
    assert kept["content"] == f"next\n\n{note}"  # a note after the user's message stays after it
    notes = normalise([*head, {"role": "user", "content": note}, {"role": "user", "content": "[context: 5%]"}])[-1]
    assert notes["content"] == f"{note}\n\n[context: 5%]" and not said_by_user(notes)


async def test_claude_thinking_turn_after_a_tool_call_cancelled_by_the_user(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Slow one.", calls=[("read_file", {"path": "calc.py"}),
                                                      ("run_command", {"command": "sleep 20"})]))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        try:
            await cancel_during_command(agent, "look")
            fake.script(Turn(thinking="Fine.", text="Stopped, as asked."))
            second = await run_turn(agent, "never mind")
        finally:
            ws.close()
    assert fake.rejections == [] and second[-1].status == "done" and second[-1].text == "Stopped, as asked."
    assert wire(fake.answered[-1])[-2:] == [("assistant", ["text"]), ("user", ["text"])]


def test_loop_closed_only_before_the_user_and_only_for_claude() -> None:
    from agent_tui.agent.llm_provider import request_kwargs
    from agent_tui.agent.llm_turns import LOOP_CLOSED
    from agent_tui.agent.llm_types import LLMConfig

    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    history = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
               {"role": "assistant", "content": None, "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1", "content": "r"},
               {"role": "user", "content": "[file note: a.py]"}, {"role": "user", "content": "summarise please"}]

    def roles(model: str, **cfg: Any) -> list[str]:
        kw = request_kwargs(LLMConfig(model=model, **cfg), history, None, breakpoints=[0])
        return [m["role"] + ("*" if m.get("content") == LOOP_CLOSED else "") for m in kw["messages"]]

    closed = ["system", "user", "assistant", "tool", "user", "assistant*", "user"]
    assert roles(CLAUDE, thinking=2048) == closed
    assert roles("anthropic/claude-sonnet-5") == closed  # thinks by default, nothing configured
    assert roles("openai/gpt-5") == roles("gemini/gemini-3-pro-preview") == ["system", "user", "assistant", "tool",
                                                                             "user", "user"]
    assert len(history) == 6


async def test_claude_that_thinks_by_default_gets_its_thinking_blocks_back(tmp_path: Path) -> None:
    """Claude Sonnet 5 / Opus 5 / Fable 5 think when the request says nothing about thinking: their signed
    blocks must come back in the tool loop although no thinking budget is configured."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read first.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Now the folder.", calls=[("list_dir", {"path": "."})]),
                    Turn(thinking="Enough.", text="add subtracts."))
        agent, ws = provider_agent(root, "anthropic/claude-sonnet-5", fake.base_url, {"temperature": 0.2})
        try:
            events = await run_turn(agent, "what does add do?")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done" and events[-1].text == "add subtracts."
    for req in fake.answered[1:]:
        assert "thinking" not in req.body and "temperature" not in req.body
        assert req.body["messages"][-2]["content"][0]["type"] == "thinking"


async def _redacted_thinking_turn(tmp_path: Path) -> tuple[list[Any], FakeAnthropic]:
    """A Claude turn whose first reply carries a redacted_thinking block beside its thinking."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read first.", redacted=True, calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Enough.", text="add subtracts."))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        try:
            events = await run_turn(agent, "what does add do?")
        finally:
            ws.close()
    return events, fake


async def test_claude_redacted_thinking_goes_back_untouched(tmp_path: Path) -> None:
    """A reply can carry an encrypted redacted_thinking block beside its thinking; the tool loop must echo
    both, in order and unchanged."""
    events, fake = await _redacted_thinking_turn(tmp_path)
    assert fake.rejections == [] and events[-1].status == "done"
    sent = fake.answered[1].body["messages"][-2]["content"]
    assert [b["type"] for b in sent] == ["redacted_thinking", "thinking", "tool_use"]


async def test_fake_claude_refuses_a_tool_loop_that_dropped_the_redacted_block(tmp_path: Path,
                                                                                monkeypatch: Any) -> None:
    from agent_tui.agent.llm_assemble import ReplyAssembler

    keep = ReplyAssembler.thinking_blocks
    monkeypatch.setattr(ReplyAssembler, "thinking_blocks",
                        lambda self, leading_only=False: [b for b in keep(self, leading_only)
                                                          if b.get("type") == "thinking"])
    events, fake = await _redacted_thinking_turn(tmp_path)
    assert events[-1].status == "error" and "cannot be modified" in fake.rejections[0]


@pytest.mark.parametrize("model", [CLAUDE, "anthropic/claude-sonnet-4-6"])
async def test_claude_reasoning_effort_with_a_temperature_is_not_refused(tmp_path: Path, model: str) -> None:
    """reasoning_effort turns thinking on for Claude (litellm sends a budget or adaptive thinking); a
    temperature configured beside it (the README's top-level `temperature = 0.1`) made every request a 400."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read.", calls=[("read_file", {"path": "calc.py"})]), Turn(thinking="Ok.", text="Read."))
        agent, ws = provider_agent(root, model, fake.base_url, {"reasoning_effort": "low", "temperature": 0.1})
        try:
            events = await run_turn(agent, "read calc.py")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done" and events[-1].text == "Read."
    assert all("temperature" not in r.body and r.body["thinking"]["type"] in ("enabled", "adaptive")
               for r in fake.answered)


async def test_claude_cache_survives_a_step_with_many_parallel_calls(tmp_path: Path) -> None:
    """Anthropic looks for a cache entry at most 20 blocks before each breakpoint. A step with a dozen
    parallel reads adds ~25 blocks, so the next request found none of the history in the cache and wrote it
    all again (at 1.25x instead of 0.1x) unless a breakpoint bridges the gap."""
    root = data_repo(tmp_path)
    reads = [Turn(calls=[("read_file", {"path": f"data/d{k}.txt"})]) for k in range(4)]
    many = Turn(calls=[("list_dir", {"path": "."})] * 12)
    with FakeAnthropic() as fake:
        fake.script(*reads, many, Turn(calls=[("git_status", {})]), Turn(text="done"))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, {})
        try:
            events = await run_turn(agent, "read the data files")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    big, after = fake.usages[4], fake.usages[5]  # the request that held the history before the big step, the next
    history = big["cache_read_input_tokens"] + big["cache_creation_input_tokens"]
    assert after["cache_read_input_tokens"] >= history, fake.usages


@pytest.mark.parametrize("text", [None, "Reading both."])
def test_a_tool_call_message_is_marked_on_its_last_call(text: str | None) -> None:
    from agent_tui.agent.llm_provider import request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    calls = [{"id": f"c{k}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
             for k in range(2)]
    history = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
               {"role": "assistant", "content": text, "tool_calls": calls},
               {"role": "tool", "tool_call_id": "c0", "content": "a"},
               {"role": "tool", "tool_call_id": "c1", "content": "b"}]
    kw = request_kwargs(LLMConfig(model=CLAUDE), history, None, breakpoints=[0, 2])
    sent = kw["messages"][2]["tool_calls"]
    assert "cache_control" in sent[-1] and "cache_control" not in sent[0]
    assert "cache_control" not in kw["messages"][2], "not on the message (its text block, before the calls)"
    assert not any("cache_control" in c for c in calls)  # the assembly's dicts are untouched


async def test_claude_thinking_counts_in_its_tool_loop_only(tmp_path: Path) -> None:
    """Claude gets its thinking blocks back inside the tool loop only: the estimate counts them during the
    turn and not once the next turn starts."""
    root = make_repo(tmp_path / "p")
    thought = "Consider the call graph before touching anything here. " * 150
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking=thought, calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Done.", text="add subtracts."))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        try:
            await run_turn(agent, "what does add do?")
            engine = agent.engine
            inside = engine.request_estimate()  # still this turn: its loop's blocks go back
            engine.reasoning_cost = None
            inside_bare = engine.request_estimate()
            engine.reasoning_cost = agent._reasoning_tokens
            engine.add_user("next question")
            after = engine.request_estimate()
            engine.reasoning_cost = None
            bare = engine.request_estimate()
        finally:
            ws.close()
    assert fake.rejections == []
    assert abs((inside - inside_bare) - engine.counter.count(thought.strip())) <= 3  # the block as the fake wrote it
    assert after == bare  # the old loop's thinking is not sent any more


async def test_a_whitespace_reply_never_reaches_claude_as_a_placeholder(tmp_path: Path) -> None:
    """A reply of only blank lines was kept and sent back; litellm put "[System: Empty message content sanitised
    to satisfy protocol]" in its place, which the model then read as its own words.  Blank text beside tool
    calls goes too (Claude refuses a whitespace-only text block)."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(text="\n\n"), Turn(text=" \n", calls=[("list_dir", {"path": "."})]), Turn(text="Listed."))
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, {})
        try:
            await run_turn(agent, "hello")
            events = await run_turn(agent, "list the folder")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].text == "Listed."
    for req in fake.answered[1:]:
        assert "sanitised" not in str(req.body["messages"])
        for m in req.body["messages"]:
            texts = [b.get("text") for b in m["content"] if b.get("type") == "text"] if isinstance(m["content"], list) \
                else [m["content"]]
            assert all(t and t.strip() for t in texts), m


@pytest.mark.parametrize("empty", [Turn(thinking="Nothing to add."), Turn(thinking="Cut off here", finish="length")],
                         ids=["thinking only", "cut by max_tokens"])
async def test_after_an_empty_reply_to_tool_results_the_next_turn_is_taken(tmp_path: Path, empty: Turn) -> None:
    """A tool step, then a reply with thinking and no text: the turn ends 'empty' and says "say 'continue' to
    retry".  The empty reply is left out of Claude's requests, and the loop was taken for closed by it, so the
    tool results ran into the user's next message: Claude read that as the old loop going on, whose thinking is
    not sent any more (400 "Expected `thinking` ... but found `tool_use`")."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        fake.script(Turn(thinking="Read it.", calls=[("read_file", {"path": "README.md"})]), empty)
        agent, ws = provider_agent(root, CLAUDE, fake.base_url, THINKING)
        try:
            await run_turn(agent, "read the readme")
            fake.script(Turn(thinking="Ok.", text="It describes the project."))
            events = await run_turn(agent, "continue")
        finally:
            ws.close()
    assert fake.rejections == [], fake.rejections
    assert events[-1].status == "done" and events[-1].text == "It describes the project."
    last = fake.answered[-1].body["messages"]
    first_user_after_results = next(m for m in last if m["role"] == "user" and isinstance(m["content"], list)
                                    and any(b.get("type") == "tool_result" for b in m["content"]))
    assert all(b.get("type") == "tool_result" for b in first_user_after_results["content"]), \
        "the results share a turn with the user's next message"
