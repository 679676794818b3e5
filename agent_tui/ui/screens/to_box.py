"""What a panel has no use for goes into the message box: pastes, and on read-only panels typed letters.

A paste made while help, the inspector, a request view or an approval dialog was open went nowhere (their
tables and read-only text take no paste) and was in no draft either, so the user lost it; and letters typed
on help, memos or MCP vanished without a word, though the request view already sent them to the box.  A
screen mixes in :class:`PastesToBox` (a paste goes to the box, folded there like any other) or
:class:`TypesToBox` (letters too, except its own keys until the user has typed something else), and tells
the user once where their text went.  A field of the panel (the inspector's filter, a reason box) still takes
what is pasted or typed into it: it stops the event before it reaches the screen.  On a dialog that guards
typing (an approval, the trust dialog: ``ui/typing_guard``) a paste means the user is writing, so the dialog
holds from then on: the letter typed after a paste (the `t` of "the") trusted the folder.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events

from agent_tui.ui.typing_guard import GuardsTyping, TypingGuard

TOLD = "Typing goes into the message box; esc takes you back to it."
"""The note shown the first time a panel sends keys or a paste on to the box."""


def box_of(app: Any) -> Any | None:
    """The main screen's message box (None before the app composed it)."""
    return getattr(getattr(app, "main", None), "prompt", None)


def send_paste(box: Any, text: str) -> None:
    """Hand a paste made elsewhere to the box (it folds a large one, as when pasted there).  Marked forwarded:
    bubbling up from the box, it would be handed again by the app to whatever has the focus by then (a panel,
    or a field a key behind the paste focused): it went in twice."""
    sent = events.Paste(text)
    sent._set_forwarded()
    box.post_message(sent)


class PastesToBox:
    """Mixed into a screen over the main one: a paste nothing on it took goes into the message box."""

    told: bool = False
    """The user was told once that their text goes to the box."""

    def _tell(self) -> None:
        if not self.told:
            self.told = True
            self.notify(TOLD, timeout=4)  # type: ignore[attr-defined]

    def on_paste(self, event: events.Paste) -> None:
        box = box_of(self.app)  # type: ignore[attr-defined]
        if box is None or not event.text:
            return
        event.stop()
        event.prevent_default()
        send_paste(box, event.text)
        if isinstance(self, GuardsTyping):  # the user is writing: a letter typed next is for the box too (the `t`
            guard = getattr(self.app, "typing", None)  # of "the", right after a paste, trusted the folder)
            if isinstance(guard, TypingGuard):
                guard.typed()
            self.typing_held()
            return
        self._tell()


class TypesToBox(PastesToBox):
    """Also every printable key the screen does not bind: it goes into the box.  The screen's own printable
    keys (``VIEW_KEYS``) stay its commands until the user has typed another letter; from then on they are text
    too, so a word that starts with one is not cut in two."""

    VIEW_KEYS: ClassVar[frozenset[str]] = frozenset()
    """The printable keys the screen binds."""
    typing: bool = False
    """The user has typed into the box from here: every printable key is text from now on."""

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and event.character and self.to_box(event.character):
            event.stop()
            event.prevent_default()

    def to_box(self, character: str) -> bool:
        """Type ``character`` into the box unless it is one of the screen's keys still; True when it went."""
        box = box_of(self.app)  # type: ignore[attr-defined]
        if box is None or (not self.typing and character in self.VIEW_KEYS):
            return False
        box.type_text(character)
        self.typing = True
        self._tell()
        return True
