"""User-role messages the engine writes into the history, told apart from the user's own.

The history is append-only, so what the engine has to tell the model between two
compaction events — a file's new text (a file note), a recalled memory, the budget
status on its own line, the continuation marker — goes in as a user-role message.
Whoever reads a request (the offline demo, the provider code that finds the current
tool loop for thinking blocks) must not take one of these for the user speaking: a
file note in the middle of a tool loop does not end the loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NOTE_PREFIXES: tuple[str, ...] = ("[Earlier", "[file note:", "- (for reference", "[context:")
"""How the engine's notes begin (file_window/filenotes, engine.add_recalled, tail, assembler)."""


NEXT_USER_MESSAGE = "[next message from the user]"
"""Put between two of the user's messages a request merges into one (providers want roles to alternate;
after a compaction folds the turns between a kept task and a new message, nothing else stands between
them): the model still reads them as separate messages, the latest last.  It follows the earlier text,
so the merged message starts with the bytes it had when it was sent alone."""


def is_engine_note(message: Mapping[str, Any]) -> bool:
    """True for a user-role message the engine wrote (not the user)."""
    content = message.get("content")
    return message.get("role") == "user" and isinstance(content, str) and content.startswith(NOTE_PREFIXES)


def said_by_user(message: Mapping[str, Any]) -> bool:
    """A user message the user wrote (or a tool-format error fed back as one)."""
    return message.get("role") == "user" and not is_engine_note(message)


def user_words(content: str) -> str:
    """The user's own words of a user message the request merged engine notes into (``core.pairing`` joins
    a user message and the notes around it with a blank line, the user's words first)."""
    cut = min((at for prefix in NOTE_PREFIXES if (at := content.find("\n\n" + prefix)) != -1), default=-1)
    return content if cut == -1 else content[:cut]


def user_messages(content: str) -> list[str]:
    """The user's own words of each of the user's messages merged into ``content``, oldest first."""
    return [user_words(part) for part in content.split("\n\n" + NEXT_USER_MESSAGE + "\n")]


def latest_user_words(content: str) -> str:
    """The words of the last of the user's messages merged into ``content`` (the one the user just sent)."""
    return user_messages(content)[-1]
