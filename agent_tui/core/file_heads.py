"""A released file's import header: what an agent most often edits from memory.

A file only read leaves the window when it goes idle (or the files share is full): carrying
every file the agent ever glanced at would cost more than re-reading the few it comes back
to.  But the edit an agent most often makes to such a file without reading it again is to
its imports — adding one, or fixing one — and it quotes the existing import lines as the
anchor of that edit.  Those lines are few (the header of a module, a tenth or less of it),
so a released file leaves its *head* behind in the compaction block: the import, include,
use or alias lines at its top, verbatim and in order, as read.

The head is found per language by the file's extension (a file of an unknown kind leaves
none): from the top, past a shebang, comments, blank lines, a module docstring and module
headers (``package``, ``defmodule … do``, ``namespace``), a run of import statements
(multi-line ones followed to their closing bracket).  It ends at the first line that is
none of these, and it is bounded (``MAX_LINES``, ``MAX_CHARS``).  Only plain line-by-line
regular expressions run on the text, each on one line of bounded length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LINES = 60
"""Lines of a head at most (a longer import run is cut there)."""
MAX_CHARS = 3000
"""Characters of a head at most."""
MAX_LINE = 400
"""A longer line ends the head (generated or minified text has no head worth carrying)."""
SCAN_LINES = 200
"""Lines looked at from the top before giving up on finding an import."""

_COMMENT = re.compile(r"^\s*(?:#(?!\s*(?:include|import)\b)|//|/\*|\*|--|;|%|<!--|\"use strict\"|'use strict')")
_SHEBANG = re.compile(r"^#!")


@dataclass(frozen=True)
class Language:
    """How one family of languages writes its imports."""

    imports: re.Pattern[str]
    """A line that starts an import statement."""
    headers: re.Pattern[str] | None = None
    """A line that may come before or among the imports without being one (a module header)."""
    docstring: bool = False
    """The file may open with a triple-quoted docstring (Python)."""


_PY = Language(re.compile(r"^\s*(?:from\s+[\w.]+\s+import\b|import\s+[\w.])"),
               re.compile(r"^\s*(?:__all__|__docformat__|__author__)\b"), docstring=True)
_JS = Language(re.compile(r"^\s*(?:import\b|export\s+(?:\*|\{|type\s+\{).*\bfrom\b|export\s+\{\s*$|"
                          r"(?:const|let|var)\s+[\w{}\s,:]+=\s*require\()"))
_GO = Language(re.compile(r"^\s*import\b"), re.compile(r"^\s*package\s+\w"))
_RUST = Language(re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:(?:use|extern\s+crate)\b|mod\s+\w+\s*;)"),
                 re.compile(r"^\s*#!?\["))
_JVM = Language(re.compile(r"^\s*import\b"), re.compile(r"^\s*package\s+[\w.]"))
_C = Language(re.compile(r"^\s*#\s*(?:include|import)\b|^\s*using\s+namespace\b"),
              re.compile(r"^\s*#\s*(?:pragma\s+once|ifndef|define)\b"))
_CS = Language(re.compile(r"^\s*(?:global\s+)?using\s+[\w.]"), re.compile(r"^\s*namespace\s+[\w.]+\s*;"))
_RUBY = Language(re.compile(r"^\s*(?:require|require_relative|load)\b"))
_PHP = Language(re.compile(r"^\s*(?:use\s+[\w\\]|require(?:_once)?\b|include(?:_once)?\b)"),
                re.compile(r"^\s*(?:<\?php|namespace\s+[\w\\]+\s*;|declare\s*\()"))
_ELIXIR = Language(re.compile(r"^\s*(?:alias|import|use|require)\s+[A-Z:_]"),
                   re.compile(r"^\s*(?:defmodule\s+[\w.]+\s+do\s*$|@moduledoc\s+false\s*$)"))
_SWIFT = Language(re.compile(r"^\s*(?:@testable\s+)?import\s+\w"))
_HASKELL = Language(re.compile(r"^\s*import\s+[\w(]"), re.compile(r"^\s*(?:module\s+[\w.]+|\{-#)"))
_DART = Language(re.compile(r"^\s*(?:import|export|part)\s+'"), re.compile(r"^\s*library\b"))
_LUA = Language(re.compile(r"^\s*local\s+[\w,\s]+=\s*require\b"))

LANGUAGES: dict[str, Language] = {
    **dict.fromkeys(("py", "pyi"), _PY),
    **dict.fromkeys(("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte"), _JS),
    "go": _GO,
    "rs": _RUST,
    **dict.fromkeys(("java", "kt", "kts", "scala", "groovy"), _JVM),
    **dict.fromkeys(("c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "m", "mm"), _C),
    "cs": _CS,
    **dict.fromkeys(("rb", "rake"), _RUBY),
    "php": _PHP,
    **dict.fromkeys(("ex", "exs"), _ELIXIR),
    "swift": _SWIFT,
    "hs": _HASKELL,
    "dart": _DART,
    "lua": _LUA,
}
"""Languages by file extension (lowercase, no dot)."""

_OPEN, _CLOSE = "([{", ")]}"


def language_for(path: str) -> Language | None:
    """The language of ``path`` by its extension, or None."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return LANGUAGES.get(name.rsplit(".", 1)[-1].lower())


def _depth(line: str) -> int:
    """How many brackets ``line`` leaves open (strings and comments are not told apart: an
    import line rarely holds a bracket in either)."""
    return sum(1 for c in line if c in _OPEN) - sum(1 for c in line if c in _CLOSE)


def _skip_docstring(lines: list[str], i: int) -> int:
    """Past a Python module docstring starting at ``lines[i]`` (or ``i`` when there is none)."""
    s = lines[i].lstrip()
    for q in ('"""', "'''"):
        for prefix in ("", "r", "u", "R", "U"):
            if s.startswith(prefix + q):
                rest = s[len(prefix) + 3:]
                if q in rest:
                    return i + 1
                for j in range(i + 1, min(len(lines), i + SCAN_LINES)):
                    if q in lines[j]:
                        return j + 1
                return i
    return i


def import_head(path: str, text: str) -> str | None:
    """The import header of ``text`` (the file at ``path``), verbatim, or None when it has none."""
    lang = language_for(path)
    if lang is None or not text:
        return None
    lines = text.split("\n", SCAN_LINES)[:SCAN_LINES]
    first = last = -1
    i = 0
    while i < len(lines):
        line = lines[i]
        if len(line) > MAX_LINE:
            break
        if first == -1 and lang.docstring:
            j = _skip_docstring(lines, i)
            if j > i:
                i = j
                continue
        if not line.strip() or _SHEBANG.match(line) or _COMMENT.match(line) \
                or (lang.headers is not None and lang.headers.match(line)):
            i += 1
            continue
        if not lang.imports.match(line):
            break
        if first == -1:
            first = i
        depth = _depth(line)
        i += 1
        while depth > 0 and i < len(lines) and len(lines[i]) <= MAX_LINE and i - first < MAX_LINES:
            depth += _depth(lines[i])
            i += 1
        if depth > 0:
            break
        last = i - 1
        if last - first + 1 >= MAX_LINES:
            break
    if first == -1 or last < first:
        return None
    head = "\n".join(lines[first:last + 1])
    if len(head) > MAX_CHARS:
        cut = head.rfind("\n", 0, MAX_CHARS)
        head = head[:cut] if cut > 0 else ""
    return head.strip("\n") or None
