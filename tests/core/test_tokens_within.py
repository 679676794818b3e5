"""``TokenCounter.count_within(text, limit)`` is ``count(text)`` when that is at most ``limit``, else
None; stopping early never leaves a partial count remembered for the text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.tokens import CHUNK_TEXT_MIN, TokenCounter
from tests.core.test_tokens import chunky

MODELS = ["gpt-4", "gpt-4o", "claude-sonnet-4"]  # cl100k, o200k, a corrected family (factor 1.15)
LONG = "".join(f"def f{i}(x):\n    return x + {i * 7}\n\n" for i in range(400)) + "x;\n//comment\n" * 50


@pytest.mark.parametrize("model", MODELS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=chunky, repeat=st.integers(1, 12), offset=st.integers(-40, 40), warm=st.booleans())
@example(text=LONG, repeat=1, offset=0, warm=False).via("exactly at the limit")
@example(text=LONG, repeat=1, offset=-1, warm=False).via("one token over")
@example(text="", repeat=1, offset=0, warm=False).via("empty")
def test_within_is_the_count_or_none(model: str, text: str, repeat: int, offset: int, warm: bool) -> None:
    text = text * repeat
    exact = TokenCounter(model).count(text)
    limit = exact + offset
    counter = TokenCounter(model)
    if warm:
        counter.count(text[: len(text) // 2])  # some chunks remembered, the whole not
    got = counter.count_within(text, limit)
    assert got == (exact if exact <= limit else None)
    # whatever was remembered on the way, the text still counts as it does fresh
    assert counter.count(text) == exact
    assert counter.count_within(text, exact) == exact
    assert counter.count_within(text, exact - 1) is None


@pytest.mark.parametrize("model", MODELS)
def test_a_text_found_over_its_limit_is_not_remembered_with_a_partial_count(model: str) -> None:
    assert len(LONG) >= CHUNK_TEXT_MIN
    counter = TokenCounter(model)
    exact = TokenCounter(model).count(LONG)
    assert counter.count_within(LONG, 10) is None  # stops after the first chunk or so
    assert counter.count(LONG) == exact
    assert counter.count_within(LONG, exact) == exact


def test_stopping_early_tokenises_less_than_the_whole() -> None:
    counter = TokenCounter("gpt-4")
    seen: list[str] = []
    enc = counter._enc
    real = enc.encode

    class Spy:
        def encode(self, s: str, **kw: object) -> list[int]:
            seen.append(s)
            return real(s, **kw)

    counter._enc = Spy()
    assert counter.count_within(LONG, 10) is None
    assert 0 < sum(map(len, seen)) < len(LONG) // 4
