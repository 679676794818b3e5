"""Which variables commands lose: the Redactor's rule for secret names (core.secret_names.secret_env_name)."""

from __future__ import annotations

from agent_tui.tools.cmd_env import command_env, dropped_names


def test_pass_pwd_pat_names_are_dropped_and_ordinary_ones_kept() -> None:
    base = {"DB_PASS": "p", "MYSQL_PWD": "p", "GH_PAT": "p", "PGPASSWORD": "p", "OPENAI_API_KEY_2": "k",
            "KEY_FILE": "/etc/k.pem", "MAX_TOKENS": "4096", "PASSENGER_ENV": "production", "PWD": "/w",
            "OLDPWD": "/", "PATH": "/usr/bin", "TOKENIZERS_PARALLELISM": "false", "GIT_AUTHOR_NAME": "Jane",
            "DATABASE_URL": "postgres://app:Sup3rS3cretPw@db.example.com:5432/app"}
    assert dropped_names(base=base) == ["DB_PASS", "GH_PAT", "MYSQL_PWD", "OPENAI_API_KEY_2", "PGPASSWORD"]
    env = command_env(base=base)
    assert env["DATABASE_URL"] == base["DATABASE_URL"], "kept: its name is not secret (its password is masked)"
    assert env["PWD"] == "/w" and env["KEY_FILE"] == "/etc/k.pem" and env["MAX_TOKENS"] == "4096"


def test_encoded_keys_webhooks_dsns_cookies_and_service_accounts_are_dropped() -> None:
    """A fifth audit: these reached every command, and their values printed unmasked."""
    secret = {"SSH_PRIVATE_KEY_B64": "LS0t", "GPG_PRIVATE_KEY_BASE64": "LS0t", "DISCORD_WEBHOOK": "https://d/x",
              "FIREBASE_SERVICE_ACCOUNT": "{}", "COOKIE": "sid=1", "HMAC_SIGNING": "k", "SENTRY_DSN": "https://k@s/1",
              "GOOGLE_CREDENTIALS_JSON": "{}", "TLS_KEY_PEM": "x", "SESSION_JWT": "eyJ"}
    ordinary = {"KEY_FILE": "/etc/k.pem", "PRIVATE_NETWORK": "10.0.0.0/8", "HOOK_DIR": "h", "PYTHONHASHSEED": "0",
                "ACCOUNT_ID": "12", "JSON_LOGS": "1", "SIGNING_ENABLED": "1"}
    assert sorted(dropped_names(base={**secret, **ordinary})) == sorted(secret)


def test_password_managers_sshpass_pw_and_webhook_urls_are_dropped() -> None:
    """A seventh audit: these reached every command (sandboxed ones too), the provider and the store."""
    secret = {"SSHPASS": "hunter22", "OP_SESSION_my": "abc123def456", "BW_SESSION": "c2Vzc2lvbg==",
              "LDAP_BIND_PW": "Bind#Pw2024", "DB_PW": "pw-value-1", "TEAMS_WEBHOOK_URL": "https://x.webhook/y",
              "DISCORD_WEBHOOK_URL": "https://discord.com/api/webhooks/1/abc", "OP_CONNECT_HOST": "http://op:8080"}
    ordinary = {"PWD": "/w", "SSH_AUTH_SOCK": "/run/s", "DESKTOP_SESSION": "gnome", "XDG_SESSION_TYPE": "wayland",
                "PASSENGER_ENV": "production", "HOOK_DIR": "h", "PWDEBUG": "1"}
    assert sorted(dropped_names(base={**secret, **ordinary})) == sorted(secret)
