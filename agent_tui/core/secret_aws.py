"""An AWS secret access key next to its access key id.

detect-secrets masks the id (``AKIA…``), which is no secret, and not the secret key, which has no marker
of its own: 40 base64 characters, which alone, anywhere else, are too common a word to mask.  Beside an
id they are the key: IAM's CSV credentials export (id and key on one line), ``aws configure`` and
``aws iam create-access-key`` output, a config with the key on the line before or after its id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_tui.core.secret_gates import TextView
from agent_tui.core.secret_values import Finding

#: The prefixes of an AWS access key id: a user's (``AKIA``), temporary (``ASIA``), an STS bearer token's
#: (``ABIA``), a context-specific one (``ACCA``), the oldest (``A3T`` and one more): those detect-secrets
#: masks as ``aws-key``.
AWS_ID_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")
#: Any of the prefixes (one search of the text costs less than a substring test per prefix).
_AWS_ID_PREFIX_RE = re.compile("|".join(AWS_ID_PREFIXES))
#: An AWS access key id: one of the prefixes, then 16 capitals or digits.
_AWS_KEY_ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}(?![A-Za-z0-9])")
#: A word of exactly 40 base64 characters: an AWS secret access key's shape.
_AWS_SECRET_RE = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
#: A word of hex digits only (a commit id, a SHA-1): not an AWS secret key.
_HEX_RE = re.compile(r"[0-9a-fA-F]+")


def aws_secret_keys(text: str, view: TextView | None = None) -> Iterator[Finding]:
    """AWS secret access keys (``_AWS_SECRET_RE``: 40 base64 characters with capitals, small letters
    and a digit, ``/`` or ``+``; not hex) on the line of an AWS access key id, the line before it or the
    line after it."""
    if view is not None and _AWS_ID_PREFIX_RE.search(text) is None:
        return
    for a, b in _id_regions(text):
        for k in _AWS_SECRET_RE.finditer(text, a, b):
            key = k.group()
            if (any(c.isupper() for c in key) and any(c.islower() for c in key)
                    and any(c.isdigit() or c in "/+" for c in key) and not _HEX_RE.fullmatch(key)):
                yield Finding(k.start(), k.end(), "aws-secret-key")


def _id_regions(text: str) -> list[tuple[int, int]]:
    """The (start, end) of the lines around each key id (the line before it, its own, the line after),
    merged where they touch.  Linear: a line holding several ids is placed once (an id inside the last
    id's line is skipped), and each id line's neighbours are other lines than the next id line's."""
    regions: list[tuple[int, int]] = []
    size, line_end = len(text), -1
    for m in _AWS_KEY_ID_RE.finditer(text):
        if m.start() < line_end:  # on the last id's line: its region holds it
            continue
        start = text.rfind("\n", max(line_end, 0), m.start()) + 1
        before = 0 if start == 0 else text.rfind("\n", 0, start - 1) + 1
        line_end = text.find("\n", m.end())
        line_end = size if line_end == -1 else line_end
        after = size if line_end == size else text.find("\n", line_end + 1)
        after = size if after == -1 else after
        if regions and before <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(after, regions[-1][1]))
        else:
            regions.append((before, after))
    return regions
