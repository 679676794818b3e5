"""Best-effort reading of file reads and writes out of bash commands.

mini-swe-agent has one tool, ``bash``, so which files the agent looked at or
changed is only visible in the commands.  This module recognises the common
shapes and nothing more (anything else is simply not a file event):

* reads: ``cat [-n] FILE``, ``sed -n 'A,Bp' FILE``, ``head [-n] N FILE``, and
  ``cat [-n] FILE`` / ``nl -ba FILE`` piped into ``sed -n 'A,Bp'`` or ``head [-n] N``,
  each alone after an optional ``cd DIR &&``; and ``grep -n [-A/-B/-C N] PATTERN FILE`` of one
  file, whose numbered lines are runs of the file's text;
* writes: ``cat > FILE << 'EOF' ... EOF`` (and ``cat << EOF > FILE``,
  ``tee FILE << EOF``);
* edits: in :mod:`agent_tui.bench.bashedits` (``sed -i`` substitutions and
  Python replace scripts);
* reverts: ``git checkout [HEAD] [--] FILE...`` and ``git restore FILE...`` put
  files back to their committed text (what the agent first read), also inside
  ``&&`` / ``||`` chains;
* copies: ``cp [-f|-p|-a] SRC DST`` and ``mv [-f] SRC DST`` of one file onto another
  (a backup taken, and put back: ``cp f.py f.py.bak`` … ``cp f.py.bak f.py``), also in chains.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass

_CD = re.compile(r"^\s*cd\s+(\S+)\s*&&\s*")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_RANGE = re.compile(r"^(\d+)(?:,(\d+))?p$")


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


def strip_cd(cmd: str, cwd: str) -> tuple[str, str]:
    """``cmd`` without leading ``cd DIR &&`` parts, and the directory they lead to."""
    m = _CD.match(cmd)
    while m:
        cwd = posixpath.normpath(posixpath.join(cwd, m.group(1)))
        cmd = cmd[m.end() :]
        m = _CD.match(cmd)
    return cmd, cwd


def resolve(path: str, cwd: str) -> str:
    """``path`` made absolute against ``cwd`` and normalised."""
    return posixpath.normpath(posixpath.join(cwd, path))


def tokens(cmd: str) -> list[str] | None:
    """Shell words and operators (``;&|<>``) of a one-line command, or None if it cannot be split."""
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars=";&|<>")
        lex.whitespace_split = True
        return list(lex)
    except ValueError:
        return None


def is_path(tok: str) -> bool:
    """True for a word that looks like one file path (no option, glob or expansion)."""
    return bool(tok) and not tok.startswith("-") and not any(c in tok for c in "*?$`{}") and (
        "." in tok or "/" in tok
    )


def parse_read(cmd: str, cwd: str = "/") -> ReadOp | None:
    """The file a single read command prints, or None."""
    cmd, cwd = strip_cd(cmd.strip(), cwd)
    if "\n" in cmd:
        return None
    toks = tokens(cmd)
    if not toks:
        return None
    if "|" in toks:
        i = toks.index("|")
        left, right = toks[:i], toks[i + 1 :]
        if "|" in right or not left or not is_path(left[-1]):
            return None
        if left[:2] in (["nl", "-ba"], ["cat", "-n"]) and len(left) == 3:
            numbered = True
        elif left[0] == "cat" and len(left) == 2:
            numbered = False
        else:
            return None
        path = resolve(left[-1], cwd)
        if len(right) == 3 and right[:2] == ["sed", "-n"] and (r := _RANGE.match(right[2])):
            return ReadOp(path, int(r.group(1)), False, numbered)
        if right[0] == "head" and _head_count(right[1:]):
            return ReadOp(path, 1, False, numbered)
        return None
    if any(t in (";", "&&", "||", ">", ">>", "<") for t in toks):
        return None
    if toks[0] == "cat" and len(toks) == 2 and is_path(toks[1]):
        return ReadOp(resolve(toks[1], cwd), 1, True, False)
    if toks[:2] == ["cat", "-n"] and len(toks) == 3 and is_path(toks[2]):
        return ReadOp(resolve(toks[2], cwd), 1, True, True)
    if toks[:2] == ["sed", "-n"] and len(toks) == 4 and is_path(toks[3]) and (r := _RANGE.match(toks[2])):
        return ReadOp(resolve(toks[3], cwd), int(r.group(1)), False, False)
    if toks[0] == "head" and is_path(toks[-1]) and _head_count(toks[1:-1]):
        return ReadOp(resolve(toks[-1], cwd), 1, False, False)
    return None


def _head_count(opts: list[str]) -> bool:
    """``-N``, ``-n N`` or ``-nN``: options of a ``head`` that prints a file's first lines."""
    if len(opts) == 1:
        return bool(re.fullmatch(r"-n?\d+", opts[0]))
    return len(opts) == 2 and opts[0] == "-n" and opts[1].isdigit()


_GREP_LONG = re.compile(r"--(line-number|ignore-case|word-regexp|(after-|before-)?context=\d+)$")
_GREP_SHORT = re.compile(r"-([niwEFvx]*)([ABCm]\d*)?$")
_GREP_LINE = re.compile(r"^(\d+)[:-](.*)$")


def parse_grep_read(cmd: str, cwd: str = "/") -> str | None:
    """The file a ``grep -n [-A/-B/-C N] PATTERN FILE`` of one file prints numbered lines of, or None
    (another option, several files, a pipe or a chain: not a read)."""
    cmd, cwd = strip_cd(cmd.strip(), cwd)
    toks = tokens(cmd) if "\n" not in cmd else None
    if not toks or toks[0] != "grep" or any(t in (";", "&&", "||", "|", ">", ">>", "<") for t in toks):
        return None
    numbered, operands, i = False, [], 1
    while i < len(toks):
        t = toks[i]
        if t.startswith("--"):
            if not (m := _GREP_LONG.match(t)):
                return None
            numbered = numbered or m.group(1) == "line-number"
        elif t.startswith("-") and len(t) > 1:
            if not (m := _GREP_SHORT.match(t)):
                return None
            numbered = numbered or "n" in m.group(1)
            if m.group(2) in ("A", "B", "C", "m"):
                i += 1  # the option's value is the next word
        else:
            operands.append(t)
        i += 1
    if not numbered or len(operands) != 2 or not is_path(operands[1]):
        return None
    return resolve(operands[1], cwd)


def grep_blocks(output: str) -> list[tuple[int, str]]:
    """The runs of consecutive lines a ``grep -n`` of one file printed: (first line number, text)."""
    blocks: list[tuple[int, list[str]]] = []
    last = -2
    for line in output.split("\n"):
        m = _GREP_LINE.match(line)
        if not m:
            last = -2  # a ``--`` separator (or anything else) ends a run
            continue
        n = int(m.group(1))
        if n == last + 1 and blocks:
            blocks[-1][1].append(m.group(2))
        else:
            blocks.append((n, [m.group(2)]))
        last = n
    return [(start, "\n".join(lines)) for start, lines in blocks]


def strip_line_numbers(text: str) -> str:
    """``cat -n``/``nl`` output without its ``   12<TAB>`` prefixes."""
    return "\n".join(re.sub(r"^\s*\d+\t", "", line, count=1) for line in text.split("\n"))


def parse_write(cmd: str, cwd: str = "/") -> WriteOp | None:
    """A heredoc written to a file: ``cat > FILE << 'EOF'`` and variants."""
    cmd, cwd = strip_cd(cmd.strip(), cwd)
    doc = split_heredoc(cmd)
    if doc is None:
        return None
    head = _HEREDOC.sub(" ", doc.head)
    toks = tokens(head)
    if not toks:
        return None
    if toks[0] == "cat" and ">" in toks:
        i = toks.index(">")
        if i + 1 < len(toks) and is_path(toks[i + 1]):
            return WriteOp(resolve(toks[i + 1], cwd), doc.body)
    if toks[0] == "tee" and len(toks) >= 2 and is_path(toks[-1]):
        return WriteOp(resolve(toks[-1], cwd), doc.body)
    return None


def _segments(cmd: str, cwd: str) -> tuple[list[list[str]], str]:
    """The simple commands of a one-line ``cmd`` chain (split at ``;``, ``&&``, ``||``, ``|``, ``&``)."""
    cmd, cwd = strip_cd(cmd.strip(), cwd)
    if "\n" in cmd:
        return [], cwd
    toks = tokens(cmd)
    if not toks:
        return [], cwd
    out: list[list[str]] = []
    seg: list[str] = []
    for t in [*toks, ";"]:
        if t in (";", "&&", "||", "|", "&"):
            out.append(seg)
            seg = []
        else:
            seg.append(t)
    return out, cwd


def parse_reverts(cmd: str, cwd: str = "/") -> list[str]:
    """Files a ``git checkout``/``git restore`` in ``cmd`` puts back to their committed text."""
    segs, cwd = _segments(cmd, cwd)
    return [p for seg in segs for p in _reverted(seg, cwd)]


def parse_copies(cmd: str, cwd: str = "/") -> list[tuple[str, str]]:
    """``(source, destination)`` of each ``cp``/``mv`` of one file onto another in ``cmd``."""
    segs, cwd = _segments(cmd, cwd)
    out: list[tuple[str, str]] = []
    for seg in segs:
        words = _words(seg)
        if not words or words[0] not in ("cp", "mv"):
            continue
        flags = [w for w in words[1:] if w.startswith("-")]
        args = [w for w in words[1:] if not w.startswith("-")]
        if any(f not in ("-f", "-p", "-a") for f in flags) or len(args) != 2 or not all(is_path(a) for a in args):
            continue  # recursive, several sources, a glob: not one file onto another
        if args[1].endswith("/"):
            continue  # into a directory
        out.append((resolve(args[0], cwd), resolve(args[1], cwd)))
    return out


def _words(seg: list[str]) -> list[str]:
    """A simple command's words without redirections (``2>/dev/null``, ``2>&1``)."""
    words: list[str] = []
    skip = False
    for t in seg:  # drop redirections (``2>/dev/null``, ``2>&1``)
        if skip:
            skip = False
            continue
        if t and all(c in "<>&" for c in t):
            skip = True
            continue
        words.append(t)
    while words and words[-1].isdigit():
        words.pop()
    return [w for w in words if not (w.isdigit() and len(w) == 1)]


def _reverted(seg: list[str], cwd: str) -> list[str]:
    words = _words(seg)
    if words[:2] not in (["git", "checkout"], ["git", "restore"]):
        return []
    args = words[2:]
    if "--" in args:
        i = args.index("--")
        refs, paths = args[:i], args[i + 1:]
        if refs not in ([], ["HEAD"]):
            return []  # another revision: its text is not what the agent read
    else:
        paths = args
    if any(p.startswith("-") for p in paths) or not paths or not all(is_path(p) for p in paths):
        return []
    return [resolve(p, cwd) for p in paths]
