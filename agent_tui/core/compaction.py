"""Compaction: fold evicted history groups into the rolling summary, or keep them.

The chain of summarisers is tried in order (the LLM one first when the loop
provides it, the extractive one last).  A batch larger than a summariser's
input limit is summarised in chunks, each folded into the running summary, so
the summarising request always fits.  If every summariser fails, nothing is
marked evicted: the rounds stay verbatim and the failure is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tui.core.memory import EvictionPlan, chunk_items
from agent_tui.core.summary import Summariser, Summary


@dataclass
class CompactionResult:
    """What one compaction did."""

    evicted: list[str] = field(default_factory=list)
    """Item ids folded into the summary."""
    summary_id: str | None = None
    """The new summary item, or None if compaction failed."""
    summariser: str = ""
    """Which summariser produced it."""
    tokens_before: int = 0
    """History tokens before (summary included)."""
    tokens_after: int = 0
    """History tokens after (summary included)."""
    summary_tokens: int = 0
    """Tokens of the new summary."""
    input_tokens: int = 0
    """Tokens sent to summarising model calls (0 for the extractive summariser)."""
    reason: str = ""
    """Which cap tripped, or 'forced'."""
    error: str | None = None
    """Why it failed (then nothing was evicted)."""
    decisions: list[str] = field(default_factory=list)
    """Decisions extracted into the decision store."""
    worth_a_call: bool = True
    """Whether the batch was large enough for a summarising model call (``Compactor.worth_a_call``)."""

    @property
    def ok(self) -> bool:
        return self.error is None and self.summary_id is not None


def summarise_plan(
    plan: EvictionPlan, previous: Summary | None, chain: Sequence[Summariser]
) -> tuple[Summary | None, str, int, list[str]]:
    """Run the chain over the plan's items in chunks; returns (summary, name, input tokens, errors)."""
    errors: list[str] = []
    items = plan.summary_items
    for s in chain:
        try:
            running = previous
            sent = 0
            for chunk in chunk_items(items, s.max_input_tokens) or [[]]:  # (only notes leave: fold nothing)
                running = s.summarise(chunk, running)
                if s.max_input_tokens:
                    sent += sum(i.tokens for i in chunk)
            if running is not None:
                return running, s.name, sent, errors
        except Exception as exc:  # a summariser failing must never lose rounds
            errors.append(f"{s.name}: {exc}")
    return None, "", 0, errors
