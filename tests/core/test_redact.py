"""The secret Redactor: what it masks, what it leaves alone, and what it never touches."""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.provider_keys import PREFIXES, PROVIDER_KEYS, provider_keys
from agent_tui.core.redact import Redactor, install_log_redaction, redact_text, register_secret
from agent_tui.core.secrets import find_secrets, secret_name

GITHUB = "ghp_" + "Ab1" * 12


@pytest.mark.parametrize(
    "text, secret, kind",
    [
        (
            "OPENAI_API_KEY=sk-proj-abcdefghij1234567890ABCDEFGHIJ",
            "sk-proj-abcdefghij1234567890ABCDEFGHIJ",
            "OPENAI_API_KEY",
        ),
        ('export DB_PASSWORD="s3cr3t-value"', "s3cr3t-value", "DB_PASSWORD"),
        (
            "DATABASE_URL=postgres://admin:Sup3rS3cret@db.example.com:5432/app",
            "Sup3rS3cret",
            "url-password",
        ),
        (f"your token: {GITHUB}", GITHUB, "github-token"),
        ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws-key"),
        ('{"apiKey": "a9f8e7d6c5b4a3f2e1d0"}', "a9f8e7d6c5b4a3f2e1d0", "secret"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow1234\nabcd\n-----END RSA PRIVATE KEY-----\n",
            "MIIEow1234",
            "private-key",
        ),
    ],
)
def test_detected_and_masked_by_kind(text: str, secret: str, kind: str) -> None:
    out = Redactor()(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize(
    "text",
    [
        "token = self.token",
        "password = get_password()",
        "max_tokens: 1000000000",
        "sort_keys=True, indent=2",
        "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
        "KEY_FILE=/etc/ssl/private/server.pem",
        "API_KEY=${OPENAI_API_KEY}",
        "def tokenize(text): return text.split()",
        "https://example.com/path?q=1",
    ],
)
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert Redactor()(text) == text


def test_names() -> None:
    assert (
        secret_name("AWS_SECRET_ACCESS_KEY")
        and secret_name("githubToken")
        and secret_name("DB_PASSWORD")
    )
    assert (
        not secret_name("max_tokens")
        and not secret_name("keyboard")
        and not secret_name("KEY_FILE")
    )


def test_env_values_are_named_and_stable() -> None:
    r = Redactor({"value-of-the-key-123": "MY_TOKEN"})
    out = r("a value-of-the-key-123 b value-of-the-key-123")
    assert out == "a [REDACTED:env:MY_TOKEN] b [REDACTED:env:MY_TOKEN]"
    assert r(out) == out  # idempotent: redacting twice changes nothing


def test_reasoning_blocks_and_signatures_are_never_altered() -> None:
    r = Redactor()
    thinking = {
        "type": "thinking",
        "thinking": f"the key is {GITHUB}",
        "signature": "EqQBCkYIARgCIkBsig==",
    }
    msg = {
        "role": "assistant",
        "content": f"found {GITHUB}",
        "thinking_blocks": [thinking],
        "reasoning_content": f"raw {GITHUB}",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "run_command", "arguments": f'{{"command": "echo {GITHUB}"}}'},
            }
        ],
    }
    out = r.messages([msg])[0]
    assert (
        out["thinking_blocks"] == [thinking]
        and out["reasoning_content"] == msg["reasoning_content"]
    )
    assert (
        GITHUB not in out["content"] and GITHUB not in out["tool_calls"][0]["function"]["arguments"]
    )


def test_unchanged_messages_are_the_same_objects() -> None:
    msgs = [{"role": "user", "content": "hello there, nothing secret"}]
    assert Redactor().messages(msgs)[0] is msgs[0]


def test_registered_secret_and_log_records(caplog: pytest.LogCaptureFixture) -> None:
    register_secret("configured-key-0987654321", "api-key")
    assert redact_text("k=configured-key-0987654321") == "k=[REDACTED:env:api-key]"
    install_log_redaction()
    with caplog.at_level(logging.INFO):
        logging.getLogger("agent_tui.test").info(
            "calling with %s and %s", "configured-key-0987654321", GITHUB
        )
    assert "configured-key-0987654321" not in caplog.text and GITHUB not in caplog.text
    assert "[REDACTED:env:api-key]" in caplog.text


def test_findings_do_not_overlap() -> None:
    text = f"GITHUB_TOKEN={GITHUB}"
    found = find_secrets(text)
    assert len(found) == 1 and text[found[0].start : found[0].end] == GITHUB


_ALNUM = "Q7vT2mXk9LpR4sWz8NcY1bHd6FgJ3aEu5KiO0yZ"
_HEX = "3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6"


@pytest.mark.parametrize(
    "key, kind",
    [
        ("sk-ant-api03-" + _ALNUM * 2 + "-_x" + _ALNUM + "AA", "anthropic-key"),
        ("sk-ant-oat01-" + _ALNUM * 2, "anthropic-key"),
        ("sk-proj-" + _ALNUM + "_-" + _ALNUM, "openai-key"),
        ("sk-svcacct-" + _ALNUM * 2, "openai-key"),
        ("sk-or-v1-" + _HEX * 2, "openrouter-key"),
        ("sk-" + _HEX, "deepseek-key"),
        ("AIza" + _ALNUM[:33] + "-_", "google-api-key"),
        ("hf_" + _ALNUM[:34], "huggingface-token"),
        ("gsk_" + (_ALNUM * 2)[:52], "groq-key"),
        ("xai-" + (_ALNUM * 3)[:80], "xai-key"),
    ],
)
def test_a_provider_key_pasted_alone_is_masked(key: str, kind: str) -> None:
    """No ``NAME=`` before it: a key pasted into the prompt or printed by a command is still found."""
    for text in (f"use {key} for this", key, f"curl -H 'x-api-key: {key}'", f"({key})"):
        out = Redactor()(text)
        assert key not in out and f"[REDACTED:{kind}]" in out, (text, out)


@pytest.mark.parametrize("text", [
    "pip install scikit-learn sk-learn", f"commit {_HEX} merged", "from huggingface_hub import hf_hub_download",
    "the xai-sdk package", "AIzaShort", "gsk_ too short", f"sk-{_HEX}0123 is longer than a DeepSeek key",
    f"celery task-{_HEX} done", f"disk-{_HEX}.img", f"mask-{_HEX}", "my_hf_" + _ALNUM, "noxai-" + _ALNUM * 2,
])
def test_provider_key_shapes_leave_ordinary_text_alone(text: str) -> None:
    assert Redactor()(text) == text


@pytest.mark.parametrize("kind, pattern", PROVIDER_KEYS,
                         ids=lambda v: v if isinstance(v, str) else "")
def test_every_provider_key_is_found_by_the_one_pass_scan(kind: str, pattern: re.Pattern[str]) -> None:
    """The literal-prefix test never skips a key, and the combined regex names the right kind."""
    @settings(max_examples=60, deadline=None)
    @given(st.from_regex(pattern, fullmatch=True))
    def check(key: str) -> None:
        assert key.startswith(PREFIXES)
        found = provider_keys(f"see {key} .")
        assert (4, 4 + len(key)) in {(s, e) for s, e, _ in found}, (key, found)
        assert kind in {k for _, _, k in found}

    check()
