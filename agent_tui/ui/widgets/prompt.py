"""The input: plain text goes to the agent, `/commands` to the app; history on up/down,
completion of command names and item ids on tab (or right arrow)."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input

from agent_tui.ui import commands
from agent_tui.ui.messages import ActionFailed, CommandEntered, TaskSubmitted


class SlashSuggester(Suggester):
    """Suggests command names, and item ids after /pin, /evict ..."""

    def __init__(self, item_ids: Callable[[], list[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.item_ids = item_ids

    async def get_suggestion(self, value: str) -> str | None:
        return commands.complete(value, self.item_ids())


class PromptInput(Input):
    """The message box."""

    BINDINGS = [
        Binding("up", "history(-1)", "previous", show=False),
        Binding("down", "history(1)", "next", show=False),
        Binding("tab", "complete", "complete", show=False),
    ]

    def __init__(self, item_ids: Callable[[], list[str]], id: str | None = None) -> None:
        super().__init__(placeholder="Ask the agent, or /help for commands", id=id,
                         suggester=SlashSuggester(item_ids))
        self.history: list[str] = []
        self._cursor = 0

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._cursor = max(0, min(len(self.history), self._cursor + step))
        self.value = self.history[self._cursor] if self._cursor < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        if not self.history or self.history[-1] != text:
            self.history.append(text)
        self._cursor = len(self.history)
        self.value = ""
        try:
            parsed = commands.parse(text)
        except commands.UnknownCommand as exc:
            self.post_message(ActionFailed(str(exc)))
            return
        if parsed is None:
            self.post_message(TaskSubmitted(text[1:] if text.startswith("//") else text))
        else:
            cmd, arg = parsed
            self.post_message(CommandEntered(cmd.name, arg))
