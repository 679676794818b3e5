"""Where bash evaluates text as code that no parsed command shows: the check the approval rules need
besides the argv.

Bash evaluates an array subscript wherever it does arithmetic, and a subscript may hold ``$(…)``, from the line
(even quoted, ``[[ 'a[$(id)]' -eq 0 ]]``, or spelled ``$'\\x24('``) or from data (a file named ``a[$(…)]`` met by
``for f in *; do [[ $f -eq 0 ]]``).  So every arithmetic context counts — ``((…))``, ``$((…))``, ``$[…]``,
``[[ … -eq … ]]`` and its kin (unless both sides are numbers whatever the data, ``[[ $# -gt 0 ]]``),
``-v``, ``${x:off}`` with an offset that is not a number, ``let``, ``declare`` and
the builtins that set a variable they are given by name (``printf -v``, ``read``, ``mapfile``, ``getopts``) —
and so do ``${!x}``, ``${x@P}``, ``${a[i]}`` with a subscript that is not a number, ``trap``, ``source``/``.``
of a computed file (``<(…)``), and a program reading ``/dev/stdin`` or a file descriptor.  Deny rules look
through ``eval`` themselves; a literal script file is not looked into: the sandbox holds it.  Single-quoted
text is never code (``grep '[[:space:]]'``, a commit message with ``((x))``) — as the syntax tree says, not a
scan of the characters: in an unquoted heredoc body a quote is an ordinary character (``cmd_spans``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HIDDEN_CODE = re.compile(
    r"\$\(\(|\$\[|(?:^|[;&|(\n!]|\bfor|\bdo|\bthen|\belse|\bwhile|\buntil|\bif)\s*\(\(|\$\{!|\$\{[^}]*@P|"
    r"\$\{#?\w+\[(?!\d+\]|@\]|\*\])|\$\{#?[\w@*]+:(?![-=?+]|\s*\d+\s*(?::\s*\d+\s*)?\})|"
    r"\[\[.*\s-(v|R)\s|"
    r"\{[A-Za-z_]\w*\[[^\n]*?\]\}[<>]", re.S)  # (``{a[$(id)]}>x``: bash evaluates the subscript to store the fd)
"""Source text where bash evaluates code that the parse does not show as a command (``hidden_code``)."""
ARITH_TEST = re.compile(r"(\S*)\s+-(?:eq|ne|lt|le|gt|ge)\s+(\S*)")
"""An arithmetic comparison of ``[[ … ]]`` with the words on each side of it."""
PLAIN_NUMBER = re.compile(r'[(!]*("?)(?:\d+|\$[#?$!]|\$\{(?:#[A-Za-z_]\w*|#[@*]|[#?$!])\})\1\)*')
"""An operand that is a number whatever the data: digits, ``$#``, ``$?``, ``$$``, ``$!``, a length ``${#x}``."""
EVALUATING_BUILTINS = frozenset({"let", "read", "mapfile", "readarray", "getopts", "declare", "typeset", "local",
                                 "trap", "compgen", "complete", "enable", "unset", "readonly"})
"""Builtins that evaluate text as code, or assign a variable named by their argument (subscript included)."""


def _arithmetic_test(active: str) -> re.Match[str] | None:
    """The first comparison after a ``[[`` whose operands could name a variable (so a subscript), or None:
    ``[[ $# -gt 0 ]]`` evaluates nothing, ``[[ $f -eq 0 ]]`` evaluates whatever ``$f`` holds."""
    start = active.find("[[")
    if start < 0:
        return None
    for m in ARITH_TEST.finditer(active, start):
        if not (PLAIN_NUMBER.fullmatch(m.group(1)) and PLAIN_NUMBER.fullmatch(m.group(2))):
            return m
    return None


def hidden_code(active: str, commands: Sequence[Any]) -> str | None:
    """What makes bash evaluate text as code, shortened for a message, or None: in ``active`` (the line with the
    text bash never evaluates taken out, ``cmd_spans.active_text``), or in its simple ``commands``."""
    m = HIDDEN_CODE.search(active) or _arithmetic_test(active)
    if m is not None:
        found = m.group(0).strip()
        return found if len(found) <= 40 else found[:37] + "…"
    for c in commands:
        argv = list(c.argv)
        while argv and Path(argv[0]).name in ("command", "builtin"):  # (``command printf -v …``)
            argv = argv[1:]
            while argv and argv[0] in ("-p", "-v", "-V", "--"):
                argv = argv[1:]
        prog = Path(argv[0]).name if argv else ""
        if prog in EVALUATING_BUILTINS or prog in ("printf", "test", "[", "export", "wait") and \
                any(a in ("-v", "-R", "-i", "-p") or a.startswith("-v") for a in argv[1:]):
            return prog
        if any(a.startswith(("/dev/stdin", "/dev/fd/", "/proc/self/fd/")) for a in c.argv[1:]):
            return "a program reading code from /dev/stdin or a file descriptor"
        if prog in ("source", ".") and any(c.dynamic[1:2]):
            return f"{prog} of a computed file"
    return None
