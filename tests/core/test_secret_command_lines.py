"""Secrets on command lines with no ``NAME=`` before them, and quoted passphrases (``core.secret_cli``);
and names that glue the secret word to another (``PGPASSWORD``) or say ``passphrase``.  Each positive case
came out readable before (the model and the store got it); each negative one is a look-alike from ordinary
commands, code or docs that must stay as it is."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    """``text`` through a fresh Redactor, after checking that the gated scan finds what the full one does."""
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


@pytest.mark.parametrize("text, expected", [
    ("curl -u admin:S3cr3tPassw0rd https://api.example.com",
     "curl -u admin:[REDACTED:password] https://api.example.com"),
    ("curl --user admin:hunter22 -X POST x", "curl --user admin:[REDACTED:password] -X POST x"),
    ("curl -uadmin:pw12 x", "curl -uadmin:[REDACTED:password] x"),
    ('curl -s -u "deploy:my pass 1" x', 'curl -s -u "deploy:[REDACTED:password]" x'),
    ("curl --proxy-user bob:pr0xyPW http://x", "curl --proxy-user bob:[REDACTED:password] http://x"),
    ("curl \\\n  -H 'Accept: json' \\\n  -u admin:secretpw \\\n  https://x",
     "curl \\\n  -H 'Accept: json' \\\n  -u admin:[REDACTED:password] \\\n  https://x"),
    ("http -a user:pw123456 example.org", "http -a user:[REDACTED:password] example.org"),
    ("xh --auth user:pw123456 example.org", "xh --auth user:[REDACTED:password] example.org"),
    ("mysql -uroot -pS3cr3t! app", "mysql -uroot -p[REDACTED:password] app"),
    ("mysqldump -h db -u app -proot app > dump.sql", "mysqldump -h db -u app -p[REDACTED:password] app > dump.sql"),
    ('mysql -p"my pass" app', 'mysql -p"[REDACTED:password]" app'),
    ("/usr/bin/mariadb -uroot -pr00tpw", "/usr/bin/mariadb -uroot -p[REDACTED:password]"),
    ("sshpass -p Hunter2x ssh deploy@host", "sshpass -p [REDACTED:password] ssh deploy@host"),
    ("sshpass -pHunter2x scp a host:", "sshpass -p[REDACTED:password] scp a host:"),
    ("redis-cli -h cache -a s3cretRedis ping", "redis-cli -h cache -a [REDACTED:password] ping"),
    ("echo ok && docker login -u me -p Hunter2x registry.io",
     "echo ok && docker login -u me -p [REDACTED:password] registry.io"),
    ("oc login -u dev -p devpass1 https://api", "oc login -u dev -p [REDACTED:password] https://api"),
    ("gh auth --token ghx9Kq2mZ8vL4pR7tW1n", "gh auth --token [REDACTED:secret]"),
    ("tool --password Hunter2Hunter2x --verbose", "tool --password [REDACTED:secret] --verbose"),
    ("cli --api-key 'Xk39sdk29sLqAbC' --client-secret Nw8rT3kLpQ2m",
     "cli --api-key '[REDACTED:secret]' --client-secret [REDACTED:secret]"),
    ("terraform login -token Xk39sdk29sLqAbC", "terraform login -token [REDACTED:secret]"),
    ("keytool -genkey -storepass changeit2 -keypass abc12345",
     "keytool -genkey -storepass [REDACTED:secret] -keypass [REDACTED:secret]"),
    ("openssl rsa -in k.pem -passin pass:hunter22 -out k", "openssl rsa -in k.pem -passin pass:[REDACTED:secret] -out k"),
    ('{"command": "curl -u admin:S3cr3tPassw0rd https://x"}', '{"command": "curl -u admin:[REDACTED:password] https://x"}'),
])
def test_a_secret_given_on_a_command_line_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "git diff -u a.py b.py",
    "docker run -u 1000:1000 -p 8080:80 img",
    "mkdir -p /tmp/build && cp -a src /tmp/build",
    "mysql -u root -p mydatabase",
    "mysql --password mydatabase",
    "mysql -u root -p$MYSQL_PASSWORD app",
    "curl -u admin https://x",
    'curl -u "$USER:$PASS" https://x',
    "curl -u admin: https://x",
    "ssh -p 2222 deploy@host",
    "redis-server --port 6380 -a",
    "docker login -u me --password-stdin < pw.txt",
    "sshpass -f ~/.pw ssh host",
    "openssl rsa -passin env:KEY_PW -in k.pem",
    "openssl rsa -passin file:/run/secrets/pw",
    "tool --token-file ./token.txt --password-file /run/secrets/pw",
    "tool --token $GITHUB_TOKEN --api-key ${API_KEY}",
    "tool --token <token> --password YOUR_PASSWORD",
    "gcloud secrets create --secret-key projects/p/secrets/s/versions/1",
    "pytest --max-tokens 2048 -k test_login -p no:cacheprovider",
    "ls -la | grep -v pass",
    "git log --author=me -p",
])
def test_other_options_of_those_programs_are_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, expected", [
    ('DB_PASSWORD="correct horse battery staple"', 'DB_PASSWORD="[REDACTED:secret]"'),
    ("password = 'two words here ok'", "password = '[REDACTED:secret]'"),
    ('{"passphrase": "blue sky 42 over hill"}', '{"passphrase": "[REDACTED:secret]"}'),
    ('dbPassword: "my 2nd dog Rex"', 'dbPassword: "[REDACTED:secret]"'),
    ('client_secret := "abc def ghi jkl"', 'client_secret := "[REDACTED:secret]"'),
    ('{\\"password\\": \\"correct horse battery\\"}', '{\\"password\\": \\"[REDACTED:secret]\\"}'),
])
def test_a_quoted_passphrase_with_blanks_is_masked_whole(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    'ERROR_PASSWORD = "Wrong user name or password"',
    'password_help = "At least twelve characters"',
    'PASSWORD_PROMPT = "Enter the one you chose:"',
    'password: "Forgot it? Reset here."',
    'password = "must be %s long at least"',
    'secret_msg = "Not a real secret at all"',
    'bypass = "no cache for this one"',
    'api_key = "see the docs for one"',
    'password = "{{ vault_db }} and more"',
])
def test_labels_messages_and_templates_given_to_a_password_name_are_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, expected", [
    ("PGPASSWORD=Hunter2Hunter2x psql -h db", "PGPASSWORD=[REDACTED:PGPASSWORD] psql -h db"),
    ("GPG_PASSPHRASE=Xk39sdk29sLq", "GPG_PASSPHRASE=[REDACTED:GPG_PASSPHRASE]"),
    ('{"clientsecret": "Xk39sdk29sLqAbC"}', '{"clientsecret": "[REDACTED:secret]"}'),
])
def test_a_name_with_a_glued_secret_word_or_passphrase_is_secret(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text, found", [
    pytest.param("mysql -p" * 50_000, [("password", 5)] * 49_999, id="mysql-options-on-one-line"),
    pytest.param("curl " + "-u a:b " * 50_000, [], id="curl-short-passwords"),
    pytest.param("--token " * 50_000, [], id="flags-without-values"),
    pytest.param("-" * 200_000, [], id="dashes"),
    pytest.param("mysql \\\n" * 50_000 + "-pS3cr3t", [("password", 6)], id="continued-lines"),
    pytest.param('--token "' * 50_000, [], id="unclosed-quotes"),
    pytest.param("password = '" + "a b " * 50_000, [], id="passphrase-unclosed"),
    pytest.param('password = "x y' * 50_000, [], id="passphrase-names-in-values"),
])
def test_input_made_to_backtrack_is_scanned_in_one_pass(text: str, found: list[tuple[str, int]]) -> None:
    """Each is read in time linear in its length (a rule that went back over the line per option would
    hang here; speed itself is measured in ``scripts/bench_redact.py``)."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)
