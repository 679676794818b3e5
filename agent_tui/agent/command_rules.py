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

from agent_tui.tools.cmdparse import SAFE_TARGETS, ParsedCommand, SimpleCommand, parse_command

#: How deep wrappers are looked through (``bash -c "env sh -c '…'"``).
MAX_DEPTH = 6
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox-sh", "fish"})
#: Interpreters and the flag that makes them run code given on the command line.
INLINE_CODE_FLAGS: dict[str, tuple[str, ...]] = {
    "python": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"), "php": ("-r",), "lua": ("-e",), "Rscript": ("-e",),
    "R": ("-e",), "osascript": ("-e",), "deno": ("eval",), "bun": ("-e", "--eval"),
}
for _sh in SHELLS:
    INLINE_CODE_FLAGS[_sh] = ("-c",)
#: Programs whose first word names a subcommand (``git status``); the dialog offers that prefix.
SUBCOMMAND_PROGRAMS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "uv", "pip", "pip3", "poetry", "docker", "kubectl",
    "make", "ruff", "hatch", "tox", "nox", "dotnet", "gradle", "mvn", "bundle", "rake", "mix", "just",
    "conda", "brew", "apt", "systemctl", "gh", "terraform", "helm", "deno", "bun", "npx",
})
_RUNNER_SUBCOMMANDS = frozenset({"run", "exec", "x"})
#: Flag spellings that mean the same, per program ("*" for every program).
FLAG_ALIASES: dict[str, dict[str, str]] = {
    "*": {"--force": "-f"},
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d", "--verbose": "-v"},
    "cp": {"-R": "-r", "--recursive": "-r", "--force": "-f"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "git": {"--force": "-f"},
}
#: Inline code that deletes files: counted as ``rm -r -f`` by deny rules.
_DELETING_CODE = re.compile(
    r"rmtree|\bos\s*\.\s*(remove|unlink|rmdir|removedirs)\b|\.unlink\s*\(|\.rmdir\s*\(|\bunlink\b|"
    r"\brm(Sync|dirSync)?\s*\(|\bFileUtils\s*\.\s*rm|\bremove_tree\b|\brm\s+-[a-zA-Z]*[rRf]",
)


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


def _rule_words(rule: str) -> list[str]:
    text = rule.strip()
    while text.endswith("*"):
        text = text[:-1].rstrip()
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def parse_allow(rule: str) -> tuple[str, ...]:
    """An allow rule as an argv prefix; ``"pytest*"`` and ``"pytest"`` both give ``("pytest",)``."""
    return tuple(_rule_words(rule))


def parse_deny(rule: str) -> DenyRule | None:
    """A deny rule, or None when it names no program."""
    words = _rule_words(rule)
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


def _interpreter(program: str) -> str:
    """``python3.12`` → ``python``; other names unchanged."""
    return "python" if re.fullmatch(r"python[0-9.]*", program) else program


def inline_code_at(argv: tuple[str, ...]) -> int | None:
    """Index of the flag that makes an interpreter run code from argv (``-c``, ``-e``), if any."""
    if not argv:
        return None
    flags = INLINE_CODE_FLAGS.get(_interpreter(Path(argv[0]).name))
    if flags is None:
        return None
    for i, a in enumerate(argv[1:], start=1):
        if a in flags:
            return i
        if not a.startswith("-") or a in ("--", "-m"):
            return None
        short = [f[1] for f in flags if len(f) == 2 and f[0] == "-"]
        if not a.startswith("--") and len(a) > 2 and a[1:].isalpha() and any(c in a[1:] for c in short):
            return i
    return None


def _skip_options(args: tuple[str, ...], with_value: frozenset[str]) -> int:
    """Index of the first argument after leading options (``with_value`` options take one)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return i + 1
        if not a.startswith("-") or a == "-":
            return i
        i += 2 if (a in with_value and "=" not in a) else 1
    return i


def _sub(argv: tuple[str, ...], dyn: tuple[bool, ...], start: int) -> SimpleCommand | None:
    if start >= len(argv):
        return None
    return SimpleCommand(argv[start:], dyn[start:] if len(dyn) == len(argv) else tuple(False for _ in argv[start:]))


_VALUE_OPTS = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter",
                        "--max-args", "--max-procs", "--replace", "--max-lines", "--eof"}),
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}),
    "exec": frozenset({"-a"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "parallel": frozenset({"-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d", "--delimiter", "-I", "-n",
                           "-N", "--colsep"}),
    "chrt": frozenset({"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"}),
}


def inner_commands(cmd: SimpleCommand, depth: int = 0) -> list[SimpleCommand]:
    """What ``cmd`` runs on its behalf: the command of a wrapper, the code of ``sh -c``, …

    ``find -delete`` and deleting inline code come back as a synthetic ``rm -r -f``.
    """
    if depth >= MAX_DEPTH or not cmd.argv:
        return []
    argv, dyn, prog = cmd.argv, cmd.dynamic, cmd.program
    args = argv[1:]
    found: list[SimpleCommand] = []
    code_at = inline_code_at(argv)
    if prog in SHELLS and code_at is not None and code_at + 1 < len(argv):
        found += _commands_of(argv[code_at + 1], depth)
    elif code_at is not None and code_at + 1 < len(argv):
        code = argv[code_at + 1]
        if _DELETING_CODE.search(code):
            found.append(SimpleCommand(("rm", "-r", "-f", f"(inline {prog} code)"), (False,) * 4))
        for m in re.finditer(r"""["']([^"']*\brm\s+-[^"']*)["']""", code):
            found += _commands_of(m.group(1), depth)
    elif prog == "env":
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-S", "--split-string") and i + 1 < len(args):
                found += _commands_of(args[i + 1], depth)
                i += 2
            elif a.startswith("-S") and len(a) > 2:
                found += _commands_of(a[2:], depth)
                i += 1
            elif a == "--":
                i += 1
                break
            elif a.startswith("-") and a != "-":
                i += 2 if (a in _VALUE_OPTS["env"] and "=" not in a) else 1
            elif "=" in a and not a.startswith("="):
                i += 1
            else:
                break
        sub = _sub(argv, dyn, 1 + i)
        found += [sub] if sub else []
    elif prog == "timeout":
        i = _skip_options(args, _VALUE_OPTS["timeout"])
        sub = _sub(argv, dyn, 1 + i + 1)
        found += [sub] if sub else []
    elif prog == "xargs":
        sub = _sub(argv, dyn, 1 + _skip_options(args, _VALUE_OPTS["xargs"]))
        found += [sub] if sub else []
    elif prog == "command":
        if not any(a in ("-v", "-V") for a in args[:2]):
            sub = _sub(argv, dyn, 1 + _skip_options(args, frozenset()))
            found += [sub] if sub else []
    elif prog in ("nice", "nohup", "sudo", "doas", "exec", "time", "stdbuf", "setsid", "ionice", "chronic",
                  "unbuffer", "caffeinate", "chroot", "flock", "busybox", "catchsegv", "strace", "ltrace"):
        i = _skip_options(args, _VALUE_OPTS.get(prog, frozenset()))
        if prog == "chroot":
            i += 1
        if prog == "flock" and i < len(args):
            if args[i] in ("-c", "--command") and i + 1 < len(args):
                found += _commands_of(args[i + 1], depth)
                i = len(args)
            else:
                i += 1
        sub = _sub(argv, dyn, 1 + i)
        found += [sub] if sub else []
    elif prog == "eval":
        found += _commands_of(" ".join(args), depth)
    elif prog in ("su", "runuser", "script"):
        for i, a in enumerate(args):
            if a.startswith("--command="):
                found += _commands_of(a.split("=", 1)[1], depth)
            elif (a in ("-c", "--command") or (prog == "script" and re.fullmatch(r"-[a-zA-Z]*c", a))) \
                    and i + 1 < len(args):
                found += _commands_of(args[i + 1], depth)
    elif prog in ("coproc", "parallel", "chrt", "taskset"):
        i = _skip_options(args, _VALUE_OPTS.get(prog, frozenset()))
        if prog in ("chrt", "taskset"):
            i += 1  # the priority or CPU mask
        sub = _sub(argv, dyn, 1 + i)
        found += [sub] if sub else []
    elif prog in ("watch",):
        rest = args[_skip_options(args, frozenset({"-n", "--interval", "-d"})):]
        found += _commands_of(" ".join(rest), depth)
    elif prog == "find":
        found += _find_inner(argv)
    out: list[SimpleCommand] = []
    for c in found:
        out.append(c)
        out += inner_commands(c, depth + 1)
    return out


def _commands_of(code: str, depth: int) -> list[SimpleCommand]:
    parsed = parse_command(code)
    out: list[SimpleCommand] = []
    for c in parsed.commands:
        out.append(c)
        out += inner_commands(c, depth + 1)
    if not parsed.parsed:  # keep the raw words so deny rules still see the program names
        out.append(SimpleCommand(tuple(code.split()), tuple(False for _ in code.split())))
    return out


def _find_inner(argv: tuple[str, ...]) -> list[SimpleCommand]:
    out: list[SimpleCommand] = []
    starts = [a for a in argv[1:] if not a.startswith(("-", "(", ")", "!"))][:1] or ["."]
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "-delete":
            out.append(SimpleCommand(("rm", "-r", "-f", *starts), (False,) * (3 + len(starts))))
        elif a in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(argv) and argv[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                out.append(SimpleCommand(argv[i + 1 : j], tuple(False for _ in argv[i + 1 : j])))
            i = j
        i += 1
    return out


def _aliases(parsed: ParsedCommand) -> dict[str, tuple[str, ...]]:
    """``alias name=value`` definitions in the line (``sh`` expands them in later commands)."""
    out: dict[str, tuple[str, ...]] = {}
    for c in parsed.commands:
        if c.program == "alias":
            for a in c.argv[1:]:
                name, eq, value = a.partition("=")
                if eq:
                    out[name] = tuple(_rule_words(value)) if value.strip() else ()
    return out


def all_layers(parsed: ParsedCommand) -> list[SimpleCommand]:
    """Every simple command of the line and everything they run through wrappers (aliases expanded)."""
    aliases = _aliases(parsed)
    out: list[SimpleCommand] = []
    for c in parsed.commands:
        cmds = [c]
        if c.argv and c.argv[0] in aliases:
            argv = (*aliases[c.argv[0]], *c.argv[1:])
            cmds.append(SimpleCommand(argv, (False,) * len(aliases[c.argv[0]]) + c.dynamic[1:]))
        for cmd in cmds:
            out.append(cmd)
            out += inner_commands(cmd)
    return out


def reads_code_from_input(cmd: SimpleCommand) -> bool:
    """A shell or interpreter that runs whatever its input holds (``… | sh``, ``bash -s``, ``sh <<EOF``)."""
    prog = _interpreter(cmd.program) if cmd.argv else ""
    if prog not in INLINE_CODE_FLAGS or prog in ("deno", "osascript", "R"):
        return False
    shell = prog in SHELLS
    code_opts = set(INLINE_CODE_FLAGS[prog]) | ({"-m"} if prog == "python" else set())
    for a in cmd.argv[1:]:
        if a in code_opts or (shell and re.fullmatch(r"-[a-zA-Z]{2,}", a) and "c" in a):
            return False  # code or a module named on the command line
        if a == "-" or (shell and re.fullmatch(r"-[a-zA-Z]*s[a-zA-Z]*", a)):
            return True  # explicitly reads its input
        if not a.startswith("-"):
            return False  # a script file (not looked into)
    return True


def opaque_reason(layer: SimpleCommand) -> str | None:
    """Why deny rules cannot see what ``layer`` runs (None when they can)."""
    if reads_code_from_input(layer):
        return f"`{layer.argv[0]}` runs commands from its input"
    if layer.program == "eval" and any(layer.dynamic[1:]):
        return "`eval` runs text computed at run time"
    if layer.program in SHELLS:
        at = inline_code_at(layer.argv)
        if at is not None and at + 1 < len(layer.argv) and layer.dynamic[at + 1]:
            return f"`{layer.program} -c` runs code computed at run time"
    return None


class CommandRules:
    """The allow prefixes and deny rules of one session."""

    def __init__(self, allow: list[str], deny: list[str]) -> None:
        self.allow: list[tuple[str, ...]] = [p for p in (parse_allow(r) for r in allow) if p]
        self.deny: list[DenyRule] = [r for r in (parse_deny(d) for d in deny) if r is not None]
        self.deny_sources = list(deny)

    def denied(self, command: str, parsed: ParsedCommand | None = None) -> str | None:
        """Why a deny rule refuses ``command`` (None when none does)."""
        parsed = parsed or parse_command(command)
        for layer in all_layers(parsed):
            for rule in self.deny:
                if rule.matches(layer) or (layer.dynamic[:1] == (True,) and rule.matches_args(layer)):
                    shown = " ".join(layer.argv)
                    return f"deny rule {rule.source!r} matches `{shown}`"
            why = opaque_reason(layer) if self.deny else None
            if why:
                return f"{why}, which deny rules ({', '.join(repr(r.source) for r in self.deny[:3])}) cannot check"
        text = command.strip()
        for pat in self.deny_sources:
            if fnmatch.fnmatchcase(text, pat):
                return f"deny rule {pat!r} matches the command"
        if not parsed.parsed:
            for rule in self.deny:
                if re.search(rf"(^|[\s/\\'\"`;|&(]){re.escape(rule.program)}($|[\s'\"`;|&)])", text):
                    return (f"the command could not be parsed and names `{rule.program}`, "
                            f"which deny rule {rule.source!r} refuses")
        return None


def blockers(parsed: ParsedCommand, workspace: Path | None) -> list[str]:
    """What keeps a line from ever being auto-approved by prefix rules."""
    why: list[str] = []
    if not parsed.parsed:
        why.append(f"it could not be parsed: {parsed.error}")
    if parsed.substitution:
        why.append("it contains a command substitution ($(…), backticks or <(…))")
    if parsed.background:
        why.append("it starts something in the background (&)")
    outside = parsed.writes_outside(workspace)
    if outside:
        why.append(f"it redirects output outside the workspace ({', '.join(outside[:3])})")
    for c in parsed.commands:
        if c.assignments:
            why.append(f"it sets variables for a command ({c.assignments[0].split('=', 1)[0]}=…)")
            break
    for c in parsed.commands:
        if c.argv and c.dynamic and c.dynamic[0]:
            why.append(f"the program is chosen at run time ({c.argv[0]})")
            break
    if workspace is not None:
        paths = [w for c in parsed.commands for w in c.argv[1:] if _names_outside(w, workspace.resolve())]
        if paths:
            why.append(f"it names a path outside the workspace ({', '.join(paths[:3])})")
    return why


def _names_outside(word: str, root: Path) -> bool:
    """An argument naming a path outside the workspace (``pytest --basetemp=~/x`` empties ``~/x``)."""
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if value.startswith("-") or not value or value in SAFE_TARGETS:
        return False
    if value.startswith("~") or value.startswith(("$HOME", "${HOME}")):
        return True
    if not (value.startswith("/") or ".." in Path(value).parts):
        return False
    try:
        full = (root / value).resolve() if not value.startswith("/") else Path(value).resolve()
    except (OSError, RuntimeError):
        return True
    return full != root and root not in full.parents


def prefix_covers(prefix: tuple[str, ...], cmd: SimpleCommand) -> bool:
    """True when ``cmd`` starts with ``prefix`` word for word (and the prefix reaches any inline code)."""
    n = len(prefix)
    if not cmd.argv or len(cmd.argv) < n or cmd.argv[:n] != prefix:
        return False
    if any(cmd.dynamic[:n]):
        return False
    code_at = inline_code_at(cmd.argv)
    return code_at is None or code_at < n


def uncovered(parsed: ParsedCommand, prefixes: list[tuple[str, ...]]) -> list[SimpleCommand]:
    """The simple commands of the line that no prefix covers."""
    return [c for c in parsed.commands if not any(prefix_covers(p, c) for p in prefixes)]


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
    out = [argv[0]]
    rest = list(zip(argv[1:], dyn[1:], strict=False))
    if _interpreter(prog) in INLINE_CODE_FLAGS:
        if len(rest) >= 2 and rest[0][0] == "-m" and not rest[1][1]:
            return (argv[0], "-m", rest[1][0])
        if rest and not rest[0][1] and not rest[0][0].startswith("-"):
            return (argv[0], rest[0][0])
        return None
    if prog in SUBCOMMAND_PROGRAMS:
        if not rest or rest[0][1] or rest[0][0].startswith("-"):
            return None
        out.append(rest[0][0])
        if rest[0][0] in _RUNNER_SUBCOMMANDS:
            if len(rest) < 2 or rest[1][1] or rest[1][0].startswith("-"):
                return None
            out.append(rest[1][0])
    return tuple(out)
