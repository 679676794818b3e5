"""What a reply's ``finish_reason`` means for the turn.

A reply cut by the output limit, stopped by a content filter, or empty must not
end the turn as if all were well: the loop says so (a status and a warning),
and a tool call whose arguments were cut mid-stream is answered with an error
result instead of being run or replayed with half its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: finish_reason values (across providers, as litellm maps them) that mean "hit the output limit".
LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})
#: finish_reason values that mean "stopped by a safety or content filter".
FILTER_REASONS = frozenset({"content_filter", "safety", "recitation", "blocklist", "prohibited_content", "spii",
                            "refusal"})

CUT_CALL_RESULT = (
    "This call was cut off by the output limit before its arguments were complete; nothing was run. "
    "Send it again in smaller pieces (for a big file: write a first part, then add the rest with edit_file)."
)


@dataclass(frozen=True)
class Finish:
    """How one reply ended, as the loop reports it."""

    status: str = "ok"
    """ok, truncated (output limit), filtered (content filter) or empty (no text, no calls)."""
    notice: str | None = None
    """One line for the user when the status is not ok."""
    cut_calls: frozenset[str] = field(default_factory=frozenset)
    """Ids of tool calls whose arguments the cut left incomplete (never run, never replayed)."""
    window_filled: int | None = None
    """The tokens of request and reply when the reply stopped below its output limit: the context window was
    full (Claude's ``model_context_window_exceeded``, which litellm reports as ``length``), so this is the
    model's real window."""


def judge(finish_reason: str | None, text: str, calls: list[Any], max_output: int | None = None,
          used: tuple[int, int] | None = None) -> Finish:
    """Classify a finished reply from its ``finish_reason``, text and assembled calls.  ``used``: the request's
    and the reply's tokens as the provider counted them (None when estimated)."""
    reason = (finish_reason or "").lower()
    limit = f" ({max_output:,} tokens)" if max_output else ""
    if reason in LENGTH_REASONS:
        cut = frozenset(c.id for c in calls if getattr(c, "arguments_error", None))
        what = "a tool call's arguments" if cut else ("the answer" if text.strip() else "before any text")
        if max_output and used and 0 < used[1] < max_output - max(64, max_output // 50):
            return Finish("truncated", f"The reply was cut after {used[1]:,} tokens, below the output limit{limit}: "
                                       f"the request and the reply filled the model's context window ({sum(used):,} "
                                       f"tokens). {what[0].upper()}{what[1:]} is incomplete.", cut, sum(used))
        return Finish("truncated", f"The reply was cut by the output limit{limit}: {what} is incomplete. "
                                   "Raise max_output_tokens for this model or ask for smaller steps.", cut)
    if reason in FILTER_REASONS:
        return Finish("filtered", f"The provider stopped the reply with a content filter ({reason}).")
    if not text.strip() and not calls:
        return Finish("empty", "The model returned an empty reply (no text, no tool calls); "
                               "say 'continue' to retry.")
    return Finish()
