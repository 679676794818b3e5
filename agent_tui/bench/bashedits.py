"""Best-effort reading of the text an edit replaced, out of bash commands.

Recognised (anything else is not an edit):

* ``sed -i 's/OLD/NEW/' FILE...`` (any delimiter, ``-e`` expressions, an address before ``s``, several commands
  split by ``;``); a regex pattern is reduced to
  its longest literal run (``regex_literal``);
* Python scripts — ``python -c``, ``python - << EOF`` or a heredoc written to a
  ``.py`` file — whose ``.replace(OLD, NEW)`` or ``re.sub(OLD, ...)`` calls have
  literal (or module-level constant) arguments; the file is the first one the
  script opens (``open``, ``Path``), named by a literal or a module-level name bound to one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from agent_tui.bench.bashops import is_path, resolve, split_heredoc, strip_cd, tokens

_OPEN = re.compile(r"open\(\s*[rf]?['\"]([^'\"]+)['\"]")
#: A literal run shorter than this is too weak to stand for the replaced text.
MIN_LITERAL = 6


@dataclass(frozen=True)
class EditOp:
    path: str
    old: str
    new: str
    literal: bool
    """``old`` is the exact replaced text (False: the longest literal run of a regex)."""


def regex_literal(pattern: str, *, sed: bool) -> tuple[str, bool]:
    """The longest literal run a regex must match, and whether the whole pattern is literal.

    ``sed`` selects basic-regex rules (``\\(`` groups, ``(`` literal); otherwise
    Python's.  An unescaped ``.`` is read as a dot: agents rarely mean "any char".
    """
    runs: list[str] = []
    cur: list[str] = []
    exact = True

    def cut(drop_last: bool) -> None:
        nonlocal cur, exact
        exact = False
        runs.append("".join(cur[:-1] if drop_last else cur))
        cur = []

    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            n = pattern[i + 1]
            i += 2
            if sed and n in "()|":
                continue  # BRE group / alternation marker: matches nothing itself
            if sed and n in "{+?":
                cut(drop_last=True)  # quantifier on the previous char
                if n == "{":
                    i = pattern.find("\\}", i) + 2 if "\\}" in pattern[i:] else len(pattern)
                continue
            if n in "sSdDwWbBAZ":
                cut(drop_last=False)
                continue
            cur.append({"n": "\n", "t": "\t"}.get(n, n))
            continue
        i += 1
        if c in "^$" or (not sed and c in "()"):
            continue
        quant = c in "*+?" if not sed else c == "*"
        if not sed and c == "{" and (q := re.match(r"\d+(,\d*)?\}", pattern[i:])):
            quant = True
            i += q.end()
        if quant:
            cut(drop_last=True)
            continue
        if c == "[" or (not sed and c == "|"):
            cut(drop_last=False)
            if c == "[":
                close = pattern.find("]", i + 1)
                i = close + 1 if close >= 0 else len(pattern)
            continue
        cur.append(c)
    runs.append("".join(cur))
    best = max(runs, key=len)
    return best, exact


_SED_COMMAND = re.compile(r"\s*(?:\d+(?:,\s*\d+)?|\$|/(?:[^/\\]|\\.)*/)?\s*s(.)")
"""An ``s`` command after an optional address (a line, a range, ``$`` or ``/regex/``); group 1 is its delimiter."""
_COMMAND_END = re.compile(r"[;\n]")
"""What ends a sed command that is not an ``s`` (or an ``s`` command's flags)."""
_SED_VALUE_OPTIONS = frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"})


def _sed_scripts(args: list[str]) -> tuple[list[str], list[str], bool]:
    """(scripts, files, in place) of a sed command line's arguments: ``-e``/``--expression`` values, else the
    first operand, is the script; ``-i``/``-i.bak``/``--in-place[=SUF]`` edits in place."""
    scripts: list[str] = []
    operands: list[str] = []
    in_place = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1:]
            break
        if a in ("-e", "--expression"):
            scripts += args[i + 1:i + 2]
            i += 2
            continue
        if a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
        elif a in _SED_VALUE_OPTIONS:
            i += 2
            continue
        elif a.startswith("--in-place"):
            in_place = True
        elif a.startswith("-") and len(a) > 1 and not a.startswith("--"):
            for k, c in enumerate(a[1:], 1):  # (a bundle, -ne'…': a letter that takes a value ends it)
                if c == "i":
                    in_place = True  # (the rest of the word is a backup suffix)
                    break
                if c in "efl":
                    value = a[k + 1:]
                    if not value and i + 1 < len(args):
                        value = args[i + 1]
                        i += 1
                    if c == "e":
                        scripts.append(value)
                    break
        elif a:  # (BSD sed's -i '' leaves an empty word: no operand)
            operands.append(a)
        i += 1
    if not scripts and operands:
        scripts, operands = operands[:1], operands[1:]
    return scripts, operands, in_place


def _sed_substitutions(toks: list[str], cwd: str) -> list[EditOp]:
    if toks[0] != "sed":
        return []
    scripts, operands, in_place = _sed_scripts(toks[1:])
    files = [t for t in operands if is_path(t)]
    if not in_place or not scripts or not files:
        return []
    out: list[EditOp] = []
    for pattern, replacement, d in (sub for script in scripts for sub in _substitutions(script)):
        old, exact = regex_literal(pattern.replace("\\" + d, d), sed=True)
        if len(old) >= MIN_LITERAL or (exact and old):
            new = replacement.replace("\\" + d, d)
            out += [EditOp(resolve(f, cwd), old, new, exact) for f in files]
    return out


def _substitutions(script: str) -> list[tuple[str, str, str]]:
    """(pattern, replacement, delimiter) of each ``s`` command of a sed script, read command by command: a ``;``
    inside ``s/return a;/return b;/`` is part of it (split on ``;`` first, it was no edit, or a wrong one)."""
    out: list[tuple[str, str, str]] = []
    at = 0
    while at < len(script):
        m = _SED_COMMAND.match(script, at)
        if m is None:  # another command: on to the next line or ``;``
            stop = _COMMAND_END.search(script, at)
            at = stop.end() if stop else len(script)
            continue
        d = m.group(1)
        fields, at = _fields(script, m.end(), d, 2)
        if len(fields) == 2:
            out.append((fields[0], fields[1], d))
        stop = _COMMAND_END.search(script, at)  # (its flags)
        at = stop.end() if stop else len(script)
    return out


def _fields(text: str, at: int, d: str, n: int) -> tuple[list[str], int]:
    """Up to ``n`` fields of ``text`` from ``at``, each ended by an unescaped ``d``; where reading stopped."""
    fields: list[str] = []
    cur: list[str] = []
    while at < len(text) and len(fields) < n:
        c = text[at]
        if c == "\\" and at + 1 < len(text):
            cur.append(text[at:at + 2])
            at += 2
            continue
        if c == d:
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        at += 1
    return fields, at


def _python_replacements(script: str, cwd: str) -> list[EditOp]:
    try:
        tree = ast.parse(script)
    except (SyntaxError, ValueError):
        return []
    consts: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        consts[t.id] = node.value.value

    def value(arg: ast.expr) -> str | None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.Name):
            return consts.get(arg.id)
        return None

    named = _opened(tree, value)
    m = _OPEN.search(script)
    path = resolve(named, cwd) if named else resolve(m.group(1), cwd) if m else ""
    out: list[EditOp] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or len(node.args) < 2:
            continue
        old, new = value(node.args[0]), value(node.args[1])
        if old is None:
            continue
        if node.func.attr == "replace":
            if old:
                out.append(EditOp(path, old, new or "", True))
        elif node.func.attr == "sub" and isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
            lit, exact = regex_literal(old, sed=False)
            if len(lit) >= MIN_LITERAL:
                out.append(EditOp(path, lit, new or "", exact))
    return out


def _opened(tree: ast.AST, value: Any) -> str | None:
    """The first file the script opens (``open(p)``, ``Path(p)``, ``pathlib.Path(p)``, in source order), its name
    a literal or a module-level name bound to one, or to ``Path("…")``: a script that named its file once and
    opened it through the name was not read as an edit of it."""
    paths: dict[str, str] = {}
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))

    def target(call: ast.Call) -> str | None:
        f = call.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name not in ("open", "Path", "PurePath") or not call.args:
            return None
        arg = call.args[0]
        return paths.get(arg.id) if isinstance(arg, ast.Name) and arg.id in paths else value(arg)

    for node in getattr(tree, "body", []):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and (found := target(node.value)):
            paths.update((t.id, found) for t in node.targets if isinstance(t, ast.Name))
    for call in calls:
        if (found := target(call)) is not None:
            return found
    for call in calls:  # (``p.read_text()`` on a name bound to ``Path("…")``)
        f = call.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in paths:
            return paths[f.value.id]
    return None


def parse_edits(cmd: str, cwd: str = "/") -> list[EditOp]:
    """Every recognised edit in ``cmd`` (sed -i substitutions and Python replace scripts)."""
    cmd, cwd = strip_cd(cmd.strip(), cwd)
    doc = split_heredoc(cmd)
    out: list[EditOp] = []
    if doc is not None:
        head = doc.head
        if re.search(r"\bpython[\d.]*\b", head) or re.search(r">\s*\S+\.py\b", head):
            out.extend(_python_replacements(doc.body, cwd))
        for line in (doc.rest,):
            if line.strip():
                out.extend(parse_edits(line, cwd))
        return out
    toks = tokens(cmd)
    if not toks:
        return out
    segment: list[str] = []
    for tok in [*toks, ";"]:
        if tok in (";", "&&", "||", "|"):
            if segment:
                out.extend(_sed_substitutions(segment, cwd))
                if re.fullmatch(r"python[\d.]*", segment[0]) and len(segment) >= 3 and segment[1] == "-c":
                    out.extend(_python_replacements(segment[2], cwd))
            segment = []
        else:
            segment.append(tok)
    return out
