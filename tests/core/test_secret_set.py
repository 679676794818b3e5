"""The RE2 set that tells, in one pass over an ASCII text, which detect-secrets regexes may match it.

A regex the set leaves out is never run on that text, so the set must flag every regex that would
match: these tests generate texts each regex matches (ASCII, in ASCII surroundings) and check the set
flags it, and that the scan with the set finds what the scan without any prefilter finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core import secret_plugins
from agent_tui.core.secret_plugins import _ascii_set, _may_match, detectors
from agent_tui.core.secrets import find_secrets
from tests.core.core_helpers import without_re2

ASCII = st.characters(max_codepoint=127)
REGEXES = [(n, kind, regex) for n, (kind, regex, _, _) in enumerate(detectors()[0])]


def test_the_set_takes_every_plugin_regex() -> None:
    """All of them go in (widened where RE2 lacks a feature): one left out would be run on every text."""
    found, outside = _ascii_set()
    assert found is not None and not outside
    assert sorted(found.index) == list(range(len(REGEXES)))


@pytest.mark.parametrize("n, kind, regex", REGEXES, ids=[f"{n}-{kind}" for n, kind, _ in REGEXES])
def test_the_set_flags_every_text_the_regex_matches(n: int, kind: str, regex: re.Pattern[str]) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.text(ASCII, max_size=8), st.from_regex(regex, fullmatch=True, alphabet=ASCII), st.text(ASCII, max_size=8))
    def check(before: str, match: str, after: str) -> None:
        for text in (match, before + match + after):
            if regex.search(text) is None:  # (surroundings can undo a match: ``(?!\\w)``, ``^``)
                continue
            may = _may_match(text)
            assert may is not None and n in may, (kind, text)

    check()


@pytest.mark.parametrize("blank", ["\v", "\x1c", "\x1f"])
def test_whitespace_python_reads_as_blank_is_blank_to_the_set_too(blank: str) -> None:
    """RE2's ``\\s`` has no vertical tab or ``\\x1c``-``\\x1f``; Python's has: the set spells Python's out
    (an Artifactory token between two such characters, in a text with no other blank)."""
    text = f"x{blank}AKCp8budTFpbypBqQbGJPz3pGCi28pPivfWczqjfYb9drAmd9LbRZbj6UpKFxJXA8ksWGc9fM{blank}y"
    n = next(n for n, kind, regex in REGEXES if kind == "artifactory-token" and regex.search(text))
    may = _may_match(text)
    assert may is not None and n in may
    assert find_secrets(text) == find_secrets(text, prefilter=False) != []


texts = st.lists(st.one_of(st.text(ASCII, max_size=12), st.sampled_from([
    "ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3", "AKIAIOSFODNN7EXAMPLE", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk_live_" + "a1B2" * 6, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU", "//registry.npmjs.org/:_authToken=",
    "npm_" + "a1B2c3D4e5" * 3 + "a1B2c3", "glpat-" + "x1Y2z3W4v5" * 2, "SG." + "a" * 22 + "." + "b" * 43,
    "\v", "\x1c", " = ", ": ", '"', "'", "\n", "api_key", "password", "softlayer_api_key = ", "ibm_cloud_iam_key: ",
    "https://hooks.slack.com/services/T012345/B012345/abcdefXYZ", "AC" + "a1" * 16, "SK" + "b2" * 16,
])), max_size=10).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_scan_with_the_set_finds_what_the_full_scan_finds(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)


def test_without_re2_every_regex_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """google-re2 missing (a broken install): no regex is skipped by the set, the findings are the same."""
    secret_plugins._ascii_set.cache_clear()
    without_re2(monkeypatch)
    try:
        found, outside = _ascii_set()
        assert found is None and outside == frozenset(range(len(REGEXES)))
        assert _may_match("token ghp_" + "A1b2C3d4E5" * 4) is None
        text = "GITHUB=ghp_" + "A1b2C3d4E5" * 3 + "A1b2C3"
        assert find_secrets(text) == find_secrets(text, prefilter=False) != []
    finally:
        monkeypatch.undo()
        secret_plugins._ascii_set.cache_clear()


#: Regexes with what the rewrite for RE2 must keep as Python reads it (none of them is a plugin's).
PYTHON_ONLY = [r"key\s*=\s*x", r"[\s,]+tok", r"[^\s]{3}\s", r"[]\s]x", r"ab$", r"(?:\s|\"|$)z?", r"[$]\$q"]


@pytest.mark.parametrize("pattern", PYTHON_ONLY)
def test_the_rewrite_for_re2_matches_wherever_python_does(pattern: str) -> None:
    import re2

    from agent_tui.core.secret_plugins import _as_python_reads

    ours, theirs = re.compile(pattern), re2.compile(_as_python_reads(pattern, False))

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.one_of(st.sampled_from(["key", "=", "x", "tok", ",", "]", "ab", "$q", "z", '"', "\n"]),
                              st.sampled_from(" \t\n\v\f\r\x1c\x1d\x1e\x1f"), st.text(ASCII, max_size=3)),
                    max_size=8).map("".join))
    def check(text: str) -> None:
        if ours.search(text):
            assert theirs.search(text), (pattern, text)

    check()
    for text in ("ab\n", "key\v=\x1cx", "\x1f,tok", "abc\x1e", "]x", "\v", "$q\n"):
        check.hypothesis.inner_test(text)  # (the texts where RE2 and Python read differently)


@pytest.mark.parametrize("pattern", [r"ab{,3}c", r"[MNO][a-z\d_-]{3,5}\.[a-z]{2}", r"[0-9a-z]{4}-us[0-9]{1,2}",
                                     r"[^]{3}]x", r"\{,3}k", r"[a-z]{2,4}?x", r"\{2,5000}q"])
def test_the_widened_form_matches_wherever_python_does(pattern: str) -> None:
    """``{,n}`` is read as Python reads it (RE2 took it as text) and a leading counted run of classes is
    dropped: the set's form of a regex finds a match wherever the regex does."""
    import re2

    from agent_tui.core.secret_plugins import _RE2_WIDER, _as_python_reads

    widened = pattern
    for rule, repl in _RE2_WIDER:
        widened = rule.sub(repl, widened)
    ours, theirs = re.compile(pattern), re2.compile(_as_python_reads(widened, False))
    for text in ("ac", "abbbc", "xMa1_9.bc", "N-abcd.zz", "abcd-us1", "0a9z-us12", "no match here", "ax", "{,3}k",
                 "abx", "{2,5000}q"):
        if ours.search(text):
            assert theirs.search(text), (pattern, widened, text)
