"""DeepSeek's thinking mode: reasoning_content goes back on every assistant message of every request,
with tools or without (the kept text where there is one, so the cached prefix holds across steps, summaries and turns;
a placeholder elsewhere), only while the model thinks, and the compaction trigger counts it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent.helpers import make_repo, run_turn
from tests.providers.helpers import provider_agent
from tests.providers.session_support import (
    data_repo,
    last_text,
    long_turn,
)
from tests.support.fake_dialect import Turn
from tests.support.fake_strict_openai import FakeStrictOpenAI


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
    assert sent == ["Read it.", "Say so.", "Look again."]  # the tool turn's final answer's own, no placeholder


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
    # no tools (a memo's or summary's call): a tool turn without its reasoning is still a 400, and a placeholder
    # where DeepSeek ignores it costs nothing
    assert sent("deepseek/deepseek-reasoner", None) == [BLANK_REASONING]
    assert sent("deepseek/deepseek-chat") == [None]  # the non-thinking alias
    assert sent("deepseek/deepseek-v4-flash", extra={"thinking": {"type": "disabled"}}) == [None]
    assert sent("deepseek/deepseek-v4-flash", reasoning_effort="none") == [None]
    assert sent("deepseek/deepseek-v3.2") == [None]  # thinks only when asked...
    assert sent("deepseek/deepseek-v3.2", extra={"thinking": {"type": "enabled"}}) == [BLANK_REASONING]  # ...here
    assert not any("reasoning_content" in m for m in history)  # the caller's messages are not touched


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
    counted = engine.counter.count(thought.strip()) + engine.counter.count("Say so.")  # the final answer's too
    assert with_reasoning - without == counted and counted > 1500


async def test_a_tool_turns_final_answer_keeps_its_reasoning_and_a_turn_without_tools_gets_the_placeholder(
        tmp_path: Path) -> None:
    """DeepSeek wants back all the reasoning of a turn that called tools, the final answer's included; the
    answer went back with the blank placeholder (the model lost its own chain; the strict fake refuses that).
    A turn with no tool call is ignored by DeepSeek: its answer keeps the placeholder, and costs nothing.  The
    last turn runs in a session resumed from the store, as after a restart."""
    from agent_tui.agent.llm_provider import BLANK_REASONING

    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        fake.script(Turn(thinking="Just greet.", text="Hello."),
                    Turn(thinking="Read it.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="It subtracts.", text="add subtracts."),
                    Turn(thinking="List.", calls=[("list_dir", {"path": "."})]),
                    Turn(thinking="Done.", text="Three files."))
        agent, ws = provider_agent(root, "deepseek/deepseek-v4-flash", fake.base_url + "/v1", {})
        try:
            await run_turn(agent, "hi")
            await run_turn(agent, "what does add do?")
            session = agent.engine.session_id
        finally:
            ws.close()
        agent, ws = provider_agent(root, "deepseek/deepseek-v4-flash", fake.base_url + "/v1", {}, session=session)
        try:  # resumed from the store: the kept reasoning comes back with the messages
            last = await run_turn(agent, "and what files are there?")
        finally:
            ws.close()
    assert fake.rejections == [] and last[-1].text == "Three files."
    sent = {m.get("content") or m["tool_calls"][0]["function"]["name"]: m.get("reasoning_content")
            for m in fake.answered[-1].body["messages"] if m["role"] == "assistant"}
    assert sent == {"Hello.": BLANK_REASONING, "read_file": "Read it.", "add subtracts.": "It subtracts.",
                    "list_dir": "List."}


def test_a_call_without_tools_still_brings_back_each_tool_turns_reasoning() -> None:
    """The progress memo's call sends no tools.  A session that ran its tool turns on another model, then
    switched to deepseek-reasoner, sent those turns bare; DeepSeek answers 400 whether or not the request
    has tools (and the memo silently fell back to the extractive one)."""
    import httpx

    from agent_tui.agent.llm_provider import BLANK_REASONING, request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    call = {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}
    history = [{"role": "user", "content": "look around"}, {"role": "assistant", "content": "", "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1", "content": "a.py"}, {"role": "assistant", "content": "done"},
               {"role": "user", "content": "Write a progress memo."}]
    kw = request_kwargs(LLMConfig(model="deepseek/deepseek-reasoner"), history, None)
    assert "tools" not in kw
    assert [m.get("reasoning_content") for m in kw["messages"] if m["role"] == "assistant"] == [BLANK_REASONING] * 2
    with FakeStrictOpenAI("deepseek") as fake:
        bare = httpx.post(f"{fake.base_url}/v1/chat/completions", json={"model": "deepseek-reasoner",
                                                                         "messages": history})
        shaped = httpx.post(f"{fake.base_url}/v1/chat/completions", json={
            "model": "deepseek-reasoner", "messages": kw["messages"], "stream": False})
    assert bare.status_code == 400 and "reasoning_content" in bare.text
    assert shaped.status_code == 200, shaped.text


async def test_deepseek_reached_as_openai_at_its_own_host_gets_its_reasoning_back(
        tmp_path: Path, monkeypatch: Any) -> None:
    """DeepSeek's docs reach its API with an OpenAI client: ``openai/deepseek-reasoner`` at ``api.deepseek.com``.
    The provider was told by the model's prefix alone, so that setup sent no reasoning_content back and the second
    step of every tool loop was refused.  The fake answers as api.deepseek.com through a local HTTP proxy (the
    request's host is DeepSeek's; nothing leaves 127.0.0.1)."""
    root = make_repo(tmp_path / "p")
    with FakeStrictOpenAI("deepseek") as fake:
        monkeypatch.setenv("HTTP_PROXY", fake.base_url)
        monkeypatch.setenv("http_proxy", fake.base_url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        fake.script(Turn(thinking="Read it.", calls=[("read_file", {"path": "calc.py"})]),
                    Turn(thinking="Say so.", text="add subtracts."))
        agent, ws = provider_agent(root, "openai/deepseek-reasoner", "http://api.deepseek.com/v1", {})
        try:
            events = await run_turn(agent, "what does add do?")
        finally:
            ws.close()
    assert fake.rejections == [] and events[-1].text == "add subtracts."
    assert "api.deepseek.com" in fake.answered[-1].path, "the request went to DeepSeek's host (through the proxy)"
    last = fake.answered[-1].body["messages"]
    assert [m.get("reasoning_content") for m in last if m["role"] == "assistant"] == ["Read it."]


def test_o_series_instructions_stay_system_for_a_server_that_is_not_openai() -> None:
    """vLLM and other OpenAI-compatible servers refuse the ``developer`` role; only OpenAI's own API (and Azure)
    get it."""
    from agent_tui.agent.llm_provider import request_kwargs
    from agent_tui.agent.llm_types import LLMConfig

    msgs = [{"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}]
    roles = {base: request_kwargs(LLMConfig(model="openai/o3-mini", api_base=base), msgs, None)["messages"][0]["role"]
             for base in (None, "https://api.openai.com/v1", "http://127.0.0.1:8000/v1", "https://vllm.example/v1")}
    assert roles == {None: "developer", "https://api.openai.com/v1": "developer",
                     "http://127.0.0.1:8000/v1": "system", "https://vllm.example/v1": "system"}
