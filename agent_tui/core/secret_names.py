"""Which names say their value is secret: a config key, a JSON field, an environment variable.

One rule decides both what the Redactor masks by name and which variables a command never gets
(``tools.cmd_env``), so the two cannot drift apart.  Names are split into words the way people write
them (``OPENAI_API_KEY``, ``githubToken``, ``PGPASSWORD``); the last word decides, because a qualifier
in front (``MAX_TOKENS`` vs ``GITHUB_TOKEN``) changes the meaning while one at the end usually does not.
"""

from __future__ import annotations

import re

_NAME_PARTS_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
#: A name's last word that marks its value secret (``OPENAI_API_KEY``, ``githubToken``).
_SECRET_LAST_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "passphrase",
        "credential",
        "credentials",
        "auth",
        "pat",
        "pw",
        "sshpass",
    }
)
#: Endings of a word that mark a value secret wherever the word is in the name (``SECRET_KEY_BASE``), also
#: glued to another word (``PGPASSWORD``, ``clientsecret``).
_SECRET_ANY_ENDINGS = ("secret", "password", "passwd", "passphrase")


def secret_name(name: str) -> bool:
    """True when a variable/key name says its value is a secret (``DB_PASSWORD``, ``apiKey``, ``PGPASSWORD``,
    ``GPG_PASSPHRASE``; not ``max_tokens``, ``sort_keys``, ``KEY_FILE``)."""
    words = [w.lower() for w in _NAME_PARTS_RE.findall(name)]
    if not words:
        return False
    return words[-1] in _SECRET_LAST_WORDS or any(w.endswith(_SECRET_ANY_ENDINGS) for w in words)


#: Environment variables a secret word names that hold no secret: the shell's working directories, and
#: the ssh agent's socket path (its name holds ``AUTH``; sandboxed commands lose it with the other agent
#: sockets, ``tools.cmd_env.AGENT_VARS``, and an unsandboxed ``git push`` over ssh needs it).
_ENV_NOT_SECRET = frozenset({"PWD", "OLDPWD", "SSH_AUTH_SOCK"})
#: Words that end a secret environment variable's name before a qualifier (``OPENAI_API_KEY_2``,
#: ``STRIPE_KEY_LIVE``): dropped from its end before ``secret_name`` looks at its last word.
_ENV_QUALIFIERS = frozenset({"old", "new", "prod", "production", "dev", "test", "staging", "live", "backup",
                             "b64", "base64", "json", "pem", "encoded", "hex", "raw"})
#: Last words of an environment variable whose value is a credential though no secret word says so: a
#: webhook URL posts as its owner, a DSN or cookie or JWT logs in, a signing key signs
#: (``DISCORD_WEBHOOK``, ``SENTRY_DSN``, ``COOKIE``, ``HMAC_SIGNING``).
_ENV_SECRET_LAST = frozenset({"webhook", "dsn", "cookie", "cookies", "jwt", "hmac", "signing"})
#: Endings of a word that mark an environment variable secret wherever the word is in its name, also
#: glued to another word (``PGPASSWORD``, ``GITHUBTOKEN``, ``TF_TOKEN_app_terraform_io``, ``SECRETS_JSON``).
_ENV_SECRET_ENDINGS = ("token", "secret", "secrets", "password", "passwd", "passphrase", "credential",
                       "credentials")


#: Words that mark an environment variable secret wherever they are in its name (``DOCKER_AUTH_CONFIG``,
#: ``TEAMS_WEBHOOK_URL``: a webhook's URL posts as its owner).
_ENV_SECRET_ANYWHERE = frozenset({"auth", "webhook", "webhooks"})
#: Credential variables no secret word names: sshpass's password, Bitwarden's and 1Password's session keys
#: (``OP_SESSION_<account>``, which unlocks the vault).
_ENV_SECRET_NAMES = frozenset({"SSHPASS", "BW_SESSION", "OP_SESSION"})
_ENV_SECRET_PREFIXES = ("OP_SESSION_", "OP_CONNECT_")


def secret_env_name(name: str) -> bool:
    """True when an environment variable's name says its value is secret: the one rule for the
    values the Redactor masks (``core.redact.secrets_from_env``) and the variables commands never get
    (``tools.cmd_env.command_env``).

    ``secret_name`` (by the last word: ``DB_PASS``, ``MYSQL_PWD``, ``GH_PAT``, ``OPENAI_API_KEY``; not
    ``KEY_FILE``, ``MAX_TOKENS``, ``PASSENGER_ENV``, ``AWS_ACCESS_KEY_ID``) after dropping a numeric or
    ``_ENV_QUALIFIERS`` suffix (``SSH_PRIVATE_KEY_B64``), a last word of ``_ENV_SECRET_LAST`` or a
    ``…_SERVICE_ACCOUNT``, a word ending with one of ``_ENV_SECRET_ENDINGS``, a word of ``_ENV_SECRET_ANYWHERE``
    (``DOCKER_AUTH_CONFIG``, ``TEAMS_WEBHOOK_URL``), or one of ``_ENV_SECRET_NAMES`` (``SSHPASS``,
    ``OP_SESSION_my``); never ``PWD`` or ``SSH_AUTH_SOCK``."""
    if name in _ENV_NOT_SECRET:
        return False
    if name.upper() in _ENV_SECRET_NAMES or name.upper().startswith(_ENV_SECRET_PREFIXES):
        return True
    words = [w.lower() for w in _NAME_PARTS_RE.findall(name)]
    while len(words) > 1 and (words[-1].isdigit() or words[-1] in _ENV_QUALIFIERS):
        words.pop()
    if not words:
        return False
    if words[-1] in _SECRET_LAST_WORDS or words[-1] in _ENV_SECRET_LAST or words[-2:] == ["service", "account"]:
        return True
    return any(w in _ENV_SECRET_ANYWHERE or w.endswith(_ENV_SECRET_ENDINGS) for w in words)
