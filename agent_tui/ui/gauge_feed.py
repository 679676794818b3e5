"""Feeding the gauges without flooding them: the latest breakdown, the request totals not yet
drawn, and the streamed answer's size, delivered through a throttle (≤ 30 per second)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agent_tui.ui.messages import BudgetChanged
from agent_tui.ui.throttle import Throttle

RATE = 30.0
"""Most gauge redraws per second."""


class GaugeFeed:
    """Collects gauge updates and hands them to ``deliver`` as one BudgetChanged per slot."""

    def __init__(self, deliver: Callable[[BudgetChanged], None], set_timer: Callable[..., Any],
                 clock: Callable[[], float] = time.monotonic, rate: float = RATE) -> None:
        self.deliver = deliver
        self.breakdown: dict[str, Any] | None = None
        self.points: list[int] = []
        self.output_tokens = 0
        self.reset = False
        self.throttle: Throttle[None] = Throttle(self._send, lambda delay, cb: set_timer(delay, cb), clock, rate)

    def show(self, breakdown: dict[str, Any], point: int | None = None, reset: bool = False,
             earlier: tuple[int, ...] = ()) -> None:
        """A new latest breakdown (``point``: a model call's request total, for the sparkline; ``reset``: another
        session, whose ``earlier`` request totals the sparkline starts from)."""
        self.breakdown = breakdown
        if reset:
            self.points, self.reset = list(earlier), True
        if point is not None:
            self.points.append(point)
        self.throttle.submit(None)

    def output(self, tokens: int) -> None:
        """The size of the answer streamed so far in this step."""
        self.output_tokens = tokens
        if self.breakdown is not None:
            self.throttle.submit(None)

    def flush(self) -> None:
        self.throttle.flush()

    def _send(self, _: None) -> None:
        if self.breakdown is None:
            return
        message = BudgetChanged(self.breakdown, tuple(self.points), self.output_tokens, self.reset)
        self.points, self.reset = [], False
        self.deliver(message)
