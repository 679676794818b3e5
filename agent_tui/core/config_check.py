"""Schemas for the free-form config tables: ``[approval]``, ``[tools.X]``, ``[mcp]``, ``[models."x"]``.

A value the code does not understand must stop the program at start-up with one line
naming the file, the key and what was expected — never mean "allow" by accident
(``default_command = "Ask"``) or crash a turn after a tool already ran
(``max_tokens = 'lots'``).  Each section is one table of ``key -> Check`` below, so a
new key is one line; ``SECTIONS`` maps a dotted path (``*`` = any name) to its table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent_tui.core.model_settings import REASONING_EFFORTS


class SchemaError(ValueError):
    """One bad value: where it is and what was expected (config.py wraps it into a ConfigError)."""


@dataclass(frozen=True)
class Check:
    """What a key accepts: a test and the words that say it."""

    ok: Callable[[Any], bool]
    """True when the value is acceptable."""
    expected: str
    """Shown in the error message: ``expected <this>``."""


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def one_of(*choices: str) -> Check:
    """A string among ``choices`` (exact case: ``"Ask"`` is not ``"ask"``)."""
    return Check(lambda v: isinstance(v, str) and v in choices, "one of " + ", ".join(f'"{c}"' for c in choices))


def whole(low: int = 0) -> Check:
    """A whole number >= ``low``."""
    return Check(lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= low, f"a whole number >= {low}")


def positive() -> Check:
    """A number > 0."""
    return Check(lambda v: _is_num(v) and v > 0, "a number > 0")


def fraction() -> Check:
    """A number between 0 and 1."""
    return Check(lambda v: _is_num(v) and 0 <= v <= 1, "a number between 0 and 1")


def number() -> Check:
    """Any number."""
    return Check(_is_num, "a number")


def text() -> Check:
    """A string."""
    return Check(lambda v: isinstance(v, str), "a string")


def boolean() -> Check:
    """true or false."""
    return Check(lambda v: isinstance(v, bool), "true or false")


def strings() -> Check:
    """A list of strings."""
    return Check(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings")


def string_or_strings() -> Check:
    """A string or a list of strings."""
    return Check(lambda v: isinstance(v, str) or strings().ok(v), "a string or a list of strings")


def table_of(inner: Check) -> Check:
    """A table whose every value passes ``inner``."""
    return Check(lambda v: isinstance(v, dict) and all(inner.ok(x) for x in v.values()),
                 f"a table of {inner.expected}")


def any_table() -> Check:
    """A table (its own schema, if any, is checked as a section)."""
    return Check(lambda v: isinstance(v, dict), "a table")


DECISION = one_of("ask", "allow", "deny")

APPROVAL: dict[str, Check] = {
    "default_write": DECISION,
    "default_command": DECISION,
    "tools": table_of(DECISION),
    "allow_commands": strings(),
    "allow_outside_commands": strings(),
    "deny_commands": strings(),
    "sandboxed_commands": DECISION,
}
"""``[approval]``: per-kind defaults, per-tool decisions, command patterns."""

TOOL: dict[str, Check] = {
    "scope": one_of("turn", "session", "global"),
    "shape": one_of("exact", "summary"),
    "max_tokens": whole(1),
}
"""``[tools.<name>]``: how one built-in tool's results are kept."""

MCP: dict[str, Check] = {
    "servers": any_table(),
    "groups": table_of(string_or_strings()),
    "tools": any_table(),
    "always_load": string_or_strings(),
    "timeout": positive(),
    "result_max_tokens": whole(1),
    "tool_budget": whole(1),
    "description_words": whole(1),
    "param_words": whole(0),
    "catalog_tokens": whole(1),
    "connect_timeout": positive(),
}
"""``[mcp]``: servers, tool groups and the token budgets of tool definitions."""

MCP_SERVER: dict[str, Check] = {
    "command": text(),
    "args": strings(),
    "env": table_of(text()),
    "cwd": text(),
    "url": text(),
    "headers": table_of(text()),
    "timeout": positive(),
    "enabled": boolean(),
    "disabled": boolean(),
    "protocol": text(),
    "type": one_of("stdio", "http", "streamable-http", "streamable_http", "sse"),
    "transport": one_of("stdio", "http", "streamable-http", "streamable_http", "sse"),
}
"""``[mcp.servers.<name>]``: a command to spawn or a URL."""

MCP_TOOL: dict[str, Check] = {
    "scope": one_of("turn", "session", "global"),
    "shape": one_of("exact", "summary"),
    "max_tokens": whole(1),
    "timeout": positive(),
    "read_only": boolean(),
}
"""``[mcp.tools."server__tool"]``: one MCP tool's result settings."""

def _budget_keys() -> dict[str, Check]:
    """Every [budget] key may be overridden per model (their values are checked with [budget]'s rules)."""
    from dataclasses import fields

    from agent_tui.core.config import BudgetConfig

    return {f.name: Check(lambda v: True, "a [budget] value") for f in fields(BudgetConfig)}


MODEL: dict[str, Check] = {
    **_budget_keys(),
    "window": whole(1),
    "output_reserve": whole(0),
    "reserve_share": fraction(),
    "system_share": fraction(),
    "memory_share": fraction(),
    "summary_share": fraction(),
    "files_share": fraction(),
    "history_share": fraction(),
    "results_share": fraction(),
    "compact_at": fraction(),
    "fresh_at": fraction(),
    "safety_margin": fraction(),
    "api_key_env": Check(lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "api_key": Check(lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "max_output_tokens": whole(1),
    "temperature": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "reasoning_effort": one_of(*REASONING_EFFORTS),
    "thinking": whole(1),
    "num_ctx": whole(1),
    "stream_timeout": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "input_cost_per_token": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "output_cost_per_token": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "cache_read_input_token_cost": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "cache_creation_input_token_cost": Check(lambda v: _is_num(v) and v >= 0, "a number >= 0"),
    "cache": boolean(),
    "extra": any_table(),
}
"""``[models."<model>"]``: per-model window, budget overrides, key source, sampling and provider extras."""

SECTIONS: dict[str, dict[str, Check]] = {
    "approval": APPROVAL,
    "tools.*": TOOL,
    "mcp": MCP,
    "mcp.servers.*": MCP_SERVER,
    "mcp.tools.*": MCP_TOOL,
    "models.*": MODEL,
}
"""Every checked section by its dotted path; ``*`` stands for any one name."""


def _show(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else json.dumps(key)


def _children(data: dict[str, Any], path: str) -> list[tuple[str, Any]]:
    """The (dotted name, table) pairs that a section path like ``mcp.servers.*`` names in ``data``."""
    found: list[tuple[str, Any]] = [("", data)]
    for part in path.split("."):
        nxt: list[tuple[str, Any]] = []
        for name, node in found:
            if not isinstance(node, dict):
                continue
            keys = list(node) if part == "*" else ([part] if part in node else [])
            for k in keys:
                nxt.append((f"{name}.{_show(k)}" if name else _show(k), node[k]))
        found = nxt
    return found


def check_sections(data: dict[str, Any], where: str) -> None:
    """Raise SchemaError for the first unknown key or wrong value in any section of ``data``."""
    for path, schema in SECTIONS.items():
        for name, table in _children(data, path):
            if not isinstance(table, dict):
                raise SchemaError(f"{where}: [{name}] must be a table, got {table!r}")
            for key, value in table.items():
                check = schema.get(key)
                if check is None:
                    known = ", ".join(sorted(schema))
                    raise SchemaError(f"{where}: [{name}] unknown key {_show(key)} (known: {known})")
                if not check.ok(value):
                    raise SchemaError(f"{where}: [{name}] {_show(key)} = {value!r}: expected {check.expected}")
