"""Looking through wrappers: what a command runs on its behalf.

``bash -c '…'``, ``env``, ``nice``, ``xargs``, ``sudo``, ``find -exec``, ``alias`` definitions and
inline interpreter code all run another command; deny rules must see that one too.  The tables
(which programs are wrappers, which options take a value) are in ``command_rules_data.py``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import NamedTuple

from agent_tui.agent.command_rules_data import (
    ARG_WRAPPERS,
    CANDIDATE_WRAPPERS,
    COMMAND_FLAG_RUNNERS,
    DELETING_CODE,
    INLINE_CODE_FLAGS,
    MAX_DEPTH,
    PASS_THROUGH_WRAPPERS,
    SHELLS,
    VALUE_OPTS,
    WATCH_VALUE_OPTS,
)
from agent_tui.tools.cmdparse import ParsedCommand, SimpleCommand, parse_command


def rule_words(rule: str) -> list[str]:
    """The words of a rule or alias value, trailing ``*`` dropped (``"pytest*"`` → ``["pytest"]``)."""
    text = rule.strip()
    while text.endswith("*"):
        text = text[:-1].rstrip()
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def interpreter(program: str) -> str:
    """``python3.12`` → ``python``; other names unchanged."""
    return "python" if re.fullmatch(r"python[0-9.]*", program) else program


def inline_code_at(argv: tuple[str, ...]) -> int | None:
    """Index of the flag that makes an interpreter run code from argv (``-c``, ``-e``), if any."""
    if not argv:
        return None
    flags = INLINE_CODE_FLAGS.get(interpreter(Path(argv[0]).name))
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
        if DELETING_CODE.search(code):
            found.append(SimpleCommand(("rm", "-r", "-f", f"(inline {prog} code)"), (False,) * 4))
        for m in re.finditer(r"""["']([^"']*\brm\s+-[^"']*)["']""", code):
            found += _commands_of(m.group(1), depth)
    elif prog == "env":
        split = env_split(args)
        for code in split.strings:
            found += _commands_of(code, depth)
        sub = _sub(argv, dyn, 1 + split.start)
        found += [sub] if sub else []
    elif prog == "timeout":
        i = _skip_options(args, VALUE_OPTS["timeout"])
        sub = _sub(argv, dyn, 1 + i + 1)
        found += [sub] if sub else []
    elif prog == "xargs":
        sub = _sub(argv, dyn, 1 + _skip_options(args, VALUE_OPTS["xargs"]))
        found += [sub] if sub else []
    elif prog in ("command", "builtin"):
        if not any(a in ("-v", "-V") for a in args[:2]):
            sub = _sub(argv, dyn, 1 + _skip_options(args, frozenset()))
            found += [sub] if sub else []
    elif prog in PASS_THROUGH_WRAPPERS:
        i = _skip_options(args, VALUE_OPTS.get(prog, frozenset()))
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
    elif prog == "sg" and len(args) > 1:  # ``sg GROUP [-c] 'command line'``
        found += _commands_of(" ".join(a for a in args[1:] if a != "-c"), depth)
    elif prog == "eval":
        found += _commands_of(" ".join(args), depth)
    elif prog in COMMAND_FLAG_RUNNERS:
        for i, a in enumerate(args):
            if a.startswith("--command="):
                found += _commands_of(a.split("=", 1)[1], depth)
            elif (a in ("-c", "--command") or (prog == "script" and re.fullmatch(r"-[a-zA-Z]*c", a))) \
                    and i + 1 < len(args):
                found += _commands_of(args[i + 1], depth)
    elif prog in ARG_WRAPPERS:
        i = _skip_options(args, VALUE_OPTS.get(prog, frozenset()))
        if prog in ("chrt", "taskset", "setarch", "faketime"):
            i += 1  # the priority, CPU mask, architecture or time
        sub = _sub(argv, dyn, 1 + i)
        found += [sub] if sub else []
    elif prog in ("watch",):
        rest = args[_skip_options(args, WATCH_VALUE_OPTS):]
        found += _commands_of(" ".join(rest), depth)
    elif prog == "find":
        found += _find_inner(argv)
    elif prog in ("fd", "fdfind"):
        found += _fd_inner(argv)
    out: list[SimpleCommand] = []
    for c in found:
        out.append(c)
        out += inner_commands(c, depth + 1)
    return out


class EnvSplit(NamedTuple):
    """How ``env`` reads its arguments."""

    assignments: list[str]
    """The ``NAME=value`` words it puts in the environment of the command it runs."""
    strings: list[str]
    """The ``-S``/``--split-string`` texts it runs as a command line."""
    start: int
    """Index (in the arguments) of the command it runs."""


ENV_VALUE_LETTERS = frozenset("uC")
"""Short options of ``env`` that take a value (glued to the letter or the next word)."""


def env_split(args: tuple[str, ...]) -> EnvSplit:
    """``env``'s arguments read as GNU env reads them: options (``-S`` also inside a bundle, ``-vS'…'``),
    then ``NAME=value`` words, then the command."""
    assignments: list[str] = []
    strings: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a.startswith("--") and not assignments:
            name, eq, value = a.partition("=")
            if "--split-string".startswith(name) and len(name) > 3:
                if eq:
                    strings.append(value)
                elif i + 1 < len(args):
                    strings.append(args[i + 1])
                    i += 1
            elif not eq and name in VALUE_OPTS["env"]:
                i += 1
            i += 1
        elif a.startswith("-") and a != "-" and not assignments:
            for k, letter in enumerate(a[1:], start=1):
                if letter == "S" or letter in ENV_VALUE_LETTERS:
                    rest = a[k + 1:]
                    if not rest and i + 1 < len(args):
                        rest = args[i + 1]
                        i += 1
                    if letter == "S":
                        strings.append(rest)
                    break
            i += 1
        elif "=" in a and not a.startswith("="):
            assignments.append(a)
            i += 1
        else:
            break
    return EnvSplit(assignments, strings, i)


#: Wrappers with a word of their own before the command (a duration, a priority, a CPU mask, a folder, a lock).
POSITIONALS = {"timeout": 1, "chrt": 1, "taskset": 1, "setarch": 1, "faketime": 1, "chroot": 1, "flock": 1, "sg": 1}


def wrapped_candidates(cmd: SimpleCommand) -> list[SimpleCommand]:
    """For a wrapper, every command it might run, read without knowing all of its options: a word after an
    option the tables do not know may be that option's value or the command, so both are read
    (``xargs --max-chars 100 rm -rf``, ``strace -e x rm -rf``).  Deny rules read these besides ``inner_commands``.
    What cannot be the command is not read: the value of a known option (``timeout -s kill``, ``sudo -u git``),
    the program's own arguments (``timeout 60 pytest -k curl``), a name looked up (``command -v``)."""
    prog, argv, dyn = cmd.program, cmd.argv, cmd.dynamic
    if prog not in CANDIDATE_WRAPPERS or (prog in ("command", "builtin") and any(a in ("-v", "-V") for a in argv[1:3])):
        return []
    known = VALUE_OPTS.get(prog, frozenset())
    spare = POSITIONALS.get(prog, 0)
    out: list[SimpleCommand] = []
    option: str | None = None  # the word before, when it is an option that may take the next word
    for i in range(1, len(argv)):
        a = argv[i]
        if a == "--":
            tail = _sub(argv, dyn, i + 1)
            out += [tail] if tail else []
            break
        if a.startswith("-") and a != "-":
            option = a if "=" not in a else None
            continue
        if option is not None and option in known:
            option = None
            continue  # that option's value
        tail = _sub(argv, dyn, i)
        out += [tail] if tail else []
        if option is not None:
            option = None  # an option the tables do not know: this word may be its value, so read on
            continue
        if spare:
            spare -= 1
            continue
        break
    return out


GIT_VALUE_OPTS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds"})
"""git's own options (before the subcommand) that take the next word as their value."""


def git_config_alias(cmd: SimpleCommand) -> str | None:
    """The ``-c alias.NAME=…`` (or ``--config-env``, or an ``include.path`` that can bring aliases in) a git
    command sets for itself, or None: the alias can run ``push`` or, with ``!``, any shell line, under a
    subcommand name no deny rule knows."""
    if cmd.program != "git":
        return None
    args = cmd.argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("-"):
            return None  # the subcommand: ``-c`` after it is the subcommand's own option
        if a in ("-c", "--config-env") and i + 1 < len(args):
            value, shown, i = args[i + 1], f"{a} {args[i + 1]}", i + 2
        elif a.startswith("-c") and len(a) > 2:
            value, shown, i = a[2:], a, i + 1
        elif a.startswith("--config-env="):
            value, shown, i = a.partition("=")[2], a, i + 1
        else:
            i += 2 if a in GIT_VALUE_OPTS else 1
            continue
        if value.strip().lower().startswith(("alias.", "include.", "includeif.")):
            return shown
    return None


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


#: fd's options whose value is a command: every word after them up to ``;`` (``fd -e py -x black``, ``-X``).
_FD_EXEC = ("-x", "--exec", "-X", "--exec-batch")


def _fd_inner(argv: tuple[str, ...]) -> list[SimpleCommand]:
    """The commands ``fd -x``/``-X`` run on what it finds (also ``--exec=cmd`` and a bundle ending in x,
    ``-Hx cmd``)."""
    out: list[SimpleCommand] = []
    i = 1
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=")
        bundle = a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[-1] in "xX" and a[1:].isalnum()
        if name in _FD_EXEC or bundle:
            j = i + 1
            while j < len(argv) and argv[j] != ";":
                j += 1
            words = ((value,) if eq and name.startswith("--") else ()) + argv[i + 1 : j]
            if words:
                out.append(SimpleCommand(words, tuple(False for _ in words)))
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
                    out[name] = tuple(rule_words(value)) if value.strip() else ()
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
    prog = interpreter(cmd.program) if cmd.argv else ""
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
