"""A session open in another agent-tui is told when it opens (two TUIs on one session each kept their own
copy of it); a model switch reopening the session in the same process is not 'another'; a process that ends,
however it ends, leaves nothing behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent_tui.store.session_lock import SessionLock

HOLD = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)\n")


def hold_elsewhere(path: Path) -> subprocess.Popen[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    other = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert other.stdout is not None and other.stdout.readline().strip() == "held"
    return other


def test_another_process_is_seen_and_this_one_is_not(tmp_path: Path) -> None:
    folder = tmp_path / ".agent-tui" / "locks"
    first = SessionLock(folder, "s1")
    again = SessionLock(folder, "s1")  # (a model switch: the same process opens it once more)
    assert not first.shared and not again.shared
    first.release()
    again.release()
    other = hold_elsewhere(folder / "s2.lock")
    try:
        assert SessionLock(folder, "s2").shared
    finally:
        other.kill()
        other.wait()
    assert not SessionLock(folder, "s2").shared, "a killed holder leaves no lock behind"
    assert not SessionLock(None, "s3").shared  # no folder to keep locks in: nothing is told
