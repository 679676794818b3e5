"""Tool calls a local model wrote as its reply's text (``agent_tui.agent.text_tool_calls``): read as calls only
when the whole text is calls to offered tools; anything else stays the answer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.agent.llm_types import Completion, ToolCall
from agent_tui.agent.text_tool_calls import adopt_text_calls, offered_names, parse_text_calls

OFFERED = {"read_file", "list_dir", "git_status"}
READ = {"name": "read_file", "arguments": {"path": "app.py"}}


def _pairs(calls: list[ToolCall] | None) -> list[tuple[str, Any]]:
    assert calls is not None
    return [(c.name, json.loads(c.arguments)) for c in calls]


def test_a_bare_object_is_a_call() -> None:
    calls = parse_text_calls(json.dumps(READ), OFFERED)
    assert _pairs(calls) == [("read_file", {"path": "app.py"})]
    assert calls is not None and calls[0].arguments_error is None and calls[0].id.startswith("call_")


def test_parameters_and_a_type_tag_are_read_as_llama_writes_them() -> None:
    text = '{"type": "function", "name": "list_dir", "parameters": {"path": "."}}'
    assert _pairs(parse_text_calls(text, OFFERED)) == [("list_dir", {"path": "."})]


def test_a_json_fence_and_a_bare_fence() -> None:
    for fence in ("```json\n", "```\n", "```JSON "):
        text = f"\n{fence}{json.dumps(READ, indent=2)}\n```\n"
        assert _pairs(parse_text_calls(text, OFFERED)) == [("read_file", {"path": "app.py"})], fence


def test_tool_call_tags_several_of_them() -> None:
    text = (f"<tool_call>\n{json.dumps(READ)}\n</tool_call>\n"
            '<tool_call>\n{"name": "git_status", "arguments": {}}\n</tool_call>')
    assert _pairs(parse_text_calls(text, OFFERED)) == [("read_file", {"path": "app.py"}), ("git_status", {})]


def test_several_bare_objects_a_list_and_a_fence_in_a_tag() -> None:
    two = [READ, {"name": "list_dir", "arguments": {"path": "src"}}]
    want = [("read_file", {"path": "app.py"}), ("list_dir", {"path": "src"})]
    assert _pairs(parse_text_calls("\n".join(json.dumps(c) for c in two), OFFERED)) == want
    assert _pairs(parse_text_calls(json.dumps(two), OFFERED)) == want
    assert _pairs(parse_text_calls(f"<tool_call>```json\n{json.dumps(READ)}\n```</tool_call>", OFFERED)) == want[:1]


def test_arguments_as_a_json_string() -> None:
    text = json.dumps({"name": "read_file", "arguments": json.dumps({"path": "app.py"})})
    assert _pairs(parse_text_calls(text, OFFERED)) == [("read_file", {"path": "app.py"})]


def test_a_string_of_bad_arguments_is_a_call_whose_arguments_are_refused_the_usual_way() -> None:
    """The call is clearly a call; its arguments get the error a provider's bad arguments get (check_arguments),
    so the runner answers it with "not valid JSON" instead of running it."""
    calls = parse_text_calls(json.dumps({"name": "read_file", "arguments": '{"path": "app.py",'}), OFFERED)
    assert calls is not None and calls[0].arguments_error and "not valid JSON" in calls[0].arguments_error
    assert calls[0].to_message_dict()["function"]["arguments"] == "{}"  # (resent as an object)


def test_prose_around_the_json_is_an_answer() -> None:
    for text in (f"I will read it: {json.dumps(READ)}",
                 f"{json.dumps(READ)}\nThat is the call you need.",
                 f"Example:\n```json\n{json.dumps(READ)}\n```",
                 f"```json\n{json.dumps(READ)}\n```\nRun that to see the file.",
                 f"<tool_call>{json.dumps(READ)}</tool_call> and then I will fix it"):
        assert parse_text_calls(text, OFFERED) is None, text


def test_a_tool_not_offered_is_an_answer_even_beside_offered_ones() -> None:
    assert parse_text_calls(json.dumps({"name": "delete_repo", "arguments": {}}), OFFERED) is None
    assert parse_text_calls(json.dumps([READ, {"name": "functions.read_file", "arguments": {}}]), OFFERED) is None


def test_malformed_json_and_odd_shapes_are_answers() -> None:
    for text in ('{"name": "read_file", "arguments": {"path": "app.py"}',  # cut
                 "{'name': 'read_file', 'arguments': {}}",  # Python, not JSON
                 '```json\n{"name": "read_file", "arguments": {"path": }}\n```',
                 "<tool_call>read_file app.py</tool_call>",
                 "<tool_call></tool_call>", "```json\n```", "[]", "{}", "[1, 2]", '"read_file"',
                 '{"name": "read_file"}',  # no arguments key
                 '{"name": "read_file", "arguments": ["app.py"]}',
                 '{"name": "read_file", "arguments": {}, "parameters": {}}',
                 '{"name": "read_file", "arguments": {}, "id": "x"}',
                 '{"type": "tool", "name": "read_file", "arguments": {}}',
                 '```python\n{"name": "read_file", "arguments": {}}\n```',
                 "[" * 5000 + "]" * 5000, "<tool_call>" * 50 + "{}" + "</tool_call>" * 50, "", "   "):
        assert parse_text_calls(text, OFFERED) is None, text[:80]


def test_offered_names_from_the_request_tools() -> None:
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {}}},
             {"type": "function", "function": {"name": "git_status"}}]
    assert offered_names(tools) == {"read_file", "git_status"}
    assert offered_names(None) == set()


def test_adopt_makes_the_calls_the_reply_s_and_says_so() -> None:
    tools = [{"type": "function", "function": {"name": "read_file"}}]
    reply = Completion(text=json.dumps(READ), finish_reason="stop")
    written = adopt_text_calls(reply, tools)
    assert written is not None and written.text == json.dumps(READ) and "read_file" in written.notice
    assert reply.text == "" and [c.name for c in reply.tool_calls] == ["read_file"]
    for kept in (Completion(text=json.dumps(READ), finish_reason="length"),  # cut: not trusted
                 Completion(text=json.dumps(READ), tool_calls=[ToolCall("c1", "read_file", "{}")]),
                 Completion(text="Done: app.py is fixed.")):
        before = (kept.text, list(kept.tool_calls))
        assert adopt_text_calls(kept, tools) is None and (kept.text, kept.tool_calls) == before
    assert adopt_text_calls(Completion(text=json.dumps(READ)), []) is None  # no tools offered


_names = st.sampled_from(sorted(OFFERED))
_args = st.dictionaries(st.text(min_size=1, max_size=8), st.one_of(st.integers(), st.text(max_size=12), st.booleans()),
                        max_size=3)
_calls = st.lists(st.tuples(_names, _args, st.booleans(), st.booleans()), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(_calls, st.sampled_from(["bare", "fence", "tags", "list"]))
def test_any_calls_written_in_any_form_come_back_as_written(calls: list[tuple[str, dict[str, Any], bool, bool]],
                                                           form: str) -> None:
    objs = [{"name": n, ("parameters" if p else "arguments"): json.dumps(a) if s else a} for n, a, p, s in calls]
    body = "\n".join(json.dumps(o, indent=2) for o in objs)
    text = {"bare": body, "fence": f"```json\n{body}\n```", "list": json.dumps(objs),
            "tags": "\n".join(f"<tool_call>\n{json.dumps(o)}\n</tool_call>" for o in objs)}[form]
    assert _pairs(parse_text_calls(text, OFFERED)) == [(n, a) for n, a, _, _ in calls]


@settings(max_examples=150, deadline=None)
@given(st.text(min_size=1, max_size=40).filter(lambda s: s.strip()), st.booleans())
def test_any_prose_beside_a_call_keeps_the_reply_an_answer(prose: str, before: bool) -> None:
    call = json.dumps(READ)
    text = f"{prose}\n{call}" if before else f"{call}\n{prose}"
    if parse_text_calls(prose, OFFERED) is None:  # (prose that is itself only calls would be calls)
        assert parse_text_calls(text, OFFERED) is None


def test_what_the_record_keeps_of_the_text_is_redacted_before_it_is_cut() -> None:
    """The record keeps 4,000 characters of the text; cut first, a token across the cut kept 38 of its
    characters readable (a reviewer's finding)."""
    import json as _json
    from types import SimpleNamespace

    from agent_tui.agent.llm_types import Completion
    from agent_tui.agent.loop import Agent
    from agent_tui.agent.text_tool_calls import adopt_text_calls
    from agent_tui.core.redact import default_redactor

    token = "ghp_" + "Zq8Lm2Xv7Rt4Kp9Wn3Bc6Hd1Fs5Gj0Ay2UeQ"
    text = _json.dumps({"name": "write_file", "arguments": {"path": "cfg.txt", "content": "x" * 3893 + f" {token}\n"}})
    reply = Completion(text=text)
    written = adopt_text_calls(reply, [{"type": "function", "function": {"name": "write_file", "parameters": {}}}])
    assert written is not None and 3_950 < written.text.find(token) < 4_000
    prov = Agent._reply_provenance(SimpleNamespace(engine=SimpleNamespace(redact=default_redactor())), reply, "ok",
                                   written)
    assert not any(token[:k] in prov["calls_from_text"] for k in range(8, len(token) + 1))
