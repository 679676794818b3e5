"""End to end in a real terminal: the installed `agent-tui` under tmux against the fake OpenAI
server (127.0.0.1), for what a daily user meets after the first answer.

At 80×24: the threshold banner says what is true (no "compaction runs now"), "Compact now" pressed
from the keyboard hands the keyboard back so the next typed message is sent (not another
compaction), a manual /compact clears the banner; scrolled up, the user's place is kept while an
answer arrives, and their own new message brings the flow to the bottom.  Then, resumed at
120×40: the one-point sparkline is as tall as the request's share of the budget (not full
height), and the gauge says where its budget number comes from.  On the way, the model's `list_dir` of
the project does not show the agent's own `.agent-tui/` store.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import PLANTED_KEY

from .tmux_driver import AGENT_TUI, Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

WINDOW = 6000
BLOCKS = " ▁▂▃▄▅▆▇█"
LONG = "\n\n".join(f"paragraph {n:02d} of the long answer." for n in range(1, 31))


def _housekeeping(messages: list[dict[str, Any]]) -> bool:
    """A memo or summarising call (compaction): its instruction is the last or the system message."""
    last = json.dumps(messages[-1]).lower()
    first = json.dumps(messages[0])[:300].lower()
    return ("write a progress memo for this coding session" in last or "you compress the older part" in last
            or "you compress the older part" in first)


class Model:
    """The server's answers: housekeeping calls get a short summary; chat steps take the test's replies
    in order (then "done")."""

    def __init__(self) -> None:
        self.replies: deque[Any] = deque()

    def __call__(self, body: dict[str, Any]) -> Any:
        if _housekeeping(body.get("messages") or []):
            return Reply.text("The user asked questions; the agent read notes.txt. Nothing was changed.")
        return self.replies.popleft() if self.replies else Reply.text("done")


def _chats(server: FakeOpenAI) -> list[str]:
    """What the user sent in each chat step (housekeeping calls left out)."""
    out = []
    for r in server.chat_requests:
        if not _housekeeping(r.messages):
            users = [m for m in r.messages if m.get("role") == "user"]
            out.append(str(users[-1]["content"]).split("\n\n[context:")[0] if users else "")
    return out


def _flat(screen: str) -> str:
    """The screen's words in one line (wrapped text joined; borders, scrollbar thumbs and the offer's button,
    drawn beside its wrapped text, dropped)."""
    words = " ".join(w for w in screen.split() if w.strip("│╭╮╰╯─▊▎▔▁▏▕▄▅▇█"))
    return words.replace("Compact now (/compact) ", "")


def _start(tmux: Tmux, server: FakeOpenAI, workspace: Path, home: Path, width: int, height: int) -> None:
    env = {"TERM": "xterm-256color", "XDG_CONFIG_HOME": str(home / "xdg"), "HOME": str(home),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": PLANTED_KEY}
    tmux.start([str(AGENT_TUI), "--model", "openai/gpt-4o", "--api-base", server.base_url, "--window", str(WINDOW),
                "--workspace", str(workspace)], width, height, env)


def _send(tmux: Tmux, text: str) -> None:
    tmux.type(text)
    tmux.wait_for(lambda s: f"▊ {text}" in s, f"{text!r} in the box")
    tmux.keys("Enter")


def _ctx(screen: str) -> int:
    found = re.search(r"ctx (\d+) %", screen)
    assert found, screen
    return int(found.group(1))


def _reversed(styled: str, label: str) -> bool:
    """The label is drawn in reverse video (a focused button)."""
    found = re.search(r"((?:\x1b\[[\d;]*m)+) ?" + re.escape(label), styled)
    return bool(found) and "7" in re.findall(r"\d+", found.group(1))


def _wheel_up(tmux: Tmux, times: int) -> None:
    """Mouse-wheel events over the conversation (SGR encoding, as a terminal sends them)."""
    tmux.run("send-keys", "-t", tmux.name, "-l", "\x1b[<64;30;8M" * times)


def _spark_and_panel(screen: str) -> tuple[list[str], str]:
    """The sparkline's two rows and the budget panel's text (the panel is the right-hand column)."""
    lines = screen.splitlines()
    x = next(line.index("Context ") for line in lines if "Context " in line and "% of " in line)
    panel = [line[x:] for line in lines]
    label = max(n for n, line in enumerate(panel) if "share of the budget)" in line)
    return [row[:40].ljust(40) for row in panel[label + 1:label + 3]], " ".join(" ".join(panel).split())


def test_offer_scroll_and_resumed_gauge_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("".join(f"note {n}: the quick brown fox jumps over the lazy dog\n"
                                                 for n in range(60)))
    config = tmp_path / "xdg" / "agent-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    # the compaction point below the tools and system prompt alone, so the first step crosses it;
    # a manual compaction keeps only the latest step, so a two-step turn leaves something to fold
    config.write_text("[budget]\ncompact_at = 0.3\nfresh_at = 0.95\n\n[memory]\nkeep_recent_steps = 1\n")
    model = Model()
    with FakeOpenAI(default_reply=model) as server:
        _start(tmux, server, workspace, tmp_path, 80, 24)
        tmux.wait_for(lambda s: "● ready" in s, "the model client", timeout=120)

        # item 7: the banner at the point says what is true, with the share the gauge shows
        model.replies.append(Reply.text("first answer"))
        _send(tmux, "first question")
        screen = tmux.wait_for(lambda s: "Compact now" in s and "first answer" in s and "● ready" in s, "the offer")
        flat = _flat(screen)
        assert "runs now" not in screen, screen  # (a toast wraps beside the flow: look for the words)
        offer = re.search(r"The window is (\d+) % full, past the compaction point", flat)
        assert offer and int(offer.group(1)) == _ctx(screen), flat

        # item 1: "Compact now" from the keyboard (shift+tab reaches it, enter presses it) ...
        tmux.keys("BTab")
        tmux.wait_for(lambda s: _reversed(s, "Compact now"), "the button focused", styled=True)
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "nothing was changed" in _flat(s) and "● ready" in s, "the answer to it")
        assert f"The window is still {_ctx(screen)} % full" in _flat(screen), _flat(screen)
        # ... then the keyboard is back in the box: the next message is typed and sent, not another compaction
        model.replies.extend([Reply.tool_calls([("list_dir", {"path": "."}), ("read_file", {"path": "notes.txt"})]),
                              Reply.text("read the notes")])
        _send(tmux, "second question")
        tmux.wait_for(lambda s: "read the notes" in s and "● ready" in s, "the second answer")
        assert _chats(server) == ["first question", "second question", "second question"]
        # item 16: the listing the model got names the project's file, not the agent's own store
        step = next(r for r in server.chat_requests if any(m.get("role") == "tool" for m in r.messages))
        listing = next(str(m["content"]) for m in step.messages if m.get("role") == "tool")
        assert "notes.txt" in listing and ".agent-tui" not in listing and (workspace / ".agent-tui").is_dir(), listing
        assert _flat(tmux.screen()).count("Nothing to compact") <= 1

        # item 7: a manual compaction clears the banner (says what it did, no button, no stale share)
        before = _ctx(tmux.screen())
        _send(tmux, "/compact")
        screen = tmux.wait_for(lambda s: re.search(r"Compacted \d+ items? into sum", _flat(s)) and "● ready" in s
                               and "Compact now" not in s and _ctx(s) < before,
                               "the banner saying what the compaction did, its button gone, the gauge down")
        assert not re.search(r"The window is \d+ % full, past", _flat(screen))

        # item 4: scrolled up, the place is kept while an answer arrives; the user's own message follows
        model.replies.append(Reply.text(LONG))
        _send(tmux, "a long one please")
        tmux.wait_for(lambda s: "paragraph 30 of the long answer" in s and "● ready" in s, "the long answer")
        gate = threading.Event()
        model.replies.append(lambda body: Reply.text("LATE ANSWER END") if gate.wait(120) else Reply.text("timeout"))
        _send(tmux, "slow one")
        assert server.wait_for(lambda: _chats(server)[-1:] == ["slow one"], timeout=60)
        tmux.wait_for(lambda s: "│ slow one" in s, "the bubble")
        _wheel_up(tmux, 40)
        tmux.wait_for(lambda s: "│ first question" in s, "the top of the conversation")
        gate.set()
        screen = tmux.wait_for(lambda s: "● ready" in s, "the late answer")
        assert "│ first question" in screen and "LATE ANSWER END" not in screen, "the reader's place was kept"
        _send(tmux, "back to the end")
        tmux.wait_for(lambda s: "│ back to the end" in s and "● ready" in s, "the flow at the bottom after sending")
        tmux.quit_app()

        # item 11: resumed at 120×40, the sparkline goes on, and the next request's column is as tall as its share
        _start(tmux, server, workspace, tmp_path, 120, 40)
        tmux.wait_for(lambda s: "● ready" in s, "the model client", timeout=120)
        tmux.keys("F5")  # a start opens a new session: resume the last one from the list (newest first)
        tmux.wait_for(lambda s: "Resume a session" in s and "first question" in s, "the session list")
        tmux.keys("Down")
        tmux.keys("Enter")
        tmux.wait_for(lambda s: "● ready" in s and "│ back to the end" in s, "the resumed session")
        # (the session's earlier requests are in the store's log: the sparkline goes on from them, a tester)
        earlier = tmux.wait_for(lambda s: len(_spark_and_panel(s)[0][1].rstrip()) > 1, "the session's sparkline")
        before = len(_spark_and_panel(earlier)[0][1].rstrip())
        _send(tmux, "after the resume")
        screen = tmux.wait_for(lambda s: "● ready" in s and _chats(server)[-1:] == ["after the resume"]
                               and len(_spark_and_panel(s)[0][1].rstrip()) > before, "one more point")
        rows, panel = _spark_and_panel(screen)
        last = len(rows[1].rstrip()) - 1
        level = BLOCKS.index(rows[1][last]) + (BLOCKS.index(rows[0][last]) if rows[1][last] == "█" else 0)
        used = float(re.search(r"Context ([\d.]+)% of", panel).group(1))
        assert level < 16 and abs(level - 16 * used / 100) <= 2, f"{rows} for {used} %"
        # the gauge explains its budget number
        budget = re.search(r"Context [\d.]+% of ([\d,]+)", panel).group(1)
        explained = re.search(r"input budget ([\d,]+) = window ([\d,]+) − reserve ([\d,]+) − margin ([\d,]+)", panel)
        assert explained, panel
        numbers = [int(g.replace(",", "")) for g in explained.groups()]
        assert explained.group(1) == budget and numbers[1] == WINDOW and numbers[0] == WINDOW - numbers[2] - numbers[3]
        tmux.quit_app()
