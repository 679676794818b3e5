"""Shell words without a shell: unescaping, ANSI-C strings, and brace expansion of a word the grammar may
have split into touching nodes (``cmdparse`` walks the tree; this reads the words)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_tui.tools.shell_braces import TooMany, expand, has_braces

GLOB = re.compile(r"(?<!\\)[*?\[]")
"""A glob character bash expands (not escaped)."""


def node_text(node: Any) -> str:
    """A tree-sitter node's source text (bytes that are not UTF-8 kept as surrogates)."""
    return node.text.decode("utf-8", errors="surrogateescape")


def unescape_word(raw: str) -> str:
    """An unquoted word's value: each backslash takes the next character literally (a backslash-newline joins)."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def unescape_dquoted(raw: str) -> str:
    """Double-quoted text's value: a backslash escapes only ``$ ` " \\`` and a newline."""
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), raw)


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f",
         "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c(body: str) -> str:
    """A ``$'…'`` string's value (its escapes decoded as bash does)."""

    def sub(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "xuU":
            code = int(s[1:], 16) if len(s) > 1 else -1
            return chr(code) if 0 <= code < 0x110000 else m.group(0)  # (bash prints an invalid one as written)
        if s[0].isdigit():
            return chr(int(s, 8) & 0xFF)
        return _ANSI.get(s, m.group(0))

    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)", sub, body)


#: Word nodes whose source text is bash's word as it is (no quotes or expansions inside).
_PLAIN = frozenset({"word", "brace_expression", "number"})


def touching(nodes: Sequence[Any]) -> list[list[Any]]:
    """``nodes`` in runs with nothing between them: one shell word (the grammar splits ``{\\},-exec}`` into
    ``{`` and ``\\},-exec}``, which bash reads as one word and brace-expands to ``} -exec``)."""
    groups: list[list[Any]] = []
    for n in nodes:
        if groups and groups[-1][-1].end_byte == n.start_byte:
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups


def brace_words(group: Sequence[Any]) -> tuple[list[str] | None, bool]:
    """What bash makes of one word (its nodes, touching) with braces (empty words dropped, as bash does), or
    None when it has none; and whether it has braces this parser cannot expand for certain (then None too).
    Quoted parts are literal text to brace expansion (``src/{a,b}"/x y"``); a variable inside them is not read."""
    if not has_braces("".join(node_text(n) for n in group)):
        return None, False
    parts = [_literal_source(n) for n in group]
    if any(p is None for p in parts):
        return None, True
    try:
        return [unescape_word(w) for w in expand("".join(p for p in parts if p is not None)) if w], False
    except TooMany:
        return None, True


def _literal_source(node: Any) -> str | None:
    """``node`` as unquoted source for brace expansion: plain words as they are, quoted text with every
    character escaped; None for anything the shell would expand first (a variable, a substitution)."""
    if node.type in _PLAIN:
        return node_text(node)
    if node.type == "raw_string":
        return "".join("\\" + c for c in node_text(node)[1:-1])
    if node.type == "string" and all(c.type == "string_content" or not c.is_named for c in node.children):
        body = "".join(unescape_dquoted(node_text(c)) for c in node.children if c.type == "string_content")
        return "".join("\\" + c for c in body)
    if node.type == "concatenation":
        inner = [_literal_source(c) for c in node.children]
        return None if any(p is None for p in inner) else "".join(p for p in inner if p is not None)
    return None


def unquoted_dynamic(word: str) -> bool:
    """Whether a word brace expansion made still needs the shell (a glob, a leading ``~``)."""
    return bool(GLOB.search(word)) or word.startswith("~")


def joined_word(source: str) -> str | None:
    """A backslash-newline in ``source`` that joins two pieces of text into one word (``r\\⏎m``, ``-\\⏎exec``,
    ``.\\⏎./x``), shown with ``⏎``, or None.  Bash deletes the pair before it splits words, the grammar reads it as
    a word break: the rules would check ``r`` and ``m`` where bash runs ``rm``.  A backslash-newline between
    words (the usual ``cmd \\⏎  --opt``) joins nothing.  Not in single quotes, ``$'…'`` or a comment, where
    bash keeps it; everywhere else (double quotes, heredoc bodies) it counts."""
    i, n = 0, len(source)
    double = False
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            if source[i + 1] == "\n":
                j = i
                while j + 1 < n and source[j] == "\\" and source[j + 1] == "\n":
                    j += 2  # a run of continuations joins what is on either side of the whole run
                before = source[i - 1] if i > 0 else " "
                after = source[j] if j < n else " "
                if not before.isspace() and not after.isspace():
                    return f"{source[max(0, i - 12):i].split()[-1]}\\⏎{after}"
                i = j
                continue
            i += 2
            continue
        if c == '"':
            double = not double
        elif c == "'" and not double:
            ansi = i > 0 and source[i - 1] == "$"
            j = i + 1
            while j < n and source[j] != "'":
                j += 2 if ansi and source[j] == "\\" else 1
            i = j + 1
            continue
        elif c == "#" and not double and (i == 0 or source[i - 1].isspace() or source[i - 1] in ";&|()"):
            end = source.find("\n", i)
            i = n if end == -1 else end
            continue
        i += 1
    return None
