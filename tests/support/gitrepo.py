"""Small git repositories for sandbox tests (made with the host's git, outside any sandbox)."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: An identity, and local clones of file:// submodules allowed.
IDENTITY = ("-c", "user.name=u", "-c", "user.email=e@x", "-c", "protocol.file.allow=always")


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` (failing the test on an error); its output."""
    return subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def one_commit_repo(folder: Path) -> Path:
    """Make ``folder`` a repository with one commit (``x.py``); ``folder``."""
    folder.mkdir()
    git(folder, "init", "-q")
    (folder / "x.py").write_text("x = 1\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "x")
    return folder


def committed_repo(folder: Path, files: dict[str, str], message: str) -> Path:
    """Make ``folder`` a repository whose one commit, ``message``, holds ``files`` (name → text)."""
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    for name, text in files.items():
        (folder / name).write_text(text)
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", message)
    return folder
