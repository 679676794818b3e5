"""Cheap necessary conditions that let the secret scanner skip regexes that cannot match.

``core.secret_plugins`` runs every detect-secrets plugin regex over every new text, and most of
those regexes start with optional groups, lookbehinds or character classes that the
regex engine must try at every position: scanning was a third of the context engine's
per-step time.  A :class:`Gate` states what every match of one regex needs, in a form
that costs a substring search; the regex runs only when the text has it:

- *words*: fixed words a match contains (``AKC``, ``k_live_``, one of ``key``/``pwd``/
  ``pass``/``token``…), looked up with ``in``;
- *needs*: the end of the regex from a literal on (telegram's ``:[0-9A-Za-z_-]{35}``),
  which the regex engine finds as fast as a word;
- an *anchor*: a word followed right there by what a match needs after it (the
  separator and a long value of the ``key = value`` plugins), tried only where the word is.

Exactness is the point (every secret found before is found now):

- a gate only states what appears, outside any optional part, in every match of its
  pattern (for an alternation: a group of words, one of which must be there); needs and
  anchors are parts of the pattern compiled with its flags; ``tests/core/
  test_secret_gates.py`` checks each gate against generated matches of its pattern, and
  the scanner with gates against the scanner without them;
- a case-insensitive pattern's words are looked up in ``text.lower()``.  Under
  ``re.IGNORECASE`` four non-ASCII letters also match ASCII ones (``İ ı ſ K`` match
  ``i i s k``), which lowercasing does not map (and ``İ`` lowercases to two characters,
  which would shift an anchor's positions); a text holding any of them skips no regex
  on words or anchors;
- a pattern without a gate (one a detect-secrets release added or changed) always runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Non-ASCII letters that ``re.IGNORECASE`` matches to ASCII ones (U+0130, U+0131, U+017F, U+212A).
FOLD_CHARS = "\u0130\u0131\u017f\u212a"
_FOLD_RE = re.compile(f"[{FOLD_CHARS}]")

#: The word groups shared by the keyword-and-value plugins (``...key = value``).
_KEY_WORDS = ("key", "pwd", "pass", "token")
_KEY_WORDS_PW = ("key", "pw", "pass", "token")
#: Pieces of the keyword-and-value plugins' regexes (an optional quote, the start, the separator).
_Q = "(?:\"|\\'|)"
_LB = r"(?:(?<=\W)|(?<=^))(?:\[|)" + _Q
_SEP = r"(?:\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)" + _Q
#: The same separator read one way only.  In ``_SEP`` a run of spaces splits between its three space
#: parts in as many ways as the cube of its length, all tried where no value follows: ``key`` and 2,000
#: spaces took 45 seconds.  What follows the separator is never a space (a quote, or the value's first
#: character, and the operators are none), so a match takes every space of the run: reading them
#: possessively finds the same matches.
_SEP_LINEAR = r"(?:\]|)(?: *+(?:=|:|:=|=>|::) *+| ++)" + _Q


@dataclass(frozen=True)
class Anchor:
    """A stricter condition than words: a word followed, right there, by what a match needs after
    it (``tail``).  Checked only where the (lowercased) text holds the word, so its cost is the
    word's occurrences, not the text's length."""

    words: tuple[str, ...]
    """Lowercase words; every match holds one of them immediately followed by ``tail``."""
    tail: re.Pattern[str]
    """What follows the word in every match (flags as the gated regexes')."""

    def found(self, text: TextView) -> bool:
        """False only when no word of the text is followed by ``tail``."""
        low = text.lowered
        if low is None:  # positions in the lowercased text would not be the text's: no skipping
            return True
        raw, match = text.text, self.tail.match
        for word in self.words:
            at = low.find(word)
            while at != -1:
                if match(raw, at + len(word)):
                    return True
                at = low.find(word, at + 1)
        return False


    def lines(self, text: TextView) -> list[tuple[int, int]] | None:
        """The (start, end) of every line holding a word followed by ``tail``, in order (end: the
        line's newline or the text's end); None when positions in the lowercased text are not the
        text's.  A pattern whose every match holds such a hit on the line of its other parts runs on
        these lines alone.  The words are looked up once per text for every anchor with the same words
        (``TextView.hits``): the secret-name rules share theirs."""
        hits = text.hits(self.words)
        if hits is None:
            return None
        raw, match = text.text, self.tail.match
        out: list[tuple[int, int]] = []
        line_start, line_end, listed = 0, -1, -1
        for at, end in sorted(hits):  # each line's bounds looked for once, back only to the last line's end
            if at <= listed or not match(raw, end):
                continue
            if at > line_end:
                floor = line_end + 1
                line_start = raw.rfind("\n", floor, at) + 1 or floor
                stop = raw.find("\n", at)
                line_end = len(raw) if stop == -1 else stop
            out.append((line_start, line_end))
            listed = line_end
        return out


@dataclass(frozen=True)
class Gate:
    """Words every match of one regex contains: from each group, at least one."""

    groups: tuple[tuple[str, ...], ...]
    """Each group: alternatives, one of which is in any match (lowercase when ``fold``)."""
    fold: bool = False
    """The regex ignores case: look the words up in the lowercased text."""
    anchor: Anchor | None = None
    """Checked after the words (shared by several regexes: found once per text)."""
    needs: re.Pattern[str] | None = None
    """A part of the regex every match ends with, starting with a literal (which the regex engine
    finds fast), compiled with the regex's flags: no match of it, no match of the regex."""

    def admits(self, text: TextView) -> bool:
        """False only when the regex cannot match ``text``."""
        if self.fold:
            hay = text.lowered
            if hay is None:  # a letter IGNORECASE folds to ASCII that lower() does not: no skipping
                return True
        else:
            hay = text.text
        for group in self.groups:  # (loops, not all/any over generators: this runs ~40 times a text)
            for w in group:
                if w in hay:
                    break
            else:
                return False
        if self.needs is not None and self.needs.search(text.text) is None:
            return False
        return self.anchor is None or text.anchored(self.anchor)


class TextView:
    """A text with its lowercased copy and anchor results, made once, on first use, for every gate."""

    __slots__ = ("text", "_lower", "_foldsafe", "_anchors", "_hits")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None
        self._foldsafe: bool | None = None
        self._anchors: dict[int, bool] = {}
        self._hits: dict[tuple[str, ...], list[tuple[int, int]]] = {}

    @property
    def lower(self) -> str:
        """``text.lower()`` (every ASCII substring of the text is in it, lowercased)."""
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def lowered(self) -> str | None:
        """``text.lower()`` when it holds every case-insensitive match's words at the same
        positions, i.e. when the text has no letter of ``FOLD_CHARS`` (U+0130 is the only
        character whose lowercase is longer than one); else None."""
        if self._foldsafe is None:
            self._foldsafe = _FOLD_RE.search(self.text) is None
        return self.lower if self._foldsafe else None

    def hits(self, words: tuple[str, ...]) -> list[tuple[int, int]] | None:
        """The (start, end) of every occurrence of each of ``words`` in ``lowered`` (None when it is
        None), remembered for the other anchors with the same words: the lookup is a scan of the
        text per word, the bulk of an anchor's cost."""
        low = self.lowered
        if low is None:
            return None
        found = self._hits.get(words)
        if found is None:
            found = []
            for word in words:
                size, at = len(word), low.find(word)
                while at != -1:
                    found.append((at, at + size))
                    at = low.find(word, at + 1)
            self._hits[words] = found
        return found

    def anchored(self, anchor: Anchor) -> bool:
        """``anchor.found(self)``, remembered for the other gates that share it."""
        key = id(anchor)
        hit = self._anchors.get(key)
        if hit is None:
            hit = self._anchors[key] = anchor.found(self)
        return hit


def _words(*groups: tuple[str, ...] | str, fold: bool = False, anchor: Anchor | None = None) -> Gate:
    return Gate(tuple((g,) if isinstance(g, str) else g for g in groups), fold, anchor)


def _needs(tail: str) -> Gate:
    """A gate for a case-sensitive regex that ends with ``tail`` (which starts with a literal)."""
    return Gate((), needs=re.compile(tail))


#: The keyword-and-value plugins (cloudant, ibm cloud iam, ibm cos hmac, softlayer): each match has one
#: of these keywords, then the separator they all share, then a value of at least 24 of these characters.
KEY_VALUE = Anchor(("key", "pwd", "pw", "password", "pass", "token"),
                   re.compile(_Q + _SEP_LINEAR + r"[a-zA-Z0-9_\-]{24}", re.I))


#: Gates by pattern source, for the detect-secrets 1.5 denylists used by core.secret_plugins.
GATES: dict[str, Gate | None] = {
    # None: the regex starts with a literal, which the regex engine finds faster than any word test
    # artifactory
    r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)': _words("AKC"),
    r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)': _words("AP"),
    # aws
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}": None,
    r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]":
        _words("aws", _KEY_WORDS_PW, fold=True),
    # azure storage
    r"AccountKey=[a-zA-Z0-9+\/=]{88}": None,
    # cloudant: (cloudant|cl|clou)(_|-|)(api|)(key|pwd|pw|password|pass|token), or a cloudant.com URL
    _LB + r"(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)" + _Q + _SEP + r"([0-9a-f]{64})" + _Q:
        _words("cl", _KEY_WORDS_PW, fold=True, anchor=KEY_VALUE),
    _LB + r"(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)" + _Q + _SEP + r"([a-z]{24})" + _Q:
        _words("cl", _KEY_WORDS_PW, fold=True, anchor=KEY_VALUE),
    r"(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com": _words(".cloudant.com", "://", fold=True),
    r"(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com": _words(".cloudant.com", "://", fold=True),
    # github, gitlab
    r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}": None,
    r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)": None,
    r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)": None,
    r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)": None,
    r"glimt-[A-Za-z0-9_\-]{25}(?!\w)": None,
    r"glptt-[A-Za-z0-9_\-]{40}(?!\w)": None,
    r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)": None,
    r"gloas-[A-Za-z0-9_\-]{64}(?!\w)": None,
    # ibm cloud iam: ...(key|pwd|password|pass|token)...; ibm cos hmac: ...secret[-_]?(access)?[-_]?key...
    _LB + r"(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)"
    r"(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)" + _Q + _SEP
    + r"([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-]))" + _Q:
        _words(_KEY_WORDS, fold=True, anchor=KEY_VALUE),
    _LB + r"(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret[-_]?(?:access)?[-_]?key)" + _Q + _SEP
    + r"([a-f0-9]{48}(?![a-f0-9]))" + _Q:
        _words("secret", "key", fold=True, anchor=KEY_VALUE),
    # jwt, mailchimp, npm, openai, pypi, sendgrid
    r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?": None,
    r"[0-9a-z]{32}-us[0-9]{1,2}": _needs(r"-us[0-9]{1,2}"),
    r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": None,  # (run on its lines alone: core.secret_plugins)
    r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": None,
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}": None,
    r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}": None,
    r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}": None,
    # slack (the webhook pattern is IGNORECASE|VERBOSE: its dots are escaped, so literal)
    r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+": _words("xox", fold=True),
    r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+":
        _words("https://hooks.slack.com/services/", fold=True),
    # softlayer: (softlayer|sl)(_|-|)(api|)(_|-|)(key|pwd|password|pass|token), or its API URL
    _LB + r"(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)" + _Q + _SEP + r"([a-z0-9]{64})" + _Q:
        _words(("sl", "softlayer"), _KEY_WORDS, fold=True, anchor=KEY_VALUE),
    r"(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})": _words("softlayer", "/soap/v3", fold=True),
    # square, stripe, twilio
    r"sq0csp-[0-9A-Za-z\\\-_]{43}": None,
    r"(?:r|s)k_live_[0-9a-zA-Z]{24}": _words("k_live_"),
    r"AC[a-z0-9]{32}": None,
    r"SK[a-z0-9]{32}": None,
    # discord, telegram: the part after the first literal
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": _needs(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),
    r"\d{8,10}:[0-9A-Za-z_-]{35}": _needs(r":[0-9A-Za-z_-]{35}"),
}
"""Every regex of the plugins used, reviewed: its gate, or None (always run)."""


def min_width(pattern: re.Pattern[str]) -> int:
    """The length of the shortest text ``pattern`` can match (0 when the parser cannot say).

    Each character of a pattern matches one character of text (Python folds no case into
    several characters), so a text shorter than this holds no match."""
    try:
        from re import _parser  # the stdlib's own parser (sre_parse before 3.11)

        return max(0, int(_parser.parse(pattern.pattern, pattern.flags).getwidth()[0]))
    except Exception:  # another Python's private parser: skip nothing
        return 0


def linear(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The regex the scanner runs for a plugin's ``pattern``: the same matches, in time linear in the
    text's length (the keyword-and-value plugins' separator read one way, ``_SEP_LINEAR``)."""
    if _SEP not in pattern.pattern:
        return pattern
    return re.compile(pattern.pattern.replace(_SEP, _SEP_LINEAR), pattern.flags)


def gate_for(pattern: re.Pattern[str]) -> Gate | None:
    """The gate of a plugin regex, or None (run it always)."""
    gate = GATES.get(pattern.pattern)
    if gate is None or gate.fold != bool(pattern.flags & re.IGNORECASE):
        return None
    if gate.needs is not None and gate.needs.flags != pattern.flags:
        return None
    return gate
