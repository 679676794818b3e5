"""What the loop learns about the model's real window and output limit from the provider's own answers.

A ``window`` set above what the model takes (``window = 1_000_000`` on a Claude model without the 1M beta) is
found out two ways: a request refused for its size states the limit (``ContextOverflow.limit``), and Claude
stops a reply where prompt and reply fill the window (``model_context_window_exceeded``, which litellm reports
as ``length``).  Either way the session plans for the limit from then on and says which setting keeps it.  A
reply that stopped at its output limit is not taken for a full window: the limit compared is the one the request
was sent with (the model's own when the configured one is higher).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_tui.agent.llm_finish import Finish, judge
from agent_tui.core.budget import make_plan


class WindowLimits:
    """Mixed into the agent loop (which has ``engine``, ``llm`` and ``calibration``)."""

    engine: Any
    llm: Any
    calibration: Any

    def _judge(self, completion: Any) -> Finish:
        """How the reply ended (``llm_finish.judge``), with the counts that tell a full window from the output
        limit where the provider reports them exactly."""
        usage = completion.usage
        counted = (usage.prompt_tokens, usage.completion_tokens) if not usage.estimated and self._window_stops() \
            else None
        return judge(completion.finish_reason, completion.text, completion.tool_calls, self._output_cap(), counted)

    def _output_cap(self) -> int | None:
        """The output limit the reply had: the configured one, or the model's own when lower (the request sent
        that: ``llm_dialects.fit_dialect``), so a reply that stopped there is not taken for a full window."""
        from agent_tui.agent.llm_provider import output_ceiling

        configured = getattr(self.llm, "max_output_tokens", None)
        ceiling = output_ceiling(str(getattr(self.llm, "model", "") or "")) if configured else None
        return min(configured, ceiling) if configured and ceiling else configured

    def _window_stops(self) -> bool:
        """Whether this provider stops a reply where the context window is full, reporting it as ``length``
        with the exact tokens written (Claude: ``model_context_window_exceeded``); elsewhere a short ``length``
        reply may count its tokens otherwise, and the window is not read from it."""
        from agent_tui.agent.llm_provider import family

        return family(str(getattr(self.llm, "model", "") or "")) == "anthropic"

    def _window_stated(self, limit: int | None, what: str = "refused a request") -> str:
        """When the provider refused a request stating a context limit below the window planned for (or stopped
        a reply where the window was full), plan for that limit from now on in this session and say how to
        keep it; '' otherwise."""
        eng = self.engine
        if not limit or limit >= eng.plan.window:
            return ""
        planned = eng.plan.window
        eng.settings = replace(eng.settings, window=limit)
        eng.plan = make_plan(eng.settings, self.calibration.factor)
        model = getattr(self.llm, "model", "") or eng.settings.model or "this model"
        return (f"{model} {what}: its context limit is {limit:,} tokens, below the {planned:,} planned "
                f"for. This session now keeps within {limit:,}; to keep that, set `window = {limit}` under "
                f"[models.\"{model}\"] in the config (or remove a larger `window` setting).")
