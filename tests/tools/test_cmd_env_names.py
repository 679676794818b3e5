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
