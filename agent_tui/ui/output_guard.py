"""The one boundary between text someone else wrote and the terminal: a line filter on every strip.

Model replies, tool output, file previews, MCP errors, memos and notifications reach the screen
through a dozen Textual widgets (Markdown, Static, Label, TextArea, DataTable, OptionList, toasts),
and none of them removes ``ESC``: Textual and Rich strip only BEL, BS, VT, FF and CR.  So
``ESC]52;c;…`` in a reply would write the user's clipboard, ``ESC]0;…`` the window title, ``ESC[8m``
hide what follows, and a C1 ``CSI`` (U+009B) or a bidirectional override act the same way.  Escaping
each widget's input would be a call at every render path, and the next widget would forget it; this
filter sees every line every widget renders, after layout and before it is written, and removes each
such character (:func:`agent_tui.core.terminal.inert`).  They are all zero cells wide, so the layout
is unchanged; the printable rest of a sequence (``]52;c;…``, ``[8m``) stays on screen, shown and not
obeyed.  A hyperlink whose target holds one is dropped (Rich writes the target into an OSC 8).
A line without any costs one search over its text (about 5 µs for a line of eight segments here;
Textual caches filtered strips, so it is paid when a line changes, not at every frame).
Tabs and newlines never reach a strip (Textual expands and splits them first), so Markdown, code
blocks and tool output look as before.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from agent_tui.core.terminal import inert


class ShownNotObeyed(LineFilter):
    """Removes terminal controls, C1 controls and direction overrides from every rendered segment."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not _links(segments) and inert(line := "".join([s.text for s in segments])) is line:
            return segments  # the common case: one search over the whole line
        return [segment if segment.control else _clean(segment) for segment in segments]


GUARD = ShownNotObeyed()
"""The app's instance (stateless, so one is shared; Textual caches filtered strips per filter)."""


def _links(segments: list[Segment]) -> bool:
    return any(s.style is not None and s.style.link for s in segments)


def _clean(segment: Segment) -> Segment:
    """``segment`` itself when it is safe (the common case, no copy), else a copy without the controls."""
    text, style, control = segment
    safe_text = inert(text)
    link = style.link if style is not None else None
    if link and inert(link) is not link:
        assert style is not None
        style = style.update_link(None)
    elif safe_text is text:
        return segment
    return Segment(safe_text, style, control)
