"""The states a server connection moves through, its restart policy, and its public status.

Kept apart from the connection so the UI, the CLI and tests can name states and read
statuses without importing the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ServerState(StrEnum):
    """``restarting``: it was up a moment ago; ``down``: it does not start (retried with backoff)."""

    STARTING = "starting"
    UP = "up"
    RESTARTING = "restarting"
    DOWN = "down"
    STOPPED = "stopped"
    DISABLED = "disabled"


@dataclass(frozen=True)
class Backoff:
    """Restart delays: ``first`` then ``factor`` times more, capped; give up after ``max_failures``."""

    first: float = 0.25
    factor: float = 2.0
    cap: float = 30.0
    max_failures: int = 6
    """Consecutive failed starts before a stdio server is left down (``restart()`` revives it);
    an HTTP server is retried at the capped delay for as long as it is configured."""

    def delay(self, failures: int) -> float:
        return min(self.cap, self.first * self.factor ** max(0, failures))


@dataclass(frozen=True)
class ServerStatus:
    """What the MCP panel and ``mcp list`` show for one server."""

    name: str
    transport: str
    state: str
    protocol: str | None
    tools: int
    error: str | None
    restarts: int
    log_path: str | None
