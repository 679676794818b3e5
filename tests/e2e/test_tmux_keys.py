"""End to end in a real terminal: the installed `agent-tui` at 80×24 under tmux, against the fake
OpenAI server (127.0.0.1), driven by keys — nothing the user types is lost.

A message sent while the model client loads gets its bubble at once; `tab` on an empty box
keeps the keyboard in it; a 3-line paste arrives as 3 lines; `esc` closes the inspector without
touching the running turn (a second esc only warns, a third cancels); `/model` refuses a name the
server does not serve; input history and the session title survive a restart.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import PLANTED_KEY

from .tmux_driver import AGENT_TUI, Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _start(tmux: Tmux, server: FakeOpenAI, workspace: Path, home: Path) -> None:
    env = {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(home / "xdg"), "HOME": str(home),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": PLANTED_KEY}
    tmux.start([str(AGENT_TUI), "--model", "openai/gpt-4o", "--api-base", server.base_url,
                "--workspace", str(workspace)], 80, 24, env)


def _box(screen: str) -> list[str]:
    """The message box's lines (between its ▊▔ top and ▊▁ bottom edges)."""
    lines = screen.splitlines()
    top = max(i for i, line in enumerate(lines) if line.startswith("▊▔"))
    bottom = max(i for i, line in enumerate(lines) if line.startswith("▊▁"))
    return [line.strip("▊▎ ") for line in lines[top + 1:bottom]]


def test_keys_at_80x24_lose_nothing(tmux: Tmux, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "app.py").write_text("print('hi')\n")
    with FakeOpenAI() as server:
        server.script(Reply.text("first answer"), Reply.hang(), Reply.text("after the cancel"))
        _start(tmux, server, workspace, tmp_path)
        tmux.wait_for(lambda s: any(line.startswith("▊▔") for line in s.splitlines()), "the message box")
        tmux.type("sent while loading")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "│ sent while loading" in s, "the user's bubble")
        loading = "loading model client" in screen
        screen = tmux.wait_for(lambda s: "first answer" in s and "● ready" in s, "the first answer")
        assert loading or server.chat_requests, "the bubble came before the client was ready"

        tmux.keys("Tab")  # nothing to complete: the keyboard stays in the box
        tmux.type("kept")
        tmux.wait_for(lambda s: _box(s) and _box(s)[0] == "kept", "typing after tab")
        tmux.keys("C-j")
        tmux.run("set-buffer", "-b", "three", "line one\nline two\nline three")
        tmux.run("paste-buffer", "-p", "-b", "three", "-t", tmux.name)  # bracketed paste, like a terminal's
        screen = tmux.wait_for(lambda s: _box(s)[:4] == ["kept", "line one", "line two", "line three"],
                               "a 3-line paste kept whole")
        tmux.keys("Enter")
        assert server.wait_for(lambda: len(server.chat_requests) >= 2, timeout=30)
        sent = server.chat_requests[1].messages[-1]["content"]  # the engine's [context: …] line follows it
        assert sent.split("\n\n[context:")[0] == "kept\nline one\nline two\nline three", sent

        tmux.keys("F2")  # the turn hangs: open the inspector, close it with esc
        tmux.wait_for(lambda s: "tok sent" in s, "the inspector")
        tmux.keys("Escape")
        screen = tmux.wait_for(lambda s: "tok sent" not in s and "│ line three" in s, "the main screen")
        tmux.keys("Escape")  # right after an overlay: only a warning
        tmux.wait_for(lambda s: "press esc again" in s, "the warning")
        assert "cancelled" not in tmux.screen() and len(server.chat_requests) == 2
        tmux.keys("Escape")
        tmux.wait_for(lambda s: "turn cancelled" in s and "● ready" in s, "the cancelled turn")

        tmux.type("/model gpt-4o-typo-xyz")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: "refused" in s and "gpt-4o-typo-xyz" in s, "/model refusing an unknown name")
        tmux.quit_app()

        _start(tmux, server, workspace, tmp_path)  # a new run: history and the session title are kept
        tmux.wait_for(lambda s: "● ready" in s, "the second run", timeout=120)
        tmux.keys("Up")
        tmux.wait_for(lambda s: _box(s)[:1] == ["/model gpt-4o-typo-xyz"], "the last input recalled")
        tmux.keys("Up")
        tmux.wait_for(lambda s: _box(s)[:4] == ["kept", "line one", "line two", "line three"],
                      "the multi-line message recalled whole")
        tmux.keys("F5")
        tmux.wait_for(lambda s: "sent while loading" in s, "the session titled by its first message")
        tmux.keys("Escape")
        tmux.quit_app()
