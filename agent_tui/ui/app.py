"""The Textual app: one session's agent behind a keyboard-first UI.

The app owns the session lifecycle and the workers — opening a session, loading
litellm after the first frame, running a turn, changing items, compacting,
writing memos — and routes what they produce to the screens as messages.
Every worker failure lands in ``on_worker_state_changed`` and is shown, never
raised.  Slash commands and palette entries live in ``app_commands``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from agent_tui.core.trust import TrustReport
from agent_tui.ui.app_actions import ActionsMixin
from agent_tui.ui.app_commands import CommandsMixin, UserError
from agent_tui.ui.app_session import SessionMixin
from agent_tui.ui.app_turn import TurnMixin
from agent_tui.ui.controller import SessionController
from agent_tui.ui.gauge_feed import GaugeFeed
from agent_tui.ui.messages import (
    ActionFailed,
    BudgetChanged,
    CommandEntered,
    ItemChanged,
    LlmLoaded,
    TaskSubmitted,
)
from agent_tui.ui.options import UiOptions
from agent_tui.ui.output_guard import GUARD
from agent_tui.ui.screens.main import MainScreen
from agent_tui.ui.screens.trust import TrustScreen
from agent_tui.ui.theme import pick_theme
from agent_tui.ui.typing_guard import GuardsTyping, TypingGuard, is_typing
from agent_tui.ui.widgets import CSS_FILES

STOP_GRACE = 10.0
"""Seconds a stop signal (SIGHUP, SIGTERM) gives the app to end before the process is ended for it (above the
5 s the MCP servers get to close, so a slow but normal exit still releases the session)."""


QUIT_AGAIN = 3.0
"""Seconds within which a second ctrl+q quits while a turn runs."""


class AgentApp(TurnMixin, SessionMixin, ActionsMixin, CommandsMixin, App[int]):
    """agent-tui."""

    TITLE = "agent-tui"
    CSS_PATH = [Path(__file__).parent / "app.tcss", *CSS_FILES, Path(__file__).parent / "screens" / "main.tcss"]
    """The widgets' sheets, and the main screen's: Textual skips CSS_PATH for a default screen."""
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, show=False)]

    def __init__(self, options: UiOptions) -> None:
        super().__init__()
        self.options = options
        self.controller: SessionController | None = None
        self.mcp: Any | None = None
        self.llm_ready = asyncio.Event()
        self.turn_worker: Worker[str] | None = None
        self.warned: set[str] = set()
        """Session warnings already shown by this app: each once, not again at every /new or /resume."""
        self._turn_task = ""
        """The message the running (or last) turn was sent."""
        self._queued: str | None = None
        """A message sent before the session opened (its bubble is already shown)."""
        self.open_failed = False
        """Opening the first session failed: no session until /new, /resume or a message tries again."""
        self.gauge = GaugeFeed(self._deliver_gauge, self.set_timer)
        self.typing = TypingGuard()
        """When the user last typed: keys of a burst never answer an approval (ui/typing_guard)."""
        self.theme = options.theme or pick_theme()
        self._signal_loop: asyncio.AbstractEventLoop | None = None
        self._old_handlers: dict[int, Any] = {}
        self._ended = threading.Event()
        """Set once ``run`` returned: a stop signal's watchdog (``_force_exit_later``) stands down."""
        """The SIGHUP / SIGTERM handlers before ours (put back when the app ends)."""

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Every notification is plain text, whatever ``markup`` says: notices quote the workspace's
        config, errors and tool output, and Textual markup in them could run an app action when
        clicked (``[@click=…]``) or crash the app.  (A widget's ``notify`` passes ``markup=True``.)"""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    _quit_asked = float("-inf")
    """When ctrl+q was last pressed during a turn (a second press within ``QUIT_AGAIN`` seconds quits)."""

    async def action_quit(self) -> None:
        """Ctrl+q quits; while a turn runs, only when pressed again within ``QUIT_AGAIN`` seconds: one chord next to
        ctrl+w and ctrl+a ended a long turn with nothing asked (a tester).  The draft is kept either way."""
        now = time.monotonic()
        if self.turn_running and now - self._quit_asked > QUIT_AGAIN:
            self._quit_asked = now
            self.notify(f"A turn is running: ctrl+q again within {QUIT_AGAIN:.0f} s quits (the turn stops, your "
                        "draft is kept); esc stops only the turn.", title="Quit agent-tui?", timeout=QUIT_AGAIN)
            return
        await super().action_quit()

    def action_help_quit(self) -> None:
        """Ctrl+c (with nothing selected to copy): cancel the running turn, as other terminal agents do and as esc
        does here (a tester's ctrl+c only drew Textual's "ctrl+q quits" and the turn went on spending); with no
        turn running, Textual's hint, without its markup (notifications are plain text)."""
        if self.turn_running:
            self.action_cancel_turn()
            self.notify("Turn cancelled (ctrl+c cancels like esc; ctrl+q quits agent-tui).", timeout=4)
            return
        keys = [key for key, active in self.active_bindings.items() if active.binding.action in ("quit", "app.quit")]
        if keys:
            self.notify(f"Press {keys[0]} to quit the app", title="Do you want to quit?")

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then the one that keeps other people's escape sequences off the terminal."""
        return [*super().get_line_filters(), GUARD]

    def get_default_screen(self) -> Screen[Any]:
        from agent_tui.ui.input_history import InputHistory

        history = InputHistory.for_workspace(self.options.workspace if self.options.keep_history else None)
        return MainScreen(self.options.banner(), history, self.options.demo_task if self.options.demo else "")

    def adopt_history(self) -> None:
        """The user trusted the folder: their old in-workspace input history is offered on ↑ from now."""
        added = self.main.history.adopt_after_trust()
        if added:
            self.notify(f"{added} earlier messages from this folder's old input history are back on ↑.",
                        title="Input history")

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    async def on_event(self, event: events.Event) -> None:
        """Typing is routed here, in the order the keys came: a printable key meant for the main
        screen moves the keyboard to the message box *before* it is forwarded (a deferred focus
        change let the keys typed meanwhile reach the old widget and some were lost).  Keys of a
        typing burst that reach a dialog which opened by itself (an approval, the trust dialog) go
        on into the box instead of answering it (``ui/typing_guard``)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            screen = self.screen
            if screen is self.screen_stack[0] and isinstance(screen, MainScreen):
                if not screen.claim_typing(event):  # (typed ahead of the first frame: kept for the box)
                    event.stop()
                    event.prevent_default()
                    return
                if is_typing(event.key, event.is_printable):
                    self.typing.typed()
                elif event.key == "enter":
                    self.typing.finished()
            elif isinstance(screen, GuardsTyping) and not isinstance(screen.focused, Input) and (
                    (self.typing.in_burst() or screen.settling(self.typing.clock))
                    and (is_typing(event.key, event.is_printable) or event.key == "enter")
                    or (screen.held() or not screen.answers(event.key)) and is_typing(event.key, event.is_printable)):
                # typed for the message box, not an answer (see ui/typing_guard)
                event.stop()
                event.prevent_default()
                if event.key != "enter":
                    self.typing.typed()
                    self.main.prompt.type_key(event.key, event.character)
                screen.typing_held()
                return
        await super().on_event(event)

    @property
    def turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    @property
    def session_opening(self) -> bool:
        """A session is being opened (the first one, or /new, /resume, /model)."""
        return any(w.group == "session" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers)

    # start-up: paint first, then load ------------------------------------------------------------
    def on_mount(self) -> None:
        self._catch_stop_signals()
        self.call_after_refresh(self._after_first_frame)

    def _catch_stop_signals(self) -> None:
        """SIGHUP (the terminal closed) and SIGTERM end the app like a quit, the unsent draft written first
        (their default action killed the process with the typing since the last pause unsaved)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self._signal_loop = asyncio.get_running_loop()
        for sig in (signal.SIGHUP, signal.SIGTERM):
            try:
                self._old_handlers[sig] = signal.signal(sig, self._stop_signalled)
            except (OSError, ValueError):
                continue

    def _stop_signalled(self, signum: int, frame: FrameType | None) -> None:
        try:
            self.main.prompt.save_draft()
        except Exception:  # no box any more: nothing typed to keep; exit all the same
            pass
        if self._signal_loop is not None and not self._signal_loop.is_closed():
            self._signal_loop.call_soon_threadsafe(self.exit, 128 + signum)
        threading.Thread(target=self._force_exit_later, args=(128 + signum,), daemon=True).start()

    def _force_exit_later(self, code: int) -> None:
        """End the process if the app has not ended ``STOP_GRACE`` seconds after a stop signal.  With the terminal
        gone mid-stream, Textual's shutdown waited forever on its writer thread's full queue (the thread had died
        writing to the closed terminal), and agent-tui ran on with no terminal.  The draft is on disk already and
        every message is stored before it is sent; running commands are killed first, as a normal exit does."""
        if self._ended.wait(STOP_GRACE):
            return
        from agent_tui.tools import reaper

        reaper.kill_all()
        os._exit(code)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """``App.run``, and the stop watchdog told that it returned."""
        try:
            return super().run(*args, **kwargs)
        finally:
            self._ended.set()

    def _restore_signal_handlers(self) -> None:
        for sig, handler in self._old_handlers.items():
            try:
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)
            except (OSError, ValueError):
                continue
        self._old_handlers.clear()

    def _after_first_frame(self) -> None:
        if self.options.first_frame_probe:
            facts = {"painted_at": time.time(), "litellm": "litellm" in sys.modules,
                     "agent_loaded": "agent_tui.agent.loop" in sys.modules}
            Path(self.options.first_frame_probe).write_text(json.dumps(facts), encoding="utf-8")
            self.exit(0)
            return
        report = self._pending_trust()
        if report is not None:
            self.main.status.state = "waiting for your trust decision…"
            self.push_screen(TrustScreen(report), callback=lambda answer: self._trust_decided(report, bool(answer)))
            return
        self.main.status.state = "opening session…"
        self.open_session(self.options.session, "")

    def _pending_trust(self) -> TrustReport | None:
        """The workspace's asks when the user must decide on them first (None: nothing to ask)."""
        if self.options.demo or self.options.session.trust is not None:
            return None
        from agent_tui.core.config import ConfigError, load_config

        try:
            report = load_config(self.options.workspace).trust
        except ConfigError:
            return None  # opening the session reports it
        return report if report.pending else None

    async def _trust_decided(self, report: TrustReport, trusted: bool) -> None:
        granted: str | bool = False
        if trusted:
            from agent_tui.store.trust_grant import grant

            # (off the UI thread: adopting a shipped store digests it and may wait 1 s for its write lock)
            granted, problem = await asyncio.to_thread(grant, report)
            if problem:
                self.notify(f"trusted for this run only: {problem}", severity="warning")
        # trusted: exactly the asks the dialog listed (a config changed while it was open is not applied)
        self.options.session = replace(self.options.session, trust=granted)
        if trusted:
            self.adopt_history()
        from agent_tui.core.store_owner import STORE_ASK_KEY, refuse_resume

        store = next((a.source for a in report.asks if a.key == STORE_ASK_KEY), None)
        if not trusted and store is not None and self.options.session.session:
            self.notify(refuse_resume(store, self.options.session.session), title="Session not resumed",
                        severity="warning", timeout=15)
            self.options.session = self.options.session.fresh()  # a new session instead, in the user's words only
        self.main.status.state = "opening session…"
        self.open_session(self.options.session, "")

    # the turn (ui/app_turn) ---------------------------------------------------------------------------
    @on(TaskSubmitted)
    async def _task_submitted(self, message: TaskSubmitted) -> None:
        await self.take_message(message.text)

    # gauges ---------------------------------------------------------------------------------------------
    def _deliver_gauge(self, message: BudgetChanged) -> None:
        if not self.screen_stack or not self.is_running:
            return  # a late timer while the app shuts down
        self.main.post_message(message)
        if self.screen is not self.main:
            self.screen.post_message(BudgetChanged(message.breakdown, (), message.output_tokens))

    # one place for worker outcomes ------------------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker, state = event.worker, event.state
        if state == WorkerState.ERROR:
            self._worker_failed(worker)
        elif state == WorkerState.CANCELLED and worker.group == "turn":
            self.call_later(self._turn_cut, worker)
        elif state == WorkerState.SUCCESS:
            if worker.group == "session":
                self._install(worker.result)
                self._send_queued()
            elif worker.group == "preload":
                self.llm_ready.set()
                self.post_message(LlmLoaded(float(worker.result or 0.0)))
            elif worker.group == "mcp":
                if not self._alive():
                    return  # the app is exiting while the servers were still connecting
                self.main.status.mcp = str(worker.result)
                if self.mcp is not None:
                    self.set_interval(3.0, self._refresh_mcp_status)
            elif worker.group == "turn":
                status, _, turn = str(worker.result).partition(":")
                self._turn_over(status, int(turn or 0))

    def _alive(self) -> bool:
        """The main screen is still there to update (False while the app shuts down)."""
        if not self.is_running or not self.screen_stack or not isinstance(self.screen_stack[0], MainScreen):
            return False
        try:
            self.main.status  # noqa: B018  (raises NoMatches once the screen is torn down)
        except NoMatches:
            return False
        return True

    def _worker_failed(self, worker: Worker[Any]) -> None:
        error = worker.error
        text = str(error) if isinstance(error, UserError) else f"{_what(worker)} failed: {_describe(error)}"
        if worker.group == "preload":
            self.llm_ready.set()
            text = f"the model client could not be loaded: {_describe(error)}"
        if not self._alive():
            return  # the app is exiting: no screen left to show the failure on
        if worker.group == "mcp":
            self.main.status.mcp = "failed"
        elif worker.group == "session" and self.controller is None:
            self.open_failed = True
            self.main.status.state = "no session: /new, /resume ID or a message tries again"
            self._give_back_queued()
        elif worker.group in ("session", "model-check"):  # no switch after all: the session in use takes it
            self.main.status.state = "ready"
            self.call_later(self._send_queued)
        elif worker.group == "turn":
            self._turn_over("error", self.controller.engine.turn if self.controller else 0)
        elif worker.group in ("agent",):
            self.main.status.state = "ready"
        self.post_message(ActionFailed(text))

    def _refresh_mcp_status(self) -> None:
        """Servers go down and come back: keep the status line's up/down count current."""
        from agent_tui.ui import mcp_link

        if not self._alive():
            return
        self.main.status.mcp = mcp_link.summary(self.mcp)

    # messages from screens ------------------------------------------------------------------------------
    @on(CommandEntered)
    def _command_entered(self, message: CommandEntered) -> None:
        try:
            self.run_command(message.name, message.arg)
        finally:
            self.main.prompt.sent_command = ""  # only a refusal while it ran gives the text back

    @on(ActionFailed)
    def _action_failed(self, message: ActionFailed) -> None:
        self.notify(message.message, severity="error", timeout=8)

    @on(ItemChanged)
    def _item_changed(self, message: ItemChanged) -> None:
        said = [x for x in (message.state if message.state != message.verb else "", "pinned" if message.pinned else "")
                if x]  # ("t1 evicted (evicted)" said the state twice)
        text = f"{message.item_id} {message.verb}" + (f" ({', '.join(said)})" if said else "") + (
            f": {message.effect}" if message.effect else "")
        self.notify(f"{text} — {message.note}" if message.note else text,
                    severity="warning" if message.note else "information", timeout=8 if message.note else 5)

    @on(LlmLoaded)
    def _llm_loaded(self, message: LlmLoaded) -> None:
        if not self.turn_running:
            self.main.status.state = "ready"

    async def on_unmount(self) -> None:
        self._restore_signal_handlers()
        if self.mcp is not None:
            try:
                await asyncio.wait_for(self.mcp.close(), 5)
            except Exception:  # closing is best effort: the process is ending
                pass
        if self.controller is not None:
            self.controller.close()


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "unknown error"
    text = str(error.args[0]) if getattr(error, "args", None) else str(error)
    return text or type(error).__name__


def _what(worker: Worker[Any]) -> str:
    return {"session": "opening the session", "turn": "the turn", "engine": "the action",
            "agent": "the command", "view": "viewing the item", "model-check": "checking the model"}.get(worker.group, worker.name or "a task")


def make_app(options: UiOptions) -> AgentApp:
    """The app for ``options`` — the one factory the CLI, tests and snapshot apps share."""
    from agent_tui.ui.paste_guard import install

    install()  # (a paste holding escape sequences stays one paste: ui/paste_guard)
    return AgentApp(options)
