"""The help screen: every key and every slash command, from the same tables the app uses."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown

from agent_tui.ui.commands import COMMANDS

KEYS: tuple[tuple[str, str, str], ...] = (
    ("Main", "enter", "send the message or run the /command"),
    ("Main", "up / down", "input history"),
    ("Main", "tab", "complete a /command or an item id"),
    ("Main", "esc", "cancel the running turn (the partial answer is kept, marked cut)"),
    ("Main", "f1", "this help"),
    ("Main", "f2", "inspector (every context item)"),
    ("Main", "ctrl+r", "the exact last request, its diff and trace"),
    ("Main", "f3", "memos"),
    ("Main", "f4", "MCP servers and tools"),
    ("Main", "f5", "resume a session"),
    ("Main", "ctrl+b", "collapse or expand the budget panel"),
    ("Main", "ctrl+p", "command palette"),
    ("Main", "ctrl+q", "quit"),
    ("Inspector", "p / u", "pin / unpin the selected item"),
    ("Inspector", "e or d", "evict (drop) the selected message or tool output"),
    ("Inspector", "r", "restore an evicted or summarised item"),
    ("Inspector", "enter or v", "view the full content"),
    ("Inspector", "x", "the exact last request"),
    ("Inspector", "s", "cycle the sort: order, tokens, age, category, state"),
    ("Inspector", "/ or f", "filter (text, cat:NAME, state:NAME, pinned, out)"),
    ("Request", "1 / 2 / 3", "request, diff against the previous one, trace"),
    ("Approval", "y / a / n / r", "allow once / always / deny / deny with a reason"),
    ("Memos", "w", "write a memo now"),
)


def help_markdown(workspace: str = "") -> str:
    lines = ["# agent-tui", ""]
    if workspace:
        lines += [f"Workspace: `{workspace}`", ""]
    lines += ["## Keys", "", "| where | key | does |", "|---|---|---|"]
    lines += [f"| {w} | `{k}` | {d} |" for w, k, d in KEYS]
    lines += ["", "## Commands", "", "| command | does |", "|---|---|"]
    lines += [f"| `/{c.name}{' ' + c.args if c.args else ''}` | {c.help} |" for c in COMMANDS]
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    """Keys and commands."""

    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(self, workspace: str = "") -> None:
        super().__init__()
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Markdown(help_markdown(self.workspace), id="help-text")
        yield Footer()
