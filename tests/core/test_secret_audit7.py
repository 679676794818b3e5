"""Credentials a seventh audit found unmasked: Vault tokens, OpenAI's (and Moonshot's) keys of the old form,
``SSHPASS=``, a ``*_PW`` setting, and a Kubernetes/Compose environment entry (``- name: API_TOKEN`` with its
``value:`` on the next line)."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import redact_text

MASKED = [
    ("token: hvs.CAESIJ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH", "hvs.CAESIJ0123456789abcdefghijklmnop"),
    ("VAULT_TOKEN_VALUE hvb.AAAAAQJ0123456789abcdefghijklmnopqrs", "hvb.AAAAAQJ0123456789abcdefghijklmnopqrs"),
    ("key sk-a1B2c3D4e5F6g7H8i9J0a1B2c3D4e5F6g7H8i9J0kLmN in the log", "a1B2c3D4e5F6g7H8i9J0a1B2c3D4e5F6g7H8i9J0"),
    ("SSHPASS=Zr8vN3qLw5Tp ssh host", "Zr8vN3qLw5Tp"),
    ("LDAP_BIND_PW=Bind9Pw2024x", "Bind9Pw2024x"),
    ("env:\n  - name: API_TOKEN\n    value: Zr8vN3qLw5TpAAbb\n", "Zr8vN3qLw5TpAAbb"),
    ('- name: "DB_PASSWORD"\n  value: "S3cur3Pa55w0rd"', "S3cur3Pa55w0rd"),
]
KEPT = [
    "- name: LOG_LEVEL\n  value: debug",
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef:\n      name: api",
    "- name: GITHUB_TOKEN\n  value: ${{ secrets.GITHUB_TOKEN }}",
    "- name: DB_PASSWORD\n  value: $(DB_PASSWORD_FROM_SECRET)",
    "the hvs. prefix marks a Vault service token",
    "sk-learn is a library; sk-" + "a" * 30,
]


@pytest.mark.parametrize(("text", "secret"), MASKED)
def test_masked(text: str, secret: str) -> None:
    out = redact_text(text)
    assert secret not in out and "[REDACTED" in out, out


@pytest.mark.parametrize("text", KEPT)
def test_kept(text: str) -> None:
    assert redact_text(text) == text
