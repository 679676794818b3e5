"""Attacks that only work against a normal user: ``chmod`` stops a normal user but not root, so a
command can make a folder unsearchable, or unwritable to stop the repair after it.  Under root (CI
runs as root) the scenario runs as ``nobody`` through ``setpriv``; as a normal user, as that user."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.bwrap import require_bwrap

NOBODY = 65534
REPO = Path(__file__).parents[2]

#: Prelude of every scenario: helpers, run as the unprivileged user in ``base``.
PRELUDE = """
import asyncio, json, os, subprocess, sys
from pathlib import Path
from agent_tui.tools.sandbox import Sandbox, probe
from agent_tui.tools.shell_exec import run_shell
base = Path(sys.argv[1])
ws, marker = base / "ws", base / "pwned"
ws.mkdir()
def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=e@x", "-c", "protocol.file.allow=always", *args],
                   cwd=cwd, check=True, capture_output=True)
def run(command):
    out = asyncio.run(run_shell(command, ws, 30, sandbox=Sandbox(probe()[0], ws.resolve())))
    return {"code": out.exit_code, "output": out.output, "notes": list(out.notes)}
def plant(folder):
    return (f"mkdir -p {folder}/objects {folder}/refs && echo 'ref: refs/heads/main' > {folder}/HEAD && "
            f"printf '[core]\\\\n\\\\trepositoryformatversion = 0\\\\n\\\\tbare = false\\\\n\\\\tfsmonitor = touch {marker}\\\\n'"
            f" > {folder}/config")
def status(cwd):
    subprocess.run(["git", "status", "--short"], cwd=cwd, capture_output=True)
    return marker.exists()
"""


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder the unprivileged user owns (pytest's own temp folders are root's, mode 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="agent-tui-unpriv-"))
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)
    yield folder
    subprocess.run(["chmod", "-R", "u+rwX", str(folder)], capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)


def as_user(base: Path, scenario: str) -> dict[str, object]:
    """Run ``scenario`` (after :data:`PRELUDE`) as the unprivileged user; the JSON it prints last."""
    require_bwrap()
    env = {**os.environ, "HOME": str(base), "XDG_CACHE_HOME": str(base / "cache"), "XDG_STATE_HOME": str(base / "state"),
           "GIT_CONFIG_GLOBAL": "/dev/null",
           "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-c", PRELUDE + scenario, str(base)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "running as root, the test needs setpriv (util-linux) to act as a normal user"
        argv = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]
    done = subprocess.run(argv, cwd=base, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_folder_made_unsearchable_stays_shut_to_commands(base: Path) -> None:
    """Command 1 makes a submodule folder unsearchable; command 2 would open it again and rewrite its
    `.git`.  The sandbox keeps the shut folder read-only, and neither commands nor write tools break."""
    got = as_user(base, """
lib = base / "lib"; lib.mkdir(); git(lib, "init", "-q"); git(lib, "commit", "-q", "--allow-empty", "-m", "x")
git(ws, "init", "-q"); git(ws, "submodule", "add", "-q", str(lib), "sub"); git(ws, "commit", "-qm", "s")
first = run("chmod 000 sub")
second = run(f"chmod 755 sub; {plant('evil')}; echo 'gitdir: ../evil' > sub/.git")
other = run("echo fine > notes.txt && cat notes.txt")
os.chmod(ws / "sub", 0o755)
print(json.dumps({"first": first, "second": second, "other": other,
                  "dotgit": (ws / "sub" / ".git").read_text(), "pwned": status(ws)}))
""")
    assert got["first"]["code"] == 0, got  # type: ignore[index]
    assert got["second"]["code"] != 0, got  # type: ignore[index]
    assert got["dotgit"] == "gitdir: ../.git/modules/sub\n" and got["pwned"] is False, got
    assert got["other"]["output"].strip() == "fine", got  # type: ignore[index]


def test_the_repair_goes_through_a_folder_made_unwritable(base: Path) -> None:
    """`.git` is a link; the command swaps it, then makes the workspace root unwritable so the
    repair after it cannot put the link back."""
    got = as_user(base, """
store = base / "store"; store.mkdir()
git(base, "init", "-q", "--separate-git-dir", str(store / "repo.git"), str(ws))
(ws / ".git").unlink(); (ws / ".git").symlink_to(store / "repo.git")
out = run(f"{plant('evil')} && rm .git && ln -s evil .git && chmod a-w .")
print(json.dumps({"out": out, "link": os.readlink(ws / ".git"), "pwned": status(ws)}))
""")
    assert got["link"] == str(base / "store" / "repo.git"), got
    assert got["pwned"] is False, got
    assert any("the link was put back" in n for n in got["out"]["notes"]), got  # type: ignore[index]


def test_a_repository_made_behind_a_shut_or_unwritable_folder(base: Path) -> None:
    """A command makes a repository that would run a program, then hides it (`chmod 000` on a folder
    above it) or makes its folder unwritable so it cannot be moved aside (``tools/sandbox_placed.py``)."""
    got = as_user(base, """
git(ws, "init", "-q")
fsmon = f"config core.fsmonitor 'touch {marker}'"
shut = run(f"mkdir -p hide/inner && git init -q hide/inner/r && git -C hide/inner/r {fsmon} && chmod 000 hide")
locked = run(f"git init -q sub && git -C sub {fsmon} && chmod a-w sub")
os.chmod(ws / "hide", 0o755)
print(json.dumps({"shut": shut, "locked": locked, "pwned": status(ws / "sub"),
                  "aside": (ws / "sub" / ".git.replaced-1").is_dir()}))
""")
    assert any("hide cannot be looked into (the command made it unreadable" in n for n in got["shut"]["notes"]), got  # type: ignore[index]
    assert got["aside"] is True and got["pwned"] is False, got
    assert any("moved to .git.replaced-1" in n for n in got["locked"]["notes"]), got  # type: ignore[index]
