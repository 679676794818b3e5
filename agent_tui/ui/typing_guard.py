"""Keys typed for the message box never answer an approval that opened under the user's fingers.

The agent asks when it reaches a write or a command, which can be in the middle of a sentence the
user is typing for the next turn: ``y`` of "yes", ``a`` of "add" (allow *always*), ``n`` of "no",
or enter (it presses the focused "Allow once") would answer the dialog, and the rest of the
sentence would be lost.  So while the user is in a typing burst — a key within ``TYPING_GAP``
seconds of the last key typed on the main screen — the keys that reach an approval go on into the
message box (enter is held back), and the dialog says so; after a pause the next key answers it.
Sending a message (enter on the main screen) ends the burst: the user has finished typing.

A burst is not the only way to be caught: a user who sent a message and starts on the next one
half a second later, as the agent's first write asks, has not seen the dialog either (a tester's
"yep, and then…" ran the command, and its "y" was gone).  So for :data:`SETTLE` seconds after a
dialog appears no typing answers it (the delay browsers give their security prompts): the keys go
on to the message box as in a burst.

A typing key that is none of the dialog's answer keys (the ``t`` of "the", a space, backspace) is
typing for the box, not an answer, so it goes there and the dialog holds from then on: "the cook",
typed four seconds after a dialog opened, had its ``o`` taken as *allow once* (a hidden alias), and
every other letter was dropped.

Once a dialog has held keys back, letters never answer it: the box is hidden under the dialog, and a
tester who paused mid-sentence and went on ("… also …") had the "a" taken as *always*.  The answer is
then given with tab or the arrows and enter (enter, too, only after a pause), or the mouse, and the
dialog says so; every letter goes on to the box.

The same holds for the trust dialog, which opens by itself right after the first frame, when a user
may already be typing: ``t`` of "the" would trust the folder.  A screen opts in by mixing in
:class:`GuardsTyping` and showing :data:`HELD_NOTE` (id ``typing-held``) while it has the
``-typing`` class.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

TYPING_GAP = 0.8
"""Seconds between two keys that still count as one burst of typing (people type faster than this)."""
SETTLE = 1.0
"""Seconds a dialog that opened by itself is on screen before typing can answer it."""
TYPED_KEYS = frozenset({"backspace", "delete", "space"})
"""Keys that are typing besides printable characters."""


class TypingGuard:
    """When the user last typed on the main screen, and whether a key now is part of that burst."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last = float("-inf")
        """``clock()`` at the last typed key (-inf: not typing)."""

    def typed(self) -> None:
        """A key of typing reached the message box (or was sent on to it)."""
        self.last = self.clock()

    def finished(self) -> None:
        """The user sent the box: the burst is over."""
        self.last = float("-inf")

    def in_burst(self) -> bool:
        """A key now still belongs to the user's typing."""
        return self.clock() - self.last < TYPING_GAP


def is_typing(key: str, printable: bool) -> bool:
    """The key edits text (a character, space, backspace, delete), as opposed to a command key."""
    return printable or key in TYPED_KEYS


KEY_HINT = re.compile(r" \([a-z]\)$")
"""The key a button's label names (``Deny (n)``): taken off once the dialog held typing, since letters go to the box."""

HELD_NOTE = ("Your typing went to the message box, not here. Answer with tab or the arrows and enter (or the "
             "mouse): letters keep going to the box.")
"""What a guarding dialog shows once it held back keys."""

DRAFT_NOTE = ("A message you are writing is in the box: your keys go on to it, not here. Answer with tab or the "
              "arrows and enter (or the mouse).")
"""What it shows instead when it opened over a draft in the box (nothing was typed at it)."""


class GuardsTyping:
    """Mixed into a dialog that opens by itself: the app sends a typing burst's keys past it, and any
    typing in its first :data:`SETTLE` seconds."""

    shown_at: float = float("inf")
    """The typing guard's clock when the dialog last came on screen (until then, +inf: not yet answerable)."""

    def on_screen_resume(self) -> None:
        guard = getattr(self.app, "typing", None)  # type: ignore[attr-defined]
        self.shown_at = guard.clock() if isinstance(guard, TypingGuard) else time.monotonic()
        main = getattr(self.app, "main", None)  # type: ignore[attr-defined]
        draft = getattr(getattr(main, "prompt", None), "text", "")
        if isinstance(draft, str) and draft.strip():  # (the user is writing a message: their enter is for it)
            self.call_after_refresh(self.typing_held, DRAFT_NOTE)  # type: ignore[attr-defined]

    def answers(self, key: str) -> bool:
        """``key`` is one of the dialog's own keys (its bindings: an answer, escape, scrolling)."""
        for binding in getattr(type(self), "BINDINGS", ()):
            keys = binding.key if hasattr(binding, "key") else binding[0]
            if key in (k.strip() for k in str(keys).split(",")):
                return True
        return False

    def held(self) -> bool:
        """The dialog held typing back already: from now on letters go to the box, never to it."""
        return bool(self.has_class("-typing"))  # type: ignore[attr-defined]

    def settling(self, clock: Callable[[], float] = time.monotonic) -> bool:
        """The dialog came on screen too recently for a typed key to be an answer to it."""
        return clock() - self.shown_at < SETTLE

    SAFE_ANSWER = ""
    """The id of the button that answers safely (deny, don't trust): focused once the dialog held typing, so an
    enter pressed later, by a user who never saw the dialog open, cannot approve anything."""

    def typing_held(self, note: str = HELD_NOTE) -> None:
        """Keys of the user's typing burst were sent on to the message box (or a draft is there): say so, move the
        focus to the safe answer, and take the letters off the buttons (they type into the box now)."""
        first = not self.held()
        self.add_class("-typing")  # type: ignore[attr-defined]
        if not first:
            return
        from textual.widgets import Static

        for shown in self.query("#typing-held").results(Static):  # type: ignore[attr-defined]
            shown.update(note)
        for button in self._answer_buttons():
            label = str(button.label)
            if KEY_HINT.search(label):
                button.label = KEY_HINT.sub("", label)
            if button.id == self.SAFE_ANSWER:
                button.focus()

    def _answer_buttons(self) -> list[Any]:
        from textual.widgets import Button

        return [b for b in self.query(Button).results(Button) if b.display]  # type: ignore[attr-defined]

    def action_move_answer(self, step: int) -> None:
        """The arrows move between the answers, one each, and stop at the ends: wrapping took a fast run of
        arrows from "Deny, say why" onto "Allow once".  The focus moves now, not after the keys already queued
        (``Widget.focus`` defers it): an enter typed in the same burst as "→ →" pressed the answer the arrows
        had left, and ran the command the user meant to deny."""
        buttons = self._answer_buttons()
        if not buttons:
            return
        focused = self.focused  # type: ignore[attr-defined]
        if focused in buttons:
            target = buttons[max(0, min(len(buttons) - 1, buttons.index(focused) + step))]
        else:
            target = buttons[0 if step > 0 else len(buttons) - 1]
        self.set_focus(target)  # type: ignore[attr-defined]
