"""The help screen: every key and every slash command, from the same tables the app uses."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from agent_tui.ui.commands import COMMANDS
from agent_tui.ui.screens.approval import ApprovalScreen
from agent_tui.ui.screens.mcp import McpScreen
from agent_tui.ui.screens.sessions import SessionsScreen
from agent_tui.ui.screens.to_box import TypesToBox
from agent_tui.ui.screens.trust import TrustScreen

KEY_NAMES = {"escape": "esc", "pagedown": "pgdn", "pageup": "pgup"}
"""How the help names a Textual key."""


def binding_rows(where: str, bindings: Sequence[BindingType]) -> tuple[tuple[str, str, str], ...]:
    """A screen's bindings as help rows (alternative keys joined by "or"), so the help cannot miss a key
    the screen takes: it listed `y / a / n / r` while the approval dialog also took p, o, d and esc."""
    rows = []
    for b in bindings:
        if isinstance(b, Binding):
            keys = " or ".join(KEY_NAMES.get(k.strip(), k.strip()) for k in b.key.split(","))
            rows.append((where, keys, b.tooltip or b.description.lower()))
    return tuple(rows)


KEYS: tuple[tuple[str, str, str], ...] = (
    ("Main", "enter", "send the message or run the /command"),
    ("Main", "shift+enter / ctrl+j", "new line in the message"),
    ("Main", "up / down", "input history (on the first / last line; kept per workspace)"),
    ("Main", "tab", "complete a /command, an item id or a model name (again: the next match; shift+tab back)"),
    ("Main", "esc", "cancel the running turn (right after closing a panel: press it twice)"),
    ("Main", "f1", "this help"),
    ("Main", "f2", "inspector (every context item)"),
    ("Main", "ctrl+r", "the exact last request, its diff and trace"),
    ("Main", "f3", "memos"),
    ("Main", "f4", "MCP servers and tools"),
    ("Main", "f5", "resume a session"),
    ("Main", "ctrl+b", "collapse or expand the budget panel"),
    ("Main", "ctrl+p", "command palette"),
    ("Main", "ctrl+c", "cancel the running turn (like esc); copies when text is selected"),
    ("Main", "ctrl+q", "quit (during a turn: press it twice)"),
    ("Main", "pgup / pgdn", "scroll the conversation"),
    ("Inspector", "p / u", "pin / unpin the selected item"),
    ("Inspector", "e or d", "evict (drop) the selected message or tool output"),
    ("Inspector", "r", "restore an evicted or summarised item"),
    ("Inspector", "enter or v", "view the full content"),
    ("Inspector", "x", "the exact last request"),
    ("Inspector", "s", "cycle the sort: order, tokens, age, category, state"),
    ("Inspector", "/ or f", "filter (text, cat:NAME, state:NAME, pinned, out)"),
    ("Request", "1 / 2 / 3", "request, diff against the previous one, trace"),
    *binding_rows("Approval", ApprovalScreen.BINDINGS),
    *binding_rows("Trust", TrustScreen.BINDINGS),
    *binding_rows("Sessions", SessionsScreen.BINDINGS),
    *binding_rows("MCP", McpScreen.BINDINGS),
    ("Memos", "w", "write a memo now"),
)


def help_markdown(workspace: str = "") -> str:
    """Keys and commands as Markdown (README, docs); the screen draws the same tables as text."""
    lines = ["# agent-tui", ""]
    if workspace:
        lines += [f"Workspace: `{workspace}`", ""]
    lines += ["## Keys", "", "| where | key | does |", "|---|---|---|"]
    lines += [f"| {w} | `{k}` | {d} |" for w, k, d in KEYS]
    lines += ["", "## Commands", "", "| command | does |", "|---|---|"]
    lines += [f"| `/{c.name}{' ' + c.args if c.args else ''}` | {c.help} |" for c in COMMANDS]
    lines += ["", BUDGET_NOTE]
    return "\n".join(lines)


BUDGET_NOTE = ("The input budget is the window minus the reserve kept for the answer, minus a safety margin "
               "for the token count's error: input budget = window − reserve − margin (the budget panel "
               "shows the numbers). Cache hits and cost show once the provider reports them.")
KEY_COLUMN = 20
MIN_TEXT = 24
"""Cells a description needs beside its key; narrower, the key and its text are stacked (at 40 columns the text
wrapped into the key column)."""


def help_lines(width: int) -> list[str | tuple[str, str]]:
    """One line per key (a long description wraps under itself), section headers between."""
    out: list[str | tuple[str, str]] = []
    room = width - KEY_COLUMN - 1
    stacked = room < MIN_TEXT  # (narrow: each key on a line of its own, what it does under it)

    def rows(key: str, text: str) -> None:
        if stacked:
            out.append(key)
            out.extend("      " + line for line in textwrap.wrap(text, max(10, width - 6)) or [""])
            return
        wrapped = textwrap.wrap(text, room) or [""]
        out.append(f"{key:<{KEY_COLUMN}} {wrapped[0]}")
        out.extend(" " * (KEY_COLUMN + 1) + more for more in wrapped[1:])

    where = ""
    for w, k, d in KEYS:
        if w != where:
            out.append((f"{w}", "bold $accent"))
            where = w
        rows(f"  {k}", d)
    out.append(("Commands", "bold $accent"))
    for c in COMMANDS:
        rows(f"  /{c.name}{' ' + c.args if c.args else ''}", c.help)
    out.append(("The budget", "bold $accent"))
    out.extend(textwrap.wrap(BUDGET_NOTE, max(20, width)))
    return out


class HelpText(Static):
    """The keys and commands, laid out for the width it has."""

    def render(self) -> Content:
        parts: list[str | tuple[str, str]] = []
        for line in help_lines(self.content_size.width or 76):
            parts += [line, "\n"]
        return Content.assemble(*parts[:-1])


class HelpScreen(TypesToBox, ModalScreen[None]):
    """Keys and commands."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape", "dismiss", "Close", priority=True), Binding("q,f1", "dismiss", "Close", show=False)]
    VIEW_KEYS = frozenset("q")
    """The printable keys this screen binds (letters typed on go into the message box)."""

    def __init__(self, workspace: str = "") -> None:
        super().__init__()
        self.workspace = workspace
        self.source = help_markdown(workspace)
        """The same content as Markdown."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog") as box:
            box.border_title = "agent-tui help" + (f" · {self.workspace}" if self.workspace else "")
            box.border_subtitle = "esc closes · ↑↓ scroll"
            yield HelpText(id="help-text")
        yield Footer(compact=True)
