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

from agent_tui.tools.cmd_hidden import hidden_code
from agent_tui.tools.cmd_spans import (
    active_text,
    expansion_runs_code,
    false_comment,
    literal_spans,
    quiet_spans,
    unseen_substitution,
)
from agent_tui.tools.cmd_words import (
    GLOB,
    ansi_c,
    brace_words,
    dquoted_pieces,
    joined_word,
    node_text,
    touching,
    unescape_dquoted,
    unescape_word,
    unquoted_dynamic,
)
from agent_tui.tools.shell_braces import has_braces

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
    error: str | None = None
    """Why the line could not be read completely (None when it could)."""
    parsed_bytes: bytes = b""
    """The bytes the grammar read (the line, or the line with a first word quoted: ``_FIRST_WITH_AT``)."""
    literal: list[tuple[int, int]] = field(default_factory=list)
    """Byte ranges of ``parsed_bytes`` bash keeps as written (``literal_spans``)."""
    quiet: list[tuple[int, int]] = field(default_factory=list)
    """Byte ranges of ``parsed_bytes`` bash never evaluates (``cmd_spans.quiet_spans``)."""

    @property
    def parsed(self) -> bool:
        """True when every part of the line was understood."""
        return self.error is None

    def hidden_code(self) -> str | None:
        """Where bash evaluates text as code that no parsed command shows, or None (``cmd_hidden``)."""
        data = self.parsed_bytes or self.source.encode("utf-8", errors="surrogateescape")
        return hidden_code(active_text(data, self.quiet), self.commands)

    def joined_word(self) -> str | None:
        """A backslash-newline that joins a word bash reads whole and the parse reads as two (``cmd_words``)."""
        data = self.parsed_bytes or self.source.encode("utf-8", errors="surrogateescape")
        return joined_word(data, self.literal)

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
    if target.startswith("~") or "$" in target or GLOB.search(target):
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
        data = source.encode("utf-8", errors="surrogateescape")
        tree = _parser().parse(data)
    except Exception as exc:  # the parser itself failed: treat as unreadable
        result.error = f"the shell parser failed: {exc}"
        return result
    root = tree.root_node
    if root.has_error and (first := _FIRST_WITH_AT.match(source)) is not None:
        # tree-sitter-bash reads a first word holding `@` (`a@b x`) as the start of an array subscript, or `%`
        # after a character (`1%`) as an expansion, and fails; the same word in single quotes means the same
        # to bash, and the grammar reads it
        quoted = f"{first.group(1)}'{first.group(2)}'{source[first.end():]}"
        data = quoted.encode("utf-8", errors="surrogateescape")
        tree = _parser().parse(data)
        root = tree.root_node
    if root.has_error:
        result.error = "the shell parser could not read the whole command (unbalanced quotes or brackets?)"
    result.parsed_bytes = data
    result.literal = literal_spans(root)
    try:
        _Walker(result).statement_list(root)
    except Exception as exc:  # (a word this walker cannot read: the line is unreadable, never a crash)
        result.error = result.error or f"part of the command could not be read ({type(exc).__name__})"
    # where the grammar and bash disagree (``cmd_spans``): the tree alone hid commands that ran
    result.quiet = quiet_spans(root)
    if false_comment(root, data) is not None:
        result.error = result.error or "a `#` there is part of a word to bash, not the start of a comment"
    if not result.substitution and (unseen_substitution(data, result.quiet) or expansion_runs_code(root)):
        result.substitution = True
    return result


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?")
"""What bash takes as the name of an assignment (``NAME=``, ``NAME+=``, ``NAME[i]=``)."""


def assigns_a_name(node: Any) -> bool:
    """Whether a ``variable_assignment`` node is one for bash: the grammar also reads ``1=x`` as one, which bash
    runs as a command of that name."""
    return NAME.fullmatch(node_text(node).split("=", 1)[0]) is not None


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
        elif t == "variable_assignment" and not assigns_a_name(node):  # (``1=x``: a command bash looks for)
            text, dyn = self.word(node)
            self.r.commands.append(SimpleCommand((text,), (dyn,)))
        elif t == "variable_assignment" or t == "variable_assignments":
            self.r.assignment = True
            self.words_in(node)
        elif t == "declaration_command" or t == "unset_command":
            self.r.assignment = True
            self.words_in(node)
            argv = [node_text(node.children[0])] + [self.word(c)[0] for c in node.children[1:] if c.is_named]
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
            if t == "variable_assignment" and (nodes or not assigns_a_name(child)):
                nodes.append(child)  # ``1=x a=1 ls``: bash runs a program named ``1=x``, not ``ls``
            elif t == "variable_assignment":
                self.r.assignment = True
                assigns.append(node_text(child))
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
        for group in touching(nodes):
            parts = [self.word(n) for n in group]
            text, d = "".join(t for t, _ in parts), any(x for _, x in parts)
            words, unsure = brace_words(group)
            unread = unread or unsure
            if words is None:
                argv.append(text)
                dyn.append(d or unsure)
                continue
            argv.extend(words)
            dyn.extend(unquoted_dynamic(w) for w in words)
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
                op += node_text(child)
            elif child.type == "file_descriptor":
                op = node_text(child) + op
            elif have_target:
                if extra is not None:
                    extra.append(child)
                else:
                    self.r.error = self.r.error or "words after a redirection's target, which bash refuses here"
                    self.word(child)
            else:
                text, d = self.word(child)
                words, _ = brace_words([child])
                if words is not None:  # bash takes a single word ("ambiguous redirect" for more)
                    text, d = (words[0], unquoted_dynamic(words[0])) if len(words) == 1 else (text, True)
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
                    op += node_text(child)
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
            raw = node_text(node)
            dynamic = bool(GLOB.search(raw)) or raw.startswith("~") or has_braces(raw)
            return unescape_word(raw), dynamic
        if t in ("number", "variable_name", "file_descriptor", "special_variable_name", "test_operator"):
            return node_text(node), False
        if t == "raw_string":
            return node_text(node)[1:-1], False
        if t == "ansi_c_string":
            return ansi_c(node_text(node)[2:-1]), False
        if t in ("string", "translated_string"):
            parts: list[str] = []
            dynamic = False
            for piece in dquoted_pieces(node):
                if isinstance(piece, str):
                    parts.append(unescape_dquoted(piece))
                else:
                    text, _ = self.word(piece)
                    parts.append(text)
                    dynamic = True
            return "".join(parts), dynamic
        if t == "concatenation":
            parts = []
            dynamic = has_braces(node_text(node))
            for c in node.children:
                text, d = self.word(c)
                parts.append(text)
                dynamic = dynamic or d
            return "".join(parts), dynamic
        if t in _SUBSTITUTIONS:
            self.r.substitution = True
            inner = _Walker(self.r)
            inner.statement_list(node)
            return node_text(node), True
        if t in ("expansion", "simple_expansion", "arithmetic_expansion", "brace_expression"):
            self.words_in(node)
            return node_text(node), True
        if t == "ERROR":
            self.r.error = self.r.error or "the shell parser could not read part of the command"
        if node.child_count:
            self.words_in(node)
        return node_text(node), True
