"""Loading the prompt files (prompts/*.md), so prompts are edited as text, not code.

The files live in the repository's top-level ``prompts/`` folder; ``agent_tui/prompts``
is a symlink to it, so they are packaged as package data and found the same way in a
checkout and in an installed wheel.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=8)
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    return (Path(__file__).resolve().parents[1] / "prompts" / f"{name}.md").read_text(encoding="utf-8")


def render_prompt(name: str, **values: object) -> str:
    """The prompt with ``{placeholders}`` filled (unknown braces are left alone)."""
    text = load_prompt(name)
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text
