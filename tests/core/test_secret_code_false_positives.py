"""Source code the scanner read as secrets, found by scanning a virtualenv's site-packages (9,721 modules,
989 findings, nearly all code): an expression after a secret-named variable (``key = key[:-2]``), a
regex in a ``*_PAT`` constant, a constant naming a header or a cache key, a name referring to a key, an
alphabet written out, a keyword plugin reading a long snake_case name as an IBM key, a URL's placeholder
password.  Each negative case was masked before its rule (the model saw code that is not in the file);
each positive one is a real secret next to the rule that must stay masked."""

from __future__ import annotations

import time

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


@pytest.mark.parametrize("text", [
    # an expression after a secret name (core.secret_code.code_expression)
    "        key = key[:-2]\n",
    "    key = (state.font, state.fontsize, state.dpi)\n",
    "            f\"{type(self).__name__}(key={self.other})\"\n",
    "        binary_token = tokens.send(1+nbytes_token.value())\n",
    "        data_r = {key: (functools.partial(self._reverser, data)\n",
    "    cache_key = self.cached_result[1]\n",
    "    sec_key = base64.b64encode(os.urandom(16))\n",
    "            key = match.group(1)\n",
    "    result_key = [jmespath.compile(rk) for rk in result_key]\n",
    "TextGenerationStreamOutput(token=TokenElement(id=1425, text='100', logprob=-1.0175781))\n",
    "    access_token: SecretStr = Field(min_length=1)\n",
    "        owner.connect(sandbox_id, namespace=namespace, token=token).kill()\n",
    "        image = {image_key: {**image[image_key]}}\n",
    "        raise ValueError(f\"Bad starting token: {self._starting_token}\")\n",
    "    \"tenant_id=%s, client_id=%s, client_secret=[set=%s]\",\n",
    "    split_token = split_token[:-1]\n",
    "    AND ($3::text IS NULL OR api_key = $3::text)\n",
    "        for k, v in sorted(object.items(), key=_safe_tuple):\n",
    "    auth = (username, token)\n",
    "    :param auth: (optional) Auth tuple to enable Basic/Digest/Custom HTTP Auth.\n",
    "    SortedKeyList([3, 2, 1], key=<built-in function neg>)\n",
    # a name referring to a key (name_reference), the assigned name itself
    "    def exchange(self, peer_public_key: X25519PublicKey) -> bytes:\n",
    "        self, public_key: ed25519.Ed25519PublicKey, f_pub: _FragList\n",
    "    aws_auth: httpx2.Auth | None = None,\n",
    "        aws_session_token=self.s3_aws_session_token,\n",
    "    s3_aws_secret_access_key=s3_aws_secret_access_key,\n",
    "    def _retained_assertion(auth: \"OneLogin_Saml2_Auth\") -> None:\n",
    "        key=REDIS_GATEWAY_REQUESTS_BUFFER_KEY_V2, values=(json.dumps(rows),)\n",
    # a regex or a format (regex_value)
    'HEX_PAT = "[0-9A-Fa-f]{1,4}"\n',
    'LS32_PAT = "(?:{hex}:{hex}|{ipv4})".format(hex=HEX_PAT, ipv4=IPV4_PAT)\n',
    'ZONE_ID_PAT = "(?:%25|%)(?:[" + UNRESERVED_PAT + "]|%[a-fA-F0-9]{2})+"\n',
    '_INIT_FACTORY_PAT = "__attr_factory_%s"\n',
    'TOKEN = "[a-zA-Z_][a-zA-Z0-9_-]*"\n',
    '        token = "unknown_12_%d" % byteord(self.bytecode[index - 1])\n',
    '    tok = re.findall("token=([a-z0-9]+)", url)[0]\n',
    # a name made of words (word_value), a reference, a template's field
    "CONFIGFILE_KEY = 'pydantic-mypy'\n",
    'SPAN_KEY = "current-span"\n',
    'CACHE_KEY = "litellm:health_check:deployment_health_state"\n',
    'ASSISTANTS_HEADER_KEY = "OpenAI-Beta"\n',
    'HUGGINGFACE_HEADER_X_XET_ACCESS_TOKEN = "X-Xet-Access-Token"\n',
    'CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"\n',
    "    LANGFUSE_SECRET_KEY: Required. Langfuse secret key for authentication.\n",
    "    secret_name: Name/path of the secret to read\n",
    "  :type credentials: :py:class:`~botocore.credentials.Credentials`\n",
    "      master_key: os.environ/LITELLM_MASTER_KEY\n",
    '# Generate one with: echo "LITELLM_MASTER_KEY=sk-$(openssl rand -hex 32)"\n',
    '    api_key="{key_token}",\n',
    # the plugins: an alphabet, a path of words, a snake_case name after ``key:``, an x placeholder
    ">>> english_lower('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_')\n",
    "    digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'\n",
    '    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"\n',
    'pkey = r"HARDWARE\\DESCRIPTION\\System\\CentralProcessor"\n',
    '    Slug of the collection. E.g. `"TheBloke/recent-models-64f9a55bb3115b4f513ec026"`.\n',
    "    return {key: _with_portable_cache_control_in_scoped_value(key, value) for key, value in p.items()}\n",
    "        api_key=LITTELM_INTERNAL_HEALTH_SERVICE_ACCOUNT_NAME,\n",
    "    # Account SID (ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx)\n",
    # a URL's placeholder password, a PEM marker pair with no key, prose after "Bearer"
    '    :param proxy_url: The proxy url, i.e. https://username:password@proxy.com\n',
    '    redis_url = f"redis://:{password}@{host}:{port}"\n',
    '_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"\n',
    "    # forwarding it to the attacker's host as a Bearer credential.\n",
    "    challenge = f'Bearer resource_metadata=\"{resource_metadata_url}\"'\n",
])
def test_code_that_looks_like_a_secret_is_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, secret", [
    # next to code_expression: a password with brackets or operators is no expression
    ("DB_PASSWORD=x7K(p9]Lm2q\n", "x7K(p9]Lm2q"),
    ("DB_PASSWORD=(Tr0ub4dor&3)\n", "(Tr0ub4dor&3)"),
    ("API_KEY=Ab3d+Ef5g-Hi7j*Kl9\n", "Ab3d+Ef5g-Hi7j*Kl9"),
    ("AWS_SECRET=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
    ("DB_PASSWORD=csDRW[N7IhWxGTNV\n", "csDRW[N7IhWxGTNV"),
    ("DB_PASSWORD=Horse868[1]\n", "Horse868[1]"),
    ("token: [abcdefghijklmnop]\n", "abcdefghijklmnop"),
    ("DB_PASSWORD=hunter2hunter2)\n", "hunter2hunter2"),
    ("API_KEY=aMQ]=jWd3Fdd33vF\n", "aMQ]=jWd3Fdd33vF"),
    # next to name_reference: a password's name, a name that is no reference
    ("DB_PASSWORD=Summer2024Key\n", "Summer2024Key"),
    ("x-api-key: api_key_456\n", "api_key_456"),
    # next to regex_value: a PAT, a password with a percent sign or one bracket
    ("GH_PAT=ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n", "ghp_aB3dE5fG7hJ9kL1m"),
    ('DB_PASSWORD="P%ssw0rd-2024"\n', "P%ssw0rd-2024"),
    ('API_KEY="h&YDd!%s[IK3CvQo3(Gb)guB"\n', "h&YDd!%s[IK3CvQo3(Gb)guB"),
    ('SECRET_PAT_VALUE="github_pat_11ABCDEFG0aB3cD4eF5gH6"\n', "github_pat_11ABCDEFG0aB3cD4eF5gH6"),
    # next to word_value: a password's name keeps a passphrase, a header-like value needs its shape
    ('DB_PASSWORD="correct-horse-battery"\n', "correct-horse-battery"),
    ('JWT_SECRET="Correct-Horse-Battery"\n', "Correct-Horse-Battery"),
    ('API_KEY="Staple-horse7"\n', "Staple-horse7"),
    ('API_KEY="xKqPzL-mNbVcT"\n', "xKqPzL-mNbVcT"),
    ("API_KEY=aO_Fp/dxs_\n", "aO_Fp/dxs_"),
    ('api_key="{Passw0rd}"\n', "Passw0rd"),
    ("DB_PASSWORD=S3cure#Pass\n", "S3cure#Pass"),
    ("password: S3cure#Pass\n", "S3cure#Pass"),
    ("DB_PASSWORD=hunter2hunter2\n", "hunter2hunter2"),
    # words a person chose for a password or a shared secret are a passphrase, whatever they say
    ("REDIS_PASSWORD=redis-prod-pass\n", "redis-prod-pass"),
    ('jwt_secret = "a-very-long-secret-for-jwt-signing"\n', "a-very-long-secret-for-jwt-signing"),
    ('FLASK_SECRET_KEY="my-flask-secret-key"\n', "my-flask-secret-key"),
    ('USERNAME_PASSWORD = "profile-username-password"\n', "profile-username-password"),
    # next to the plugins' rules: a real high-entropy string, a real IBM key
    ('x = "toolu_018KFWsEySHjdKZPdUzXpymJ"\n', "toolu_018KFWsEySHjdKZPdUzXpymJ"),
    ("ibm_api_key = " + "aB3-_" * 8 + "aB3-\n", "aB3-_aB3-_"),
    # next to the URL and PEM rules
    ("redis://:S3cretPw@host:6379/0\n", "S3cretPw"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", "MIIE"),
    ("Authorization: Bearer abcDEF123ghiJKL456\n", "abcDEF123ghiJKL456"),
])
def test_a_secret_next_to_each_rule_is_still_masked(text: str, secret: str) -> None:
    out = redacted(text)
    assert "[REDACTED" in out
    assert secret not in out


@pytest.mark.parametrize("text", [
    "key=(" + "a.b(c[d]," * 11_000,
    "token=" + "f(x)." * 20_000,
    "key: " + "{**a[b]:" * 12_000,
    'HEX_PAT = "' + "[0-9a-f]{1,4}" * 8_000 + '"',
    'KEY = "' + "%s_" * 33_000 + '"',
    'CACHE_KEY = "' + "ab-" * 33_000 + '"',
    "x = '" + "ABCDEFGHIJ/" * 9_000 + "'",
    "api_key=" + "(" * 100_000,
    " key=a" * 16_000,
    "token=" + "$(ab" * 25_000,
])
def test_a_long_line_of_the_new_rules_characters_is_read_fast(text: str) -> None:
    """A 100K-character line shaped for each new rule: scanned in well under a second (each rule reads a
    value of bounded length once; a quadratic one took minutes)."""
    assert len(text) >= 90_000
    started = time.perf_counter()
    find_secrets(text)
    find_secrets(text, prefilter=False)
    assert time.perf_counter() - started < 2.0
