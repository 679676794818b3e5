"""JSON and TOML from text agent-tui does not control, failing only the way bad input fails.

A repository's ``.mcp.json`` or config file, a command's output that looks like JSON, a model's
tool-call arguments: ``json.loads("[" * 100_000)`` raises ``RecursionError``, not ``ValueError``, and
``tomllib`` does the same, so a handler written for bad input let a deeply nested file crash start-up
or a turn.  These raise the parser's own error for it (``json.JSONDecodeError``,
``tomllib.TOMLDecodeError``: both ``ValueError``), so every handler for bad input holds.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import IO, Any

#: Bytes of a config file (``.mcp.json``, ``config.toml``) read at most: a shipped one of 1.5 GB (1.5 MB
#: packed) took 46 s and 6 GB before the first model call, and its trust question printed all of it.
MAX_CONFIG_BYTES = 1 << 20
#: What the error says when the nesting is deeper than Python's parser can follow.
TOO_DEEP = "nested too deeply to read"


def loads_json(text: str | bytes) -> Any:
    """``json.loads(text)``, with nesting too deep raised as ``json.JSONDecodeError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(TOO_DEEP, text if isinstance(text, str) else "", 0) from None


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, with nesting too deep raised as ``tomllib.TOMLDecodeError``."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None


def load_toml(fh: IO[bytes]) -> dict[str, Any]:
    """``tomllib.load(fh)``, with nesting too deep raised as ``tomllib.TOMLDecodeError``."""
    try:
        return tomllib.load(fh)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None


def read_config(path: Path) -> bytes:
    """A config file's bytes, or ``ValueError`` when it is over :data:`MAX_CONFIG_BYTES` (``OSError`` as
    reading raises it)."""
    with path.open("rb") as fh:
        data = fh.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"over {MAX_CONFIG_BYTES // (1 << 20)} MiB; a config file that large is not read")
    return data
