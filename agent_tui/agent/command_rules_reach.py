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

#: Per program, the options that run a program or write a file the command names.  A long option also
#: matches its abbreviations (GNU getopt and git take any unambiguous prefix: ``--to-com``); a short one
#: matches with its value attached (``-ccore.pager=x``), and, for the programs in ``BUNDLING``, anywhere in a
#: bundle of short options (``tar -xIzstd``).
REACHING_OPTIONS: dict[str, tuple[str, ...]] = {
    "find": ("-fprint", "-fprint0", "-fprintf", "-fls", "-delete"),  # (-exec X: X needs a rule of its own)
    "rg": ("--pre", "--hostname-bin"),
    "sort": ("--compress-program",),
    "tar": ("--to-command", "-I", "--use-compress-program", "--checkpoint-action", "--info-script", "-F",
            "--new-volume-script", "--rsh-command"),
    "git": ("--ext-diff", "-c", "--config-env", "--output", "--exec-path", "--upload-pack", "--receive-pack",
            "--exec", "-x", "--extcmd", "-O", "--open-files-in-pager"),
    # ``make test --eval='x:=$(shell id)'`` (and ``-E``, make 4.4), another makefile, another directory
    "make": ("--eval", "-E", "--file", "-f", "--makefile", "-C", "--directory", "-I", "--include-dir"),
    # ``npm test --node-options=--import=data:…`` runs code in node; another shell, config, registry or prefix
    "npm": ("--node-options", "--script-shell", "--userconfig", "--globalconfig", "--registry", "--prefix"),
    # a plugin by module name, the session uploaded (``--pastebin``), another ini or ini value, another root; a
    # folder it empties first (``--basetemp=src`` deleted the workspace's own src/)
    "pytest": ("-p", "--pastebin", "-o", "--override-ini", "-c", "--config-file", "--rootdir", "--confcutdir",
               "--basetemp"),
    # the remote shell or the remote rsync is a program named here (``rsync -e 'sh -c id'``)
    "rsync": ("-e", "--rsh", "--rsync-path"),
    # the pager, the browser, or another config (which names programs)
    "man": ("-P", "--pager", "-H", "--html", "-C", "--config-file"),
}
#: make's command-line variables that change how every recipe runs, whatever their value.
MAKE_RUNNERS = frozenset({"SHELL", ".SHELLFLAGS", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEFILES", "MAKE"})
#: A make assignment operand that only sets a value: a plain name, ``=`` or ``:=``, and a value of one word
#: with nothing a shell or make reads as code (``VERBOSE=1``, ``DIR=build/x``).  Any other operand holding ``=``
#: can run code: make expands names too (``'$(shell id)=1'``), and a recipe pastes a value into a shell line
#: (``'PYTEST_ARGS=; touch x'``).
_MAKE_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*:{0,2}=[\w.,:+@%/=-]*")
#: Interpreters whose ``-m pytest`` runs pytest, and runners whose ``run X`` runs X.
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?|py")
_RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye"})
#: Programs whose single-letter options bundle (``-xIf``); tar's first argument is a bundle even without a dash.
BUNDLING = frozenset({"tar", "sort", "make", "pytest", "rsync", "man"})
#: Options of their own that an abbreviation check would take for one above (``tar --checkpoint=1``).
WHOLE_OPTIONS = frozenset({"--checkpoint"})
#: git's own options (before the subcommand), where ``-c`` sets configuration; after it, ``-c`` is the
#: subcommand's (``git grep -c``: count).  These take the next word as their value.
GIT_TOP_ONLY = ("-c", "--config-env", "--exec-path")
_GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_AWK = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
#: awk code that runs a command or writes a file: ``system()``, a pipe to or from a command, ``|&``, ``print >``.
_AWK_RUNS = re.compile(r"\bsystem\s*\(|\|\s*&|\|\s*getline|\|\s*[\"(]|\|\s*[A-Za-z_]|print[^;}]*>|@load")
#: awk options that load program text or extensions from files this check cannot read.
_AWK_FILES = ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load")
#: GNU sed's long options that take a value in the next word, by full name.
_SED_VALUED = ("--expression", "--file", "--line-length")


def reaching_option(program: str, args: tuple[str, ...], start: int = 0) -> str | None:
    """The first word of ``args`` (a command's arguments), from index ``start`` on (past what an allow prefix
    names), that runs a program or writes a file the command names, or None."""
    if program == "sed":
        return _sed_reach(args) if start < len(args) or not args else None
    if program in _AWK:
        return next((a for a in args[start:] if _AWK_RUNS.search(a) or _is_option(a, _AWK_FILES)), None)
    if program in _RUNNERS or _PYTHON.fullmatch(program) or program == "py.test":
        inner = _inner_program(program, args)
        if inner is None:
            return None
        name, skipped = inner
        return reaching_option(name, args[skipped:], max(0, start - skipped))
    if program in ("make", "gmake"):
        program = "make"
        assigned = next((a for a in args[start:] if _make_runs(a)), None)
        if assigned is not None:
            return assigned
    if program == "npm":
        return _npm_reach(args, start)
    options = REACHING_OPTIONS.get(program, ())
    sub = _git_subcommand(args) if program == "git" else len(args)  # (git's -c only before its subcommand)
    for n, a in enumerate(args):
        if a == "--":
            break
        if n < start:
            continue
        if program == "tar" and n == 0 and a and not a.startswith("-"):
            a = "-" + a  # old-style: ``tar tIf ./x a.tar``
        if program == "pytest" and a.startswith("@"):
            return a  # (``pytest @args.txt`` takes options from a file this check cannot read)
        if program == "pytest" and (a.startswith("-pno:") or (a == "-p" and args[n + 1:n + 2] and
                                                               args[n + 1].startswith("no:"))):
            continue  # (``-p no:cacheprovider`` only turns a plugin off)
        here = options if n < sub else tuple(o for o in options if o not in GIT_TOP_ONLY)
        if a.split("=", 1)[0] not in WHOLE_OPTIONS and _is_option(a, here, program in BUNDLING, program):
            return args[n]
    return None


def _make_runs(word: str) -> bool:
    """A make operand that sets a variable in a way that can run code: anything holding ``=`` that is not a
    plain assignment (:data:`_MAKE_PLAIN`), or one of :data:`MAKE_RUNNERS`."""
    if word.startswith("-") or "=" not in word:
        return False
    return _MAKE_PLAIN.fullmatch(word) is None or word.split("=", 1)[0].rstrip(":") in MAKE_RUNNERS


def _npm_reach(args: tuple[str, ...], start: int) -> str | None:
    """An npm option of :data:`REACHING_OPTIONS` as nopt reads it: any number of leading dashes, any number of
    ``no-`` prefixes, an abbreviation of three letters or more; a spelling left with no name (``--no-``,
    ``---``) is odd enough to ask about."""
    names = [o.lstrip("-") for o in REACHING_OPTIONS["npm"]]
    for n, word in enumerate(args):
        if word == "--":
            break
        if n < start or not word.startswith("-"):
            continue
        name = word.lstrip("-").split("=", 1)[0].lower()
        while name.startswith("no-"):
            name = name[3:]
        if not name:
            return word
        if len(word) - len(word.lstrip("-")) == 1 and len(name) == 1:
            continue  # (a one-letter flag: -g, -D)
        if any(o == name or (len(name) >= 3 and o.startswith(name)) for o in names):
            return word
    return None


def _inner_program(program: str, args: tuple[str, ...]) -> tuple[str, int] | None:
    """The program a ``python -m X``, ``py.test`` or ``uv run X`` line runs, and how many arguments come
    before that program's own; None when it is none of those."""
    if program == "py.test":
        return "pytest", 0
    if _PYTHON.fullmatch(program):
        return (args[1], 2) if len(args) > 1 and args[0] == "-m" else None
    if not args or args[0] != "run":
        return None
    n = 1
    while n < len(args) and args[n].startswith("-"):
        n += 1
    if n >= len(args):
        return None
    name = args[n].rsplit("/", 1)[-1]
    return name, n + 1


def git_subcommand(args: tuple[str, ...]) -> str:
    """git's subcommand in its arguments ('' when there is none)."""
    n = _git_subcommand(args)
    return args[n] if n < len(args) else ""


def _git_subcommand(args: tuple[str, ...]) -> int:
    """Where git's subcommand is in its arguments (their length when there is none)."""
    n = 0
    while n < len(args) and args[n].startswith("-"):
        n += 2 if args[n] in _GIT_VALUED else 1
    return min(n, len(args))


#: Per program whose bundles are read letter by letter, the short options that take a value: the rest of the
#: bundle is that value (``pytest -rfEp``: -r's "fEp"; ``make -j4``), not more options.
VALUE_LETTERS: dict[str, str] = {"pytest": "WnrkmopcfIlt", "make": "CEfIjloW", "rsync": "BfTM",
                                 "man": "MSeLmprERT"}
#: Programs that take no abbreviation of a long option (pytest's ``--co`` is its own, not ``--config-file``).
WHOLE_NAMES = frozenset({"pytest"})


def _is_option(word: str, options: tuple[str, ...], bundling: bool = False, program: str = "") -> bool:
    """``word`` is one of ``options``: a long one or its abbreviation (with or without ``=value``), a short one
    alone or with its value attached, or (``bundling``) a short one inside a bundle."""
    if word.startswith("--"):
        name = word.split("=", 1)[0]
        if program in WHOLE_NAMES:
            return name in options
        return len(name) > 3 and any(opt.startswith(name) for opt in options if opt.startswith("--"))
    if not word.startswith("-") or len(word) < 2:
        return False
    letters = {opt[1] for opt in options if len(opt) == 2 and not opt.startswith("--")}
    if word[1] in letters:
        return True
    if not (bundling and word[1:].isalnum()):
        return False
    valued = VALUE_LETTERS.get(program)
    for letter in word[1:]:
        if letter in letters:
            return True
        if valued is not None and letter in valued:
            return False  # (the rest is this option's value)
    return False


def _sed_reach(args: tuple[str, ...]) -> str | None:
    """A sed script (``-e``/``--expression`` values, else the first operand) that runs a command (``e``, an
    ``s///e``) or reads or writes a file it names (``w``, ``W``, ``r``, ``R``, ``s///w``), or a ``-f`` script
    file this check cannot read.  Options are read as GNU sed reads them: bundles (``-ne'1e x'``), values
    attached or in the next word (``-l 5``), long options abbreviated (``--exp=…``)."""
    scripts: list[str] = []
    given = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            if not given and i + 1 < len(args):
                scripts.append(args[i + 1])
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            full = next((o for o in _SED_VALUED if len(name) > 3 and o.startswith(name)), None)
            if full == "--file":
                return a
            if full is not None:
                if not eq:
                    value = args[i + 1] if i + 1 < len(args) else ""
                    i += 1
                if full == "--expression":
                    scripts.append(value)
                    given = True
        elif a.startswith("-") and len(a) > 1:
            for k, c in enumerate(a[1:], 1):
                if c == "f":
                    return a
                if c in "eli":  # the rest of the word, or the next word, is its value (i: a backup suffix)
                    value = a[k + 1:]
                    if not value and c != "i" and i + 1 < len(args):
                        value = args[i + 1]
                        i += 1
                    if c == "e":
                        scripts.append(value)
                        given = True
                    break
        elif not given:
            scripts.append(a)
            given = True
        i += 1
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
