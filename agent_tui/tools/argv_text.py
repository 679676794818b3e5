"""A command's words as a person reads them on one line: quoted only where needed, in the quote that needs no
escaping, a line break shown as ⏎.

An approval's "Why asked" line named the words no allow rule covered with ``shlex.join``: the two-line
``python3 -c "import sys⏎for …"`` read ``'import sysfor …'`` once the line was laid out (the break vanished:
text that is not in the command, on a security prompt), and every single quote inside became ``'"'"'``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

PLAIN = re.compile(r"[\w@%+=:,./-]+")
"""A word that needs no quotes."""
DOUBLE_QUOTE_SPECIALS = re.compile(r'["$`\\!]')
"""What a double-quoted word would have to escape."""
BREAK = "⏎"


def shown_word(word: str) -> str:
    """``word`` quoted as a person would write it, its line breaks as ⏎."""
    if PLAIN.fullmatch(word):
        text = word
    elif "'" not in word:
        text = f"'{word}'"
    elif not DOUBLE_QUOTE_SPECIALS.search(word):
        text = f'"{word}"'
    else:
        text = shlex.quote(word)
    return text.replace("\r\n", BREAK).replace("\n", BREAK).replace("\r", BREAK)


def shown_argv(argv: Sequence[str]) -> str:
    """The words of a command for a one-line message."""
    return " ".join(shown_word(w) for w in argv)
