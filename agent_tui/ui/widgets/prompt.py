"""The message box: a multi-line TextArea where enter sends and shift+enter / ctrl+j starts a
new line.  Plain text goes to the agent, `/commands` to the app.

Pastes are kept whole (every line); a large one is folded into a ``[paste #N · L lines]`` (or ``· C characters``)
token, shown in full in a collapsible block above the box and expanded when sent.  Up/down
on the first/last line walk the workspace's input history (kept across runs); tab
completes command names, item ids and model names, and does nothing else — it never
moves focus away, so typed text is never lost.  As in a shell, repeated tab cycles
through the matches (shift+tab goes back), listed under the box while it does; any edit
starts over from what is typed.  What is typed and not yet sent is written
beside the input history as the user types and comes back at the next start (a crash, a
kill or a quit loses no typing).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from agent_tui.ui import commands
from agent_tui.ui.drafts import TOKEN, Folded, expand, renumbered
from agent_tui.ui.input_history import MAX_CHARS, InputHistory
from agent_tui.ui.messages import ActionFailed, CommandEntered, TaskSubmitted

FOLD_LINES = 8
"""A paste with more lines than this is folded into a token."""
FOLD_CHARS = 800
"""… or with more characters than this."""
PLACEHOLDER = "Ask the agent · enter sends · ctrl+j new line · ↑ history · /help"
"""What the empty box says (the demo shows its own hint until its task was sent)."""

DRAFT_DELAY = 0.4
"""Seconds of no typing before a long draft is written (and at once when the app closes)."""
DRAFT_MAX_WAIT = 1.5
"""… but while typing goes on, at least this often (steady typing never pauses DRAFT_DELAY)."""
QUICK_DRAFT_CHARS = 4000
"""A draft up to this long is written within ``QUICK_DRAFT_DELAY`` of a change, typing or not: its write
costs under a millisecond, and a ``kill -9`` (no signal to save on) lost up to ``DRAFT_MAX_WAIT`` of typing."""
QUICK_DRAFT_DELAY = 0.05
"""… the keys of one burst (a paste, a key repeat) within it share one write."""

Completer = Callable[[str], list[str]]
"""Every completion of the whole input, in order (``/c`` → ``/context``, ``/compact ``, …); [] when none fits."""


@dataclass
class Cycle:
    """The matches repeated tab goes through, and which one the box shows."""

    matches: list[str]
    index: int = 0

    @property
    def shown(self) -> str:
        return self.matches[self.index]

    def label(self) -> Content:
        """Under the box: which match of how many, and all of them (by their last word)."""
        words = [m.strip().rsplit(" ", 1)[-1] for m in self.matches]
        return Content(f"tab {self.index + 1}/{len(words)}: " + " · ".join(words))


def line_count(text: str) -> int:
    """Lines of a pasted text (a final newline ends the last line, it does not start another)."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def paste_size(text: str) -> str:
    """How a folded paste's size reads: its lines, or for a paste of few long lines its characters (a tester's
    1,800-character one-line paste read "1 line")."""
    lines = line_count(text)
    return f"{lines:,} lines" if lines > FOLD_LINES else f"{len(text):,} characters"


class PromptInput(TextArea):
    """The message box."""

    @dataclass
    class PasteFolded(Message):
        """A large paste became a token; its whole text is shown in a block above the box."""

        number: int
        text: str

    @dataclass
    class Sent(Message):
        """The box was sent and cleared (the paste blocks go with it)."""

    def __init__(self, complete: Completer, history: InputHistory, hint: str = "", default_task: str = "",
                 id: str | None = None) -> None:
        super().__init__("", id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         highlight_cursor_line=False, placeholder=hint or PLACEHOLDER)
        self.complete_with = complete
        self.inputs = history
        self.default_task = default_task
        """Sent when enter is pressed on an empty box (the demo's task)."""
        self.pastes: dict[int, str] = {}
        self._paste_no = 0
        self._draft_timer: Timer | None = None
        self._unsaved_since: float | None = None
        """When the box first changed after the draft was last written."""
        self._cycle: Cycle | None = None
        """The matches tab is cycling through (None when the box was edited since)."""
        self.sent_command = ""
        """The text of the command being run from the box ("" once it ran): a refusal gives it back."""
        self._draft_problem = ""
        """Why the last draft could not be written ("" when it was): warned about once, until it is again."""
        self._restored: tuple[str, str] | None = None
        """A draft put back in the box selected (last run's at start, or what was typed before ↑ once the recalled
        message is sent), as shown and whole, until the box first changes: typed over, it goes under ↑."""
        self._restore_note = ""
        """The notice that said the start's draft is back in the box, until the box first changes ("": none)."""
        self._restore_more = ""
        """That notice's word on older drafts put in ↑ history ("" when none)."""
        self._sent_folded: Folded | None = None
        """The box as it showed the message last sent, when it held folded pastes (a refusal puts it back so)."""
        self._recalled_pastes: set[int] = set()
        """The numbers of the pastes of the message ↑ shows (dropped when it is left unchanged)."""

    # the unsent draft survives a crash, a kill or a quit -------------------------------------------------
    def _on_mount(self) -> None:
        draft = self.inputs.saved_draft()
        older = self.inputs.older_drafts
        more = f" {older} older unsent one{'s are' if older > 1 else ' is'} in ↑ history." if older else ""
        if "[REDACTED:" in draft:  # (saved masked: sent as it is, the model would get the mask, not the key)
            more += " A key or password in it was masked when it was saved: put it back before sending."
        if draft and not self.text:
            # selected: what is typed next (a command, a new message) replaces it, and it goes to ↑, rather
            # than joining its end unseen; → or End goes on writing it
            self._show(draft, self.inputs.restored_folded)
            self._restored = (self.text, draft)
            self.select_all()
            self._restore_note = (f"The message you had not sent is back in the box, selected: type to replace it "
                                  f"(↑ keeps it), or press → to go on writing it.{more}")
            self._restore_more = more
            self.notify(self._restore_note, title="Draft restored")
        elif draft:  # (the box already had text: the draft goes to ↑, the box's text becomes the draft)
            self.inputs.add(draft, keep_long=True)
            self.notify(f"The message you had not sent is in ↑ history.{more}", title="Draft restored")

    def _on_text_area_changed(self) -> None:
        if self._restored is not None and self.text != self._restored[0]:  # (not the restore's own change)
            shown, draft = self._restored
            note, self._restored, self._restore_note = self._restore_note, None, ""
            if not self.text.startswith(shown):  # typed over (or deleted): the draft is kept under ↑
                self.inputs.add(draft, keep_long=True)
                if note:  # (after the notice, which the app has not shown yet when keys came at once)
                    self.app.call_later(self._say_draft_went_up, note)
        if self._cycle is not None and not self.cycling:
            self._end_cycle()
        now = time.monotonic()
        if self._unsaved_since is None:
            self._unsaved_since = now
        if len(self.text) <= QUICK_DRAFT_CHARS:
            if self._draft_timer is None:  # (a pending write takes this change too)
                self._draft_timer = self.set_timer(QUICK_DRAFT_DELAY, self.save_draft)
            return
        if self._draft_timer is not None:
            self._draft_timer.stop()
        delay = min(DRAFT_DELAY, max(0.02, self._unsaved_since + DRAFT_MAX_WAIT - now))  # (a 0 s timer divides by 0)
        self._draft_timer = self.set_timer(delay, self.save_draft)

    def _say_draft_went_up(self, note: str) -> None:
        """The start's draft was typed over: its notice, still up, said it was in the box; it now says where it
        is (a tester typed at once after a start, and read "back in the box" over a box holding only their
        typing).  A notice already gone is left gone (it said ↑ keeps it)."""
        stale = [n for n in self.app._notifications if n.title == "Draft restored" and n.message == note]
        if not stale:
            return
        for notification in stale:
            self.app._unnotify(notification)
        self.notify(f"The message you had not sent is in ↑ history: what you typed replaced it in the box."
                    f"{self._restore_more}", title="Draft restored")

    def _on_unmount(self) -> None:
        self.save_draft()
        self.inputs.close()

    def save_draft(self) -> None:
        """Write the user's unsent text beside the input history: the box (pastes expanded), or, while
        ↑ shows an earlier message unchanged, what was typed before browsing started."""
        if self._draft_timer is not None:
            self._draft_timer.stop()
        self._draft_timer = None
        self._unsaved_since = None
        h = self.inputs
        whole = self.expanded()
        browsing = h.cursor < len(h.entries) and whole == h.entries[h.cursor]
        folded = self._folded(h.draft) if browsing else self._folded()  # (only the pastes its text names)
        before = self.expanded(h.draft) if h.browsing_edit(whole) else ""
        problem = self.inputs.save_draft(self.expanded(h.draft) if browsing else whole, folded, before)
        if problem and not self._draft_problem and self.is_attached:
            self.notify(f"What you type cannot be saved ({problem}): until you send it, it is only in this "
                        "box, and a crash or kill would lose it.", title="Draft not saved", severity="warning",
                        timeout=12)
        self._draft_problem = problem

    # compatibility with the one-line Input the tests and app used ------------------------------------
    @property
    def value(self) -> str:
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    @property
    def completions(self) -> list[str]:
        """Every completed input for what is typed, in order ([] when nothing fits)."""
        text = self.text
        return self.complete_with(text) if text.startswith("/") and "\n" not in text else []

    @property
    def completion(self) -> str | None:
        """The completed input for what is typed (None when nothing fits)."""
        return next(iter(self.completions), None)

    @property
    def cycling(self) -> bool:
        """The box shows a match that tab cycled to, unedited since."""
        return self._cycle is not None and self.text == self._cycle.shown

    def update_suggestion(self) -> None:
        """Show the completion's missing tail as ghost text (right arrow or tab takes it); none while tab
        cycles (tab goes to the next match, not to what extends this one)."""
        done = self.completion if self.cursor_location == self.document.end and not self.cycling else None
        self.suggestion = done[len(self.text):] if done and done.startswith(self.text) else ""

    # keys ----------------------------------------------------------------------------------------------
    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if key == "enter":
            self._stop(event)
            self.send()
        elif key in ("shift+enter", "ctrl+j", "alt+enter"):
            self._stop(event)
            self.insert("\n")
        elif key == "tab":
            self._stop(event)
            self._tab(1)
        elif key == "shift+tab" and self.cycling:
            self._stop(event)
            self._tab(-1)
        elif key == "up" and self._visual_row() == 0:
            self._stop(event)
            self._recall(-1)
        elif key == "down" and self._visual_row() == self._visual_rows() - 1:
            self._stop(event)
            self._recall(1)
        elif key in ("backspace", "delete") and self._delete_token(before=key == "backspace"):
            self._stop(event)
        else:
            await self._run_own_binding(event)

    def action_delete_to_start_of_line(self) -> None:
        """ctrl+u deletes to the start of the line as typed, not of the row it wraps onto: a long line lost only
        its last screen row, and a user who meant to clear it sent the rest (at a line's start: joins it to the
        one above, as before)."""
        row, col = self.selection.end
        if col == 0 or not self.selection.is_empty:
            super().action_delete_to_start_of_line()
            return
        self._delete_via_keyboard((row, col), (row, 0))

    def action_delete_to_end_of_line(self) -> None:
        """ctrl+k deletes to the end of the line as typed, not of its wrapped row."""
        row, _ = self.selection.end
        self._delete_via_keyboard(self.selection.end, (row, len(self.document.get_line(row))))

    def _delete_token(self, *, before: bool) -> bool:
        """Backspace just after a folded paste's token (delete just before it) removes the whole token, as one
        step ctrl+z undoes: a token cut in part is no token, and its paste was sent as the broken text (a tester
        lost 40 pasted lines to one backspace, the preview still showing them)."""
        if not self.selection.is_empty:
            return False
        row, col = self.cursor_location
        line = self.document.get_line(row)
        for m in TOKEN.finditer(line):
            if (m.end() if before else m.start()) == col:
                self.delete((row, m.start()), (row, m.end()))
                return True
        return False

    async def _run_own_binding(self, event: events.Key) -> None:
        """Run a key bound by the box itself (backspace, delete, arrows, ctrl+w…) here, in order.  Left to
        bubble, its action runs when the app gets the key, after the box has already inserted the characters
        that arrived with it in one read (over ssh, or keys typed fast): ``x⌫y`` became ``xy`` less the y."""
        if event.is_printable:
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority:
                if await self.app.run_action(binding.action, self):
                    self._stop(event)  # (one that skips, as copy with nothing selected, goes on to the app's)
                return

    def _tab(self, step: int) -> None:
        """Complete what is typed, or, right after a completion, show the next (or previous) match."""
        cycle = self._cycle if self.cycling else None
        if cycle is None:
            matches = self.completions
            if not matches:
                return
            cycle = Cycle(matches)
        else:
            cycle.index = (cycle.index + step) % len(cycle.matches)
        self.value = cycle.shown
        if len(cycle.matches) > 1:
            self._cycle = cycle
            self.border_subtitle = cycle.label()
        else:
            self._end_cycle()

    def _end_cycle(self) -> None:
        self._cycle = None
        self.border_subtitle = None

    @staticmethod
    def _stop(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def _visual_row(self) -> int:
        """The cursor's row as the box shows it (a long line wraps over several rows: ↑ moves within them
        before it recalls history, or a message recalled to edit was left with the edit lost)."""
        return int(self.wrapped_document.location_to_offset(self.cursor_location).y)

    def _visual_rows(self) -> int:
        return max(1, int(self.wrapped_document.height))

    def _recall(self, step: int) -> None:
        if self._restored is not None and self.inputs.cursor == len(self.inputs.entries):
            # a draft put back selected is browsed away from: ↑ keeps it as what was typed before browsing (↓
            # brings it back), it is not typed over (pushed into the history, it reset the browsing: ↓ lost it)
            self._restored, self._restore_note = None, ""
        h = self.inputs
        current = self.text
        if h.cursor < len(h.entries) and self.expanded() == h.entries[h.cursor]:
            current = h.entries[h.cursor]  # (shown with its pastes folded, unchanged: not an edit)
            for number in self._recalled_pastes:  # (its copies go: each visit added another)
                self.pastes.pop(number, None)
            self._paste_no = max(self.pastes, default=0)
        self._recalled_pastes = set()
        text = h.step(step, current)
        if text is None:
            return
        folded = h.folds.get(text) if h.cursor < len(h.entries) and text == h.entries[h.cursor] else None
        shown = renumbered(folded, self._paste_no) if folded is not None else None
        if shown is None:
            self.value = text
            return
        self.pastes.update(shown[1])  # (the box's own pastes stay: the draft typed before ↑ may hold some)
        self._recalled_pastes = set(shown[1])
        self._paste_no = max(self._paste_no, *shown[1])
        self.value = shown[0]

    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        lines = line_count(text)
        if lines > FOLD_LINES or len(text) > FOLD_CHARS:
            event.stop()
            event.prevent_default()
            self._paste_no += 1
            self.pastes[self._paste_no] = text
            self.insert(f"[paste #{self._paste_no} · {paste_size(text)}]")
            self.post_message(self.PasteFolded(self._paste_no, text))
            return
        event.stop()  # the box took it (bubbling on, the screen would hand it to the box again: ``MainScreen.on_paste``)
        if text != event.text:  # keep every line, with \n endings
            event.prevent_default()
            self.insert(text)

    # sending -------------------------------------------------------------------------------------------
    def expanded(self, text: str | None = None) -> str:
        """``text`` (the box's by default) with each paste token replaced by the pasted text."""
        return expand(self.text if text is None else text, self.pastes)

    def send(self) -> None:
        """Send the box: a command to the app, anything else to the agent.  Sending a message recalled
        with ↑ puts back what was typed before browsing (it was not sent, and had no other copy), selected,
        as a draft restored at start: typing goes on at once after enter, often for a new message, and was
        glued to the end of the draft put back (`draftX` + `q2` sent as `draftXq2`); now what is typed replaces
        it, and it goes under ↑ (→ or End goes on writing it)."""
        text = self.expanded()
        if not text.strip():
            if not self.default_task:
                return
            text = self.default_task
        h = self.inputs
        typed_before = self.expanded(h.draft) if h.cursor < len(h.entries) else ""
        before_folded = self._folded(h.draft) if typed_before else None
        stripped = text.strip()
        parsed = None
        if "\n" not in stripped:
            try:
                parsed = commands.parse(stripped)
            except commands.UnknownCommand as exc:  # a typo, or a message that starts with a path: the
                h.add(text, folded=self._folded())  # text stays in the box to fix (and on ↑)
                if typed_before.strip() and typed_before != text:  # (it was recalled: what was typed before
                    h.add(typed_before, keep_long=True, folded=before_folded)  # ↑ goes first on ↑, as the box
                    # holds the command)
                self.post_message(ActionFailed(str(exc)))
                return
        h.add(text, folded=self._folded())
        if len(text) > MAX_CHARS:
            self.notify(f"At {len(text):,} characters this message is too long for ↑ history; the conversation "
                        "keeps it.", title="Not in ↑ history")
        self._sent_folded = self._folded()
        self.load_text("")
        self.pastes.clear()
        self._restored, self._restore_note = None, ""
        if typed_before.strip() and typed_before != text:
            self._show(typed_before, before_folded)  # (its own pastes folded again)
            self._restored = (self.text, typed_before)
            self.select_all()
        self.save_draft()
        self.post_message(self.Sent())
        if "\n" not in stripped:
            if parsed is not None:
                cmd, arg = parsed
                self.sent_command = text
                self.post_message(CommandEntered(cmd.name, arg))
                return
            if stripped.startswith("# ") and stripped[2:].strip():  # `# rule`: append it to AGENTS.md
                self.sent_command = text
                self.post_message(CommandEntered("remember", stripped[2:].strip()))
                return
            if stripped.startswith("//"):
                text = stripped[1:]
        self.drop_default_task()  # the demo task is offered once: after a first message enter on empty does nothing
        self.post_message(TaskSubmitted(text.strip("\n")))

    def _folded(self, text: str | None = None) -> Folded | None:
        """``text`` (the box's by default) as shown, with the pastes its tokens name (None: it folds none)."""
        text = self.text if text is None else text
        used = {n: self.pastes[n] for m in TOKEN.finditer(text) if (n := int(m.group(1))) in self.pastes}
        return (text, used) if used else None

    def drop_default_task(self) -> None:
        """Enter on the empty box sends nothing from now on, and the box says what it always says (the demo
        task was sent, or the session's model is no longer the demo's)."""
        if self.default_task:
            self.default_task = ""
            self.placeholder = PLACEHOLDER

    def type_key(self, key: str, character: str | None) -> None:
        """Apply a typed key sent on from a dialog (``ui/typing_guard``): a character is inserted,
        backspace / delete remove one."""
        if key == "backspace":
            self.action_delete_left()
        elif key == "delete":
            self.action_delete_right()
        elif character:
            self.type_text(character)

    def type_text(self, text: str) -> None:
        """Text typed while the focus was elsewhere (a panel, a dialog), as typing here does it: over a
        selection (a draft given back selected) it replaces it, and the draft goes under ↑; inserted at the
        end of the selection, it was joined to the draft and the next key typed here took both."""
        start, end = self.selection
        if start != end:
            self.move_cursor(self.replace(text, start, end).end_location)
        else:
            self.insert(text)

    def give_back_command(self) -> bool:
        """The command just sent was refused (a bad argument, a turn running): its text goes back into the
        box to fix, when the box is still empty.  True when it is back."""
        text, self.sent_command = self.sent_command, ""
        return bool(text) and self.restore(text)

    def restore(self, text: str) -> bool:
        """Put back a message the app could not take (only into an empty box: never over new typing).
        True when it is back in the box."""
        if self.text.strip():
            return False
        sent, self._sent_folded = self._sent_folded, None
        self._show(text, sent if sent is not None and expand(*sent).strip("\n") == text.strip("\n") else None)
        return True

    def _show(self, text: str, folded: Folded | None) -> None:
        """Put ``text`` in the box; with ``folded`` (the box as it showed that text), its large pastes folded
        again, as they were typed: a 2,000-line paste came back as 2,000 lines to scroll through."""
        if folded is None or expand(*folded) != text and expand(*folded).strip("\n") != text.strip("\n"):
            self.value = text
            return
        shown, pastes = folded
        self.pastes = dict(pastes)
        self._paste_no = max([self._paste_no, *pastes])
        self.value = shown
        for number, pasted in sorted(pastes.items()):
            self.post_message(self.PasteFolded(number, pasted))
