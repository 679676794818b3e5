"""``TokenCounter.count_joined(head, body)`` equals ``count(head + body)``: counted fresh, with
the body's count remembered, after the body changed, and under another header."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.block import FILE_HEADER, SECTION_HEADERS
from agent_tui.core.items import Category
from agent_tui.core.tokens import TokenCounter
from tests.core.test_tokens import chunky

MODELS = ["gpt-4", "gpt-4o", "claude-sonnet-4"]  # cl100k, o200k, a corrected family (factor 1.15)
HEADS = [f"{FILE_HEADER}\n", f"{SECTION_HEADERS[Category.SUMMARY]}\n", "x;\n", "a", "", "\n", "}\n\n", "# h \n"]


@pytest.mark.parametrize("model", MODELS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=st.sampled_from(HEADS), body=chunky, warm=st.booleans())
@example(head="x;\n", body="//comment", warm=True).via("o200k joins a / after a newline to the piece before")
@example(head=f"{FILE_HEADER}\n", body="  \n  x", warm=True).via("whitespace lines join across the cut")
@example(head=f"{FILE_HEADER}\n", body="def f():\n    return 1\n" * 200, warm=True).via("a chunked body")
def test_joined_counts_as_the_whole(model: str, head: str, body: str, warm: bool) -> None:
    counter = TokenCounter(model)
    if warm:
        counter.count(body)
    assert counter.count_joined(head, body) == TokenCounter(model).count(head + body)


@pytest.mark.parametrize("model", MODELS)
def test_a_changed_body_or_header_is_never_served_an_old_count(model: str) -> None:
    counter = TokenCounter(model)
    body = "\n".join(f"def handler_{i}(event):\n    return {{'id': {i}}}" for i in range(200))
    edited = body.replace("'id': 100}", "'id': 100, 'edited': [1, 2, 3, 4, 5, 6, 7]}")
    for head, text in [(f"{FILE_HEADER}\n", body), (f"{FILE_HEADER}\n", edited), ("## Other\n", edited),
                       ("## Other\n", body), (f"{FILE_HEADER}\n", body + "\nx = 1")]:
        assert counter.count_joined(head, text) == TokenCounter(model).count(head + text), (head, text[-20:])
    assert TokenCounter(model).count(edited) > TokenCounter(model).count(body)


def test_the_body_is_not_tokenised_again() -> None:
    counter = TokenCounter("gpt-4o")
    body = "import os\n" + "print('hello world')\n" * 500
    counter.count(body)
    calls = counter.calls
    counter.count_joined(f"{FILE_HEADER}\n", body)
    assert counter.calls == calls + 1  # the header only
