"""Reading a repository's tool configuration without trusting it.

The configuration checks of ``command_rules_toolcfg`` read files the repository wrote, on every verdict for a
command run on the host.  So a read is bounded (a size cap, a cap on folders listed), follows no link that
leaves the workspace, opens nothing but a regular file (a planted FIFO must not hang the verdict), and runs
nothing.  Whatever cannot be read for certain raises :class:`Unsure`: the caller asks the user rather than
guess that the file names no program.
"""

from __future__ import annotations

import configparser
import json
import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The largest configuration file read; a larger one is not guessed at.
MAX_BYTES = 256 * 1024
#: The most entries of one folder looked at, and the most folders a tree walk visits.
MAX_ENTRIES = 5000
MAX_FOLDERS = 10000
#: Folders a tree walk does not enter (tools skip them too, and they hold no configuration of the repository's).
SKIPPED = frozenset({".git", "node_modules", ".hg", ".svn"})


class Unsure(Exception):
    """A file or folder could not be read for certain; the message says why."""


@dataclass(frozen=True)
class Where:
    """Where a command runs: the workspace root and the working folders the line may use (resolved)."""

    root: Path
    """The workspace root, resolved."""
    cwds: tuple[Path, ...]
    """Every working folder the line may run a command in (the root, then each ``cd`` target inside it)."""

    def chain(self) -> list[Path]:
        """The root and each folder between it and a working folder: where tools look for their configuration."""
        out: dict[Path, None] = {self.root: None}
        for cwd in self.cwds:
            for part in reversed(cwd.relative_to(self.root).parents):
                out[self.root / part] = None
            out[cwd] = None
        return list(out)

    def rel(self, path: Path) -> str:
        """``path`` as the user reads it: relative to the workspace root."""
        try:
            return str(path.relative_to(self.root)) or "."
        except ValueError:
            return str(path)


def inside(root: Path, path: Path) -> bool:
    """``path`` (resolved) is the root or under it."""
    return path == root or root in path.parents


def exists(path: Path) -> bool:
    """Something is there, even a dangling link (a tool that finds it follows it)."""
    return os.path.lexists(path)


def listing(folder: Path) -> dict[str, bool]:
    """The names in ``folder``, each with whether it is a folder (not through a link); empty when there is no
    such folder."""
    out: dict[str, bool] = {}
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= MAX_ENTRIES:
                    raise Unsure(f"{folder.name or folder} holds too many entries to check")
                out[entry.name] = entry.is_dir(follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    except OSError as e:
        raise Unsure(f"{folder} cannot be listed: {e.strerror}") from e
    return out


def tree(top: Path) -> list[Path]:
    """Every folder under ``top`` (itself included, links not followed), :data:`SKIPPED` ones left out, at most
    :data:`MAX_FOLDERS`."""
    out: list[Path] = []
    todo = [top]
    while todo:
        folder = todo.pop()
        out.append(folder)
        if len(out) > MAX_FOLDERS:
            raise Unsure(f"{top} holds more than {MAX_FOLDERS} folders; naming the folders to check on the line "
                         "narrows it")
        todo += [folder / name for name, is_dir in listing(folder).items() if is_dir and name not in SKIPPED]
    return out


def text(root: Path, path: Path) -> str | None:
    """The file's text, or None when there is none; :class:`Unsure` when it is a link out of the workspace,
    not a regular file, larger than :data:`MAX_BYTES`, unreadable or not UTF-8."""
    if not exists(path):
        return None
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as e:
        raise Unsure("it is a link that cannot be followed") from e
    if not inside(root, real):
        raise Unsure("it is a link that leads out of the workspace")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None  # (a dangling link inside the workspace: the tool finds nothing either)
    except OSError as e:
        raise Unsure(f"it cannot be opened: {e.strerror}") from e
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise Unsure("it is not a regular file")
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise Unsure(f"it is larger than {MAX_BYTES // 1024} KB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Unsure("it is not UTF-8 text") from e


def load_toml(root: Path, path: Path) -> dict[str, Any] | None:
    """The file read as TOML (None when absent); :class:`Unsure` when it does not parse."""
    body = text(root, path)
    if body is None:
        return None
    try:
        return tomllib.loads(body)
    except tomllib.TOMLDecodeError as e:
        raise Unsure(f"it is not valid TOML: {e}") from e


def load_ini(root: Path, path: Path) -> configparser.ConfigParser | None:
    """The file read as an INI file, as Python tools read theirs (None when absent); :class:`Unsure` when it
    does not parse."""
    body = text(root, path)
    if body is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(body, source=str(path))
    except configparser.Error as e:
        raise Unsure(f"it is not a valid INI file: {e.__class__.__name__}") from e
    return parser


def load_json(root: Path, path: Path) -> tuple[Any, str] | None:
    """The file read as JSON, with its text (the value is None when it is not JSON: YAML, JSON5); None when
    absent."""
    body = text(root, path)
    if body is None:
        return None
    try:
        return json.loads(body), body
    except ValueError:
        return None, body


def table(value: Any, *keys: str) -> dict[str, Any]:
    """``value[k1][k2]…`` when each is a table, else an empty one."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def runs(tool: str, where: str, key: str) -> str:
    """The reason given when ``where`` (a file) makes ``tool`` run code through ``key``."""
    return (f"outside the sandbox, {tool} runs code that {where} names ({key}), as you, and an allow rule covers "
            "the command, not that")


def unsure(tool: str, where: str, why: str) -> str:
    """The reason given when ``where``, which ``tool`` reads, cannot be read for certain."""
    return (f"outside the sandbox, {tool} reads {where}, which agent-tui cannot read for certain ({why}), so it "
            "cannot tell what code that makes it run")
