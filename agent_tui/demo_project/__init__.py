"""The sample project the offline demo works on (copied to a scratch folder first)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

SAMPLE = Path(__file__).parent / "sample"


MARKER = ".agent-tui-demo"
"""The file that marks a folder as a copy of the sample (the demo may edit it and run its tests)."""


class DemoWorkspaceError(ValueError):
    """``--demo --workspace DIR`` named a folder holding files of its own."""


def make_demo_workspace(target: Path | None = None) -> Path:
    """Copy the sample project into ``target`` (or a new temp folder) and return it.

    The demo approves its own scripted edits and runs the sample's tests, so it only ever works on a
    copy of the sample: ``target`` must be new, empty, or a copy made here before (it holds ``MARKER``).
    Any other folder is refused — copying over it would replace its files, and its own tests would run
    unasked."""
    dest = target or Path(tempfile.mkdtemp(prefix="agent-tui-demo-")) / "inventory-app"
    if (dest / MARKER).is_file():
        return dest
    if dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir()))):
        raise DemoWorkspaceError(f"--demo works on a copy of its sample project, and {dest} is not an empty folder: "
                                 "give a new or empty folder with --workspace, or leave it out for a temporary one")
    shutil.copytree(SAMPLE, dest, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".benchmarks", ".agent-tui"))
    (dest / MARKER).write_text("a copy of agent-tui's demo sample: --demo may edit it and run its tests\n",
                               encoding="utf-8")
    return dest
