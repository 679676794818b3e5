"""Slash commands: one table that the input, the command palette and the help screen share.

Keeping the names, argument hints and help text in one place means the
completion, the palette entries and the help screen can never disagree with
what the dispatcher accepts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    """One `/name [args]` command."""

    name: str
    """Name without the slash."""
    args: str
    """Argument hint shown in help and completion ('' for none)."""
    help: str
    """One line of what it does."""
    needs_arg: bool = False
    """The palette asks for the argument before running it."""


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("context", "", "open the inspector: every context item, its tokens and state"),
    SlashCommand("pin", "ID|TEXT", "pin an item (or pin TEXT as a project rule)", True),
    SlashCommand("unpin", "ID", "unpin an item", True),
    SlashCommand("evict", "ID", "take an item (a message or a tool output) out of the window", True),
    SlashCommand("restore", "ID", "bring an evicted or summarised item back", True),
    SlashCommand("remember", "TEXT", "add TEXT as a rule to AGENTS.md (also: # TEXT at the prompt)", True),
    SlashCommand("init", "", "draft an AGENTS.md for this workspace with the model (approve its diff)"),
    SlashCommand("compact", "[FOCUS]", "fold older rounds into the summary now (FOCUS: what to keep)"),
    SlashCommand("undo", "", "take back the files the agent's last turn wrote or edited (not shell commands)"),
    SlashCommand("memo", "", "write a progress memo now"),
    SlashCommand("memos", "", "list and view progress memos"),
    SlashCommand("new", "", "start a fresh session seeded by a memo"),
    SlashCommand("resume", "[ID]", "pick a past session to continue"),
    SlashCommand("model", "[MODEL]", "show or switch the model (litellm string, e.g. openai/gpt-4o)"),
    SlashCommand("threshold", "[PCT|+N|-N]", "raise or lower the compaction point"),
    SlashCommand("request", "", "view the exact last request, its diff and trace"),
    SlashCommand("mcp", "", "MCP servers, their status and tools with token costs"),
    SlashCommand("tools", "[off|on NAME]", "tool definitions and their tokens; off NAME disables a tool for the session"),
    SlashCommand("help", "", "keys and commands"),
    SlashCommand("quit", "", "leave agent-tui"),
)

BY_NAME: dict[str, SlashCommand] = {c.name: c for c in COMMANDS}


class UnknownCommand(ValueError):
    """The text starts with '/' but names no command."""


def parse(text: str) -> tuple[SlashCommand, str] | None:
    """(command, argument) for '/name arg', None for plain text; UnknownCommand for a bad name."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    cmd = BY_NAME.get(name.lower())
    if cmd is None:
        close = difflib.get_close_matches(name.lower(), list(BY_NAME), n=1)
        hint = f" (did you mean /{close[0]}?)" if close else ""
        raise UnknownCommand(f"unknown command /{name}{hint}; /help lists them, and //… sends a message "
                             "that starts with /")
    return cmd, arg.strip()


def completions(text: str, item_ids: list[str] | None = None) -> list[str]:
    """Every completed input for a partial '/na' or '/pin m', in order (tab takes the first, then the next)."""
    if not text.startswith("/"):
        return []
    head, sep, arg = text[1:].partition(" ")
    if not sep:
        return [f"/{c.name}{' ' if c.args else ''}" for c in COMMANDS
                if c.name.startswith(head.lower()) and c.name != head]
    cmd = BY_NAME.get(head.lower())
    if cmd is None or not item_ids or "ID" not in cmd.args or " " in arg or not arg:
        return []
    return [f"/{cmd.name} {item_id}" for item_id in item_ids if item_id.startswith(arg) and item_id != arg]


def threshold_value(arg: str, current: float) -> float:
    """The new compaction point for '/threshold 70', '+5' or '-5' (a share, 0.05..0.99)."""
    text = arg.strip().rstrip("%")
    if not text:
        raise ValueError("give a percentage (70), or a step up or down (+5, -5)")
    try:
        number = float(text)
    except ValueError as exc:
        raise ValueError(f"not a number: {arg!r}") from exc
    value = current + number / 100.0 if text[0] in "+-" else number / 100.0
    if not 0.05 <= value <= 0.99:
        raise ValueError(f"the compaction point must be between 5% and 99% (got {value:.0%})")
    return round(value, 4)
