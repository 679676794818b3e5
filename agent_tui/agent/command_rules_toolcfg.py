"""What a host-run tool would run of the repository's because its configuration says so.

``cargo --version``, ``mypy .``, ``eslint .`` and ``python3 -m json.tool`` read like looks, but each runs what the
repository chooses: a toolchain ``path`` in ``rust-toolchain.toml``, a ``build.rustc-wrapper`` in
``.cargo/config.toml``, a mypy plugin, a JavaScript ESLint configuration, a planted ``json/__init__.py`` ahead of
the standard library, ``node_modules/.bin/eslint`` under ``npx``.  In the sandbox that runs confined; on the host
(no bubblewrap, or a command run outside the sandbox) it runs as the user.  An allow rule is the user's say
about the tool, not about what the repository makes it run, so, as ``command_rules_git`` does for git, such a
host-run line is asked and the dialog names the file and the setting.  Options on the line that load code or
another configuration (``pylint --init-hook``, ``eslint -c``, ``cargo --config``) are asked on the host too.

The tools' own rules are in ``command_rules_toolcfg_rust``, ``_py`` and ``_js``; the bounded, link-aware file
reading in ``_files``.  Nothing here runs a program.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from agent_tui.agent.command_rules_toolcfg_files import Where, inside
from agent_tui.agent.command_rules_toolcfg_js import CONFIGS, bin_blockers, config_blockers
from agent_tui.agent.command_rules_toolcfg_py import (
    LINTER_FILES,
    linter_blockers,
    module_blockers,
    python_module,
)
from agent_tui.agent.command_rules_toolcfg_rust import RUST_PROXIES, rust_blockers
from agent_tui.agent.command_rules_toolcfg_yarn import yarn_blockers
from agent_tui.agent.command_rules_unwrap import all_layers, interpreter
from agent_tui.tools.cmdparse import ParsedCommand, SimpleCommand


class Run(NamedTuple):
    """One program the line runs, named or through a runner (``uv run mypy``, ``npx eslint``, ``python -m X``)."""

    program: str
    """The program's name (for ``python -m X``: X's top package)."""
    args: tuple[str, ...]
    """Its arguments."""
    via: str = ""
    """The package runner that finds it in ``node_modules/.bin`` (``npx``, ``pnpm exec``…), if any."""


#: Python project runners whose ``run X`` runs X; tool runners whose first operand is the tool.
PY_RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye"})
#: Per node package manager, its own subcommands (any other first word is a script or a program it looks up).
NODE_COMMANDS: dict[str, frozenset[str]] = {
    "pnpm": frozenset("add install i update up remove rm uninstall link ln unlink import rebuild rb prune fetch "
                      "patch patch-commit audit list ls outdated why licenses run test t start create publish pack "
                      "store root bin setup init deploy doctor config c env server recursive m help dedupe "
                      "install-test it restart stop".split()),
    "yarn": frozenset("add audit autoclean bin cache check config create dedupe dlx explain generate-lock-entry "
                      "global help import info init install licenses link list login logout node npm outdated owner "
                      "pack patch plugin policies publish rebuild remove set tag team unlink unplug up upgrade "
                      "upgrade-interactive version versions why workspace workspaces constraints search stage "
                      "sdks test start".split()),
    "bun": frozenset("install i add a remove rm update link unlink pm build test init create upgrade repl outdated "
                     "publish patch audit info why completions".split()),
}
#: Runner options that take the next word (so it is not the program).
RUNNER_VALUE_OPTS = frozenset({
    "-p", "--package", "-w", "--workspace", "--cwd", "-C", "--dir", "--filter", "-F", "--from", "--with",
    "--python", "--directory", "--project", "--with-requirements", "--env-file", "--extra", "--group", "--index",
    "--index-url", "--spec",
})
#: Options that run the program in another folder (``env -C``, ``uv run --directory``, ``pnpm -C``, ``yarn --cwd``).
DIR_OPTS = frozenset({"-C", "--chdir", "--directory", "--cwd", "--dir", "--project", "--prefix"})
#: Per tool, the options on the line that load code, or another configuration this check does not read.
LINE_OPTIONS: dict[str, tuple[str, ...]] = {
    "pylint": ("--init-hook", "--load-plugins", "--rcfile"),
    "mypy": ("--config-file", "--python-executable"),
    "dmypy": ("--config-file", "--python-executable"),
    "flake8": ("--config", "--append-config"),
    "coverage": ("--rcfile",),
    "eslint": ("-c", "--config", "--plugin", "--rulesdir", "--parser", "--resolve-plugins-relative-to", "-f",
               "--format"),
    "prettier": ("--plugin", "--config"),
    "stylelint": ("-c", "--config", "--custom-syntax", "--custom-formatter", "--config-basedir"),
    "cargo": ("--config", "-Z"),
}
#: ESLint's own formatters: ``-f json`` loads nothing of the repository's.
ESLINT_FORMATS = frozenset({"stylish", "json", "json-with-metadata", "html", "compact", "unix", "tap", "junit",
                            "checkstyle", "visualstudio", "jslint-xml"})
MAX_FOLDERS = 16


def tool_config_blockers(parsed: ParsedCommand, workspace: Path | None) -> list[str]:
    """Why a host-run line may not be auto-approved because a tool it runs would run what the repository's
    configuration names (empty when it runs none of these tools, or they would run nothing of the repository's)."""
    if workspace is None:
        return []
    layers = all_layers(parsed)
    runs = list(dict.fromkeys(r for c in layers if c.argv for r in _expand(Run(c.program, c.argv[1:]), 0)))
    checked = [r for r in runs if r.via or r.program in RUST_PROXIES or r.program in LINTER_FILES or r.program == "yarn"
               or r.program in CONFIGS or interpreter(r.program) == "python" or r.program in LINE_OPTIONS]
    if not checked:
        return []
    root = workspace.resolve()
    where = Where(root, working_folders(layers, root))
    why: list[str] = []
    for run in checked:
        why += line_option_blockers(run) + _checks(run, where)
    return list(dict.fromkeys(why))


def _checks(run: Run, where: Where) -> list[str]:
    prog = run.program
    why: list[str] = []
    if prog in RUST_PROXIES:
        why += rust_blockers(prog, where)
    if interpreter(prog) == "python":
        why += module_blockers(run.args, where)
    if prog in LINTER_FILES:
        why += linter_blockers(prog, where)
    if prog in CONFIGS:
        why += config_blockers(prog, run.args, where)
    if prog == "yarn":
        why += yarn_blockers(where)
    if run.via:
        why += bin_blockers(run.via, prog, where)
    return why


def _expand(run: Run, depth: int) -> list[Run]:
    inner = _inner(run) if depth < 4 else None
    return [run] + (_expand(inner, depth + 1) if inner is not None else [])


def _skip(args: tuple[str, ...], i: int) -> int:
    """Index of the first word from ``i`` on that is not a runner option (nor an option's value)."""
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "--":
            return i + 1
        i += 2 if args[i] in RUNNER_VALUE_OPTS else 1
    return i


def _named(args: tuple[str, ...], i: int, via: str = "") -> Run | None:
    return Run(Path(args[i]).name, args[i + 1:], via) if i < len(args) else None


def _inner(run: Run) -> Run | None:
    """The program a runner or ``python -m`` runs on the line's behalf, or None."""
    prog, args = run.program, run.args
    if interpreter(prog) == "python":
        found = python_module(args)
        return Run(found[0].split(".")[0], found[1]) if found else None
    if (prog in PY_RUNNERS and args[:1] == ("run",)) or (prog == "uv" and args[:2] == ("tool", "run")):
        start = 2 if args[0] == "tool" else 1
        i = _skip(args, start)
        if prog == "uv" and start == 1 and any(a in ("-m", "--module") for a in args[start:i]):
            return Run("python", ("-m", *args[i:])) if i < len(args) else None
        return _named(args, i)
    if prog == "uvx" or (prog == "pipx" and args[:1] == ("run",)):
        return _named(args, _skip(args, 1 if prog == "pipx" else 0))
    if prog == "rustup" and args[:1] == ("run",):
        return _named(args, _skip(args, 1) + 1)
    if prog in ("npx", "bunx"):
        i = _skip(args, 0)
        return None if any(a in ("-c", "--call") for a in args[:i]) else _named(args, i, prog)
    if prog == "npm" and args[:1] in (("exec",), ("x",)):
        i = _skip(args, 1)
        return None if any(a in ("-c", "--call") for a in args[:i]) else _named(args, i, "npm exec")
    if prog in NODE_COMMANDS:
        i = _skip(args, 0)
        sub = args[i] if i < len(args) else ""
        if sub in ("exec", "run", "x"):
            return _named(args, _skip(args, i + 1), f"{prog} {sub}")
        if sub == "dlx":  # (downloads the package: no local program, but its configuration still applies)
            return _named(args, _skip(args, i + 1))
        if sub and sub not in NODE_COMMANDS[prog]:
            return _named(args, i, prog)
    return None


def working_folders(layers: list[SimpleCommand], root: Path) -> tuple[Path, ...]:
    """The folders inside the workspace the line may run a command in: the root (where commands start), each
    ``cd``/``pushd`` target (also one after another), and a folder an option names (``env -C``, ``--cwd``)."""
    found: dict[Path, None] = {root: None}
    here = root
    for c in layers:
        words = [w for w, dyn in zip(c.argv, c.dynamic, strict=False) if not dyn]
        targets: list[Path] = []
        if c.program in ("cd", "pushd"):
            operands = [w for w in words[1:] if not w.startswith("-")]
            if operands:
                here = _folder(here, operands[0])
                targets += [here, _folder(root, operands[0])]
        for i, word in enumerate(words[1:], start=1):
            name, eq, value = word.partition("=")
            if name in DIR_OPTS:
                value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
                targets += [_folder(root, value)] if value else []
        for t in targets:
            if inside(root, t) and t.is_dir() and len(found) < MAX_FOLDERS:
                found[t] = None
    return tuple(found)


def _folder(base: Path, word: str) -> Path:
    try:
        return (base / word).resolve()
    except (OSError, RuntimeError, ValueError):
        return base


def line_option_blockers(run: Run) -> list[str]:
    """An option on the line that makes the tool load code or another configuration."""
    options = LINE_OPTIONS.get(run.program, ())
    for n, a in enumerate(run.args):
        if a == "--":
            break
        name, eq, value = a.partition("=")
        short = next((o for o in options if len(o) == 2 and a.startswith(o) and not a.startswith("--")), None)
        if name not in options and short is None:
            continue
        if run.program == "eslint" and (short or name) in ("-f", "--format"):
            value = value if eq else a[2:] if short and len(a) > 2 else \
                run.args[n + 1] if n + 1 < len(run.args) else ""
            if value in ESLINT_FORMATS:
                continue
        return [f"outside the sandbox, `{run.program} {a}` makes {run.program} load code or a configuration the "
                "line chooses, as you, and an allow rule for the command does not cover that"]
    return []
