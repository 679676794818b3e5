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
    # curl's flags clustered before -u
    ("curl -sSfu admin:S3cr3tPw https://x", "curl -sSfu admin:[REDACTED:password] https://x"),
    ('curl -H "X-A: b" -su "admin:S3cr3tPw" x', 'curl -H "X-A: b" -su "admin:[REDACTED:password]" x'),
    # a tool call's command as JSON: a command after an escaped newline, quotes escaped
    ('{"command": "cd app\\nmysql -pS3cr3t db"}', '{"command": "cd app\\nmysql -p[REDACTED:password] db"}'),
    ('{"command": "curl -u \\"admin:S3cr3tPw\\" x"}', '{"command": "curl -u \\"admin:[REDACTED:password]\\" x"}'),
    ('{"command": "mysql -p\\"S3cr3t pw\\" db"}', '{"command": "mysql -p\\"[REDACTED:password]\\" db"}'),
    # lists of arguments: Dockerfile, compose, Kubernetes, Go, Python
    ('CMD ["redis-cli", "-a", "S3cr3tRedis", "ping"]', 'CMD ["redis-cli", "-a", "[REDACTED:password]", "ping"]'),
    ('exec.Command("mysql", "-uroot", "-pS3cr3t")', 'exec.Command("mysql", "-uroot", "-p[REDACTED:password]")'),
    ("subprocess.run(['curl', '-u', 'admin:S3cr3tPw', url])", "subprocess.run(['curl', '-u', 'admin:[REDACTED:password]', url])"),
    ('args: ["--token", "Xk39sdk29sLqAbC"]', 'args: ["--token", "[REDACTED:secret]"]'),
    ('args: ["--password=S3cr3tPw"]', 'args: ["--password=[REDACTED:secret]"]'),
    # a flag's value on the next line
    ("tool --token \\\n  Xk39sdk29sLqAbC", "tool --token \\\n  [REDACTED:secret]"),
    # other programs' password options
    ("command: redis-server --requirepass S3cr3tRedis", "command: redis-server --requirepass [REDACTED:secret]"),
    ("ldapsearch -x -D cn=admin,dc=x -w Hunter2xx", "ldapsearch -x -D cn=admin,dc=x -w [REDACTED:password]"),
    ("mongosh -u admin -p S3cr3tPw --authenticationDatabase admin",
     "mongosh -u admin -p [REDACTED:password] --authenticationDatabase admin"),
    ("twine upload -u __token__ -p Xk39sdk29sLqAbC dist/*", "twine upload -u __token__ -p [REDACTED:password] dist/*"),
    ("sqlcmd -S db -U sa -P 'Hunter2xx!'", "sqlcmd -S db -U sa -P '[REDACTED:password]'"),
    ("zip -P Hunter2xx out.zip f && 7z a -pHunter2xx out.7z f",
     "zip -P [REDACTED:password] out.zip f && 7z a -p[REDACTED:password] out.7z f"),
    # sshpass's -p, not the -p (port) of the ssh it runs
    ("sshpass -p Hunter2x ssh -p 2222 deploy@host", "sshpass -p [REDACTED:password] ssh -p 2222 deploy@host"),
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
    # a program's family ends with its command, and "login" is a registry's
    'docker login -u "$U" -p "$P" && docker run -p 8080:80 img',
    "cf login -a api -u me -p $CF_PW && cf push app -p build/libs/app.jar",
    '{"command": "docker login -u me -p $P\\ndocker run -p 8080:80 img"}',
    "After you login, create the folder with mkdir -p build/cache and run it.",
    "Docker: run docker login, then mkdir -p ~/.docker/cli-plugins",
    "ssh login@host -p 2222",
    # docs' placeholders and port mappings
    "curl -u user:password https://example.com",
    "curl --proxy-digest --proxy-user user:passwd -x proxy https://example.com",
    "redis-cli -a password ping",
    "mysql -u root -p[password] db",
    "curl -u 'api:key-XXXXXXXX' https://x",
    "docker run --name mysql -p3306:3306 -d mysql:8",
    "docker run -d --name mongo -p 27017:27017 mongo",
    # code that builds a command line
    'cmd = "mysql -uroot -p" + password + " db"',
    'cmd = f"mysql -u{user} -p{pw} {db}"',
    'OPTIONS = [("--token", "the API token to use"), ("--password", "the password")]',
    'program.option("--password [password]", "the password")',
    "x = '--token \"' * 3",
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
    ('docker run -e "DB_PASSWORD=correct horse battery" img', 'docker run -e "DB_PASSWORD=[REDACTED:secret]" img'),
    ("environment:\n  - 'API_SECRET=two words here ok'", "environment:\n  - 'API_SECRET=[REDACTED:secret]'"),
    # a command quoted whole is not a value with blanks: the assignment rule masks the password alone
    ('bash -c "PGPASSWORD=Hunter2Hunter2x psql -h db"', 'bash -c "PGPASSWORD=[REDACTED:PGPASSWORD] psql -h db"'),
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
    'error_bad_password = "That did not work, try again"',
    'wrongPassword: "Try another one"',
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
    pytest.param("pass: '" * 150_000, [], id="passphrase-words-on-one-line"),
    pytest.param("pass" * 250_000, [], id="passphrase-word-run"),
    pytest.param('redis-cli ' + '"-a", ' * 100_000, [], id="argument-list-options"),
    pytest.param("curl -" + "s" * 500_000, [], id="curl-cluster"),
    pytest.param("mysql " + "&&" * 200_000 + " -pS3cr3t", [], id="command-ends"),
    pytest.param(("docker" + " " * 1000 + "x") * 1000, [], id="registry-blanks"),
])
def test_input_made_to_backtrack_is_scanned_in_one_pass(text: str, found: list[tuple[str, int]]) -> None:
    """Each is read in time linear in its length (a rule that went back over the line per option would
    hang here; speed itself is measured in ``scripts/bench_redact.py``)."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)


@pytest.mark.parametrize("text, expected", [
    ("REDIS_URL=redis://:S3cr3tRedisPw@cache:6379/0", "REDIS_URL=redis://:[REDACTED:url-password]@cache:6379/0"),
    ("redis-cli -u redis://:hunter22@localhost", "redis-cli -u redis://:[REDACTED:url-password]@localhost"),
])
def test_a_url_password_with_an_empty_user_is_masked(text: str, expected: str) -> None:
    """Redis URLs carry the password with no user name; the URL rule wanted one character of user first."""
    assert redacted(text) == expected
