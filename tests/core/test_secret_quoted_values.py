"""Secrets whose value holds ``#``, ``;``, ``,``, ``}`` or a backtick, and the assignment forms of more
languages (audit 6): a strong password often holds ``#``, and the whole assignment used to go unmasked,
not just a part of it."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import redact_text
from agent_tui.core.redact_whole import redact_keeping_lines

MASKED = [
    ('DB_PASSWORD="hunter#2hunter2"', "hunter#2hunter2"),
    ("ADMIN_PASSWORD=S3cure#Pass2024", "S3cure#Pass2024"),
    ('{"db":{"password":"S3cure#Pass2024"}}', "S3cure#Pass2024"),
    ('password = "abcdefghij#klmnop"', "abcdefghij#klmnop"),
    ('DB_PASSWORD="ab;cdefghijk"', "ab;cdefghijk"),
    ('password: "ab,cdefghijk"', "ab,cdefghijk"),
    ('x = {"token": "abc}defghijk"}', "abc}defghijk"),
    ("api_key='sk`abcdefgh'", "sk`abcdefgh"),
    ('password := "Hunter2Hunter2"', "Hunter2Hunter2"),
    ('$password = "S3cure#Pass2024";', "S3cure#Pass2024"),
    ('@api_token = "abcdEFGH1234ijkl"', "abcdEFGH1234ijkl"),
    ("define( 'DB_PASSWORD', 'p4ssw0rd_here!' );", "p4ssw0rd_here!"),
    ("<password>Sup3rS3cretVal</password>", "Sup3rS3cretVal"),
]


@pytest.mark.parametrize(("text", "secret"), MASKED)
def test_the_whole_value_is_masked(text: str, secret: str) -> None:
    for out in (redact_text(text), redact_text(redact_keeping_lines(text))):
        assert "REDACTED" in out
        assert secret not in out and secret[:6] not in out.replace("REDACTED", "")


@pytest.mark.parametrize("text", [
    "PASSWORD=S3cureVal99x # the comment stays",
    "a=1,password=secretval1,b=2",
])
def test_an_unquoted_value_still_ends_at_a_blank_or_a_comma(text: str) -> None:
    out = redact_text(text)
    assert "REDACTED" in out
    assert ("the comment stays" in out) if "#" in text else out.endswith(",b=2")


@pytest.mark.parametrize("text", [
    "<name>projectname1</name>",
    "define('WP_DEBUG', 'false_value1')",
    "x := compute(password)",
    "if token == expected_token: pass",
])
def test_what_is_no_secret_stays(text: str) -> None:
    assert redact_text(text) == text
