"""Message content given as a list of blocks (OpenAI chat parts, the Responses API, Anthropic), read as the text
a client sends: the text of its text blocks, an image as a short placeholder.

mini-swe-agent writes such lists for multimodal observations and when it marks messages for Anthropic's cache;
read with ``json.dumps`` they became one escaped line, so the task's rules, return codes and file reads went
unseen, and an inlined image counted as 220K characters of text.
"""

from __future__ import annotations

from typing import Any

TEXT_TYPES = frozenset({"text", "input_text", "output_text"})
"""Block types that carry text in a ``text`` field."""
IMAGE_TYPES = frozenset({"image", "image_url", "input_image"})
"""Block types that carry an image (sent as pixels, never as its base64 text)."""
IMAGE = "[image]"


def text_of(content: Any) -> str:
    """The text of ``content``: a string as it is, a list of blocks joined by line breaks, anything else empty."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind in TEXT_TYPES or (kind is None and isinstance(block.get("text"), str)):
                parts.append(str(block.get("text") or ""))
            elif kind in IMAGE_TYPES:
                parts.append(IMAGE)
    return "\n".join(parts)
