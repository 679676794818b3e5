"""The main screen: the conversation, the input, the always-visible budget panel, the status line.

It renders what the app tells it — agent events, breakdowns, session changes —
and turns keys into app actions; it holds no session state of its own.
"""

from __future__ import annotations

import time

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Collapsible, Footer, Static

from agent_tui.agent import events as ev
from agent_tui.agent.demo import DEMO_MODEL
from agent_tui.ui import commands
from agent_tui.ui.drafts import TOKEN
from agent_tui.ui.input_history import InputHistory
from agent_tui.ui.messages import (
    AgentEventReceived,
    BudgetChanged,
    CompactionSkipped,
    FilesUndone,
    SessionOpened,
)
from agent_tui.ui.screens.to_box import send_paste
from agent_tui.ui.widgets.budget import BudgetPanel
from agent_tui.ui.widgets.chat_items import Banner, ThresholdOffer
from agent_tui.ui.widgets.conversation import Conversation, engine_wrote
from agent_tui.ui.widgets.prompt import PromptInput, paste_size
from agent_tui.ui.widgets.status_line import StatusLine

NARROW = 100
"""Below this width the budget panel collapses to one line (ctrl+b toggles it): at 80 columns the
conversation needs the room."""
SHORT = 20
"""Rows below which the demo's banner keeps one line (at 40×12 its six lines left the conversation none)."""


ESC_AFTER_OVERLAY = 1.5
"""Seconds after an overlay closed in which esc only warns (one more press meant for the overlay); later, esc
cancels the turn at once (a tester answered an approval and found the next esc only warning, long after)."""


class MainScreen(Screen[None]):
    """Conversation, input, budget panel, status line."""

    CSS_PATH = "main.tcss"
    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", show=True),
        # the keys that open a screen act on arrival (priority), so the keys typed on with them reach that screen:
        # plain bindings ran once the key had bubbled up from the box, which had taken the enter behind it (f5,
        # down, enter at once sent the draft)
        Binding("f1", "app.help", "Help", priority=True),
        Binding("f2", "app.inspector", "Inspector", priority=True),
        Binding("ctrl+r", "app.request", "Request", priority=True),
        Binding("f3", "app.memos", "Memos", show=False, priority=True),
        Binding("f4", "app.mcp", "MCP", show=False, priority=True),
        Binding("f5", "app.resume", "Sessions", show=False, priority=True),
        Binding("ctrl+b", "toggle_budget", "Budget", show=False),
        # the box has the focus nearly always; pgup/pgdn there read back through the conversation, whose place
        # is then kept while the answer streams (they moved the cursor in a box of a few lines)
        Binding("pageup", "page_conversation(-1)", "Scroll back", show=False, priority=True),
        Binding("pagedown", "page_conversation(1)", "Scroll on", show=False, priority=True),
    ]

    def __init__(self, banner: str | None, history: InputHistory | None = None, default_task: str = "") -> None:
        super().__init__()
        self.banner = banner
        self.history = history or InputHistory(None)
        self.default_task = default_task
        self._user_sized = False
        self._esc_armed = True
        """False right after an overlay closed: the next esc only arms (a second one cancels)."""
        self._resumed_at = 0.0
        """When an overlay last closed (``time.monotonic()``): the esc it may still take is one pressed soon after."""
        self._typed_ahead: list[str] = []
        """Text typed before the message box existed (the user typing on right after launching)."""

    def compose(self) -> ComposeResult:
        if self.banner:
            yield Banner(self.banner)
        with Horizontal(id="body"):
            with Vertical(id="chat"):
                yield Conversation(id="conversation")
                yield Vertical(id="pastes")
                yield PromptInput(self._complete, self.history, self._hint(), self.default_task, id="prompt")
            panel = BudgetPanel(id="budget")
            panel.set_reactive(BudgetPanel.collapsed, self.app.size.width < NARROW)  # (the first frame too)
            panel.set_class(panel.collapsed, "-collapsed")
            yield panel
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def _hint(self) -> str:
        if self.default_task:
            return "enter sends the demo task (fix the restock bug) · /help"
        return ""

    def _complete(self, text: str) -> list[str]:
        """Every completion of the box's text, in order: tab takes the first and cycles through the rest."""
        if text.startswith("/model ") and len(text) > len("/model "):
            from agent_tui.ui import model_check

            names = model_check.completions(text[len("/model "):], model_check.loaded_names())
            return [f"/model {name}" for name in names]
        controller = getattr(self.app, "controller", None)
        return commands.completions(text, controller.item_ids() if controller is not None else [])

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

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
        self.set_class(self.size.height < SHORT, "-short")  # (the demo's banner keeps one line: the chat needs them)

    def action_page_conversation(self, direction: int) -> None:
        """A page back (-1) or on (1) in the conversation; at the bottom it follows new output again."""
        conv = self.conversation
        if direction < 0:
            conv.scroll_page_up(animate=False)  # (a page at once: a terminal's pgup does not glide)
        elif conv.scroll_y + conv.scrollable_content_region.height >= conv.max_scroll_y:
            conv.follow()  # (the last page: following again, as scrolling to the bottom with the wheel does)
        else:
            conv.scroll_page_down(animate=False)

    def action_toggle_budget(self) -> None:
        self._user_sized = True
        self.budget.collapsed = not self.budget.collapsed

    def uncover(self, top: int | None) -> None:
        """Keep the conversation's end above an overlay docked from screen row ``top`` (the approval
        dialog), so the user sees why the agent asks; None when the overlay closed."""
        conversation = self.conversation
        current = conversation.styles.margin.bottom
        below = self.query_one("#pastes").region.y  # where the conversation's slot ends, whatever its margin
        need = 0 if top is None else max(0, below - top)
        if need != current:
            conversation.styles.margin = (0, 0, need, 0)
            if conversation.is_anchored:
                conversation.call_after_refresh(self._scroll_behind_overlay)

    def _scroll_behind_overlay(self) -> None:
        """Follow the end; under a modal this screen is not repainted on its own, so the thumb is redrawn too."""
        conversation = self.conversation
        conversation.scroll_end(animate=False, immediate=True)
        conversation.call_after_refresh(conversation.vertical_scrollbar.refresh)

    # focus and keys: one place ----------------------------------------------------------------
    def focus_prompt(self) -> None:
        """Give the keyboard back to the message box (after a button, an overlay, a click)."""
        if self.app.screen is self:
            self.prompt.focus()

    def on_screen_suspend(self) -> None:
        self._esc_armed = False  # an overlay opened: its esc must not reach the turn

    def on_screen_resume(self) -> None:
        self._resumed_at = time.monotonic()
        self.call_after_refresh(self.focus_prompt)

    @on(Button.Pressed)
    def _button_pressed(self) -> None:
        self.call_after_refresh(self.focus_prompt)

    def claim_typing(self, event: events.Key) -> bool:
        """Called by the app before it forwards a key: a printable key goes to the message box, so
        the box gets the keyboard now (synchronously), and this key and the ones after it go there.
        False when the box is not there yet (keys typed ahead of the first frame): the key's text is kept
        for the box (``_typed_ahead``) and the key must go no further."""
        prompt = self._box()
        if prompt is None:
            if event.is_printable and event.character:
                self._typed_ahead.append(event.character)
            elif event.key in ("enter", "ctrl+j", "shift+enter"):  # (kept as a line end: "abc⏎def⏎" was "abcdef")
                self._typed_ahead.append("\n")
            return False
        if self._typed_ahead:
            self._give_typed_ahead(prompt)
        if event.is_printable and event.character and self.focused is not prompt:
            self.set_focus(prompt, scroll_visible=False)
        return True

    def on_mount(self) -> None:
        self.call_after_refresh(self._give_typed_ahead)

    def on_paste(self, event: events.Paste) -> None:
        """A paste the box did not take goes into it: with the focus on the conversation (clicked to scroll or
        select) or nowhere, it went nowhere and was in no draft.  Before the box exists it is kept for it."""
        if not event.text:
            return
        event.stop()
        event.prevent_default()
        prompt = self._box()
        if prompt is None:
            self._typed_ahead.append(event.text)
            return
        send_paste(prompt, event.text)
        self.set_focus(prompt, scroll_visible=False)

    def _box(self) -> PromptInput | None:
        """The message box (None before it is composed)."""
        try:
            return self.query_one(PromptInput)
        except NoMatches:
            return None

    def _give_typed_ahead(self, prompt: PromptInput | None = None) -> None:
        """Put the keys typed before the box existed into it, as typing would: over a restored draft, which is
        selected, they replace it (it goes to ↑); an Enter typed ahead is a line end, never a send (the user has
        not seen the box yet)."""
        prompt = prompt or self._box()
        if not self._typed_ahead or prompt is None:
            return
        text, self._typed_ahead[:] = "".join(self._typed_ahead).strip("\n"), []
        if not text:
            return
        prompt.type_text(text)
        prompt.focus()

    def on_key(self, event: events.Key) -> None:
        """A printable key that reached the screen was sent to another widget (the box stops the
        keys it takes): it goes into the message box instead of being lost — also when the focus
        has moved to the box since the key was sent."""
        if event.key != "escape":
            self._esc_armed = True
        if event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.prompt.focus()
            self.prompt.type_text(event.character)

    def action_cancel_turn(self) -> None:
        """Esc on the main screen with no overlay open: cancel the running turn.  Right after an
        overlay closed (the user may be pressing esc to get back) it takes a second esc."""
        app = self.app
        if app.screen is not self or not getattr(app, "turn_running", False):
            return
        if not self._esc_armed and time.monotonic() - self._resumed_at < ESC_AFTER_OVERLAY:
            self._esc_armed = True
            self.notify("A turn is running: press esc again to cancel it.", timeout=3)
            return
        app.action_cancel_turn()  # type: ignore[attr-defined]

    @on(PromptInput.Changed, "#prompt")
    def _typed(self) -> None:
        self._esc_armed = True
        prompt = self.prompt
        blocks = list(self.query_one("#pastes").children)  # (a paste cleared from the box: its preview goes)
        text = prompt.text if blocks or prompt.pastes else ""  # (per keystroke: the text only while pastes exist)
        shown = {m.group(1) for m in TOKEN.finditer(text)}  # (a token edited into something else sends no paste)
        for block in blocks:
            if block.id and block.id.startswith("paste-") and block.id[6:] not in shown:
                block.remove()
        previewed = {b.id[6:] for b in blocks if b.id and b.id.startswith("paste-")}
        for number in sorted(shown - previewed, key=int):  # (a token back by ctrl+z: its preview too)
            if int(number) in prompt.pastes:
                self.query_one("#pastes").mount(self._paste_block(int(number), prompt.pastes[int(number)]))

    @on(PromptInput.PasteFolded)
    async def _paste_folded(self, message: PromptInput.PasteFolded) -> None:
        if not self.query(f"#paste-{message.number}"):  # (the box's change may have shown it already)
            await self.query_one("#pastes").mount(self._paste_block(message.number, message.text))
        self.prompt.focus()

    @staticmethod
    def _paste_block(number: int, text: str) -> Collapsible:
        """The folded preview of paste ``number`` above the box."""
        return Collapsible(Static(text, markup=False), title=f"paste #{number} · {paste_size(text)}",
                           collapsed=True, id=f"paste-{number}")

    @on(PromptInput.Sent)
    async def _prompt_sent(self) -> None:
        await self.query_one("#pastes").remove_children()

    # what the app reports ---------------------------------------------------------------------
    @on(AgentEventReceived)
    async def _agent_event(self, message: AgentEventReceived) -> None:
        e = message.event
        if isinstance(e, ev.Usage):
            self._usage(e)
        await self.conversation.show(e)
        if isinstance(e, ev.Compacted) and e.summary_id:
            for offer in self._offers("compact"):
                offer.resolve(f"Compacted {e.evicted} item{'s' if e.evicted != 1 else ''} into {e.summary_id}: history {e.tokens_before:,} → "
                              f"{e.tokens_after:,} tokens.")

    def _offers(self, level: str | None = None) -> list[ThresholdOffer]:
        return [o for o in self.conversation.query(ThresholdOffer)
                if not o.resolved and (level is None or o.level == level)]

    def _track_offers(self) -> None:
        gauge = self.budget.gauge
        if gauge is None:
            return
        for offer in self._offers():
            offer.track(gauge.used_pct, gauge.fresh_at if offer.level == "fresh" else gauge.compact_at)

    @on(FilesUndone)
    async def _files_undone(self, message: FilesUndone) -> None:
        """Said in the flow (where the turn's edits are) and kept there."""
        await self.conversation.note(message.text, "info" if message.complete else "warning")
        self.conversation.follow()

    @on(CompactionSkipped)
    def _compaction_skipped(self, message: CompactionSkipped) -> None:
        """Said once: in the open offer when there is one (a toast would cover it at 80 columns)."""
        gauge = self.budget.gauge
        now = f" The window is still {gauge.used_pct:.0f} % full." if gauge is not None else ""
        offers = self._offers("compact")
        for offer in offers:
            offer.say(f"Nothing to compact: {message.reason}; nothing was changed.{now}")
        if not offers or not self.conversation.following:
            self.notify(f"Nothing to compact: {message.reason}.")

    def threshold_crossed(self, e: ev.ThresholdCrossed) -> None:
        """The offer goes into the flow; a toast only when the user reads further up and would miss it."""
        if not self.conversation.following:
            self.notify(e.message, severity="warning", timeout=8)

    def _usage(self, e: ev.Usage) -> None:
        """Cache hits and cost, shown once the model layer reports them (a zero it never
        measured is not shown)."""
        if e.session_cost_usd > 0 or self.status.cost is not None:
            self.status.cost = self.budget.cost = e.session_cost_usd
        if e.cached_tokens > 0 or e.session_cache_hit_pct > 0 or self.status.cache_pct is not None:
            self.status.cache_pct = self.budget.cache_pct = e.session_cache_hit_pct

    @on(BudgetChanged)
    def _budget_changed(self, message: BudgetChanged) -> None:
        self.budget.show(message.breakdown, message.points, message.output_tokens, message.reset)
        self._track_offers()

    @on(SessionOpened)
    async def _session_opened(self, message: SessionOpened) -> None:
        self.status.session = message.session_id
        self.status.model = message.model
        for banner in self.query(Banner):
            banner.model = message.model
        if message.model != DEMO_MODEL or any(it.role == "user" and not engine_wrote(it) for it in message.transcript):
            self.prompt.drop_default_task()  # also in a resumed session that has had its first message
        spent = message.cost_usd if message.cost_usd > 0 else None  # a resumed session shows what it spent
        cached = message.cache_hit_pct if message.cache_hit_pct > 0 else None
        self.status.cost = self.budget.cost = spent
        self.status.cache_pct = self.budget.cache_pct = cached
        await self.conversation.replay(message.transcript)
        if message.note:
            await self.conversation.note(message.note, "info")

    @on(ThresholdOffer.Accepted)
    def _offer_accepted(self, message: ThresholdOffer.Accepted) -> None:
        self.focus_prompt()
        self.app.run_command(message.command, "")  # type: ignore[attr-defined]
