"""Self-calibrating token counts: the provider's ``prompt_tokens`` against the engine's count.

The engine counts with tiktoken (and a family factor for Claude, Gemini...), which
is off by several percent on code for non-OpenAI tokenizers.  After each
response, the provider's reported ``prompt_tokens`` is compared with the engine's
count of that exact request; the ratio is kept per model (a running mean over
the first samples, then a moving average) and persisted in the store, and the
budget plan divides the window by it — so the budget converges to the
provider's tokenizer within a few steps and stays there across sessions.  The
safety margin covers what remains.
"""

from __future__ import annotations

from typing import Any

#: Ratios outside this range are not tokenizer error (a proxy adding a prompt, a bad report): ignored.
PLAUSIBLE = (0.5, 2.0)
#: Weight of a new sample once the first few have been averaged.
SMOOTHING = 0.3
#: A factor change smaller than this does not rebuild the plan.
MIN_CHANGE = 0.005


class Calibration:
    """The correction for one model: ``factor`` = provider tokens per engine token."""

    def __init__(self, model: str, store: Any | None = None) -> None:
        self.model = model
        self.store = store
        self.factor = 1.0
        self.samples = 0
        saved = store.calibration(model) if store is not None and hasattr(store, "calibration") else None
        if saved:
            self.factor, self.samples = saved

    def observe(self, engine_tokens: int, provider_tokens: int) -> bool:
        """Learn from one request; True when the factor moved enough to rebuild the plan."""
        if engine_tokens <= 0 or provider_tokens <= 0:
            return False
        ratio = provider_tokens / engine_tokens
        if not PLAUSIBLE[0] <= ratio <= PLAUSIBLE[1]:
            return False
        old = self.factor
        weight = max(SMOOTHING, 1.0 / (self.samples + 1))
        self.factor = old + weight * (ratio - old)
        self.samples += 1
        if self.store is not None and hasattr(self.store, "save_calibration"):
            try:
                self.store.save_calibration(self.model, self.factor, self.samples)
            except Exception:  # a busy or read-only store must not stop the turn
                pass
        return abs(self.factor - old) >= MIN_CHANGE * old

    def estimate(self, engine_tokens: int) -> int:
        """What the provider will report for a request the engine counts as ``engine_tokens``."""
        return int(round(engine_tokens * self.factor))
