"""The tmux fixture for the end-to-end tests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from .tmux_driver import Tmux


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    session = Tmux(f"agent-tui-e2e-{uuid.uuid4().hex[:8]}")
    try:
        yield session
    finally:
        session.kill()
