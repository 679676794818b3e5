"""Find secrets in text: known key formats, secret-looking assignments, URL passwords.

Masking only the values of this process's environment misses most real leaks: a key
in a workspace ``.env`` file, a ``DATABASE_URL`` password, a token a command prints.
detect-secrets (Yelp; maintained, used in pre-commit hooks) knows the formats of the
common providers' keys; its plugins run here in-process on the text itself (no
baseline files, no git), plus rules of our own:

- ``NAME=value`` / ``NAME: value`` where NAME says it is secret (``*_KEY``,
  ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``…), as in ``.env`` files and ``env`` output, also as a
  command's flag (``--password=…``) and on a diff's line (``+DB_PASSWORD=…``); a value of any length;
- ``config set NAME VALUE`` / ``configure set NAME VALUE`` (``aws configure set aws_secret_access_key …``,
  ``npm``/``yarn config set``): a CLI that stores a setting takes the two as words, no ``=`` between;
- ``scheme://user:password@host`` (the password only, so the URL stays readable), and
  ``scheme://TOKEN@host`` when the user name looks like a token (long, letters and digits);
- PEM private-key blocks, body included;
- the value of a URL's query parameter whose name says it is secret (``?api_key=…``, ``&access_token=…``,
  ``&amp;client_secret=…``) or that signs the URL (Azure SAS ``&sig=…``, CloudFront ``&Signature=…``): API docs, curl commands and access logs carry keys there, and the
  assignment rule does not see a name glued to ``?``/``&``; the value only, up to ``&``/``#``/a quote/
  whitespace, so the URL stays readable.  Not a template's (``?key={key}``, ``?token=${T}``, ``%s``);
- a YAML value the assignment rule cannot see: on the line(s) below its secret-named key, or behind a
  tag or an anchor (``core.secret_yaml``);
- the password of a ``.netrc`` entry (``machine HOST login USER password VALUE``, one line or several,
  several entries on a line), a double-quoted one whole (``password "my secret pass"``, with ``\\"``
  escapes, as curl and Python's netrc read it: its first word alone hid nothing);
- the password of a PostgreSQL ``.pgpass`` entry, ``host:port:database:user:PASSWORD``, on a line of its
  own or quoted on a line naming the file (``echo '…' >> ~/.pgpass``): see ``_pgpass_passwords``;
- a password hash: an ``htpasswd`` or ``/etc/shadow`` line's (``admin:$apr1$…``), ``{SHA}…`` (``core.secret_hashes``);
- an AWS secret access key beside its access key id (``core.secret_aws``);
- a secret given on a command line with no ``=`` (``curl -u user:PASS``, ``mysql -pPASS``, ``--token VALUE``)
  and a quoted passphrase with blanks (``DB_PASSWORD="correct horse battery staple"``): ``core.secret_cli``;
- the credentials of an ``Authorization:`` header or a ``Bearer`` token (an HTTP client's debug
  output, a server's request dump), which no detect-secrets plugin covers when the token has no
  known format.

Each finding is a (start, end, kind) span.  Hex-looking strings (commit ids, content
hashes) are deliberately not flagged: they are everywhere in a coding session and
are not secrets.

Every new text of a session passes here, so a regex runs only when the text holds the
words any of its matches needs (``core.secret_gates``; ``prefilter=False`` runs them all,
and the tests check both ways find the same).  And every rule reads a text in time linear in its
length (``tests/core/test_secret_scanner_gaps*.py`` feed each one input shaped to make it backtrack).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import unquote

from agent_tui.core.provider_keys import provider_keys
from agent_tui.core.secret_aws import aws_secret_keys
from agent_tui.core.secret_cli import command_line_secrets, quoted_passphrases
from agent_tui.core.secret_code import not_a_secret, url_placeholder, word_value
from agent_tui.core.secret_gates import Anchor, TextView
from agent_tui.core.secret_hashes import password_hashes
from agent_tui.core.secret_names import secret_env_name, secret_name
from agent_tui.core.secret_plugins import known_formats
from agent_tui.core.secret_positional import positional_secrets
from agent_tui.core.secret_values import (
    MIN_SECRET_LEN,
    PLACEHOLDER_RE,
    SECRET_NAME_WORDS,
    Finding,
    RunEnds,
    lines_to_scan,
    name_kind,
    named_value,
    plausible,
)
from agent_tui.core.secret_yaml import yaml_values

__all__ = ["MIN_SECRET_LEN", "Finding", "find_secrets", "secret_name", "url_credentials"]

#: One character of an assigned value (a backslash only when it starts no escaped newline, tab or quote).
#: Unquoted, ``,;}`` and a backtick end it (``a=1,password=…,b=2``); ``#`` does not: mid-word it starts no
#: comment, in a shell or a ``.env`` file (``ADMIN_PASSWORD=S3cure#Pass``).
_VALUE_CHAR = r"(?:[^\s\"'`,;}\\]|\\(?![nrt\"']))"
#: One character of a quoted value: only a quote, a blank or an escaped newline, tab or quote ends it
#: (``"hunter#2;x,}"`` is one password).
_QUOTED_CHAR = r"(?:[^\s\"'\\]|\\(?![nrt\"']))"
#: The characters of an assigned value the regex reads (``_ASSIGN_RE``); a longer value is followed to its
#: end by ``_VALUE_REST_RE``.  The bound keeps the search linear: the search resumes inside a match (see
#: ``_assignments_in``), so a line of ``token=(token=(…`` is read in ``_VALUE_CAP`` steps per match.
_VALUE_CAP = 400
#: ``NAME=value``.  Also as a JSON string holds it (a tool call's arguments, JSON in JSON): the quotes
#: around the name and the value may be escaped (``{\"token\": \"…\"}``), an escaped newline or tab
#: may come before the name (``"A=1\\nDB_PASSWORD=…"``), and the value ends before one.  The name may
#: be a variable's (``$password = "…"``, ``@token = …``) and the separator Go's ``:=``.  The name may
#: follow a diff's column at a line's start (``+DB_PASSWORD=…``, ``-token: …``), or a flag's dashes
#: (``--password=…``: group ``flag``, held to ``_FLAG_SECRET_RE``).  The value is read up to
#: ``_VALUE_CAP`` characters (possessively: a shorter one never ends a quoted value); a quoted one longer
#: than that need not end with its quote there.
_ASSIGN_RE = re.compile(
    r"(?m)(?:(?:^|\\[nrt])[+-]?|[\s;,{(])(?:(?P<flag>--?)(?=[A-Za-z])|export\s+)?"
    r"\\?[\"'$@]?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})\\?[\"']?"
    r"[ \t]*(?P<sep>:=|[=:])[ \t]*"
    rf"(?P<q>\\?[\"'])?(?P<value>(?(q){_QUOTED_CHAR}{{8,{_VALUE_CAP}}}+|{_VALUE_CHAR}{{8,{_VALUE_CAP}}}+))"
    rf"(?(q)(?:(?P=q)|(?={_QUOTED_CHAR})))"
)
#: The rest of a value longer than ``_VALUE_CAP``.
_VALUE_REST_RE = re.compile(rf"{_VALUE_CHAR}*+")
#: A flag that takes a secret (``--password=…``, ``--db-pass=…``, ``--api-key=…``, ``--auth-token=…``): by
#: its last word only, and only with ``=``.  CLI docs are full of other flags a secret word is part of,
#: whose values name a resource (``--kms-key=projects/…``, ``--token-secret-version=projects/…``,
#: ``--group-key=…``) or a file (``--ssh-key=~/.ssh/id``), or a page (``--next-token: …``).
_FLAG_SECRET_RE = re.compile(
    r"(?i)(?:^|[-_])(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|(?:access|secret)[-_]key|credentials?)$"
)
#: A value after ``NAME:`` that is a YAML anchor, alias or tag (``&tok``, ``*default_password``, ``!!binary``,
#: ``!Ref``), not the value (a tag has no digit: ``!Passw0rd`` is a password).
_YAML_PROPERTY_RE = re.compile(r"[&*]\S+|!!?[A-Za-z][A-Za-z_-]*|!<[^>\s]*>")
#: A flag's value that is a path or a resource's name (``projects/p/secrets/s``, ``~/.ssh/id``, ``./x``).
_FLAG_PATH_RE = re.compile(r"(?:~|\.\.?)/|[a-z][a-z0-9._*-]*/(?:[a-z0-9._*-]+/)+")
#: ``scheme://user:password@`` (the user may be empty: ``redis://:PASSWORD@host``), or ``scheme://TOKEN@`` (a
#: token as the user, no password: ``git clone
#: https://TOKEN@github.com/…``; masked when it looks like one, see ``_token_like``).
_URL_PASSWORD_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]{1,20}://(?:[^\s:/@\"'<>]{0,100}:(?P<pw>[^\s@/\"'<>]{1,200})|(?P<user>[A-Za-z0-9_]{20,200}))@"
)
_AUTH_HEADER_RE = re.compile(
    r"(?i)(?:\bauthorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?:bearer|basic|token|digest|bot)[ \t]+)?|\bbearer[ \t]+)"
    r"(?P<value>[A-Za-z0-9._~+/=:-]{8,}+)"
)
#: A ``.netrc`` login/account/port value, quoted or a word, in an atomic group: ``login "a login b"`` never
#: also parses as two pairs, so no text makes ``_NETRC_RE``'s repetition of pairs backtrack exponentially.
_NETRC_WORD = r'(?>"(?:[^"\\\n]|\\[^\n]){0,400}"|\S+)'
#: Pairs an entry may have before its password (a real one has at most four: login, account, port).
_NETRC_MAX_PAIRS = 8
#: A ``.netrc`` entry's password: ``machine HOST`` (or ``default``) at a line's start, or after a blank or
#: a quote (a second entry on the line, ``echo 'machine …' >> ~/.netrc``), then ``login``/``account``/
#: ``port`` pairs, then ``password VALUE``, on one line or several (netrc is whitespace-separated).  The
#: entry must have a ``login`` too, before or right after (``_NETRC_LOGIN_RE``): prose such as "machine
#: learning password strength" is not an entry.  A value may be double-quoted, with backslash escapes
#: (``password "my \"secret\" pass"``, as curl and Python's netrc read it), on one line: the password is
#: masked whole, quotes included (an unclosed quote runs to the line's end).  The pairs are bounded: an
#: entry may start at any ``default`` of a line, and ``default port default port …`` read to its end
#: from each would be quadratic.
_NETRC_RE = re.compile(
    r"(?m)(?:^[ \t]*|(?<=[ \t\"']))(?:machine[ \t]+\S+|default)"
    rf"(?:\s+(?:login|account|port)\s+{_NETRC_WORD}){{0,{_NETRC_MAX_PAIRS}}}"
    r"\s+password\s+(?P<value>\"(?P<inner>(?:[^\"\\\n]|\\[^\n])*+)\"?|\S+)"
)
_NETRC_LOGIN_RE = re.compile(r"\s+login\s+\S")
#: A backslash escape in a quoted ``.netrc`` value (``\"`` is ``"``).
_NETRC_ESCAPE_RE = re.compile(r"\\(.)")
#: A ``.pgpass`` host (a name, an address, a socket's directory; ``\:`` escapes an IPv6 address's colons),
#: and a database's or a user's name (``admin@server`` on Azure); ``*`` matches any.  No blank in either.
_PG_HOST = r"(?:\*|(?:[\w.%/\[\]-]|\\[:\\])++)"
_PG_NAME = r"(?:\*|(?:[\w.@$+-]|\\[:\\])++)"
#: The four fields before the password, each ended by the only colon it has unescaped.
_PG_FIELDS = rf"(?P<host>{_PG_HOST}):(?P<port>[0-9]{{1,5}}|\*):(?P<db>{_PG_NAME}):(?P<user>{_PG_NAME}):"
#: A ``.pgpass`` entry that is a whole line (``_pgpass_passwords``): after an indent, a line number (``read_file``'s
#: ``12| ``, ``cat -n``'s tab, ``grep -n``'s ``12:``) or a diff's column; the password runs to the line's end, with
#: libpq's escapes (``\:``, ``\\``; a lone backslash at its end is itself).
_PGPASS_LINE_RE = re.compile(
    r"[ \t]*+(?:[0-9]++(?:\| |\t|:))?[+-]?" + _PG_FIELDS + r"(?P<pw>(?:[^\s:\\]|\\\S?)++)[ \t]*+\r?"
)
#: What every entry holds: its port (or ``*``) between two colons, then no blank up to the next colon and
#: none after it (the database's name, maybe up to an escaped colon).  Lines without it are never read:
#: not a clock's ``12:30:45 …`` nor ``file:12:5: message``.
_PG_PORT_RE = re.compile(r":(?:[0-9]{1,5}|\*):[^\s:]++:\S")
#: An entry in a quoted string (``echo 'h:5432:db:u:PW' >> ~/.pgpass``, a heredoc in a tool call's JSON): after a
#: quote or a ``\n`` escape, up to a quote (escaped or not) or a ``\n``/``\r`` escape.
_PGPASS_QUOTED_RE = re.compile(
    r"(?:(?<=[\"'])|(?<=\\n))" + _PG_FIELDS + r"(?P<pw>(?:[^\s:\\\"']|\\[^\snr\"'])++)(?=\\?[\"']|\\[rn])"
)
#: The file's name (``.pgpass``, ``PGPASSFILE``), in any ASCII case: ``str.lower`` maps no other letter to one of these.
_PGPASS_WORD_RE = re.compile("[Pp][Gg][Pp][Aa][Ss][Ss]")
#: A group of an IPv6 address: a line whose every field is one is an address, not an entry.
_HEX_GROUP_RE = re.compile(r"[0-9A-Fa-f]{1,4}")
_PEM_BEGIN_RE = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}(?:PRIVATE KEY( BLOCK)?|TOKEN)-----")
#: What a key's body (or a piece of one, ``MIIE…``) holds between a PEM block's markers.
_BASE64_RUN_RE = re.compile(r"[A-Za-z0-9+/]{4}")
#: A secret given as a constant's definition, ``define('DB_PASSWORD', '…')`` (PHP, wp-config.php), or as an
#: XML element of a secret name, ``<password>…</password>`` (Maven settings.xml, .NET configs).
_DEFINE_OR_ELEMENT_RE = re.compile(
    r"\bdefine\(\s*(?P<dq>[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_]{0,80})(?P=dq)\s*,\s*(?P<vq>[\"'])"
    r"(?P<value>[^\"'\n]{1,400})(?P=vq)"
    r"|<(?P<tag>[A-Za-z_][A-Za-z0-9_.-]{0,80})>(?P<inner>[^<>\s]{1,400})</(?P=tag)>"
)
#: An XML setting whose key names a secret: ``<add key="ClearTextPassword" value="…"/>`` (NuGet.Config, .NET's
#: appSettings), where no ``=`` follows the name.
_XML_KEY_VALUE_RE = re.compile(r'\bkey\s*=\s*"(?P<name>[A-Za-z_][A-Za-z0-9_.:-]{0,80})"\s+value\s*=\s*"(?P<value>[^"<>]{1,400})"')
#: Where an assignment to a secret name can be: its name holds one of these words (``secret_name``,
#: any case), followed by the rest of the name, the ``=``/``:`` and at least 8 characters of value.
_ASSIGN_ANCHOR = Anchor(SECRET_NAME_WORDS,
                        re.compile(r"[A-Za-z0-9_.-]{0,80}\\?[\"']?[ \t]*(?::=|[=:])[ \t]*\\?[\"']?[^\s\"']{8}"))

#: A query parameter, ``?name=value`` or ``&name=value`` (``&amp;`` in HTML): the value runs to ``&``,
#: ``#``, ``?``, whitespace, a quote, ``<``/``>``, a bracket or brace (a template's ``{key}``, a markdown
#: link's ``)``) or a backslash.  No match starts inside another's value, so ``finditer`` misses none.
#: Not ``==`` (minified code: ``a&&this.key==b.key``).
_QUERY_PARAM_RE = re.compile(
    r"(?:[?&]|&amp;)(?P<name>[A-Za-z_][A-Za-z0-9_.\[\]-]{0,80})=(?!=)(?P<value>[^\s&#?\"'`<>(){}\[\]\\|^]++)"
)
#: A query parameter that signs its URL (Azure SAS ``sig``, CloudFront ``Signature``, S3 ``X-Amz-Signature``,
#: ``oauth_signature``): with the rest of the URL in view, the URL is a working credential until it expires.
_QUERY_SIGNATURE_RE = re.compile(r"(?i)(?:^|[-_.])(?:sig|signature)$")
#: Where a secret query parameter can be: a secret name's word (or ``sig``), the rest of the name, ``=`` and 8
#: characters of value (``_query_params``' findings are at least that long).
_QUERY_ANCHOR = Anchor((*SECRET_NAME_WORDS, "sig"),
                       re.compile(r"[A-Za-z0-9_.\[\]-]{0,80}=[^\s&#?\"'`<>(){}\[\]\\|^]{8}"))

#: ``config set NAME VALUE`` / ``configure set NAME VALUE`` (``aws configure set aws_secret_access_key …``,
#: ``npm config set _authToken …``): flags may come first (``--profile prod``), the value may be quoted.
#: A value starting with ``-`` is a flag's; unquoted, it ends where the shell's word does.  (No ``\b`` first:
#: a pattern starting with its literal is found by the regex engine's fast literal search.)
_CONFIG_SET_RE = re.compile(
    r"config(?:ure)?[ \t]+set[ \t]+(?:-{1,2}[A-Za-z][\w-]*(?:[ \t]+[^\s-]\S*)?[ \t]+){0,4}"
    r"(?P<name>[A-Za-z_/@][\w./:@-]{0,120})[ \t]+(?!-)"
    r"(?P<value>\"(?P<dq>(?:[^\"\\\r\n]|\\[^\r\n])*+)\"?|'(?P<sq>[^'\r\n]*+)'?|[^\s;&|]++)"
)
#: A shell expansion (``$X``, ``${X}``, ``$(cmd)``), which an unquoted or double-quoted word holds.
_SHELL_EXPANSION_RE = re.compile(r"\$[A-Za-z_{(]")
#: The kinds of the settings ``aws configure set`` stores (the key id is masked too, as detect-secrets does).
_AWS_SETTINGS = {"aws_secret_access_key": "aws-secret-key", "aws_session_token": "aws-session-token",
                 "aws_access_key_id": "aws-key"}


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
    a line like ``f(a=f(a=f(a=…`` linear).

    A value the regex read to ``_VALUE_CAP`` is masked to its real end (a long JWT, a key file's base64
    after ``KEY=``), found once per run of value characters (``RunEnds``); whether it is a secret is
    decided on the characters read."""
    search, pos, words, runs = _ASSIGN_RE.search, start, _ASSIGN_ANCHOR.words, RunEnds(_VALUE_REST_RE)
    while (m := search(text, pos, stop)) is not None:
        if assigned_secret(m):
            end = m.end("value")
            if end - m.start("value") == _VALUE_CAP:
                end = runs.end(text, end, stop)
            yield Finding(m.start("value"), end, name_kind(m.group("name")))
        inner = text[m.start() + 1 : m.end() + 81].lower()
        pos = m.start() + 1 if any(w in inner for w in words) else m.end()


def assigned_secret(m: re.Match[str]) -> bool:
    """Whether a match of ``_ASSIGN_RE`` is a finding: a secret name, a plausible value (after ``:``, no
    YAML anchor, tag or alias: ``token: &tok …`` is ``core.secret_yaml``'s) that is no code, pattern or
    name (``core.secret_code``); for a flag, the stricter name, ``=`` and no path (``_FLAG_SECRET_RE``,
    ``_FLAG_PATH_RE``)."""
    name, value = m.group("name"), m.group("value")
    if not secret_name(name) or not named_value(value):
        return False
    if m.group("sep") == ":" and not m.group("q") and _YAML_PROPERTY_RE.fullmatch(value):
        return False
    end = m.end("value")
    if not_a_secret(name, value, m.group("q") is not None, m.string[end : end + 1]):
        return False
    return m.group("flag") is None or (m.group("sep") == "=" and _FLAG_SECRET_RE.search(name) is not None
                                       and _FLAG_PATH_RE.match(value) is None)


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


def _query_params(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """Values of secret-named query parameters (``?api_key=VALUE&page=2``: VALUE).  The value is
    percent-decoded before the plausibility checks (``%3Capi-key%3E`` is the placeholder ``<api-key>``);
    a value holding a brace after decoding is a template's (``%7Bkey%7D``)."""
    if view is not None and ("=" not in text or ("?" not in text and "&" not in text)):
        return
    for a, b in lines_to_scan(_QUERY_ANCHOR, text, view):
        for m in _QUERY_PARAM_RE.finditer(text, a, b):
            if not (secret_name(m.group("name")) or _QUERY_SIGNATURE_RE.search(m.group("name"))):
                continue
            value = unquote(m.group("value"))
            if named_value(value) and "{" not in value and "}" not in value:
                yield Finding(m.start("value"), m.end("value"), "url-param")


def _url_passwords(text: str, view: TextView | None = None) -> Iterator[Finding]:
    if view is not None and "://" not in text:
        return
    for m in _URL_PASSWORD_RE.finditer(text):
        pw = m.group("pw")
        if pw is None:
            if _token_like(m.group("user")):
                yield Finding(m.start("user"), m.end("user"), "url-token")
        elif len(pw) >= 3 and not PLACEHOLDER_RE.search(pw) and not url_placeholder(pw):
            yield Finding(m.start("pw"), m.end("pw"), "url-password")


def _auth_headers(text: str, view: TextView | None = None) -> Iterator[Finding]:
    if view is not None and (low := view.lowered) is not None and "bearer" not in low and "authorization" not in low:
        return
    for m in _AUTH_HEADER_RE.finditer(text):
        value = m.group("value")
        if plausible(value) and not word_value(value[:-1] if value.endswith("=") else value, False):
            yield Finding(m.start("value"), m.end("value"), "authorization")  # (not prose: "a Bearer credential.")


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
        if len(value) >= 3 and not PLACEHOLDER_RE.search(value):
            yield Finding(m.start("value"), m.end("value"), "netrc-password")


def _pgpass_passwords(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The password of each PostgreSQL ``.pgpass`` entry (``host:port:database:user:PASSWORD``).

    Four colons are everywhere (clock times, IPv6 addresses, ``file:line:col: message``, ``$PATH``,
    slices), so an entry is recognised only where it cannot be much else:

    - it is its line, whole (``_PGPASS_LINE_RE``: an indent, a line number or a diff's column before it,
      blanks after it), exactly five fields: a sixth colon, a blank in a field, a word before it and it
      is not; or it is in a quoted string on a line naming the file (``echo 'h:5432:db:u:PW' >>
      ~/.pgpass``, ``PGPASSFILE``, a Python fixture's ``write_text("…\\n")``: ``_PGPASS_QUOTED_RE``);
    - its port is a port (1 to 65535) or ``*``; its host a name, an address or a directory (no ``=``,
      ``#``, quote or blank), not a number; its database not a number (so no ``file:12:5:code:msg``);
      its database and user names, or ``*``; not five groups of hex digits (an IPv6 address);
    - its password is at least 3 characters and no placeholder (``${PGPASSWORD}``, ``<password>``).

    A commented-out entry (``#host:…``) and a line with more fields are left as they are.  The lines are
    found from the ``:port:`` every entry holds, each read once: linear in the text's length."""
    size, pos = len(text), 0
    while (m := _PG_PORT_RE.search(text, pos)) is not None:
        start = text.rfind("\n", pos, m.start()) + 1 or pos
        end = text.find("\n", m.end())
        end = size if end == -1 else end
        line = _PGPASS_LINE_RE.fullmatch(text, start, end)
        if line is not None and _pgpass_entry(line):
            yield Finding(line.start("pw"), line.end("pw"), "pgpass-password")
        pos = end + 1
    if view is not None and "pgpass" not in view.lower:
        return
    pos = 0
    while (w := _PGPASS_WORD_RE.search(text, pos)) is not None:
        start = text.rfind("\n", pos, w.start()) + 1 or pos
        end = text.find("\n", w.end())
        end = size if end == -1 else end
        for m in _PGPASS_QUOTED_RE.finditer(text, start, end):
            if _pgpass_entry(m):
                yield Finding(m.start("pw"), m.end("pw"), "pgpass-password")
        pos = end + 1


def _pgpass_entry(m: re.Match[str]) -> bool:
    """Whether a match of the ``.pgpass`` fields is an entry (``_pgpass_passwords``' rules)."""
    host, port, db, user, pw = m.group("host", "port", "db", "user", "pw")
    if host.isdigit() or db.isdigit() or (port != "*" and not 0 < int(port) <= 65535):
        return False
    if all(_HEX_GROUP_RE.fullmatch(f) for f in (host, db, user, pw)):
        return False
    return len(pw) >= 3 and not PLACEHOLDER_RE.search(pw)


def _config_set_values(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The value of a secret setting a CLI stores (``_CONFIG_SET_RE``): a secret name
    (``secret_names.secret_name``) or an AWS one (``_AWS_SETTINGS``), a quoted value's inside."""
    if view is not None and ("config" not in text or "set" not in text):
        return
    for m in _CONFIG_SET_RE.finditer(text):
        name = m.group("name")
        kind = _AWS_SETTINGS.get(name.rsplit(".", 1)[-1].lower())
        if kind is None and not secret_name(name):
            continue
        group = "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "value"
        value = m.group(group)
        if group != "sq" and _SHELL_EXPANSION_RE.search(value):  # computed by the shell: no literal secret
            continue
        if named_value(value):
            yield Finding(m.start(group), m.end(group), kind or name_kind(name))


def _xml_key_values(text: str) -> Iterator[Finding]:
    if "value" not in text:
        return
    for m in _XML_KEY_VALUE_RE.finditer(text):
        value = m.group("value")
        if value.startswith("$(") or (value.startswith("%") and value.endswith("%")):
            continue  # (an MSBuild property or an environment variable named, not a secret)
        if secret_name(m.group("name")) and named_value(value):
            yield Finding(m.start("value"), m.end("value"), name_kind(m.group("name")))


def _defines_and_elements(text: str) -> Iterator[Finding]:
    """``define('NAME', '…')`` and ``<name>…</name>`` findings (``_DEFINE_OR_ELEMENT_RE``)."""
    if "define" not in text and "</" not in text:
        return
    for m in _DEFINE_OR_ELEMENT_RE.finditer(text):
        group = "value" if m.group("value") is not None else "inner"
        name = m.group("name") or m.group("tag")
        if secret_name(name) and named_value(m.group(group)):
            yield Finding(m.start(group), m.end(group), name_kind(name))


#: An environment list entry, as Kubernetes manifests, Compose and CI files write one: ``- name: API_TOKEN`` and,
#: on the next line, ``value: …`` (the name is a variable's: ``secret_env_name`` decides).
_NAME_VALUE_PAIR_RE = re.compile(
    r"\bname:[ \t]*(?P<nq>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80})(?P=nq)[ \t]*\r?\n"
    r"[ \t]*(?:-[ \t]+)?value:[ \t]*(?P<vq>[\"']?)(?P<value>[^\s\"'#]{1,400})(?P=vq)")


def _name_value_pairs(text: str) -> Iterator[Finding]:
    if "name:" not in text or "value:" not in text:
        return
    for m in _NAME_VALUE_PAIR_RE.finditer(text):
        value = m.group("value")
        if value.startswith(("${", "$(")):  # (a reference to another secret, not one)
            continue
        if secret_env_name(m.group("name")) and named_value(value):
            yield Finding(m.start("value"), m.end("value"), name_kind(m.group("name")))


def _private_keys(text: str) -> Iterator[Finding]:
    """PEM private-key blocks, whole; not a BEGIN and an END marker with no key between them (two
    constants in code: ``_SK_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"``, ``_SK_END = …``)."""
    pos = 0
    while (m := _PEM_BEGIN_RE.search(text, pos)) is not None:
        end = text.find("-----END", m.end())
        if end == -1:
            yield Finding(m.start(), len(text), "private-key")
            return
        close = text.find("-----", end + 8)
        stop = close + 5 if close != -1 else len(text)
        if _BASE64_RUN_RE.search(text, m.end(), end) is not None:
            yield Finding(m.start(), stop, "private-key")
        pos = stop


def find_secrets(text: str, *, prefilter: bool = True) -> list[Finding]:
    """Every secret found in ``text``, sorted, overlaps merged (the widest span wins).

    ``prefilter``: skip the regexes whose required words are not in the text (same result,
    much faster; False runs every regex, for the tests that check so)."""
    if len(text) < MIN_SECRET_LEN:
        return []
    view = TextView(text) if prefilter else None
    spans = sorted(
        [*known_formats(text, view), *(Finding(*f) for f in provider_keys(text)),
         *_query_params(text, view), *_assignments(text, view), *_url_passwords(text, view),
         *yaml_values(text, view), *aws_secret_keys(text, view), *_config_set_values(text, view),
         *_auth_headers(text, view), *_netrc_passwords(text, view), *_pgpass_passwords(text, view),
         *password_hashes(text, view), *_private_keys(text), *_xml_key_values(text),
         *_defines_and_elements(text), *_name_value_pairs(text),
         *command_line_secrets(text, view), *quoted_passphrases(text, view), *positional_secrets(text, view)],
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
