"""When a turn must stop: the step limit and the cost limits, and what to tell the user.

Recorded SWE-bench sessions run 50–176 model calls in one turn, so the step limit is a
guard against loops (default 200), not a budget; money is limited in dollars instead,
per turn (``[budget] max_cost``) and per session (``[budget] max_session_cost``, summed in the
store over every run of the session, so resuming does not reset it), checked before every model call.  The message names the limit that stopped the turn and how to go on.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.core.config import Settings

DEFAULT_MAX_STEPS = Settings().max_steps
"""Model calls allowed in one turn (long real tasks run 50–176)."""


@dataclass(frozen=True)
class Limits:
    """The limits of one agent (from settings and flags)."""

    max_steps: int = DEFAULT_MAX_STEPS
    """Model calls per turn."""
    max_cost: float | None = None
    """Dollars one turn may spend (None: no limit)."""
    max_session_cost: float | None = None
    """Dollars the whole session may spend, over every run that resumed it (None: no limit)."""


@dataclass(frozen=True)
class Stop:
    """Why a turn stops before its next model call."""

    status: str
    """The TurnFinished status: ``step_limit`` or ``cost_limit``."""
    message: str
    """Which limit, what was spent, and how to go on."""


def check(limits: Limits, *, steps: int, turn_cost: float, session_cost: float) -> Stop | None:
    """The limit the next model call would break, if any (checked before the call)."""
    if steps >= limits.max_steps:
        return Stop("step_limit", f"stopped after {steps} model calls: the step limit (max_steps = "
                                  f"{limits.max_steps}). Say 'continue' to go on, or raise max_steps "
                                  "(--max-steps, or max_steps in config.toml).")
    if limits.max_cost is not None and turn_cost >= limits.max_cost:
        return Stop("cost_limit", f"stopped: this turn has cost ${turn_cost:.4f}, the per-turn limit is "
                                  f"max_cost = ${limits.max_cost:.4f}. Say 'continue' to go on with a fresh "
                                  "turn budget, or raise it (--max-cost, or max_cost under [budget] in config.toml).")
    if limits.max_session_cost is not None and session_cost >= limits.max_session_cost:
        return Stop("cost_limit", f"stopped: this session has cost ${session_cost:.4f} so far (every run of it, "
                                  f"resumed ones included), the session limit is max_session_cost = "
                                  f"${limits.max_session_cost:.4f}. Raise it (--max-session-cost, or max_session_cost "
                                  "under [budget] in config.toml) to go on, or start a new session.")
    return None


def limits_of(settings: Settings) -> Limits:
    """The limits the settings ask for."""
    return Limits(max_steps=settings.max_steps, max_cost=settings.budget.max_cost,
                  max_session_cost=settings.budget.max_session_cost)
