"""Text that can travel: no lone surrogates in anything sent to a model or stored.

Bytes decoded with ``surrogateescape`` (files, command output) keep lone
surrogates, which neither the JSON of an API request nor SQLite's UTF-8 can
carry.  Items are cleaned where they enter the engine, so what is counted,
sent, logged and stored is the same text; valid surrogate pairs are joined,
lone ones become U+FFFD.
"""

from __future__ import annotations


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (unchanged, and fast, when it is clean)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
