"""The main screen: the conversation, the input, the always-visible budget panel, the status line.

It renders what the app tells it — agent events, breakdowns, session changes —
and turns keys into app actions; it holds no session state of its own.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer

from agent_tui.agent import events as ev
from agent_tui.ui.messages import AgentEventReceived, BudgetChanged, SessionOpened
from agent_tui.ui.widgets.budget import BudgetPanel
from agent_tui.ui.widgets.chat_items import Banner, ThresholdOffer
from agent_tui.ui.widgets.conversation import Conversation
from agent_tui.ui.widgets.prompt import PromptInput
from agent_tui.ui.widgets.status_line import StatusLine

NARROW = 72
"""Below this width the budget panel collapses to one line (ctrl+b toggles it)."""


class MainScreen(Screen[None]):
    """Conversation, input, budget panel, status line."""

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        Binding("escape", "app.cancel_turn", "Cancel turn", show=True),
        Binding("f1", "app.help", "Help"),
        Binding("f2", "app.inspector", "Inspector"),
        Binding("ctrl+r", "app.request", "Request"),
        Binding("f3", "app.memos", "Memos", show=False),
        Binding("f4", "app.mcp", "MCP", show=False),
        Binding("f5", "app.resume", "Sessions", show=False),
        Binding("ctrl+b", "toggle_budget", "Budget", show=False),
    ]

    def __init__(self, banner: str | None, prefill: str = "") -> None:
        super().__init__()
        self.banner = banner
        self.prefill = prefill
        self._user_sized = False

    def compose(self) -> ComposeResult:
        if self.banner:
            yield Banner(self.banner)
        with Horizontal(id="body"):
            with Vertical(id="chat"):
                yield Conversation(id="conversation")
                yield PromptInput(self._item_ids, id="prompt")
            yield BudgetPanel(id="budget")
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        prompt = self.query_one(PromptInput)
        prompt.value = self.prefill
        prompt.cursor_position = len(self.prefill)

    def _item_ids(self) -> list[str]:
        controller = getattr(self.app, "controller", None)
        return controller.item_ids() if controller is not None else []

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def budget(self) -> BudgetPanel:
        return self.query_one(BudgetPanel)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    # layout ----------------------------------------------------------------------------------
    def on_resize(self) -> None:
        if not self._user_sized:
            self.budget.collapsed = self.size.width < NARROW

    def action_toggle_budget(self) -> None:
        self._user_sized = True
        self.budget.collapsed = not self.budget.collapsed

    # what the app reports ---------------------------------------------------------------------
    @on(AgentEventReceived)
    async def _agent_event(self, message: AgentEventReceived) -> None:
        e = message.event
        if isinstance(e, ev.Usage):
            self.status.cost = e.session_cost_usd
        await self.conversation.show(e)

    @on(BudgetChanged)
    def _budget_changed(self, message: BudgetChanged) -> None:
        self.budget.show(message.breakdown, message.points, message.output_tokens, message.reset)

    @on(SessionOpened)
    async def _session_opened(self, message: SessionOpened) -> None:
        self.status.session = message.session_id
        self.status.model = message.model
        self.status.cost = 0.0
        await self.conversation.replay(message.transcript)
        if message.note:
            await self.conversation.note(message.note, "info")

    @on(ThresholdOffer.Accepted)
    def _offer_accepted(self, message: ThresholdOffer.Accepted) -> None:
        self.app.run_command(message.command, "")  # type: ignore[attr-defined]
