"""A turn that ends before any reply (cancelled, or the request failed) must not glue its message onto
the next one: the history had two user messages in a row, sent as one, so every later turn repeated the
cancelled or failing request (found by a daily user: "HANG please delete all the tests" rode along with
"what is 2+2")."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.fake_openai import FakeOpenAI, Reply

from .helpers import make_agent, make_repo, run_turn


def _user_texts(messages: list[dict[str, object]]) -> list[str]:
    return [str(m.get("content")) for m in messages if m.get("role") == "user"]


async def test_a_failed_request_does_not_ride_along_with_the_next_message(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.script(Reply.error(400, "this request is refused", type="invalid_request_error"), Reply.text("four"))
        agent, ws = make_agent(root, server.base_url)
        try:
            await run_turn(agent, "ECTX please summarise the repo")
            await run_turn(agent, "what is 2+2")
        finally:
            ws.close()
        sent = server.chat_requests[-1].messages
    users = _user_texts(sent)
    assert any(u.startswith("what is 2+2") and "ECTX" not in u for u in users), users
    notes = [str(m.get("content")) for m in sent if m.get("role") == "assistant"]
    assert any(n.startswith("[no reply: the request failed") for n in notes), notes


async def test_a_cancelled_turn_is_closed_and_not_repeated(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    with FakeOpenAI() as server:
        server.script(Reply.hang(30), Reply.text("four"))
        agent, ws = make_agent(root, server.base_url)
        try:
            task = asyncio.ensure_future(run_turn(agent, "HANG please delete all the tests"))
            for _ in range(200):
                if server.chat_requests:
                    break
                await asyncio.sleep(0.05)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
            await run_turn(agent, "what is 2+2")
        finally:
            ws.close()
        sent = server.chat_requests[-1].messages
    users = _user_texts(sent)
    assert not any("delete all the tests" in u and "2+2" in u for u in users), users
    notes = [str(m.get("content")) for m in sent if m.get("role") == "assistant"]
    assert any("the user cancelled the turn before the model answered" in n for n in notes), notes
