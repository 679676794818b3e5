"""The path guard and safe text reading: tools never leave the workspace.

Every path a model names is resolved against the workspace root with symlinks
followed, and refused unless the result is still inside the root.  That single check
covers ``../`` escapes, absolute paths elsewhere and symlinks pointing out.  Only
regular files are opened (a FIFO would block forever, a device never ends).  Files are
read as bytes and decoded strictly as UTF-8: a binary or undecodable file is refused
with its size and type rather than poured into the context as mojibake.
"""

from __future__ import annotations

import difflib
import mimetypes
import os
import re
from pathlib import Path

from agent_tui.core.safe_files import UnsafeFileError, read_regular
from agent_tui.tools.base import ToolError
from agent_tui.tools.sandbox_guard import named_protected_reals
from agent_tui.tools.sandbox_hooks import run_later_paths
from agent_tui.tools.sandbox_managers import PROGRAM as MANAGER_PROGRAM
from agent_tui.tools.sandbox_nested import NestedLimitError
from agent_tui.tools.sandbox_placed import completes_a_repository

#: Directories no listing or search descends into.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".hypothesis",
        ".idea",
        ".DS_Store",
    }
)

#: The agent's own folder (store, config): never listed or searched, never written by tools.
AGENT_DIR = ".agent-tui"
#: Folders write tools refuse: git's config and hooks, the agent's store and config.
PROTECTED_DIRS = frozenset({".git", AGENT_DIR})

#: Bytes sniffed for NUL when deciding whether a file is binary.
SNIFF_BYTES = 8192

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "ELF executable"),
    (b"SQLite format 3", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
)


class WorkspaceError(ToolError):
    """A path or file the tools refuse to touch; the message is for the model."""


class BinaryFileError(WorkspaceError):
    """The file is not UTF-8 text."""


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""Characters a workspace path may not hold: C0/C1 controls and the Unicode line and paragraph separators."""


def resolve(workspace: Path, path: str) -> Path:
    """The absolute, symlink-resolved path for ``path`` (relative to ``workspace``).

    Raises WorkspaceError when the result lies outside the workspace.
    """
    root = workspace.resolve()
    raw = (path or ".").strip() or "."
    odd = next((ch for ch in raw if _CONTROL.match(ch)), None)
    if odd is not None:
        raise WorkspaceError(
            f"Refused: the path {raw[:120]!r} holds the control character {odd!r}; a path with a line break or "
            "another control character reads as something else in a preview or a terminal. Rename the file first."
        )
    given = Path(raw)
    candidate = given if given.is_absolute() else root / given
    resolved = candidate.resolve(strict=False)
    if resolved == root or resolved.is_relative_to(root):
        return resolved
    lexical = Path(os.path.normpath(candidate))
    if given.is_absolute() and not lexical.is_relative_to(root):
        raise WorkspaceError(
            f"Refused: '{raw}' is an absolute path outside the workspace ({root}). "
            "Use a path relative to the workspace root."
        )
    if lexical.is_relative_to(root):
        raise WorkspaceError(
            f"Refused: '{raw}' goes through a symlink that points outside the workspace "
            f"(it resolves to {resolved}). Only files inside {root} can be used."
        )
    raise WorkspaceError(
        f"Refused: '{raw}' escapes the workspace with '..' (it resolves to {resolved}). "
        "Use a path inside the workspace root."
    )


def refuse_protected(workspace: Path, target: Path) -> None:
    """WorkspaceError when ``target`` (resolved) lies in a ``.git`` or ``.agent-tui`` folder, in
    the hooks folder git uses or is a config file git includes (``tools/sandbox_hooks.py``).

    A write there would be command execution (``core.fsmonitor``, hooks) or a change
    to the next run's approvals, so no write tool may do it, approved or not.
    """
    root = workspace.resolve()
    try:
        parts = target.relative_to(root).parts
    except ValueError:
        return
    hit = next((p for p in parts if p.lower() in PROTECTED_DIRS), None)
    if hit is None:  # the real folder behind a `.git` link or `gitdir:` file counts as `.git`
        hit = next((name for name, real in named_protected_reals(root) if target.is_relative_to(real)), None)
    if hit is None:
        try:
            later = run_later_paths(root)
        except NestedLimitError as exc:
            raise WorkspaceError(
                f"Refused: this workspace nests more git repositories than the agent looks through, so it "
                f"cannot tell whether '{relative(workspace, target)}' is something git would run ({exc}). "
                "Ask the user to make this change, or open a smaller folder."
            ) from exc
        kind = next((k for p, k in later.items() if target.is_relative_to(p)), None)
        if kind is None and (repo := completes_a_repository(root, target)) is not None:
            raise WorkspaceError(
                f"Refused: writing '{relative(workspace, target)}' would make '{relative(workspace, repo)}' a git "
                "repository (HEAD, objects and refs), whose config git runs when anyone runs git there. Write "
                "tools never make one; ask the user if it is needed."
            )
        if kind in ("manager", MANAGER_PROGRAM):
            what = "read" if kind == "manager" else "named as a program to run"
            raise WorkspaceError(
                f"Refused: '{relative(workspace, target)}' is {what} by the git hook manager installed in this "
                "repository (pre-commit or lefthook), so the user's next commit would run what it says. Write "
                "tools never change it; ask the user to make this change themselves if it is needed."
            )
        if kind is not None:
            what = {"hooks": "in the hooks folder", "hook": "a hook file", "program": "a program",
                    "repo": "in a nested repository's git folder (a submodule, a worktree, a clone in a subfolder)",
                    "submodule": "in a submodule folder not checked out (a .git made there would be run)",
                    "shut": "in a folder made unreadable on the way to what git runs",
                    "hard link": "the same file (a hard link) as a hook, config file or program"}.get(
                        kind, "a config file")
            raise WorkspaceError(
                f"Refused: '{relative(workspace, target)}' is {what} git uses for this repository, so "
                "the user's next git command would run what it says. Write tools never change it; "
                "ask the user to make this change themselves if it is needed."
            )
        return
    why = (
        "git's config and hooks can run programs"
        if hit.lower() == ".git"
        else "it holds the agent's own store and configuration"
    )
    raise WorkspaceError(
        f"Refused: '{relative(workspace, target)}' is inside {hit}/, which write tools never "
        f"change ({why}). Ask the user to make this change themselves if it is needed."
    )


def relative(workspace: Path, path: Path) -> str:
    """``path`` (already resolved) as a workspace-relative POSIX path; ``.`` for the root."""
    rel = path.relative_to(workspace.resolve()).as_posix()
    return rel or "."


def describe_binary(data: bytes, path: Path) -> str:
    """A short type for binary ``data`` (magic bytes, then the extension)."""
    for magic, name in _MAGIC:
        if data.startswith(magic):
            return name
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "binary data"


def decode_text(data: bytes, path: Path, shown: str) -> str:
    """``data`` as text, or BinaryFileError naming the size and type."""
    if b"\x00" in data[:SNIFF_BYTES]:
        kind = describe_binary(data, path)
        raise BinaryFileError(
            f"'{shown}' is a binary file ({len(data):,} bytes, {kind}); its contents are not shown."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = describe_binary(data, path)
        if kind.startswith("text/"):
            kind = "probably text in a non-UTF-8 encoding"
        raise BinaryFileError(
            f"'{shown}' is not UTF-8 text ({len(data):,} bytes, {kind}; undecodable byte at "
            f"offset {exc.start}); its contents are not shown."
        ) from None


def missing_message(workspace: Path, path: Path, shown: str) -> str:
    """'No such file' with the closest names in the nearest existing folder."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    names: list[str] = []
    if parent.is_dir():
        try:
            names = [p.name for p in parent.iterdir()]
        except OSError:
            names = []
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.5)
    where = relative(workspace, parent) if parent.is_relative_to(workspace.resolve()) else "."
    hint = f" Similar names in '{where}': {', '.join(close)}." if close else ""
    return f"No such file: '{shown}'.{hint} Use list_dir or search to find files."


def read_text(workspace: Path, path: str) -> tuple[Path, str, str]:
    """Resolve, check and read ``path``: (absolute path, relative path, text).

    Raises WorkspaceError for escapes, missing files, directories and binary files.
    """
    target = resolve(workspace, path)
    rel = relative(workspace, target)
    if not target.exists():
        raise WorkspaceError(missing_message(workspace, target, path))
    if target.is_dir():
        raise WorkspaceError(f"'{rel}' is a directory; use list_dir to see its contents.")
    return target, rel, decode_text(read_file_bytes(target, rel), target, rel)


def read_file_bytes(target: Path, rel: str) -> bytes:
    """The bytes of a resolved workspace path, refused unless it is a regular file (never blocks)."""
    try:
        return read_regular(target, rel, exact=True)
    except UnsafeFileError as exc:
        raise WorkspaceError(f"Refused: {exc}") from None
    except OSError as exc:
        raise WorkspaceError(f"Cannot read '{rel}': {exc.strerror or exc}.") from None


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their endings (``\\n`` or ``\\r\\n``); no trailing empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def number_lines(lines: list[str], start: int, total: int | None = None) -> str:
    """``lines`` prefixed with right-aligned 1-based numbers starting at ``start``."""
    width = len(str(total if total is not None else start + len(lines)))
    return "\n".join(f"{start + i:>{width}}| {line}" for i, line in enumerate(lines))
