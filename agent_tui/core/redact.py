"""Secrets never go into the store, the logs, ``--json`` or the model's window.

One Redactor is applied at every boundary where text leaves the engine: items as
they enter it (messages, tool outputs, tool-call arguments), the request sent to the
model (the active-files block included), every store write (items, provenance, blob
metadata, the logged request), the ``--json`` event stream and log records.  It masks

- the values of this process's secret-named environment variables and the configured
  API key, as ``[REDACTED:env:NAME]``;
- secrets found in the text itself (``core.secrets``: known key formats, secret-named
  assignments as in ``.env`` files or YAML, URL passwords and secret query parameters, private keys,
  ``.netrc`` and ``.pgpass`` passwords, password hashes (htpasswd, shadow), AWS secret keys beside their
  ids, ``Authorization`` headers, values a CLI's ``config set`` stores), as ``[REDACTED:kind]``.

The replacement names what was there, so the model can still reason ("the key in
.env is set") and the same secret always reads the same.  Provider reasoning data
(``thinking_blocks`` with their signatures, ``reasoning_content``) is never altered:
providers verify the signatures, and the model never saw a secret to think about.
Results are cached by text, so the unchanged prefix of a request costs a dict lookup.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from agent_tui.core.secret_names import secret_env_name
from agent_tui.core.secrets import MIN_SECRET_LEN, find_secrets, url_credentials

MIN_LEN = MIN_SECRET_LEN
#: Message fields never rewritten: provider reasoning data whose signatures are verified.
UNTOUCHED_FIELDS = frozenset(
    {"thinking_blocks", "reasoning_content", "signature", "provider_specific_fields"}
)
#: A request's call ids, never rewritten there: the provider made them (they hold nothing of the user's), a
#: changed id would unpair a call from its result, and scanning them cost a scan per call per request.
REQUEST_IDS = frozenset({"id", "tool_call_id"})
#: Texts whose redaction is remembered (by the text itself).
CACHE_SIZE = 4096


def secrets_from_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """{value: NAME} of environment variables whose names look secret (``secret_names.secret_env_name``),
    and of the password in a URL any variable holds (``DATABASE_URL=postgres://u:PW@h/db``: PW, so a
    command printing it alone shows it masked); long enough to be real."""
    env = os.environ if env is None else env
    found: dict[str, str] = {}
    for k, v in env.items():
        if "://" in v:
            for pw in url_credentials(v):
                if len(pw) >= MIN_LEN:
                    found.setdefault(pw, k)
    found.update(
        {v: k for k, v in env.items() if secret_env_name(k) and len(v) >= MIN_LEN and " " not in v}
    )
    return found


def mask(kind: str) -> str:
    """The replacement text for a secret of ``kind``."""
    return f"[REDACTED:{kind}]"


class Redactor:
    """Masks known secret values and detected secrets; callable on a string."""

    def __init__(
        self, secrets: Iterable[str] | Mapping[str, str] = (), *, detect: bool = True
    ) -> None:
        named = dict(secrets) if isinstance(secrets, Mapping) else {s: "" for s in secrets}
        named = {v: k for v, k in named.items() if v and len(v) >= MIN_LEN}
        self.names: dict[str, str] = named
        self.values: list[str] = sorted(named, key=len, reverse=True)
        self.detect = detect
        self._pattern = (
            re.compile("|".join(re.escape(v) for v in self.values)) if self.values else None
        )
        self._cache: dict[str, str] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls, extra: Iterable[str | None] = ()) -> Redactor:
        named: dict[str, str] = {e: "api-key" for e in extra if e}
        named.update(secrets_from_env())
        return cls(named)

    def with_secret(self, value: str, name: str = "api-key") -> Redactor:
        """A Redactor that also masks ``value``."""
        return Redactor({**self.names, value: self.names.get(value, name)}, detect=self.detect)

    def _known(self, match: re.Match[str]) -> str:
        name = self.names.get(match.group(0), "")
        return mask(f"env:{name}" if name else "secret")

    def known_spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, mask) of each known secret value in ``text``, as ``__call__`` masks them."""
        if self._pattern is None:
            return []
        return [(m.start(), m.end(), self._known(m)) for m in self._pattern.finditer(text)]

    def _redact(self, text: str) -> str:
        if self._pattern is not None:
            text = self._pattern.sub(self._known, text)
        if not self.detect:
            return text
        found = find_secrets(text)
        if not found:
            return text
        out: list[str] = []
        pos = 0
        for f in found:
            out.append(text[pos : f.start])
            out.append(mask(f.kind))
            pos = f.end
        out.append(text[pos:])
        return "".join(out)

    def __call__(self, text: str) -> str:
        if not text or len(text) < MIN_LEN:
            return text
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        done = self._redact(text)
        with self._lock:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            self._cache[text] = done
            self._cache[done] = done  # redacting is idempotent: the output is known clean
        return done

    def value(self, v: Any, keep: frozenset[str] = UNTOUCHED_FIELDS) -> Any:
        """``v`` (JSON-like: str, list, dict) with every string redacted; the fields named in ``keep``
        (reasoning data) kept as they are."""
        if isinstance(v, str):
            return self(v)
        if isinstance(v, list):
            return [self.value(x, keep) for x in v]
        if isinstance(v, tuple):
            return tuple(self.value(x, keep) for x in v)
        if isinstance(v, dict):
            return {k: (x if k in keep else self.value(x, keep)) for k, x in v.items()}
        return v

    def messages(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A request's messages with content and tool-call arguments redacted (same objects
        when nothing changed, so a cached request prefix stays byte-identical)."""
        out = []
        keep = UNTOUCHED_FIELDS | REQUEST_IDS
        for m in messages:
            if self._clean(m, keep):  # the common case: nothing to mask, no copy made
                out.append(m)
                continue
            red = self.value(m, keep)
            out.append(m if red == m else red)
        return out

    def _clean(self, v: Any, keep: frozenset[str]) -> bool:
        """True when ``value(v) == v`` (every string in it redacts to itself).  A request has
        hundreds of messages, nearly all seen before: a message's strings are looked up in the
        cache right here, without a call per field."""
        if isinstance(v, str):
            return not v or len(v) < MIN_LEN or self(v) == v
        if isinstance(v, dict):
            cache = self._cache
            for k, x in v.items():
                if k in keep:
                    continue
                if type(x) is str:
                    if len(x) >= MIN_LEN:
                        done = cache.get(x)
                        if (self(x) if done is None else done) != x:
                            return False
                elif not self._clean(x, keep):
                    return False
            return True
        if isinstance(v, (list, tuple)):
            return all(self._clean(x, keep) for x in v)
        return True


_default: Redactor | None = None
_extra: dict[str, str] = {}
_default_lock = threading.Lock()


def default_redactor() -> Redactor:
    """The process-wide Redactor (environment secrets, registered keys, detectors)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Redactor({**secrets_from_env(), **_extra})
        return _default


def register_secret(value: str | None, name: str = "api-key") -> None:
    """Also mask ``value`` everywhere from now on (an API key given in config or a flag)."""
    global _default
    if not value or len(value) < MIN_LEN:
        return
    with _default_lock:
        _extra[value] = name
        _default = None


def redact_text(text: str) -> str:
    """``text`` through the process-wide Redactor."""
    return default_redactor()(text)


def redact_value(v: Any) -> Any:
    """A JSON-like value through the process-wide Redactor."""
    return default_redactor().value(v)


_log_installed = False


def install_log_redaction() -> None:
    """Redact every log record this process creates (any logger, any handler, log files
    included): the record factory masks the formatted message once, at creation."""
    global _log_installed
    if _log_installed:
        return
    _log_installed = True
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: left to logging's own error path
            return record
        record.msg, record.args = redact_text(message), None
        return record

    logging.setLogRecordFactory(factory)
