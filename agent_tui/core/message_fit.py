"""Whether a user's message can be sent at all.

A message larger than what the window leaves after the head (system prompt, tool definitions, pinned
items) fits in no request.  Sent as it is, a provider refuses it (calls wasted, and a compaction that
changes nothing), or one that accepts it bills for it and the next compaction folds it into a short
summary: the text quietly leaves the context.  So it is refused before it is sent, with its size and
the room there is, and it stays with the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Tokens kept beside the message for the status line and message framing.
SLACK = 256


def room(engine: Any) -> tuple[int, int]:
    """(tokens a user message may have, tokens the head takes) for ``engine``'s next request."""
    head = engine.system.tokens + engine.head.tools_tokens
    head += sum(it.tokens + 1 for it in engine.head.pins(engine.history.blocks()))
    return max(0, engine.plan.input_budget - head - SLACK), head


def too_large(engine: Any, text: str, tools: Sequence[dict[str, Any]] | None = None) -> str:
    """Why ``text`` cannot be sent as a message ("" when it can).  ``tools``: the definitions the next
    request sends (counted now: before the first request the engine has not counted them yet)."""
    if tools is not None:
        engine.tools_tokens(tools)
    space, head = room(engine)
    if len(text) <= space:  # a token is at least one character: no need to count
        return ""
    tokens = engine.counter.count(text)
    if tokens <= space:
        return ""
    if space < SLACK:
        return (f"Not sent: the system prompt, tools and pinned items take {head:,} of the {engine.plan.input_budget:,}"
                f"-token input budget, which leaves no room for a message. Unpin items, turn tools off "
                f"(/tools off NAME), or use a model with a larger window.")
    return (f"Not sent: your message is about {tokens:,} tokens, and a request has room for {space:,} "
            f"(the input budget is {engine.plan.input_budget:,}; the system prompt, tools and pinned items "
            f"take {head:,}). Send a shorter message, or save the text to a file in the workspace and ask "
            f"the agent to read the parts it needs.")
