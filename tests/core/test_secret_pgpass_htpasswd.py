"""Two credential files the scanner let through: a PostgreSQL ``.pgpass`` entry
(``host:port:database:user:password``, no secret-named key in sight) and a password hash of an Apache
``htpasswd`` or ``/etc/shadow`` line (``user:$apr1$…``, ``root:$6$…:19000:…``).  Each positive case
failed before its rule (the password or the hash came out readable); each negative one is ordinary
text of the same shape (clock times, IPv6 addresses, compiler output, ``$PATH``, shell's ``$1``) that
must come out byte for byte as it went in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    """``text`` through a fresh Redactor (no environment values), after checking that the gated scan
    finds what the full one does."""
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


PG = "[REDACTED:pgpass-password]"

# -- 1. .pgpass entries ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text, secrets, expected", [
    pytest.param("localhost:5432:mydb:alice:S3cr3t-pass", ["S3cr3t-pass"],
                 f"localhost:5432:mydb:alice:{PG}", id="one-line"),
    pytest.param("$ cat ~/.pgpass\n# prod\ndb.example.com:5432:app:app_user:Xk39sdk29sLq\n*:*:*:postgres:pg-Adm1n-pw\n",
                 ["Xk39sdk29sLq", "pg-Adm1n-pw"],
                 f"$ cat ~/.pgpass\n# prod\ndb.example.com:5432:app:app_user:{PG}\n*:*:*:postgres:{PG}\n",
                 id="cat-output-with-wildcards"),
    pytest.param("db.internal:6432:*:svc:pa\\:ss\\\\word99", ["pa\\:ss", "word99"],
                 f"db.internal:6432:*:svc:{PG}", id="escaped-colon-and-backslash"),
    pytest.param("\\:\\:1:5432:db:alice:hunter2hunter2", ["hunter2hunter2"],
                 f"\\:\\:1:5432:db:alice:{PG}", id="ipv6-host-escaped"),
    pytest.param("/var/run/postgresql:5432:app:alice:S3cr3t-pass", ["S3cr3t-pass"],
                 f"/var/run/postgresql:5432:app:alice:{PG}", id="socket-directory-host"),
    pytest.param(".pgpass (2 lines)\n1| localhost:5432:*:alice:Tr0ub4dor&3\n2| 10.0.0.5:5433:reports:bob:c0rrect-horse",
                 ["Tr0ub4dor&3", "c0rrect-horse"],
                 f".pgpass (2 lines)\n1| localhost:5432:*:alice:{PG}\n2| 10.0.0.5:5433:reports:bob:{PG}",
                 id="read-file-numbered-lines"),
    pytest.param("     1\tlocalhost:5432:mydb:alice:S3cr3t-pass\n", ["S3cr3t-pass"],
                 f"     1\tlocalhost:5432:mydb:alice:{PG}\n", id="cat-n"),
    pytest.param("3:db.example.com:5432:app:app_user:Xk39sdk29sLq", ["Xk39sdk29sLq"],
                 f"3:db.example.com:5432:app:app_user:{PG}", id="grep-n"),
    pytest.param("localhost:5432:db:alice:S3cr3t-pass\r\nother.host:5432:db:bob:An0ther-pass\r\n",
                 ["S3cr3t-pass", "An0ther-pass"], f"localhost:5432:db:alice:{PG}\r\nother.host:5432:db:bob:{PG}\r\n",
                 id="crlf"),
    pytest.param("+db.example.com:5432:app:app_user:Xk39sdk29sLq", ["Xk39sdk29sLq"],
                 f"+db.example.com:5432:app:app_user:{PG}", id="diff-line"),
    pytest.param("```\n    localhost:5432:mydb:alice:S3cr3t-pass\n```", ["S3cr3t-pass"],
                 f"```\n    localhost:5432:mydb:alice:{PG}\n```", id="indented"),
    pytest.param("myserver.azure.com:5432:postgres:admin@myserver:S3cr3t-pass", ["S3cr3t-pass"],
                 f"myserver.azure.com:5432:postgres:admin@myserver:{PG}", id="user-at-server"),
    pytest.param("echo 'db.example.com:5432:app:app_user:Xk39sdk29sLq' >> ~/.pgpass", ["Xk39sdk29sLq"],
                 f"echo 'db.example.com:5432:app:app_user:{PG}' >> ~/.pgpass", id="echo-into-pgpass"),
    pytest.param('{"command": "cat > ~/.pgpass <<EOF\\ndb.example.com:5432:app:app_user:Xk39sdk29sLq\\nEOF\\nchmod 600 ~/.pgpass"}',
                 ["Xk39sdk29sLq"],
                 f'{{"command": "cat > ~/.pgpass <<EOF\\ndb.example.com:5432:app:app_user:{PG}\\nEOF\\nchmod 600 ~/.pgpass"}}',
                 id="heredoc-in-a-tool-call"),
    pytest.param('{"command": "echo \\"localhost:5432:*:alice:S3cr3t-pass\\" > ~/.pgpass"}', ["S3cr3t-pass"],
                 f'{{"command": "echo \\"localhost:5432:*:alice:{PG}\\" > ~/.pgpass"}}', id="escaped-quotes-in-json"),
    pytest.param('Path.home().joinpath(".pgpass").write_text("localhost:5432:*:alice:S3cr3t-pass\\n")', ["S3cr3t-pass"],
                 f'Path.home().joinpath(".pgpass").write_text("localhost:5432:*:alice:{PG}\\n")', id="python-fixture"),
    pytest.param("printf 'h1.example.com:5432:*:u1:Pw-0ne-xyz\\nh2.example.com:5432:*:u2:Pw-Tw0-xyz\\n' > $PGPASSFILE",
                 ["Pw-0ne-xyz", "Pw-Tw0-xyz"],
                 f"printf 'h1.example.com:5432:*:u1:{PG}\\nh2.example.com:5432:*:u2:{PG}\\n' > $PGPASSFILE",
                 id="two-entries-in-one-string"),
])
def test_a_pgpass_entrys_password_is_masked_and_host_and_user_kept(text: str, secrets: list[str], expected: str) -> None:
    out = redacted(text)
    assert PG in out
    for secret in secrets:
        assert secret not in out
    assert out == expected


@pytest.mark.parametrize("text", [
    "12:30:45",
    "2024-01-01 12:30:45 INFO worker:3:ready:ok:done",
    "12:30:45:123:456",
    "01:02:03:04:05",
    "10:20:30:40:50",
    "fe80:1234:abcd:ef01:2345",
    "2001:4860:4860:0:8888",
    "2001:db8::ff00:42:8329",
    "a:b:c:d:e",
    "tag:value:other:thing:more",
    "x = data[1:2:3]",
    "y = grid[::2, 1:3]",
    "http://example.com:8080/a:b:c",
    "postgres://alice@db.example.com:5432/app",
    "src/app.py:12:5: E501 line too long (120 > 79 characters)",
    "src/app.py:12:5:C0301:line-too-long",
    "main.c:12:5: error: expected ';' before '}' token",
    "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
    "hostname:port:database:username:password",
    "root:x:0:0:root:/root:/bin/bash",
    "docker:x:999:alice,bob",
    "the format is host:5432:db:user:secret, one entry per line",
    "localhost:5432:mydb:alice:${PGPASSWORD}",
    "*:*:*:*:<password>",
    ".env:3:REDIS_URL=redis://h:6379",
    'echo "$PGHOST:5432:$PGDATABASE:$PGUSER:$PGPASSWORD" > ~/.pgpass',
    "  3| x = a[1:2:3]",
    "00:1a:2b:3c:4d:5e",
    "localhost:0:mydb:alice:S3cr3t-pass",
    "localhost:99999:mydb:alice:S3cr3t-pass",
    "localhost:5432:mydb:alice:S3cr3t-pass:extra",
    "localhost:5432:my db:alice:S3cr3t-pass",
    "see localhost:5432:mydb:alice:S3cr3t-pass",
])
def test_colon_separated_look_alikes_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 2. htpasswd and shadow password hashes ---------------------------------------------------------------

APR1 = "$apr1$H6uskkkW$MPidaWP5CRtH33zClOpoR."
BCRYPT = "$2b$12$tZgZzjTaD9bJeGOeFk4sNOJ/9DqV7Ph0guMKBb3c1Rl0RpcODF4Ni"
SHA1 = "{SHA}87u9ZqY9S/F0eUBXjsPQEDUw4h0="
SHA256_CRYPT = "$5$yzD2uRZYsOzm2Lqy$zAIPSOv7TbfzP1qY4eQN6LwU2weHD.MjRg4OAJxwmj5"
SHA512_CRYPT = "$6$lPuLvzFwyAYffmAY$XTH1/62YoSTnyb1yivkpgELfnYCgWYHcu2nOih.MFuB/8.SCWQEtXrzwFOXVNZ157tzmZIIwdoE3J5i4AfTNv1"
SHA512_ROUNDS = ("$6$rounds=5000$abcdefgh$M/eYsB4rVXAm3ZNc88J.UD9rCKAT6FB1rahiwJCHtEndQNORCub5qhjxn50qbqVVthkM"
                 ".9HpEwtf0t.iV9uH0/")
MD5_CRYPT = "$1$RWHuYWsG$ILHtUV5bKmjEWFRy.sqwp."
YESCRYPT = "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$PmNgGTLMFjJn.URBv11CpTEm5RwlKtPjRtztKe6.b33"


@pytest.mark.parametrize("text, secret, expected", [
    pytest.param(f"admin:{APR1}", APR1, "admin:[REDACTED:apr1-hash]", id="apr1"),
    pytest.param(f"admin:{BCRYPT}", BCRYPT, "admin:[REDACTED:bcrypt-hash]", id="bcrypt-2b"),
    pytest.param("admin:" + BCRYPT.replace("$2b$", "$2y$"), BCRYPT[7:], "admin:[REDACTED:bcrypt-hash]", id="bcrypt-2y"),
    pytest.param("admin:" + BCRYPT.replace("$2b$", "$2a$"), BCRYPT[7:], "admin:[REDACTED:bcrypt-hash]", id="bcrypt-2a"),
    pytest.param(f"admin:{SHA1}", SHA1[5:], "admin:[REDACTED:sha-hash]", id="sha1"),
    pytest.param(f"admin:{SHA256_CRYPT}", SHA256_CRYPT, "admin:[REDACTED:sha256-crypt-hash]", id="sha256-crypt"),
    pytest.param(f"admin:{SHA512_CRYPT}", SHA512_CRYPT, "admin:[REDACTED:sha512-crypt-hash]", id="sha512-crypt"),
    pytest.param(f"root:{SHA512_CRYPT}:19000:0:99999:7:::", SHA512_CRYPT,
                 "root:[REDACTED:sha512-crypt-hash]:19000:0:99999:7:::", id="shadow-line"),
    pytest.param(f"daemon:*:19000:0:99999:7:::\nroot:{SHA512_ROUNDS}:19000:0:99999:7:::\n", SHA512_ROUNDS,
                 "daemon:*:19000:0:99999:7:::\nroot:[REDACTED:sha512-crypt-hash]:19000:0:99999:7:::\n",
                 id="shadow-rounds"),
    pytest.param(f"alice:!{YESCRYPT}:19500:0:99999:7:::", YESCRYPT,
                 "alice:![REDACTED:yescrypt-hash]:19500:0:99999:7:::", id="shadow-locked-yescrypt"),
    pytest.param(f"bob:{MD5_CRYPT}:18000:0:99999:7:::", MD5_CRYPT, "bob:[REDACTED:md5-crypt-hash]:18000:0:99999:7:::",
                 id="shadow-md5-crypt"),
    pytest.param(f"# .htpasswd\nadmin:{APR1}\nops:{BCRYPT}\n", "MPidaWP5CRtH33zClOpoR.",
                 "# .htpasswd\nadmin:[REDACTED:apr1-hash]\nops:[REDACTED:bcrypt-hash]\n", id="htpasswd-file"),
    pytest.param("1| admin:" + APR1, APR1, "1| admin:[REDACTED:apr1-hash]", id="numbered-line"),
    pytest.param('      - "traefik.http.middlewares.auth.basicauth.users=admin:' + APR1.replace("$", "$$") + '"',
                 "MPidaWP5CRtH33zClOpoR.",
                 '      - "traefik.http.middlewares.auth.basicauth.users=admin:[REDACTED:apr1-hash]"',
                 id="compose-doubled-dollars"),
    pytest.param('echo "admin:' + APR1.replace("$", "\\$") + '" > .htpasswd', "MPidaWP5CRtH33zClOpoR.",
                 'echo "admin:[REDACTED:apr1-hash]" > .htpasswd', id="shell-escaped-dollars"),
    pytest.param(f"users=admin:{APR1},ops:{BCRYPT}", "MPidaWP5CRtH33zClOpoR.",
                 "users=admin:[REDACTED:apr1-hash],ops:[REDACTED:bcrypt-hash]", id="comma-separated-users"),
    pytest.param(f"$ openssl passwd -apr1 -salt H6uskkkW hunter2\n{APR1}\n", "MPidaWP5CRtH33zClOpoR.",
                 "$ openssl passwd -apr1 -salt H6uskkkW hunter2\n[REDACTED:apr1-hash]\n", id="openssl-passwd-output"),
    pytest.param("userPassword: {SSHA}" + "Zm9vYmFyYmF6cXV4cXV1eHg5ODc2NTQzMjE=", "Zm9vYmFyYmF6cXV4",
                 "userPassword: [REDACTED:ssha-hash]", id="ldap-ssha"),
])
def test_a_password_hash_is_masked_and_the_user_kept(text: str, secret: str, expected: str) -> None:
    out = redacted(text)
    assert "-hash]" in out
    assert secret not in out
    assert out == expected


@pytest.mark.parametrize("text", [
    'echo $1 $HOME "$@"',
    'for f in "$@"; do echo "$1$2"; done',
    "awk -F: '{print $1\":\"$5}' /etc/passwd",
    "sed -E 's/(a+)(b+)/$1$2/g'",
    "price: $5$6 each",
    "{SHA}",
    "admin:{SHA}",
    "admin:{SHA}abc",
    'hashed = "{SHA}" + base64.b64encode(digest).decode()',
    "${SHA}0123456789abcdefghijklmnop",
    "admin:$apr1$H6uskkkW$tooShort",
    "admin:$2y$05$tooShort",
    "admin:$6$salt$notEightySixCharactersLong",
    "root:x:0:0:root:/root:/bin/bash",
    "root:*:19000:0:99999:7:::",
    "alice:!:19000::::::",
    "printf '%s$%s$%s' a b c",
    "re.sub(r'(\\d+)\\$(\\d+)', r'$1$2', s)",
    "PS1='\\u@\\h:\\w\\$ '",
])
def test_dollar_and_brace_look_alikes_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- hostile input: each new rule reads it in one pass ---------------------------------------------------

@pytest.mark.parametrize("text, found", [
    pytest.param("a:" * 200_000, [], id="colons"),
    pytest.param("x:1:" * 100_000, [], id="port-like-fields"),
    pytest.param(":1:" * 100_000, [], id="port-like-no-host"),
    pytest.param("h:5432:d:u:p\n" * 50_000, [], id="many-short-lines"),
    pytest.param("localhost:5432:db:u:" + "p" * 200_000, [("pgpass-password", 200_000)], id="pgpass-long-password"),
    pytest.param("localhost:5432:db:u:" + "\\:" * 100_000, [("pgpass-password", 200_000)], id="pgpass-escapes"),
    pytest.param("\\:" * 100_000 + ":5432:db:u:pass", [("pgpass-password", 4)], id="pgpass-long-host"),
    pytest.param("12:30:45 " * 100_000, [], id="clock-times-on-one-line"),
    pytest.param("x.pgpass '" + "h:5432:d:u:p'" * 50_000, [], id="pgpass-quoted-short"),
    pytest.param("$1$" * 100_000, [], id="dollar-one"),
    pytest.param("$y$" + "a" * 200 + "$" + "b" * 200 + "$" + "c" * 42, [], id="yescrypt-long-segments"),
    pytest.param("$$apr1" * 50_000, [], id="doubled-dollars"),
    pytest.param("{SHA}" * 50_000, [], id="sha-markers"),
    pytest.param("admin:{SHA}" + "A" * 200_000, [("sha-hash", 200_005)], id="sha-long"),
    pytest.param("$2y$05$" + "a" * 200_000, [], id="bcrypt-too-long"),
])
def test_input_made_to_backtrack_is_scanned_in_one_pass(text: str, found: list[tuple[str, int]]) -> None:
    """Texts shaped to make the new rules slow (a rule that backtracked would hang this test; speed
    itself is measured, not asserted); a long password or hash is masked whole."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)


#: Pieces of the new rules' texts and near misses: fields, separators, quotes, escapes, the file's name in
#: several cases (and with ``ſ``, which IGNORECASE would fold but ``str.lower`` does not), the schemes.
PARTS = [
    "localhost", "db.example.com", "\\:", "\\\\", ":", "5432", "*", "0", "99999", "app", "alice", "S3cr3t-pass",
    "\n", "\r\n", "\\n", "'", '"', '\\"', " ", "\t", "1| ", "3:", "+", "#", ".pgpass", "PGPASSFILE", "PgPass",
    "pgpa\u017f\u017f", "echo ", " >> ~/.pgpass", "$", "$$", "\\$", "apr1", "1", "2y", "05", "5", "6", "y", "j9T",
    "rounds=5000", "H6uskkkW", "MPidaWP5CRtH33zClOpoR.", "a" * 22, "b" * 43, "{SHA}", "{SSHA}", "{MD5}", "${SHA}",
    "87u9ZqY9S/F0eUBXjsPQEDUw4h0=", "=", APR1, BCRYPT, SHA1, YESCRYPT, "admin:", "root:", ":19000:0:99999:7:::",
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PARTS), st.text(max_size=4)), max_size=16).map("".join))
def test_prefilter_finds_exactly_what_the_full_scan_finds(text: str) -> None:
    assert find_secrets(text) == find_secrets(text, prefilter=False)
