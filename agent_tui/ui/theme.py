"""Following the terminal's colours: an ANSI theme, light or dark as the terminal says.

The ANSI themes draw with the terminal's own palette and default background,
so agent-tui looks like the rest of the user's terminal.  ``COLORFGBG`` (set by
many terminals) tells a light background from a dark one; ``AGENT_TUI_THEME``
overrides with any Textual theme name.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def pick_theme(env: Mapping[str, str] | None = None) -> str:
    """The theme name to start with."""
    env = os.environ if env is None else env
    chosen = env.get("AGENT_TUI_THEME", "").strip()
    if chosen:
        return chosen
    fgbg = env.get("COLORFGBG", "")
    try:
        background = int(fgbg.split(";")[-1])
    except ValueError:
        background = 0
    light = background in (7, 15) or 9 <= background <= 14
    return "ansi-light" if light else "ansi-dark"
