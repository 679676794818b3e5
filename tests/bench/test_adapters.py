"""The two adapters read the recorded formats into the normalised session, skipping bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.bench.adapters import adapter_for, discover, load_sessions
from agent_tui.bench.adapters.claude_code import ClaudeCodeAdapter
from agent_tui.bench.adapters.mini_swe import MiniSweAdapter
from agent_tui.bench.trace import COMPACT_SUMMARY, Compaction, Edit
from tests.bench.helpers import FIXTURES

MINI = FIXTURES / "mini-swe-agent" / "tiny.traj.json"
CLAUDE = FIXTURES / "claude-code" / "tiny.jsonl"


def test_mini_swe_messages_calls_and_usage() -> None:
    s = MiniSweAdapter().load(MINI)
    assert s.id == "tiny__greeting-1"
    assert s.model == "deepseek/deepseek-chat"
    assert s.system_prompt == "You are a helpful assistant."
    assert [m.role for m in s.messages] == ["user", "assistant", "tool"] * 1 + ["assistant", "tool"] * 2 + ["assistant"]
    assert [(c.history_len, c.recorded_input_tokens) for c in s.calls] == [(1, 100), (3, 150), (5, 200), (7, 260)]
    assert s.messages[1].tool_calls[0].name == "bash"
    assert s.messages[2].tool_call_id == "c1" and s.messages[2].name == "bash"
    assert s.malformed == 1  # the bare 42 in the message list; the exit message is not sent, not malformed


def test_mini_swe_raw_output_only_for_cut_outputs() -> None:
    s = MiniSweAdapter().load(MINI)
    assert s.messages[2].raw is None  # shown whole
    cut = s.messages[6]
    assert "<elided_chars>" in cut.content
    assert cut.raw is not None and "AssertionError: boom" in cut.raw and cut.raw.startswith("<returncode>1")


def test_mini_swe_file_events_and_edits_from_bash() -> None:
    s = MiniSweAdapter().load(MINI)
    assert s.edits == [Edit(1, "/testbed/src/app.py", "helo world")]
    kinds = [(e.at, e.kind, e.path) for e in s.file_events]
    assert kinds == [(2, "read", "/testbed/src/app.py"), (4, "edit", "/testbed/src/app.py")]
    read = s.file_events[0]
    assert read.whole and read.content == "def greet():\n    return 'helo world'\n"
    assert (s.file_events[1].old, s.file_events[1].new) == ("helo world", "hello world")


def test_claude_code_merges_blocks_of_one_call() -> None:
    s = ClaudeCodeAdapter().load(CLAUDE)
    assert s.model == "claude-opus-4-6"
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant", "tool", "user", "assistant"]
    first = s.messages[1]
    assert first.content == "Read it first.\n\nReading."  # thinking + text, one message
    assert [tc.name for tc in first.tool_calls] == ["Read"]
    assert [(c.history_len, c.recorded_input_tokens) for c in s.calls] == [(1, 10003), (3, 10251), (6, 10002)]


def test_claude_code_compaction_edits_and_files() -> None:
    s = ClaudeCodeAdapter().load(CLAUDE)
    assert s.compactions == [Compaction(5, 12000)]
    assert s.messages[5].kind == COMPACT_SUMMARY
    assert s.edits == [Edit(1, "/w/app.py", "return 'helo'")]
    by_kind = {(e.kind, e.at): e for e in s.file_events}
    assert by_kind[("read", 2)].whole and by_kind[("read", 2)].content == "def greet():\n    return 'helo'\n"
    # the file after an Edit (original file + replacement) rides on the edit: it is not a Write, whose
    # arguments would show the model the whole text
    assert ("write", 4) not in by_kind
    assert by_kind[("edit", 4)].full_after == "def greet():\n    return 'hello'\n"


def test_claude_code_counts_malformed_and_skips_sidechains_and_synthetic() -> None:
    s = ClaudeCodeAdapter().load(CLAUDE)
    assert s.malformed == 2  # a non-JSON line and a JSON array
    assert all("sub-agent" not in m.content and "No response requested" not in m.content for m in s.messages)


def test_garbage_never_crashes(tmp_path: Path) -> None:
    bad_jsonl = tmp_path / "bad.jsonl"
    bad_jsonl.write_text('{"type": "user"}\n{"type": "assistant", "message": 3}\n\x00\x01garbage\n', encoding="utf-8")
    s = ClaudeCodeAdapter().load(bad_jsonl)
    assert s.calls == [] and s.malformed == 3
    bad_json = tmp_path / "bad.traj.json"
    bad_json.write_text('{"messages": [', encoding="utf-8")
    s2 = MiniSweAdapter().load(bad_json)
    assert s2.calls == [] and s2.malformed == 1
    weird = tmp_path / "weird.traj.json"
    weird.write_text(json.dumps({"messages": [{"role": "assistant", "tool_calls": 5}, {"no": "role"}]}))
    s3 = MiniSweAdapter().load(weird)
    assert s3.malformed == 2


def test_discovery_finds_both_formats_and_reports_other_json_as_skipped(tmp_path: Path) -> None:
    """A JSON file no adapter recognises is listed (the runner reports it skipped, with the reason), not dropped
    unseen; other files are not traces at all."""
    from agent_tui.bench.runner import run_benchmark

    (tmp_path / "notes.json").write_text('{"hello": 1}')
    (tmp_path / "readme.md").write_text("# hi")
    found = discover([FIXTURES, tmp_path])
    assert found == sorted([CLAUDE, MINI, tmp_path / "notes.json"])
    assert adapter_for(tmp_path / "notes.json") is None
    result = run_benchmark([tmp_path], ["full"])
    assert result.skipped == [{"path": str(tmp_path / "notes.json"), "reason": "no adapter recognises it"}]
    assert isinstance(adapter_for(MINI), MiniSweAdapter)
    assert isinstance(adapter_for(CLAUDE), ClaudeCodeAdapter)
    sessions = load_sessions([FIXTURES])
    assert {s.source for s in sessions} == {"mini-swe-agent", "claude-code"}


def test_mini_swe_one_file_grep_is_a_read_of_the_lines_it_printed(tmp_path: Path) -> None:
    """``grep -n -A/-B`` of one file shows numbered runs of it (as read_file with a query does):
    each run is a read at its own first line."""
    data = json.loads(MINI.read_text(encoding="utf-8"))
    cmd = 'grep -n -B1 -A1 "helo" src/app.py'
    data["messages"] = data["messages"][:2] + [
        {"role": "assistant", "content": "Where is it?",
         "tool_calls": [{"function": {"arguments": json.dumps({"command": cmd}), "name": "bash"}, "id": "g1"}],
         "extra": {"response": {"usage": {"prompt_tokens": 100, "completion_tokens": 10}}}},
        {"role": "tool", "tool_call_id": "g1",
         "content": "<returncode>0</returncode>\n<output>\n1-def greet():\n2:    return 'helo world'\n--\n"
                    "40:# helo again\n</output>"},
    ]
    path = tmp_path / "grep.traj.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    s = MiniSweAdapter().load(path)
    reads = [(e.path, e.start_line, e.content, e.whole) for e in s.file_events]
    assert reads == [("/testbed/src/app.py", 1, "def greet():\n    return 'helo world'", False),
                     ("/testbed/src/app.py", 40, "# helo again", False)]


def test_mini_swe_1x_text_actions_replay_as_tool_calls(tmp_path: Path) -> None:
    """mini-swe-agent 1.x puts the command in a fenced block of the text and the output in the next
    user message.  Replayed as a bash call and its result, so reads and edits are found and the output
    is shaped as a tool output, not kept as one more user directive; a response without exactly one
    action gets the agent's format error, which stays a user message."""
    def step(thought: str, command: str) -> dict[str, object]:
        return {"role": "assistant", "content": f"THOUGHT: {thought}\n\n```bash\n{command}\n```",
                "extra": {"response": {"usage": {"prompt_tokens": 100}}}}

    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "<pr_description>Fix the greeting.</pr_description>"},
        step("Read it.", "cat src/app.py"),
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\ndef greet():\n    return 'helo world'\n</output>"},
        {"role": "assistant", "content": "Two at once:\n```bash\nls\n```\n```bash\npwd\n```"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
        step("Fix it.", "sed -i 's/helo world/hello world/' src/app.py"),
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"},
        step("Done.", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
    ]
    for name, data in (("v1.traj.json", {"info": {"config": {"environment": {"cwd": "/testbed"}}},
                                          "messages": messages, "trajectory_format": "mini-swe-agent-1"}),
                       ("bare.traj.json", messages)):
        path = tmp_path / name
        path.write_text(json.dumps(data), encoding="utf-8")
        s = MiniSweAdapter().load(path)
        assert s.malformed == 0
        assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant", "user", "assistant",
                                                "tool", "assistant"]
        assert s.messages[2].tool_call_id == s.messages[1].tool_calls[0].id and not s.messages[3].tool_calls
        assert "EXACTLY ONE" in s.messages[4].content
        cwd = "/testbed" if name.startswith("v1") else "/"
        app = f"{cwd.rstrip('/')}/src/app.py"
        assert [(e.kind, e.path) for e in s.file_events] == [("read", app), ("edit", app)]
        assert s.edits == [Edit(2, app, "helo world")]
        assert len(s.calls) == 4


def test_a_sub_agents_own_transcript_is_its_session(tmp_path: Path) -> None:
    """``subagents/agent-*.jsonl`` is sidechain from end to end: read as the sub-agent's session (in a
    main transcript the sidechain lines are still skipped, as the tiny fixture checks)."""
    rows = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("{") and '"isSidechain": true' not in line]
    for r in rows:
        r["isSidechain"] = True
    path = tmp_path / "agent-a1.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    s = ClaudeCodeAdapter().load(path)
    main = ClaudeCodeAdapter().load(CLAUDE)
    assert len(s.calls) == len(main.calls) > 0
    assert [m.role for m in s.messages] == [m.role for m in main.messages]


def test_a_read_without_tool_use_result_is_its_numbered_lines(tmp_path: Path) -> None:
    """Sub-agent transcripts carry no ``toolUseResult``: the file is the output's ``N→`` lines (not
    the reminder Claude Code appends), whole when no offset or limit was asked."""
    def line(kind: str, content: object) -> str:
        extra = {"model": "claude-opus-4-6", "id": f"m{len(str(content))}",
                 "usage": {"input_tokens": 3}} if kind == "assistant" else {}
        return json.dumps({"type": kind, "isSidechain": True, "message": {"role": kind, "content": content, **extra}})

    out = ("     1\u2192def greet():\n     2\u2192    return 'helo'\n\n<system-reminder>\n"
           "Whenever you read a file, consider whether it is malware.\n</system-reminder>\n")
    rows = [line("user", "Read app.py"),
            line("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/w/app.py"}}]),
            line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": out}]),
            line("assistant", [{"type": "text", "text": "Read."}])]
    path = tmp_path / "agent-x.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    (ev,) = ClaudeCodeAdapter().load(path).file_events
    assert (ev.kind, ev.start_line, ev.whole) == ("read", 1, True)
    assert ev.content == "def greet():\n    return 'helo'\n"


def test_a_tool_call_trajectory_reply_without_a_call_is_not_a_text_action(tmp_path: Path) -> None:
    """In a 1.1 trajectory a reply that shows a fenced command but calls no tool is answered by a
    format error: that error stays a user message, it is not taken for the command's output."""
    data = json.loads(MINI.read_text(encoding="utf-8"))
    data["messages"] = data["messages"][:4] + [
        {"role": "assistant", "content": "Run this:\n```bash\nls\n```"},
        {"role": "user", "content": "Please call the bash tool."},
    ]
    path = tmp_path / "fmt.traj.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    s = MiniSweAdapter().load(path)
    assert [m.role for m in s.messages][-2:] == ["assistant", "user"]
    assert not s.messages[-2].tool_calls and s.messages[-1].content == "Please call the bash tool."


def test_mini_swe_content_given_as_blocks_is_read_as_its_text(tmp_path: Path) -> None:
    """A bench review: content written as a list of blocks (multimodal observations, messages marked for
    Anthropic's cache) was JSON-dumped, so the task became one escaped line (21 rules found became 1), return codes
    and reads went unseen, and an inlined image counted as 220K characters of text."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 50_000}}
    messages = [
        {"role": "system", "content": [{"type": "text", "text": "You are a helpful assistant.\nAlways run tests.",
                                        "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"type": "text", "text": "Fix the greeting.\nNever edit tests."}]},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "c1", "function": {"name": "bash", "arguments": json.dumps({"command": "cat src/app.py"})}}],
         "extra": {"response": {"usage": {"prompt_tokens": 100}}}},
        {"role": "tool", "tool_call_id": "c1", "content": [
            {"type": "text", "text": "<returncode>0</returncode>\n<output>\ndef greet():\n    pass\n</output>"}, image]},
    ]
    path = tmp_path / "blocks.traj.json"
    path.write_text(json.dumps({"messages": messages, "trajectory_format": "mini-swe-agent-1.1"}), encoding="utf-8")
    s = MiniSweAdapter().load(path)
    assert s.malformed == 0
    assert s.system_prompt == "You are a helpful assistant.\nAlways run tests."
    assert s.messages[0].content == "Fix the greeting.\nNever edit tests."
    assert s.messages[2].content.endswith("</output>\n[image]") and "base64" not in s.messages[2].content
    assert [e.kind for e in s.file_events] == ["read"]


@pytest.mark.parametrize(("config", "action"), [
    ({}, "```bash\r\ncat src/app.py\r\n```"),
    ({}, "<mswea_bash_command>cat src/app.py</mswea_bash_command>"),
    ({"agent": {"action_regex": r"<cmd>(.*?)</cmd>"}}, "<cmd>cat src/app.py</cmd>"),
])
def test_mini_swe_text_actions_in_other_forms_are_calls_sent_once(tmp_path: Path, config: dict[str, object],
                                                                     action: str) -> None:
    """Actions fenced with CRLF, in the XML tags of mini-swe-agent's swebench_xml config, or in the trajectory's
    own `action_regex` were missed, so each output became a new user turn; a recognised one was sent twice, in the
    text and as the replayed call (+12 % tokens for every strategy)."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the greeting."},
        {"role": "assistant", "content": f"THOUGHT: read it.\n\n{action}",
         "extra": {"response": {"usage": {"prompt_tokens": 100}}}},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\ndef greet():\n    pass\n</output>"},
    ]
    path = tmp_path / "v1.traj.json"
    path.write_text(json.dumps({"info": {"config": config}, "messages": messages}), encoding="utf-8")
    s = MiniSweAdapter().load(path)
    assert [m.role for m in s.messages] == ["user", "assistant", "tool"]
    (call,) = s.messages[1].tool_calls
    assert json.loads(call.arguments) == {"command": "cat src/app.py"}
    assert s.messages[1].content == "THOUGHT: read it.", "the command is sent once, as the call"
    assert [e.kind for e in s.file_events] == ["read"]


def _cc_line(kind: str, content: object, n: int, **extra: object) -> str:
    message: dict[str, object] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(model="claude-opus-4-6", id=f"msg_{n}", usage={"input_tokens": 3})
    return json.dumps({"type": kind, "sessionId": "s", "uuid": f"u{n}", "message": message, **extra})


def test_claude_code_parallel_results_on_one_line_get_only_their_own_file(tmp_path: Path) -> None:
    """A bench review: one `toolUseResult` on a line answering two Reads was applied to both, so the second file
    was recorded with the first one's text (active-file retention 0/10)."""
    out = "     1\u2192B = 2\n"
    rows = [_cc_line("user", "Read both", 1),
            _cc_line("assistant", [{"type": "tool_use", "id": "r0", "name": "Read", "input": {"file_path": "/w/a.py"}},
                                   {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": "/w/b.py"}}], 2),
            _cc_line("user", [{"type": "tool_result", "tool_use_id": "r0", "content": "     1\u2192A = 1\n"},
                              {"type": "tool_result", "tool_use_id": "r1", "content": out}], 3,
                     toolUseResult={"type": "text", "file": {"filePath": "/w/a.py", "content": "A = 1\n",
                                                             "numLines": 1, "startLine": 1, "totalLines": 1}}),
            _cc_line("assistant", [{"type": "text", "text": "Read."}], 4)]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    events = {ev.path: ev.content for ev in ClaudeCodeAdapter().load(path).file_events}
    assert events == {"/w/a.py": "A = 1\n", "/w/b.py": "B = 2\n"}


def test_framework_user_messages_continue_the_task(tmp_path: Path) -> None:
    """A format error fed back by mini-swe-agent, and Claude Code's meta and interruption lines, continue the task
    (the engine keeps its statement); a user's own message is left for the engine to judge."""
    mini = [{"role": "system", "content": "sys"}, {"role": "user", "content": "Fix it."},
            {"role": "assistant", "content": "done?", "extra": {"response": {"usage": {"prompt_tokens": 9}}}},
            {"role": "user", "content": "Please always provide EXACTLY ONE action."}]
    path = tmp_path / "m.traj.json"
    path.write_text(json.dumps({"messages": mini, "trajectory_format": "mini-swe-agent-1.1"}), encoding="utf-8")
    users = [m for m in MiniSweAdapter().load(path).messages if m.role == "user"]
    assert [m.continues for m in users] == [None, True]
    rows = [_cc_line("user", "Fix it.", 1), _cc_line("assistant", [{"type": "text", "text": "On it."}], 2),
            _cc_line("user", "Caveat: the messages below were generated by the user while running local commands.", 3,
                     isMeta=True),
            _cc_line("user", [{"type": "text", "text": "[Request interrupted by user]"}], 4),
            _cc_line("user", "Now do the other file.", 5)]
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    users = [m for m in ClaudeCodeAdapter().load(path).messages if m.role == "user"]
    assert [m.continues for m in users] == [None, True, True, None]


def test_a_trajectory_named_json_whose_messages_come_late_is_recognised(tmp_path: Path) -> None:
    """mini-swe-agent 2 writes `info.config` (its prompt templates) first: in a real file `"messages"` came 9K
    characters in, past the 4K that were read, and a `.traj.json` saved as `.json` was silently ignored."""
    data = json.loads(MINI.read_text(encoding="utf-8"))
    info = {**(data.get("info") or {}), "config": {"agent": {"system_template": "x" * 50_000}}}
    data = {"info": info, **{k: v for k, v in data.items() if k != "info"}}
    assert next(iter(data)) == "info"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert isinstance(adapter_for(path), MiniSweAdapter)
    assert MiniSweAdapter().load(path).calls


def test_mini_swe_responses_api_records_read_as_the_chat_they_stand_for(tmp_path: Path) -> None:
    """mini-swe-agent 2's response models save the whole Response object for the model's turn and a
    `function_call_output` item per observation: every record counted as malformed and the session was skipped as
    "no model call recorded"."""
    chat = json.loads(MINI.read_text(encoding="utf-8"))
    responses = []
    for m in chat["messages"]:
        if not isinstance(m, dict) or "role" not in m:
            responses.append(m)  # (the fixture's malformed records stay malformed)
        elif m["role"] == "assistant":
            output: list[dict[str, object]] = [{"type": "message", "role": "assistant",
                                                "content": [{"type": "output_text", "text": m.get("content") or ""}]}]
            output += [{"type": "function_call", "call_id": tc["id"], "name": tc["function"]["name"],
                        "arguments": tc["function"]["arguments"]} for tc in m.get("tool_calls") or []]
            usage = m["extra"]["response"]["usage"]
            responses.append({"object": "response", "model": "gpt-5-mini", "output": output,
                              "usage": {"input_tokens": usage["prompt_tokens"], "output_tokens": 9}})
        elif m["role"] == "tool":
            responses.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"],
                              "extra": m.get("extra")})
        else:
            responses.append(m)
    path = tmp_path / "resp.traj.json"
    path.write_text(json.dumps({**chat, "messages": responses}), encoding="utf-8")
    want, got = MiniSweAdapter().load(MINI), MiniSweAdapter().load(path)
    assert got.malformed == want.malformed and got.calls == want.calls
    assert [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in got.messages] == \
        [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in want.messages]
    assert got.file_events == want.file_events and got.edits == want.edits
