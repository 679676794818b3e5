"""Engine warnings reach the user once each: one the engine says again at every model call, and one about an
instruction file that cannot be read (it used to stay in the loader's own list, never shown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent import events as ev
from agent_tui.store.db import StoreError
from tests.agent.helpers import make_agent, make_repo, run_turn
from tests.support.fake_openai import FakeOpenAI, Reply


async def test_a_warning_said_at_every_step_is_raised_once(tmp_path: Path, fake_llm: FakeOpenAI,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "p")
    fake_llm.script(Reply.tool_call("read_file", {"path": "calc.py"}), Reply.tool_call("list_dir", {"path": "."}),
                    Reply.tool_call("git_status", {}), Reply.text("done"))
    agent, ws = make_agent(root, fake_llm.base_url)

    def locked(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("database is locked")

    monkeypatch.setattr(agent.store, "add_session_usage", locked)
    try:
        events = await run_turn(agent, "look")
    finally:
        ws.close()
    assert agent.engine.warnings.count("session cost not saved: database is locked") == 4
    assert [e.message for e in events if isinstance(e, ev.WarningRaised)] == [
        "session cost not saved: database is locked"]


async def test_an_unreadable_instruction_file_is_warned_about_once(tmp_path: Path, fake_llm: FakeOpenAI,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "p")
    (root / "AGENTS.md").write_text("Use pnpm.\n")
    from agent_tui.core import instructions

    real_open = instructions.open_regular

    def refuse(path: Path, shown: str | None = None, *, exact: bool = False) -> int:  # root reads a chmod 000 file
        if Path(path).name == "AGENTS.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, shown, exact=exact)

    monkeypatch.setattr(instructions, "open_regular", refuse)
    fake_llm.script(Reply.tool_call("read_file", {"path": "calc.py"}), Reply.text("done"))
    agent, ws = make_agent(root, fake_llm.base_url)
    try:
        opening = agent.new_warnings()
        events = await run_turn(agent, "look")
    finally:
        ws.close()
    assert opening == ["AGENTS.md: cannot read it (Permission denied); not loaded"]
    assert not [e for e in events if isinstance(e, ev.WarningRaised)]
    assert agent.engine.instructions.warnings == opening  # not one more at every refresh
    assert not any("Use pnpm" in str(r.messages) for r in fake_llm.requests)
