"""Realistic sessions on each real dialect, against fakes that refuse what the real APIs refuse:
several tool rounds with parallel calls, compaction summaries and memos written by the model,
a second turn, and the ways a turn can end without a final answer (an empty reply)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
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


async def test_deepseek_second_turn_brings_back_every_reasoning_content(tmp_path: Path) -> None:
    """DeepSeek's thinking mode (its default) wants reasoning_content back on every assistant message of a
    request with tools, earlier turns included; the turn after a tool turn used to be refused."""
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(Turn(thinking="Read it.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Say so.", text="add subtracts."),
                    Turn(thinking="Look again.", calls=[("list_dir", {"path": "."})]),
                    Turn(thinking="Answer.", text="Three files."))
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {})
        try:
            first = await run_turn(agent, "what does add do?")
            second = await run_turn(agent, "and what files are there?")
        finally:
            ws.close()
    assert fake.rejections == []
    assert first[-1].text == "add subtracts." and second[-1].text == "Three files."
    last = fake.answered[-1].body["messages"]
    sent = [m.get("reasoning_content") for m in last if m["role"] == "assistant"]
    assert len(sent) == 3 and all(isinstance(r, str) and r for r in sent)
    assert sent[-1] == "Look again."  # the current loop's own reasoning, not a placeholder


async def test_deepseek_next_turn_keeps_the_previous_turns_reasoning_and_its_cached_prefix(tmp_path: Path) -> None:
    """DeepSeek keeps a tool turn's reasoning_content in the context of every later turn. The previous turn's
    tool calls went back with the blank placeholder once a new turn began, where that turn's own steps had sent
    the real reasoning: the prompt changed right after the first user message, so every turn's first request
    read the previous turn from scratch instead of from DeepSeek's prefix cache."""
    root = data_repo(tmp_path)
    with FakeStrictOpenAI("deepseek") as fake:
        fake.default = long_turn(6)
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {}, window=200_000)
        try:
            await run_turn(agent, "Read the data files.")
            n = len(fake.answered)
            fake.default = long_turn(3)
            second = await run_turn(agent, "Again.")
        finally:
            ws.close()
    assert fake.rejections == [] and second[-1].status == "done"
    before, after = fake.answered[n - 1].body["messages"], fake.answered[n].body["messages"]
    assert after[:len(before)] == before  # the previous turn's last request is a prefix of the next one
    calls = [m for m in after if m["role"] == "assistant" and m.get("tool_calls")]
    assert len(calls) == 5 and all(m["reasoning_content"].strip() for m in calls)
    usage = fake.usages[n]
    assert usage["prompt_tokens_details"]["cached_tokens"] > 0.8 * usage["prompt_tokens"]


async def test_deepseek_earlier_reasoning_goes_back_only_while_the_model_thinks(tmp_path: Path) -> None:
    """The earlier turns' kept reasoning goes back only to a DeepSeek model that thinks: a session switched to
    deepseek-chat (/model: the non-thinking alias) hands over this turn's alone, as before."""
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(Turn(thinking="Read it.", calls=[("read_file", {"path": "calc.py"})]), Turn(text="Read."))
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {})
        try:
            await run_turn(agent, "read calc.py")
            session = agent.engine.session_id
        finally:
            ws.close()
    kept = {}
    for model in ("deepseek/deepseek-reasoner", "deepseek/deepseek-chat"):
        agent, ws = provider_agent(root, model, "http://127.0.0.1:9/v1", {}, session=session)
        try:
            agent.engine.add_user("next")
            kept[model] = [data.get("reasoning_content") for data in agent._reasoning_map().values()]
        finally:
            ws.close()
    assert kept == {"deepseek/deepseek-reasoner": ["Read it."], "deepseek/deepseek-chat": []}


def test_deepseek_placeholder_only_where_thinking_runs() -> None:
    from agent_tui.agent.llm_provider import BLANK_REASONING, request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
               {"role": "user", "content": "go on"}]
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object", "properties": {}}}}]

    def sent(model: str, tools_: Any = tools, **cfg: Any) -> list[Any]:
        kw = request_kwargs(LLMConfig(model=model, **cfg), history, tools_)
        return [m.get("reasoning_content") for m in kw["messages"] if m["role"] == "assistant"]

    assert sent("deepseek/deepseek-reasoner") == [BLANK_REASONING]
    assert sent("deepseek/deepseek-v4-flash") == [BLANK_REASONING]  # thinking is DeepSeek's default
    assert sent("deepseek/deepseek-reasoner", None) == [None]  # no tools: DeepSeek ignores it
    assert sent("deepseek/deepseek-chat") == [None]  # the non-thinking alias
    assert sent("deepseek/deepseek-v4-flash", extra={"thinking": {"type": "disabled"}}) == [None]
    assert sent("deepseek/deepseek-v4-flash", reasoning_effort="none") == [None]
    assert sent("deepseek/deepseek-v3.2") == [None]  # thinks only when asked...
    assert sent("deepseek/deepseek-v3.2", extra={"thinking": {"type": "enabled"}}) == [BLANK_REASONING]  # ...here
    assert not any("reasoning_content" in m for m in history)  # the caller's messages are not touched


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


CLAUDE, THINKING = "anthropic/claude-sonnet-4-5", {"thinking": 2048, "max_output_tokens": 8192}


def _wire(req: Any) -> list[tuple[str, list[str]]]:
    return [(m["role"], [b["type"] for b in m["content"]]) for m in req.body["messages"]]


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
    assert _wire(step2)[1:] == [("assistant", ["tool_use", "tool_use"]), ("user", ["tool_result", "tool_result"]),
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
    assert _wire(fake.answered[-1])[-2:] == [("assistant", ["text"]), ("user", ["text"])]
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
    assert _wire(fake.answered[-1])[-2:] == [("assistant", ["text"]), ("user", ["text"])]


def test_loop_closed_only_before_the_user_and_only_for_claude() -> None:
    from agent_tui.agent.llm_provider import LOOP_CLOSED, request_kwargs
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
                        lambda self: [b for b in keep(self) if b.get("type") == "thinking"])
    events, fake = await _redacted_thinking_turn(tmp_path)
    assert events[-1].status == "error" and "cannot be modified" in fake.rejections[0]


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


def test_a_bare_tool_call_message_is_marked_on_its_last_call() -> None:
    from agent_tui.agent.llm_provider import request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    calls = [{"id": f"c{k}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
             for k in range(2)]
    history = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
               {"role": "assistant", "content": None, "tool_calls": calls},
               {"role": "tool", "tool_call_id": "c0", "content": "a"},
               {"role": "tool", "tool_call_id": "c1", "content": "b"}]
    kw = request_kwargs(LLMConfig(model=CLAUDE), history, None, breakpoints=[0, 2])
    sent = kw["messages"][2]["tool_calls"]
    assert "cache_control" in sent[-1] and "cache_control" not in sent[0]
    assert not any("cache_control" in c for c in calls)  # the assembly's dicts are untouched


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


async def test_deepseek_summaries_and_memos_get_the_turns_reasoning_not_placeholders(tmp_path: Path) -> None:
    """A compaction summary or memo written mid-turn carries the cached request plus an instruction: its
    assistant messages must bring the same reasoning_content the steps sent (the summariser reads the real
    reasoning, and the prefix stays the one DeepSeek's cache holds), not the blank placeholder."""
    from agent_tui.agent.llm_provider import BLANK_REASONING

    root = data_repo(tmp_path)
    with FakeStrictOpenAI("deepseek") as fake:
        fake.default = long_turn()
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {}, window=16_000)
        agent.opts.memo_writer = "llm"
        try:
            events = await run_turn(agent, "Read the data files and tell me what is in them.")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].status == "done"
    housekeeping = [r for r in fake.answered if "Summarise" in last_text(r.body)
                    or "Write a progress memo" in last_text(r.body)]
    assert any("Summarise" in last_text(r.body) for r in housekeeping)
    for req in housekeeping:
        sent = [m.get("reasoning_content") for m in req.body["messages"] if m["role"] == "assistant"]
        assert sent and BLANK_REASONING not in sent, sent
    steps = [r for r in fake.answered if r not in housekeeping]
    for req in housekeeping:  # the step before it sent the same reasoning for the messages both carry
        before = [r for r in steps if fake.answered.index(r) < fake.answered.index(req)][-1]
        mine = {str(m.get("tool_calls")): m.get("reasoning_content") for m in req.body["messages"]
                if m["role"] == "assistant"}
        theirs = {str(m.get("tool_calls")): m.get("reasoning_content") for m in before.body["messages"]
                  if m["role"] == "assistant"}
        assert all(mine[k] == v for k, v in theirs.items() if k in mine)


async def test_the_compaction_trigger_counts_the_reasoning_deepseek_gets_back(tmp_path: Path) -> None:
    """DeepSeek's thinking mode resends every turn's kept reasoning_content: the engine's estimate of the
    next request (what decides a compaction, and the window's hard limit) counts it, as DeepSeek bills it;
    for a provider that gets none back it counts nothing."""
    root = make_repo(tmp_path / "p")
    thought = "Let me weigh each branch of the parser carefully. " * 200
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(Turn(thinking=thought, calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Say so.", text="add subtracts."))
        agent, ws = provider_agent(root, "deepseek/deepseek-reasoner", fake.base_url + "/v1", {})
        try:
            await run_turn(agent, "what does add do?")
            engine = agent.engine
            engine.add_user("next question")  # a later turn: the first turn's reasoning still goes back
            with_reasoning = engine.request_estimate()
            agent.llm.model = "openai/gpt-4o"  # a provider that is sent no reasoning
            without = engine.request_estimate()
        finally:
            ws.close()
    counted = engine.counter.count(thought.strip())
    assert with_reasoning - without == counted and counted > 1500


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
