"""What the user does to the session outside a turn: change items, move the threshold, view an
item, compact, write a memo — each a worker, whose failure the app reports in one place.

Item actions run in threads (they write to the store) under the controller's lock, and
re-assemble so the gauge, the request view and `agent-tui context --json` all show the
result; compaction and memos are async because they may call the model.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import work

from agent_tui.core.item_actions import restorable
from agent_tui.core.items import State
from agent_tui.ui.app_commands import UserError
from agent_tui.ui.controller import MIN_COMPACT_TOKENS, SessionController
from agent_tui.ui.messages import ITEM_MESSAGES, AgentEventReceived, CompactionSkipped, FilesUndone

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


class ActionsMixin:
    """Mixed into AgentApp: the workers behind item actions, /threshold, /compact and /memo."""

    # item actions (thread workers; the engine is guarded by the controller's lock) -----------------
    @work(thread=True, group="engine", exit_on_error=False)
    def item_action(self: AgentApp, action: str, item_id: str) -> str:
        ctl = self._controller()
        with ctl.lock:
            prior = ctl.engine.items.get(item_id)
            already = action == "restore" and prior is not None and not restorable(prior)
            whole = prior is not None and prior.state == State.IN and not prior.provenance.get("stub")  # (sent whole)
            copies = ctl.history_copies(item_id) if action == "evict" else []
            before = None if self.turn_running else ctl.next_request_tokens()
            item = ctl.act(action, item_id)
            breakdown = None if self.turn_running else ctl.assemble()
            left_out = ctl.left_out(item.id) if breakdown is not None and action in ("restore", "pin") else None
            partial = ctl.partial_view(item.id) if action in ("restore", "pin") else ""
        note = ("it was not evicted or summarised: nothing changed" if already
                else f"but the next request leaves it out: {left_out}" if left_out
                else f"but {partial}" if partial
                else (f"its text still shows in {', '.join(copies)} until the next compaction; evict "
                      f"{'that' if len(copies) == 1 else 'those'} to drop it now") if copies else "")
        # the next request before and after: the inspector's total is the last request sent, which did not yet
        # hold the final reply, so an evict could seem to make it grow
        effect = (f"next request {before:,} → {breakdown['total']:,} tokens"
                  if before is not None and breakdown is not None else "")
        if action == "evict" and effect and breakdown is not None and before is not None \
                and breakdown["total"] > before and not note and whole:  # (a tester evicted a 2-line read)
            note = "its text was shorter than the note that stands for it (its id, to restore it): it saves nothing"
        message = ITEM_MESSAGES[action](item.id, str(item.state), item.pinned, note, effect)
        self.screen.post_message(message)
        if breakdown is not None:
            self.call_from_thread(self.gauge.show, breakdown)
        return item.id

    @work(thread=True, group="engine", exit_on_error=False)
    def pin_rule(self: AgentApp, text: str) -> str:
        ctl = self._controller()
        with ctl.lock:
            item = ctl.pin_rule(text)
            breakdown = None if self.turn_running else ctl.assemble()
        self.screen.post_message(ITEM_MESSAGES["pin"](item.id, str(item.state), item.pinned))
        if breakdown is not None:
            self.call_from_thread(self.gauge.show, breakdown)
        return item.id

    @work(thread=True, group="engine", exit_on_error=False)
    def add_rule_to_file(self: AgentApp, where: str, text: str, remember_it: bool = False) -> str:
        """Append a `# …` rule to the chosen AGENTS.md; the instruction item shows it at once."""
        from agent_tui.core.rule_files import append_rule, remember, target_file

        ctl = self._controller()
        if remember_it:
            remember(ctl.root, where)
        path = append_rule(target_file(ctl.root, where), text, ctl.root if where == "project" else None)
        with ctl.lock:
            breakdown = None if self.turn_running else ctl.assemble()
        if breakdown is not None:
            self.call_from_thread(self.gauge.show, breakdown)
        self.call_from_thread(self.notify, f"rule added to {path}")
        return str(path)

    @work(thread=True, group="engine", exit_on_error=False)
    def set_threshold(self: AgentApp, share: float) -> str:
        ctl = self._controller()
        with ctl.lock:
            compact_at, fresh_at = ctl.set_compact_at(share)
            breakdown = ctl.assemble()
        self.call_from_thread(self.gauge.show, breakdown)
        self.call_from_thread(self.notify, f"compaction at {compact_at:.0%}, fresh session offered at {fresh_at:.0%}")
        return "threshold"

    @work(thread=True, group="view", exit_on_error=False)
    def view_item(self: AgentApp, item_id: str) -> None:
        from agent_tui.ui.screens.item_view import ItemScreen

        ctl = self._controller()
        item = ctl.item(item_id)
        whole = ctl.whole_output(item)
        self.call_from_thread(self.push_screen, ItemScreen(item, whole, ctl.sent_tokens(item_id),
                                                           ctl.sent_text(item_id)))

    @work(thread=True, group="undo", exit_on_error=False)
    def undo_turn(self: AgentApp) -> str:
        """/undo: put the latest turn's files back (file work: a thread), then show what was done.  Two at once
        take two turns, one after the other (the journal's lock)."""
        ctl = self._controller()
        report = ctl.undo_last()
        complete = report.turn is not None and not report.kept and not report.missed
        self.main.post_message(FilesUndone(report.text(), complete))
        if report.changed and not self.turn_running:
            with ctl.lock:
                breakdown = ctl.assemble()  # the active files see the change: the gauge shows their notes
            self.call_from_thread(self.gauge.show, breakdown)
        return "undo"

    # compaction and memos (async: they may call the model) --------------------------------------------
    @work(exclusive=True, group="agent", exit_on_error=False)
    async def compact_now(self: AgentApp, focus: str) -> str:
        ctl = self._controller()
        folded = await asyncio.to_thread(ctl.compactable_tokens)
        if folded < MIN_COMPACT_TOKENS:
            why = (f"only {folded:,} tokens of finished rounds; a summary would not be smaller" if folded
                   else "no finished rounds outside the latest steps")
            self.main.post_message(CompactionSkipped(why))
            return "compact"
        await self._model_ready()
        self.main.status.state = "compacting…"
        produced = await ctl.compact(focus)
        for e in produced:
            self.main.post_message(AgentEventReceived(e))
        if not produced:
            self.main.post_message(CompactionSkipped("no finished rounds outside the latest steps"))
        self.gauge.show(await asyncio.to_thread(ctl.assemble))
        self.main.status.state = "ready"
        return "compact"

    @work(exclusive=True, group="agent", exit_on_error=False)
    async def write_memo(self: AgentApp) -> str:
        ctl = self._controller()
        await self._model_ready()
        self.main.status.state = "writing a memo…"
        memo = await ctl.agent.write_memo("manual")
        self.main.post_message(AgentEventReceived(memo))
        if self.screen is not self.main:
            self.screen.post_message(AgentEventReceived(memo))
        self.gauge.show(await asyncio.to_thread(ctl.assemble))
        self.main.status.state = "ready"
        return memo.memo_id

    def _controller(self: AgentApp) -> SessionController:
        if self.controller is None:
            raise UserError("the session is still opening; try again in a moment")
        return self.controller
