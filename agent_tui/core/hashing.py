"""One content hash for the whole program, so 'the file the model saw' compares exactly."""

from __future__ import annotations

import hashlib


def content_hash(text: str) -> str:
    """sha256 hex of ``text`` (surrogates from undecodable bytes survive the round trip)."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
