"""Token counting that works offline and never imports litellm.

tiktoken downloads its encodings on first use, which fails here; litellm ships
cl100k_base and o200k_base inside its package, so we point ``TIKTOKEN_CACHE_DIR``
at that folder (found with ``importlib.util.find_spec``, which does not execute
litellm) before tiktoken loads an encoding.

Encoding per model family: o200k_base for the newer OpenAI models (gpt-4o,
gpt-4.1, gpt-5, o1/o3/o4), cl100k_base for everything else.  Families tiktoken
does not cover (Claude, Gemini, Llama, Qwen, DeepSeek, Mistral...) are counted
with cl100k_base and multiplied by a documented correction factor
(``FAMILY_CORRECTION``) measured against their own tokenizers on English+code
text; the factor errs high so budgets stay safe.  If no encoding can be loaded
at all, a character heuristic (``len(text) / 3.6``) is used and ``exact`` is
False.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

O200K_PATTERN = re.compile(r"(^|/)(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o1|o3|o4|codex)", re.I)

#: Multiplier applied to cl100k counts for families tiktoken does not cover.
FAMILY_CORRECTION: dict[str, float] = {
    "claude": 1.15,
    "anthropic": 1.15,
    "gemini": 1.10,
    "llama": 1.10,
    "qwen": 1.05,
    "deepseek": 1.05,
    "mistral": 1.15,
    "codestral": 1.15,
}

#: Tokens a chat API adds around each message (role markers, separators).
MESSAGE_OVERHEAD = 4
#: Tokens added once per request for reply priming.
REQUEST_OVERHEAD = 3
#: Characters of text whose counts a counter remembers (oldest forgotten first).
MEMO_CHARS = 4_000_000
#: Texts whose counts a counter remembers at most.
MEMO_ENTRIES = 16_384
#: Texts at least this long are counted in chunks (shorter ones whole).
CHUNK_TEXT_MIN = 2_000
#: A chunk is at least this long (but for the last).
CHUNK_MIN = 256
#: A chunk ends where the next line's start hashes to 0 modulo this (content-defined: an edit
#: moves only the cuts near it).
CHUNK_SPREAD = 16
#: Where a text may be cut so that the parts count exactly as the whole.  Both encodings'
#: pre-tokenisers split text into pieces before merging; a piece holding a newline ends with
#: whitespace, so one never spans a newline followed by spaces/tabs and a printable ASCII
#: character, ``/`` aside (o200k's ``[\r\n/]*`` can take a ``/`` right after a newline).  The
#: whitespace up to such a newline is one piece whether the text goes on or ends there
#: (``\s*[\r\n]`` / ``\s++$``), and the pre-tokenisers look at nothing before a piece.
_CUT_NEXT = r"[ \t]*[!-.0-~]"
_CUT_RE = re.compile(r"\n(?=" + _CUT_NEXT + ")")
#: What a text may start with to be counted apart from a text before it that ends with ``\n``.
_CUT_NEXT_RE = re.compile(_CUT_NEXT)


class _Memo:
    """Counts remembered by text, oldest forgotten first, within a budget of characters."""

    def __init__(self) -> None:
        self.data: dict[str, int] = {}
        self.chars = 0
        self._lock = threading.Lock()

    def put(self, text: str, n: int) -> None:
        if len(text) > MEMO_CHARS // 4:
            return
        with self._lock:
            data = self.data
            while data and (self.chars + len(text) > MEMO_CHARS or len(data) >= MEMO_ENTRIES):
                oldest = next(iter(data))
                del data[oldest]
                self.chars -= len(oldest)
            if text not in data:
                data[text] = n
                self.chars += len(text)


def _chunks(text: str) -> list[str]:
    """``text`` cut where its parts count exactly as the whole (``_CUT_RE``), into chunks of
    ``CHUNK_MIN`` characters or more whose ends depend on the lines around them only."""
    out: list[str] = []
    start = 0
    for m in _CUT_RE.finditer(text, CHUNK_MIN - 1):
        cut = m.end()
        if cut - start >= CHUNK_MIN and hash(text[cut:cut + 24]) % CHUNK_SPREAD == 0:
            out.append(text[start:cut])
            start = cut
    out.append(text[start:])
    return out


def _litellm_tokenizer_dir() -> str | None:
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
    return str(path) if path.is_dir() else None


def _ensure_cache_dir() -> None:
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        found = _litellm_tokenizer_dir()
        if found:
            os.environ["TIKTOKEN_CACHE_DIR"] = found


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any | None:
    _ensure_cache_dir()
    try:
        import tiktoken

        return tiktoken.get_encoding(name)
    except Exception:  # no cached file and no network: fall back to the heuristic
        return None


def encoding_name_for(model: str | None) -> str:
    """The tiktoken encoding used for ``model`` (o200k for newer OpenAI models)."""
    if model and O200K_PATTERN.search(model):
        return "o200k_base"
    return "cl100k_base"


def correction_for(model: str | None) -> float:
    """The multiplier for families tiktoken does not cover (1.0 for OpenAI models)."""
    if not model:
        return 1.0
    low = model.lower()
    for family, factor in FAMILY_CORRECTION.items():
        if family in low:
            return factor
    return 1.0


def _as_text(text: str | bytes) -> str:
    if isinstance(text, bytes):
        return text.decode("utf-8", errors="replace")
    # Lone surrogates (from bad decoding upstream) would make tiktoken raise.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace").decode("utf-8")
    return text


class TokenCounter:
    """Counts tokens for one model; cheap to create, encodings are shared."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        self.encoding_name = encoding_name_for(model)
        self.factor = correction_for(model)
        self._enc = _encoding(self.encoding_name)
        self.exact = self._enc is not None and self.factor == 1.0
        #: How many texts this counter has tokenised (benchmarks check caching with it).
        self.calls = 0
        self._memo = _Memo()
        self._chunk_memo = _Memo()

    def count(self, text: str | bytes) -> int:
        """Tokens in ``text``; never raises on odd input (non-UTF-8 is replaced)."""
        if not text:
            return 0
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return self._corrected(self._raw(text))

    def count_joined(self, head: str, body: str) -> int:
        """``count(head + body)``, without tokenising ``body`` again when its count is remembered:
        where ``head`` ends with a newline the text may be cut at (``_CUT_RE``), the whole counts
        as its two parts (a block message: a fixed header line, then a file's text)."""
        if not body or self._enc is None or not head.endswith("\n") or not _CUT_NEXT_RE.match(body):
            return self.count(head + body)
        return self._corrected(self._raw(head) + self._raw(body))

    def count_within(self, text: str, limit: int) -> int | None:
        """``count(text)`` when it is at most ``limit``, else None — without tokenising the rest of a
        long text once the count is known to be over (a tool output far over its cap needs only
        the answer "it does not fit").  A long text's chunks count exactly as the whole
        (``_chunks``), so their running sum is a lower bound that only grows."""
        if not text:
            return 0 if limit >= 0 else None
        n = self._memo.data.get(text)
        if n is None and self._enc is not None and len(text) >= CHUNK_TEXT_MIN:
            s = _as_text(text)
            if s is text:  # (an odd text is counted whole, as count() does)
                self.calls += 1
                total = 0
                for chunk in _chunks(s):
                    total += self._chunk(chunk)
                    if self._corrected(total) > limit:
                        return None
                self._memo.put(text, total)
                n = total
        if n is None:
            n = self._raw(text)
        out = self._corrected(n)
        return out if out <= limit else None

    def _raw(self, text: str) -> int:
        """Tokens of ``text`` before the family correction (remembered)."""
        n = self._memo.data.get(text)
        if n is None:
            n = self._tokenise(text)
            self._memo.put(text, n)
        return n

    def _corrected(self, n: int) -> int:
        return int(n * self.factor + 0.999) if self.factor != 1.0 else n

    def _tokenise(self, text: str) -> int:
        self.calls += 1
        s = _as_text(text)
        if self._enc is None:
            return int(len(s) / 3.6) + 1
        if len(s) < CHUNK_TEXT_MIN:
            return len(self._enc.encode(s, disallowed_special=()))
        return sum(self._chunk(c) for c in _chunks(s))

    def _chunk(self, chunk: str) -> int:
        n = self._chunk_memo.data.get(chunk)
        if n is None:
            n = len(self._enc.encode(chunk, disallowed_special=()))  # type: ignore[union-attr]
            self._chunk_memo.put(chunk, n)
        return n

    def count_cached(self, text: str) -> int:
        """``count`` (every count is remembered now; kept for the callers that ask for it)."""
        return self.count(text)

    def count_message(self, content: str, extra: str = "") -> int:
        """Tokens of one chat message with its role overhead (``extra``: tool calls JSON)."""
        return self.count(content) + (self.count(extra) if extra else 0) + MESSAGE_OVERHEAD

    def count_messages(self, messages: Iterable[dict[str, Any]]) -> int:
        """Tokens of a whole request's messages, as a provider would bill them (approx.)."""
        import json

        total = REQUEST_OVERHEAD
        for m in messages:
            content = m.get("content") or ""
            if not isinstance(content, str):
                content = json.dumps(content, ensure_ascii=False)
            extra = json.dumps(m["tool_calls"], ensure_ascii=False) if m.get("tool_calls") else ""
            total += self.count_message(content, extra)
        return total


@lru_cache(maxsize=16)
def counter_for(model: str | None) -> TokenCounter:
    """A shared counter per model string."""
    return TokenCounter(model)


def count_tokens(text: str | bytes, model: str | None = None) -> int:
    """Convenience: tokens in ``text`` for ``model`` (cl100k when unknown)."""
    return counter_for(model).count(text)
