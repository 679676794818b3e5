"""Secrets the scanner let through, found by review: a secret query parameter of a URL, a YAML value
on the line below its key, a quoted ``.netrc`` password, an AWS secret access key next to its key id.
Each positive case failed before its rule; the negative ones are ordinary code and prose that must
stay as they are."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor, secrets_from_env
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    """``text`` through a fresh Redactor (no environment values), after checking that the gated scan
    finds what the full one does."""
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


# -- 1. URL query-string credentials ---------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("https://api.example.com/v1/x?api_key=AbC123xyz987qwe&page=2",
     "https://api.example.com/v1/x?api_key=[REDACTED:url-param]&page=2"),
    ("GET /v1/x?page=1&access_token=AbC123xyz987qwe HTTP/1.1",
     "GET /v1/x?page=1&access_token=[REDACTED:url-param] HTTP/1.1"),
    ("curl 'https://h.example.com/x?token=AbC123xyz987qwe'",
     "curl 'https://h.example.com/x?token=[REDACTED:url-param]'"),
    ("https://h.example.com/cb?client_id=web&client_secret=AbC123xyz987qwe#top",
     "https://h.example.com/cb?client_id=web&client_secret=[REDACTED:url-param]#top"),
    ('<a href="https://h.example.com/x?a=1&amp;apiKey=AbC123xyz987qwe">x</a>',
     '<a href="https://h.example.com/x?a=1&amp;apiKey=[REDACTED:url-param]">x</a>'),
    ("see [the feed](https://h.example.com/feed?auth=AbC123xyz987qwe) for more",
     "see [the feed](https://h.example.com/feed?auth=[REDACTED:url-param]) for more"),
    ("https://b.s3.amazonaws.com/o?X-Amz-Security-Token=IQoJb3JpZ2luX2VjEJr%2F%2Fabc&X-Amz-Date=20240101T000000Z",
     "https://b.s3.amazonaws.com/o?X-Amz-Security-Token=[REDACTED:url-param]&X-Amz-Date=20240101T000000Z"),
    ("https://h.example.com/login?next=/app?token=AbC123xyz987qwe",
     "https://h.example.com/login?next=/app?token=[REDACTED:url-param]"),
    ("<https://h.example.com/x?password=hunter2%21abc>", "<https://h.example.com/x?password=[REDACTED:url-param]>"),
    ("wget http://h.example.com/dl?data[token]=AbC123xyz987qwe -O out",
     "wget http://h.example.com/dl?data[token]=[REDACTED:url-param] -O out"),
])
def test_a_secret_query_parameter_is_masked_and_the_rest_of_the_url_kept(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "https://h.example.com/x?page=2&sort=name",
    "https://h.example.com/authorize?response_type=token&grant_type=password&scope=read",
    'url = f"https://api.example.com/x?api_key={api_key}&q={query}"',
    'url = "https://api.example.com/x?token=" + token',
    "fetch(`https://api.example.com/x?token=${token}&page=${page}`)",
    "https://api.example.com/x?api_key=YOUR_API_KEY",
    "https://api.example.com/x?api_key=<your-api-key>",
    "https://api.example.com/x?api_key=%3Capi-key%3E&q=1",
    "https://api.example.com/x?api_key=%7Bapi_key%7D",
    "https://api.example.com/x?token=%s&page=%d",
    "https://api.example.com/x?max_tokens=100000000&stream=true",
    "https://api.example.com/x?key=12345678",
    "https://api.example.com/x?sort_key=created_at&order=desc",
    "https://huggingface.co/models?tokenizer=bert-base-uncased&author=google",
    "https://github.com/o/r/commit/3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f?diff=split&w=1",
    "https://www.google.com/search?q=password+reset+flow&hl=en",
    "if (ready && token=getToken()) { send(token) }",
    "eq(e){return this==e||e&&this.spec.key==e.spec.key||this.toDOM==e.toDOM}",  # minified JavaScript
])
def test_ordinary_query_strings_and_url_templates_are_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, expected", [
    ("https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z"
     "&spr=https&sig=Xk39sdk29sLqAbC%2Bq1w2e3r4t5y6u7i8o9p0%3D",
     "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z"
     "&spr=https&sig=[REDACTED:url-param]"),  # an Azure SAS URL: the signature makes it a working credential
    ("https://d111.cloudfront.net/v.mp4?Expires=1767225600&Signature=Xk39sdk29sLqAbC~q1w2e3r4t5y6u7i8o9p0__"
     "&Key-Pair-Id=K2JCJMDEHXQW5F",
     "https://d111.cloudfront.net/v.mp4?Expires=1767225600&Signature=[REDACTED:url-param]"
     "&Key-Pair-Id=K2JCJMDEHXQW5F"),
    ("https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600"
     "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
     "https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600"
     "&X-Amz-Signature=[REDACTED:url-param]"),
])
def test_a_query_parameter_that_signs_the_url_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "https://h.example.com/x?sig=1&signature=sha256",
    "https://h.example.com/x?design=modern_layout_v2&assign=reviewer_group",
    "https://h.example.com/x?oauth_signature_method=HMAC-SHA1&page=2",
    "if (a&&sig=computeSignature(b)) { send(sig) }",
])
def test_other_parameters_near_signature_names_are_left_alone(text: str) -> None:
    assert redacted(text) == text


def test_an_environment_urls_secret_query_parameter_is_a_known_secret() -> None:
    found = secrets_from_env({"HOOK_URL": "https://hooks.example.com/in?token=AbC123xyz987qwe&channel=ops"})
    assert found.get("AbC123xyz987qwe") == "HOOK_URL"
    assert Redactor(found)("token AbC123xyz987qwe printed") == "token [REDACTED:env:HOOK_URL] printed"


# -- 2. YAML: the value on the line(s) below the key ------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("db:\n  password:\n    Xk39s!dk29sLq\n  port: 5432\n",
     "db:\n  password:\n    [REDACTED:secret]\n  port: 5432\n"),
    ("token: |\n  Xk39s!dk29sLqAbc\n", "token: |\n  [REDACTED:secret]\n"),
    ("token: >-\n  Xk39s/dk29sLqAbc+\n  more9Lines9X==\nnext: 1\n",
     "token: >-\n  [REDACTED:secret]\n  [REDACTED:secret]\nnext: 1\n"),
    ("api_key: |+\n    AbC123xyz987\n\n    qwe456RTY789\nother: x\n",
     "api_key: |+\n    [REDACTED:secret]\n\n    [REDACTED:secret]\nother: x\n"),
    ("users:\n  - password:\n      Xk39s!dk29sLq\n", "users:\n  - password:\n      [REDACTED:secret]\n"),
    ('"secret_key":\n  Xk39s!dk29sLq', '"secret_key":\n  [REDACTED:secret]'),
    ("DB_PASSWORD:\n  Xk39s!dk29sLq\n", "DB_PASSWORD:\n  [REDACTED:DB_PASSWORD]\n"),
    ("password:\r\n  Xk39s!dk29sLq\r\nuser: me\r\n", "password:\r\n  [REDACTED:secret]\r\nuser: me\r\n"),
    ("client_secret:   \n  $2b$12$Xk39sdk29sLqAbC\n", "client_secret:   \n  [REDACTED:secret]\n"),
])
def test_a_yaml_value_below_its_secret_key_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "password:\n  host: db.example.com\n  user: admin\n",  # a mapping
    "password:\n  - Xk39s!dk29sLq\n",  # a list
    "password:\n  # set from the vault at deploy time\n",  # a comment
    "password:\n  abc9:\n    x: 1\n",  # a nested key
    "password:\n    free(buf);\n    return -1;\n",  # a C label
    "password:\n\t./scripts/gen_password.sh\n",  # a Makefile target (YAML never indents with tabs)
    "const cfg = {\n  token:\n    process.env.API_TOKEN,\n};\n",
    "password:\n  ${DB_PASSWORD}\n",
    'password:\n  "{{ vault_db_password }}"\n',
    "password:\n  {{ vault_db_password }}\n",
    "password:\n  *default_password\n",
    "password:\nXk39s!dk29sLq\n",  # not under the key
    "password: |\n  Use the one from the team vault\n",
    "password:\n  /run/secrets/db_password\n",
    "token:\n  https://auth.example.com/oauth2/token\n",
    "password:\n  value_for_password\n",
    "    Args:\n        token:\n            The token to send.\n",
    "class Config:\n    token: str\n    password: str = field(repr=False)\n    api_key: str | None = None\n",
    "auth:\n  type: basic\n  realm: internal\n",
    "key: |\n  multi word line one\n  line two\n",
    "        with:\n          password:\n            ${{secrets.DOCKER_PASSWORD}}\n",  # a GitHub Actions expression
    "RSAPrivateKey:\n  version=0\n  modulus=2807899077613349703232106435\n",  # a pretty-printer's fields
])
def test_yaml_mappings_lists_comments_and_code_below_a_secret_key_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 3. a quoted .netrc password ---------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ('machine h login u password "my secret pass"', "machine h login u password [REDACTED:netrc-password]"),
    ('machine h login u password "my \\"secret\\" pass" account x',
     "machine h login u password [REDACTED:netrc-password] account x"),
    ('machine h.example.com\n  login "me too"\n  password "a b c d"\n',
     "machine h.example.com\n  login \"me too\"\n  password [REDACTED:netrc-password]\n"),
    ('default login anonymous password "pass word 1"', "default login anonymous password [REDACTED:netrc-password]"),
    ('machine h password "my secret pass" login u', "machine h password [REDACTED:netrc-password] login u"),
    ('machine h login "me password Xy7pQ2mZ', 'machine h login "me password [REDACTED:netrc-password]'),
    ('machine h login u password "my secret pass\nmachine g login v password other1',
     "machine h login u password [REDACTED:netrc-password]\nmachine g login v password [REDACTED:netrc-password]"),
])
def test_a_quoted_netrc_password_is_masked_whole(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    'machine h login u password ""',
    'machine h login u password "${NETRC_PASSWORD}"',
    'machine learning "login" password "strength" models',
])
def test_an_empty_or_placeholder_quoted_netrc_password_is_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 4. an AWS secret access key next to its key id --------------------------------------------------

AWS_ID, AWS_SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


@pytest.mark.parametrize("text, expected", [
    (f"{AWS_ID},{AWS_SECRET}", "[REDACTED:aws-key],[REDACTED:aws-secret-key]"),
    (f"User name,Password,Access key ID,Secret access key,Console login link\n"
     f"bob,,{AWS_ID},{AWS_SECRET},https://123456789012.signin.aws.amazon.com/console\n",
     "User name,Password,Access key ID,Secret access key,Console login link\n"
     "bob,,[REDACTED:aws-key],[REDACTED:aws-secret-key],https://123456789012.signin.aws.amazon.com/console\n"),
    (f"{AWS_ID}\n{AWS_SECRET}\n", "[REDACTED:aws-key]\n[REDACTED:aws-secret-key]\n"),
    (f"| ASIAY34FZKBOKMUTVV7A | {AWS_SECRET} |", "| [REDACTED:aws-key] | [REDACTED:aws-secret-key] |"),
    (f"id {AWS_ID} secret +Ab3/{AWS_SECRET[5:]}", "id [REDACTED:aws-key] secret [REDACTED:aws-secret-key]"),
])
def test_an_aws_secret_key_beside_its_key_id_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text, expected", [
    (AWS_SECRET, AWS_SECRET),  # no key id near it: a 40-character word is not enough
    (f"{AWS_ID}\nline\n{AWS_SECRET}", f"[REDACTED:aws-key]\nline\n{AWS_SECRET}"),  # two lines below
    (f"{AWS_ID} commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
     "[REDACTED:aws-key] commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f"),
    (f"{AWS_ID} abcdefghijklmnopqrstuvwxyzabcdefghijklmn", "[REDACTED:aws-key] abcdefghijklmnopqrstuvwxyzabcdefghijklmn"),
    (f"{AWS_ID} ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ1234", "[REDACTED:aws-key] ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ1234"),
    (f"{AWS_ID} {AWS_SECRET}x", f"[REDACTED:aws-key] {AWS_SECRET}x"),  # 41 characters
    (f"{AWS_ID} sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",  # a base64 digest (44 characters)
     "[REDACTED:aws-key] sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="),
])
def test_other_words_near_an_aws_key_id_are_left_alone(text: str, expected: str) -> None:
    assert redacted(text) == expected


# -- hostile input: every rule reads it in one pass ----------------------------------------------------

@pytest.mark.parametrize("text, found", [
    pytest.param("machine h" + ' login "x login x"' * 3000, [], id="netrc-quoted-logins"),
    pytest.param('machine h login u password "' + "\\" * 100_000, [("netrc-password", 100_001)], id="netrc-backslashes"),
    pytest.param("https://h/x?" + "a" * 200_000, [], id="query-long-name"),
    pytest.param("&token=" * 40_000, [], id="query-empty-values"),
    pytest.param("?api_key=" + "Ab1" * 70_000, [("url-param", 210_000)], id="query-long-value"),
    pytest.param("password:\n" + "  Xk39s!dk29sLq\n" * 40_000, [], id="yaml-long-value"),
    pytest.param("token: |\n" + "  \n" * 100_000, [], id="yaml-blank-block"),
    pytest.param("password:\n" * 50_000, [], id="yaml-keys"),
    pytest.param("password:\n" + " " * 100_000 + "x y\n", [], id="yaml-long-indent"),
    pytest.param(("AKIAIOSFODNN7EXAMPLE " + "Ab1/" * 30 + "\n") * 5_000, [("aws-key", 20)] * 5_000,
                 id="aws-long-words"),
])
def test_input_made_to_backtrack_is_scanned_with_bounded_findings(text: str, found: list[tuple[str, int]]) -> None:
    """Texts shaped to make the new rules' regexes backtrack (an ambiguous netrc word, long runs with no
    end, a value longer than any secret's): each is read in linear time (a rule that backtracked
    exponentially would hang this test; speed itself is measured, not asserted), and a value is masked
    whole, however long, or, past ``_YAML_MAX_LINES`` lines, not at all."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)
