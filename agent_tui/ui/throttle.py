"""A latest-value throttle: at most one delivery per interval, never losing the last value.

Streaming produces many small updates (text deltas, output-token counts);
redrawing the gauges for each would starve the input.  The throttle delivers
the first value at once, coalesces the rest, and delivers the latest one when
the interval has passed — so the final state is always shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

Schedule = Callable[[float, Callable[[], None]], object]
"""Run a callback after a delay in seconds (e.g. ``widget.set_timer``)."""


class Throttle(Generic[T]):
    """Deliver values to ``deliver`` at most ``rate`` times per second."""

    def __init__(self, deliver: Callable[[T], None], schedule: Schedule, clock: Callable[[], float],
                 rate: float = 30.0) -> None:
        self.deliver = deliver
        self.schedule = schedule
        self.clock = clock
        self.interval = 1.0 / rate
        self.delivered = 0
        self._last = float("-inf")
        self._pending: tuple[T] | None = None
        self._scheduled = False

    def submit(self, value: T) -> None:
        """Offer a value; it is delivered now or at the next free slot (replacing older pending ones)."""
        now = self.clock()
        if not self._scheduled and now - self._last >= self.interval:
            self._send(value, now)
            return
        self._pending = (value,)
        if not self._scheduled:
            self._scheduled = True
            self.schedule(max(0.0, self._last + self.interval - now), self._fire)

    def flush(self) -> None:
        """Deliver a pending value now (e.g. at the end of a turn)."""
        if self._pending is not None:
            value = self._pending[0]
            self._pending = None
            self._send(value, self.clock())

    def _fire(self) -> None:
        self._scheduled = False
        self.flush()

    def _send(self, value: T, now: float) -> None:
        self._last = now
        self.delivered += 1
        self.deliver(value)
