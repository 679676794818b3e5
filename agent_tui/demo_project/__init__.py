"""The sample project the offline demo works on (copied to a scratch folder first)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

SAMPLE = Path(__file__).parent / "sample"


def make_demo_workspace(target: Path | None = None) -> Path:
    """Copy the sample project into ``target`` (or a new temp folder) and return it."""
    dest = target or Path(tempfile.mkdtemp(prefix="agent-tui-demo-")) / "inventory-app"
    if not (dest / "inventory").exists():
        shutil.copytree(SAMPLE, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".benchmarks", ".agent-tui"))
    return dest
