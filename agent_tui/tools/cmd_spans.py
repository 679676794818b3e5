"""Which bytes of a command line bash reads as code, taken from the syntax tree, and a cross-check of the tree
against them.

The grammar and bash disagree in places, and each disagreement was a way to run code unasked (a security
review, twice confirmed through the real binary):

- ``ls \\ #; touch pwn``: bash reads ``\\ #`` as the word " #", so ``;`` ends the command and ``touch`` runs;
  tree-sitter-bash reads a comment from ``#`` to the end of the line, and the walker skipped it.  A comment
  counts only where bash starts one (:func:`false_comment`).
- A backtick in an unquoted heredoc body, or in the operand of ``${x:-…}``, is a command substitution to bash;
  the grammar keeps it as plain text there.  So every backtick and ``$(`` outside the text bash never
  evaluates counts as a substitution, whatever the tree says (:func:`unseen_substitution`).
- A single quote in an unquoted heredoc body is an ordinary character, not quoting: ``'${a[f]}'`` there still
  evaluates the subscript.  What is quoted comes from the tree (:func:`quiet_spans`), not from a scan of the
  characters.
- A ``$'…'`` string inside ``${…}`` is decoded and then expanded, and a ``<(…)`` in an unquoted one runs
  (:func:`expansion_runs_code`); a backslash-newline inside ``$(`` joins it first (:func:`joined`).
"""

from __future__ import annotations

from typing import Any

QUOTED_NODES = frozenset({"raw_string", "ansi_c_string"})
"""Nodes whose text bash keeps as written: single-quoted and ``$'…'`` strings."""
LOUD_PARENTS = frozenset({"heredoc_body", "expansion", "string", "translated_string", "ERROR"})
"""Where a quote is not (or not surely) quoting: in a heredoc body it is a character; inside ``${…}`` within double
quotes bash reads it as a character too; a part the grammar could not read is read as code."""
COMMENT_BEFORE = frozenset(b" \t\n;&|()<>")
"""Bytes after which an unescaped ``#`` starts a comment in bash."""


LITERAL_NODES = frozenset({"raw_string", "ansi_c_string", "comment", "string_content"})
"""Nodes whose text bash keeps as written, backslash-newlines included (a double-quoted string's text is read
with them removed: ``unescape_dquoted``)."""


def literal_spans(root: Any) -> list[tuple[int, int]]:
    """Byte ranges where a backslash-newline is no line continuation: ``LITERAL_NODES``, and the body of a
    heredoc whose delimiter is quoted (``<<'EOF'``)."""
    out: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in LITERAL_NODES:
            out.append((node.start_byte, node.end_byte))
            continue
        if node.type == "heredoc_redirect" and _quoted_delimiter(node):
            out += [(c.start_byte, c.end_byte) for c in node.children if c.type == "heredoc_body"]
        stack.extend(node.children)
    return out


def quiet_spans(root: Any) -> list[tuple[int, int]]:
    """Byte ranges bash never evaluates: single-quoted and ``$'…'`` strings outside :data:`LOUD_PARENTS`, the
    bodies of heredocs whose delimiter is quoted (``<<'EOF'``), and comments (only real ones: callers reject a
    line with a :func:`false_comment` first)."""
    out: list[tuple[int, int]] = []
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, loud = stack.pop()
        t = node.type
        if (t in QUOTED_NODES and not loud) or t == "comment":
            out.append((node.start_byte, node.end_byte))
            continue
        if t == "heredoc_redirect" and _quoted_delimiter(node):
            out += [(c.start_byte, c.end_byte) for c in node.children if c.type == "heredoc_body"]
        inner = loud or t in LOUD_PARENTS
        stack.extend((c, inner) for c in node.children)
    return sorted(out)


def _quoted_delimiter(node: Any) -> bool:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in start.text for q in (b"'", b'"', b"\\"))


def expansion_runs_code(root: Any) -> bool:
    """Code bash runs from inside ``${…}`` that the grammar keeps as text: a ``$'…'`` or ``$"…"`` string (within
    double quotes bash decodes it, ``extquote``, and then expands what it decoded: ``"${x-$'\\x60id\\x60'}"`` runs
    ``id``), or, in an unquoted one, a process substitution (``${x:-<(id)}``).  Counted as a substitution."""
    stack = [(root, False, False)]
    while stack:
        node, inside, quoted = stack.pop()
        if inside and node.type in ("ansi_c_string", "translated_string"):
            return True
        if node.type == "expansion" and not quoted and _process_substitution(node.text):
            return True
        quoted = quoted or node.type in ("string", "heredoc_body", "raw_string")
        stack.extend((c, inside or node.type == "expansion", quoted) for c in node.children)
    return False


def _process_substitution(text: bytes) -> bool:
    text = joined(text)
    return any(text[i + 1:i + 2] == b"(" and not escaped(text, i) for i, b in enumerate(text) if b in b"<>")


def joined(data: bytes) -> bytes:
    """``data`` with its backslash-newlines taken out, as bash does before it reads anything (``$\\⏎(`` is ``$(``);
    an escaped backslash before a newline is taken out too, which can only make more of the line code."""
    return data.replace(b"\\\n", b"")


def escaped(data: bytes, at: int) -> bool:
    """The byte at ``at`` follows an odd run of backslashes (bash reads it as a plain character)."""
    n = 0
    while at - n - 1 >= 0 and data[at - n - 1] == 0x5C:
        n += 1
    return n % 2 == 1


def false_comment(root: Any, data: bytes) -> int | None:
    """The offset of the first ``comment`` node that bash does not read as a comment, or None.  Bash starts one
    at a ``#`` that begins a word: at the start, or after an unescaped blank, newline or operator byte.  After a
    backslash-newline it is read as conservatively: not a comment."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            at = node.start_byte
            if at > 0 and (data[at - 1] not in COMMENT_BEFORE or escaped(data, at - 1)):
                return at
            continue
        stack.extend(node.children)
    return None


def outside(data: bytes, quiet: list[tuple[int, int]]) -> list[tuple[int, bytes]]:
    """The pieces of ``data`` between the quiet spans, each with its offset."""
    pieces: list[tuple[int, bytes]] = []
    at = 0
    for start, end in quiet:
        if start > at:
            pieces.append((at, data[at:start]))
        at = max(at, end)
    if at < len(data):
        pieces.append((at, data[at:]))
    return pieces


def unseen_substitution(data: bytes, quiet: list[tuple[int, int]]) -> bool:
    """An unescaped backtick or ``$(`` outside the quiet spans: a command substitution to bash, whether or not
    the grammar built one (it does not in an unquoted heredoc body or a ``${x:-…}`` operand)."""
    for _, piece in outside(data, quiet):
        piece = joined(piece)  # (``"$\\⏎(touch pwn)"``: bash reads ``$(``, the grammar ``(touch pwn)``)
        for i, byte in enumerate(piece):
            if (byte == 0x60 or byte == 0x24 and piece[i + 1:i + 2] == b"(") and not escaped(piece, i):
                return True
    return False


def active_text(data: bytes, quiet: list[tuple[int, int]]) -> str:
    """``data`` with each quiet span replaced by ``''`` (kept as a word boundary), its backslash-newlines joined:
    the text in which to look for code bash evaluates (``cmd_hidden``)."""
    parts: list[bytes] = []
    at = 0
    for start, end in quiet:
        if start >= at:
            parts += [data[at:start], b"''"]
            at = end
    parts.append(data[at:])
    text = b"".join(parts).decode("utf-8", errors="surrogateescape")
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i:i + 2])
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)
