"""A map of a file too large to read whole, so the model can ask for the right range.

Python gets a real outline from ``ast`` (classes, functions and methods with their line
spans); other files get their structural lines (markdown headings, ``function``/
``class``/``fn``/``func`` declarations...), and files with no visible structure get
their first lines plus a sample every Nth line.  Every entry carries its line number.
"""

from __future__ import annotations

import ast
import re

_DECL_RE = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:function|class|interface|type|def|fn|func|struct|enum|impl|trait|module|"
    r"namespace|package|object|record|protocol|extension)\s+[A-Za-z_$]"
)
_HEADING_RE = re.compile(r"^(#{1,6}\s+\S|={3,}\s*$|\[[^\]]+\]\s*$)")


def python_outline(text: str) -> list[str] | None:
    """``L12-40 class Foo`` entries (nested indented), or None if ``text`` does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: list[str] = []

    def visit(nodes: list[ast.stmt], depth: int) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                span = f"L{node.lineno}-{node.end_lineno or node.lineno}"
                if isinstance(node, ast.ClassDef):
                    head = f"class {node.name}"
                else:
                    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
                    head = f"{prefix} {node.name}({_args(node.args)})"
                out.append(f"{'  ' * depth}{span} {head}")
                visit(node.body, depth + 1)

    visit(tree.body, 0)
    return out


def _args(args: ast.arguments) -> str:
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append("*" + args.vararg.arg)
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append("**" + args.kwarg.arg)
    text = ", ".join(names)
    return text if len(text) <= 60 else text[:60] + "…"


def structural_outline(lines: list[str]) -> list[str]:
    """Headings and declarations as ``L12 text``."""
    out = []
    for i, line in enumerate(lines):
        if _HEADING_RE.match(line) or _DECL_RE.match(line):
            out.append(f"L{i + 1} {line.strip()[:120]}")
    return out


def sampled_outline(lines: list[str], first: int = 20, samples: int = 40) -> list[str]:
    """The first lines, then one line every N so the whole file is covered."""
    out = [f"L{i + 1} {line[:120]}" for i, line in enumerate(lines[:first])]
    rest = len(lines) - first
    if rest > 0:
        step = max(1, rest // samples)
        for i in range(first, len(lines), step):
            out.append(f"L{i + 1} {lines[i][:120]}")
    return out


def outline(path: str, text: str, lines: list[str]) -> tuple[str, list[str]]:
    """(kind of outline, entries) for a file."""
    if path.endswith((".py", ".pyi")):
        found = python_outline(text)
        if found:
            return "Python classes and functions", found
    found = structural_outline(lines)
    if 3 <= len(found) <= max(50, len(lines) // 4):  # more is not structure, it is content
        return "headings and declarations", found
    return "first lines, then every Nth line", sampled_outline(lines)
