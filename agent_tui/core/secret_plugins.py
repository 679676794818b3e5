"""The secret formats detect-secrets knows, run in-process on a text (no baseline files, no git).

Its regex plugins' denylists, each behind its gate (``core.secret_gates``), and its base64 entropy plugin.
Some of its regexes are run otherwise than as written, to find the same or more in linear time: the
keyword-and-value plugins' separator (``secret_gates.linear``), npm's token (on the lines holding it),
and the JWT (followed to the end of its signature, which its lazy end left readable).

Source code trips some of them: a keyword plugin reads ``key: _with_portable_cache_control_in_scoped_value(``
as an IBM key (44 characters of its alphabet), the entropy plugin an alphabet written out
(``'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_'``) or a path of words; those, and a
docs' ``xxxxxxxx`` placeholder, are left alone (``_names_a_thing``, ``_alphabet``, ``_words_and_ids``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from agent_tui.core.secret_gates import TextView, gate_for, linear, min_width
from agent_tui.core.secret_values import MIN_SECRET_LEN, Finding

#: Plugin regexes whose every match is on one line holding this literal (``.`` crosses no newline), by
#: kind: they run on those lines alone.  npm's ``//.+/:_authToken=`` reads from every ``//`` of a line
#: (every URL, every comment) to the line's end and back: a long minified line cost its length squared.
_LINE_LITERALS = {"npm-token": "/:_authToken="}
_SPACE_RUN_RE = re.compile(r"\s*+")

#: A JWT's header and payload characters (the detect-secrets regex's ``[A-Za-z0-9-_=]``).
_JWT_RUN_RE = re.compile(r"[A-Za-z0-9_=-]*+")
#: What follows that regex's match: the rest of the signature, and more parts (a JWE has five), in base64url
#: (no ``/``: a JWT in a URL's path ends before the next segment).
_JWT_TAIL_RE = re.compile(r"[A-Za-z0-9_=-]*+(?:\.[A-Za-z0-9_=-]++)*+")

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
#: The keyword-and-value plugins, whose group 1 is the value after a secret word (``key: VALUE``).
_KEYWORD_KINDS = frozenset({"cloudant-password", "ibm-cloud-key", "ibm-cos-key", "softlayer-key"})
#: A keyword plugin's value that is a name of words (``_with_portable_cache_control_in_scoped_value``,
#: ``LITTELM_INTERNAL_HEALTH_SERVICE_ACCOUNT_NAME``): letters only, three words or more; a key of the
#: plugins' alphabet that long is never so.
_SNAKE_NAME_RE = re.compile(r"_?+[A-Za-z]++(?:_[A-Za-z]++){2,}+_?+")
#: What splits a quoted string into parts (the entropy plugin's alphabet's separators).
_PART_SEP_RE = re.compile(r"[-_/\\.+=]++")
#: A part that is a word (letters, at most one lower-to-upper change: ``CentralProcessor``), a number or
#: lowercase hex (an id: hex is not flagged, ``core.secrets``' docstring).
_WORD_PART_RE = re.compile(r"[A-Za-z][a-z]*+(?:[A-Z][a-z]*+)?+|[A-Z]++[a-z]*+|[0-9a-f]++")


_PLUGIN_MODULES = ("artifactory", "aws", "azure_storage_key", "cloudant", "discord", "github_token", "gitlab_token",
                   "ibm_cloud_iam", "ibm_cos_hmac", "jwt", "mailchimp", "npm", "openai", "pypi_token", "sendgrid",
                   "slack", "softlayer", "square_oauth", "stripe", "telegram_token", "twilio")
"""detect-secrets' regex plugin modules whose denylists we use."""


Detector = tuple[str, re.Pattern[str], Any, int]
"""One plugin regex: its kind, the pattern, its gate (``core.secret_gates.Gate``) or None, and the
length of its shortest match (a shorter text cannot hold one)."""


@lru_cache(maxsize=1)
def detectors() -> tuple[list[Detector], Any]:
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


@lru_cache(maxsize=1)
def _scanners() -> tuple[tuple[re.Pattern[str], str | None], ...]:
    """How each detector of ``detectors()`` runs (same order): the regex (the plugin's own, or the same
    matches read in linear time, ``secret_gates.linear``), and how: ``"jwt"`` (``_jwts``), a literal
    its matches' lines hold (``_LINE_LITERALS``), or None (over the whole text)."""
    out: list[tuple[re.Pattern[str], str | None]] = []
    for kind, regex, _, _ in detectors()[0]:
        literal = _LINE_LITERALS.get(kind)
        if kind == "jwt" and regex.pattern.startswith("eyJ"):
            out.append((regex, "jwt"))
        elif literal is not None and literal in regex.pattern.replace("\\", ""):
            out.append((regex, literal))
        else:
            out.append((linear(regex), None))
    return tuple(out)


#: What makes a plugin regex one RE2 takes (RE2 has no lookaround, no repetition past 1,000): each
#: rewrite matches the same or more, so the set may flag a regex that then finds nothing, never miss one.
_RE2_WIDER = (
    (re.compile(r"\(\?:\(\?<=\\W\)\|\(\?<=\^\)\)"), ""),  # (?:(?<=\W)|(?<=^)): dropped
    (re.compile(r"\(\?<?[!=](?:[^()\\]|\\.)*\)"), ""),  # other lookarounds without groups: dropped
    (re.compile(r"(?<!\\)\{(\d+),\d{4,}\}"), r"{\1,}"),  # {50,1024}: {50,}
    (re.compile(r"(?<!\\)\{,(\d+)\}"), r"{0,\1}"),  # {,n}: Python's {0,n} (RE2 reads it as text)
    # A leading run of character classes with a counted repetition (greedy; no class opening with "]"),
    # dropped (a match of the rest is in every match of the whole): Discord's ``[MNO][a-zA-Z\d_-]{23,25}`` grew RE2's DFA on base64 (~1 s a MB).
    (re.compile(r"^(?:\[(?!\^?\])(?:[^\]\\]|\\.)+\])+\{\d+(?:,\d*)?\}(?![?+])"), ""),
)
#: Python's ``\s`` in ASCII text, as the inside of a character class (RE2's ``\s`` has no ``\v``, ``\x1c``-``\x1f``).
_PY_BLANKS = "\\t\\n\\v\\f\\r \\x1c-\\x1f"


def _as_python_reads(pattern: str, multiline: bool) -> str:
    """``pattern`` with each ``\\s`` spelt as Python reads it (``[…]`` outside a class, its inside within one),
    and, unless ``multiline``, each ``$`` too (Python's also matches before a last newline; RE2's does not)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        step = 1
        part = pattern[i]
        if part == "\\" and i + 1 < len(pattern):
            step = 2
            part = pattern[i:i + 2]
            if part == "\\s":
                part = _PY_BLANKS if in_class else f"[{_PY_BLANKS}]"
        elif part == "[" and not in_class:
            in_class = True
            for literal in ("[]", "[^]"):  # a "]" first in a class is a literal
                if pattern.startswith(literal, i):
                    part, step = literal, len(literal)
        elif part == "]" and in_class:
            in_class = False
        elif part == "$" and not in_class and not multiline:
            part = "(?:\\n?$)"
        out.append(part)
        i += step
    return "".join(out)


@lru_cache(maxsize=1)
def _ascii_set() -> tuple[Any, frozenset[int]]:
    """One RE2 set of every plugin regex RE2 can take (widened: ``_RE2_WIDER``), and the indexes of the
    ones it cannot (run on every text): a single pass over an ASCII text tells which regexes may match.
    (None, every index) when google-re2 is missing."""
    every = frozenset(range(len(detectors()[0])))
    try:
        import re2
    except ImportError:
        return None, every
    flags = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}
    found = re2.Set.SearchSet(re2.Options())
    outside: set[int] = set()
    added: list[int] = []
    for i, (_, regex, _, _) in enumerate(detectors()[0]):
        pattern = regex.pattern
        for rule, repl in _RE2_WIDER:
            pattern = rule.sub(repl, pattern)
        pattern = _as_python_reads(pattern, bool(regex.flags & re.MULTILINE))
        inline = "".join(c for f, c in flags.items() if regex.flags & f)
        try:
            verbose = regex.flags & re.VERBOSE and any(c.isspace() or c == "#" for c in pattern)
            if verbose or "(?<" in pattern or "(?!" in pattern or "(?=" in pattern:
                raise ValueError(pattern)
            found.Add(f"(?{inline}){pattern}" if inline else pattern)
            added.append(i)
        except Exception:  # (RE2 logs what it could not parse, once)
            outside.add(i)
    found.Compile()
    return _IndexedSet(found, tuple(added)), frozenset(outside)


class _IndexedSet:
    """An RE2 set answering with the detectors' own indexes."""

    __slots__ = ("found", "index")

    def __init__(self, found: Any, index: tuple[int, ...]) -> None:
        self.found = found
        self.index = index

    def matching(self, text: str) -> set[int]:
        index = self.index
        return {index[n] for n in self.found.Match(text) or ()}


def _may_match(text: str) -> set[int] | frozenset[int] | None:
    """The detectors' indexes that may match an ASCII ``text`` (one RE2 pass), or None (any may)."""
    if not text.isascii():
        return None  # (Unicode classes and case folding differ between RE2 and Python's re)
    found, outside = _ascii_set()
    if found is None:
        return None
    return found.matching(text) | outside


def _lines_with(text: str, literal: str) -> list[tuple[int, int]]:
    """The (start, end) of the lines a match holding ``literal`` can span, merged where they touch: the
    line of each occurrence, through the line where the whitespace after it ends (npm's ``=\\s*`` may
    cross a newline).  Linear: each whitespace run is read once, and a line end is looked for only past
    the last span."""
    out: list[tuple[int, int]] = []
    at = text.find(literal)
    while at != -1:
        ws = _SPACE_RUN_RE.match(text, at + len(literal)).end()
        if out and at < out[-1][1]:  # inside the last span: only its whitespace may reach further
            if ws >= out[-1][1]:
                out[-1] = (out[-1][0], _line_end(text, ws))
        else:
            out.append((text.rfind("\n", out[-1][1] if out else 0, at) + 1, _line_end(text, ws)))
        at = text.find(literal, at + len(literal))
    return out


def _line_end(text: str, pos: int) -> int:
    """Where the line holding ``pos`` ends (its newline, or the text's end)."""
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def _jwts(text: str, regex: re.Pattern[str]) -> Iterator[Finding]:
    """The JWTs detect-secrets' ``regex`` finds, each whole, in linear time.  Its regex ends lazily
    (``[…]*?``), so its match stopped before the signature, which stayed readable: it is followed here
    to its end.  And where a run of header characters from an ``eyJ`` holds no JWT (no ``.`` and
    payload after it), no later ``eyJ`` of that run starts one: the search goes on after the run, not
    at the next ``eyJ`` (``eyJeyJeyJ…`` cost its length squared)."""
    pos = 0
    while (at := text.find("eyJ", pos)) != -1:
        m = regex.match(text, at)
        if m is None:
            pos = _JWT_RUN_RE.match(text, at + 3).end()
            continue
        pos = _JWT_TAIL_RE.match(text, m.end()).end()
        if pos - at >= MIN_SECRET_LEN:
            yield Finding(at, pos, "jwt")


def known_formats(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """What detect-secrets' plugins find in ``text``: their regexes (with a ``view``, those an RE2 set's
    one pass or their gate shows cannot match skipped), and quoted base64 strings of high entropy."""
    patterns, entropy = detectors()
    scanners = _scanners()
    size = len(text)
    may = _may_match(text) if view is not None else None
    for n in range(len(patterns)) if may is None else sorted(may):
        (kind, _, gate, shortest), (scan, how) = patterns[n], scanners[n]
        if view is not None and (size < shortest or (gate is not None and not gate.admits(view))):
            continue
        if how == "jwt":
            yield from _jwts(text, scan)
            continue
        for a, b in ((0, size),) if how is None else _lines_with(text, how):
            for m in scan.finditer(text, a, b):
                if m.end() - m.start() >= MIN_SECRET_LEN and not _names_a_thing(kind, m):
                    yield Finding(m.start(), m.end(), kind)
    if entropy is not None and ('"' in text or "'" in text):
        for m in entropy.regex.finditer(text):
            value = m.group(2)
            if (
                len(value) >= 20
                and entropy.calculate_shannon_entropy(value) > entropy.entropy_limit
                and not _alphabet(value) and not _words_and_ids(value)
            ):
                yield Finding(m.start(2), m.end(2), "high-entropy-string")


def _names_a_thing(kind: str, m: re.Match[str]) -> bool:
    """A plugin's match that is no key: a keyword plugin's value that is a name of words, or a docs'
    placeholder, three quarters ``x`` (``ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx``)."""
    if m.group().count("x") * 4 >= (m.end() - m.start()) * 3:
        return True
    return kind in _KEYWORD_KINDS and m.re.groups >= 1 and _SNAKE_NAME_RE.fullmatch(m.group(1) or "") is not None


def _alphabet(value: str) -> bool:
    """A character set written out (``ABC…Zabc…z0123456789+/``, a base32 alphabet, a sorted set of letters):
    few runs of ascending characters, one per 10 characters at most; a random string of 20 has about 10."""
    runs, prev = 1, ""
    for c in value:
        if c <= prev:
            runs += 1
        prev = c
    return runs <= len(value) // 10 + 1


def _words_and_ids(value: str) -> bool:
    """A path or a name of words (``projects/PROJECT_ID/locations/LOCATION``, ``HARDWARE\\System\\Central
    Processor``, ``TheBloke/recent-models-64f9a55bb3115b4f513ec026``): three parts or more, each a word, a
    number or an id of lowercase hex."""
    parts = [p for p in _PART_SEP_RE.split(value) if p]
    return len(parts) >= 3 and all(_WORD_PART_RE.fullmatch(p) for p in parts)
