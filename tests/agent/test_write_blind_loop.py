"""Through the real loop: write_file never replaces text the model was not shown (a reviewer's cases).

- A file read whole, too large for its share of the block, that the user rewrote between turns: the
  next request's file note carries only a pointer ("changed on disk … re-read what you need"), so the
  model never saw the new text, and a write built from its old read must be refused.
- A whole read whose output the runner shortened (over the results' cap of a 32K window): lines the
  model never saw must not go with a whole-file write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import FakeOpenAI, Reply


def _text(req: Any) -> str:
    out = []
    for m in req.messages:
        out.append(str(m.get("content") or ""))
        for c in m.get("tool_calls") or []:
            out.append(str((c.get("function") or {}).get("arguments") or ""))
    return "\n".join(out)


def _results(server: FakeOpenAI) -> list[str]:
    last = server.chat_requests[-1]
    return [str(m.get("content")) for m in last.messages if m.get("role") == "tool"]


async def test_a_rewrite_the_request_only_points_to_is_not_overwritten(tmp_path: Path) -> None:
    old = "".join(f"old_{i}: the original line number {i} of this configuration, with some words to pad it out\n"
                  for i in range(200))
    new = "".join(f"user_{i}: a brand new line the user wrote in the editor, USER-MARK-{i}, padded a little\n"
                  for i in range(200))
    root = make_repo(tmp_path / "repo")
    (root / "conf.txt").write_text(old)
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "conf.txt"}), Reply.text("read it"),
                      Reply.tool_call("write_file", {"path": "conf.txt", "content": "old_0: tidied\n"}),
                      Reply.text("done"))
        agent, ws = make_agent(root, server.base_url, window=64_000)
        try:
            await run_turn(agent, "look at conf.txt")
            assert "old_190" in _text(server.chat_requests[1]), "setup: the read showed the whole file"
            (root / "conf.txt").write_text(new)  # the user's rewrite between turns
            await run_turn(agent, "now tidy the configuration")
        finally:
            ws.close()
        assert "USER-MARK-80" not in _text(server.chat_requests[2]), "setup: the request only points to the change"
        assert "changed on disk since you last read it" in _results(server)[-1]
    assert (root / "conf.txt").read_text() == new


async def test_a_whole_read_shortened_by_the_runner_does_not_allow_a_whole_write(tmp_path: Path) -> None:
    old = "".join(f"entry_{i}: a setting the model should keep, MARK-{i}, padded with a few words\n" for i in range(150))
    root = make_repo(tmp_path / "repo")
    (root / "conf.txt").write_text(old)
    with FakeOpenAI() as server:
        server.script(Reply.tool_call("read_file", {"path": "conf.txt"}),
                      Reply.tool_call("write_file", {"path": "conf.txt", "content": "entry_0: rewritten\n"}),
                      Reply.text("done"))
        agent, ws = make_agent(root, server.base_url, window=32_000)
        try:
            await run_turn(agent, "tidy the config")
        finally:
            ws.close()
        after_read = _text(server.chat_requests[1])
        assert any(f"MARK-{i}," not in after_read for i in range(150)), "setup: the runner shortened the read"
        assert "seen only part of 'conf.txt'" in _results(server)[-1]
    assert (root / "conf.txt").read_text() == old
