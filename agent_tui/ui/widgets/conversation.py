"""The conversation: the agent's events drawn as a scrolling flow.

Every loop event has one visible form here — the answer streams into a Markdown
widget through ``Markdown.get_stream()``, tool calls become collapsible panels,
the model's reasoning is a collapsed "thinking" block before the step it led to,
compactions, memos and threshold warnings become notes in the flow — so what
the engine did to the context is never hidden from the user.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll

from agent_tui.agent import events as ev
from agent_tui.core.notes import is_engine_note
from agent_tui.ui.widgets.chat_items import EventNote, ThinkingBlock, ThresholdOffer, UserMessage
from agent_tui.ui.widgets.tool_panel import ToolCallPanel

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream

    from agent_tui.ui.widgets.reply import AssistantReply


class Conversation(VerticalScroll):
    """User messages, streamed answers, tool panels and context notes."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self._reply: AssistantReply | None = None
        self._stream: MarkdownStream | None = None
        self._panels: dict[str, ToolCallPanel] = {}
        self._pending: UserMessage | None = None
        """The bubble shown when the user sent a message, before the loop's TurnStarted arrives."""
        self._memos: set[str] = set()
        """Memo ids already said saved: a task's memo is one item updated in place (``core/memos``)."""

    def on_mount(self) -> None:
        self.anchor()

    # the flow ------------------------------------------------------------------------------
    async def add_user(self, text: str, item_id: str = "", pending: bool = False) -> None:
        """The user's bubble; the user sent it, so the flow follows it to the bottom again."""
        if not pending and self._pending is not None and self._pending.message_text == text:
            self._pending = None  # the loop confirms the bubble already shown
            return
        message = UserMessage(text, item_id)
        if pending:
            self._pending = message
        await self.mount(message)
        self.follow()

    def unsent(self) -> None:
        """The shown bubble of a message that could not be sent is marked so (its text went back to the box)."""
        if self._pending is not None:
            self._pending.border_title = "you · not sent"
            self._pending.add_class("-unsent")
            self._pending = None

    @property
    def following(self) -> bool:
        """New content is followed (the user has not scrolled up to read; Textual keeps the anchor but
        marks it released then)."""
        return self.is_anchored and not getattr(self, "_anchor_released", False)

    def follow(self) -> None:
        """Scroll to the bottom and keep following new content."""
        self.anchor()
        self.scroll_end(animate=False, immediate=False)

    async def note(self, text: str, kind: str = "info") -> EventNote:
        note = EventNote(text, kind)
        await self.mount(note)
        return note

    async def write_text(self, text: str) -> None:
        """Append streamed answer text (starts a reply if none is open)."""
        if self._stream is None:
            from agent_tui.ui.widgets.reply import AssistantReply

            self._reply = AssistantReply()
            await self.mount(self._reply)
            self._stream = self._reply.stream()
        await self._stream.write(text)

    async def end_reply(self) -> None:
        """Close the open reply's stream (end of a step, a turn, or a cancel)."""
        if self._stream is not None:
            stream, self._stream, self._reply = self._stream, None, None
            await stream.stop()

    async def drop_reply(self) -> None:
        """The open reply broke off and is asked for again: remove what streamed of it (the note that
        follows says so), so the retried answer is not shown after half of the first."""
        reply = self._reply
        await self.end_reply()
        if reply is not None:
            await reply.remove()

    def panel(self, call_id: str) -> ToolCallPanel | None:
        return self._panels.get(call_id)

    async def clear(self) -> None:
        await self.end_reply()
        self._panels.clear()
        await self.remove_children()

    # events ---------------------------------------------------------------------------------
    async def show(self, e: ev.Event) -> None:
        """Draw one loop event."""
        if isinstance(e, ev.TextDelta):
            await self.write_text(e.text)
        elif isinstance(e, ev.TurnStarted):
            await self.add_user(e.task)
        elif isinstance(e, ev.AssistantMessage):
            reply = self._reply
            await self.end_reply()
            if e.reasoning.strip():  # before the step's answer (already streamed) or its tool panels
                await self.mount(ThinkingBlock(e.reasoning), before=reply if reply is not None else None)
            if reply is not None and e.tool_calls and not e.text.strip():
                await reply.remove()  # what streamed was the calls, written as text: their panels show them
        elif isinstance(e, ev.ToolCallStarted):
            await self.end_reply()
            panel = ToolCallPanel(e.call_id, e.name, e.arguments, e.kind)
            self._panels[e.call_id] = panel
            await self.mount(panel)
        elif isinstance(e, ev.ApprovalRequested):
            if (panel := self._panels.get(e.call_id)) is not None:
                panel.asking()
        elif isinstance(e, ev.ToolCallFinished):
            if (panel := self._panels.get(e.call_id)) is not None:
                panel.finish_event(e)
        elif isinstance(e, ev.Compacted):
            await self.end_reply()
            await self.note(_compaction_text(e), "compaction" if e.summary_id else "error")
        elif isinstance(e, ev.MemoSaved):
            done = "updated" if e.memo_id and e.memo_id in self._memos else "saved"
            self._memos.add(e.memo_id)
            await self.note(f"memo {e.memo_id} {done} ({e.kind}): {_first_line(e.text)}", "memo")
        elif isinstance(e, ev.ThresholdCrossed):
            await self.mount(ThresholdOffer(e.level, e.message))
        elif isinstance(e, ev.Retrying):
            if e.discarded:
                await self.drop_reply()
            await self.note(f"retrying ({e.attempt}) in {e.delay:.1f}s: {e.reason}", "retry")
        elif isinstance(e, ev.WarningRaised):
            await self.note(f"warning: {e.message}", "warning")
        elif isinstance(e, ev.ErrorEvent):
            await self.end_reply()
            await self.note(e.message, "error")
        elif isinstance(e, ev.TurnFinished):
            await self.end_reply()
            if e.status not in ("done", "error"):
                await self.note(f"turn {e.turn} ended: {e.status.replace('_', ' ')}", "info")

    # a resumed session ------------------------------------------------------------------------
    async def replay(self, items: Sequence[Any]) -> None:
        """Redraw a stored transcript (ContextItems with roles) without streaming."""
        from agent_tui.ui.widgets.reply import AssistantReply

        pending = self._pending
        await self.clear()
        widgets: list[Any] = []
        unanswered = False
        for it in items:
            if it.role == "user" and engine_wrote(it):
                continue  # live, the flow never drew the engine's notes as the user's messages
            if it.role == "user":
                if unanswered:
                    widgets.append(EventNote(NO_REPLY, "warning"))
                widgets.append(UserMessage(it.content, it.id))
                unanswered = True
            elif it.role == "assistant":
                unanswered = False
                if it.content:
                    widgets.append(AssistantReply(it.content))
                received = it.provenance.get("raw_arguments") or {}  # (what a malformed call sent, as live)
                for call in it.tool_calls or []:
                    fn = call.get("function") or {}
                    args = received.get(call.get("id", "")) or _args(fn.get("arguments"))
                    panel = ToolCallPanel(call.get("id", ""), fn.get("name", "?"), args)
                    self._panels[panel.call_id] = panel
                    widgets.append(panel)
            elif it.role == "tool" and (panel := self._panels.get(it.tool_call_id or "")) is not None:
                panel.finish(it.content, is_error=bool(it.provenance.get("error")), item_id=it.id,
                             shaped_tokens=it.tokens, handle=it.provenance.get("handle"),
                             raw_tokens=int(it.provenance.get("raw_tokens") or 0))
        if unanswered:
            widgets.append(EventNote(NO_REPLY, "warning"))
        for panel in self._panels.values():
            if panel.status == "running":  # a call the store has no result for: the run ended during it
                panel.interrupted()
        if pending is not None:
            again = UserMessage(pending.message_text)
            if pending.has_class("-unsent"):  # refused while the transcript was being cleared: stays marked
                again.border_title = pending.border_title
                again.add_class("-unsent")
            else:
                self._pending = again
            widgets.append(again)
        if widgets:
            await self.mount_all(widgets)
        self.follow()


NO_REPLY = ("no reply was recorded: the app ended (or the turn failed) before the model's answer was finished; "
            "send it again or say \"continue\"")
"""Under a stored message the model never answered (a kill mid-stream keeps no partial answer)."""


def engine_wrote(item: Any) -> bool:
    """A user-role item the engine added (file note, recalled memory): marked in its provenance, or,
    in a store older than that mark, known by how such notes begin."""
    return bool(item.provenance.get("note")) or is_engine_note({"role": item.role, "content": item.content})


def _first_line(text: str, width: int = 90) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def _compaction_text(e: ev.Compacted) -> str:
    if e.summary_id is None:
        return f"compaction failed ({e.error or 'no summary'}): the rounds stay verbatim"
    text = (f"compacted {e.evicted} item{'s' if e.evicted != 1 else ''} into {e.summary_id} ({e.summariser}): history "
            f"{e.tokens_before:,} → {e.tokens_after:,} tokens ({e.reason})")
    return text + (f" — {e.error}" if e.error else "")


def _args(raw: Any) -> Any:
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw
