"""Tool definitions are trimmed without losing what the model needs to pick and call a tool."""

from __future__ import annotations

import mcp_types as types

from agent_tui.mcp import defs
from agent_tui.mcp.catalog import build_entries, qualify, words
from agent_tui.mcp.selection import ToolSet, build_groups, resolve

LONG = (
    "Read the complete contents of a file from the file system as text, handling many encodings and "
    "giving detailed errors. Handles various text encodings and provides detailed error messages. "
    "Use this tool when you need to examine the contents of a single file. "
    "Do not use it for binary files; use read_media_file instead. "
    "Operates on the file as text regardless of extension. Only works within allowed directories."
)


def test_description_keeps_when_clauses_within_budget() -> None:
    short = defs.shape_description(LONG, words=30)
    assert short.startswith("Read the complete contents")
    assert "Use this tool when you need to examine" in short
    assert "Do not use it for binary files" in short
    assert "Only works within allowed directories." in short
    assert "Handles various text encodings" not in short  # neither first nor a when-clause
    assert len(short.split()) <= 60
    dropped = defs.shape_description(
        LONG, 30, frozenset({"Only works within allowed directories."})
    )
    assert "Only works" not in dropped


def test_common_clauses_are_found() -> None:
    texts = [f"Tool {i} does a thing. Only works within allowed directories." for i in range(5)] + [
        "Other."
    ]
    assert defs.common_clauses(texts) == {"Only works within allowed directories."}


def test_schema_keeps_names_types_required_enums_only() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "title": "Args",
        "additionalProperties": False,
        "$defs": {"Mode": {"type": "string", "enum": ["fast", "slow"], "description": "speed"}},
        "properties": {
            "path": {"type": "string", "description": "Where", "minLength": 1},
            "mode": {"$ref": "#/$defs/Mode", "default": "fast"},
            "tail": {
                "anyOf": [{"type": "integer"}, {"type": "null"}],
                "default": None,
                "title": "Tail",
            },
            "files": {"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1},
            "opts": {"type": "object", "properties": {"deep": {"type": ["boolean", "null"]}}},
        },
        "required": ["path", "ghost"],
    }
    out = defs.parameters(schema)
    assert out == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "tail": {"type": "integer"},
            "files": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        },
        "required": ["path"],
    }
    assert (
        defs.signature(out)
        == "(path: string, mode?: fast|slow, tail?: integer, files?: string[], opts?: object)"
    )
    with_words = defs.parameters(schema, param_words=1)
    assert with_words["properties"]["path"]["description"] == "Where"
    assert defs.parameters(None) == {"type": "object", "properties": {}}


def test_qualified_names_are_safe_and_unique() -> None:
    assert qualify("my server", "get.thing") == "my_server__get_thing"
    long = qualify("s" * 40, "t" * 40)
    assert len(long) == 64 and long != qualify("s" * 40, "t" * 39 + "u")
    assert words("readTextFile read_multiple-files") == [
        "read",
        "text",
        "file",
        "read",
        "multiple",
        "file",
    ]


def _tool(
    name: str, description: str, props: dict | None = None, read_only: bool | None = None
) -> types.Tool:
    return types.Tool(
        name=name,
        description=description,
        input_schema={
            "type": "object",
            "properties": props or {"x": {"type": "string", "description": "an x"}},
        },
        output_schema={"type": "object", "properties": {"result": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=read_only)
        if read_only is not None
        else None,
    )


def test_entries_carry_costs_and_drop_output_schema() -> None:
    tools = [
        _tool("read_file", LONG, read_only=True),
        _tool("write_file", "Write a file. " + "Padding words. " * 30),
    ]
    entries, common = build_entries("fs", tools)
    read, write = entries
    assert read.qualified == "fs__read_file" and read.read_only is True and write.read_only is None
    assert "outputSchema" not in str(read.shaped) and "outputSchema" in read.listing
    assert read.tokens_shaped < read.tokens_raw < read.tokens_listing
    assert write.tokens_shaped < write.tokens_raw / 2
    assert common == frozenset()


def test_selection_is_stable_and_budgeted() -> None:
    tools = [
        _tool("read_file", "Read a file."),
        _tool("write_file", "Write a file."),
        _tool("list_directory", "List a directory of files."),
        _tool("move_file", "Move a file."),
    ]
    fs, _ = build_entries("fs", tools)
    tm, _ = build_entries("clock", [_tool("get_time", "Get the current time.")])
    entries = {e.qualified: e for e in fs + tm}
    groups = build_groups(entries.values(), {"browse": ("fs__read_*", "fs__list_*")})
    assert groups["browse"] == ["fs__read_file", "fs__list_directory"]
    per_tool = max(e.tokens_shaped for e in entries.values())
    toolset = ToolSet(budget=per_tool * 2)  # room for two optional tools at most
    sel = toolset.select("please read notes.txt", entries, groups)
    assert sel.required == ("fs__read_file",)
    assert list(toolset.loaded) == ["fs__read_file"]
    sel = toolset.select("now work with fs", entries, groups)  # group named: optional tools
    assert (
        sel.required == () and sel.optional and sel.skipped
    )  # budget: some optional ones left out
    assert list(toolset.loaded)[0] == "fs__read_file"  # earlier loads keep their place
    before = list(toolset.loaded)
    sel = toolset.select("what time is it", entries, groups)
    assert sel.required == ("clock__get_time",)  # required tools pass even when over budget
    assert (
        list(toolset.loaded)[: len(before)] == before
        and list(toolset.loaded)[-1] == "clock__get_time"
    )
    toolset.used.add("clock__get_time")
    dropped = toolset.compact()
    assert list(toolset.loaded) == ["clock__get_time"] and "fs__read_file" in dropped
    found, unknown = resolve(["browse", "move_file", "fs__w*", "nope"], entries, groups)
    assert found == ["fs__read_file", "fs__list_directory", "fs__move_file", "fs__write_file"]
    assert unknown == ["nope"]
