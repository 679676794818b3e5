"""Which of a fixed list of words a text holds, in one pass.

Several secret rules first ask whether a text holds any of their words (the provider keys' 24 prefixes,
the positional rules' 20 words) and skip the text when it holds none.  Asked as one substring test per
word, that is a scan of the text per word, some 80 µs a text on the texts a session scans, for texts
that nearly always hold none.  An RE2 set of the words (google-re2) answers in one pass; a non-ASCII text,
or a missing google-re2, takes the substring tests (RE2 and ``str.lower`` fold differently outside ASCII).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class WordSet:
    """The words of ``words`` a text holds (``fold``: as ``text.lower()`` holds them; the words lowercase)."""

    def __init__(self, words: Sequence[str], *, fold: bool = False) -> None:
        self.words = tuple(words)
        self.fold = fold
        self._set: Any = None
        self._built = False

    def _compiled(self) -> Any:
        if not self._built:
            self._built = True
            try:
                import re2

                found = re2.Set.SearchSet(re2.Options())
                for w in self.words:
                    found.Add(("(?i)" if self.fold else "") + re2.escape(w))
                found.Compile()
                self._set = found
            except Exception:  # (google-re2 missing or broken: the substring tests below)
                self._set = None
        return self._set

    def present(self, text: str, lowered: str | None = None) -> set[str]:
        """The words ``text`` holds (``lowered``: ``text.lower()`` when the caller has it)."""
        found = self._compiled() if text.isascii() else None
        if found is not None:
            return {self.words[n] for n in found.Match(text) or ()}
        hay = (lowered if lowered is not None else text.lower()) if self.fold else text
        return {w for w in self.words if w in hay}
