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


def dquoted_pieces(node: Any) -> list[Any]:
    """A double-quoted string's inside, in order: its literal text as raw ``str`` (still to unescape) and its
    expansions as nodes.  The text is read from the source between the quotes, not from the ``string_content``
    children alone: tree-sitter-bash leaves a line break inside the quotes out of every child, and
    ``"import sys⏎for …"`` was read as ``import sysfor …``."""
    src = node.text
    base = node.start_byte
    pieces: list[Any] = []
    literal: list[bytes] = []
    at = base + (2 if src.startswith(b'$"') else 1 if src.startswith(b'"') else 0)
    end = node.end_byte - 1 if src.endswith(b'"') and node.end_byte - 1 >= at else node.end_byte
    for c in node.children:
        if not c.is_named or c.type == "string_content":
            continue
        literal.append(src[at - base:c.start_byte - base])
        pieces += [b"".join(literal).decode("utf-8", errors="surrogateescape"), c]
        literal, at = [], c.end_byte
    literal.append(src[at - base:end - base])
    pieces.append(b"".join(literal).decode("utf-8", errors="surrogateescape"))
    return [p for p in pieces if not isinstance(p, str) or p]


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
        body = "".join(unescape_dquoted(p) for p in dquoted_pieces(node))
        return "".join("\\" + c for c in body)
    if node.type == "concatenation":
        inner = [_literal_source(c) for c in node.children]
        return None if any(p is None for p in inner) else "".join(p for p in inner if p is not None)
    return None


def unquoted_dynamic(word: str) -> bool:
    """Whether a word brace expansion made still needs the shell (a glob, a leading ``~``)."""
    return bool(GLOB.search(word)) or word.startswith("~")


def joined_word(data: bytes, literal: Sequence[tuple[int, int]]) -> str | None:
    """A backslash-newline in the line's bytes ``data`` that joins two pieces of text into one word (``r\\⏎m``,
    ``-\\⏎exec``, ``.\\⏎./x``), shown with ``⏎``, or None.  Bash deletes the pair before it splits words, the
    grammar reads it as a word break: the rules would check ``r`` and ``m`` where bash runs ``rm``.  A
    backslash-newline between words (the usual ``cmd \\⏎  --opt``) joins nothing, and one inside a
    ``literal`` span (byte ranges the grammar found: single-quoted and ``$'…'`` strings, comments, the body of a
    heredoc whose delimiter is quoted, the text of a double-quoted string, whose words are read with it
    removed) is not a continuation at all."""
    pos = 0
    while (at := data.find(b"\\\n", pos)) != -1:
        pos = at + 2
        run = at
        while run > 0 and data[run - 1:run] == b"\\":
            run -= 1
        if (at - run) % 2 or any(a <= at < b for a, b in literal):
            continue  # an escaped backslash before a newline, or text bash keeps as it is
        end = at
        while data[end:end + 2] == b"\\\n":
            end += 2  # a run of continuations joins what is on either side of the whole run
        before, after = data[at - 1:at] if at else b" ", data[end:end + 1] or b" "
        if not before.isspace() and not after.isspace():
            head = data[max(0, at - 12):at].split()[-1].decode("utf-8", "replace")
            return f"{head}\\⏎{after.decode('utf-8', 'replace')}"
        pos = end
    return None
