"""The session `run`, `memory` and a new TUI continue by default is the one last used: with two TUIs on one
folder, the one opened later but left idle was continued instead of the one the user was typing in."""

from __future__ import annotations

from pathlib import Path

from agent_tui.store.workspace import Workspace


def test_the_latest_session_is_the_last_one_a_message_went_to(tmp_path: Path) -> None:
    first, second = Workspace(tmp_path), Workspace(tmp_path)  # two TUIs on one folder
    try:
        used = first.engine(new=True)
        idle = second.engine(new=True)  # opened later, never used
        assert first.store.latest_session() == idle.session_id
        used.add_user("go on with the parser")
        assert second.store.latest_session() == used.session_id
        assert [r["id"] for r in second.store.sessions()][:2] == [used.session_id, idle.session_id]
        idle.add_user("and the lexer")
        assert first.store.latest_session() == idle.session_id
    finally:
        first.close()
        second.close()
    again = Workspace(tmp_path)
    try:
        assert again.engine().session_id == idle.session_id
    finally:
        again.close()
