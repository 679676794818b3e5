"""`agent-tui --demo` keeps one folder per user: the store and what the user added stay from run to run,
the sample's own files are put back as shipped at each start, and nothing is made in /tmp."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.demo_project import (
    SAMPLE,
    DemoWorkspaceError,
    default_demo_workspace,
    make_demo_workspace,
)


def test_the_demo_reuses_its_folder_and_puts_the_sample_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    first = make_demo_workspace()
    assert first == tmp_path / "data" / "agent-tui" / "demo" / "inventory-app" == default_demo_workspace()
    stock = first / "inventory" / "stock.py"
    shipped = stock.read_text()
    stock.write_text(shipped.replace("<", "<="))  # the scripted fix, played
    (first / "tests" / "test_stock.py").unlink()
    (first / "notes.txt").write_text("mine\n")
    (first / ".agent-tui").mkdir(exist_ok=True)  # (the demo records its process there)
    (first / ".agent-tui" / "memory.db").write_bytes(b"sessions, pins, memos")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("not the demo's\n")
    (first / "README.md").unlink()
    (first / "README.md").symlink_to(outside)

    again = make_demo_workspace()
    assert again == first
    for rel in ("inventory/stock.py", "tests/test_stock.py", "README.md", "pyproject.toml"):
        assert (again / rel).read_bytes() == (SAMPLE / rel).read_bytes(), rel
    assert not (again / "README.md").is_symlink() and outside.read_text() == "not the demo's\n", \
        "a link is replaced, never written through"
    assert (again / "notes.txt").read_text() == "mine\n", "what the user added stays"
    assert (again / ".agent-tui" / "memory.db").read_bytes() == b"sessions, pins, memos", "the store stays"
    assert list((tmp_path / "tmp").iterdir()) == [], "no folder per run in the temp dir"


def test_a_relative_xdg_data_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    assert default_demo_workspace() == tmp_path / ".local" / "share" / "agent-tui" / "demo" / "inventory-app"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_demo_workspace() == tmp_path / ".local" / "share" / "agent-tui" / "demo" / "inventory-app"


def test_a_chosen_copy_is_put_back_too_and_a_folder_in_the_way_is_reported(tmp_path: Path) -> None:
    chosen = make_demo_workspace(tmp_path / "mine")
    (chosen / "inventory" / "stock.py").write_text("changed\n")
    assert make_demo_workspace(chosen) == chosen
    assert (chosen / "inventory" / "stock.py").read_bytes() == (SAMPLE / "inventory" / "stock.py").read_bytes()
    (chosen / "pyproject.toml").unlink()
    (chosen / "pyproject.toml").mkdir()
    (chosen / "pyproject.toml" / "kept.txt").write_text("the user's\n")
    with pytest.raises(DemoWorkspaceError, match="pyproject.toml"):
        make_demo_workspace(chosen)
    assert (chosen / "pyproject.toml" / "kept.txt").read_text() == "the user's\n", "nothing deleted"
    assert os.access(chosen / "inventory" / "stock.py", os.R_OK)


def test_a_data_dir_that_cannot_hold_the_demo_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").write_text("a file, not a folder\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with pytest.raises(DemoWorkspaceError, match="--workspace"):
        make_demo_workspace()
