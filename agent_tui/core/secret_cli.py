"""Secrets given to a program on its command line, where no ``NAME=`` says so; and passphrases.

An agent runs commands and reads the ones READMEs, scripts and shell histories hold: ``curl -u
user:PASS``, ``mysql -uroot -pPASS``, ``sshpass -p PASS``, ``redis-cli -a PASS``, ``docker login -u me -p
PASS``, ``gh … --token VALUE``, ``keytool -storepass VALUE``, ``openssl … -passin pass:VALUE``.  The
assignment rule (``core.secrets``) sees a flag's value only after ``=``.  Here:

- a long flag whose last word is secret (``--password``, ``--api-key``, ``--auth-token``, ``-token``;
  redis-server's ``--requirepass``) takes its value from the next word too, for any program (not a path, a
  variable, another flag), also on the next line (``--token \\``);
- a short option means a password only for the programs that read it so (``-p`` is a port or a
  parent folder elsewhere, ``-u`` a user or "unified", ``-a`` "all"), so those are found by the program
  before them in the same command (continued lines included; ``&&``, ``||``, ``;``, ``|``, a JSON string's
  ``\\n`` and the ``ssh`` that sshpass runs end it): mysql/mariadb's glued ``-pPASS`` (``-p PASS``
  prompts, and PASS is the database; 7-Zip's the same), sshpass's ``-p``, redis-cli's ``-a``, ldapsearch's
  (and kin) ``-w``, mongo's/mongosh's, twine's and ``poetry publish``'s ``-p``, sqlcmd's, mosquitto's and
  zip's ``-P``, ``-p`` after a registry's ``login`` (docker, podman, helm registry, oc, az, cf), and
  curl's/httpie's/xh's ``user:PASS`` (the password only: the user stays readable; also at the end of
  curl's cluster of flags, ``-sSfu user:PASS``);
- an option written as an element of a list of arguments (``["redis-cli", "-a", "PASS"]``, Go's
  ``exec.Command("mysql", "-pPASS")``, ``args: ["--token", "VALUE"]``) is read the same way, its value
  the next element when it is a quoted string with no blank;
- a quoted value with blanks given to a password's or a secret's name (``DB_PASSWORD="correct horse
  battery staple"``): the assignment rule reads a value to its first blank and never saw it.  A label
  or a message is left alone (it names the thing, ends like a sentence, is a template, or its name says
  it is one: ``ERROR_BAD_PASSWORD``).  Also ``"NAME=VALUE"`` quoted whole (``docker run -e "DB_PASSWORD=a b c"``).

A value that is a placeholder in docs (``user:password``, ``-p[password]``, ``{pw}``, ``key-XXXXXXXX``), a
port mapping (``-p3306:3306``) or the rest of a string in code (``"mysql -p" + pw``) is left alone.

Every rule reads its text once: options are found by one regex starting with a literal ``-``, and the
programs of each command line are looked up once per line, whatever the number of options on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_tui.core.secret_gates import TextView
from agent_tui.core.secret_values import PLACEHOLDER_RE, Finding, RunEnds, named_value

#: Words one of which every finding of ``command_line_secrets`` needs in its text (lowercased): a secret
#: flag's word or a program with a password option.
_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", "masterauth", "mysql", "mariadb", "redis",
          "valkey", "keydb", "login", "curl", "http", "xh", "ldap", "mongo", "twine", "publish", "sqlcmd",
          "mosquitto", "zip", "7z", "smb", "rpcclient", "net", "lftp", "openssl", "nxc", "crackmapexec", "cme",
          "evil-winrm", "psexec", "paexec", "rdesktop", "hydra", "medusa")
#: An option: a dash at the text's start or after a blank, ``;``, ``|``, ``&``, ``(`` or a quote (an element of
#: a list of arguments), its name read whole.  The dash comes first and the character before it is checked
#: behind it, so the regex engine jumps from dash to dash (a lookbehind first was tried at every position,
#: 20 times slower; a check in Python cost a call per hyphen of every text).
_OPTION_RE = re.compile(r"-(?<![^ \t\n;|&(\"']-)(?P<long>-)?(?P<name>[A-Za-z][A-Za-z0-9_-]{0,60}+)")
_QUOTES = "\"'"
#: A shell word: double-quoted (escapes kept), single-quoted, double-quoted inside a JSON string (``\"…\"``,
#: a tool call's command), or bare up to a blank or an operator.
_WORD_RE = re.compile(
    r"\"(?P<dq>(?:[^\"\\\n]|\\[^\n])*+)\"?|'(?P<sq>[^'\n]*+)'?|\\\"(?P<jq>(?:[^\"\\\n]|\\[^\"\n])*+)(?:\\\")?"
    r"|(?P<bare>[^\s;&|<>()`\"'\\]++)"
)
#: A long flag whose value is a secret, by its last word (as ``core.secrets._FLAG_SECRET_RE``), or one of
#: Java keytool's, openssl's and redis-server's password options (``-storepass``, ``-passin``,
#: ``--requirepass``).
_SECRET_FLAG_RE = re.compile(
    r"(?i)(?:(?:^|[-_])(?:pass(?:word|wd|phrase)?|pwd|token|api[-_]?key|(?:access|secret|private)[-_]key|"
    r"client[-_]secret|credentials?)|^(?:src|dest)?(?:store|key)pass|^pass(?:in|out)|^requirepass|^masterauth)$"
)
#: A flag's value that is a path or a resource's name (``projects/p/secrets/s``, ``~/.ssh/id``, ``./x``).
_PATH_RE = re.compile(r"(?:~|\.\.?)?/|[a-z][a-z0-9._*-]*/(?:[a-z0-9._*-]+/)+")
#: A shell expansion (``$X``, ``${X}``, ``$(cmd)``): computed by the shell, no literal secret.
_EXPANSION_RE = re.compile(r"\$[A-Za-z_{(]")
#: openssl's password sources that name where the password is, not the password (``env:VAR``,
#: ``file:path``, ``fd:3``, ``stdin``); ``pass:VALUE`` holds it.
_PASS_SOURCE_RE = re.compile(r"(?:env|file|fd):|stdin$")
#: The programs whose short options take a password, by family (also after a JSON string's ``\n``); the
#: programs sshpass runs (``reset``: their ``-p`` is a port); what ends a command (``sep``; not a JSON
#: string's ``\\\n``, a line continued).  ``login`` is a registry's (``docker login``, ``az acr login``):
#: ``/bin/login -p`` keeps the environment, and prose says "login" too.
_PROGRAM_RE = re.compile(
    r"(?:(?<![\w.-])|(?<=\\[nt]))(?:(?P<mysql>mysql(?:dump|admin|import|show|check|slap|pump|sh)?|mariadb(?:-dump|"
    r"-admin|-import|-show|-check|-slap)?)|(?P<sshpass>sshpass)|(?P<redis>(?:redis|valkey|keydb)-cli)|"
    r"(?P<login>(?:docker|podman|buildah|skopeo|nerdctl|oras|crane|regctl|helm|oc|odo|az|cf|ibmcloud|bx)"
    r"(?:\.exe)?(?:[ \t]++[a-z]++)?[ \t]++login(?=[ \t\\]|$))|(?P<curl>curl|curlie)|(?P<httpie>https?|xhs?)|"
    r"(?P<ldap>ldap(?:search|add|modify|delete|passwd|whoami|compare|modrdn|exop|vc))|"
    r"(?P<mongo>mongo(?:sh|dump|restore|export|import|stat|top|files)?)|(?P<publish>twine|poetry[ \t]+publish)|"
    r"(?P<upper_p>sqlcmd|mosquitto_(?:pub|sub|rr)|zip|unzip|zipcloak)|(?P<sevenzip>7z[ar]?)|"
    r"(?P<smb>smbclient|rpcclient|smbcacls|smbget|smbtree|smbcquotas|net[ \t]++(?:ads|rpc|sam))|(?P<lftp>lftp)|"
    r"(?P<openssl>openssl)|(?P<pentest>nxc|netexec|crackmapexec|cme|evil-winrm|psexec(?:64)?(?:\.exe)?|"
    r"paexec(?:\.exe)?|rdesktop|smbmap|hydra|medusa)|"
    r"(?P<reset>ssh|scp|sftp|rsync))(?![\w-]|:)"
    r"|(?P<sep>&&|\|\|?|;|(?<!\\)\\n)"
)
#: Per family, the short options that take a secret (``user:PASS`` for curl and httpie): also sqlcmd's,
#: mosquitto's and zip's ``-P``, twine's and ``poetry publish``'s ``-p``, 7-Zip's glued ``-pPASS``.
_SHORT = {"mysql": ("p",), "sshpass": ("p",), "redis": ("a",), "login": ("p",), "curl": ("u", "U"),
          "httpie": ("a",), "ldap": ("w",), "mongo": ("p",), "publish": ("p",), "upper_p": ("P",),
          "sevenzip": ("p",), "smb": ("U",), "lftp": ("u",), "openssl": ("k",), "pentest": ("p",)}
#: The families whose option takes its password glued only (``-p PASS`` prompts, PASS is the next argument).
_GLUED_ONLY = frozenset({"mysql", "sevenzip"})
#: The families whose option takes its password as the next word only: openssl's ``-kfile`` and hydra's
#: ``-pw`` are other options, not ``-k file`` or ``-p w``.
_SEPARATE_ONLY = frozenset({"openssl", "pentest"})
#: The families whose option takes ``user`` and the password joined (``user:PASS`` for curl and httpie,
#: Samba's ``user%PASS``, lftp's ``user,PASS``), by the character between them.
_USER_SEP = {"curl": ":", "httpie": ":", "smb": "%", "lftp": ","}
#: Per family, the short flags without a value that may come first in a cluster (curl's ``-sSfu user:PASS``).
_CLUSTERED = {"curl": frozenset("0123456aBfgGiIjJklLMnNOpqRsSvVZ")}
#: A docs' placeholder for a password (``user:password``, ``-ppassword``), compared lowercased.
PLACEHOLDER_WORDS = frozenset({"pass", "password", "passwd", "pwd", "pw", "secret", "token", "apikey", "api_key",
                                "api-key", "key", "mypassword", "yourpassword"})
#: A placeholder's or a template's marks (``[password]``, ``key-XXXXXXXX``, ``{pw}``, ``%(pw)s``, ``%s``).
_TEMPLATE_RE = re.compile(r"(?i)^\[.*\]$|xxxx|\{[^{}]*\}|%[sd(]")
#: A port mapping (``-p 8080:80``, ``-p3306:3306``, ``-p 127.0.0.1:53:53/udp``): docker's ``-p``, not a password.
_PORTS_RE = re.compile(r"(?:[\d.]+:)?\d+(?:-\d+)?:\d+(?:-\d+)?(?:/[a-z]+)?")
#: Long options that take ``user:PASS`` (curl's, httpie's).
_USER_PASS_LONG = frozenset({"user", "proxy-user", "auth"})
#: The shortest password a password option's value is taken for (the option says what it is).
_MIN_PASSWORD = 4
_BLANK_RE = re.compile(r"\s")


def command_line_secrets(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """The secret values of command-line options in ``text`` (see the module's docstring)."""
    first = _OPTION_RE.search(text)  # most texts have no option at all: cheaper than the words below
    if first is None:
        return
    if view is not None and (low := view.lowered) is not None and not any(w in low for w in _WORDS):
        return
    lines = _CommandLines(text)
    for m in _OPTION_RE.finditer(text, first.start()):
        yield from _option_secret(text, m, lines)


def _option_secret(text: str, m: re.Match[str], lines: _CommandLines) -> Iterator[Finding]:
    name, start, end, is_long = m.group("name"), m.start(), m.end(), m.group("long") is not None
    sep = text[end] if end < len(text) else ""
    quote = text[start - 1] if start and text[start - 1] in _QUOTES else ""
    listed = quote != "" and sep == quote  # a whole element of a list of arguments: its value is the next one
    if listed:
        next_at = _next_element(text, end + 1, quote)
    else:
        next_at = _skip_blanks(text, end) if sep in (" ", "\t") else -1
        if quote and text.startswith(quote, next_at):  # ``"--token " * 3``: the string ends, no value in it
            next_at = -1
    if is_long or len(name) > 1:
        if is_long and name.lower() in _USER_PASS_LONG and (sep == "=" or next_at != -1):
            joined = [_USER_SEP[f] for f in lines.families(start) if f in _USER_SEP]
            if joined:
                at = _skip_blanks(text, end + 1) if sep == "=" else next_at
                yield from _user_password(text, at, listed, joined[0])
            return
        if _SECRET_FLAG_RE.search(name) and not name.lower().startswith(("no-", "no_")):  # ``-no-pass``: a switch
            if next_at != -1:
                if name.lower() == "password" and "mysql" in lines.families(start):
                    return  # mysql's ``--password`` with no ``=`` prompts: the next word is the database
                yield from _flag_value(text, next_at, listed)
            elif quote and sep == "=":  # ``"--token=VALUE"``: the assignment rule sees no quote before a flag
                yield from _flag_value(text, end + 1, listed)
        if is_long:
            return
    families = lines.families(start)
    if not families:
        return
    glue = sep != "" and not listed and sep not in " \t\r\n;|&<>()"
    for family, letters in _SHORT.items():
        if family not in families:
            continue
        skip, at = _CLUSTERED.get(family, ()), 0
        while at < len(name) - 1 and name[at] in skip:
            at += 1
        if name[at] not in letters:
            continue
        glued = at + 1 < len(name) or glue
        value_at = start + 2 + at if glued else next_at
        if family in _USER_SEP:
            if value_at != -1:
                yield from _user_password(text, value_at, listed and not glued, _USER_SEP[family])
        elif family in _SEPARATE_ONLY:
            if not glued and value_at != -1:
                yield from _password(text, value_at, listed)
        elif family in _GLUED_ONLY:
            if glued:
                yield from _password(text, value_at, False)
        elif value_at != -1:
            yield from _password(text, value_at, listed and not glued)
        return


def _skip_blanks(text: str, pos: int) -> int:
    """The first position from ``pos`` that is not a blank or a line's continuation (``\\`` and a newline:
    ``--token \\``, its value on the next line)."""
    size = len(text)
    while pos < size:
        if text[pos] in " \t":
            pos += 1
        elif text.startswith("\\\n", pos):
            pos += 2
        elif text.startswith("\\\r\n", pos):
            pos += 3
        else:
            break
    return pos


def _next_element(text: str, pos: int, quote: str) -> int:
    """Where the next element of a list of arguments starts (``pos``: after the element before it), when
    it is a string quoted with ``quote``; -1 when it is not (a variable, a call, the list's end)."""
    pos = _skip_blanks(text, pos)
    if not text.startswith(",", pos):
        return -1
    pos = _skip_blanks(text, pos + 1)
    return pos if text.startswith(quote, pos) else -1


def _word(text: str, pos: int) -> tuple[int, int, str] | None:
    """The shell word at ``pos``: (start, end) of its content (inside any quotes) and the content."""
    m = _WORD_RE.match(text, pos)
    if m is None:
        return None
    for group in ("dq", "sq", "jq", "bare"):
        if m.group(group) is not None:
            return m.start(group), m.end(group), m.group(group)
    return None


def _literal(value: str) -> bool:
    return not value.startswith("-") and _EXPANSION_RE.search(value) is None


def _placeholder(value: str) -> bool:
    """A docs' placeholder or a template, not a value: ``<password>``, ``[password]``, ``password``,
    ``key-XXXXXXXX``, ``{pw}``, ``%(pw)s``."""
    return (PLACEHOLDER_RE.search(value) is not None or value.lower() in PLACEHOLDER_WORDS
            or _TEMPLATE_RE.search(value) is not None)


def password_like(value: str) -> bool:
    """A password option's value that is one: the option says so, so 4 characters and a plain word
    (``root``) are enough; not a placeholder, a variable, another flag, a port mapping (docker's ``-p``
    after ``--name mysql``), a path or a URL (prose's ``docker login, then mkdir -p ~/.docker``), or a
    quoted string's blanks around code (``"mysql -p" + pw``)."""
    return (len(value) >= _MIN_PASSWORD and value == value.strip() and _literal(value) and not _placeholder(value)
            and _PORTS_RE.fullmatch(value) is None and _PATH_RE.match(value) is None and "://" not in value)


def _flag_value(text: str, pos: int, listed: bool = False) -> Iterator[Finding]:
    """A secret flag's value in the next word: not a flag, a path, a variable, a password source or a
    placeholder; in a list of arguments (``listed``), no blank (a flag's description is one)."""
    word = _word(text, pos)
    if word is None:
        return
    start, end, value = word
    if (listed and _BLANK_RE.search(value)) or value != value.strip():
        return
    if value.startswith("pass:"):
        start, value = start + 5, value[5:]
        if password_like(value):
            yield Finding(start, end, "secret")
        return
    if (_literal(value) and named_value(value) and not _placeholder(value) and not _PATH_RE.match(value)
            and not _PASS_SOURCE_RE.match(value)):
        yield Finding(start, end, "secret")


def _password(text: str, pos: int, listed: bool) -> Iterator[Finding]:
    """A password option's value (the option says it is one: 4 characters are enough)."""
    word = _word(text, pos)
    if word is not None:
        start, end, value = word
        if password_like(value) and not (listed and _BLANK_RE.search(value)):
            yield Finding(start, end, "password")


def _user_password(text: str, pos: int, listed: bool, joint: str = ":") -> Iterator[Finding]:
    """The password of a ``user:PASS`` word (``joint`` between them; none without it: the program asks)."""
    word = _word(text, pos)
    if word is None:
        return
    start, end, value = word
    colon = value.find(joint)
    if colon == -1 or (listed and _BLANK_RE.search(value)):
        return
    if password_like(value[colon + 1 :]):
        yield Finding(start + colon + 1, end, "password")


class _CommandLines:
    """The families of the programs named before a position in its command, a line looked up once.

    A line runs from a newline not preceded by a backslash to the next (a command continued with ``\\`` is
    one line); on it a command ends at ``&&``, ``||``, ``;``, ``|`` or a JSON string's ``\\n`` (``docker
    login … && docker run -p 8080:80`` publishes a port), and sshpass's at the program it runs (``ssh -p
    2222``).  Positions are asked in increasing order, so each line's programs and ends are found once and
    passed once: a line of ten thousand ``mysql -p`` costs no more per option than one."""

    __slots__ = ("_text", "_end", "_events", "_next", "_families")

    def __init__(self, text: str) -> None:
        self._text = text
        self._end = -1
        self._events: list[tuple[int, str]] = []
        self._next = 0
        self._families: set[str] = set()

    def families(self, pos: int) -> set[str]:
        """The families of the programs before ``pos`` in its command (not to be changed)."""
        if pos >= self._end:
            self._read_line(pos)
        events, at = self._events, self._next
        while at < len(events) and events[at][0] < pos:
            kind = events[at][1]
            if kind == "sep":
                self._families = set()
            elif kind == "reset":
                self._families.discard("sshpass")
            else:
                self._families.add(kind)
            at += 1
        self._next = at
        return self._families

    def _read_line(self, pos: int) -> None:
        text, floor = self._text, max(self._end, 0)
        start = text.rfind("\n", floor, pos) + 1
        while start > floor + 1 and text[start - 2] == "\\":
            start = text.rfind("\n", floor, start - 1) + 1
        end = text.find("\n", pos)
        while end > 0 and text[end - 1] == "\\":
            end = text.find("\n", end + 1)
        self._end = len(text) if end == -1 else end
        self._events = [(p.start(), p.lastgroup or "") for p in _PROGRAM_RE.finditer(text, start, self._end)]
        self._next = 0
        self._families = set()


#: A quoted value with a blank, given to a name: ``NAME = "a b c"``, ``"name": 'a b c'``, ``NAME:="…"``
#: (the quote may be escaped, as in JSON inside JSON).  200 characters at most, on one line.
_QUOTED_RE = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80}+)\\?[\"']?[ \t]*+(?::=|=|:)[ \t]*+(?P<q>\\?[\"'])"
    r"(?P<value>[^\"'\\\n]{8,200}+)(?P=q)"
)
#: ``"NAME=a b c"`` quoted whole, as ``docker run -e`` (``--env``, ``--build-arg``) and a list (a compose
#: file's ``environment:``, a JSON array) take it (``_LIST_BEFORE_RE`` before it); not a command's ``sh -c
#: "PGPASSWORD=x psql …"``.
_QUOTED_WHOLE_RE = re.compile(
    r"(?P<q>\\?[\"'])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,80}+)=(?P<value>[^\"'\\\n]{8,200}+)(?P=q)"
)
_LIST_BEFORE_RE = re.compile(r"(?:-e|--env|--build-arg|-) $|--env=$|[\[,] ?$")
#: A name's words, as ``core.secret_names`` splits them (``DB_PASSWORD``, ``dbPassword``, ``PGPASSWORD``).
_NAME_PARTS_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
#: The last words of a name whose quoted value with blanks is a passphrase (also glued: ``PGPASSWORD``).
_PASSPHRASE_WORDS = frozenset({"password", "passwd", "pass", "pwd", "passphrase", "secret"})
#: Words of a name that holds a message about a password, not one (``ERROR_BAD_PASSWORD``, ``msgPassword``).
_MESSAGE_WORDS = frozenset({"error", "err", "errors", "msg", "message", "messages", "label", "hint", "help", "prompt",
                            "text", "title", "placeholder", "tooltip", "desc", "description", "caption", "invalid",
                            "wrong", "bad", "incorrect", "missing", "warning", "notice", "i18n"})
#: A value that is a label, a message or a template, not a passphrase: it names a secret, ends like a
#: sentence, or holds a placeholder.
_NOT_PASSPHRASE_RE = re.compile(r"(?i)pass(?:word|phrase)?|secret|[.?:…]$|%[sd(]|[{}$<>]")
#: Where a passphrase's name can be: one of these words (any case), the rest of the name (at most
#: ``_NAME_REST`` characters of ``_NAME_RUN_RE``) and ``_NAME_END_RE``.
_QUOTED_WORDS = ("pass", "pwd", "secret")
_NAME_REST = 80
_NAME_RUN_RE = re.compile(r"[A-Za-z0-9_.-]*+")
_NAME_END_RE = re.compile(r"\\?[\"']?[ \t]*[:=]")


def quoted_passphrases(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """Quoted values with blanks given to a password's or a secret's name (``_QUOTED_RE``,
    ``_QUOTED_WHOLE_RE``)."""
    for a, b in _passphrase_lines(text, view):
        for pattern in (_QUOTED_RE, _QUOTED_WHOLE_RE):
            for m in pattern.finditer(text, a, b):
                value = m.group("value")
                if (" " in value.strip() and _passphrase_name(m.group("name"))
                        and _NOT_PASSPHRASE_RE.search(value) is None and named_value(value.strip())
                        and (pattern is _QUOTED_RE or _LIST_BEFORE_RE.search(text, max(m.start() - 12, 0), m.start()))):
                    yield Finding(m.start("value"), m.end("value"), "secret")


def _passphrase_lines(text: str, view: TextView | None) -> list[tuple[int, int]]:
    """The lines where a passphrase's name can be (``_QUOTED_WORDS``), in order; the whole text without a
    view.  In one pass: a run of name characters is read once for all the words in it, and a word's line
    start is looked for back to the last line listed, not to the text's start (``Anchor.lines`` does both
    per word: a line of a million ``pass: '`` took 1.1 s, four times that at twice the length; a million
    characters of ``passpass…`` 1.2 s)."""
    hits = None if view is None else view.hits(_QUOTED_WORDS)
    if hits is None:
        return [(0, len(text))]
    out: list[tuple[int, int]] = []
    end, runs = -1, RunEnds(_NAME_RUN_RE)
    for at, stop in sorted(hits):
        if at < end:
            continue
        run_end = runs.end(text, stop, len(text))
        if run_end - stop > _NAME_REST or _NAME_END_RE.match(text, run_end) is None:
            continue
        newline = text.rfind("\n", end + 1, at)
        start = end + 1 if newline == -1 else newline + 1
        end = text.find("\n", at)
        end = len(text) if end == -1 else end
        out.append((start, end))
    return out


def _passphrase_name(name: str) -> bool:
    words = [w.lower() for w in _NAME_PARTS_RE.findall(name)]
    last = words[-1] if words else ""
    return ((last in _PASSPHRASE_WORDS or last.endswith(("password", "passwd", "passphrase")))
            and not any(w in _MESSAGE_WORDS for w in words))
