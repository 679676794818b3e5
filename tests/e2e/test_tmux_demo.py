"""End to end in a real terminal: the installed `agent-tui --demo` under tmux, driven by keys.

The screen is read back with `tmux capture-pane`: the budget bars are drawn, a demo
turn runs (the test command is denied), an item is pinned from the inspector, and
the store — read by `agent-tui memory list --json`, a separate process — agrees.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .tmux_driver import AGENT_TUI, Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def memory_list(workspace: Path) -> list[dict]:
    out = subprocess.run([str(AGENT_TUI), "memory", "--workspace", str(workspace), "list", "--json", "--all"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_demo_in_tmux_draws_the_budget_and_pins_from_the_inspector(tmux: Tmux, tmp_path: Path) -> None:
    workspace = tmp_path / "inventory-app"
    env = {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "HOME": str(tmp_path)}
    tmux.start([str(AGENT_TUI), "--demo", "--workspace", str(workspace)], 120, 40, env)

    screen = tmux.wait_for(lambda s: "% of " in s and "used ·" in s and "history" in s, "the budget panel")
    for name in ("system", "tools", "memory", "summary", "files", "history", "results"):
        assert name in screen
    assert "█" in screen and "Offline demo" in screen
    tmux.wait_for(lambda s: "● ready" in s, "the model client", timeout=120)

    tmux.keys("Enter")  # enter on the empty box sends the demo task
    screen = tmux.wait_for(lambda s: "allow run_command" in s.lower(), "the approval dialog")
    assert "list_dir . (t1, " in screen, "tool titles keep their item id and tokens"
    tmux.answer("n")
    tmux.wait_for(lambda s: "You denied the test run" in s and "● ready" in s, "the end of the turn")

    tmux.keys("F2")
    tmux.wait_for(lambda s: "tok sent" in s and "m1" in s, "the inspector")
    tmux.keys("Down")  # the first row is the system prompt; m1 (the task) is next
    screen = tmux.wait_for(lambda s: "m1: in the last request" in s, "m1 selected")
    tmux.keys("p")
    screen = tmux.wait_for(lambda s: any(line.startswith(" m1") and "●" in line or
                                         line.lstrip().startswith("m1") and "●" in line
                                         for line in s.splitlines()), "m1 pinned in the table")
    tmux.keys("Escape")
    screen = tmux.wait_for(lambda s: "% of " in s and "Offline demo" in s, "the main screen")
    shown = re.search(r"Context ([\d.]+)% of ([\d,]+)", screen)
    used = re.search(r"([\d,]+) used", screen)
    assert shown and used
    tmux.quit_app()

    context = json.loads(subprocess.run([str(AGENT_TUI), "context", "--workspace", str(workspace), "--json"],
                                        check=True, capture_output=True, text=True).stdout)
    assert f"{context['used_pct']:.1f}" == shown.group(1)
    assert f"{context['input_budget']:,}" == shown.group(2)
    assert f"{context['total']:,}" == used.group(1)

    rows = {r["id"]: r for r in memory_list(workspace)}
    assert rows["m1"]["pinned"] is True
    assert rows["t4"]["state"] == "in" and not rows["t4"]["pinned"]


def test_demo_at_80x24_in_tmux_is_readable_and_takes_a_reason(tmux: Tmux, tmp_path: Path) -> None:
    """At 80×24: the budget is one line, the status line and footers fit, the approval dialog leaves
    the conversation visible, a denial carries the user's reason, the inspector shows whole ids."""
    workspace = tmp_path / "inventory-app"
    env = {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "HOME": str(tmp_path)}
    tmux.start([str(AGENT_TUI), "--demo", "--workspace", str(workspace)], 80, 24, env)
    screen = tmux.wait_for(lambda s: "● ready" in s and "ctx " in s, "the model client", timeout=120)
    lines = screen.splitlines()
    strip = next(line.strip() for line in lines if line.strip().startswith("ctx "))
    assert re.match(r"ctx \d+ % ", strip), strip
    assert "enter sends the demo task" in screen, "an empty box with a hint line"
    status = next(line for line in lines if "● ready" in line)
    assert "session …" in status and len(status.rstrip()) <= 80

    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "allow run_command" in s, "the approval dialog")
    assert "read_file tests/test_stock.py" in screen, "the conversation stays visible behind the dialog"
    assert "Deny, say why (r)" in screen
    tmux.answer("r")
    tmux.wait_for(lambda s: "why not?" in s, "the reason box")
    tmux.type("not now, just read")
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "● ready" in s and "not now, just read" in s, "the model's answer to the reason")

    tmux.keys("F2")
    screen = tmux.wait_for(lambda s: "tok sent" in s and "f:inventory/stock.py" in s and "Filter" in s,
                           "the inspector")
    footer = next(line for line in screen.splitlines() if "Filter" in line)
    assert "Sort" in footer and "Pin" in footer and "Evict" in footer
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "● ready" in s and "ctx " in s, "the main screen")
    tmux.keys("C-q")


def test_demo_started_again_has_the_draft_pins_and_sessions_of_the_last_run(tmux: Tmux, tmp_path: Path) -> None:
    """`agent-tui --demo` twice, no --workspace: the second run is on the same demo folder (under
    XDG_DATA_HOME), with the unsent 3-line draft back in the box and the first run's session in f5."""
    env = {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HOME": str(tmp_path)}
    workspace = tmp_path / "data" / "agent-tui" / "demo" / "inventory-app"
    tmux.start([str(AGENT_TUI), "--demo"], 120, 40, env)
    tmux.wait_for(lambda s: "● ready" in s, "the model client", timeout=120)
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "allow run_command" in s.lower(), "the approval dialog")
    tmux.answer("n")
    tmux.wait_for(lambda s: "You denied the test run" in s and "● ready" in s, "the end of the turn")
    tmux.type("/pin m2")
    tmux.keys("Enter")
    tmux.type("first line")
    tmux.keys("C-j")
    tmux.type("second line")
    tmux.keys("C-j")
    tmux.type("third line")
    tmux.wait_for(lambda s: "third line" in s, "the draft typed")
    tmux.quit_app()
    assert {r["id"]: r for r in memory_list(workspace)}["m2"]["pinned"] is True

    tmux.start([str(AGENT_TUI), "--demo"], 120, 40, env)
    screen = tmux.wait_for(lambda s: "● ready" in s and "third line" in s, "the draft back in the box", timeout=120)
    assert "first line" in screen and "second line" in screen
    tmux.keys("F5")
    tmux.wait_for(lambda s: "Items at the restock threshold" in s, "the first run's session in the list")
    tmux.keys("Escape")
    tmux.quit_app()
    assert [p.name for p in (tmp_path / "data" / "agent-tui" / "demo").iterdir()] == ["inventory-app"]
