"""Pytest fixtures for the fake model server; ``tests/conftest.py`` imports them.

    from tests.support.fixtures import fake_llm, fake_llm_config  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .fake_openai import FakeOpenAI

#: The model string tests use: an OpenAI model litellm knows (so cost is priced).
FAKE_MODEL = "openai/gpt-4o"
#: A key that must never show up in errors or logs.
PLANTED_KEY = "sk-test-PLANTED-0123456789abcdef"


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A started fake OpenAI server (``.base_url``, ``.script(...)``, ``.requests``)."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def fake_llm_config(fake_llm: FakeOpenAI) -> Any:
    """An ``LLMConfig`` pointed at ``fake_llm`` with short timeouts and tiny backoff."""
    from agent_tui.agent.llm import LLMConfig

    return LLMConfig(
        model=FAKE_MODEL,
        api_base=fake_llm.base_url,
        api_key=PLANTED_KEY,
        timeout=5.0,
        max_retries=3,
        backoff_base=0.01,
        backoff_cap=0.05,
    )
