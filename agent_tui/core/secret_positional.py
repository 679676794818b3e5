"""Passwords a program takes in its own syntax, where no option or ``NAME=`` says so.

``core.secret_cli`` finds a password by the option before it (``-p``, ``--token``).  These take it by
place or by a keyword of their own, and READMEs, provisioning scripts and shell histories are full of
them:

- SQL: ``IDENTIFIED [WITH plugin] BY 'PW'`` (MySQL, Oracle), ``[WITH|LOGIN|…|USER name] PASSWORD 'PW'``
  (PostgreSQL, SQL Server's ``WITH PASSWORD = N'PW'``), ``SET PASSWORD [FOR u] = [PASSWORD(]'PW'``;
- a place among the arguments: ``htpasswd -b[n…] [FILE] USER PW`` and ``mosquitto_passwd -b FILE USER PW``,
  ``rabbitmqctl add_user|change_password USER PW``, ``vault login TOKEN``, Windows' ``net use \\\\host\\share
  PW`` and ``net user NAME PW``;
- Oracle's ``USER/PW@db`` after sqlplus, sqlldr, expdp, impdp, rman, dgmgrl (and ``userid=USER/PW``,
  ``CONNECT USER/PW@db``), impacket's ``[DOMAIN/]USER:PW@host``;
- Windows options with a colon: ``/pass:PW``, ``/password:PW``, xfreerdp's ``/p:PW`` (not msbuild's
  ``/p:Name=Value``, a property);
- a password echoed into a program that reads it from its input: ``echo PW | docker login
  --password-stdin``, ``| sudo -S``, ``| passwd --stdin``, ``echo 'user:PW' | chpasswd``.

Each rule runs only when the lowercased text holds one of its words, and each regex is linear: every
repeat is possessive or bounded by a literal that cannot be part of it.  The value must look like one
(``secret_cli``'s test: four characters, not a placeholder, a variable, a path or a URL).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agent_tui.core.secret_cli import password_like
from agent_tui.core.secret_gates import TextView
from agent_tui.core.secret_values import Finding
from agent_tui.core.secret_words import WordSet

#: A quoted SQL string's value (also with its quotes escaped, SQL inside JSON), group ``v``.
_SQL_VALUE = r"N?(?P<q>\\?['\"])(?P<v>[^'\"\\\n]{1,200}+)(?P=q)"
#: A user's or a role's name in SQL (``app``, ``'root'@'localhost'``, ``"app"``).
_SQL_USER = r"(?:[^\s'\"]++|(?P<uq>['\"])[^'\"\n]{1,100}+(?P=uq)\S*+)"
#: ``USER name IDENTIFIED [WITH plugin] BY …`` (also ``GRANT … TO name``); Oracle's value may be bare.
_IDENTIFIED_RE = re.compile(
    r"(?i)\b(?:user|role|to)[ \t]++" + _SQL_USER + r"[ \t]++identified(?:[ \t]++with[ \t]++[\w'\"]++)?[ \t]++by"
    r"(?:[ \t]++password)?[ \t]*+(?:" + _SQL_VALUE + r"|(?P<bare>[^\s;'\"\\]++))"
)
#: Words after ``IDENTIFIED BY`` that are SQL, not a bare password (``IDENTIFIED BY RANDOM PASSWORD``).
_SQL_WORDS = frozenset({"random", "values", "password"})
#: A SQL statement's verb on the line before a bare ``IDENTIFIED BY`` value, at most ``_SQL_BACK`` before it.
_SQL_BACK = 200
_SQL_STATEMENT_RE = re.compile(r"(?i)\b(?:create|alter|grant)[ \t]++(?:user|role|login|all|select|insert|\w+[ \t]++on|\S+[ \t]++to)"
                               r"|\b(?:create|alter)[ \t]++(?:user|role)\b")
_SQL_PASSWORD_RE = re.compile(
    r"(?i)(?:\b(?:with|login|nologin|superuser|nosuperuser|createdb|nocreatedb|createrole|inherit|replication|"
    r"encrypted|unencrypted|set)|\b(?:user|role|login)[ \t]++" + _SQL_USER + r")"
    r"[ \t]++password\b[ \t]*+(?:for[ \t]++\S++[ \t]*+)?(?:=[ \t]*+)?(?:password[ \t]*+\([ \t]*+)?" + _SQL_VALUE
)
#: One shell word (quoted or bare); ``_args`` reads a command's words with it.
_ARG_RE = re.compile(r"\"(?P<dq>[^\"\n]*+)\"|'(?P<sq>[^'\n]*+)'|(?P<bare>[^\s;&|<>()`\"']++)")
#: Where a command's words end.
_COMMAND_END_RE = re.compile(r"[;&|\n<>()`]|$")
_HTPASSWD_RE = re.compile(r"(?<![\w.-])(?P<prog>htpasswd|mosquitto_passwd)(?=[ \t])")
_RABBIT_RE = re.compile(r"(?<![\w.-])rabbitmqctl(?=[ \t])")
#: What a Vault token looks like (``hvs.…``, ``s.…``), or a long word with letters and digits, not prose's
#: "vault login again".
_VAULT_TOKEN_RE = re.compile(r"(?:hv[sbr]|[sbr])\.[A-Za-z0-9_-]{8,}|(?=[^=\s]*\d)(?=[^=\s]*[A-Za-z])[^=\s]{12,}")
_VAULT_RE = re.compile(r"(?<![\w.-])vault[ \t]++login(?=[ \t])")
#: ``net`` as a command (at a line's start, after an operator, a quote or a prompt), then ``use`` or ``user``.
_NET_RE = re.compile(r"(?im)(?:^|[;&|`\"'(]|[$>] |\bcmd(?:\.exe)?[ \t]++/[ck][ \t])[ \t]*+net(?:\.exe)?[ \t]++"
                     r"(?P<verb>use|user)(?=[ \t])")
_ORACLE_RE = re.compile(
    r"(?i)(?<![\w.-])(?:(?P<prog>sqlplus(?:64)?|sqlldr|expdp|impdp)(?:[ \t]++-\w++)*+[ \t]++"
    r"(?:target[ \t]*+=?[ \t]*+)?|(?P<connect>conn(?:ect)?)[ \t]++|userid[ \t]*+=[ \t]*+)"
    r"[\w$#.\"]++/(?P<v>[^\s@/'\",;]++)(?P<at>@)?"
)
_IMPACKET_RE = re.compile(
    r"(?i)(?<![\w.-])(?:impacket-\w++|(?:psexec|smbexec|wmiexec|atexec|dcomexec|secretsdump|smbclient|mssqlclient)"
    r"\.py)(?=[ \t])"
)
_IMPACKET_TARGET_RE = re.compile(r"(?:[\w.-]++/)?[\w.$-]++:(?P<v>[^\s@]++)@[\w.-]")
_SLASH_RE = re.compile(
    r"(?i)(?<![^\s\"'])/(?P<opt>pass(?:word)?|pwd|p):(?:\"(?P<dq>[^\"\n]++)\"|'(?P<sq>[^'\n]++)'|(?P<v>[^\s\"']++))"
)
_ECHO_RE = re.compile(
    r"(?<![\w.-])(?:echo|printf)(?:[ \t]++-[neE]++)*+[ \t]++"
    r"(?:\"(?P<dq>[^\"\n]*+)\"|'(?P<sq>[^'\n]*+)'|(?P<bare>[^\s|;&'\"]++))"
    r"(?P<format>[ \t]++(?:\"(?P<fmt_dq>[^\"\n]*+)\"|'(?P<fmt_sq>[^'\n]*+)'))?"
    r"[ \t]*+\|(?!\|)(?P<cmd>[^|\n;&]*+)"
)
#: A here-string (``<<< "PW"``) and how far back its command's reader is looked for.
_HERE_RE = re.compile(r"<<<[ \t]*+(?:\"(?P<dq>[^\"\n]*+)\"|'(?P<sq>[^'\n]*+)'|(?P<bare>[^\s|;&'\"]++))")
_HERE_BACK = 300
#: The programs that read a password from their input (sudo's ``-S`` is looked for by ``_sudo_reads``).
_STDIN_READER_RE = re.compile(r"--password-stdin|(?<![\w.-])(?:sudo(?=[ \t])|chpasswd\b|passwd(?=[ \t]))")
#: sudo's options that take a value (``-u root``): the word after them is not the command.
_SUDO_VALUED = frozenset({"-u", "-g", "-p", "-h", "-C", "-D", "-r", "-t", "-U", "-T", "-R"})


Spans = list[tuple[int, int]]


@dataclass(frozen=True)
class _Rule:
    words: tuple[str, ...]
    """Lowercase words one of which every finding's text holds."""
    find: Callable[[str, Spans], Iterator[Finding]]
    """The rule's findings in the parts (start, end) of a text where they can be."""
    around: tuple[int, int] | None = None
    """(before, after): every finding lies within this many characters of one of the words, so only those
    windows are searched (a tool output is often one long line: lines would not narrow it)."""


def positional_secrets(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """Passwords given by place or by a program's own keyword (see the module's docstring)."""
    low = None if view is None else view.lowered
    whole = [(0, len(text))]
    present = None if low is None else _WORDS.present(text, low)
    for rule in _RULES:
        if present is None:
            yield from rule.find(text, whole)
        elif any(w in present for w in rule.words):
            yield from rule.find(text, whole if rule.around is None else _windows(low, rule.words, rule.around))


def _windows(low: str, words: tuple[str, ...], around: tuple[int, int]) -> Spans:
    """The merged spans within ``around`` of each occurrence of ``words`` in ``low`` (in order)."""
    before, after = around
    hits = sorted(at for w in words for at in _occurrences(low, w))
    spans: Spans = []
    for at in hits:
        a, b = max(0, at - before), min(len(low), at + after)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


def _occurrences(low: str, word: str) -> Iterator[int]:
    at = low.find(word)
    while at != -1:
        yield at
        at = low.find(word, at + 1)


def _value(m: re.Match[str], group: str = "v") -> Iterator[Finding]:
    value = m.group(group)
    if value is not None and password_like(value):
        yield Finding(m.start(group), m.end(group), "password")


def _identified(text: str, spans: Spans) -> Iterator[Finding]:
    for m in _each(_IDENTIFIED_RE, text, spans):
        if m.group("v") is not None:
            yield from _value(m)
        elif m.group("bare").lower() not in _SQL_WORDS and _SQL_STATEMENT_RE.search(
                text, max(text.rfind("\n", max(0, m.start() - _SQL_BACK), m.start()) + 1, m.start() - _SQL_BACK),
                m.start() + 6):
            yield from _value(m, "bare")  # prose says "customers identified by email" too


def _sql_password(text: str, spans: Spans) -> Iterator[Finding]:
    for m in _each(_SQL_PASSWORD_RE, text, spans):
        yield from _value(m)


def _each(pattern: re.Pattern[str], text: str, spans: Spans) -> Iterator[re.Match[str]]:
    for a, b in spans:
        yield from pattern.finditer(text, a, b)


def _command(text: str, pos: int) -> tuple[list[re.Match[str]], int]:
    """The words of the command from ``pos``, and where it ends."""
    stop = _COMMAND_END_RE.search(text, pos)
    end = len(text) if stop is None else stop.start()
    out, at = [], pos
    while True:
        while at < end and text[at] in " \t":
            at += 1
        m = _ARG_RE.match(text, at, end) if at < end else None
        if m is None:
            return out, end
        out.append(m)
        at = m.end()


def _commands(pattern: re.Pattern[str], text: str, spans: Spans) -> Iterator[tuple[re.Match[str],
                                                                                  list[re.Match[str]]]]:
    """Each match of a program's ``pattern`` (in ``spans``) with the words of its command.  The next match
    is looked for after that command's end: a line of ten thousand ``htpasswd`` is read once, not once per
    program."""
    pos = 0
    for a, b in spans:
        pos = max(pos, a)
        while pos < b and (m := pattern.search(text, pos, b)) is not None:
            words, end = _command(text, m.end())
            yield m, words
            pos = max(end, m.end())


def _arg(m: re.Match[str]) -> tuple[int, int, str]:
    for group in ("dq", "sq", "bare"):
        if m.group(group) is not None:
            return m.start(group), m.end(group), m.group(group)
    return m.start(), m.end(), m.group()


def _password_arg(m: re.Match[str] | None) -> Iterator[Finding]:
    if m is None:
        return
    start, end, value = _arg(m)
    if password_like(value):
        yield Finding(start, end, "password")


def _htpasswd(text: str, spans: Spans) -> Iterator[Finding]:
    """``htpasswd -b FILE USER PW``, ``htpasswd -nb USER PW``, ``mosquitto_passwd -b FILE USER PW``."""
    for m, words in _commands(_HTPASSWD_RE, text, spans):
        flags, places, valued = "", [], False
        for w in words:
            value = _arg(w)[2]
            if valued:
                valued = False
            elif value.startswith("-"):
                flags += value[1:]
                valued = value[-1:] in ("C", "r")  # bcrypt's cost, SHA-2's rounds: the next word is a number
            else:
                places.append(w)
        if "b" not in flags:
            continue
        place = 1 if m.group("prog") == "htpasswd" and "n" in flags else 2
        yield from _password_arg(places[place] if len(places) > place else None)


def _rabbitmq(text: str, spans: Spans) -> Iterator[Finding]:
    """``rabbitmqctl [options] add_user|change_password USER PW``."""
    for _, found in _commands(_RABBIT_RE, text, spans):
        for i, word in enumerate(_arg(w)[2] for w in found):
            if word in ("add_user", "change_password"):
                yield from _password_arg(found[i + 2] if i + 2 < len(found) else None)
                break


def _vault(text: str, spans: Spans) -> Iterator[Finding]:
    """``vault login [options] TOKEN`` (``-method=… username=…`` logins give no token by place)."""
    for _, words in _commands(_VAULT_RE, text, spans):
        places = [w for w in words if not _arg(w)[2].startswith("-")]
        if len(places) == 1 and _VAULT_TOKEN_RE.fullmatch(_arg(places[0])[2]):
            yield from _password_arg(places[0])


def _net(text: str, spans: Spans) -> Iterator[Finding]:
    """``net use [X:|*] \\\\host\\share PW`` and ``net user NAME PW`` (``*`` asks, ``/…`` is an option)."""
    for m, words in _commands(_NET_RE, text, spans):
        places = [w for w in words if not _arg(w)[2].startswith("/")]
        if m.group("verb") == "use":
            share = next((i for i, w in enumerate(places) if _arg(w)[2].startswith("\\\\")), None)
            found = places[share + 1] if share is not None and share + 1 < len(places) else None
        else:
            found = places[1] if len(places) > 1 else None
        if found is not None and _arg(found)[2] != "*":
            yield from _password_arg(found)


def _oracle(text: str, spans: Spans) -> Iterator[Finding]:
    """``sqlplus USER/PW[@db]``, ``userid=USER/PW``; ``CONNECT USER/PW@db`` (with its ``@``: prose says
    "connect client/server")."""
    for m in _each(_ORACLE_RE, text, spans):
        if m.group("connect") is None or m.group("at"):
            yield from _value(m)


def _impacket(text: str, spans: Spans) -> Iterator[Finding]:
    """impacket's targets: ``psexec.py CORP/alice:PW@10.0.0.5``."""
    for _, words in _commands(_IMPACKET_RE, text, spans):
        for word in words:
            start, _, value = _arg(word)
            target = _IMPACKET_TARGET_RE.match(value)
            if target is not None:
                if password_like(target.group("v")):
                    yield Finding(start + target.start("v"), start + target.end("v"), "password")
                break


def _slash_options(text: str, spans: Spans) -> Iterator[Finding]:
    """``/pass:PW``, ``/password:PW``, ``/p:PW`` (a value with ``=`` is msbuild's property)."""
    for m in _each(_SLASH_RE, text, spans):
        group = next(g for g in ("dq", "sq", "v") if m.group(g) is not None)
        if "=" not in m.group(group):
            yield from _value(m, group)


def _echoed(text: str, spans: Spans) -> Iterator[Finding]:
    """A password echoed into a program that reads it from its input (``chpasswd`` reads ``user:PW``)."""
    for m in _each(_ECHO_RE, text, spans):
        reader = _reader(text, m.group("cmd"), m.start("cmd"))
        if reader is None:
            continue
        group = next(g for g in ("dq", "sq", "bare") if m.group(g) is not None)
        start, value = m.start(group), m.group(group)
        if m.group("format") is not None:  # printf '%s\n' 'PW': the format, then the password
            if "%s" not in value:
                continue
            fmt = "fmt_dq" if m.group("fmt_dq") is not None else "fmt_sq"
            start, value = m.start(fmt), m.group(fmt)
        if value.endswith("\\n"):
            value = value[:-2]
        if reader == "chpasswd":
            colon = value.find(":")
            if colon == -1:
                continue
            start, value = start + colon + 1, value[colon + 1 :]
        if password_like(value):
            yield Finding(start, start + len(value), "password")


def _reader(text: str, cmd: str, at: int) -> str | None:
    """The program in the piped command ``cmd`` (at ``at`` in ``text``) that reads a password from its input:
    ``--password-stdin``, ``chpasswd``, ``passwd --stdin``, ``sudo -S`` (a ``sudo`` without ``-S`` runs the
    next one: ``echo 'u:PW' | sudo chpasswd``)."""
    stdin = "--stdin" in cmd  # once: a pipe into ten thousand ``passwd`` is read once
    for m in _STDIN_READER_RE.finditer(cmd):
        found = m.group()
        if found == "sudo" and not _sudo_reads(text, at + m.end()):
            continue
        if found == "passwd" and not stdin:
            continue
        return "chpasswd" if found.startswith("chpasswd") else found
    return None


def _here_strings(text: str, spans: Spans) -> Iterator[Finding]:
    """``sudo -S … <<< "PW"``, ``docker login --password-stdin <<< "PW"``: the reader before the ``<<<`` in
    its command (looked for at most ``_HERE_BACK`` characters back)."""
    for m in _each(_HERE_RE, text, spans):
        back = max(0, m.start() - _HERE_BACK)
        cut = max(text.rfind(c, back, m.start()) for c in "\n;&|")
        cmd_start = cut + 1 if cut != -1 else back
        reader = _reader(text, text[cmd_start:m.start()], cmd_start)
        group = next(g for g in ("dq", "sq", "bare") if m.group(g) is not None)
        start, value = m.start(group), m.group(group)
        if reader == "chpasswd":
            colon = value.find(":")
            start, value = (start + colon + 1, value[colon + 1 :]) if colon != -1 else (start, "")
        if reader is not None and password_like(value):
            yield Finding(start, start + len(value), "password")


def _sudo_reads(text: str, pos: int) -> bool:
    """Whether the sudo whose options start at ``pos`` has ``-S`` (``--stdin``): it reads the password.  Its
    words are read one at a time up to the first that is not an option (a line of ten thousand ``sudo`` is
    read once, not once per sudo)."""
    skip = False
    for m in _lazy_words(text, pos):
        word = _arg(m)[2]
        if skip:
            skip = False
        elif word == "--stdin" or (word.startswith("-") and not word.startswith("--") and "S" in word):
            return True
        elif word in _SUDO_VALUED:
            skip = True
        elif not word.startswith("-"):
            return False
    return False


def _lazy_words(text: str, pos: int) -> Iterator[re.Match[str]]:
    """The words of the command from ``pos``, one at a time, to an operator or a newline."""
    at, size = pos, len(text)
    while True:
        while at < size and text[at] in " \t":
            at += 1
        if at >= size or text[at] in ";&|\n<>()`":
            return
        m = _ARG_RE.match(text, at)
        if m is None:
            return
        yield m
        at = m.end()


_RULES: tuple[_Rule, ...] = (
    _Rule(("identified",), _identified, (320, 400)),
    _Rule(("password",), _sql_password, (320, 400)),
    _Rule(("passwd",), _htpasswd),
    _Rule(("rabbitmqctl",), _rabbitmq),
    _Rule(("vault",), _vault, (1, 64)),
    _Rule(("net",), _net, (80, 48)),
    _Rule(("sqlplus", "sqlldr", "expdp", "impdp", "userid", "conn"), _oracle, (1, 600)),
    _Rule(("impacket", "exec.py", "secretsdump", "client.py"), _impacket),
    _Rule(("/p",), _slash_options, (1, 300)),
    _Rule(("sudo", "stdin", "passwd"), _echoed),
    _Rule(("<<<",), _here_strings),
)
#: Every rule's words, looked up once per text (a word shared by two rules is not searched twice).
_ALL_WORDS: tuple[str, ...] = tuple(dict.fromkeys(w for rule in _RULES for w in rule.words))
_WORDS = WordSet(_ALL_WORDS, fold=True)
