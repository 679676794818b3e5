"""Find secrets in text: known key formats, secret-looking assignments, URL passwords.

Masking only the values of this process's environment misses most real leaks: a key
in a workspace ``.env`` file, a ``DATABASE_URL`` password, a token a command prints.
detect-secrets (Yelp; maintained, used in pre-commit hooks) knows the formats of the
common providers' keys; its plugins run here in-process on the text itself (no
baseline files, no git), plus rules of our own:

- ``NAME=value`` / ``NAME: value`` where NAME says it is secret (``*_KEY``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``…), as in ``.env`` files and ``env`` output;
- ``scheme://user:password@host`` (the password only, so the URL stays readable), and
  ``scheme://TOKEN@host`` when the user name looks like a token (long, letters and digits);
- PEM private-key blocks, body included;
- the value of a URL's query parameter whose name says it is secret (``?api_key=…``, ``&access_token=…``,
  ``&amp;client_secret=…``) or that signs the URL (Azure SAS ``&sig=…``, CloudFront ``&Signature=…``): API docs, curl commands and access logs carry keys there, and the
  assignment rule does not see a name glued to ``?``/``&``; the value only, up to ``&``/``#``/a quote/
  whitespace, so the URL stays readable.  Not a template's (``?key={key}``, ``?token=${T}``, ``%s``);
- a YAML value on the line(s) below its secret-named key (``password:`` then an indented line;
  ``token: |`` / ``token: >-`` then indented lines), which the assignment rule cannot see across the
  newline; only when every line of the value is one token: a mapping, a list, a comment, prose or code
  below the key (``free(buf);``, ``process.env.X,``, a tab-indented Makefile recipe) is left alone;
- the password of a ``.netrc`` entry (``machine HOST login USER password VALUE``, one line or several),
  a double-quoted one whole (``password "my secret pass"``, with ``\\"`` escapes, as curl and Python's
  netrc read it: its first word alone hid nothing);
- an AWS secret access key (40 base64 characters, mixed case, not hex) on the line of an AWS access key
  id (``AKIA…``/``ASIA…``) or the line after, as in IAM's CSV credentials export: detect-secrets masks
  the id, which is no secret, and not the key, which has no marker of its own (alone, anywhere else, a
  40-character word is too common to mask);
- the credentials of an ``Authorization:`` header or a ``Bearer`` token (an HTTP client's debug
  output, a server's request dump), which no detect-secrets plugin covers when the token has no
  known format.

Each finding is a (start, end, kind) span.  Hex-looking strings (commit ids, content
hashes) are deliberately not flagged: they are everywhere in a coding session and
are not secrets.

Every new text of a session passes here, so a regex runs only when the text holds the
words any of its matches needs (``core.secret_gates``; ``prefilter=False`` runs them all,
and the tests check both ways find the same).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from agent_tui.core.provider_keys import provider_keys
from agent_tui.core.secret_gates import Anchor, TextView, gate_for, min_width
from agent_tui.core.secret_names import secret_name

#: Shortest value treated as a secret (shorter ones are flags, ports, placeholders).
MIN_SECRET_LEN = 8

#: ``NAME=value``.  Also as a JSON string holds it (a tool call's arguments, JSON in JSON): the quotes
#: around the name and the value may be escaped (``{\"token\": \"…\"}``), an escaped newline or tab
#: may come before the name (``"A=1\\nDB_PASSWORD=…"``), and the value ends before one.
_ASSIGN_RE = re.compile(
    r"(?m)(?:^|[\s;,{(]|\\[nrt])(?:export\s+)?"
    r"\\?[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})\\?[\"']?"
    r"[ \t]*(?:=|:)[ \t]*"
    r"(?P<q>\\?[\"']|)(?P<value>(?:[^\s\"'`,;#}\\]|\\(?![nrt\"'])){8,400})(?P=q)"
)
#: ``scheme://user:password@``, or ``scheme://TOKEN@`` (a token as the user, no password: ``git clone
#: https://TOKEN@github.com/…``; masked when it looks like one, see ``_token_like``).
_URL_PASSWORD_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]{1,20}://(?:[^\s:/@\"'<>]{1,100}:(?P<pw>[^\s@/\"'<>]{1,200})|(?P<user>[A-Za-z0-9_]{20,200}))@"
)
_AUTH_HEADER_RE = re.compile(
    r"(?i)(?:\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?:bearer|basic|token|digest|bot)[ \t]+)?|\bbearer[ \t]+)"
    r"(?P<value>[A-Za-z0-9._~+/=:-]{8,400})"
)
#: A ``.netrc`` login/account/port value, quoted or a word, in an atomic group: ``login "a login b"`` never
#: also parses as two pairs, so no text makes ``_NETRC_RE``'s repetition of pairs backtrack exponentially.
_NETRC_WORD = r'(?>"(?:[^"\\\n]|\\[^\n]){0,400}"|\S+)'
#: A ``.netrc`` entry's password: ``machine HOST`` (or ``default``) at a line's start, then ``login``/
#: ``account``/``port`` pairs, then ``password VALUE``, on one line or several (netrc is whitespace-separated).
#: The entry must have a ``login`` too, before or right after (``_NETRC_LOGIN_RE``): prose such as
#: "machine learning password strength" is not an entry.  A value may be double-quoted, with backslash
#: escapes (``password "my \"secret\" pass"``, as curl and Python's netrc read it), on one line: the
#: password is masked whole, quotes included (an unclosed quote runs to the line's end).
_NETRC_RE = re.compile(
    r"(?m)^[ \t]*(?:machine[ \t]+\S+|default)"
    rf"(?:\s+(?:login|account|port)\s+{_NETRC_WORD})*"
    r"\s+password\s+(?P<value>\"(?P<inner>(?:[^\"\\\n]|\\[^\n]){0,400})\"?|\S+)"
)
_NETRC_LOGIN_RE = re.compile(r"\s+login\s+\S")
#: A backslash escape in a quoted ``.netrc`` value (``\"`` is ``"``).
_NETRC_ESCAPE_RE = re.compile(r"\\(.)")
_PEM_BEGIN_RE = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----")
_PLACEHOLDER_RE = re.compile(
    r"^(?:\$\{?[A-Za-z_]|\{\{|<[^>]*>$|x{6,}$|\*{3,}|\[REDACTED|changeme$|example|your[_-]|None$|null$|true$|false$)",
    re.I,
)
#: Every name ``secret_name`` accepts holds one of these words (lowercased): the anchors' words.
_SECRET_NAME_WORDS = ("key", "token", "secret", "pass", "pwd", "credential", "auth", "pat")
#: Where an assignment to a secret name can be: its name holds one of these words (``secret_name``,
#: any case), followed by the rest of the name, the ``=``/``:`` and at least 8 characters of value.
_ASSIGN_ANCHOR = Anchor(_SECRET_NAME_WORDS,
                        re.compile(r"[A-Za-z0-9_.-]{0,80}\\?[\"']?[ \t]*[=:][ \t]*\\?[\"']?[^\s\"'`,;#}]{8}"))
#: A value made only of these is code, not a secret (``token = self.token``, ``f(x)``, the
#: ``API_KEY)`` of ``Client(api_key=API_KEY)``).
_CODE_VALUE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(.*|\)+)?$")

#: A query parameter, ``?name=value`` or ``&name=value`` (``&amp;`` in HTML): the value runs to ``&``,
#: ``#``, ``?``, whitespace, a quote, ``<``/``>``, a bracket or brace (a template's ``{key}``, a markdown
#: link's ``)``) or a backslash.  No match starts inside another's value, so ``finditer`` misses none.
#: Not ``==`` (minified code: ``a&&this.key==b.key``).
_QUERY_PARAM_RE = re.compile(
    r"(?:[?&]|&amp;)(?P<name>[A-Za-z_][A-Za-z0-9_.\[\]-]{0,80})=(?!=)(?P<value>[^\s&#?\"'`<>(){}\[\]\\|^]{1,400})"
)
#: A query parameter that signs its URL (Azure SAS ``sig``, CloudFront ``Signature``, S3 ``X-Amz-Signature``,
#: ``oauth_signature``): with the rest of the URL in view, the URL is a working credential until it expires.
_QUERY_SIGNATURE_RE = re.compile(r"(?i)(?:^|[-_.])(?:sig|signature)$")
#: Where a secret query parameter can be: a secret name's word (or ``sig``), the rest of the name, ``=`` and 8
#: characters of value (``_query_params``' findings are at least that long).
_QUERY_ANCHOR = Anchor((*_SECRET_NAME_WORDS, "sig"),
                       re.compile(r"[A-Za-z0-9_.\[\]-]{0,80}=[^\s&#?\"'`<>(){}\[\]\\|^]{8}"))

#: A YAML key alone at the end of its line (``password:``), or with a block scalar's header (``token: |``,
#: ``token: >-``): its value, if any, is on the lines below.  Indented with spaces (YAML allows no tab),
#: maybe a list item's (``- password:``), the key maybe quoted.
_YAML_KEY_RE = re.compile(
    r"(?m)^(?P<indent> *)(?:- +)?(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?P=q)[ \t]*:"
    r"(?:[ \t]+(?P<block>[|>][1-9+-]{0,2}))?[ \t]*\r?(?=\n|\Z)"
)
#: Where such a key can be: a secret name's word, the rest of the name, the colon, maybe a block header,
#: then the line's end.
_YAML_ANCHOR = Anchor(_SECRET_NAME_WORDS,
                      re.compile(r"[A-Za-z0-9_.-]{0,80}[\"']?[ \t]*:(?:[ \t]+[|>][1-9+-]{0,2})?[ \t]*\r?(?:\n|\Z)"))
#: A line below such a key: its indentation (spaces), then one token (or nothing), then the line's end.
#: A line indented with a tab, or holding two words, does not match.  (The token starts with no space and
#: only blank lines may hold a tab, so the spaces are read one way only: linear on any line.)
_YAML_LINE_RE = re.compile(r"(?P<indent> *)(?:(?P<token>\S{1,400})[ \t]*|(?:\t[ \t]*)?)\r?(?=\n|\Z)")
#: A line's indentation.
_SPACES_RE = re.compile(" *")
#: Lines a YAML value below its key may span (a longer block is data, not a secret).
_YAML_MAX_LINES = 200
#: The first characters of a token below a secret key that make it no secret value: YAML's indicators
#: (a list item, a comment, an anchor or alias, a tag, a flow collection, a quoted string), a path's.
_YAML_NOT_FIRST = frozenset("-#?:,[]{}&*!|>'\"%@`/.~=<(")
#: A token below a secret key that ends so, or holds a parenthesis, a brace or an ``=`` before more than
#: ``=`` (base64's padding), is code, a template, a nested key or a field (``free(buf);``,
#: ``process.env.TOKEN,``, ``${{secrets.PW}}``, ``host:``, the ``version=0`` / ``modulus=…`` lines a
#: pretty-printer writes under ``RSAPrivateKey:``), or a URL.
_YAML_CODE_RE = re.compile(r"[(){};]|=[^=]|[,:\[\\]$|://")

#: An AWS access key id: ``AKIA`` (a user's) or ``ASIA`` (temporary), then 16 capitals or digits.
_AWS_KEY_ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])")
#: A word of exactly 40 base64 characters: an AWS secret access key's shape.
_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
#: A word of hex digits only (a commit id, a SHA-1): not an AWS secret key.
_HEX_RE = re.compile(r"[0-9a-fA-F]+")

#: detect-secrets plugins used (by class name), with the kind shown in ``[REDACTED:kind]``.
_PLUGINS: dict[str, str] = {
    "ArtifactoryDetector": "artifactory-token",
    "AWSKeyDetector": "aws-key",
    "AzureStorageKeyDetector": "azure-storage-key",
    "CloudantDetector": "cloudant-password",
    "DiscordBotTokenDetector": "discord-token",
    "GitHubTokenDetector": "github-token",
    "GitLabTokenDetector": "gitlab-token",
    "IbmCloudIamDetector": "ibm-cloud-key",
    "IbmCosHmacDetector": "ibm-cos-key",
    "JwtTokenDetector": "jwt",
    "MailchimpDetector": "mailchimp-key",
    "NpmDetector": "npm-token",
    "OpenAIDetector": "openai-key",
    "PypiTokenDetector": "pypi-token",
    "SendGridDetector": "sendgrid-key",
    "SlackDetector": "slack-token",
    "SoftlayerDetector": "softlayer-key",
    "SquareOAuthDetector": "square-secret",
    "StripeDetector": "stripe-key",
    "TelegramBotTokenDetector": "telegram-token",
    "TwilioKeyDetector": "twilio-key",
}
#: Base64 strings in quotes with at least this Shannon entropy are flagged (detect-secrets' default).
BASE64_ENTROPY_LIMIT = 4.5


@dataclass(frozen=True)
class Finding:
    """One secret in a text: ``text[start:end]``, and what kind it is."""

    start: int
    end: int
    kind: str


_PLUGIN_MODULES = ("artifactory", "aws", "azure_storage_key", "cloudant", "discord", "github_token", "gitlab_token",
                   "ibm_cloud_iam", "ibm_cos_hmac", "jwt", "mailchimp", "npm", "openai", "pypi_token", "sendgrid",
                   "slack", "softlayer", "square_oauth", "stripe", "telegram_token", "twilio")
"""detect-secrets' regex plugin modules whose denylists we use."""


Detector = tuple[str, re.Pattern[str], Any, int]
"""One plugin regex: its kind, the pattern, its gate (``core.secret_gates.Gate``) or None, and the
length of its shortest match (a shorter text cannot hold one)."""


@lru_cache(maxsize=1)
def _detectors() -> tuple[list[Detector], Any]:
    """Every regex of the plugins (``Detector``), and the base64 entropy plugin (or None)."""
    import importlib

    try:
        high_entropy_strings = importlib.import_module("detect_secrets.plugins.high_entropy_strings")
        modules = [importlib.import_module(f"detect_secrets.plugins.{m}") for m in _PLUGIN_MODULES]
    except ImportError:  # the detector is optional at run time: our own rules still apply
        return [], None
    found: list[Detector] = []
    for module in modules:
        for name, kind in _PLUGINS.items():
            cls = getattr(module, name, None)
            if cls is None:
                continue
            patterns = [p for p in getattr(cls, "denylist", ()) if isinstance(p, re.Pattern)]
            if patterns:
                found += [(kind, p, gate_for(p), min_width(p)) for p in patterns]
    entropy = high_entropy_strings.Base64HighEntropyString(limit=BASE64_ENTROPY_LIMIT)
    return found, entropy


def _plausible(value: str) -> bool:
    """A value that could be a secret (not a placeholder, a variable or a call)."""
    if len(value) < MIN_SECRET_LEN or _PLACEHOLDER_RE.search(value):
        return False
    if _CODE_VALUE_RE.match(value) and not any(c.isdigit() for c in value):
        return False
    return True


def _assignments(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """``NAME=value`` findings.  With a ``view``, only the lines holding the anchor are searched: a
    match's name, separator and value are on one line (only the ``export`` before the name can span
    lines, and the line's own start matches in its place), and the name holds the anchor's word."""
    spans = None
    if view is not None:
        spans = _ASSIGN_ANCHOR.lines(view)
        if spans == [] or (spans is None and not view.anchored(_ASSIGN_ANCHOR)):
            return
    for a, b in spans if spans is not None else ((0, len(text)),):
        yield from _assignments_in(text, a, b)


def _assignments_in(text: str, start: int, stop: int) -> Iterator[Finding]:
    """``NAME=value`` findings in ``text[start:stop]``.  A match does not hide the ones that start
    inside it: neither one that is no finding (``client = Client(api_key="…")``: name ``client``,
    value ``Client(api_key=``) nor one that is (``token: api_key="…"``: value ``api_key=``, the
    overlapping findings are merged).  The search resumes right after the match's first character,
    not after its end, so every match a search from any position finds is found; unless no secret
    name can start inside it: such a name (at most 81 ASCII characters) holds an anchor word between
    that character and 81 characters past the match (a name further on is found from the match's end,
    with the whitespace before it), and without one the search resumes after the match (which keeps
    a line like ``f(a=f(a=f(a=…`` linear)."""
    search, pos, words = _ASSIGN_RE.search, start, _ASSIGN_ANCHOR.words
    while (m := search(text, pos, stop)) is not None:
        name, value = m.group("name"), m.group("value")
        if secret_name(name) and _plausible(value) and not value.replace(".", "").isdigit():
            yield Finding(
                m.start("value"), m.end("value"), name.upper() if name.isupper() else "secret"
            )
        inner = text[m.start() + 1 : m.end() + 81].lower()
        pos = m.start() + 1 if any(w in inner for w in words) else m.end()


def _token_like(user: str) -> bool:
    """A URL's user name that is a token, not a name (``git``, ``deploy_bot_2024``): at least 20
    characters with a part of 16 or more between underscores, letters and digits both, not repetitive."""
    if len(max(user.split("_"), key=len)) < 16:
        return False
    if not any(c.isdigit() for c in user) or not any(c.isalpha() for c in user):
        return False
    return len(set(user)) >= 10


def url_credentials(text: str) -> list[str]:
    """The passwords (and token user names) of the URLs in ``text`` (``postgres://u:PW@h/db``), and the
    values of their secret query parameters (``https://h/hook?token=VALUE``)."""
    return [text[f.start:f.end] for f in (*_url_passwords(text), *_query_params(text))]


def _lines_to_scan(anchor: Anchor, text: str, view: TextView | None) -> list[tuple[int, int]]:
    """Where a rule whose every finding is on a line holding a hit of ``anchor`` must look: those lines
    (with a view), or the whole text (without one, or when the view cannot place the hits)."""
    if view is None:
        return [(0, len(text))]
    spans = anchor.lines(view)
    return [(0, len(text))] if spans is None else spans


def _query_params(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """Values of secret-named query parameters (``?api_key=VALUE&page=2``: VALUE).  The value is
    percent-decoded before the plausibility checks (``%3Capi-key%3E`` is the placeholder ``<api-key>``);
    a value holding a brace after decoding is a template's (``%7Bkey%7D``)."""
    if view is not None and ("=" not in text or ("?" not in text and "&" not in text)):
        return
    for a, b in _lines_to_scan(_QUERY_ANCHOR, text, view):
        for m in _QUERY_PARAM_RE.finditer(text, a, b):
            if not (secret_name(m.group("name")) or _QUERY_SIGNATURE_RE.search(m.group("name"))):
                continue
            value = unquote(m.group("value"))
            if _plausible(value) and not value.replace(".", "").isdigit() and "{" not in value and "}" not in value:
                yield Finding(m.start("value"), m.end("value"), "url-param")


def _url_passwords(text: str, view: TextView | None = None) -> Iterator[Finding]:
    if view is not None and "://" not in text:
        return
    for m in _URL_PASSWORD_RE.finditer(text):
        pw = m.group("pw")
        if pw is None:
            if _token_like(m.group("user")):
                yield Finding(m.start("user"), m.end("user"), "url-token")
        elif len(pw) >= 3 and not _PLACEHOLDER_RE.search(pw):
            yield Finding(m.start("pw"), m.end("pw"), "url-password")


def _auth_headers(text: str, view: TextView | None = None) -> Iterator[Finding]:
    if view is not None and (low := view.lowered) is not None and "bearer" not in low and "authorization" not in low:
        return
    for m in _AUTH_HEADER_RE.finditer(text):
        if _plausible(m.group("value")):
            yield Finding(m.start("value"), m.end("value"), "authorization")


def _netrc_passwords(text: str, view: TextView | None = None) -> Iterator[Finding]:
    if view is not None and ("password" not in text or ("machine" not in text and "default" not in text)):
        return
    for m in _NETRC_RE.finditer(text):
        value = m.group("value")
        if not (_NETRC_LOGIN_RE.search(text, m.start(), m.start("value"))
                or _NETRC_LOGIN_RE.match(text, m.end())):
            continue
        if m.group("inner") is not None:  # quoted: the value unescaped is checked, the quotes masked too
            value = _NETRC_ESCAPE_RE.sub(r"\1", m.group("inner"))
        if len(value) >= 3 and not _PLACEHOLDER_RE.search(value):
            yield Finding(m.start("value"), m.end("value"), "netrc-password")


def _yaml_values(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The token of each line of a YAML value below its secret-named key (``_YAML_KEY_RE``): the lines
    right below it, indented deeper than the key's line, up to the first line that is not (a block
    scalar's may have blank lines between).  Every such line must hold a single token that is no
    indicator, path, URL or code (``_YAML_NOT_FIRST``, ``_YAML_CODE_RE``), and together they must be
    ``_plausible``; else the key has something else below it (a mapping, a list, a comment, prose,
    code) and nothing is masked.  Each line's token is its own finding (a mask takes out no newline)."""
    for a, b in _lines_to_scan(_YAML_ANCHOR, text, view):
        for m in _YAML_KEY_RE.finditer(text, a, b):
            name = m.group("name")
            if secret_name(name):
                yield from _yaml_value(text, m.end(), len(m.group("indent")), m.group("block") is not None,
                                       name.upper() if name.isupper() else "secret")


def _yaml_value(text: str, end: int, indent: int, block: bool, kind: str) -> list[Finding]:
    """The findings of the value below a YAML key whose line ends at ``end`` (see ``_yaml_values``)."""
    found: list[Finding] = []
    pos = end
    for _ in range(_YAML_MAX_LINES):
        nl = text.find("\n", pos)
        if nl == -1:
            break
        line = _YAML_LINE_RE.match(text, nl + 1)
        if line is None:  # more than one word (or a tab-indented line): past the value, or no value
            if len(_SPACES_RE.match(text, nl + 1).group()) <= indent:
                break
            return []
        pos = line.end()
        token = line.group("token")
        if token is None:
            if block:  # a blank line inside a block scalar
                continue
            break
        if len(line.group("indent")) <= indent:  # the next key, outdented
            break
        if token[0] in _YAML_NOT_FIRST or _YAML_CODE_RE.search(token):
            return []
        found.append(Finding(line.start("token"), line.end("token"), kind))
    else:
        return []  # a longer value than any secret's
    value = "".join(text[f.start:f.end] for f in found)
    if not found or not _plausible(value) or value.replace(".", "").isdigit():
        return []
    return found


def _aws_secret_keys(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """AWS secret access keys (``_AWS_SECRET_RE``: 40 base64 characters with capitals, small letters
    and a digit, ``/`` or ``+``; not hex) on the line of an AWS access key id or the line after it."""
    if view is not None and "AKIA" not in text and "ASIA" not in text:
        return
    regions: list[tuple[int, int]] = []
    for m in _AWS_KEY_ID_RE.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        stop = text.find("\n", m.end())
        stop = len(text) if stop == -1 else text.find("\n", stop + 1)
        stop = len(text) if stop == -1 else stop
        if regions and start <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(stop, regions[-1][1]))
        else:
            regions.append((start, stop))
    for a, b in regions:
        for k in _AWS_SECRET_RE.finditer(text, a, b):
            key = k.group()
            if (any(c.isupper() for c in key) and any(c.islower() for c in key)
                    and any(c.isdigit() or c in "/+" for c in key) and not _HEX_RE.fullmatch(key)):
                yield Finding(k.start(), k.end(), "aws-secret-key")


def _private_keys(text: str) -> Iterator[Finding]:
    pos = 0
    while (m := _PEM_BEGIN_RE.search(text, pos)) is not None:
        end = text.find("-----END", m.end())
        if end == -1:
            yield Finding(m.start(), len(text), "private-key")
            return
        close = text.find("-----", end + 8)
        stop = close + 5 if close != -1 else len(text)
        yield Finding(m.start(), stop, "private-key")
        pos = stop


def _known_formats(text: str, view: TextView | None = None) -> Iterator[Finding]:
    patterns, entropy = _detectors()
    size = len(text)
    for kind, regex, gate, shortest in patterns:
        if view is not None and (size < shortest or (gate is not None and not gate.admits(view))):
            continue
        for m in regex.finditer(text):
            if m.end() - m.start() >= MIN_SECRET_LEN:
                yield Finding(m.start(), m.end(), kind)
    if entropy is not None and ('"' in text or "'" in text):
        for m in entropy.regex.finditer(text):
            value = m.group(2)
            if (
                len(value) >= 20
                and entropy.calculate_shannon_entropy(value) > entropy.entropy_limit
            ):
                yield Finding(m.start(2), m.end(2), "high-entropy-string")


def find_secrets(text: str, *, prefilter: bool = True) -> list[Finding]:
    """Every secret found in ``text``, sorted, overlaps merged (the widest span wins).

    ``prefilter``: skip the regexes whose required words are not in the text (same result,
    much faster; False runs every regex, for the tests that check so)."""
    if len(text) < MIN_SECRET_LEN:
        return []
    view = TextView(text) if prefilter else None
    spans = sorted(
        [*_known_formats(text, view), *(Finding(*f) for f in provider_keys(text)),
         *_query_params(text, view), *_assignments(text, view), *_url_passwords(text, view),
         *_yaml_values(text, view), *_aws_secret_keys(text, view),
         *_auth_headers(text, view), *_netrc_passwords(text, view), *_private_keys(text)],
        key=lambda f: (f.start, -f.end),
    )
    merged: list[Finding] = []
    for f in spans:
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            if f.end > last.end:
                merged[-1] = Finding(last.start, f.end, last.kind)
            continue
        merged.append(f)
    return merged
