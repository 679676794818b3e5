"""What one provider refuses that the others take (``agent.llm_dialects``), through litellm's real
conversions to fakes that refuse it: a global temperature of 1.5 or a small thinking budget after a
switch to Claude, a Gemini 3 model given both a thinking budget and an effort, and MCP tool schemas
whose enums are numbers, untyped or a ``const``, under a server name starting with a digit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import litellm
import pytest

from agent_tui.agent.llm_provider import request_kwargs
from agent_tui.agent.llm_types import LLMConfig
from agent_tui.core.tool_names import qualify
from agent_tui.mcp import defs
from tests.agent.helpers import make_repo
from tests.providers.helpers import assert_loop, run_loop
from tests.support.fake_anthropic import FakeAnthropic
from tests.support.fake_dialect import Turn
from tests.support.fake_gemini import FakeGemini

MALFORMED = ("read_file", {"file": "calc.py"})


@pytest.mark.parametrize("table, budget, temperature", [
    ({"thinking": 500}, 1024, None),
    ({"temperature": 1.5}, None, 1.0),
    ({"temperature": 0.3}, None, 0.3),
])
async def test_claude_gets_a_budget_and_a_temperature_it_takes(
    tmp_path: Path, table: dict[str, Any], budget: int | None, temperature: float | None,
) -> None:
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        events, second = await run_loop(root, fake, "anthropic/claude-sonnet-4-5", fake.base_url, table, MALFORMED)
    assert_loop(root, fake, events, second)  # nothing refused
    for r in fake.answered:
        assert (r.body.get("thinking") or {}).get("budget_tokens") == budget
        assert r.body.get("temperature") == temperature
        if budget:
            assert r.body["max_tokens"] > budget


async def test_gemini3_gets_the_effort_not_both(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "p")
    with FakeGemini() as fake:
        events, second = await run_loop(root, fake, "gemini/gemini-3-pro-preview", fake.base_url + "/v1beta",
                                        {"thinking": 2048, "reasoning_effort": "low", "api_key": "AIza-test"},
                                        MALFORMED)
    assert_loop(root, fake, events, second)
    for r in fake.answered:
        thinking = r.body["generationConfig"]["thinkingConfig"]
        assert "thinkingBudget" not in thinking and thinking.get("thinkingLevel")


RAW_SCHEMA = {
    "type": "object",
    "properties": {
        "color": {"enum": ["red", "green"], "description": "Which colour."},
        "level": {"type": "integer", "enum": [1, 2, 3], "description": "How deep."},
        "mode": {"const": "fast"},
        "flags": {"type": "array", "items": {"enum": [True, False]}},
    },
    "required": ["color"],
}


def test_shaped_enums_carry_their_type_and_a_const_is_an_enum() -> None:
    shaped = defs.parameters(RAW_SCHEMA)["properties"]
    assert shaped["color"] == {"enum": ["red", "green"], "type": "string"}
    assert shaped["level"] == {"type": "integer", "enum": [1, 2, 3]}
    assert shaped["mode"] == {"enum": ["fast"], "type": "string"}
    assert shaped["flags"]["items"] == {"enum": [True, False], "type": "boolean"}
    assert defs.shape_schema({"enum": ["a", 1]}) == {"enum": ["a", 1]}  # mixed: no type is better than a wrong one


def test_a_tool_name_starts_with_a_letter_or_underscore() -> None:
    assert qualify("1password", "get item") == "_1password__get_item"
    assert qualify("github", "get") == "github__get"
    assert len(qualify("9" * 40, "x" * 40)) <= 64


def test_config_still_names_such_a_tool_as_the_user_writes_it(tmp_path: Path) -> None:
    """The leading ``_`` is the request's business: a deny rule, a tool's settings and a group's glob written
    for ``1password__…`` still apply (the deny rule was silently dropped)."""
    from agent_tui.agent.permissions import Policy
    from agent_tui.core.tool_items import source_of
    from agent_tui.mcp.config import McpConfig, ToolSettings
    from agent_tui.mcp.selection import resolve

    name = qualify("1password", "delete_item")
    policy = Policy(tools={"1password__delete_item": "deny"}, yes=True, workspace=tmp_path)
    assert policy.verdict(name, "write", {}).decision == "deny"
    config = McpConfig(tools={"1password__*": ToolSettings(read_only=True)})
    assert config.tool_settings(name).read_only is True
    found, unknown = resolve(["1password__*"], {name: object()}, {})  # type: ignore[dict-item]
    assert found == [name] and unknown == []
    assert source_of(name) == "mcp:1password"


async def _one_gemini_call(fake: FakeGemini, tools: list[dict[str, Any]]) -> None:
    fake.script(Turn(text="ok"))
    config = LLMConfig(model="gemini/gemini-2.5-flash", api_base=fake.base_url + "/v1beta", api_key="AIza-test")
    kw = request_kwargs(config, [{"role": "user", "content": "hi"}], tools)
    stream = await litellm.acompletion(**kw)
    async for _ in stream:
        pass


async def test_gemini_takes_an_mcp_tool_with_number_enums_and_a_digit_first_server() -> None:
    tool = {"type": "function", "function": {"name": qualify("1password", "get item"), "description": "Get.",
                                             "parameters": defs.parameters(RAW_SCHEMA, param_words=8)}}
    with FakeGemini() as fake:
        await _one_gemini_call(fake, [tool])
        assert fake.rejections == []
        tools = fake.answered[0].body["tools"][0]
        decl = (tools.get("functionDeclarations") or tools["function_declarations"])[0]
        props = decl["parameters"]["properties"]
        assert decl["name"] == "_1password__get_item"
        assert props["color"]["enum"] == ["red", "green"] and props["color"]["type"].lower() == "string"
        assert props["mode"]["enum"] == ["fast"]
        assert props["level"]["type"].lower() == "integer" and "enum" not in props["level"]
        assert "one of 1, 2, 3" in props["level"]["description"] and "How deep." in props["level"]["description"]
        assert "enum" not in props["flags"]["items"] and "true, false" in props["flags"]["items"]["description"]
    assert tool["function"]["parameters"]["properties"]["level"]["enum"] == [1, 2, 3], "the catalogue's copy stays"


async def test_gemini_gets_one_of_and_tuples_as_shapes_it_reads() -> None:
    """litellm dropped a property's oneOf (the property went untyped), read prefixItems as items of type
    OBJECT, and failed on a tuple items list before sending anything (agent-tui retried, then gave up)."""
    params = {"type": "object", "properties": {
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "description": "name, count"},
        "value": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "a value"},
        "flags": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]},
        "same": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]},
    }, "required": ["pair"]}
    tool = {"type": "function", "function": {"name": "put", "description": "Put.", "parameters": params}}
    with FakeGemini() as fake:
        await _one_gemini_call(fake, [tool])
        assert fake.rejections == []
        tools = fake.answered[0].body["tools"][0]
        props = (tools.get("functionDeclarations") or tools["function_declarations"])[0]["parameters"]["properties"]
    kinds = lambda schema: [b["type"].lower() for b in schema["anyOf"]]  # noqa: E731
    assert kinds(props["pair"]["items"]) == ["string", "integer"]
    assert "in this order: string, integer" in props["pair"]["description"]
    assert kinds(props["value"]) == ["string", "integer"]
    assert all(b["description"] == "a value" for b in props["value"]["anyOf"]), "the description is not lost"
    assert kinds(props["flags"]["items"]) == ["string", "boolean"]
    assert props["same"]["items"]["type"].lower() == "string"
    assert "oneOf" in params["properties"]["value"], "the catalogue's copy stays"


@pytest.mark.parametrize("decl, needle", [
    ({"name": "t", "parameters": {"type": "OBJECT", "properties": {"c": {"type": "OBJECT", "enum": ["a"]}}}},
     "only allowed for STRING"),
    ({"name": "t", "parameters": {"type": "OBJECT", "properties": {"p": {"type": "ARRAY", "items": [
        {"type": "STRING"}]}}}}, "Invalid value at"),
    ({"name": "t", "parameters": {"type": "OBJECT", "properties": {"v": {"oneOf": [{"type": "STRING"}]}}}},
     "Unknown name \"oneOf\""),
    ({"name": "t", "parameters": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER", "enum": ["1"]}}}},
     "only allowed for STRING"),
    ({"name": "1password__get", "parameters": {"type": "OBJECT", "properties": {}}}, "Must start with a letter"),
])
def test_fake_gemini_refuses_what_gemini_refuses_in_tools(decl: dict[str, Any], needle: str) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}], "tools": [{"functionDeclarations": [decl]}]}
    with FakeGemini() as fake:
        r = httpx.post(f"{fake.base_url}/v1beta/models/gemini-2.5-flash:generateContent", json=body,
                       headers={"x-goog-api-key": "k"})
    assert r.status_code == 400 and needle in r.json()["error"]["message"]


def test_fake_gemini_refuses_a_budget_and_a_level_together() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}],
            "generationConfig": {"thinkingConfig": {"thinkingBudget": 1024, "thinkingLevel": "low"}}}
    with FakeGemini() as fake:
        r = httpx.post(f"{fake.base_url}/v1beta/models/gemini-3-pro-preview:generateContent", json=body,
                       headers={"x-goog-api-key": "k"})
    assert r.status_code == 400 and "Cannot specify both" in r.json()["error"]["message"]


OBJ_A = {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"}}, "required": ["id", "note"]}
OBJ_B = {"type": "object", "properties": {"path": {"type": "string"}, "note": {"type": "string"}},
         "required": ["path", "note"]}


@pytest.mark.parametrize("union", ["anyOf", "oneOf"])
def test_a_root_union_is_folded_into_one_object_with_every_alternatives_arguments(union: str) -> None:
    """A zod union at the top of an MCP tool's input schema: Anthropic refuses it there (litellm strips it,
    and the tool went out taking no arguments); Gemini needs an OBJECT root (a 400 while the tool was loaded)."""
    params = defs.parameters({union: [OBJ_A, OBJ_B]})
    assert params == {"type": "object", "properties": {"id": {"type": "string"}, "note": {"type": "string"},
                                                        "path": {"type": "string"}}, "required": ["note"]}


def test_all_of_branches_are_the_schemas_own_properties_at_the_root_and_inside() -> None:
    params = defs.parameters({"allOf": [OBJ_A, {"type": "object", "properties": {"deep": {"allOf": [OBJ_B]}}}]})
    assert set(params["properties"]) == {"id", "note", "deep"} and params["required"] == ["id", "note"]
    assert params["properties"]["deep"] == {"type": "object", "properties": {"path": {"type": "string"},
                                                                           "note": {"type": "string"}},
                                            "required": ["path", "note"]}


async def test_gemini_and_claude_take_a_tool_with_a_root_union_and_keep_its_arguments() -> None:
    tool = defs.function(qualify("gitlab", "get"), "Get an issue or a file.", defs.parameters({"anyOf": [OBJ_A, OBJ_B]}))
    with FakeGemini() as fake:
        await _one_gemini_call(fake, [tool])
        assert fake.rejections == []
        tools = fake.answered[0].body["tools"][0]
        decl = (tools.get("functionDeclarations") or tools["function_declarations"])[0]
        assert set(decl["parameters"]["properties"]) == {"id", "note", "path"}
    with FakeAnthropic() as fake:
        fake.script(Turn(text="ok"))
        config = LLMConfig(model="anthropic/claude-sonnet-4-5", api_base=fake.base_url, api_key="sk-ant-test")
        stream = await litellm.acompletion(**request_kwargs(config, [{"role": "user", "content": "hi"}], [tool]))
        async for _ in stream:
            pass
        assert fake.rejections == []
        assert set(fake.answered[0].body["tools"][0]["input_schema"]["properties"]) == {"id", "note", "path"}


@pytest.mark.parametrize("schema, needle", [
    ({"anyOf": [OBJ_A, OBJ_B]}, "must be specified as OBJECT"),
    ({"type": "object", "properties": {"v": {"type": "string", "enum": ["", "a"]}}}, "Invalid value"),
])
def test_fake_gemini_refuses_a_root_that_is_not_an_object_and_an_empty_enum_value(schema: dict[str, Any],
                                                                                  needle: str) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}],
            "tools": [{"functionDeclarations": [{"name": "t", "parameters": schema}]}]}
    with FakeGemini() as fake:
        r = httpx.post(f"{fake.base_url}/v1beta/models/gemini-2.5-flash:generateContent", json=body,
                       headers={"x-goog-api-key": "k"})
    assert r.status_code == 400 and needle in r.json()["error"]["message"]


async def test_gemini_gets_an_enum_with_an_empty_value_as_a_description() -> None:
    """litellm turns "" into null, which Gemini refuses ("Invalid value at …enum[0] (TYPE_STRING)")."""
    schema = {"type": "object", "properties": {"sort": {"type": "string", "enum": ["", "asc", "desc"]}}}
    tool = defs.function("t", "Sort.", defs.parameters(schema))
    with FakeGemini() as fake:
        await _one_gemini_call(fake, [tool])
        assert fake.rejections == []
        tools = fake.answered[0].body["tools"][0]
        prop = (tools.get("functionDeclarations") or tools["function_declarations"])[0]["parameters"]["properties"]["sort"]
        assert "enum" not in prop and 'one of "" (empty), asc, desc' in prop["description"]


@pytest.mark.parametrize("table", [{"thinking": 48000}, {"thinking": 64000}])
async def test_claude_never_gets_max_tokens_above_the_models_output_limit(tmp_path: Path,
                                                                          table: dict[str, Any]) -> None:
    """A budget plus the output reserve made 88000 for a model that answers at most 64000 tokens: Anthropic
    refuses every request ("max_tokens: 88000 > 64000")."""
    root = make_repo(tmp_path / "p")
    with FakeAnthropic() as fake:
        events, second = await run_loop(root, fake, "anthropic/claude-sonnet-4-5", fake.base_url, table, MALFORMED)
    assert_loop(root, fake, events, second)  # nothing refused
    limit = litellm.get_model_info("anthropic/claude-sonnet-4-5")["max_output_tokens"]
    for r in fake.answered:
        assert r.body["thinking"]["budget_tokens"] < r.body["max_tokens"] <= limit


def test_fake_anthropic_refuses_max_tokens_above_the_limit_and_a_root_union() -> None:
    base = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "go"}]}
    with FakeAnthropic() as fake:
        over = httpx.post(f"{fake.base_url}/v1/messages", json={**base, "max_tokens": 88_000})
        union = httpx.post(f"{fake.base_url}/v1/messages", json={**base, "max_tokens": 1000, "tools": [
            {"name": "t", "input_schema": {"type": "object", "anyOf": [OBJ_A, OBJ_B]}}]})
    assert over.status_code == 400 and "88000 > 64000" in over.json()["error"]["message"]
    assert union.status_code == 400 and "does not support oneOf, allOf, or anyOf" in union.json()["error"]["message"]


def test_gemini_shaping_reads_keywords_not_property_names() -> None:
    """A review found a parameter named ``oneOf`` renamed ``anyOf`` (the model would call with the wrong key),
    a tuple's rest-items schema lost, and ``prefixItems: [true]`` turned into an empty ``anyOf``."""
    from agent_tui.agent.llm_dialects import fit_dialect

    params = {"type": "object", "properties": {
        "oneOf": {"type": "string"}, "enum": {"type": "integer", "enum": [1, 2]},
        "row": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}},
        "loose": {"type": "array", "prefixItems": [True]},
        "deep": {"type": "object", "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}},
    }}
    kw: dict[str, Any] = {"tools": [{"type": "function", "function": {"name": "t", "parameters": params}}]}
    fit_dialect("gemini", "gemini/gemini-2.5-flash", kw)
    props = kw["tools"][0]["function"]["parameters"]["properties"]
    assert set(props) == {"oneOf", "enum", "row", "loose", "deep"}, "property names are not keywords"
    assert props["enum"] == {"type": "integer", "description": "one of 1, 2"}
    assert props["row"]["items"] == {"anyOf": [{"type": "string"}, {"type": "number"}]}
    assert "string, then any number of number" in props["row"]["description"]
    assert "items" not in props["loose"] and "anyOf" not in props["loose"]
    assert [b["type"] for b in props["deep"]["properties"]["v"]["anyOf"]] == ["string", "boolean"]
