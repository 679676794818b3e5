"""The agent's answer: Markdown, streamed in with ``Markdown.get_stream()``.

Its own module because Markdown pulls in markdown-it: the conversation imports
it when the first answer arrives, not before the first frame.
"""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AssistantReply(Markdown):
    """One step's answer text."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="assistant-reply")

    def stream(self) -> MarkdownStream:
        return Markdown.get_stream(self)
