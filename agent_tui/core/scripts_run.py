"""Which files a shell command runs as a program: the mark of the agent's own scratch scripts.

An agent that creates a file and then runs it directly (``python reproduce.py``, ``node
check.js``, ``./try.sh``) has written itself a scratch program: once idle it may leave the
compaction block, and a read brings it back.  A file the agent creates and never runs as a
program — a new module, a new test run by its project's test runner — is part of the change
and stays protected for the task like any file it edited.  Recognising the interpreter word
and the script argument is enough here; anything unusual simply does not count as a run.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import Any

from agent_tui.core.parse import loads_json

_INTERPRETER = re.compile(r"^(python[\d.]*|pypy[\d.]*|node|bash|sh|zsh|ruby|perl|php|bun|deno|tsx|ts-node)$")
"""The program part of a command word (``/usr/bin/python3`` counts as ``python3``)."""
_NO_SCRIPT = frozenset({"-m", "-c", "-e", "--eval", "-p", "--print"})
"""Options after which an interpreter runs no script file (a module, inline code)."""
_VALUE_OPTIONS = frozenset({"-W", "-X", "--require", "-r", "-I"})
"""Interpreter options that take the next word as their value."""
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")"})


def scripts_run(command: str) -> list[str]:
    """The paths ``command`` runs as programs, as written in it (``./`` removed)."""
    try:
        lex = shlex.shlex(_lines_as_commands(command), posix=True, punctuation_chars=";&|()")
        lex.whitespace_split = True
        words = list(lex)
    except ValueError:
        return []
    out: list[str] = []
    start = True
    i = 0
    while i < len(words):
        w = words[i]
        if w in _SEPARATORS:
            start = True
        elif start:
            start = False
            if w.startswith("./") and len(w) > 2:
                out.append(w[2:])
            elif w == "deno" and i + 2 < len(words) and words[i + 1] == "run":
                i += 1
            if _INTERPRETER.match(w.rsplit("/", 1)[-1]):
                script = _script_after(words, i + 1)
                if script is not None:
                    out.append(script[2:] if script.startswith("./") else script)
        i += 1
    return out


def _lines_as_commands(command: str) -> str:
    """``command`` with heredoc bodies left out and each line ended by ``;`` (a script of several
    lines runs them one after another)."""
    out: list[str] = []
    lines = command.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        for tag in _HEREDOC.findall(line):
            while i < len(lines) and lines[i].strip() != tag[1]:
                i += 1  # the body is data, not commands
            i += 1
    return " ;\n".join(out)


def _script_after(words: list[str], i: int) -> str | None:
    while i < len(words) and words[i] not in _SEPARATORS:
        w = words[i]
        if w in _NO_SCRIPT:
            return None
        if w in _VALUE_OPTIONS:
            i += 2
            continue
        if w.startswith("-"):
            i += 1
            continue
        return w
    return None


def commands_of(tool_calls: Iterable[dict[str, Any]] | None) -> list[str]:
    """The ``command`` argument of each tool call that has one (a shell tool's call)."""
    out: list[str] = []
    for c in tool_calls or ():
        try:
            args = loads_json(str((c.get("function") or {}).get("arguments") or ""))
        except ValueError:
            continue
        if isinstance(args, dict) and isinstance(args.get("command"), str):
            out.append(args["command"])
    return out


def same_file(path: str, written: str) -> bool:
    """``written`` (a word of a command) names ``path``: equal, or one ends with the other at a ``/``
    (a command run from the workspace names ``reproduce.py``; the file may be ``/testbed/reproduce.py``)."""
    a, b = path.rstrip("/"), written.rstrip("/")
    if not a or not b:
        return False
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)
