"""The sample project the offline demo works on, and the one folder per user the demo keeps its copy in.

``agent-tui --demo`` reuses ``$XDG_DATA_HOME/agent-tui/demo/inventory-app`` (default
``~/.local/share/agent-tui/demo/inventory-app``) run after run, so what a returning user left there —
the store in ``.agent-tui`` (sessions, pins, memos), the input history and the unsent draft keyed by
its path, files they added — is there again; a new temp folder per run lost all of it and left the
folders behind.  The data dir, not the state dir: the folder is a project the user opens and can add
to, and agent-tui's state dir is hidden from every command the sandbox runs (``tools/sandbox_hide``),
while the demo runs the sample's tests in its copy.

At each demo start the sample's own files are put back as shipped (a file the demo or the user changed
is rewritten, a deleted one comes back), so the scripted fix can be played again; nothing else in the
folder is touched.  Except under a demo still running there: each start records its process in the copy
(``.agent-tui/demo-owner.json``), and a start while one of them lives leaves the files as they
are and says so (it put the shipped files back under the first, whose agent's fix was lost and whose
``/undo`` then found the file changed behind it).  ``--demo --workspace DIR`` works the same way on a folder of the user's choice, which
must be new, empty, or a copy this user's demo made before.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

SAMPLE = Path(__file__).parent / "sample"
DEMO_TASK = "Items at the restock threshold are not flagged for restocking. Fix it and run the tests."
"""What enter on the demo's empty box sends, and what ``agent-tui run --demo`` runs without a TASK."""
_SKIPPED = ("__pycache__", ".pytest_cache", ".benchmarks", ".agent-tui")


OWNER_FILE = Path(".agent-tui") / "demo-owner.json"
"""Which processes run the demo on a copy: each one's pid and start time (a reused pid is not one of them)."""
IN_USE_NOTE = ("Another agent-tui demo is running on this copy of the sample project, so its files were left as "
               "they are (the demo puts them back as shipped only when no other demo runs there).")
"""What a demo started beside a running one says."""


class DemoWorkspaceError(ValueError):
    """``--demo --workspace DIR`` named a folder holding files of its own, or the copy cannot be put back."""


def default_demo_workspace() -> Path:
    """``$XDG_DATA_HOME/agent-tui/demo/inventory-app`` (a relative XDG_DATA_HOME is ignored, as the XDG spec
    says; default ``~/.local/share``)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return root / "agent-tui" / "demo" / "inventory-app"


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


def _sample_files() -> list[Path]:
    """The sample's files, relative to it (caches and stores left out)."""
    return sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*")
                  if p.is_file() and not any(part in _SKIPPED for part in p.relative_to(SAMPLE).parts))


def _put_back(dest: Path) -> None:
    """Make the sample's files in ``dest`` what the sample ships: a changed one is replaced (renamed over,
    so a link there is replaced, never written through), a missing one copied; other files stay."""
    for rel in _sample_files():
        target = dest / rel
        for folder in reversed(target.relative_to(dest).parents[:-1]):
            here = dest / folder
            if here.is_symlink() or (here.exists() and not here.is_dir()):
                raise DemoWorkspaceError(f"the demo's copy of its sample project has {here} where the "
                                         "sample has a folder: move it away and start the demo again")
        target.parent.mkdir(parents=True, exist_ok=True)
        wanted = (SAMPLE / rel).read_bytes()
        if target.is_file() and not target.is_symlink() and target.read_bytes() == wanted:
            continue
        if target.is_dir() and not target.is_symlink():
            raise DemoWorkspaceError(f"the demo's copy of its sample project has a folder at {target}, where the "
                                     "sample has a file: move it away and start the demo again")
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(fd, "wb") as fh:
            fh.write(wanted)
        shutil.copymode(SAMPLE / rel, tmp)
        os.replace(tmp, target)


def _started(pid: int) -> str | None:
    """When process ``pid`` started (in clock ticks since boot, /proc), or None when it is not running."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def _owners(dest: Path) -> list[tuple[int, str]]:
    """The (pid, start time) of each process the copy's record names (none when it is missing or unreadable)."""
    try:
        data = json.loads((dest / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    rows = data.get("owners") if isinstance(data, dict) else None
    return [(row["pid"], row["started"]) for row in (rows if isinstance(rows, list) else [])
            if isinstance(row, dict) and type(row.get("pid")) is int and isinstance(row.get("started"), str)]


def _alive(owners: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Those still running (a pid now another process's has another start time)."""
    return [(pid, started) for pid, started in owners if 0 < pid < 2**22 and _started(pid) == started]


def running_elsewhere(dest: Path) -> bool:
    """Another process that is still running started the demo on ``dest`` (this process's own record, a dead
    one, a reused pid, an unreadable record or a system without /proc: no)."""
    return any(pid != os.getpid() for pid, _ in _alive(_owners(dest)))


def _own(dest: Path) -> None:
    """Add this process to the demos running on ``dest``, dropping those that ended: every running one is
    named, so a start after the first of two ended still leaves the files of the other (best effort: with no
    record, a start puts the files back as before)."""
    started = _started(os.getpid())
    if started is None:
        return
    owners = [o for o in _alive(_owners(dest)) if o[0] != os.getpid()] + [(os.getpid(), started)]
    path = dest / OWNER_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".demo-owner.")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"owners": [{"pid": pid, "started": when} for pid, when in owners]}, fh)
        os.replace(tmp, path)
    except OSError:
        pass


def make_demo_workspace(target: Path | None = None) -> Path:
    """Put the sample project into ``target`` (or the user's demo folder) as shipped and return it.

    The demo approves its own scripted edits and runs the sample's tests, so it only ever works on a
    copy of the sample: ``target`` must be new, empty, or a copy this user's demo made before.  Any
    other folder is refused — copying over it would replace its files, and its own tests would run
    unasked.  Under a demo still running in another process, the files are left as they are
    (``running_elsewhere`` tells the caller, to say so)."""
    dest = target or default_demo_workspace()
    ours = dest.exists() and not dest.is_symlink() and (
        dest.resolve() == default_demo_workspace().resolve() or str(dest.resolve()) in _copies())
    if not ours and (dest.is_symlink() or (dest.exists() and (not dest.is_dir() or any(dest.iterdir())))):
        raise DemoWorkspaceError(f"--demo works on a copy of its sample project, and {dest} is not an empty folder: "
                                 "give a new or empty folder with --workspace, or leave it out for the demo's own")
    try:
        dest.mkdir(parents=True, exist_ok=True)
        if not running_elsewhere(dest):
            _put_back(dest)
        _own(dest)
    except OSError as exc:
        raise DemoWorkspaceError(f"cannot put the demo's sample project in {dest}: {exc.strerror or exc}; "
                                 "give a folder with --workspace DIR") from exc
    if target is not None and not ours:
        _remember(dest)
    return dest
