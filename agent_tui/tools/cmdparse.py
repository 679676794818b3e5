"""Parsing a shell command line into what it would really run, with tree-sitter-bash.

Approval used to match the whole command string against globs, so ``pytest*`` also
allowed ``pytest -q; rm -rf ~``.  A real parser sees the structure instead: every
simple command (its argv, with quotes and backslashes removed), and everything that
makes a line more than a list of plain commands — substitutions (``$(…)``, backticks,
``<(…)``), redirections and where they write, backgrounding, pipes, subshells,
heredocs, assignments, control flow.  Anything the parser cannot read completely is
marked unparsable, and callers treat it as never auto-approvable.

Words are evaluated without running anything: a word that needs the shell to expand
it (``$VAR``, ``*.py``, ``~``, ``{a,b}``) keeps its source text and is flagged dynamic.  Brace
expansion, being purely textual, is done (``shell_braces``): the argv holds the words bash will really
run (``rm -{r,f}f`` is ``rm -rf -ff``, ``echo >> {../x,}`` writes ``../x``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.tools.shell_braces import TooMany, expand, has_braces

#: Redirect targets that are always harmless.
SAFE_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
#: Statement nodes that hold other statements (walked into, not flagged).
_CONTAINERS = frozenset({"program", "list", "pipeline", "redirected_statement", "negated_command"})
#: Control-flow and grouping nodes (their inner commands are still collected).
_CONTROL = frozenset({
    "subshell", "compound_statement", "if_statement", "elif_clause", "else_clause", "while_statement",
    "for_statement", "c_style_for_statement", "case_statement", "case_item", "do_group",
    "function_definition", "test_command",
})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_WORDS = frozenset({"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation", "number",
                    "simple_expansion", "expansion", "command_substitution", "process_substitution",
                    "arithmetic_expansion", "brace_expression"})
"""Node types that are one word of a command line."""
HIDDEN_CODE = re.compile(
    r"\$\(\(|\$\[|(?:^|[;&|(\n!]|\bfor|\bdo|\bthen|\belse|\bwhile|\buntil|\bif)\s*\(\(|\$\{!|\$\{[^}]*@P|"
    r"\$\{#?\w+\[(?!\d+\]|@\]|\*\])|\$\{#?[\w@*]+:(?![-=?+]|\s*\d+\s*(?::\s*\d+\s*)?\})|"
    r"\[\[.*\s-(eq|ne|lt|le|gt|ge|v|R)\s", re.S)
"""Source text where bash evaluates code that the parse does not show as a command (``ParsedCommand.hidden_code``)."""
EVALUATING_BUILTINS = frozenset({"let", "read", "mapfile", "readarray", "getopts", "declare", "typeset", "local",
                                 "trap", "compgen", "complete", "enable", "unset", "readonly"})
"""Builtins that evaluate text as code, or assign a variable named by their argument (subscript included)."""
GLOB = re.compile(r"(?<!\\)[*?\[]")
"""A glob character bash expands (not escaped)."""
_GLOB = GLOB
#: A line's first word when it is plain (nothing the shell expands, quotes or treats as syntax) and holds an ``@``
#: or, after its first character, a ``%``.
_FIRST_WITH_AT = re.compile(r"([ \t]*)([\w+:,./-][\w%@+:,./-]*[@%][\w@%+:,./-]*|@[\w@%+:,./-]*)(?=[ \t\n;&|)]|$)",
                            re.ASCII)


@dataclass(frozen=True)
class Redirect:
    """One redirection: its operator and literal target (None when the shell computes it)."""

    op: str
    """The operator as written: ``>``, ``>>``, ``2>``, ``&>``, ``<``, ``<<``, ``<<<`` …"""
    target: str | None
    """The file it names, unquoted; None for a computed target or a heredoc/herestring."""
    writes: bool
    """True when it writes (``>``, ``>>``, ``&>``, ``>|``…), False for input and fd copies."""


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: ``NAME=v program arg …``."""

    argv: tuple[str, ...]
    """Program and arguments, quotes and escapes removed (dynamic words keep their source)."""
    dynamic: tuple[bool, ...]
    """Per argv word: True when the shell would expand it ($VAR, glob, ~, {a,b})."""
    assignments: tuple[str, ...] = ()
    """``NAME=value`` prefixes."""
    redirects: tuple[Redirect, ...] = ()
    """Redirections attached to this command."""
    braces_unread: bool = False
    """A word has braces this parser cannot expand for certain (beside quotes or variables, or too many
    words): it stays as written, flagged dynamic."""

    @property
    def program(self) -> str:
        """The program's basename (``/bin/rm`` → ``rm``); empty for a bare assignment."""
        return Path(self.argv[0]).name if self.argv else ""


@dataclass
class ParsedCommand:
    """A whole command line, taken apart."""

    source: str
    """The line as given."""
    commands: list[SimpleCommand] = field(default_factory=list)
    """Every simple command, including those inside substitutions and subshells."""
    redirects: list[Redirect] = field(default_factory=list)
    """Every redirection anywhere in the line."""
    substitution: bool = False
    """``$(…)``, backticks or ``<(…)``/``>(…)`` appear."""
    background: bool = False
    """A command is sent to the background with ``&``."""
    pipes: bool = False
    """Two or more commands are piped."""
    chained: bool = False
    """Several commands run in sequence (``;``, ``&&``, ``||``, newline)."""
    subshell: bool = False
    """``( … )`` or ``{ … }`` grouping."""
    control: bool = False
    """if/for/while/case, ``[[ ]]`` tests or function definitions."""
    heredoc: bool = False
    """A heredoc or herestring feeds a command."""
    assignment: bool = False
    """Variables are set (``X=1 cmd``, ``export X=1``)."""
    substitutions: int = 0
    """How many ``$(…)``, backtick or ``<(…)`` substitutions the parser read (their commands are in ``commands``)."""
    error: str | None = None
    """Why the line could not be read completely (None when it could)."""

    @property
    def parsed(self) -> bool:
        """True when every part of the line was understood."""
        return self.error is None

    def hidden_code(self) -> str | None:
        """Where bash evaluates text as code that no parsed command shows, or None.  Bash evaluates an array
        subscript wherever it does arithmetic, and a subscript may hold ``$(…)``, from the line (even quoted,
        ``[[ 'a[$(id)]' -eq 0 ]]``, or spelled ``$'\\x24('``) or from data (a file named ``a[$(…)]`` met by
        ``for f in *; do [[ $f -eq 0 ]]``): so every arithmetic context counts — ``((…))``, ``$((…))``,
        ``$[…]``, ``[[ … -eq … ]]`` and its kin, ``-v``, ``let``, ``declare -i`` and the builtins that set a
        variable they are given by name (``printf -v``, ``read``, ``mapfile``, ``getopts``); and so do
        ``${!x}``, ``${x@P}``, ``${a[i]}`` with a subscript that is not a number, ``trap``, ``source``/``.`` of a
        computed file (``<(…)``), and a program reading ``/dev/stdin`` or a file descriptor (deny rules look
        through ``eval``; a literal script file is not looked into: the sandbox holds it)."""
        m = HIDDEN_CODE.search(_unquoted(self.source))
        if m is not None:
            found = m.group(0).strip()
            return found if len(found) <= 40 else found[:37] + "…"
        for c in self.commands:
            argv = list(c.argv)
            while argv and Path(argv[0]).name in ("command", "builtin"):  # (``command printf -v …``)
                argv = argv[1:]
                while argv and argv[0] in ("-p", "-v", "-V", "--"):
                    argv = argv[1:]
            prog = Path(argv[0]).name if argv else ""
            if prog in EVALUATING_BUILTINS or prog in ("printf", "test", "[", "export", "wait") and \
                    any(a in ("-v", "-R", "-i", "-p") or a.startswith("-v") for a in argv[1:]):
                return prog
            if any(a.startswith(("/dev/stdin", "/dev/fd/", "/proc/self/fd/")) for a in c.argv[1:]):
                return "a program reading code from /dev/stdin or a file descriptor"
            if prog in ("source", ".") and any(c.dynamic[1:2]):  # (a literal script file is the sandbox's to hold)
                return f"{prog} of a computed file"
        return None

    def writes_outside(self, workspace: Path | None) -> list[str]:
        """Redirect targets that write outside ``workspace`` (or are computed by the shell)."""
        out: list[str] = []
        root = workspace.resolve() if workspace is not None else None
        for r in self.redirects:
            if not r.writes:
                continue
            if r.target is None:
                out.append("(a computed path)")
            elif r.target in SAFE_TARGETS:
                continue
            elif root is None or not _inside(r.target, root):
                out.append(r.target)
        return out


def _inside(target: str, root: Path) -> bool:
    if target.startswith("~") or "$" in target or _GLOB.search(target):
        return False
    try:
        p = Path(target)
        full = (p if p.is_absolute() else root / p).resolve()
    except (OSError, RuntimeError, ValueError):  # a NUL byte, a lone surrogate, a link loop: not known inside
        return False
    return full == root or root in full.parents


@functools.lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_command(source: str) -> ParsedCommand:
    """Take ``source`` apart; never raises (a failure is recorded in ``error``)."""
    result = ParsedCommand(source=source)
    if "\x00" in source:
        result.error = "the command contains a NUL byte"
        return result
    try:
        tree = _parser().parse(source.encode("utf-8", errors="surrogateescape"))
    except Exception as exc:  # the parser itself failed: treat as unreadable
        result.error = f"the shell parser failed: {exc}"
        return result
    root = tree.root_node
    if root.has_error and (first := _FIRST_WITH_AT.match(source)) is not None:
        # tree-sitter-bash reads a first word holding `@` (`a@b x`) as the start of an array subscript, or `%`
        # after a character (`1%`) as an expansion, and fails; the same word in single quotes means the same
        # to bash, and the grammar reads it
        quoted = f"{first.group(1)}'{first.group(2)}'{source[first.end():]}"
        tree = _parser().parse(quoted.encode("utf-8", errors="surrogateescape"))
        root = tree.root_node
    if root.has_error:
        result.error = "the shell parser could not read the whole command (unbalanced quotes or brackets?)"
    try:
        _Walker(result).statement_list(root)
    except Exception as exc:  # (a word this walker cannot read: the line is unreadable, never a crash)
        result.error = result.error or f"part of the command could not be read ({type(exc).__name__})"
    return result


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="surrogateescape")


def _unescape_word(raw: str) -> str:
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


def _unescape_dquoted(raw: str) -> str:
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), raw)


_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f",
         "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _unquoted(source: str) -> str:
    """``source`` with the text of its single-quoted and ``$'…'`` strings taken out (bash never evaluates it
    there: a ``'[[:space:]]'`` or ``'do ((x))'`` is not code) and its backslash-newlines joined."""
    out: list[str] = []
    i, n = 0, len(source)
    double = False
    while i < n:
        c = source[i]
        if c == "\\" and i + 1 < n:
            if source[i + 1] != "\n":
                out.append(source[i:i + 2])
            i += 2
            continue
        if c == '"':
            double = not double
        elif c == "'" and not double:
            ansi = i > 0 and source[i - 1] == "$"
            j = i + 1
            while j < n and source[j] != "'":
                j += 2 if ansi and source[j] == "\\" else 1
            out.append("''")
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _ansi_c(body: str) -> str:
    def sub(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "xuU":
            code = int(s[1:], 16) if len(s) > 1 else -1
            return chr(code) if 0 <= code < 0x110000 else m.group(0)  # (bash prints an invalid one as written)
        if s[0].isdigit():
            return chr(int(s, 8) & 0xFF)
        return _ANSI.get(s, m.group(0))

    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)", sub, body)


class _Walker:
    """Fills a ParsedCommand from the syntax tree."""

    def __init__(self, result: ParsedCommand) -> None:
        self.r = result

    def statement_list(self, node: Any) -> None:
        named = 0
        for child in node.children:
            if child.type == "&":
                self.r.background = True
            elif child.type in (";", "\n", "&&", "||", ";;"):
                self.r.chained = True
            elif child.type in ("|", "|&"):
                self.r.pipes = True
            elif child.is_named and child.type != "comment":
                named += 1
                self.statement(child)
        if node.type == "program" and named > 1:
            self.r.chained = True

    def statement(self, node: Any) -> None:
        t = node.type
        if t == "command":
            self.command(node)
        elif t == "redirected_statement":
            self.redirected(node)
        elif t in _CONTAINERS:
            self.statement_list(node)
        elif t in _REDIRECTS:
            self.redirect(node)
        elif t in _CONTROL:
            if t in ("subshell", "compound_statement"):
                self.r.subshell = True
            else:
                self.r.control = True
            self.statement_list(node)
        elif t == "variable_assignment" or t == "variable_assignments":
            self.r.assignment = True
            self.words_in(node)
        elif t == "declaration_command" or t == "unset_command":
            self.r.assignment = True
            self.words_in(node)
            argv = [_text(node.children[0])] + [self.word(c)[0] for c in node.children[1:] if c.is_named]
            self.r.commands.append(SimpleCommand(tuple(argv), tuple(False for _ in argv)))
        elif t in ("ERROR",):
            self.r.error = self.r.error or "the shell parser could not read part of the command"
            self.statement_list(node)
        elif t == "comment":
            return
        elif t in _SUBSTITUTIONS:
            self.word(node)
        elif node.is_named:
            self.words_in(node)
            if t not in ("word", "string", "raw_string", "concatenation", "number", "variable_name",
                         "binary_expression", "unary_expression", "parenthesized_expression"):
                self.r.control = True

    def words_in(self, node: Any) -> None:
        """Walk any node for substitutions hidden in it (test expressions, for-lists…)."""
        for child in node.children:
            if child.type in _SUBSTITUTIONS or child.type in ("expansion", "arithmetic_expansion"):
                self.word(child)
            elif child.type in _REDIRECTS:
                self.redirect(child)
            elif child.type in ("command", "compound_statement", "do_group", "subshell"):
                self.statement(child)
            elif child.child_count:
                self.words_in(child)

    def redirected(self, node: Any) -> None:
        """``body > file more words``: bash gives the words after a redirection's target to the command
        (``echo x > a b`` writes "x b" to ``a``); the grammar lists them as more targets, which would
        hide arguments from the rules (``git commit &>/dev/null --no-verify``) and check the wrong file."""
        extra: list[Any] = []
        redirects = [self.redirect(child, extra) for child in node.children if child.type in _REDIRECTS]
        body = node.child_by_field_name("body")
        if body is not None and body.type == "command":
            self.command(body, extra, redirects)
            return
        if extra:
            self.r.error = self.r.error or "words after a redirection's target, which bash refuses here"
        for child in node.children:
            if child.is_named and child.type not in _REDIRECTS and child.type != "comment":
                self.statement(child)

    def command(self, node: Any, extra: Sequence[Any] = (), outer: Sequence[Redirect] = ()) -> None:
        nodes: list[Any] = []
        assigns: list[str] = []
        redirects: list[Redirect] = list(outer)
        extra = list(extra)  # words after a target of the command's own redirections join them
        for child in node.children:
            t = child.type
            if t == "variable_assignment":
                self.r.assignment = True
                assigns.append(_text(child))
                self.words_in(child)
            elif t in _REDIRECTS:
                redirects.append(self.redirect(child, extra))
            elif t == "command_name":
                nodes.extend(child.children)
            elif child.is_named and t != "comment":
                nodes.append(child)
        nodes.extend(extra)
        argv: list[str] = []
        dyn: list[bool] = []
        unread = False
        for group in _touching(nodes):
            parts = [self.word(n) for n in group]
            text, d = "".join(t for t, _ in parts), any(x for _, x in parts)
            words, unsure = _brace_words(group)
            unread = unread or unsure
            if words is None:
                argv.append(text)
                dyn.append(d or unsure)
                continue
            argv.extend(words)
            dyn.extend(_unquoted_dynamic(w) for w in words)
        self.r.commands.append(SimpleCommand(tuple(argv), tuple(dyn), tuple(assigns), tuple(redirects), unread))

    def redirect(self, node: Any, extra: list[Any] | None = None) -> Redirect:
        """One redirection; a word after its target goes to ``extra`` (the command's arguments, as bash
        reads it), or, where no command takes it, makes the line unreadable."""
        t = node.type
        if t == "heredoc_redirect":
            return self.heredoc(node, extra)
        op = ""
        target: str | None = None
        have_target = False
        for child in node.children:
            if not child.is_named:
                op += _text(child)
            elif child.type == "file_descriptor":
                op = _text(child) + op
            elif have_target:
                if extra is not None:
                    extra.append(child)
                else:
                    self.r.error = self.r.error or "words after a redirection's target, which bash refuses here"
                    self.word(child)
            else:
                text, d = self.word(child)
                words, _ = _brace_words([child])
                if words is not None:  # bash takes a single word ("ambiguous redirect" for more)
                    text, d = (words[0], _unquoted_dynamic(words[0])) if len(words) == 1 else (text, True)
                target = None if d else text
                have_target = t == "file_redirect"
        if t == "herestring_redirect":
            self.r.heredoc = True
            red = Redirect(op or "<<<", None, False)
        else:
            fd_copy = target is not None and (target.isdigit() or target == "-") and op.endswith("&")
            writes = ">" in op and not fd_copy
            if fd_copy:
                target = None
            red = Redirect(op, target, writes)
        self.r.redirects.append(red)
        return red

    def heredoc(self, node: Any, extra: list[Any] | None) -> Redirect:
        """``cmd <<EOF …``: the grammar puts the rest of the line inside the heredoc's node — more words for
        the command (``cat <<EOF b``), its other redirections (``> ~/.bashrc``), and whole commands after
        ``&&``, ``||`` or ``|``.  Each is read as what it is: a review found ``echo <<EOF && touch X``
        allowed by an ``echo`` rule, with ``touch`` never seen."""
        self.r.heredoc = True
        op = ""
        for child in node.children:
            t = child.type
            if not child.is_named:
                if t in ("&&", "||", ";", "&", "\n"):
                    self.r.chained = True
                    self.r.background = self.r.background or t == "&"
                elif t in ("|", "|&"):
                    self.r.pipes = True
                else:
                    op += _text(child)
            elif t in ("heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content"):
                self.words_in(child)
            elif t in _REDIRECTS:
                self.redirect(child, extra)
            elif t in _WORDS and extra is not None:
                extra.append(child)  # `cat <<EOF b`: b is cat's
            elif t in _WORDS:
                self.r.error = self.r.error or "words after a heredoc where bash takes none"
                self.word(child)
            elif t == "ERROR":
                self.r.error = self.r.error or "the shell parser could not read part of the command"
            else:
                self.r.chained = True  # a command, pipeline or list after the heredoc's start
                self.statement(child)
        red = Redirect(op or "<<", None, False)
        self.r.redirects.append(red)
        return red

    def word(self, node: Any) -> tuple[str, bool]:
        """The word's value and whether the shell would expand it."""
        t = node.type
        if t == "word":
            raw = _text(node)
            dynamic = bool(_GLOB.search(raw)) or raw.startswith("~") or has_braces(raw)
            return _unescape_word(raw), dynamic
        if t in ("number", "variable_name", "file_descriptor", "special_variable_name", "test_operator"):
            return _text(node), False
        if t == "raw_string":
            return _text(node)[1:-1], False
        if t == "ansi_c_string":
            return _ansi_c(_text(node)[2:-1]), False
        if t in ("string", "translated_string"):
            parts: list[str] = []
            dynamic = False
            for c in node.children:
                if c.type == "string_content":
                    parts.append(_unescape_dquoted(_text(c)))
                elif c.is_named:
                    text, _ = self.word(c)
                    parts.append(text)
                    dynamic = True
            return "".join(parts), dynamic
        if t == "concatenation":
            parts = []
            dynamic = has_braces(_text(node))
            for c in node.children:
                text, d = self.word(c)
                parts.append(text)
                dynamic = dynamic or d
            return "".join(parts), dynamic
        if t in _SUBSTITUTIONS:
            self.r.substitution = True
            self.r.substitutions += 1
            inner = _Walker(self.r)
            inner.statement_list(node)
            return _text(node), True
        if t in ("expansion", "simple_expansion", "arithmetic_expansion", "brace_expression"):
            self.words_in(node)
            return _text(node), True
        if t == "ERROR":
            self.r.error = self.r.error or "the shell parser could not read part of the command"
        if node.child_count:
            self.words_in(node)
        return _text(node), True


#: Word nodes whose source text is bash's word as it is (no quotes or expansions inside).
_PLAIN = frozenset({"word", "brace_expression", "number"})


def _touching(nodes: Sequence[Any]) -> list[list[Any]]:
    """``nodes`` in runs with nothing between them: one shell word (the grammar splits ``{\\},-exec}`` into
    ``{`` and ``\\},-exec}``, which bash reads as one word and brace-expands to ``} -exec``)."""
    groups: list[list[Any]] = []
    for n in nodes:
        if groups and groups[-1][-1].end_byte == n.start_byte:
            groups[-1].append(n)
        else:
            groups.append([n])
    return groups


def _brace_words(group: Sequence[Any]) -> tuple[list[str] | None, bool]:
    """What bash makes of one word (its nodes, touching) with braces (empty words dropped, as bash does), or
    None when it has none; and whether it has braces this parser cannot expand for certain (then None too).
    Quoted parts are literal text to brace expansion (``src/{a,b}"/x y"``); a variable inside them is not read."""
    if not has_braces("".join(_text(n) for n in group)):
        return None, False
    parts = [_literal_source(n) for n in group]
    if any(p is None for p in parts):
        return None, True
    try:
        return [_unescape_word(w) for w in expand("".join(p for p in parts if p is not None)) if w], False
    except TooMany:
        return None, True


def _literal_source(node: Any) -> str | None:
    """``node`` as unquoted source for brace expansion: plain words as they are, quoted text with every
    character escaped; None for anything the shell would expand first (a variable, a substitution)."""
    if node.type in _PLAIN:
        return _text(node)
    if node.type == "raw_string":
        return "".join("\\" + c for c in _text(node)[1:-1])
    if node.type == "string" and all(c.type == "string_content" or not c.is_named for c in node.children):
        body = "".join(_unescape_dquoted(_text(c)) for c in node.children if c.type == "string_content")
        return "".join("\\" + c for c in body)
    if node.type == "concatenation":
        inner = [_literal_source(c) for c in node.children]
        return None if any(p is None for p in inner) else "".join(p for p in inner if p is not None)
    return None


def _unquoted_dynamic(word: str) -> bool:
    """Whether a word brace expansion made still needs the shell (a glob, a leading ``~``)."""
    return bool(_GLOB.search(word)) or word.startswith("~")
