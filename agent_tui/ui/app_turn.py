"""Sending the user's message and running its turn: the one path a message takes from the box to the agent.

A message runs now, waits while a session opens or switches (``/model``, ``/new``, ``/resume``), or goes
back into the box (never over new typing, never dropped) when it cannot be taken: a turn is running, a
first message already waits, or the session has no model.  The turn worker feeds the agent's events to
the screen and the gauge; its end (done, failed, cut) comes back through ``AgentApp``'s one worker-state
handler to ``_turn_over``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import Worker, WorkerState

from agent_tui.agent import events as ev
from agent_tui.ui.messages import AgentEventReceived, ApprovalAnswered, TurnEnded
from agent_tui.ui.screens.approval import ApprovalScreen

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


#: How the notices that say a turn is running begin: they go when the turn ends.
RUNNING_NOTICE = "A turn is running"


HINTS_AN_APPROVAL_CLEARS = frozenset({"Earlier session kept"})
"""Titles of the start's hints an approval dialog takes down (what they say, f5 shows again); every other notice
stays: a warning, an item action's effect, the input history's trust notice may say why the dialog came."""


class TurnMixin:
    """Mixed into AgentApp: the message's way to a turn, the turn worker, approvals and the turn's end."""

    async def take_message(self: AgentApp, text: str) -> None:
        """A message the user sent: run its turn now, hold it while a session opens or switches, or give it
        back (a turn runs, a first message already waits, or there is no model)."""
        if self.turn_running:
            where = self._give_back(text)
            self.notify(f"A turn is running: your message is {where}; send it when the turn ends, "
                        "or press esc to cancel the turn.", severity="warning")
            return
        if self._queued is not None:
            where = self._give_back(text)
            self.notify(f"The session is still opening and your first message waits for it: this one is {where}; "
                        "send it once the first is on its way.", severity="warning")
            return
        if self.controller is not None and self.controller.agent.llm is None and not self.switching:
            from agent_tui.ui.app_session import no_model_hint

            where = self._give_back(text)
            self.notify(f"Not sent (your message is {where}). {no_model_hint(self.controller.ws.trust)}",
                        title="No model", severity="error", timeout=20)
            return
        if self.controller is not None and await self._refused_as_too_large(text):
            return
        await self.main.conversation.add_user(text, pending=True)
        if self.controller is None or self.switching:
            # no session yet, or one about to replace it (/model, /new, /resume): a turn run on the old one
            # now would be missing from the new one, which is read from the store before the turn is written
            self._queued = text
            if self.controller is None and self.open_failed and not self.session_opening:
                self.open_session(self.options.session, "")  # opening failed before: a message tries again
            what = "opening session…" if self.controller is None else "switching session…"
            self.main.status.state = f"{what} (your message is sent when it is ready)"
            return
        self.turn_worker = self.run_turn(text)

    async def _refused_as_too_large(self: AgentApp, text: str) -> bool:
        """True (and the text given back, with why) when the message alone would not fit the window."""
        from agent_tui.core.message_fit import too_large

        ctl = self.controller
        assert ctl is not None

        def check() -> str:
            with ctl.lock:  # (it counts the tools into the engine, as an item action might at the same time)
                return too_large(ctl.engine, text, ctl.agent.runner.schemas(ctl.engine))

        refused = await asyncio.to_thread(check)
        if refused:
            self.notify(f"{refused} Your message is {self._give_back(text)}.", title="Message too large",
                        severity="error", timeout=20)
        return bool(refused)

    @property
    def switching(self: AgentApp) -> bool:
        """A session is being opened, or a model checked before one is (its turn waits for it)."""
        return any(w.group in ("session", "model-check") and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                   for w in self.workers)

    def _give_back(self: AgentApp, text: str) -> str:
        """A message the app cannot take now goes back into the box, or onto ↑ when the user has typed
        something else meanwhile (never over their typing, never dropped); returns where it went."""
        prompt = self.main.prompt
        if prompt.restore(text):
            return "back in the box"
        prompt.inputs.add(text, keep_long=True)
        return "on ↑ in the box (you had typed something else)"

    def _give_back_queued(self: AgentApp) -> None:
        """No session to send the waiting message to: it goes back into the box (or onto ↑ when the user
        typed something else meanwhile), its bubble marked not sent."""
        text, self._queued = self._queued, None
        if text is None:
            return
        self.main.conversation.unsent()
        self.notify(f"Your message was not sent: it is {self._give_back(text)}.", severity="warning")

    def _send_queued(self: AgentApp) -> None:
        """The session opened: send what the user typed while it was opening."""
        if self._queued is not None and self.controller is not None and not self.turn_running and not self.switching:
            task, self._queued = self._queued, None
            self.turn_worker = self.run_turn(task, checked=False)

    @work(exclusive=True, group="turn", exit_on_error=False)
    async def run_turn(self: AgentApp, task: str, checked: bool = True) -> str:
        """The turn of ``task``; ``checked`` False for a message typed before its session was open, which
        is first checked against that session's window (too large: back in the box, marked not sent)."""
        ctl = self.controller
        assert ctl is not None
        if not checked and await self._refused_as_too_large(task):
            self.main.conversation.unsent()
            return "refused"
        self._turn_task = task
        status_line = self.main.status
        status_line.busy = True
        await self._model_ready()
        status, turn = "error", ctl.engine.turn
        await asyncio.to_thread(ctl.ensure_title, task)
        status_line.state = "thinking…"
        streamed = 0
        async for e in ctl.agent.run(task):
            if isinstance(e, ev.BudgetUpdated):
                self.gauge.show(_breakdown_of(e), point=e.total)
                streamed = 0
            elif isinstance(e, ev.TextDelta):
                streamed += len(e.text)
                self.gauge.output((streamed + 3) // 4)
            elif isinstance(e, ev.Usage):
                self.gauge.output(e.completion_tokens)
            elif isinstance(e, ev.ThresholdCrossed):
                self.main.threshold_crossed(e)
            elif isinstance(e, ev.TurnFinished):
                status, turn = e.status, e.turn
            if (doing := activity(e)) is not None:
                status_line.state = doing
            if isinstance(e, ev.Retrying):
                self._count_down(e)
            self.main.post_message(AgentEventReceived(e))
        return f"{status}:{turn}"

    def _count_down(self: AgentApp, e: ev.Retrying) -> None:
        """Count a retry's wait down on the status line, while the status still shows it."""
        status_line = self.main.status
        until = time.monotonic() + e.delay
        shown = activity(e)

        def tick() -> None:
            nonlocal shown
            if status_line.state != shown:
                timer.stop()  # the turn moved on (a reply, a cancel, another retry)
                return
            left = until - time.monotonic()
            if left <= 0:
                timer.stop()
                status_line.state = shown = "thinking…"
                return
            status_line.state = shown = retry_text(e, left)

        timer = self.set_interval(1.0, tick)

    def action_cancel_turn(self: AgentApp) -> None:
        """Esc: cancel the running turn (the loop keeps the partial answer, marked cut)."""
        if self.turn_running and self.turn_worker is not None:
            self.turn_worker.cancel()

    async def approve(self: AgentApp, request: ev.ApprovalRequested) -> str:
        """The agent's approver: show the dialog and wait for once / always / prefix / deny."""
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(request)

        def done(answer: str | None) -> None:
            if not answered.done():
                answered.set_result(answer or "deny")

        for note in [n for n in self._notifications if n.title in HINTS_AN_APPROVAL_CLEARS]:
            self._unnotify(note)  # (it lay over the dialog's reason and its right-hand buttons for 12 s)
        self.push_screen(screen, callback=done)
        try:
            answer = await answered
        except asyncio.CancelledError:
            if screen.is_attached and self.screen is screen:
                screen.dismiss("deny")
            raise
        self.post_message(ApprovalAnswered(request.call_id, answer))
        if (panel := self.main.conversation.panel(request.call_id)) is not None:
            panel.answered(answer)
        self.main.status.state = "running…"
        return answer

    async def _turn_cut(self: AgentApp, worker: Worker[Any]) -> None:
        from agent_tui.ui.widgets.tool_panel import ToolCallPanel

        if not self._alive():
            return  # cancelled because the app is exiting
        await self.main.conversation.end_reply()
        for panel in self.main.conversation.query(ToolCallPanel):
            panel.cancelled()  # (a call cut mid-run said "⋯ running" for the rest of the session)
        await self.main.conversation.note("turn cancelled (an answer cut short is kept, marked cut)", "info")
        self._turn_over("cut", self.controller.engine.turn if self.controller else 0)

    def _turn_over(self: AgentApp, status: str, turn: int) -> None:
        from agent_tui.ui.input_history import MAX_CHARS

        if not self._alive():
            return  # the turn ended while the app was exiting: no status line left to update
        if status in ("error", "cut") and len(self._turn_task) > MAX_CHARS:
            # too long for the history when sent, but its turn failed or was cancelled (often to fix the
            # message): ↑ brings it back to send again
            self.main.prompt.inputs.add(self._turn_task, keep_long=True)
        self._turn_task = ""
        for note in [n for n in self._notifications if n.message.startswith(RUNNING_NOTICE)]:
            self._unnotify(note)  # (its advice, "send it when the turn ends", is stale now)
        self.main.status.busy = False
        self.main.status.state = "ready"
        self.gauge.output(0)
        self.post_message(TurnEnded(status, turn))


def _breakdown_of(e: ev.BudgetUpdated) -> dict[str, Any]:
    """The `context --json` shape of a BudgetUpdated event."""
    bd = {k: v for k, v in e.to_json().items() if k not in ("type", "step", "turn")}
    bd["free"] = e.input_budget - e.total
    return bd


def activity(e: ev.Event) -> str | None:
    """What the status line says the turn is doing after event ``e`` (None: unchanged).  After a tool
    finished the turn waits on the model again, and a retry says when it comes (a tester read "running
    read_file…" while the model answered, and "thinking…" through a 20-second Retry-After wait)."""
    if isinstance(e, ev.TextDelta):
        return "streaming…"
    if isinstance(e, ev.ToolCallStarted):
        return f"running {e.name}…"
    if isinstance(e, ev.ApprovalRequested):
        return "awaiting approval"
    if isinstance(e, ev.ToolCallFinished):
        return "thinking…"
    if isinstance(e, ev.Retrying):
        return retry_text(e, e.delay)
    return None


def retry_text(e: ev.Retrying, left: float) -> str:
    """``retrying (1) in 6s: rate limited``, with the seconds left of the wait."""
    return f"retrying ({e.attempt}) in {max(0, round(left))}s: {e.reason}"
