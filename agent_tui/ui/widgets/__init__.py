"""Widgets of the main screen; each has its own .tcss beside it, loaded by the app."""

from __future__ import annotations

from pathlib import Path

CSS_FILES: list[Path] = sorted(Path(__file__).parent.glob("*.tcss"))
"""Every widget stylesheet, for App.CSS_PATH."""
