"""Options that make an allowed program run another program or write a file it names.

An allow rule is an argv prefix, and the programs users allow as "read-only" are not all read-only:
``find . -exec id \\;``, ``sed -n '1e id'``, ``rg --pre=./x``, ``sort --compress-program=./x``,
``tar -tf a --to-command=./x``, ``git -c core.pager=./x log`` or ``git diff --ext-diff`` (the
repository's ``diff.external``) run a program the repository or the model chose, and ``sed 'w f'``,
``find -fprint f`` write anywhere.  Inside the sandbox that is confined; outside it (no bubblewrap,
or an ``allow_outside_commands`` rule) it is code run on the host with no one asked.  So a prefix
covers such a line only when the prefix itself names the option, as Claude Code's and Codex's
read-only command lists do.  (Wrapped commands — ``xargs X``, ``find -exec X`` — must also be covered
by a rule of their own: ``command_rules.uncovered``.)
"""

from __future__ import annotations

import re

#: Per program, the options that run a program or write a file the command names.
REACHING_OPTIONS: dict[str, tuple[str, ...]] = {
    "find": ("-fprint", "-fprint0", "-fprintf", "-fls", "-delete"),  # (-exec X: X needs a rule of its own)
    "rg": ("--pre",),
    "sort": ("--compress-program",),
    "tar": ("--to-command", "-I", "--use-compress-program", "--checkpoint-action", "--info-script", "-F",
            "--new-volume-script", "--rsh-command"),
    "git": ("--ext-diff", "-c", "--config-env", "--output", "--exec-path", "--upload-pack", "--receive-pack",
            "--exec"),
}
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
#: awk code that runs a command: ``system()``, a pipe to or from a command, ``|&``.
_AWK_RUNS = re.compile(r"\bsystem\s*\(|\|\s*&|\|\s*getline|\|\s*\"|\|\s*[A-Za-z_]|print[^;}]*>")


def reaching_option(program: str, args: tuple[str, ...]) -> str | None:
    """The first word of ``args`` (a command's arguments past an allow prefix) that runs a program or
    writes a file the command names, or None."""
    if program == "sed":
        return _sed_reach(args)
    if program in _AWK:
        return next((a for a in args if _AWK_RUNS.search(a)), None)
    options = REACHING_OPTIONS.get(program, ())
    for a in args:
        if a == "--":
            break
        for opt in options:
            if a == opt or (opt.startswith("--") and a.startswith(opt + "=")):
                return a
            if len(opt) == 2 and a.startswith("-") and not a.startswith("--") and opt[1] in a[1:]:
                return a  # a short option, alone, bundled or with its value attached
    return None


def _sed_reach(args: tuple[str, ...]) -> str | None:
    """A sed script (``-e``/``--expression`` values, else the first operand) that runs a command (``e``, an
    ``s///e``) or reads or writes a file it names (``w``, ``W``, ``r``, ``R``, ``s///w``), or a ``-f`` script
    file this check cannot read."""
    scripts: list[str] = []
    given = False
    it = iter(range(len(args)))
    for i in it:
        a = args[i]
        if a in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            given = True
            next(it, None)
        elif a.startswith("--expression="):
            scripts.append(a.split("=", 1)[1])
            given = True
        elif a in ("-f", "--file") or a.startswith("--file="):
            return a
        elif a.startswith("-e") and len(a) > 2 and not a.startswith("--"):
            scripts.append(a[2:])
            given = True
        elif not a.startswith("-") and not given:
            scripts.append(a)
            given = True
    return next((s for s in scripts if _sed_script_reaches(s)), None)


def _sed_script_reaches(script: str) -> bool:
    """True when ``script`` has an ``e``/``w``/``W``/``r``/``R`` command or an ``s`` command with an ``e``
    or ``w`` flag.  Regex addresses and ``s``/``y`` bodies are skipped by their delimiters."""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;{}!0123456789,$~+":
            i += 1
        elif c in "/\\":
            i = _skip_delimited(script, i + 1 if c == "/" else i + 2, "/" if c == "/" else script[i + 1:i + 2])
        elif c in "sy" and i + 1 < n:
            delim = script[i + 1]
            i = _skip_delimited(script, i + 2, delim)
            i = _skip_delimited(script, i, delim)
            flags = re.match(r"[^;\n}]*", script[i:])
            if c == "s" and flags and re.search(r"[ew]", flags.group(0)):
                return True
            i += len(flags.group(0)) if flags else 0
        elif c in "ewWrR":
            return True
        elif c in "aic":  # text to the end of the line
            j = script.find("\n", i)
            i = n if j < 0 else j + 1
        elif c in ":bt" or c in "TvlqQ":
            j = min((k for k in (script.find(";", i), script.find("\n", i)) if k >= 0), default=n)
            i = j + 1
        else:
            i += 1
    return False


def _skip_delimited(script: str, i: int, delim: str) -> int:
    """The index just past the next unescaped ``delim`` from ``i`` (the end when there is none)."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delim:
            return i + 1
        i += 1
    return len(script)
