"""Loading the prompt files (prompts/*.md), so prompts are edited as text, not code.

In a checkout the files are the repository's ``prompts/`` folder; installed,
they are packaged as ``agent_tui/prompts`` (see pyproject's package-dir).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path


@lru_cache(maxsize=8)
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>.md``."""
    checkout = Path(__file__).resolve().parents[2] / "prompts" / f"{name}.md"
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    return resources.files("agent_tui.prompts").joinpath(f"{name}.md").read_text(encoding="utf-8")


def render_prompt(name: str, **values: object) -> str:
    """The prompt with ``{placeholders}`` filled (unknown braces are left alone)."""
    text = load_prompt(name)
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text
