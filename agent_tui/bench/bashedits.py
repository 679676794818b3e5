"""Best-effort reading of the text an edit replaced, out of bash commands.

Recognised (anything else is not an edit):

* ``sed -i 's/OLD/NEW/' FILE`` (any delimiter); a regex pattern is reduced to
  its longest literal run (``regex_literal``);
* Python scripts — ``python -c``, ``python - << EOF`` or a heredoc written to a
  ``.py`` file — whose ``.replace(OLD, NEW)`` or ``re.sub(OLD, ...)`` calls have
  literal (or module-level constant) arguments; the file is the first path the
  script ``open()``\\s.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

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


def _sed_substitutions(toks: list[str], cwd: str) -> list[EditOp]:
    if toks[0] != "sed" or not any(t == "-i" or t.startswith("-i") for t in toks[1:]):
        return []
    scripts = [t for t in toks[1:] if not t.startswith("-")]
    files = [t for t in scripts[1:] if is_path(t)]
    if not scripts or not files:
        return []
    out: list[EditOp] = []
    for script in scripts[:1]:
        if len(script) < 4 or script[0] != "s":
            continue
        d = script[1]
        parts = re.split(r"(?<!\\)" + re.escape(d), script[2:])
        if len(parts) < 2:
            continue
        old, exact = regex_literal(parts[0].replace("\\" + d, d), sed=True)
        if len(old) >= MIN_LITERAL or (exact and old):
            new = parts[1].replace("\\" + d, d)
            out.append(EditOp(resolve(files[0], cwd), old, new, exact))
    return out


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

    m = _OPEN.search(script)
    path = resolve(m.group(1), cwd) if m else ""
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
