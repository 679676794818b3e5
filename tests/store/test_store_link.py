"""A cloned repository whose `.agent-tui` is a link out of the workspace (`.agent-tui -> /somewhere`): the
user's sessions, input history and server logs are not written where the repository chose until the user
trusts the folder — through the real binary (`run`, `memory pin`, `trust`) with the link's target checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.core.config import load_config
from agent_tui.core.store_owner import LINK_ASK_KEY, agent_dir
from tests.agent.helpers import make_repo
from tests.support.binary import agent_tui, run_json
from tests.support.fake_openai import FakeOpenAI, Reply


def _linked_repo(tmp_path: Path) -> tuple[Path, Path]:
    root = make_repo(tmp_path / "cloned")
    outside = tmp_path / "chosen-by-the-repo"
    outside.mkdir()
    (root / ".agent-tui").symlink_to(outside)
    return root, outside


def test_a_linked_agent_dir_is_a_trust_ask_and_nothing_is_written_through_it(
        tmp_path: Path, fake_llm: FakeOpenAI) -> None:
    root, outside = _linked_repo(tmp_path)
    user = {"XDG_CONFIG_HOME": str(tmp_path / "user-xdg")}
    fake_llm.default_reply = lambda req: Reply.text("ok")

    proc = run_json(root, fake_llm, "hello", env=user)
    assert proc.returncode == 2 and "not opening the memory store" in proc.stderr, proc.stderr[-2000:]
    assert "agent-tui trust --yes" in proc.stderr and fake_llm.chat_requests == []
    pin = agent_tui(root, "memory", "pin", "a rule", env=user)
    assert pin.returncode == 2 and "outside the workspace" in pin.stderr
    assert list(outside.iterdir()) == [], "nothing was written through the link"

    listed = agent_tui(root, "trust", env=user)
    assert listed.returncode == 1 and f"store location: .agent-tui/memory.db is a link to {outside}" in listed.stdout
    assert agent_tui(root, "trust", "--yes", env=user).returncode == 0
    proc = run_json(root, fake_llm, "hello", env=user)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (outside / "memory.db").is_file(), "trusted: the user's choice of place"


def test_the_link_ask_and_agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root, outside = _linked_repo(tmp_path)
    asks = load_config(root).trust.asks
    assert [(a.key, a.value) for a in asks] == [(LINK_ASK_KEY, str(outside.resolve() / "memory.db"))]
    assert agent_dir(root) is None
    plain = make_repo(tmp_path / "plain")
    assert agent_dir(plain) == plain.resolve() / ".agent-tui" and load_config(plain).trust.asks == ()
    inside = make_repo(tmp_path / "inside")
    (inside / "state").mkdir()
    (inside / ".agent-tui").symlink_to(inside / "state")
    assert load_config(inside).trust.asks == (), "a link that stays inside the workspace asks nothing"


def test_input_history_is_never_written_through_a_link_and_masks_secrets(tmp_path: Path) -> None:
    from agent_tui.core.config import user_state_dir
    from agent_tui.ui.input_history import InputHistory

    root, outside = _linked_repo(tmp_path)
    hist = InputHistory.for_workspace(root)
    hist.add("deploy with ghp_0123456789abcdefABCDEF0123456789abcd")
    assert hist.path is not None and hist.path.is_relative_to(user_state_dir()) and list(outside.iterdir()) == []

    plain = make_repo(tmp_path / "plain")
    hist = InputHistory.for_workspace(plain)
    hist.add("deploy with ghp_0123456789abcdefABCDEF0123456789abcd")
    assert hist.path is not None
    written = hist.path.read_text()
    assert "ghp_0123456789" not in written and "REDACTED" in json.loads(written.splitlines()[0])["text"]


def test_tui_session_check_does_not_open_a_linked_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`agent-tui --session ID` checks the session before the screen is taken: not through the link."""
    from agent_tui.store.workspace import UntrustedStore, require_session

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root, outside = _linked_repo(tmp_path)
    (outside / "memory.db").write_bytes(b"")
    with pytest.raises(UntrustedStore, match="outside the workspace"):
        require_session(root, "s1")
    assert (outside / "memory.db").read_bytes() == b"", "the store behind the link was not opened"
