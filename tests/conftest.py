"""Shared test set-up: a hermetic environment and the fake model server fixtures."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixtures import fake_llm, fake_llm_config  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per CPU.  A third of a worker's time is spent waiting (a Pilot test on the
    app's timers and workers, a binary test on its child), so one worker per CPU left the CPUs 30 % idle:
    on 2 CPUs the suite took 510 s with 2 workers and 405 s with 4 (739 CPU-seconds either way)."""
    return 2 * (os.cpu_count() or 1)


@pytest.fixture(autouse=True, scope="session")
def _hermetic_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No user config, no network lookups by litellm, a git identity for temp repos."""
    home = tmp_path_factory.mktemp("xdg")
    saved = dict(os.environ)
    os.environ.update(
        XDG_CONFIG_HOME=str(home),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "data"),
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        GIT_AUTHOR_NAME="agent-tui tests",
        GIT_AUTHOR_EMAIL="tests@example.invalid",
        GIT_COMMITTER_NAME="agent-tui tests",
        GIT_COMMITTER_EMAIL="tests@example.invalid",
    )
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        os.environ.pop(key, None)
    yield
    os.environ.clear()
    os.environ.update(saved)


_DEMO_FOLDERS = itertools.count()


@pytest.fixture(autouse=True)
def _own_demo_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own ``agent-tui --demo`` folder (``XDG_DATA_HOME``, made only when a demo starts): the
    demo reuses one folder per user, and one test's sessions, pins and drafts must not reach another's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.getbasetemp() / "demo-data" / str(next(_DEMO_FOLDERS))))
