"""Secrets never go into the store, the logs or the model's window.

Every text that enters the engine (messages, tool outputs, whole outputs kept
behind handles) passes through one Redactor holding the secret values of this
process: the configured API key and any environment variable whose name says
it is a secret (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``...).
A command like ``env`` can then print them without them being kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.I)
MASK = "***"
MIN_LEN = 8


def secrets_from_env(env: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look secret (long enough to be real)."""
    env = os.environ if env is None else env
    return [v for k, v in env.items() if SECRET_NAME.search(k) and len(v) >= MIN_LEN and " " not in v]


class Redactor:
    """Replaces known secret values with ``***``."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        vals = sorted({s for s in secrets if s and len(s) >= MIN_LEN}, key=len, reverse=True)
        self.values: list[str] = vals
        self._pattern = re.compile("|".join(re.escape(v) for v in vals)) if vals else None

    @classmethod
    def from_env(cls, extra: Iterable[str | None] = ()) -> Redactor:
        return cls([*secrets_from_env(), *(e for e in extra if e)])

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(MASK, text)
