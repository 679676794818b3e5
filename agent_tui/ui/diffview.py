"""Unified diffs and argument summaries as coloured text, shared by the approval dialog,
tool panels and the request view."""

from __future__ import annotations

import difflib
import json
from typing import Any

from textual.content import Content


def diff_content(diff: str, max_lines: int | None = None) -> Content:
    """A unified diff with added lines green, removed red, hunk headers in the accent colour."""
    lines = diff.splitlines()
    cut = 0
    if max_lines is not None and len(lines) > max_lines:
        cut, lines = len(lines) - max_lines, lines[:max_lines]
    parts: list[str | tuple[str, str]] = []
    for line in lines:
        if line.startswith(("+++", "---")):
            parts.append((line, "bold"))
        elif line.startswith("+"):
            parts.append((line, "$success"))
        elif line.startswith("-"):
            parts.append((line, "$error"))
        elif line.startswith("@@"):
            parts.append((line, "$accent"))
        else:
            parts.append(line)
        parts.append("\n")
    if cut:
        parts.append((f"… {cut} more lines", "italic"))
    return Content.assemble(*parts)


def unified(before: str, after: str, a: str = "previous", b: str = "latest") -> str:
    """A unified diff of two texts ('' when equal)."""
    return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), a, b, lineterm="", n=2))


def args_summary(name: str, arguments: Any, width: int = 60) -> str:
    """The one argument that says what a call does: a path, a command, a query."""
    if isinstance(arguments, dict):
        for key in ("command", "path", "query", "pattern", "handle", "text"):
            if arguments.get(key):
                text = " ".join(str(arguments[key]).split())
                return text if len(text) <= width else text[: width - 1] + "…"
        text = json.dumps(arguments, ensure_ascii=False)
    else:
        text = str(arguments)
    return text if len(text) <= width else text[: width - 1] + "…"


def pretty_args(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, indent=2)
