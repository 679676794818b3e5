"""A budgeted view of a large JSON value: its shape, its counts and its first rows.

A model rarely needs 1,200 rows of an API response to decide what to do next; it
needs the keys, the types, how many items there are and what one item looks like.
The view shrinks (fewer rows, shallower, narrower) until it fits the token budget.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.core.tokens import TokenCounter

#: (rows per array, depth, chars per value, keys per object), richest first.
LEVELS: tuple[tuple[int, int, int, int], ...] = (
    (3, 3, 300, 40),
    (2, 2, 200, 25),
    (1, 2, 120, 15),
    (1, 1, 80, 10),
    (0, 1, 60, 6),
    (0, 0, 40, 3),
)


def type_name(value: Any) -> str:
    """A short JSON type name: ``str``, ``int``, ``object``, ``array[3]``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return f"array[{len(value)}]"
    return "object"


def shape_of(value: Any, max_keys: int = 8) -> str:
    """``object{id:int, name:str, …}`` for a dict, else its type name."""
    if isinstance(value, dict):
        keys = list(value)[:max_keys]
        more = ", …" if len(value) > max_keys else ""
        inner = ", ".join(f"{k}:{type_name(value[k])}" for k in keys)
        return f"object{{{inner}{more}}}"
    return type_name(value)


def compact(value: Any, width: int) -> str:
    """One-line JSON of ``value`` cut to ``width`` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= width else text[:width] + "…"


def _element_shape(items: list[Any]) -> str:
    shapes = []
    for item in items[:20]:
        s = shape_of(item)
        if s not in shapes:
            shapes.append(s)
    if len(shapes) > 2:
        return " | ".join(shapes[:2]) + " | …"
    return " | ".join(shapes) or "empty"


def _render(
    value: Any, label: str, indent: str, depth: int, level: tuple[int, int, int, int]
) -> list[str]:
    rows, _, width, max_keys = level
    if isinstance(value, dict):
        if depth <= 0 or not value:
            return [f"{indent}{label}{shape_of(value, max_keys)}"]
        out = [f"{indent}{label}object with {len(value):,} key(s):"]
        keys = list(value)
        for key in keys[:max_keys]:
            out += _render(value[key], f"{json.dumps(key)}: ", indent + "  ", depth - 1, level)
        if len(keys) > max_keys:
            rest = ", ".join(keys[max_keys : max_keys + 10])
            out.append(f"{indent}  … {len(keys) - max_keys:,} more key(s): {rest}")
        return out
    if isinstance(value, list):
        out = [f"{indent}{label}array of {len(value):,} ({_element_shape(value)})"]
        if depth > 0:
            for i, item in enumerate(value[:rows]):
                out.append(f"{indent}  [{i}] {compact(item, width)}")
        return out
    return [f"{indent}{label}{compact(value, width)}"]


def summarize_json(value: Any, budget: int, counter: TokenCounter) -> str:
    """The richest structural view of ``value`` within ``budget`` tokens ("" if none fits)."""
    for level in LEVELS:
        text = "JSON " + "\n".join(_render(value, "", "", level[1], level))
        if counter.count_within(text, budget) is not None:
            return text
    return ""
