"""Best-effort reading of file reads, writes and edits out of bash commands.

mini-swe-agent has one tool, ``bash``, so which files the agent looked at or
changed is only visible in the commands.  This module recognises the common
shapes and nothing more (anything else is simply not a file event):

* reads: ``cat [-n] FILE``, ``sed -n 'A,Bp' FILE``, ``head [-n] N FILE``,
  ``nl -ba FILE | sed -n 'A,Bp'`` and ``cat -n FILE | sed -n 'A,Bp'``, each
  alone after an optional ``cd DIR &&``;
* writes: ``cat > FILE << 'EOF' ... EOF`` (and ``cat << EOF > FILE``,
  ``tee FILE << EOF``);
* edits: ``sed -i 's/OLD/NEW/' FILE`` (any delimiter; the pattern is reduced
  to its longest literal run), and Python scripts — ``python -c``, ``python -
  << EOF`` or a heredoc written to a ``.py`` file — whose ``.replace(OLD, NEW)``
  or ``re.sub(OLD, ...)`` calls have literal (or module-level constant)
  arguments; the file is the first path the script ``open()``\\s.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from dataclasses import dataclass

_CD = re.compile(r"^\s*cd\s+(\S+)\s*&&\s*")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_RANGE = re.compile(r"^(\d+)(?:,(\d+))?p$")
_OPEN = re.compile(r"open\(\s*[rf]?['\"]([^'\"]+)['\"]")
#: A literal run shorter than this is too weak to stand for the replaced text.
MIN_LITERAL = 6


@dataclass(frozen=True)
class ReadOp:
    path: str
    start_line: int
    whole: bool
    numbered: bool
    """Output lines carry ``N<TAB>`` prefixes (``cat -n``, ``nl``) to strip."""


@dataclass(frozen=True)
class WriteOp:
    path: str
    content: str


@dataclass(frozen=True)
class EditOp:
    path: str
    old: str
    new: str
    literal: bool
    """``old`` is the exact replaced text (False: the longest literal run of a regex)."""


@dataclass(frozen=True)
class Heredoc:
    head: str
    body: str
    rest: str


def split_heredoc(cmd: str) -> Heredoc | None:
    """The first heredoc in ``cmd``: the line that opens it, its body, what follows."""
    first, _, after = cmd.partition("\n")
    m = _HEREDOC.search(first)
    if not m:
        return None
    tag = m.group(2)
    body: list[str] = []
    lines = after.split("\n")
    for i, line in enumerate(lines):
        if line.strip() == tag:
            return Heredoc(first, "\n".join(body) + ("\n" if body else ""), "\n".join(lines[i + 1 :]))
        body.append(line)
    return Heredoc(first, "\n".join(body), "")


def _strip_cd(cmd: str, cwd: str) -> tuple[str, str]:
    m = _CD.match(cmd)
    while m:
        cwd = posixpath.normpath(posixpath.join(cwd, m.group(1)))
        cmd = cmd[m.end() :]
        m = _CD.match(cmd)
    return cmd, cwd


def _resolve(path: str, cwd: str) -> str:
    return posixpath.normpath(posixpath.join(cwd, path))


def _tokens(cmd: str) -> list[str] | None:
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars=";&|<>")
        lex.whitespace_split = True
        return list(lex)
    except ValueError:
        return None


def _is_path(tok: str) -> bool:
    return bool(tok) and not tok.startswith("-") and not any(c in tok for c in "*?$`{}") and (
        "." in tok or "/" in tok
    )


def parse_read(cmd: str, cwd: str = "/") -> ReadOp | None:
    """The file a single read command prints, or None."""
    cmd, cwd = _strip_cd(cmd.strip(), cwd)
    if "\n" in cmd:
        return None
    toks = _tokens(cmd)
    if not toks:
        return None
    if "|" in toks:
        i = toks.index("|")
        left, right = toks[:i], toks[i + 1 :]
        if len(right) == 3 and right[:2] == ["sed", "-n"] and (r := _RANGE.match(right[2])):
            if left[:2] in (["nl", "-ba"], ["cat", "-n"]) and len(left) == 3 and _is_path(left[2]):
                return ReadOp(_resolve(left[2], cwd), int(r.group(1)), False, True)
        return None
    if any(t in (";", "&&", "||", ">", ">>", "<") for t in toks):
        return None
    if toks[0] == "cat" and len(toks) == 2 and _is_path(toks[1]):
        return ReadOp(_resolve(toks[1], cwd), 1, True, False)
    if toks[:2] == ["cat", "-n"] and len(toks) == 3 and _is_path(toks[2]):
        return ReadOp(_resolve(toks[2], cwd), 1, True, True)
    if toks[:2] == ["sed", "-n"] and len(toks) == 4 and _is_path(toks[3]) and (r := _RANGE.match(toks[2])):
        return ReadOp(_resolve(toks[3], cwd), int(r.group(1)), False, False)
    if toks[0] == "head" and _is_path(toks[-1]) and len(toks) in (3, 4):
        return ReadOp(_resolve(toks[-1], cwd), 1, False, False)
    return None


def strip_line_numbers(text: str) -> str:
    """``cat -n``/``nl`` output without its ``   12<TAB>`` prefixes."""
    return "\n".join(re.sub(r"^\s*\d+\t", "", line, count=1) for line in text.split("\n"))


def parse_write(cmd: str, cwd: str = "/") -> WriteOp | None:
    """A heredoc written to a file: ``cat > FILE << 'EOF'`` and variants."""
    cmd, cwd = _strip_cd(cmd.strip(), cwd)
    doc = split_heredoc(cmd)
    if doc is None:
        return None
    head = _HEREDOC.sub(" ", doc.head)
    toks = _tokens(head)
    if not toks:
        return None
    if toks[0] == "cat" and ">" in toks:
        i = toks.index(">")
        if i + 1 < len(toks) and _is_path(toks[i + 1]):
            return WriteOp(_resolve(toks[i + 1], cwd), doc.body)
    if toks[0] == "tee" and len(toks) >= 2 and _is_path(toks[-1]):
        return WriteOp(_resolve(toks[-1], cwd), doc.body)
    return None


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
    files = [t for t in scripts[1:] if _is_path(t)]
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
            out.append(EditOp(_resolve(files[0], cwd), old, new, exact))
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
    path = _resolve(m.group(1), cwd) if m else ""
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
    cmd, cwd = _strip_cd(cmd.strip(), cwd)
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
    toks = _tokens(cmd)
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
