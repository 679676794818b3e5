"""One source of truth for pins: ids come from the store, so the CLI and an open TUI (two
processes, one store) never overwrite each other's rules; ids that name nothing are errors;
`f:path` pins the file's current text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from agent_tui.store.store import MemoryStore
from tests.agent.helpers import make_repo

BIN = str(Path(sys.executable).with_name("agent-tui"))


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, "memory", *args, "--workspace", str(root)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=dict(os.environ))


def listed(root: Path) -> list[dict[str, Any]]:
    proc = cli(root, "list", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_store_hands_out_each_id_once_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    stores = [MemoryStore.open(path) for _ in range(4)]
    got: list[int] = []
    lock = threading.Lock()

    def grab(s: MemoryStore) -> None:
        for _ in range(25):
            n = s.allocate_id("global", "rule")
            with lock:
                got.append(n)

    threads = [threading.Thread(target=grab, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(1, 101))
    assert stores[0].allocate_id("global", "rule", floor=500) == 501


def test_pin_of_a_missing_id_is_an_error_not_a_rule(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    assert cli(root, "pin", "Use pnpm, never npm").returncode == 0
    for target in ("m99", "t999", "rule42"):
        proc = cli(root, "pin", target)
        assert proc.returncode == 2
        assert f"no item {target}; to pin a new rule, quote the text" in proc.stderr
    rules = [r for r in listed(root) if r["category"] == "rules"]
    assert [r["preview"] for r in rules] == ["Use pnpm, never npm"]
    proc = cli(root, "pin", "--rule", "m99")  # a rule whose text looks like an id: say so explicitly
    assert proc.returncode == 0, proc.stderr
    assert sorted(r["preview"] for r in listed(root) if r["category"] == "rules") == ["Use pnpm, never npm", "m99"]


def test_pin_of_a_file_pins_its_current_text(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    assert cli(root, "pin", "Use pnpm").returncode == 0
    proc = cli(root, "pin", "f:calc.py")
    assert proc.returncode == 0, proc.stderr
    rows = {r["id"]: r for r in listed(root)}
    assert rows["f:calc.py"]["pinned"] and rows["f:calc.py"]["category"] == "files"
    assert not any(r["category"] == "rules" and "f:calc.py" in r["preview"] for r in rows.values())
    shown = cli(root, "show", "f:calc.py")
    assert "def add(a, b):" in shown.stdout
    assert cli(root, "pin", "f:nope.py").returncode == 2
    assert cli(root, "pin", "f:../outside.py").returncode == 2
