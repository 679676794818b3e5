"""Cheap necessary conditions that let the secret scanner skip regexes that cannot match.

``core.secrets`` runs every detect-secrets plugin regex over every new text, and most of
those regexes start with optional groups and lookbehinds that the regex engine must try
at every position: scanning was a third of the context engine's per-step time.  Almost
every one of them needs a fixed word somewhere in any match (``AKC``, ``k_live_``, one
of ``key``/``pwd``/``pass``/``token``…).  A :class:`Gate` lists those words; the regex
runs only when the text has them, so a text without them costs a few substring tests.

Exactness is the point (every secret found before is found now):

- a gate only lists literals that appear, outside any optional part or alternation,
  in every match of its pattern (for an alternation: a group of words, one of which
  must be there); ``tests/core/test_secret_gates.py`` checks each gate against
  generated matches of its pattern and the scanner with gates against the scanner
  without them;
- a case-insensitive pattern's words are looked up in ``text.lower()``.  Under
  ``re.IGNORECASE`` four non-ASCII letters also match ASCII ones (``İ ı ſ K`` match
  ``i i s k``), which lowercasing does not map; a text holding any of them skips no
  regex;
- a pattern without a gate (a detect-secrets release that changed its regexes) always
  runs.
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


@dataclass(frozen=True)
class Gate:
    """Words every match of one regex contains: from each group, at least one."""

    groups: tuple[tuple[str, ...], ...]
    """Each group: alternatives, one of which is in any match (lowercase when ``fold``)."""
    fold: bool = False
    """The regex ignores case: look the words up in the lowercased text."""

    def admits(self, text: TextView) -> bool:
        """False only when the regex cannot match ``text``."""
        if self.fold:
            hay = text.lowered
            if hay is None:  # a letter IGNORECASE folds to ASCII that lower() does not: no skipping
                return True
        else:
            hay = text.text
        return all(any(w in hay for w in group) for group in self.groups)


class TextView:
    """A text with its lowercased copy, made once, on first use, for every gate."""

    __slots__ = ("text", "_lower", "_foldsafe")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None
        self._foldsafe: bool | None = None

    @property
    def lower(self) -> str:
        """``text.lower()`` (every ASCII substring of the text is in it, lowercased)."""
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def lowered(self) -> str | None:
        """``text.lower()`` when it holds every case-insensitive match's words, i.e. when the
        text has no letter of ``FOLD_CHARS``; else None."""
        if self._foldsafe is None:
            self._foldsafe = _FOLD_RE.search(self.text) is None
        return self.lower if self._foldsafe else None


def _words(*groups: tuple[str, ...] | str, fold: bool = False) -> Gate:
    return Gate(tuple((g,) if isinstance(g, str) else g for g in groups), fold)


#: Gates by pattern source, for the detect-secrets 1.5 denylists used by core.secrets.
GATES: dict[str, Gate] = {
    # artifactory
    r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)': _words("AKC"),
    r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)': _words("AP"),
    # aws
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}": _words(("A3T", "ABIA", "ACCA", "AKIA", "ASIA")),
    r"aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]":
        _words("aws", _KEY_WORDS_PW, fold=True),
    # azure storage
    r"AccountKey=[a-zA-Z0-9+\/=]{88}": _words("AccountKey="),
    # cloudant: (cloudant|cl|clou)(_|-|)(api|)(key|pwd|pw|password|pass|token), or a cloudant.com URL
    _LB + r"(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)" + _Q + _SEP + r"([0-9a-f]{64})" + _Q:
        _words("cl", _KEY_WORDS_PW, fold=True),
    _LB + r"(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key|pwd|pw|password|pass|token)" + _Q + _SEP + r"([a-z]{24})" + _Q:
        _words("cl", _KEY_WORDS_PW, fold=True),
    r"(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com": _words(".cloudant.com", "://", fold=True),
    r"(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com": _words(".cloudant.com", "://", fold=True),
    # github, gitlab
    r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}": _words(("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}(?!\w)":
        _words(("glpat-", "gldt-", "glft-", "glsoat-", "glrt-")),
    r"GR1348941[A-Za-z0-9_\-]{20,50}(?!\w)": _words("GR1348941"),
    r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}(?!\w)": _words("glcbt-"),
    r"glimt-[A-Za-z0-9_\-]{25}(?!\w)": _words("glimt-"),
    r"glptt-[A-Za-z0-9_\-]{40}(?!\w)": _words("glptt-"),
    r"glagent-[A-Za-z0-9_\-]{50,1024}(?!\w)": _words("glagent-"),
    r"gloas-[A-Za-z0-9_\-]{64}(?!\w)": _words("gloas-"),
    # ibm cloud iam: ...(key|pwd|password|pass|token)...; ibm cos hmac: ...secret[-_]?(access)?[-_]?key...
    _LB + r"(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)"
    r"(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)" + _Q + _SEP
    + r"([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-]))" + _Q:
        _words(_KEY_WORDS, fold=True),
    _LB + r"(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|)(?:secret[-_]?(?:access)?[-_]?key)" + _Q + _SEP
    + r"([a-f0-9]{48}(?![a-f0-9]))" + _Q:
        _words("secret", "key", fold=True),
    # jwt, mailchimp, npm, openai, pypi, sendgrid
    r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?": _words("eyJ"),
    r"[0-9a-z]{32}-us[0-9]{1,2}": _words("-us"),
    r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": _words("/:_authToken="),
    r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": _words("sk-", "T3BlbkFJ"),
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}": _words("pypi-AgEIcHlwaS5vcmc"),
    r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}": _words("pypi-AgENdGVzdC5weXBpLm9yZw"),
    r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}": _words("SG."),
    # slack (the webhook pattern is IGNORECASE|VERBOSE: its dots are escaped, so literal)
    r"xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+": _words("xox", fold=True),
    r"https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+":
        _words("https://hooks.slack.com/services/", fold=True),
    # softlayer: (softlayer|sl)(_|-|)(api|)(_|-|)(key|pwd|password|pass|token), or its API URL
    _LB + r"(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?:key|pwd|password|pass|token)" + _Q + _SEP + r"([a-z0-9]{64})" + _Q:
        _words(("sl", "softlayer"), _KEY_WORDS, fold=True),
    r"(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})": _words("softlayer", "/soap/v3", fold=True),
    # square, stripe, twilio
    r"sq0csp-[0-9A-Za-z\\\-_]{43}": _words("sq0csp-"),
    r"(?:r|s)k_live_[0-9a-zA-Z]{24}": _words("k_live_"),
    r"AC[a-z0-9]{32}": _words("AC"),
    r"SK[a-z0-9]{32}": _words("SK"),
}
"""Not gated (their cost is low, or no word is cheaper than the regex): discord, telegram."""


def gate_for(pattern: re.Pattern[str]) -> Gate | None:
    """The gate of a plugin regex, or None (run it always)."""
    gate = GATES.get(pattern.pattern)
    if gate is None or gate.fold != bool(pattern.flags & re.IGNORECASE):
        return None
    return gate
