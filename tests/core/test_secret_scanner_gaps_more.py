"""More secrets the scanner let through, found by review: a value ``aws configure set`` stores, an AWS
secret key on the line before its key id (and the ``ABIA``/``ACCA`` ids), YAML values behind a comment,
a blank line, a tag or an anchor and on a diff's lines, a second ``.netrc`` entry on a line, values
longer than 400 characters; and, found on the way, a JWT's signature, a ``--password=`` flag and a
``.env`` line in a diff.  Each positive case failed before its rule (the secret came out readable);
each negative one is a look-alike in ordinary code, config or docs that must stay as it is."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    """``text`` through a fresh Redactor (no environment values), after checking that the gated scan
    finds what the full one does."""
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


AWS_ID, AWS_SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDx"

# -- 1. aws configure set NAME VALUE ----------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    (f"aws configure set aws_secret_access_key {AWS_SECRET}",
     "aws configure set aws_secret_access_key [REDACTED:aws-secret-key]"),
    (f"$ aws configure set aws_session_token {SESSION_TOKEN} --profile prod",
     "$ aws configure set aws_session_token [REDACTED:aws-session-token] --profile prod"),
    (f"aws configure set aws_access_key_id {AWS_ID}", "aws configure set aws_access_key_id [REDACTED:aws-key]"),
    ("aws configure set aws_access_key_id AKIAEXAMPLEID1234", "aws configure set aws_access_key_id [REDACTED:aws-key]"),
    ('aws configure set --profile prod aws_secret_access_key "Xk39s/dk29sLqAbC"',
     'aws configure set --profile prod aws_secret_access_key "[REDACTED:aws-secret-key]"'),
    ("aws configure set profile.prod.aws_secret_access_key Xk39s/dk29sLq && aws s3 ls",
     "aws configure set profile.prod.aws_secret_access_key [REDACTED:aws-secret-key] && aws s3 ls"),
    ("npm config set //registry.example.com/:_authToken Xk39sdk29sLqAbC",
     "npm config set //registry.example.com/:_authToken [REDACTED:secret]"),
    ("yarn config set npmAuthToken 'Xk39s dk29sLqAbC'", "yarn config set npmAuthToken '[REDACTED:secret]'"),
])
def test_a_secret_a_cli_config_set_stores_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "aws configure set region us-west-2",
    "aws configure set default.ca_bundle /path/to/ca-bundle.pem",
    "aws configure set aws_access_key_id default_access_key",  # the AWS CLI's own docs
    "aws configure set aws_secret_access_key $AWS_SECRET_ACCESS_KEY",
    'aws configure set aws_secret_access_key "${{ secrets.AWS_SECRET_ACCESS_KEY }}"',
    "aws configure set aws_secret_access_key <your-secret-access-key>",
    "aws configure get aws_secret_access_key",
    'aws configure set aws_secret_access_key "$(pass show aws/secret)"',
    "npm config set token-timeout 3600000",
    "git config set credential.helper store-credentials",
    "Run configure set with the name and the value of the setting.",
])
def test_other_settings_and_placeholders_a_cli_sets_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 2. an AWS secret key on the line before its key id; the ABIA and ACCA ids -----------------------


@pytest.mark.parametrize("text, expected", [
    (f"{AWS_SECRET}\n{AWS_ID}\n", "[REDACTED:aws-secret-key]\n[REDACTED:aws-key]\n"),
    (f"| secret | {AWS_SECRET} |\n| id     | {AWS_ID} |",
     "| secret | [REDACTED:aws-secret-key] |\n| id     | [REDACTED:aws-key] |"),
    (f"ABIAIOSFODNN7EXAMPLE {AWS_SECRET}", "[REDACTED:aws-key] [REDACTED:aws-secret-key]"),
    (f"ACCAIOSFODNN7EXAMPLE,{AWS_SECRET}", "[REDACTED:aws-key],[REDACTED:aws-secret-key]"),
    (f"{AWS_SECRET}\r\nABIAIOSFODNN7EXAMPLE", "[REDACTED:aws-secret-key]\r\n[REDACTED:aws-key]"),
])
def test_an_aws_secret_key_on_the_line_before_its_id_or_beside_any_id_prefix_is_masked(
        text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text, expected", [
    (f"{AWS_SECRET}\nline\n{AWS_ID}", f"{AWS_SECRET}\nline\n[REDACTED:aws-key]"),  # two lines above
    (f"3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f\n{AWS_ID}", "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f\n[REDACTED:aws-key]"),
    (f"abcdefghijklmnopqrstuvwxyzabcdefghijklmn\n{AWS_ID}", "abcdefghijklmnopqrstuvwxyzabcdefghijklmn\n[REDACTED:aws-key]"),
    (f"ACCAIOSFODNN7EXAMPL {AWS_SECRET}", f"ACCAIOSFODNN7EXAMPL {AWS_SECRET}"),  # 19 characters: no id
    (f"ABIAS are rare.\n{AWS_SECRET}", f"ABIAS are rare.\n{AWS_SECRET}"),
])
def test_a_40_character_word_far_from_any_key_id_is_left_alone(text: str, expected: str) -> None:
    assert redacted(text) == expected


# -- 3. YAML: a comment, a blank line, a tag or an anchor before the value; a diff's lines ----------


@pytest.mark.parametrize("text, expected", [
    ("password: # the db one\n  Xk39s!dk29sLq\n", "password: # the db one\n  [REDACTED:secret]\n"),
    ("token: | # rotated monthly\n  Xk39s!dk29sLqAbc\n", "token: | # rotated monthly\n  [REDACTED:secret]\n"),
    ("password:\n\n  Xk39s!dk29sLq\n", "password:\n\n  [REDACTED:secret]\n"),
    ("password:\n  # from the vault\n  Xk39s!dk29sLq\n", "password:\n  # from the vault\n  [REDACTED:secret]\n"),
    ("password:\n  Xk39s!dk29sLq  # prod\n", "password:\n  [REDACTED:secret]  # prod\n"),
    ("password:\n  Xk39s!dk29sLq\n\n  more9Lines9X\nuser: me\n",
     "password:\n  [REDACTED:secret]\n\n  [REDACTED:secret]\nuser: me\n"),  # a plain scalar's lines fold
    ("password: !!str Xk39s!dk29sLq\n", "password: !!str [REDACTED:secret]\n"),
    ('password: !!str "my secret pass"  # c\n', 'password: !!str "[REDACTED:secret]"  # c\n'),
    ("password: !unsafe 'p@ss{w0rd}xy'\n", "password: !unsafe '[REDACTED:secret]'\n"),
    ("token: &tok Xk39sdk29sLqAbC\nother: *tok\n", "token: &tok [REDACTED:secret]\nother: *tok\n"),
    ("password: &pw !!str\n  Xk39s!dk29sLq\n", "password: &pw !!str\n  [REDACTED:secret]\n"),
    ("db:\n  - password: !!binary Xk39sdk29sLqAbC==\n", "db:\n  - password: !!binary [REDACTED:secret]\n"),
    ("+  password:\n+    Xk39s!dk29sLq\n", "+  password:\n+    [REDACTED:secret]\n"),
    ("-password:\n-  Xk39s!dk29sLq\n", "-password:\n-  [REDACTED:secret]\n"),
    (" db:\n   password:\n-    Xk39s!dk29sLq\n+    Nw7Qm2!pLx8vZ\n   port: 5432\n",
     " db:\n   password:\n-    [REDACTED:secret]\n+    [REDACTED:secret]\n   port: 5432\n"),
    ("@@ -1,3 +1,3 @@\n+token: |\n+  Xk39s!dk29sLqAbc\n+  more9Lines9X\n",
     "@@ -1,3 +1,3 @@\n+token: |\n+  [REDACTED:secret]\n+  [REDACTED:secret]\n"),
    ("+  password: !!str Xk39s!dk29sLq\n", "+  password: !!str [REDACTED:secret]\n"),
    ("+  password: s3cr3t-value\n-  password: 0ld-s3cr3t\n", "+  password: [REDACTED:secret]\n-  password: [REDACTED:secret]\n"),
    ("password: !Passw0rd-42\n", "password: [REDACTED:secret]\n"),  # no tag: it has a digit
    ("+DB_PASSWORD=Xk39s!dk29sLq\n-DB_PASSWORD=0ld-s3cr3t\n",
     "+DB_PASSWORD=[REDACTED:DB_PASSWORD]\n-DB_PASSWORD=[REDACTED:DB_PASSWORD]\n"),  # a .env file's diff
])
def test_a_yaml_value_behind_a_comment_a_tag_an_anchor_or_a_diff_column_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "password: !Ref DbPassword2\n",  # CloudFormation: a reference
    "password: !GetAtt Db.Secret2\n",
    "password: !secret wifi_password_2\n",  # Home Assistant: the name of a secret in secrets.yaml
    "token: !ENV ${API_TOKEN}\n",
    "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  62313365396662343061393464336163383764373764613633653634306231\n",
    "password: # set at deploy time\nuser: admin\n",
    "password: # TODO\n  host: db.example.com\n  port: 5432\n",
    "password: !!str ${DB_PASSWORD}\n",
    "password: !!str\n  host: db\n",
    "token: &default_token\n  *other_token\n",
    "password:\n\n    The password to use.\n",
    "password:\n  # the one from the vault\n  - Xk39s!dk29sLq\n",
    "password: &pw\n  {{ vault_db_password }}\n",
    "tags: !!str Xk39s!dk29sLq\n",
    "+  password:\n+    host: db.example.com\n",
    "   password:\n-    free(buf);\n+    return -1;\n",
    "@@ -1 +1 @@\n-password:\n+password: ${DB_PASSWORD}\n",
    "  password:\n- use a strong one\n",
    "    Args:\n        token:\n\n            The token to send.\n",
])
def test_tags_that_name_something_else_and_what_is_no_value_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 4. a second .netrc entry on one line ------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("machine a.example.com login u password Xy7pQ2mZ machine b.example.com login v password Nw8rT3kL",
     "machine a.example.com login u password [REDACTED:netrc-password] "
     "machine b.example.com login v password [REDACTED:netrc-password]"),
    ("default login anonymous password Xy7pQ2mZ machine b login v password Nw8rT3kL",
     "default login anonymous password [REDACTED:netrc-password] machine b login v password [REDACTED:netrc-password]"),
    ('machine a login u password "my pass" machine b login v password Nw8rT3kL',
     "machine a login u password [REDACTED:netrc-password] machine b login v password [REDACTED:netrc-password]"),
    ("$ echo 'machine api.example.com login me password Xy7pQ2mZ' >> ~/.netrc",
     "$ echo 'machine api.example.com login me password [REDACTED:netrc-password] >> ~/.netrc"),
])
def test_every_netrc_entry_of_a_line_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "We train a machine learning model; the login and password fields stay as they are.",
    "On each machine login as root, then password prompts appear.",
    "Set the default password policy and the login banner.",
    "the default login password reset flow",
])
def test_prose_with_netrc_words_mid_line_is_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- 5. values longer than 400 characters --------------------------------------------------------------

LONG = "Xk39sdk29sLqAbC" * 40  # 600 characters
JWT = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" * 20 + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"


@pytest.mark.parametrize("text, expected", [
    (f"API_KEY={LONG}", "API_KEY=[REDACTED:API_KEY]"),
    (f"API_KEY={LONG} next", "API_KEY=[REDACTED:API_KEY] next"),
    (f'export DB_PASSWORD="{LONG}"', 'export DB_PASSWORD="[REDACTED:DB_PASSWORD]"'),
    (f'{{"api_key": "{LONG}"}}', '{"api_key": "[REDACTED:secret]"}'),
    (f"token: {JWT}", "token: [REDACTED:jwt]"),
    (f"Authorization: Bearer {LONG}", "Authorization: Bearer [REDACTED:authorization]"),
    (f"https://h.example.com/x?access_token={LONG}&page=2", "https://h.example.com/x?access_token=[REDACTED:url-param]&page=2"),
    (f"password:\n  {LONG}\n", "password:\n  [REDACTED:secret]\n"),
    (f'machine h login u password "{LONG} x"', "machine h login u password [REDACTED:netrc-password]"),
])
def test_a_value_longer_than_400_characters_is_masked_whole(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    f"DATA={LONG}",  # not a secret's name
    "token = config." + "nested_settings." * 30 + "value",  # code, longer than 400 characters
    "API_KEY=" + "1234567890" * 50,  # a number
    f"MAX_TOKENS={LONG}",
])
def test_a_long_value_of_no_secret_is_left_alone(text: str) -> None:
    assert len(text) > 400
    assert redacted(text) == text


# -- found on the way: a JWT's signature, a secret flag ---------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end",
     "jwt [REDACTED:jwt] end"),  # the signature came out readable: the plugin's regex ends lazily
    ("GET /cb/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.SflKxwRJSMeKKF2QT4fw/profile HTTP/1.1",
     "GET /cb/[REDACTED:jwt]/profile HTTP/1.1"),
    ("eyJhbGciOiJSU0EtT0FFUCJ9.ZW5jcnlwdGVka2V5.aXZpdg.Y2lwaGVydGV4dA.dGFn.", "[REDACTED:jwt]."),  # a JWE's 5 parts
])
def test_a_jwt_is_masked_with_its_signature(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "the eyJ prefix marks base64 of a JSON object", "eyJhbGciOiJIUzI1NiJ9 is only a header",
])
def test_what_only_starts_like_a_jwt_is_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, expected", [
    ("mysql -u root --password=Xk39s!dk29sLq app", "mysql -u root --password=[REDACTED:secret] app"),
    ("docker login --username me --password=Xk39sdk29sLq", "docker login --username me --password=[REDACTED:secret]"),
    ("  --admin-password=123Abpassdord \\", "  --admin-password=[REDACTED:secret] \\"),
    ("tool -token=Xk39sdk29sLqAbC", "tool -token=[REDACTED:secret]"),
    ("cli --api-key=Xk39sdk29sLqAbC --secret-key=Nw8rT3kLpQ2m", "cli --api-key=[REDACTED:secret] --secret-key=[REDACTED:secret]"),
])
def test_a_secret_flags_value_is_masked(text: str, expected: str) -> None:
    assert redacted(text) == expected


@pytest.mark.parametrize("text", [
    "gcloud kms ... --kms-key=projects/p/locations/l/keyRings/r/cryptoKeys/k",
    "--authorizer-token-secret-version=projects/p/secrets/api-pat/versions/1",
    "gcloud ... --secret=projects/my-project/secrets/my-secret/versions/1",
    "ssh-keygen --ssh-key=~/.ssh/id_ed25519",
    "aws codestar-connections list-connections --next-token: AbC123xyz987",
    "gcloud access-context-manager cloud-bindings create --group-key=my-group-key-2",
    "psql --password-file=/run/secrets/db_password",
    "pytest --token-budget=1000000 --max-tokens=2048",
    "program --password=$DB_PASSWORD --token=<token>",
])
def test_other_flags_near_secret_words_are_left_alone(text: str) -> None:
    assert redacted(text) == text


# -- hostile input: every new rule reads it in one pass -----------------------------------------------


@pytest.mark.parametrize("text, found", [
    pytest.param("key" + " " * 5_000 + "x", [], id="keyword-then-spaces"),  # took hours: cubic
    pytest.param("ibm_api_key = " + "aB3-_" * 8 + "aB3-\n" + "key" + " " * 5_000 + "x", [("ibm-cloud-key", 58)],
                 id="keyword-then-spaces-with-a-key"),
    pytest.param("eyJ" * 100_000, [], id="jwt-headers"),  # quadratic
    pytest.param("a//b.c(d);" * 50_000, [], id="npm-slashes"),  # quadratic
    pytest.param("API_KEY=" + "Ab1" * 100_000, [("API_KEY", 300_000)], id="assign-long-value"),
    pytest.param('API_KEY="' + "Ab1" * 100_000, [("API_KEY", 300_000)], id="assign-long-unclosed"),
    pytest.param("token=(" * 40_000, [("secret", 279_994)], id="assign-nested"),
    pytest.param("AKIAIOSFODNN7EXAMPLE " * 20_000, [("aws-key", 20)] * 20_000, id="aws-ids-on-one-line"),
    pytest.param("x" * 200_000 + "\nAKIAIOSFODNN7EXAMPLE", [("aws-key", 20)], id="aws-long-line-before"),
    pytest.param(" default port" * 50_000, [], id="netrc-mid-line-defaults"),
    pytest.param('machine h login u password "' + "a" * 200_000 + '"', [("netrc-password", 200_002)],
                 id="netrc-long-quoted"),
    pytest.param('aws configure set aws_secret_access_key "' + "\\" * 100_000, [("aws-secret-key", 100_000)],
                 id="config-set-backslashes"),
    pytest.param("config set token " * 30_000, [], id="config-set-repeated"),
    pytest.param("password: !!str " + "Ab1" * 100_000, [("secret", 300_000)], id="yaml-inline-long"),
    pytest.param("password:\n  " + "Ab1" * 100_000, [("secret", 300_000)], id="yaml-below-long"),
    pytest.param("password:" + " " * 100_000 + "x", [], id="yaml-key-then-spaces"),
    pytest.param("password:\n" + "  # c\n" * 100_000, [], id="yaml-comment-lines"),
    pytest.param("+password:\n" + "+  Xk39s!dk29sLq\n" * 40_000, [], id="yaml-diff-long-value"),
    pytest.param("password: " + "&a " * 50_000 + "x", [], id="yaml-many-anchors"),
])
def test_input_made_to_backtrack_is_scanned_in_one_pass(text: str, found: list[tuple[str, int]]) -> None:
    """Texts shaped to make the changed rules slow: each is read in time linear in its length (a rule
    that backtracked would hang this test; speed itself is measured, not asserted), and a long value
    is masked whole."""
    assert [(f.kind, f.end - f.start) for f in find_secrets(text)] == found
    assert find_secrets(text, prefilter=False) == find_secrets(text)


# -- a fourth audit: a kubeconfig's base64 key, Pulumi tokens, PEM-like token blocks, XML key/value settings --

_PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Vv8kQ\n-----END RSA PRIVATE KEY-----\n"
_CERT = "-----BEGIN CERTIFICATE-----\nMIICpDCCAYwCCQ\n-----END CERTIFICATE-----\n"


@pytest.mark.parametrize("text, hidden", [
    ("    client-key-data: " + __import__("base64").b64encode(_PEM.encode()).decode(), "LS0tLS1CRUdJTiBSU0Eg"),
    ('{"accessTokens": {"https://api.pulumi.com": "pul-' + "a1" * 20 + '"}}', "pul-a1a1"),
    ("-----BEGIN ARGO TUNNEL TOKEN-----\neyJhIjoiYiJ9c2VjcmV0dG9rZW4\n-----END ARGO TUNNEL TOKEN-----", "eyJhIjoi"),
    ('<add key="ClearTextPassword" value="hunter2-Secret-99" />', "hunter2-Secret-99"),
    ('<add key="ApiKey" value="k3y-0123456789abcdef" />', "k3y-0123456789abcdef"),
])
def test_the_fourth_audits_formats_are_masked(text: str, hidden: str) -> None:
    assert hidden not in redacted(text)


@pytest.mark.parametrize("text", [
    "    client-certificate-data: " + __import__("base64").b64encode(_CERT.encode()).decode(),
    '<add key="Username" value="alice-the-user" />',
    '<add key="ApiKey" value="$(NUGET_KEY)" />',
    "pul-request: fetch it",
])
def test_their_look_alikes_stay(text: str) -> None:
    assert redacted(text) == text
