"""Python tools that run the repository's code when it asks them to: ``python -m`` and configurable linters.

``python -m X`` puts the working folder first on the import path, ahead of the standard library and the
installed packages: a planted ``json/__init__.py`` makes ``python3 -m json.tool`` run it, and a planted
``argparse.py`` runs under any module that imports argparse.  Linters load what their configuration names:
pylint's ``init-hook`` is Python code and its ``load-plugins`` modules are imported, mypy imports ``plugins``
and runs ``python_executable``, flake8 imports ``[flake8:local-plugins]``, coverage imports ``plugins``.  An
allow rule for ``mypy .`` is the user's say about mypy, not about the plugin a repository names, so on the
host such a line is asked (``command_rules_toolcfg``).
"""

from __future__ import annotations

import _imp
import sys
from pathlib import Path
from typing import Any

from agent_tui.agent.command_rules_toolcfg_files import (
    Unsure,
    Where,
    exists,
    listing,
    load_ini,
    load_toml,
    runs,
    table,
    unsure,
)

#: Standard-library modules a file in the working folder can stand in for: not built in, not frozen (those are
#: found before the import path is searched) and not ones that tools never import (``test`` is a common folder).
SHADOWABLE = frozenset(
    n for n in sys.stdlib_module_names
    if n not in sys.builtin_module_names and not _imp.is_frozen(n)
    and n not in {"test", "idlelib", "turtledemo", "this", "antigravity", "__phello__"})
#: Per linter, the files it reads its configuration from, in each folder it looks in.
LINTER_FILES: dict[str, tuple[str, ...]] = {
    "pylint": ("pylintrc", ".pylintrc", "pylintrc.toml", ".pylintrc.toml", "pyproject.toml", "setup.cfg", "tox.ini"),
    "mypy": ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"),
    "flake8": (".flake8", "setup.cfg", "tox.ini"),
    "coverage": (".coveragerc", "setup.cfg", "tox.ini", "pyproject.toml"),
}
LINTER_FILES["dmypy"] = LINTER_FILES["mypy"]
#: Per linter, the settings (``-`` for ``_``) that make it import or run code; flake8's is a whole section.
CODE_KEYS: dict[str, frozenset[str]] = {
    "pylint": frozenset({"init-hook", "load-plugins", "extension-pkg-allow-list", "extension-pkg-whitelist",
                         "unsafe-load-any-extension", "output-format"}),
    "mypy": frozenset({"plugins", "python-executable"}),
    "coverage": frozenset({"plugins"}),
    "flake8": frozenset(),
}
CODE_KEYS["dmypy"] = CODE_KEYS["mypy"]


def python_module(args: tuple[str, ...]) -> tuple[str, tuple[str, ...], bool] | None:
    """For ``python ARGS``: the module ``-m`` runs, its own arguments, and whether the working folder leads the
    import path (not with ``-I`` or ``-P``); None when the line runs no module (a script, ``-c``)."""
    isolated = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or a == "-" or not a.startswith("-"):
            return None
        if a.startswith("--"):
            i += 2 if a == "--check-hash-based-pycs" else 1
            continue
        for k, letter in enumerate(a[1:], start=1):
            isolated = isolated or letter in "IP"
            if letter in "XWmc":
                glued = a[k + 1:]
                value = glued or (args[i + 1] if i + 1 < len(args) else "")
                i += 0 if glued else 1
                if letter == "c":
                    return None
                if letter == "m":
                    return (value, args[i + 1:], not isolated) if value else None
                break
        i += 1
    return None


def module_blockers(args: tuple[str, ...], where: Where) -> list[str]:
    """Files in the working folder that ``python -m X`` would import instead of X or a standard module."""
    found = python_module(args)
    if found is None or not found[2]:
        return []
    module = found[0]
    tool = f"`python -m {module}`"
    why: list[str] = []
    for cwd in where.cwds:
        try:
            hits = [name for name, is_dir in listing(cwd).items() if _shadows(cwd / name, name, is_dir, module)]
        except Unsure as e:
            why.append(unsure(tool, where.rel(cwd), str(e)))
            continue
        if hits:
            shown = ", ".join(where.rel(cwd / h) + "/" * (cwd / h).is_dir() for h in sorted(hits)[:3])
            why.append(f"outside the sandbox, {tool} puts its working folder first on Python's import path, so "
                       f"{shown} there would be imported instead of the installed or standard module, running the "
                       "repository's code as you, and an allow rule covers the command, not that")
    return why


def _shadows(path: Path, name: str, is_dir: bool, module: str) -> bool:
    """``name`` in the working folder is what Python imports for ``module``'s top package or a standard one."""
    if name.endswith((".py", ".pyc")):
        stem = name.rsplit(".", 1)[0]
    elif name.endswith(".so"):
        stem = name.split(".", 1)[0]
    elif "." not in name and (is_dir or path.is_dir()):
        stem = name
    else:
        return False
    if stem != module.partition(".")[0] and stem not in SHADOWABLE:
        return False
    if name.endswith((".py", ".pyc", ".so")):
        return True
    # a folder without ``__init__`` is a namespace portion: an installed package of that name still wins
    return exists(path / "__init__.py") or exists(path / "__init__.pyc") or any(
        n.startswith("__init__.") and n.endswith(".so") for n in listing(path))


def linter_blockers(tool: str, where: Where) -> list[str]:
    """The settings in ``tool``'s configuration files (in the workspace, up to the working folder) that make it
    import or run code."""
    why: list[str] = []
    for folder in where.chain():
        for name in LINTER_FILES[tool]:
            path = folder / name
            try:
                keys = _toml_keys(tool, where, path) if name.endswith(".toml") else _ini_keys(tool, where, path)
            except Unsure as e:
                why.append(unsure(tool, where.rel(path), str(e)))
                continue
            why += [runs(tool, where.rel(path), key) for key in keys[:1]]
    return why


def _toml_keys(tool: str, where: Where, path: Path) -> list[str]:
    doc = load_toml(where.root, path)
    if doc is None:
        return []
    sub = "coverage" if tool == "coverage" else "mypy" if tool == "dmypy" else tool
    found: list[str] = []
    _walk(table(doc, "tool", sub), f"tool.{sub}", CODE_KEYS[tool], found)
    return found


def _walk(value: Any, at: str, keys: frozenset[str], found: list[str]) -> None:
    """Every setting of ``keys`` with a value that runs something, at any depth (mypy's ``overrides``)."""
    if isinstance(value, list):
        for n, item in enumerate(value):
            _walk(item, f"{at}[{n}]", keys, found)
    elif isinstance(value, dict):
        for k, v in value.items():
            if str(k).lower().replace("_", "-") in keys and _loads(str(k), v):
                found.append(f"{at}.{k}")
            else:
                _walk(v, f"{at}.{k}", keys, found)


def _loads(key: str, value: Any) -> bool:
    """The setting's value makes the tool load something (pylint's ``output-format`` only when it names a class
    by module, ``json``/``text`` are its own)."""
    if isinstance(value, str) and key.lower().replace("_", "-") == "output-format":
        return "." in value
    if isinstance(value, list) and key.lower().replace("_", "-") == "output-format":
        return any("." in str(v) for v in value)
    if isinstance(value, str):
        return bool(value.strip()) and value.strip().lower() not in ("false", "no", "off", "0", "n")
    return bool(value)


def _ini_keys(tool: str, where: Where, path: Path) -> list[str]:
    ini = load_ini(where.root, path)
    if ini is None:
        return []
    found: list[str] = []
    for section in ini.sections():
        if not _section_of(tool, path.name, section.lower()):
            continue
        items = ini.items(section, raw=True)  # (``[DEFAULT]`` values included: the tools read them there too)
        if tool == "flake8" and items:
            found.append(f"[{section}]")
        found += [f"[{section}] {k}" for k, v in items if k.replace("_", "-") in CODE_KEYS[tool] and _loads(k, v)]
    return found


def _section_of(tool: str, file: str, section: str) -> bool:
    """``section`` of ``file`` is one ``tool`` reads the code-loading settings from."""
    if tool == "pylint":
        return file in ("pylintrc", ".pylintrc") or section.startswith("pylint")
    if tool in ("mypy", "dmypy"):
        return section == "mypy" or section.startswith("mypy-")
    if tool == "flake8":
        return section == "flake8:local-plugins"
    return section == ("run" if file == ".coveragerc" else "coverage:run")
