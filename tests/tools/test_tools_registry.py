"""The registry turns every kind of bad call into a clear error result, never an exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.base import ToolContext, ToolError, ToolResult, ToolSpec, make_result
from agent_tui.tools.registry import ToolRegistry

from .fakes import FakeContext

ECHO = ToolSpec(
    name="echo",
    description="Echo a message.",
    parameters={
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "times": {"type": "integer", "minimum": 1, "default": 1},
            "mode": {"type": "string", "enum": ["plain", "loud"]},
        },
        "required": ["message"],
        "additionalProperties": False,
    },
    max_result_tokens=50,
)


async def echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return make_result(" ".join([args["message"]] * args["times"]), ctx)


async def broken(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    raise KeyError("missing_thing")


async def refusing(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    raise ToolError("I refuse, politely.")


@pytest.fixture
def reg() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(ECHO, echo)
    empty = {"type": "object", "properties": {}}
    registry.register(ToolSpec(name="broken", description="b", parameters=empty), broken)
    registry.register(ToolSpec(name="refusing", description="r", parameters=empty), refusing)
    return registry


async def test_valid_json_string_and_defaults(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("echo", '{"message": "hi"}', ctx)
    assert not result.is_error and result.text == "hi"
    twice = await reg.run("echo", {"message": "hi", "times": 2}, ctx)
    assert twice.text == "hi hi"


async def test_malformed_json_is_a_clear_error(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("echo", '{"message": "hi",', ctx)
    assert result.is_error
    assert "Arguments for echo are not valid JSON" in result.text
    assert "line 1 column" in result.text
    assert 'e.g. {"message": "..."}' in result.text
    assert "Expected: echo(message: string, times?: integer, mode?: string)" in result.text


async def test_non_object_json(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("echo", "[1, 2]", ctx)
    assert result.is_error and "must be a JSON object, got list" in result.text


async def test_schema_violations_listed(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("echo", {"times": "three", "mode": "quiet", "colour": "red"}, ctx)
    assert result.is_error
    text = result.text
    assert text.startswith("Invalid arguments for echo:")
    assert "'message' is required (missing)" in text
    assert "'times': expected integer, got \"three\"" in text
    assert "'mode': must be one of ['plain', 'loud'], got \"quiet\"" in text
    assert "'colour' was unexpected" in text
    assert "Expected: echo(" in text


async def test_unknown_tool_names_available(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("delete_everything", {}, ctx)
    assert result.is_error
    assert (
        result.text == "Unknown tool 'delete_everything'. Available tools: echo, broken, refusing."
    )


async def test_exception_in_tool_becomes_message(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("broken", "", ctx)
    assert result.is_error
    assert result.text == "Tool broken failed: KeyError: 'missing_thing'"
    assert "Traceback" not in result.text


async def test_tool_error_message_passes_through(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("refusing", None, ctx)
    assert result.is_error and result.text == "I refuse, politely."


async def test_oversized_result_is_shaped_with_handle(reg: ToolRegistry, ctx: FakeContext) -> None:
    result = await reg.run("echo", {"message": "word\n", "times": 400}, ctx)
    assert result.handle is not None
    assert result.shaped_tokens <= 50
    assert ctx.results.get(result.handle) == " ".join(["word\n"] * 400)
    assert result.raw_tokens > 50


def test_schemas_openai_format(reg: ToolRegistry) -> None:
    schemas = reg.schemas()
    assert [s["function"]["name"] for s in schemas] == ["echo", "broken", "refusing"]
    assert schemas[0] == {
        "type": "function",
        "function": {
            "name": "echo",
            "description": "Echo a message.",
            "parameters": ECHO.parameters,
        },
    }
    assert [s["function"]["name"] for s in reg.schemas(["refusing", "nope"])] == ["refusing"]


def test_register_rejects_duplicates_and_bad_schemas(reg: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="already registered"):
        reg.register(ECHO, echo)
    bad = ToolSpec(name="bad", description="", parameters={"type": "nonsense"})
    with pytest.raises(Exception, match="nonsense"):
        reg.register(bad, echo)


def test_builtin_specs_are_complete(registry: ToolRegistry) -> None:
    assert registry.names() == [
        "read_file", "edit_file", "write_file", "list_dir", "search", "run_command",
        "git_status", "git_diff", "git_log", "save_memo", "recall", "fetch_result",
    ]  # fmt: skip
    kinds = {s.name: s.kind for s in registry.specs()}
    assert kinds["edit_file"] == kinds["write_file"] == "write"
    assert kinds["run_command"] == "command"
    assert all(kinds[n] == "read" for n in ("read_file", "search", "git_diff", "list_dir"))
    for spec in registry.specs():
        assert spec.scope == "turn"
        assert spec.parameters["type"] == "object"
        assert "Use it" in spec.description and "Not for" in spec.description, spec.name
    json.dumps(registry.schemas())  # serialisable as sent to the model


async def test_builtin_bad_args_through_registry(registry: ToolRegistry, ws: Path) -> None:
    ctx = FakeContext(workspace=ws)
    result = await registry.run("read_file", '{"path": 12}', ctx)
    assert result.is_error and "'path': expected string, got 12" in result.text
    result = await registry.run("read_file", '{"pth": "a"}', ctx)
    assert "'path' is required (missing)" in result.text and "'pth' was unexpected" in result.text
