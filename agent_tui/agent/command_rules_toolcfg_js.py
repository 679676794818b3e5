"""JavaScript tools that run the repository's code when it asks them to.

ESLint, Prettier and Stylelint load their configuration as a module when it is JavaScript
(``eslint.config.js``, ``.prettierrc.cjs``), and import the ``plugins``, ``parser``, ``extends`` and
``customSyntax`` it names from ``node_modules``; each file they check takes the configuration of its own
folder, so a planted ``src/.eslintrc.js`` counts too.  ``npx eslint`` (``pnpm exec``, ``yarn``, ``bunx``)
runs ``node_modules/.bin/eslint`` when there is one: a program the repository's packages chose.  On the host
such a line is asked (``command_rules_toolcfg``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_tui.agent.command_rules_toolcfg_files import (
    Unsure,
    Where,
    exists,
    inside,
    listing,
    load_json,
    load_toml,
    runs,
    tree,
    unsure,
)

_JS = ("js", "cjs", "mjs", "ts", "cts", "mts")
#: Per tool: its configuration files that are code, those that are data, its ``package.json`` key, and the
#: settings that load code.
CONFIGS: dict[str, tuple[frozenset[str], tuple[str, ...], str, frozenset[str]]] = {
    "eslint": (frozenset([f"eslint.config.{e}" for e in _JS] + [f".eslintrc.{e}" for e in _JS]),
               (".eslintrc", ".eslintrc.json", ".eslintrc.yaml", ".eslintrc.yml"), "eslintConfig",
               frozenset({"plugins", "parser", "extends", "processor"})),
    "prettier": (frozenset([f".prettierrc.{e}" for e in _JS] + [f"prettier.config.{e}" for e in _JS]),
                 (".prettierrc", ".prettierrc.json", ".prettierrc.json5", ".prettierrc.yaml", ".prettierrc.yml",
                  ".prettierrc.toml"), "prettier", frozenset({"plugins", "parser"})),
    "stylelint": (frozenset([f".stylelintrc.{e}" for e in _JS] + [f"stylelint.config.{e}" for e in _JS]),
                  (".stylelintrc", ".stylelintrc.json", ".stylelintrc.yaml", ".stylelintrc.yml"), "stylelint",
                  frozenset({"plugins", "extends", "customSyntax", "processors"})),
}
#: A setting line in YAML or JSON5 text (what ``json`` cannot read): its name and the rest of the line.
_SETTING = re.compile(r"""^\s*-?\s*["']?([A-Za-z]+)["']?\s*:\s*(.*)$""")


def config_blockers(tool: str, args: tuple[str, ...], where: Where) -> list[str]:
    """The configuration files ``tool`` would load for the paths on the line that run code or load modules."""
    code, data, package_key, keys = CONFIGS[tool]
    why: list[str] = []
    try:
        folders = _folders(args, where)
    except Unsure as e:
        return [unsure(tool, "the configuration of every folder it checks", str(e))]
    for folder in folders:
        try:
            names = listing(folder)
        except Unsure as e:
            why.append(unsure(tool, where.rel(folder), str(e)))
            continue
        for name in sorted(n for n in names if n in code):
            why.append(runs(tool, where.rel(folder / name), "a configuration written in JavaScript"))
        for name in [n for n in (*data, "package.json") if n in names]:
            path = folder / name
            try:
                key = _data_key(where.root, path, tool, package_key, keys)
            except Unsure as e:
                why.append(unsure(tool, where.rel(path), str(e)))
                continue
            if key:
                why.append(runs(tool, where.rel(path), key))
    return why


def _folders(args: tuple[str, ...], where: Where) -> list[Path]:
    """Where ``tool`` looks for configuration: the folders from the root to each working folder, and for each
    folder on the line (or the working folder, when the line names none) every folder below it."""
    out: dict[Path, None] = dict.fromkeys(where.chain())
    named = False
    for cwd in where.cwds:
        for a in args:
            if a.startswith("-"):
                continue
            try:
                path = (cwd / a).resolve()
            except (OSError, RuntimeError):
                continue
            if not inside(where.root, path) or not exists(path):
                continue
            named = True
            top = path if path.is_dir() else path.parent
            out.update(dict.fromkeys(Where(where.root, (top,)).chain()))
            if path.is_dir():
                out.update(dict.fromkeys(tree(path)))
    if not named:
        for cwd in where.cwds:
            out.update(dict.fromkeys(tree(cwd)))
    return list(out)


def _data_key(root: Path, path: Path, tool: str, package_key: str, keys: frozenset[str]) -> str | None:
    """The setting of a data configuration (JSON, YAML, TOML, or ``package.json``'s key) that loads code."""
    if path.name.endswith(".toml"):
        doc: Any = load_toml(root, path)
        body = None
    else:
        read = load_json(root, path)
        if read is None:
            return None
        doc, body = read
    if path.name == "package.json":
        if not isinstance(doc, dict):
            return None  # (not package.json the tools can read either)
        if package_key not in doc:
            return None
        doc = doc[package_key]
        if isinstance(doc, str):
            return f"{package_key}: a shared configuration module"
    if doc is None and body is not None:
        return _text_key(body, tool, keys)
    if isinstance(doc, str):
        return "a shared configuration module"
    return _found(doc, tool, keys, package_key if path.name == "package.json" else "")


def _found(value: Any, tool: str, keys: frozenset[str], at: str) -> str | None:
    """The first setting of ``keys`` at any depth (``overrides`` too) whose value loads code."""
    if isinstance(value, list):
        return next((f for n, v in enumerate(value) if (f := _found(v, tool, keys, f"{at}[{n}]"))), None)
    if not isinstance(value, dict):
        return None
    for k, v in value.items():
        here = f"{at}.{k}" if at else str(k)
        if k in keys and _loads(tool, k, v):
            return here
        if (f := _found(v, tool, keys, here)) is not None:
            return f
    return None


def _loads(tool: str, key: str, value: Any) -> bool:
    """A setting's value that loads a module: any plugin, a parser (Prettier's own parsers are plain names),
    any ``extends`` but ESLint's built-in ``eslint:recommended``/``eslint:all``."""
    if not value:
        return False
    if tool == "prettier" and key == "parser":
        return not (isinstance(value, str) and re.fullmatch(r"[a-z0-9-]+", value))
    if tool == "eslint" and key == "extends":
        values = value if isinstance(value, list) else [value]
        return not all(isinstance(v, str) and v.startswith("eslint:") for v in values)
    return True


def _text_key(body: str, tool: str, keys: frozenset[str]) -> str | None:
    """A code-loading setting in YAML or JSON5 text, read line by line (a value on the lines below counts as
    loading; a file that is a lone name is a shared configuration module)."""
    lines = body.splitlines()
    meaningful = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith(("#", "//"))]
    if len(meaningful) == 1 and ":" not in meaningful[0]:
        return "a shared configuration module"
    for n, line in enumerate(lines):
        m = _SETTING.match(line)
        if not m or m.group(1) not in keys:
            continue
        rest = m.group(2).split("#", 1)[0].strip().strip(",")
        if not rest:  # a list on the lines below
            items = []
            for below in lines[n + 1:]:
                if not below.strip().startswith("-"):
                    break
                items.append(below.strip()[1:].strip())
            rest = ",".join(items)
            after = next((ln for ln in lines[n + 1:] if ln.strip()), "")
            if not items and len(after) - len(after.lstrip()) > len(line) - len(line.lstrip()):
                return m.group(1)  # (a mapping below: not read, so counted)
        values = [v.strip().strip("\"'") for v in rest.strip("[]").split(",") if v.strip()]
        if values and _loads(tool, m.group(1), values if m.group(1) != "parser" else values[0]):
            return m.group(1)
        if not values and m.group(2).strip() not in ("[]", "{}", "", "null", "~"):
            return m.group(1)
    return None


def bin_blockers(runner: str, program: str, where: Where) -> list[str]:
    """``node_modules/.bin/PROGRAM`` that a package runner (``npx``, ``pnpm exec``, ``yarn``, ``bunx``) runs."""
    name = re.sub(r"(?<=.)@[^/]*$", "", program).rsplit("/", 1)[-1]
    if not name or name.startswith("."):
        return []
    why: list[str] = []
    for folder in where.chain():
        path = folder / "node_modules" / ".bin" / name
        if exists(path):
            why.append(f"outside the sandbox, `{runner} {program}` runs {where.rel(path)}, a program the "
                       "repository's installed packages chose, as you, and an allow rule covers the command, "
                       "not that")
    return why[-1:]
