"""One reasoning-effort scale for every provider, fitted to the levels each model takes.

``reasoning_effort`` is set once per model, or globally, and a ``/model`` switch keeps it, so the
config takes the union of the providers' words: none, minimal, low, medium, high, xhigh, max.  Each
provider takes a subset, and litellm passes on, drops or refuses the rest in ways a user would not
guess:

- OpenAI: gpt-5 has no "none" nor "xhigh", gpt-5.1 no "minimal", no model "max", and the o-series
  (o1, o3, o4-mini) only low, medium and high.  litellm drops a level its model map marks unsupported
  (with ``drop_params``), and "xhigh" unless the map marks it supported, so the model silently ran at its
  default.  The nearest level the model takes is sent instead ("max" is OpenAI's "xhigh").
- Gemini: litellm refuses "xhigh" and "max" before sending ("Invalid reasoning_effort"), so they are
  "high".  Gemini 2.5 Pro cannot stop thinking (a budget of 0 is a 400: "This model only works in
  thinking mode"), so "none" is "minimal" there.  Gemini 3 Pro takes the levels low and high only
  ("Thinking level MEDIUM is not supported for this model"); 3.1 Pro and the Flash models take medium.
- Ollama: litellm reads "xhigh" and "max" as thinking *off* for models that think on or off; they are
  "high".  gpt-oss takes low, medium and high only.
- Claude and DeepSeek take the whole scale (litellm maps it to budgets, DeepSeek maps it itself).
"""

from __future__ import annotations

import re

from agent_tui.core.budget import model_info
from agent_tui.core.model_settings import REASONING_EFFORTS

#: The scale, least to most (``core.model_settings.REASONING_EFFORTS``).
LEVELS: tuple[str, ...] = REASONING_EFFORTS
#: Levels litellm takes for Gemini.
GEMINI_LEVELS = ("none", "minimal", "low", "medium", "high")
#: Levels OpenAI's o-series takes.
O_SERIES_LEVELS = ("low", "medium", "high")
#: Levels gpt-oss takes (Ollama's ``think``).
GPT_OSS_LEVELS = ("low", "medium", "high")


def fitted_effort(fam: str, model: str, effort: str) -> str:
    """The level to send for ``effort`` to ``model`` of provider family ``fam`` (itself when taken)."""
    effort = effort.lower()
    if effort not in LEVELS:
        return effort
    name = model.lower().rsplit("/", 1)[-1]
    if fam == "openai":
        if re.match(r"o\d", name):
            return nearest(effort, O_SERIES_LEVELS)
        info = model_info(model)
        taken = [lv for lv in LEVELS if lv != "max" and info.get(f"supports_{lv}_reasoning_effort") is not False
                 and (lv != "xhigh" or info.get("supports_xhigh_reasoning_effort") is True)]
        return nearest(effort, taken)
    if fam == "gemini":
        taken = [lv for lv in GEMINI_LEVELS if not (lv == "none" and name.startswith("gemini-2.5-pro"))]
        if re.match(r"gemini-3-pro($|-)", name):  # litellm sends "none" as the level low
            taken = ["none", "low", "high"]
        return nearest(effort, taken)
    if fam == "ollama":
        if name.startswith("gpt-oss"):
            return nearest(effort, GPT_OSS_LEVELS)
        return "high" if effort in ("xhigh", "max") else effort
    return effort


def nearest(effort: str, taken: list[str] | tuple[str, ...]) -> str:
    """The level of ``taken`` closest to ``effort`` on the scale; between two as close, the higher one (a
    user who asked for some reasoning gets some).  ``effort`` itself when ``taken`` is empty."""
    if effort in taken or not taken:
        return effort
    at = LEVELS.index(effort)
    return min(taken, key=lambda lv: (abs(LEVELS.index(lv) - at), -LEVELS.index(lv)))
