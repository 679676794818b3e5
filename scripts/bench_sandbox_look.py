"""How long the sandbox's look at the workspace takes before each command, by number of submodules.

Before every sandboxed command (and every write tool's check) ``sandbox_hooks.hook_flags`` works out
what git may run from the work tree: hooks folders, included configs, programs, and the ``.git`` of
each submodule and worktree (``tools/sandbox_nested.py``).  The first look runs git a few times per
repository; later ones are answered from caches keyed by ``stat``.  This script builds workspaces
with N checked-out submodules (copies of one small repository registered as gitlinks) and a
workspace whose index holds 50,000 files, and prints the first ("cold") look and the median of
the later ("warm") ones.  The look also walks the folders on disk for repositories registered nowhere
(``tools/sandbox_placed.py``), and the check after each command walks them again: the last rows are
real folder trees with clones placed in them, and the check after a command that changed nothing.
The very last row is the 20,000-folder tree whose pre-commit hook is a hard link of a work-tree
script (``tools/sandbox_hardlinks.py``: a walk comparing inodes, then remembered).
A benchmark, not a test: nothing is asserted.

    .venv/bin/python scripts/bench_sandbox_look.py [--subs 10 100 250] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agent_tui.tools import sandbox_gitpaths, sandbox_hardlinks, sandbox_nested, sandbox_placed
from agent_tui.tools.sandbox_hooks import hook_flags
from agent_tui.tools.sandbox_placed import check_made, placed_repos

IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True, text=True,
                          input=stdin).stdout


def with_submodules(base: Path, n: int) -> Path:
    """A workspace whose index has ``n`` gitlinks, each folder a checked-out repository."""
    template = base / "template"
    template.mkdir()
    git(template, "init", "-q")
    (template / "x.py").write_text("x = 1\n")
    git(template, "add", ".")
    git(template, "commit", "-qm", "x")
    sha = git(template, "rev-parse", "HEAD").strip()
    ws = base / f"subs{n}"
    ws.mkdir()
    git(ws, "init", "-q")
    for i in range(n):
        shutil.copytree(template, ws / "mods" / f"m{i:03d}", symlinks=True)
    git(ws, "update-index", "--add", "--index-info",
        stdin="".join(f"160000 {sha}\tmods/m{i:03d}\n" for i in range(n)))
    return ws


def with_big_index(base: Path, n: int) -> Path:
    ws = base / f"files{n}"
    ws.mkdir()
    git(ws, "init", "-q")
    blob = git(ws, "hash-object", "-w", "--stdin", stdin="x\n").strip()
    git(ws, "update-index", "--add", "--index-info",
        stdin="".join(f"100644 {blob}\td{i // 1000:02d}/f{i:05d}.txt\n" for i in range(n)))
    return ws


def with_tree(base: Path, folders: int, clones: int) -> Path:
    """A workspace with ``folders`` real folders of 10 files each, and ``clones`` repositories placed in it."""
    ws = base / f"tree{folders}"
    ws.mkdir()
    git(ws, "init", "-q")
    for i in range(folders):
        folder = ws / f"p{i // 100:03d}" / f"d{i:05d}"
        folder.mkdir(parents=True)
        for j in range(10):
            (folder / f"f{j}.txt").write_text("x\n")
    for i in range(clones):
        git(ws, "init", "-q", f"vendor/r{i:02d}")
    time.sleep(sandbox_placed.RACY_NS / 1e9)  # past the margin in which a fresh folder is listed again
    return ws


def measure(ws: Path, label: str, repeat: int) -> None:
    sandbox_nested._cache.clear()
    sandbox_gitpaths._cache.clear()
    sandbox_placed._memos.clear()
    sandbox_hardlinks._cache.clear()
    began = time.perf_counter()
    flags = hook_flags(ws, [])
    cold = time.perf_counter() - began
    warm = []
    for _ in range(repeat):
        began = time.perf_counter()
        hook_flags(ws, [])
        warm.append(time.perf_counter() - began)
    print(f"{label:>34}: cold {cold * 1000:8.1f} ms   warm {statistics.median(warm) * 1000:7.2f} ms   "
          f"({len(flags)} bwrap arguments)")


def measure_check(ws: Path, label: str, repeat: int) -> None:
    """The check after a command that made nothing (a warm walk, compared with the one before)."""
    before = placed_repos(ws)
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        check_made(ws, before)
        times.append(time.perf_counter() - began)
    print(f"{label:>34}: after a command {statistics.median(times) * 1000:7.2f} ms   "
          f"({len(before.repos)} placed repositories)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subs", type=int, nargs="*", default=[0, 10, 100, 250])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-look-") as tmp:
        for n in args.subs:
            base = Path(tmp) / f"n{n}"
            base.mkdir()
            measure(with_submodules(base, n), f"{n} checked-out submodules", args.repeat)
        measure(with_big_index(Path(tmp), 50_000), "50,000 files, no submodule", args.repeat)
        for folders, clones in ((1_000, 0), (5_000, 20), (20_000, 20)):
            ws = with_tree(Path(tmp), folders, clones)
            label = f"{folders:,} folders, {clones} clones"
            measure(ws, label, args.repeat)
            measure_check(ws, label, args.repeat)
        script = ws / "p199" / "d19999" / "pre-commit"  # the last folder of the tree
        script.write_text("#!/bin/sh\n")
        (ws / ".git" / "hooks" / "pre-commit").hardlink_to(script)
        measure(ws, "20,000 folders, a hard-linked hook", args.repeat)


if __name__ == "__main__":
    main()
