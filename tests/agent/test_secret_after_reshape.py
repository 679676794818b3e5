"""A secret in a command's output stays masked however the output is cut on its way to the model.

run_command shapes its output to 5,000 tokens; in a window of 32K or less the runner's cap on results is
lower, and ``tools.shaping`` cut it again, line by line, with nothing redacted first: a GitHub token in
a long line went out as its first 39 characters (a reviewer's reproduction, kept here)."""

from __future__ import annotations

from pathlib import Path

from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import FakeOpenAI, Reply

TOKEN = "ghp_" + "Zq8Lm2Xv7Rt4Kp9Wn3Bc6Hd1Fs5Gj0Ay2UeQ"


async def test_a_token_in_a_long_line_is_masked_after_the_runner_cuts_the_output(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    lines = [f"INFO step {i}: " + "lorem ipsum dolor sit amet " * 10 for i in range(40)]
    lines[0] = "DEBUG " + "x" * 92 + " using " + TOKEN + " end"
    (root / "out.txt").write_text("\n".join(lines) + "\n")
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("run_command", {"command": "cat out.txt"}), Reply.text("done"))
        agent, ws = make_agent(root, server.base_url, window=16_384)
        try:
            await run_turn(agent, "show the log")
        finally:
            ws.close()
        sent = "\n".join(str(m.get("content") or "") for m in server.chat_requests[1].messages)
    assert "DEBUG" in sent and "lorem ipsum" in sent  # the output was shown, cut
    assert not any(TOKEN[:k] in sent for k in range(8, len(TOKEN) + 1)), sent[:2000]
