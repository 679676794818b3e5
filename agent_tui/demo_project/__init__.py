"""The sample project the offline demo works on (copied to a scratch folder first)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

SAMPLE = Path(__file__).parent / "sample"


class DemoWorkspaceError(ValueError):
    """``--demo --workspace DIR`` named a folder holding files of its own."""


def _copies_path() -> Path:
    """``<user config dir>/agent-tui/demo-copies.json``: the folders this user's demos copied the sample to
    (kept outside any workspace: a marker inside one, a repository could ship)."""
    from agent_tui.core.config import user_config_path

    return user_config_path().with_name("demo-copies.json")


def _copies() -> list[str]:
    try:
        data = json.loads(_copies_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(p) for p in data] if isinstance(data, list) else []


def _remember(dest: Path) -> None:
    path = _copies_path()
    known = [p for p in _copies() if Path(p).exists()][-199:] + [str(dest.resolve())]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".demo-copies.")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(known, fh)
        os.replace(tmp, path)
    except OSError:
        pass  # not remembered: the next demo in this folder is refused, never run on a folder it did not make


def make_demo_workspace(target: Path | None = None) -> Path:
    """Copy the sample project into ``target`` (or a new temp folder) and return it.

    The demo approves its own scripted edits and runs the sample's tests, so it only ever works on a
    copy of the sample: ``target`` must be new, empty, or a copy this user's demo made before.  Any
    other folder is refused — copying over it would replace its files, and its own tests would run
    unasked."""
    dest = target or Path(tempfile.mkdtemp(prefix="agent-tui-demo-")) / "inventory-app"
    if dest.exists() and not dest.is_symlink() and str(dest.resolve()) in _copies():
        return dest
    if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
        raise DemoWorkspaceError(f"--demo works on a copy of its sample project, and {dest} is not an empty folder: "
                                 "give a new or empty folder with --workspace, or leave it out for a temporary one")
    shutil.copytree(SAMPLE, dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".benchmarks", ".agent-tui"))
    if target is not None:
        _remember(dest)
    return dest
