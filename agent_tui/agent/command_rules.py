"""Allow and deny rules for shell commands, matched against the parsed command, not its text.

Allow rules are argv prefixes: ``allow_commands = ["pytest", "git status"]`` covers
``pytest -q tests/`` and ``git status --short`` and nothing else.  The old glob form
``"pytest*"`` is still accepted and means the same prefix (``pytest``); a ``*`` never
matches across ``;``, ``&&`` or a newline any more.  A line is auto-approved only when
*every* simple command in it is covered by a prefix and nothing in it reaches further:
no ``$(…)``/backticks, no ``&``, no redirection that writes outside the workspace, no
argument naming a path outside it (``pytest --basetemp=~/x`` empties ``~/x``), no
``VAR=…`` prefix, no program chosen at run time.  A prefix never covers inline code:
``python3`` or ``python3 -m pytest`` do not allow ``python3 -c "…"`` (a rule must name
the ``-c`` itself).

Deny rules match the program by basename (``/bin/rm``, ``\\rm`` and ``"rm"`` are ``rm``)
and its flags in any order and spelling: ``rm -rf`` also refuses ``rm -fr``,
``rm -r -f``, ``rm -Rf`` and ``rm --recursive --force``.  They look through wrappers
(``bash -c '…'``, ``env``, ``nice``, ``nohup``, ``timeout``, ``xargs``, ``command``,
``sudo``, ``exec``, ``eval``, ``su -c``, ``script -c``, ``parallel``, ``chrt``, ``taskset``,
``find -exec``) and ``alias`` definitions, take GNU abbreviations (``--rec``), count
``find -delete`` and inline code that deletes (``shutil.rmtree``, ``unlink``…) as ``rm -rf``,
and match a program named by a variable (``$RM -rf``) by its flags.  While deny rules exist,
a line whose commands they cannot see is refused: a shell or interpreter reading code from
its input (``… | sh``, ``bash <<EOF``), ``eval`` or ``sh -c`` of text computed at run time;
a line the parser cannot read is refused when it names a denied program at all.  Deny
always wins.  Scripts run from files are not looked into: the sandbox is the guarantee.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from agent_tui.agent.command_rules_data import (  # noqa: F401  (re-exported: the rule tables)
    ANY_PROGRAM_RUNNERS,
    DELETING_CODE,
    FLAG_ALIASES,
    INLINE_CODE_FLAGS,
    MAX_DEPTH,
    RUNNER_GROUPS,
    RUNNER_SUBCOMMANDS,
    SHELLS,
    SUBCOMMAND_PROGRAMS,
    VALUE_OPTS,
)
from agent_tui.agent.command_rules_links import (
    expand,
    follows_links,
    glob_word,
    link_leading_out,
    unreadable_pattern,
    walked,
)
from agent_tui.agent.command_rules_reach import reaching_option
from agent_tui.agent.command_rules_unwrap import (  # noqa: F401  (re-exported: looking through wrappers)
    all_layers,
    env_split,
    git_config_alias,
    inline_code_at,
    inner_commands,
    interpreter,
    opaque_reason,
    reads_code_from_input,
    rule_words,
    wrapped_candidates,
)
from agent_tui.tools.cmdparse import GLOB, SAFE_TARGETS, ParsedCommand, SimpleCommand, parse_command
from agent_tui.tools.sandbox_guard import PROTECTED


@dataclass(frozen=True)
class DenyRule:
    """One parsed deny rule: a program, flags that must all be present, and words in order."""

    source: str
    """The rule as written in the config."""
    program: str
    """Program basename."""
    flags: frozenset[str]
    """Normalised flags (``-r``, ``-f``, ``--no-verify``) the command must all carry."""
    words: tuple[str, ...]
    """Other words that must appear among the arguments, in this order (globs allowed)."""

    def matches(self, cmd: SimpleCommand) -> bool:
        """The command is this program with all the rule's flags and words."""
        return bool(cmd.argv) and cmd.program == self.program and self.matches_args(cmd)

    def matches_args(self, cmd: SimpleCommand) -> bool:
        """The command's arguments carry the rule's flags and words (whatever the program)."""
        flags, words = split_args(self.program, cmd.argv[1:])
        if not self.flags <= flags:
            return False
        it = iter(words)
        return all(any(fnmatch.fnmatchcase(w, want) for w in it) for want in self.words)


def parse_allow(rule: str) -> tuple[str, ...]:
    """An allow rule as an argv prefix; ``"pytest*"`` and ``"pytest"`` both give ``("pytest",)``."""
    return tuple(rule_words(rule))


def parse_deny(rule: str) -> DenyRule | None:
    """A deny rule, or None when it names no program."""
    words = rule_words(rule)
    if not words:
        return None
    program = Path(words[0]).name
    flags, rest = split_args(program, tuple(words[1:]))
    return DenyRule(rule, program, frozenset(flags), tuple(rest))


def split_args(program: str, args: tuple[str, ...] | list[str]) -> tuple[set[str], list[str]]:
    """Normalised flags and the other words of a command's arguments."""
    aliases = {**FLAG_ALIASES["*"], **FLAG_ALIASES.get(program, {})}
    flags: set[str] = set()
    words: list[str] = []
    ended = False
    for a in args:
        if ended or a == "-" or not a.startswith("-"):
            words.append(a)
        elif a == "--":
            ended = True
        elif a.startswith("--"):
            name = a.split("=", 1)[0]
            if name not in aliases:  # GNU getopt takes any unambiguous prefix: --rec is --recursive
                longer = {aliases[k] for k in aliases if k.startswith(name) and len(name) > 3}
                name = longer.pop() if len(longer) == 1 else name
            flags.add(aliases.get(name, name))
        elif len(a) > 2 and a[1:].isalpha():
            flags.update(aliases.get(f"-{c}", f"-{c}") for c in a[1:])
        else:
            flags.add(aliases.get(a, a))
    return flags, words



class CommandRules:
    """The allow prefixes and deny rules of one session."""

    def __init__(self, allow: list[str], deny: list[str]) -> None:
        self.allow: list[tuple[str, ...]] = [p for p in (parse_allow(r) for r in allow) if p]
        self.deny: list[DenyRule] = [r for r in (parse_deny(d) for d in deny) if r is not None]
        self.deny_sources = list(deny)

    def denied(self, command: str, parsed: ParsedCommand | None = None) -> str | None:
        """Why a deny rule refuses ``command`` (None when none does)."""
        parsed = parsed or parse_command(command)
        joined = parsed.joined_word() if self.deny else None
        if joined:
            return (f"`{joined}` joins a word across lines, which bash reads whole and deny rules "
                    f"({', '.join(repr(r.source) for r in self.deny[:3])}) would read as two")
        for layer in all_layers(parsed):
            if self.deny and layer.braces_unread:
                return (f"`{' '.join(layer.argv)}` has a brace expansion that deny rules "
                        f"({', '.join(repr(r.source) for r in self.deny[:3])}) cannot check")
            tails = wrapped_candidates(layer) if self.deny else []
            for rule in self.deny:
                if rule.matches(layer) or (layer.dynamic[:1] == (True,) and rule.matches_args(layer)):
                    shown = " ".join(layer.argv)
                    return f"deny rule {rule.source!r} matches `{shown}`"
                for tail in tails:
                    if rule.matches(tail):
                        return f"deny rule {rule.source!r} matches `{' '.join(tail.argv)}`, which `{layer.program}` may run"
            alias = git_config_alias(layer) if self.deny else None
            if alias:
                return (f"`{alias}` defines a git alias for this command, which deny rules "
                        f"({', '.join(repr(r.source) for r in self.deny[:3])}) cannot check")
            why = opaque_reason(layer) if self.deny else None
            if why:
                return f"{why}, which deny rules ({', '.join(repr(r.source) for r in self.deny[:3])}) cannot check"
        hidden = parsed.hidden_code() if self.deny else None
        if hidden:
            return (f"the line has `{hidden}`, where bash evaluates text as code that deny rules "
                    f"({', '.join(repr(r.source) for r in self.deny[:3])}) cannot see")
        text = command.strip()
        for pat in self.deny_sources:
            if fnmatch.fnmatchcase(text, pat):
                return f"deny rule {pat!r} matches the command"
        if not parsed.parsed and self.deny:  # (``\x72m`` in a ``$'…'`` hides the name from any text search)
            return (f"the line could not be read completely ({parsed.error}), and deny rules "
                    f"({', '.join(repr(r.source) for r in self.deny[:3])}) cannot check what it runs")
        if not parsed.parsed:
            for rule in self.deny:
                if re.search(rf"(^|[\s/\\'\"`;|&(]){re.escape(rule.program)}($|[\s'\"`;|&)])", text):
                    return (f"the command could not be parsed and names `{rule.program}`, "
                            f"which deny rule {rule.source!r} refuses")
        return None


def blockers(parsed: ParsedCommand, workspace: Path | None, *, confined: bool = True) -> list[str]:
    """What keeps a line from ever being auto-approved by prefix rules.  ``confined``: the line runs
    in the sandbox, which keeps writes in the workspace and hides the user's secrets; a line run on the
    host (no sandbox, or an ``allow_outside_commands`` rule) must also name no path the shell computes
    (``$PWD/../x``) and nothing in ``.git`` or ``.agent-tui`` (``echo … >> .git/config`` plants a program
    git runs later)."""
    why: list[str] = []
    if not parsed.parsed:
        why.append(f"it could not be parsed: {parsed.error}")
    if any(c.braces_unread for c in parsed.commands):
        why.append("it has a brace expansion the rules cannot expand for certain")
    joined = parsed.joined_word()
    if joined:
        why.append(f"a backslash-newline joins a word across lines (`{joined}`), which bash reads whole and the "
                   "rules would read as two")
    if parsed.substitution:
        why.append("it contains a command substitution ($(…), backticks or <(…))")
    if parsed.background:
        why.append("it starts something in the background (&)")
    outside = parsed.writes_outside(workspace)
    if outside:
        why.append(f"it redirects output outside the workspace ({', '.join(outside[:3])})")
    layers = all_layers(parsed)  # (``env -S'PATH=. ls'``, ``sh -c 'X=1 y'``: set for a command run inside)
    assigned = [a for c in layers for a in c.assignments] + \
        [a for c in layers if c.program == "env" for a in env_split(c.argv[1:]).assignments]
    if assigned:
        why.append(f"it sets variables for a command ({assigned[0].split('=', 1)[0]}=…)")
    elif parsed.assignment:  # ``PATH=bin; git status``: the commands after it inherit the variable
        why.append("it sets variables that the commands after it inherit")
    if parsed.parsed and not parsed.commands and parsed.source.strip():
        why.append("it runs no command an allow rule can name")
    hidden = parsed.hidden_code()
    if hidden:
        why.append(f"it has `{hidden}`, where bash evaluates text as code (an array subscript can hold $(…), from the "
                   "line or from data), which the rules cannot see")
    for c in parsed.commands:
        if c.argv and c.dynamic and c.dynamic[0]:
            why.append(f"the program is chosen at run time ({c.argv[0]})")
            break
    if workspace is not None:
        root = workspace.resolve()
        reads = [r.target for r in parsed.redirects if reads_a_file(r.op) and r.target is not None]
        paths = [w for c in parsed.commands for w in c.argv[1:] if _names_outside(w, root)]
        paths += [t for t in reads if _names_outside(t, root)]
        if paths:
            why.append(f"it names a path outside the workspace ({', '.join(paths[:3])})")
        why += _reach_blockers(layers, root, confined)
        if not confined:
            why += _host_blockers(parsed, root)
    return why


def _reach_blockers(layers: list[SimpleCommand], root: Path, confined: bool) -> list[str]:
    """What a glob word expands to, and where a link-following walk can go (``command_rules_links``)."""
    why: list[str] = []
    own = (lambda p: False) if confined else (lambda p: _names_own_files(str(p), root))
    patterns = dict.fromkeys(w for c in layers for w, d in zip(c.argv[1:], c.dynamic[1:], strict=False)
                             if d and glob_word(w))  # (once each: a wrapper's layers repeat its words)
    unread = [w for w in patterns if unreadable_pattern(w)]
    if unread:
        why.append(f"it has a pattern the rules cannot expand for certain ({', '.join(unread[:3])})")
    far: list[str] = []
    for word in (w for w in patterns if w not in unread):
        matches = expand(word, root)
        if matches is None:
            why.append(f"the pattern {word} matches too many paths to check where each leads")
            continue
        far += [f"{word} → {m}" for m in matches if _names_outside(m, root) or own(m)]
    if far:
        where = "outside the workspace" if confined else "outside the workspace or into git's or agent-tui's files"
        why.append(f"a pattern expands to a path {where} ({', '.join(far[:3])})")
    for c in layers:
        word = follows_links(c)
        if word is None:
            continue
        link = link_leading_out(walked(c, root), root, lambda t: (t != root and root not in t.parents) or own(t))
        if link == "…":
            why.append(f"`{c.program} {word}` follows symbolic links, and what it walks is too large to check "
                       "that no link leads out of the workspace")
        elif link is not None:
            why.append(f"`{c.program} {word}` follows symbolic links, and one in what it walks leads out of the "
                       f"workspace ({link})")
        if link is not None:
            break
    return why


def _host_blockers(parsed: ParsedCommand, root: Path) -> list[str]:
    """What a line run on the host may not do besides: name a path the shell computes, or git's or
    agent-tui's own files."""
    why: list[str] = []
    computed = [w for c in parsed.commands for w, d in zip(c.argv[1:], c.dynamic[1:], strict=False)
                if d and "$" in w and not _names_outside(w, root)]  # ($HOME: said already)
    if computed or any(reads_a_file(r.op) and r.target is None for r in parsed.redirects):
        why.append(f"it names a path the shell computes ({', '.join(computed[:3]) or 'an input redirection'}),"
                   " which could be outside the workspace")
    words = [w for c in parsed.commands for w in c.argv[1:]] + [r.target for r in parsed.redirects if r.target]
    attached = [v for w in words for v in _attached_values(w)]  # ``cp -vt.git/hooks``, ``-o cache_dir=/x``
    far = [v for v in attached if _names_outside(v, root)]
    if far:
        why.append(f"an option or setting names a path outside the workspace ({', '.join(far[:3])})")
    own = [w for w in words + attached if _names_own_files(w, root) or _glob_reaches(w)]
    if own:
        why.append(f"it names git's or agent-tui's own files, or a pattern that can reach them or `..` "
                   f"({', '.join(own[:3])}), which only the sandbox keeps read-only")
    return why


def _attached_values(word: str) -> list[str]:
    """The values that may be glued into ``word``: after a short option, alone or in a bundle (``-vt.git/hooks``:
    every tail from the second letter on), and after each ``=`` (``cache_dir=/x``, ``--override-ini=k=/x``).
    Not a lone ``/`` (``cut -d/``) nor anything of a URL: the path checks read the whole word otherwise."""
    if "://" in word or len(word) > 256:
        return []
    out: list[str] = []
    if word.startswith("-") and not word.startswith("--"):
        out += [word[i:] for i in range(2, len(word)) if word[1:i].isalpha()]  # (after a run of option letters)
    at = word.find("=")
    while at >= 0:
        out.append(word[at + 1:])
        at = word.find("=", at + 1)
    return [v for v in out if v and v != "/" and (v.startswith((".", "/", "~")) or "/" in v)]


def _glob_reaches(word: str) -> bool:
    """A pattern the shell may expand to ``..`` or into ``.git`` / ``.agent-tui`` (``.g*/hooks``,
    ``.[g]it/config``): the literal checks read it as the pattern itself."""
    return any(GLOB.search(part) and any(fnmatch.fnmatchcase(name, part) for name in ("..", *PROTECTED))
               for part in word.split("/"))


def _names_own_files(word: str, root: Path) -> bool:
    """A word naming something in the workspace's ``.git`` or ``.agent-tui`` (``PROTECTED``)."""
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if not value or value.startswith(("-", "~", "$")) or "\0" in value:
        return False
    try:
        full = (root / value).resolve() if not value.startswith("/") else Path(value).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    if full != root and root not in full.parents:
        return False
    first = full.relative_to(root).parts[:1]
    # case-folded: on a case-insensitive file system (macOS, where every command runs on the host) `.GIT/config`
    # is git's own config
    return bool(first) and first[0].casefold() in {name.casefold() for name in PROTECTED}


READING = re.compile(r"(\d+|\{\w+\})?<>?")
"""A redirection that opens a file to read, on any descriptor (``<``, ``3<``, ``{fd}<``, ``<>``): ``cat 3<~/.ssh/id_rsa
<&3`` read a key unasked while only ``<`` was checked."""


def reads_a_file(op: str) -> bool:
    """``op`` opens its target to read (:data:`READING`; not a heredoc, a herestring or a descriptor copy)."""
    return READING.fullmatch(op.replace(" ", "")) is not None


def _names_outside(word: str, root: Path) -> bool:
    """An argument naming a path outside the workspace (``pytest --basetemp=~/x`` empties ``~/x``)."""
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if value.startswith("-") or not value or value in SAFE_TARGETS:
        return False
    if value.startswith("~") or value.startswith(("$HOME", "${HOME}")):
        return True
    try:  # (every path is resolved: a symlink the repository ships, ``docs -> /elsewhere``, leads out)
        full = (root / value).resolve() if not value.startswith("/") else Path(value).resolve()
    except (OSError, RuntimeError, ValueError):
        return True
    return full != root and root not in full.parents


def _names(prefix: tuple[str, ...], cmd: SimpleCommand) -> bool:
    """``cmd`` starts with ``prefix`` word for word, none of those words computed."""
    n = len(prefix)
    return bool(cmd.argv) and len(cmd.argv) >= n and cmd.argv[:n] == prefix and not any(cmd.dynamic[:n])


def _stop(prefix: tuple[str, ...], cmd: SimpleCommand) -> tuple[str, str] | None:
    """For a prefix that names ``cmd``: the word past it that the prefix does not reach, and why (an option that
    runs a program or writes a file, inline code); None when the prefix covers ``cmd``."""
    n = len(prefix)
    if (option := reaching_option(cmd.program, cmd.argv[1:], start=max(0, n - 1))) is not None:
        return option, "it can run a program or write a file the rule never named"
    code_at = inline_code_at(cmd.argv)
    return (cmd.argv[code_at], "it runs code written on the line") if code_at is not None and code_at >= n else None


def prefix_covers(prefix: tuple[str, ...], cmd: SimpleCommand) -> bool:
    """True when ``cmd`` starts with ``prefix`` word for word (and the prefix reaches any inline code)."""
    return _names(prefix, cmd) and _stop(prefix, cmd) is None


def rule_stopped(cmd: SimpleCommand, prefixes: list[tuple[str, ...]]) -> str:
    """Why a rule that names ``cmd`` word for word still does not cover it ("" when none names it).  A tester's
    `git log` rule did not cover `git log -p -1 --ext-diff`, and the dialog said only that no rule covered
    `git log -p`."""
    for prefix in prefixes:
        if _names(prefix, cmd) and (stop := _stop(prefix, cmd)) is not None:
            return f"your rule `{shlex.join(prefix)}` stops at `{stop[0]}`: {stop[1]}"
    return ""


def uncovered(parsed: ParsedCommand, prefixes: list[tuple[str, ...]]) -> list[SimpleCommand]:
    """The simple commands of the line that no prefix covers, or whose wrapped commands (``xargs X``,
    ``find -exec X``, ``env X``) a prefix of their own does not cover."""
    return [c for c in parsed.commands if not _covered(c, prefixes, 0)]


def _covered(cmd: SimpleCommand, prefixes: list[tuple[str, ...]], depth: int) -> bool:
    if depth > MAX_DEPTH or not any(prefix_covers(p, cmd) for p in prefixes):
        return False  # (wrapped deeper than the rules look: the user is asked)
    return all(_covered(c, prefixes, depth + 1) for c in inner_commands(cmd))


def offered_prefix(parsed: ParsedCommand, workspace: Path | None, *, checked: bool = False) -> tuple[str, ...] | None:
    """The prefix the approval dialog offers to remember, or None when only the exact line is safe.

    ``checked``: the caller already knows ``blockers`` found nothing.
    """
    if len(parsed.commands) != 1 or (not checked and blockers(parsed, workspace)):
        return None
    cmd = parsed.commands[0]
    argv, dyn = cmd.argv, cmd.dynamic
    if not argv or any(dyn[:1]) or inline_code_at(argv) is not None or inner_commands(cmd):
        return None
    prog = cmd.program
    if prog in ANY_PROGRAM_RUNNERS:  # (``uvx`` as a prefix allowed ``uvx --from git+https://… x``)
        return None
    out = [argv[0]]
    rest = list(zip(argv[1:], dyn[1:], strict=False))
    if rest and (prog, rest[0][0]) in RUNNER_GROUPS:  # (``uv tool run X``: ``uv tool`` allowed any package)
        return None
    if prog in SUBCOMMAND_PROGRAMS and rest and rest[0][0] in RUNNER_SUBCOMMANDS:  # (before the interpreter's
        if len(rest) < 2 or rest[1][1] or rest[1][0].startswith("-"):  # branch: ``bun x`` allowed ``bun x evil``)
            return None
        return (argv[0], rest[0][0], rest[1][0])
    if interpreter(prog) in INLINE_CODE_FLAGS:
        if len(rest) >= 2 and rest[0][0] == "-m" and not rest[1][1]:
            return (argv[0], "-m", rest[1][0])
        if rest and not rest[0][1] and not rest[0][0].startswith("-"):
            return (argv[0], rest[0][0])
        return None
    if prog in SUBCOMMAND_PROGRAMS:
        if not rest or rest[0][1] or rest[0][0].startswith("-"):
            return None
        out.append(rest[0][0])
        if rest[0][0] in RUNNER_SUBCOMMANDS:
            if len(rest) < 2 or rest[1][1] or rest[1][0].startswith("-"):
                return None
            out.append(rest[1][0])
    return tuple(out)
