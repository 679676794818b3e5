"""A paste holding escape sequences stays one paste.

Textual's input parser keeps reading escape sequences inside a bracketed paste: a pasted ``ESC [31m``
(coloured log output, a file with raw escapes) was re-issued as key presses, and so was what came after
it up to the next match, a line end included.  A tester pasting three lines of a coloured traceback got
the second half of the first line sent to the model as a message (enter), the second line pushed onto ↑
history, and the box left holding the rest, scrambled.

So the terminal's input is cleaned before the parser sees it: between the paste's start and end markers,
escape sequences are taken out (CSI and OSC sequences whole, any other escape with its next character),
which leaves the text as it reads on screen.  Outside a paste nothing changes: a lone escape still reaches
the parser at once (holding it back would delay the escape key).  :func:`install` makes the Linux driver
(also used on macOS) build this parser.

The same parser splits "alt+letter" into esc and the letter.  A terminal sends esc and a key typed right
after it as one read, and tmux does so for a key typed within its ``escape-time`` (500 ms by default):
the parser took the pair for alt+letter, so the esc was lost — a screen stayed open and the keys typed on
acted as its commands (an ``e`` evicted the selected item), a running turn was not cancelled.  agent-tui
binds no alt+letter, so the pair is read as the two keys it almost always is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser
from textual.keys import _character_to_key
from textual.message import Message

START = "\x1b[200~"
"""What the terminal sends before pasted text."""
END = "\x1b[201~"
"""What it sends after it."""
_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[^\[\]])")
"""A whole escape sequence: CSI (``ESC [ … final``), OSC (``ESC ] … BEL`` or ``ESC ] … ESC \\``), or two bytes."""
_MAX_HELD = 4096
"""Characters of an unfinished sequence held for the next read at most (past it, they are dropped)."""


class PasteCleaner:
    """Takes the escape sequences out of bracketed pastes in a stream read in chunks."""

    def __init__(self) -> None:
        self.in_paste = False
        """Between a paste's start and end markers."""
        self._held = ""
        """The start of a sequence inside a paste that the last chunk cut (finished by the next one)."""
        self._tail = ""
        """The last characters outside a paste: a start marker cut between two chunks is seen."""

    def __call__(self, data: str) -> str:
        out: list[str] = []
        pos = 0
        if self.in_paste:
            data, self._held = self._held + data, ""
        while pos < len(data):
            if not self.in_paste:
                seen = self._tail + data[pos:]
                at = seen.find(START)
                if at == -1:
                    out.append(data[pos:])
                    self._tail = seen[-(len(START) - 1):]
                    break
                cut = at - len(self._tail) + len(START)  # (where the paste starts in ``data``)
                out.append(data[pos:pos + cut])
                pos += cut
                self._tail, self.in_paste = "", True
                continue
            at = data.find("\x1b", pos)
            if at == -1:
                out.append(data[pos:])
                break
            out.append(data[pos:at])
            rest = data[at:]
            if rest.startswith(END):
                out.append(END)
                pos, self.in_paste = at + len(END), False
                continue
            found = _SEQUENCE.match(data, at)
            if found is None or (END.startswith(rest) and len(rest) < len(END)):
                self._held = rest if len(rest) <= _MAX_HELD else ""  # (the next chunk finishes it)
                break
            pos = found.end()
        return "".join(out)


class PasteSafeParser(XTermParser):
    """Textual's parser, fed through a :class:`PasteCleaner`."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._clean = PasteCleaner()

    def feed(self, data: str) -> Iterable[Message]:
        if not data:  # (end of input: the parser's own signal)
            return super().feed(data)
        cleaned = self._clean(data)
        return split_alt_letters(super().feed(cleaned)) if cleaned else ()

    def tick(self) -> Iterable[Message]:
        return split_alt_letters(super().tick())


def split_alt_letters(messages: Iterable[Message]) -> Iterable[Message]:
    """``messages`` with each alt+(printable character) key made an esc key and the character's key."""
    for m in messages:
        char = m.character if isinstance(m, events.Key) else None
        if isinstance(m, events.Key) and m.key.startswith("alt+") and char and len(char) == 1 and char.isprintable():
            yield events.Key("escape", "\x1b")
            yield events.Key(_character_to_key(char), char)
        else:
            yield m


def install() -> None:
    """Make Textual's Linux driver parse input with :class:`PasteSafeParser` (idempotent)."""
    try:
        from textual.drivers import linux_driver
    except ImportError:  # (Windows: its driver parses otherwise)
        return
    linux_driver.XTermParser = PasteSafeParser  # type: ignore[misc]
