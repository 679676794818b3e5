"""An empty rule is bad input: `agent-tui memory pin ""` (or `--rule "  "`, or `/pin ""` in the TUI) made a
pinned rule with no text and exited 0 (a tester, three times)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.cli import build_parser
from agent_tui.store.cli import run_memory
from tests.agent.helpers import make_repo


def _memory(root: Path, *argv: str) -> int:
    return run_memory(build_parser().parse_args(["memory", *argv, "--workspace", str(root)]), root)


@pytest.mark.parametrize("argv", [("pin", ""), ("pin", "   "), ("pin", "--rule", ""), ("pin", '""'),
                                  ("pin", "--rule", " \n ")])
def test_an_empty_rule_is_refused_and_nothing_is_pinned(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        argv: tuple[str, ...]) -> None:
    root = make_repo(tmp_path / "proj")
    assert _memory(root, *argv) == 2
    assert "an empty rule cannot be pinned" in capsys.readouterr().err
    assert _memory(root, "pin", "Use pnpm") == 0
    capsys.readouterr()
    assert _memory(root, "list", "--all", "--json") == 0
    rules = [r for r in json.loads(capsys.readouterr().out) if r["category"] == "rules"]
    assert [r["preview"] for r in rules] == ["Use pnpm"], "only the real rule is there"
