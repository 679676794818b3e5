"""The names MCP tools go by in a request (in core: the engine's tool items name their server by it too): ``server__tool``, safe for every provider's function names.

Tools from different servers share one flat namespace, so each is called ``server__tool``, with every
character outside ``[A-Za-z0-9_-]`` made ``_``, at most 64 characters (a hash keeps long ones unique), and
a leading ``_`` when it would start with a digit or a dash: Gemini's function names must start with a
letter or ``_``.  A user's config still names such a tool as they see the server's name (``1password__get``
in ``[approval] tools``, ``[mcp.tools]`` or a tool group's glob): :func:`spellings` gives both forms to
whatever matches config keys against qualified names.
"""

from __future__ import annotations

import hashlib
import re

SEP = "__"
_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]")


def safe_name(text: str) -> str:
    return _UNSAFE_RE.sub("_", text) or "_"


def qualify(server: str, tool: str) -> str:
    """``server__tool``, made safe, at most 64 characters, starting with a letter or ``_``."""
    name = f"{safe_name(server)}{SEP}{safe_name(tool)}"
    if not (name[0].isascii() and name[0].isalpha()) and name[0] != "_":
        name = "_" + name
    if len(name) > 64:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[:55]}_{digest}"
    return name


def spellings(qualified: str) -> tuple[str, ...]:
    """``qualified`` and, for a name given a leading ``_`` by :func:`qualify`, the name without it (as the
    user writes it in config)."""
    if len(qualified) > 1 and qualified[0] == "_" and not qualified[1].isalpha() and qualified[1] != "_":
        return qualified, qualified[1:]
    return (qualified,)


RANK = {"deny": 0, "ask": 1, "allow": 2}
"""Approval decisions from strictest to loosest."""


def strictest_key(tools: dict[str, object], qualified: str) -> str | None:
    """The key of ``tools`` naming ``qualified`` in any of its :func:`spellings` (or written with the ``_``
    :func:`qualify` adds) whose decision is the strictest: two spellings in two config files never let the
    looser one win."""
    names = {*spellings(qualified), *spellings("_" + qualified)}
    keys = [k for k in tools if k in names or any(s in names for s in spellings(k))]
    return min(keys, key=lambda k: RANK.get(str(tools[k]), len(RANK)), default=None)
