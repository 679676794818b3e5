"""The secret scanner's prefilter (core/secret_gates) finds exactly what the full scan finds.

A gate lets the scanner skip a detect-secrets regex when the text lacks a word every match
needs.  A wrong word would silently hide a real secret, so: every gate admits generated
matches of its own regex; the scanner with gates returns the same findings as without them
on generated texts with embedded keys (case variants and the letters IGNORECASE folds
included) and on every text of the recorded sessions.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.bench.adapters import load_sessions
from agent_tui.core.redact import Redactor
from agent_tui.core.secret_gates import FOLD_CHARS, GATES, Gate, TextView, linear, min_width
from agent_tui.core.secret_plugins import detectors
from agent_tui.core.secrets import find_secrets
from tests.bench.helpers import SHARED_TRACES

FIXTURE_TRACES = Path(__file__).resolve().parents[1] / "bench" / "fixtures"


def plugin_patterns() -> list[tuple[str, re.Pattern[str], Gate | None]]:
    patterns, _ = detectors()
    return [(kind, regex, gate) for kind, regex, gate, _ in patterns]


def test_every_plugin_regex_was_reviewed_and_no_gate_is_stale() -> None:
    found = plugin_patterns()
    assert len(found) >= 30, "detect-secrets' plugins did not load"
    assert set(GATES) == {regex.pattern for _, regex, _ in found}
    assert {regex.pattern for _, regex, gate in found if gate is None} == {p for p, g in GATES.items() if g is None}


@pytest.mark.parametrize("kind, regex, gate", plugin_patterns(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_gate_admits_every_match_of_its_regex(kind: str, regex: re.Pattern[str], gate: Gate | None) -> None:
    shortest = min_width(regex)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.text(max_size=20), st.from_regex(regex, fullmatch=True), st.text(max_size=20))
    def check(before: str, match: str, after: str) -> None:
        if regex.fullmatch(match):
            assert len(match) >= shortest, f"{kind}: a match shorter than {shortest}: {match!r}"
        text = f"{before}{match}{after}"
        if gate is not None and regex.search(text):
            assert gate.admits(TextView(text)), f"{kind}: gate skips a real match in {text!r}"

    check()


KEYS = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "Ab1" * 12,
    "glpat-" + "x1Y2z3" * 4,
    "xoxb-1234567890-abcdefghij",
    "sk_live_" + "a1B2" * 6,
    "SG." + "a" * 22 + "." + "b" * 43,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc",
    "AccountKey=" + "A1b2" * 22,
    "0123456789abcdef0123456789abcdef-us12",
    "AC" + "a1" * 16,
    "pypi-AgEIcHlwaS5vcmc" + "A" * 70,
    "cloudant_password = " + "ab12" * 16,
    "cl_apikey: " + "abcdefghijklmnopqrstuvwx",
    "https://user:" + "abcdefghijklmnopqrstuvwx" + "@acct.cloudant.com",
    "ibm_cloud_iam_api_key = " + "aB3-_" * 8 + "aB3-",
    "ibm_cos_hmac_secret_access_key = '" + "0a1b2c" * 8 + "'",
    "softlayer_api_key = " + "a1" * 32,
    "sl_pwd: " + "a1" * 32,
    "iam_pwd = " + "aB3-_" * 8 + "aB3-",
    "cl_pw => " + "ab12" * 16,
    "https://api.softlayer.com/soap/v3.1/" + "a1" * 32,
    "https://hooks.slack.com/services/T0001/B0001/abcdef",
    "aws_secret_access_key = '" + "A1b2/" * 8 + "'",
    "//registry.npmjs.org/:_authToken=npm_abcdefghij",
    "sk-abc" + "A1" * 10 + "T3BlbkFJ" + "b2" * 10,
    "123456789:" + "A1b2C" * 7,
    "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl." + "x" * 27,
    "DB_PASSWORD=s3cr3t-value",
    "postgres://admin:Sup3rS3cret@db.example.com:5432/app",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
    'token = "Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA="',
    "https://h.example.com/x?api_key=AbC123xyz987qwe&page=2",
    "password:\n    Xk39s!dk29sLq",
    "token: >-\n    Xk39s/dk29sLqAbc+\n    more9Lines9X==",
    'machine h login u password "my secret pass"',
    "AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
]


def variants(key: str) -> st.SearchStrategy[str]:
    """The key as written, upper- or lower-cased, or with one letter swapped for a letter that
    IGNORECASE folds to it (``ſ`` for s, ``K`` for k, ``ı``/``İ`` for i)."""
    fold = {"s": "\u017f", "k": "\u212a", "i": "\u0131", "I": "\u0130"}

    def swap(text: str, at: int) -> str:
        hits = [i for i, c in enumerate(text) if c in fold]
        if not hits:
            return text
        i = hits[at % len(hits)]
        return text[:i] + fold[text[i]] + text[i + 1:]

    return st.one_of(st.just(key), st.just(key.upper()), st.just(key.lower()),
                     st.integers(0, 50).map(lambda at: swap(key, at)))


texts = st.lists(
    st.one_of(st.text(max_size=30), st.sampled_from(KEYS).flatmap(variants),
              st.sampled_from(["key", "KEY", "pass", "token", "secret", "sl", "cl", "://", "-us", "AP", "\n",
                               " = ", ": ", '"', "'", "export", "export\n", " export ", ";", "{", "\t",
                               "API_TOKEN=abcdefgh12345678", "db_password: 'Zx9kQ2mP7vL4'", *FOLD_CHARS,
                               "(", "client = Client(", 'api_key="Kw7pQ2mZx9vL4rT8")', "f(token=self.token)",
                               "\\", '\\"', "\\n", '{\\"deploy_token\\": \\"a8FqZ3xK9mP2vL7w\\"}',
                               "\\nDB_PASSWORD=hunter22xyz\\n", "https://", "@", "Kw7pQ2mZx9vL4rT8aB3cD4@github.com",
                               "github_pat_" + "A1b2C3d4E5" * 2 + "Ab_" + "Kw7pQ2mZx9" * 5 + "Kw7pQ2mZx",
                               "machine api.example.com", "default", " login me", "\npassword Xy7pQ2mZ", " password ",
                               "?api_key=", "&amp;access_token=", "AbC123xyz987qwe", "password:", ": |", "\n    ",
                               "Xk39s!dk29sLq", ' "my secret pass"', ",wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])),
    max_size=12,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(texts)
def test_prefilter_finds_exactly_what_the_full_scan_finds(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)


#: Pieces of the texts the line rules (query parameters, YAML values below their key, quoted .netrc
#: passwords, AWS secret keys beside their id) find secrets in, and of the near misses around them.
LINE_RULE_PARTS = [
    "https://h.example.com/x", "?", "&", "&amp;", "=", "api_key", "access_token", "data[token]", "=AbC123xyz987qwe",
    "?page=2", "#top", "{api_key}", "%3C", "password", "token", "secret", ":", ": |", ": >-", " ", "\n", "\r\n",
    "  ", "    ", "- ", "\t", "Xk39s!dk29sLq", "more9Lines9X==", "host: db", '"', "machine h", " login u",
    ' login "me too"', " password ", '"my secret pass"', '"a\\"b c', "\\", "AKIAIOSFODNN7EXAMPLE",
    "ASIAY34FZKBOKMUTVV7A", ",", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
    "?api_key=AbC123xyz987qwe", "&access_token=AbC123xyz987qwe", "&sig=", "Signature", "X-Amz-", "design", "&amp;token=Xk39s!dk29sLq", "\npassword:",
    "\n  token: |", "\n    Xk39s!dk29sLq", "\nmachine h login u password", "\ndefault login u password ",
    "\nAKIAIOSFODNN7EXAMPLE,", "\npassword:\n    Xk39s!dk29sLq", "\n  api_key: |-\n    more9Lines9X==", *FOLD_CHARS,
    # (the rules added later: config set, the line before an id, YAML props and diffs, netrc mid-line, flags)
    "aws configure set ", "npm config set ", "aws_secret_access_key ", "aws_access_key_id ", "--profile p ",
    "ABIAIOSFODNN7EXAMPLE", "ACCA", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n", " # c", "!!str ", "!Ref ",
    "&tok ", "*tok", "\n+", "\n-", "+", "-", "+  password:", "\n+    Xk39s!dk29sLq", " machine b login v password ",
    "default ", "--password=", "--kms-key=", "projects/p/x/", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJ",
    "/:_authToken=", "//", "npm_abcdefghij", "Ab1" * 140,
]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(LINE_RULE_PARTS).flatmap(variants), st.text(max_size=6)),
                max_size=16).map("".join))
def test_prefilter_finds_exactly_what_the_full_scan_finds_with_the_line_rules(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)


@pytest.mark.parametrize("key", KEYS)
def test_each_known_key_is_still_found_and_masked(key: str) -> None:
    found = find_secrets(f"output:\n  {key}\n")
    assert found and found == find_secrets(f"output:\n  {key}\n", prefilter=False)
    assert "[REDACTED:" in Redactor()(f"output:\n  {key}\n")


SEP_PATTERNS = [(kind, regex) for kind, regex, _ in plugin_patterns() if linear(regex) is not regex]


def test_the_keyword_value_plugins_run_with_the_linear_separator() -> None:
    assert {kind for kind, _ in SEP_PATTERNS} == {"cloudant-password", "ibm-cloud-key", "ibm-cos-key", "softlayer-key"}


@pytest.mark.parametrize("kind, regex", SEP_PATTERNS, ids=lambda v: v if isinstance(v, str) else "")
def test_the_linear_separator_finds_what_the_plugin_regex_finds(kind: str, regex: re.Pattern[str]) -> None:
    fast = linear(regex)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.one_of(st.from_regex(regex, fullmatch=True), st.sampled_from(
        [" ", "  ", "=", ":", ":=", "=>", "::", "]", '"', "'", "key", "pass", "token", "\n", "x"]), st.text(max_size=4)),
        max_size=8).map("".join))
    def check(text: str) -> None:
        assert [m.span() for m in fast.finditer(text)] == [m.span() for m in regex.finditer(text)]

    check()


def test_a_letter_ignorecase_folds_disables_skipping() -> None:
    # 'ſ' matches 's' in the softlayer regex, but 'ſl'.lower() holds no "sl"
    text = "\u017fl_api_key = " + "a1" * 32
    assert find_secrets(text, prefilter=False), "the regex itself matches the folded letter"
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    assert TextView(text).lowered is None


def trace_texts(root: Path) -> list[str]:
    out: list[str] = []
    for s in load_sessions([root]):
        out.append(s.system_prompt)
        for m in s.messages:
            out += [m.content, m.raw_output, *(tc.arguments for tc in m.tool_calls)]
    return [t for t in dict.fromkeys(out) if t]


def test_same_findings_on_the_fixture_traces() -> None:
    texts_ = trace_texts(FIXTURE_TRACES)
    assert len(texts_) > 20
    for t in texts_:
        assert find_secrets(t) == find_secrets(t, prefilter=False)


@pytest.mark.skipif(not SHARED_TRACES.is_dir(), reason=f"recorded traces not found at {SHARED_TRACES}")
def test_same_findings_on_every_recorded_session_text() -> None:
    texts_ = trace_texts(SHARED_TRACES)
    assert len(texts_) > 5000
    differ = [t[:200] for t in texts_ if find_secrets(t) != find_secrets(t, prefilter=False)]
    assert differ == []


def _every_assignment(text: str) -> set[int]:
    """The characters of every NAME=value finding of a match starting at any position (no match
    hides another): what the scanner's resume rule must find."""
    from agent_tui.core.secrets import _ASSIGN_RE, assigned_secret

    out: set[int] = set()
    for p in range(len(text) + 1):
        m = _ASSIGN_RE.search(text, p)
        if m is None:
            break
        if assigned_secret(m):
            out.update(range(m.start("value"), m.end("value")))
    return out


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=5), st.sampled_from([
    "(", "{", "f(a=", "client = Client(", 'api_key="Kw7pQ2mZx9vL4rT8")', "key=", "token: ", " ", "\n", "=", ",",
    '"', "'", '\\"', "\\n", "\\", "n", "Kw7pQ2mZx9vL4rT8", "secret_key", "password=", "export", "x" * 60])),
    max_size=15).map("".join))
def test_no_assignment_hides_another(text: str) -> None:
    # (found once: in '(\\npassword=…' the name 'npassword' after '(' and '\\' hid 'password' after '\\n')
    from agent_tui.core.secrets import _assignments

    found = {i for f in _assignments(text) for i in range(f.start, f.end)}
    assert _every_assignment(text) <= found
