"""What every rule of the secret scanner shares: a finding, the test that a value could be a secret,
and where a line rule must look.

Split out of ``core.secrets`` so the rules kept in their own modules (``core.secret_yaml``,
``core.secret_aws``) use the same checks as the ones there, without importing it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_tui.core.secret_gates import Anchor, TextView

#: Shortest value treated as a secret (shorter ones are flags, ports, placeholders).
MIN_SECRET_LEN = 8

PLACEHOLDER_RE = re.compile(
    r"^(?:\$\{?[A-Za-z_]|\{\{|<[^>]*>$|x{6,}$|\*{3,}|\[REDACTED|changeme$|example|your[_-]|None$|null$|true$|false$)",
    re.I,
)
#: A value made only of these is code, not a secret (``token = self.token``, ``f(x)``, the
#: ``API_KEY)`` of ``Client(api_key=API_KEY)``), also a subscripted type in an annotation (``token:
#: Optional[str] = None``, ``key: Union[slice, Tag]``: masked, the model saw mangled code it could not
#: quote in an edit).
CODE_VALUE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(.*|\[.*|\)+)?$")
#: Every name ``secret_names.secret_name`` accepts holds one of these words (lowercased): the anchors' words.
SECRET_NAME_WORDS = ("key", "token", "secret", "pass", "pw", "credential", "auth", "pat")


@dataclass(frozen=True)
class Finding:
    """One secret in a text: ``text[start:end]``, and what kind it is."""

    start: int
    end: int
    kind: str


def plausible(value: str) -> bool:
    """A value that could be a secret (not a placeholder, a variable or a call)."""
    if len(value) < MIN_SECRET_LEN or PLACEHOLDER_RE.search(value):
        return False
    if CODE_VALUE_RE.match(value) and not any(c.isdigit() for c in value):
        return False
    return True


def named_value(value: str) -> bool:
    """A value given to a secret name that could be the secret: ``plausible``, and not a number or a dotted
    version (``PASSWORD_MIN_LENGTH=12345678``, ``key_version: 1.2.3.4``)."""
    return plausible(value) and not value.replace(".", "").isdigit()


def name_kind(name: str) -> str:
    """The kind a secret-named value is masked as: an upper-case name itself (``DB_PASSWORD``, as an
    environment variable reads), else ``secret``."""
    return name.upper() if name.isupper() else "secret"


def lines_to_scan(anchor: Anchor, text: str, view: TextView | None) -> list[tuple[int, int]]:
    """Where a rule whose every finding is on a line holding a hit of ``anchor`` must look: those lines
    (with a view), or the whole text (without one, or when the view cannot place the hits)."""
    if view is None:
        return [(0, len(text))]
    spans = anchor.lines(view)
    return [(0, len(text))] if spans is None else spans


class RunEnds:
    """Where a run of value characters (``chars``, a possessive ``…*+`` of one-character tokens) ends.

    A rule that finds a value by a bounded regex and then follows it to its real end would rescan a
    long run once per finding that starts inside it (``token=(token=(…``): quadratic.  A scan from any
    position inside the last run ends where that run ended, so it is remembered and reused."""

    __slots__ = ("_chars", "_from", "_to")

    def __init__(self, chars: re.Pattern[str]) -> None:
        self._chars = chars
        self._from = self._to = -1

    def end(self, text: str, pos: int, stop: int) -> int:
        """The end of the run of value characters starting at ``pos`` (not past ``stop``)."""
        if self._from <= pos <= self._to:
            return self._to
        m = self._chars.match(text, pos, stop)
        self._from, self._to = pos, (pos if m is None else m.end())
        return self._to
