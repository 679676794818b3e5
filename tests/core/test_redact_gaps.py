"""Secrets the scanner missed, found by review: each case failed before its fix."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def masked(text: str, secret: str) -> str:
    out = Redactor()(text)
    assert secret not in out and "[REDACTED:" in out, (text, out)
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return out


@pytest.mark.parametrize("text", [
    'client = Client(api_key="Kw7pQ2mZx9vL4rT8")',
    'client = Client(timeout=30, api_key="Kw7pQ2mZx9vL4rT8")',
    "conn = connect(host=db, password=Kw7pQ2mZx9vL4rT8)",
    'self.client = OpenAI(base_url=URL,api_key="Kw7pQ2mZx9vL4rT8")',
    "cfg = {token: 'Kw7pQ2mZx9vL4rT8'}",
    "conn = psycopg2.connect(password=Kw7pQ2mZx9vL4rT8)",
    "headers = dict(Authorization_Token=Kw7pQ2mZx9vL4rT8)",
    "x = wrap(build(secret='Kw7pQ2mZx9vL4rT8'))",
])
def test_an_assignment_inside_a_non_secret_ones_value_is_found(text: str) -> None:
    out = masked(text, "Kw7pQ2mZx9vL4rT8")
    assert out.startswith(text[:text.index("=")]), "the outer name stays readable"


def test_an_assignment_inside_a_secret_ones_value_is_found() -> None:
    # the outer match (name token, value 'api_key=') is a finding, and hid the real one
    masked('token: api_key="Kw7pQ2mZx9vL4rT8"', "Kw7pQ2mZx9vL4rT8")


@pytest.mark.parametrize("text", [
    "client = Client(api_key=API_KEY)",
    "client = Client(token=self.token)",
    "result = compute(sort_keys=True_and_more)",
    "f(api_key=API_KEY)",
    "f(token=self.token)",
])
def test_code_inside_a_call_is_still_left_alone(text: str) -> None:
    assert Redactor()(text) == text


@pytest.mark.parametrize("text, secret", [
    ('{"env": "{\\"deploy_token\\": \\"a8FqZ3xK9mP2vL7w\\"}"}', "a8FqZ3xK9mP2vL7w"),
    ("{\\'api_key\\': \\'a8FqZ3xK9mP2vL7w\\'}", "a8FqZ3xK9mP2vL7w"),
    ('{"path": ".env", "content": "DEBUG=1\\nDB_PASSWORD=hunter22\\nPORT=80"}', "hunter22"),
    ('{"path": ".env", "content": "# local settings for the app\\nDEBUG=1\\nDB_PASSWORD=hunter22xyz\\nPORT=8080\\n"}',
     "hunter22xyz"),
    ('{"content": "\\tapi_key: \\"a8FqZ3xK9mP2vL7w\\"\\n"}', "a8FqZ3xK9mP2vL7w"),
])
def test_an_assignment_in_a_json_string_is_found(text: str, secret: str) -> None:
    masked(text, secret)


def test_an_escaped_newline_ends_the_value() -> None:
    text = "log: DEBUG=1\\nA_TOKEN=a8FqZ3xK9mP2vL7w\\nB=2"
    assert Redactor()(text) == "log: DEBUG=1\\nA_TOKEN=[REDACTED:A_TOKEN]\\nB=2"


GITHUB_PAT = "github_pat_" + "11ABCDEFG0" + "aB3cD4eF5gH6" + "_" + ("Kw7pQ2mZx9vL4rT8" * 4)[:59]


@pytest.mark.parametrize("text", [
    GITHUB_PAT, f"use {GITHUB_PAT} for this", f"git clone https://{GITHUB_PAT}@github.com/o/r.git",
    f"gh auth login --with-token <<< '{GITHUB_PAT}'", f"({GITHUB_PAT})",
])
def test_a_github_fine_grained_token_is_masked(text: str) -> None:
    assert len(GITHUB_PAT) == 93
    masked(text, GITHUB_PAT)
    if "'" not in text:  # (in quotes, the base64-entropy rule finds the same span first)
        assert "[REDACTED:github-token]" in Redactor()(text)


def test_a_github_fine_grained_token_shape_in_a_name_is_left_alone() -> None:
    text = "my" + GITHUB_PAT
    assert Redactor()(text) == text


@pytest.mark.parametrize("token", [
    "Kw7pQ2mZx9vL4rT8aB3cD4",  # 22 random characters
    "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",  # an old 40-hex OAuth token
    "npm_Kw7pQ2mZx9vL4rT8aB3cD4eF5gH6iJ7kL8m",
    "abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst",  # base32 (an Azure DevOps PAT's shape)
])
def test_a_token_as_a_urls_user_is_masked(token: str) -> None:
    for text in (f"git clone https://{token}@github.com/o/r.git", f"remote: https://{token}@gitlab.com/o/r"):
        out = masked(text, token)
        assert "[REDACTED:url-token]@github.com" in out or "[REDACTED:url-token]@gitlab.com" in out


@pytest.mark.parametrize("text", [
    "git clone https://git@github.com/o/r.git", "ssh://user@host:22/repo", "git@github.com:o/r.git",
    "https://deploy_bot_production_2024@ci.example.com/", "https://averyveryverylongusername@host/x",
    "https://jenkins_build_user_2021@git.example.com/r.git", "mailto://someone_with_a_long_name@example.com",
])
def test_a_name_as_a_urls_user_stays_readable(text: str) -> None:
    assert Redactor()(text) == text


@pytest.mark.parametrize("text", [
    "machine api.example.com login me password Xy7pQ2mZ",
    "machine api.example.com\n  login me\n  password Xy7pQ2mZ\n",
    "$ cat ~/.netrc\nmachine a.example.com login u password other1\nmachine api.example.com\nlogin me\npassword Xy7pQ2mZ",
    "machine api.example.com password Xy7pQ2mZ login me",
    "default login anonymous password Xy7pQ2mZ",
    "machine api.example.com\n\n  password Xy7pQ2mZ\n  login me\n",
    "machine h port 443 account acct login me\tpassword Xy7pQ2mZ",
])
def test_a_netrc_password_is_masked(text: str) -> None:
    out = masked(text, "Xy7pQ2mZ")
    assert "password [REDACTED:netrc-password]" in out.replace("\n", " ").replace("\t", " ")
    assert "machine" in out or "default" in out


@pytest.mark.parametrize("text", [
    "the password is wrong", "Reset the password if login fails", "machine learning password strength models",
    "by default the password is hashed", "  default\n  password: $PASSWORD", "machine h password hunter22",
    "machine learning login password reset flow",
])
def test_prose_about_passwords_is_left_alone(text: str) -> None:
    assert Redactor()(text) == text


ENV = {
    "DB_PASS": "Xy7pQ2mZ-db-pass", "MYSQL_PWD": "Xy7pQ2mZ-mysql", "GH_PAT": "Xy7pQ2mZ-gh-pat",
    "PGPASSWORD": "Xy7pQ2mZ-pg", "OPENAI_API_KEY_2": "Xy7pQ2mZ-openai-2", "GPG_PASSPHRASE": "Xy7pQ2mZ phrase",
    "DOCKER_AUTH_CONFIG": "Xy7pQ2mZ-docker", "TF_TOKEN_app_terraform_io": "Xy7pQ2mZ-terraform",
    "KEY_FILE": "/etc/ssl/private/server.pem", "MAX_TOKENS": "100000000", "PASSENGER_ENV": "production",
    "PWD": "/home/user/project", "OLDPWD": "/home/user", "TOKENIZERS_PARALLELISM": "false-value",
    "GIT_AUTHOR_NAME": "Jane Q Developer", "PATH": "/usr/local/bin:/usr/bin",
    "DATABASE_URL": "postgres://app:Sup3rS3cretPw@db.example.com:5432/app",
    "SHORT_URL": "redis://:pw@localhost:6379/0",
}


def test_environment_secrets_by_name_and_url_password() -> None:
    from agent_tui.core.redact import secrets_from_env

    found = secrets_from_env(ENV)
    for name in ("DB_PASS", "MYSQL_PWD", "GH_PAT", "PGPASSWORD", "OPENAI_API_KEY_2", "DOCKER_AUTH_CONFIG",
                 "TF_TOKEN_app_terraform_io"):
        assert found.get(ENV[name]) == name, name
    assert found.get("Sup3rS3cretPw") == "DATABASE_URL", "a URL's password, whatever the variable's name"
    for name in ("KEY_FILE", "MAX_TOKENS", "PASSENGER_ENV", "PWD", "OLDPWD", "TOKENIZERS_PARALLELISM",
                 "GIT_AUTHOR_NAME", "PATH", "DATABASE_URL", "GPG_PASSPHRASE"):  # (a value with a space: not)
        assert ENV[name] not in found, name
    out = Redactor(found)("password is Sup3rS3cretPw; cwd /home/user/project; pass Xy7pQ2mZ-db-pass")
    assert out == ("password is [REDACTED:env:DATABASE_URL]; cwd /home/user/project; "
                   "pass [REDACTED:env:DB_PASS]")


@pytest.mark.parametrize("name, secret", [
    ("DB_PASS", True), ("MYSQL_PWD", True), ("GH_PAT", True), ("PGPASSWORD", True), ("GITHUBTOKEN", True),
    ("OPENAI_API_KEY_2", True), ("STRIPE_KEY_LIVE", True), ("GPG_PASSPHRASE", True), ("SECRETS_JSON", True),
    ("DOCKER_AUTH_CONFIG", True), ("TF_TOKEN_app_terraform_io", True), ("npm_config__authToken", True),
    ("AWS_SECRET_ACCESS_KEY", True), ("AWS_SESSION_TOKEN", True), ("GOOGLE_APPLICATION_CREDENTIALS", True),
    ("HF_TOKEN", True), ("ANTHROPIC_API_KEY", True),
    ("KEY_FILE", False), ("MAX_TOKENS", False), ("PASSENGER_ENV", False), ("PWD", False), ("OLDPWD", False),
    ("PATH", False), ("TOKENIZERS_PARALLELISM", False), ("GIT_AUTHOR_NAME", False), ("KEYBOARD_LAYOUT", False),
    ("AWS_ACCESS_KEY_ID", False), ("DATABASE_URL", False), ("HISTCONTROL", False), ("TEST", False),
    ("SSH_AUTH_SOCK", False),  # a socket path; sandboxed commands lose it with the other agent sockets
])
def test_secret_environment_names(name: str, secret: bool) -> None:
    from agent_tui.core.secret_names import secret_env_name

    assert secret_env_name(name) is secret


SERVICE_TOKENS = {  # random, as real ones are (a repeated pattern is caught by other rules); split so no
    # scanner takes this file for a leak
    "age-secret-key": "AGE-SECRET-KEY-1" + "96WUQSEQQGE2AE4H5VRF94ML3YHZSJ4K" + "92ATXTEFE5E0E4EMRNQ7WZE8AU",
    "npm-token": "npm_" + "OfpW1zECUo8rLTzOKyiI" + "9FzGYIjn6QH4TNKd",
    "digitalocean-token": "dop_v1_" + "8e5816da9766be35472b9060890abd01" + "45fdc9ad8fdf1fa0ef6b050252f042fc",
    "shopify-token": "shpat_" + "d0a894121feb7e84" + "f761d8d463b46bb2",
    "stripe-key": "sk_live_51" + "DUdYIpTgnpZ8Hsd8NeqBzoal5zBbxWPfxfpieljAYXSQeiQSko9" + "mnp78JQphZ0L4LFFYWecJOuAEQvsJOmJgb3z3ie3fSSo0V",
}


@pytest.mark.parametrize("kind", sorted(SERVICE_TOKENS))
def test_well_known_service_tokens_are_masked_whole_when_bare(kind: str) -> None:
    """A fourth trust audit read these from a repository file (a SOPS age key file, a log line) into the
    request and the store in clear; a Stripe key of today's length was masked for 24 characters only."""
    token = SERVICE_TOKENS[kind]
    for text in (token, f"key: {token}\n", f"log line {token} end"):
        out = Redactor()(text)
        assert f"[REDACTED:{kind}]" in out, out
        assert not any(token[i:i + 10] in out for i in range(0, len(token) - 10, 5)), out
