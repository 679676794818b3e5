"""A process killed while the model's answer streams keeps what had arrived: the real binary, kill -9 in the
middle of a slow answer, then the session opened again has the answer so far, marked cut (esc kept it; a kill
kept nothing, and the resumed session said "no reply was recorded")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.store.store import MemoryStore
from agent_tui.store.workspace import KILLED_MARK, Workspace
from tests.agent.helpers import make_repo
from tests.support.binary import BIN
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL


def _partial(db: Path) -> tuple[int, str] | None:
    store = MemoryStore.open(db)
    try:
        row = store.db.execute("SELECT turn, text FROM partial_replies").fetchone()
        return (row[0], row[1]) if row else None
    finally:
        store.close()


def test_a_kill_mid_answer_keeps_what_had_streamed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "proj")
    words = " ".join(f"word{n}" for n in range(3000))
    with FakeOpenAI() as fake:
        fake.script(Reply.text(words, chunk_size=8, chunk_delay=0.02))  # about a minute unless killed
        env = {**os.environ, "OPENAI_API_KEY": "sk-test-dummy"}
        proc = subprocess.Popen([BIN, "run", "tell me a long story", "--model", FAKE_MODEL, "--api-base",
                                 fake.base_url, "--json", "--workspace", str(root)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, text=True)
        db = root / ".agent-tui" / "memory.db"
        session = ""
        try:
            assert proc.stdout is not None
            for line in proc.stdout:  # (until the answer is streaming)
                event = json.loads(line) if line.startswith("{") else {}
                session = event.get("session", session)
                if event.get("type") == "text":
                    break
            deadline = time.monotonic() + 60
            while (kept := _partial(db)) is None or len(kept[1]) < 200:
                assert time.monotonic() < deadline, "the streaming answer was never kept"
                time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
    assert session
    ws = Workspace(root, settings=Settings.default())
    try:  # kept less than a few seconds ago: another process may be streaming it still, so it stays
        eng = ws.engine(session)
        assert not eng.items[eng.order[-1]].content.endswith(KILLED_MARK)
        assert _partial(db) is not None
        ws.store.db.execute("UPDATE partial_replies SET updated = updated - 60")
        ws.store.db.conn.commit()
        eng = ws.engine(session)
        last = eng.items[eng.order[-1]]
    finally:
        ws.close()
    assert last.role == "assistant" and last.content.endswith(KILLED_MARK) and last.provenance.get("cut")
    said = last.content.removesuffix(KILLED_MARK)
    assert len(said) >= 200 and words.startswith(said), said[:200]
    assert _partial(db) is None, "put back once, not again at the next open"


async def test_a_recorded_answer_leaves_no_copy(tmp_path: Path, fake_llm: FakeOpenAI, monkeypatch) -> None:
    import agent_tui.agent.loop_streamed as streamed
    from tests.agent.helpers import make_agent, run_turn

    monkeypatch.setattr(streamed, "STREAM_KEEP_EVERY", 0.0)  # (kept at every piece: the copy surely exists)

    root = make_repo(tmp_path / "proj")
    fake_llm.script(Reply.text(" ".join(f"w{n}" for n in range(400)), chunk_size=4, chunk_delay=0.01))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        events = await run_turn(agent, "talk a while")
        assert agent._streamed_at == 0.0, "the stream was kept, then the copy dropped"
        kept = ws.store.take_partial(agent.engine.session_id)
    finally:
        ws.close()
    assert events[-1].status == "done" and kept is None
