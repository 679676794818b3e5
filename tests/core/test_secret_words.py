"""``WordSet``: the words a text holds, from one RE2 pass, exactly as one substring test per word finds them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.provider_keys import PREFIXES
from agent_tui.core.secret_positional import _ALL_WORDS
from agent_tui.core.secret_words import WordSet
from tests.core.core_helpers import without_re2

pieces = st.lists(st.one_of(st.sampled_from([*PREFIXES, *_ALL_WORDS, *(w.upper() for w in _ALL_WORDS), "PassWord",
                                             "\u0130", "\u212a", "é", "\n", " "]),
                            st.text(max_size=5)), max_size=10).map("".join)


@settings(max_examples=500, deadline=None)
@given(pieces)
def test_the_words_found_are_the_substring_tests(text: str) -> None:
    assert WordSet(PREFIXES).present(text) == {w for w in PREFIXES if w in text}
    assert WordSet(_ALL_WORDS, fold=True).present(text) == {w for w in _ALL_WORDS if w in text.lower()}


def test_without_re2_the_substring_tests_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    without_re2(monkeypatch)
    words = WordSet(("sudo", "passwd"), fold=True)
    assert words.present("SUDO -S < file; cat /etc/PASSWD") == {"sudo", "passwd"}
    assert words._set is None
