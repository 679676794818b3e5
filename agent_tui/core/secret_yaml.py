"""YAML values of secret-named keys that the assignment rule (``core.secrets``, one line: ``NAME: value``)
cannot see.

- a value on the line(s) below its key (``password:`` then an indented line; ``token: |`` / ``token: >-``
  then indented lines), also after a comment on the key's line (``password: # the db one``), after blank
  or comment lines, or after a tag or an anchor (``password: !!str``, ``token: &tok``);
- a value on the key's line behind a tag or an anchor (``password: !!str VALUE``, ``token: &tok VALUE``):
  the assignment rule reads the tag as the value;
- both in a unified diff, where each line starts with ``+``, ``-`` or a space (``+  password:`` then
  ``+    VALUE``; a context key line with the old and new value below it).

Only when every line of a value below its key is one token: a mapping, a list, prose or code below the
key (``free(buf);``, ``process.env.X,``, a tab-indented Makefile recipe) is left alone.  Only the tags that
keep a value a literal string count (``!!str``, ``!!binary``, Ansible's ``!unsafe``); another tag names
something else (CloudFormation's ``!Ref DbPassword``, Home Assistant's ``!secret wifi_password``, an
encrypted ``!vault``), and its value is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_tui.core.secret_gates import Anchor, TextView
from agent_tui.core.secret_names import secret_name
from agent_tui.core.secret_values import (
    SECRET_NAME_WORDS,
    Finding,
    lines_to_scan,
    name_kind,
    named_value,
)

#: A YAML key at a line's start, maybe a list item's (``- password:``), maybe quoted, maybe on a diff's line
#: (``mark``: ``+``/``-``; a context line's space is read as indentation), then its colon and the rest of
#: the line (``rest``: a tag, an anchor, a block header, a comment, a value), read by ``_key_rest``.
#: (Spaces are read one way only: possessive runs, so a line of spaces costs its length.)
_YAML_KEY_RE = re.compile(
    r"(?m)^(?P<mark>[+-]?)(?P<sp> *)(?P<item>- +)?(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?P=q)"
    r"[ \t]*+:(?P<rest>[ \t][^\n]*+)?\r?$"
)
#: Where such a key can be: a secret name's word, the rest of the name, the colon, then a space or the
#: line's end.
YAML_ANCHOR = Anchor(SECRET_NAME_WORDS, re.compile(r"[A-Za-z0-9_.-]{0,80}[\"']?[ \t]*+:(?:[ \t]|\r?(?:\n|\Z))"))
#: A line below such a key: its indentation (spaces), then one token (or nothing) and maybe a comment, then
#: the line's end.  A line indented with a tab, or holding two words, does not match.  (The token starts
#: with no space and only blank lines may hold a tab, so the spaces are read one way only: linear.)
_YAML_LINE_RE = re.compile(
    r"(?P<indent> *)(?:(?P<token>\S++)(?:[ \t]++#[^\n]*+)?[ \t]*+|(?:\t[ \t]*+)?)\r?(?=\n|\Z)"
)
#: A line's indentation.
_SPACES_RE = re.compile(" *")
#: Lines a YAML value below its key may span (a longer block is data, not a secret).
_YAML_MAX_LINES = 200
#: The first characters of a token below a secret key that make it no secret value: YAML's indicators
#: (a list item, a comment, an anchor or alias, a tag, a flow collection, a quoted string), a path's.
_YAML_NOT_FIRST = frozenset("-#?:,[]{}&*!|>'\"%@`/.~=<(")
#: A token below a secret key that ends so, or holds a parenthesis, a brace or an ``=`` before more than
#: ``=`` (base64's padding), is code, a template, a nested key or a field (``free(buf);``,
#: ``process.env.TOKEN,``, ``${{secrets.PW}}``, ``host:``, the ``version=0`` / ``modulus=…`` lines a
#: pretty-printer writes under ``RSAPrivateKey:``), or a URL.
_YAML_CODE_RE = re.compile(r"[(){};]|=[^=]|[,:\[\\]$|://")
#: Tags that keep the value a string (the core schema's, in short and verbatim form, and Ansible's raw one).
_STRING_TAGS = frozenset({"!!str", "!!binary", "!unsafe", "!<tag:yaml.org,2002:str>", "!<tag:yaml.org,2002:binary>"})
#: A block scalar's header (``|``, ``>-``, ``|2+``).
_BLOCK_RE = re.compile(r"[|>][1-9+-]{0,2}")
_WORD_RE = re.compile(r"\S+")
#: A value on the key's line that is no scalar of its own: a flow collection, an alias, a block or reserved indicator.
_INLINE_NOT_FIRST = frozenset("[{*|>@`%")
_DOUBLE_QUOTED_RE = re.compile(r'"(?P<v>(?:[^"\\\r\n]|\\[^\r\n])*+)"?')
_SINGLE_QUOTED_RE = re.compile(r"'(?P<v>(?:[^'\r\n]|'')*+)'?")
_COMMENT_RE = re.compile(r"[ \t]#")


def yaml_values(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The values of secret-named YAML keys the assignment rule does not see (see the module's doc).

    Below the key, the token of each line of the value: the lines right below it, indented deeper than the
    key's line, up to the first line that is not (blank and comment lines between are skipped).  Every
    such line must hold a single token that is no indicator, path, URL or code (``_YAML_NOT_FIRST``,
    ``_YAML_CODE_RE``), and together they must be a ``named_value``; else the key has something else below
    it (a mapping, a list, prose, code) and nothing is masked.  Each line's token is its own finding (a
    mask takes out no newline).  A key on a diff's line is read with the diff's first column taken off
    each line, when reading it as plain YAML found nothing."""
    for a, b in lines_to_scan(YAML_ANCHOR, text, view):
        for m in _YAML_KEY_RE.finditer(text, a, b):
            name = m.group("name")
            if not secret_name(name):
                continue
            rest = _key_rest(text, m.start("rest"), m.end("rest")) if m.group("rest") else (False, None)
            if rest is None:
                continue
            block, inline = rest
            if inline is not None:
                yield from _inline_value(text, inline, m.end("rest"), name_kind(name))
                continue
            mark, sp, item = m.group("mark"), len(m.group("sp")), m.group("item")
            found: list[Finding] = []
            if not mark or (mark == "-" and sp and item is None):  # plain YAML (``- key:``: a list item's)
                found = _value_below(text, m.end(), sp if not mark else 0, block, name_kind(name), 0)
            if not found and (mark or sp):  # a diff's line: ``+``/``-``, or a context line's space
                found = _value_below(text, m.end(), sp if mark else sp - 1, block, name_kind(name), 1)
            yield from found


def _key_rest(text: str, start: int, stop: int) -> tuple[bool, int | None] | None:
    """What ``text[start:stop]`` after a secret key's colon says: (a block header?, where a value on this
    line starts or None: the value is below); None when no value of it can be a secret string (another
    tag than a string's, or a plain value the assignment rule reads)."""
    props = block = False
    for w in _WORD_RE.finditer(text, start, stop):
        word = w.group()
        if word[0] == "#":  # a comment: the rest of the line
            break
        if block:  # anything but a comment after a block header: no YAML this reads
            return None
        if word[0] == "&" and len(word) > 1:
            props = True
        elif word[0] == "!":
            if word not in _STRING_TAGS:
                return None
            props = True
        elif _BLOCK_RE.fullmatch(word):
            block = True
        else:  # a value on the key's line: only behind a tag or an anchor is it this rule's
            return (False, w.start()) if props else None
    return block, None


def _inline_value(text: str, pos: int, stop: int, kind: str) -> list[Finding]:
    """The value at ``pos`` on a key's line (behind a tag or an anchor), up to ``stop``: a quoted string's
    inside, or a plain scalar up to a comment or the line's end."""
    first = text[pos]
    if first in _INLINE_NOT_FIRST:
        return []
    if first in "\"'":
        m = (_DOUBLE_QUOTED_RE if first == '"' else _SINGLE_QUOTED_RE).match(text, pos, stop)
        start, end = m.span("v")  # (the pattern matches any text starting with its quote)
    else:
        comment = _COMMENT_RE.search(text, pos, stop)
        start, end = pos, (stop if comment is None else comment.start())
        while end > start and text[end - 1] in " \t\r":
            end -= 1
    value = text[start:end]
    if not named_value(value):
        return []
    return [Finding(start, end, kind)]


def _value_below(text: str, end: int, indent: int, block: bool, kind: str, column: int) -> list[Finding]:
    """The findings of the value below a YAML key whose line ends at ``end`` and is indented ``indent``
    (see ``yaml_values``).  ``column``: 1 on a diff, whose lines each start with ``+``, ``-`` or a space
    (a line that does not ends the hunk, so the value)."""
    found: list[Finding] = []
    pos, size = end, len(text)
    for _ in range(_YAML_MAX_LINES):
        nl = text.find("\n", pos)
        if nl == -1:
            break
        start = nl + 1
        if column and start < size and text[start] not in "\r\n":
            if text[start] not in "+- ":
                break
            start += 1
        spaces = _SPACES_RE.match(text, start).end()
        if text.startswith("#", spaces):  # a comment line
            pos = spaces
            continue
        line = _YAML_LINE_RE.match(text, start)
        if line is None:  # more than one word (or a tab-indented line): past the value, or no value
            if spaces - start <= indent:
                break
            return []
        pos = line.end()
        token = line.group("token")
        if token is None:  # a blank line
            continue
        if len(line.group("indent")) <= indent:  # the next key, outdented
            break
        if token[0] in _YAML_NOT_FIRST or _YAML_CODE_RE.search(token):
            return []
        found.append(Finding(line.start("token"), line.end("token"), kind))
    else:
        return []  # a longer value than any secret's
    value = "".join(text[f.start:f.end] for f in found)
    if not found or not named_value(value):
        return []
    return found
