"""The model's reasoning that goes back to the provider, and what it costs in the window.

Anthropic wants the signed thinking blocks of the current tool loop back; DeepSeek's thinking mode wants
every tool turn's reasoning_content back in every later request, the turn's final answer included
(``agent.llm_provider`` shapes the request).  The loop keeps each reply's provider data on its item
(``provider_data`` in the provenance); this is what picks the data a request sends, counts it in the
budget (the compaction trigger and the window's hard limit see it), and decides which replies keep it.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import ContextItem


class ReasoningMixin:
    """Mixed into ``Agent``: the reasoning state sent back with each request."""

    engine: ContextEngine
    llm: Any

    def _with_reasoning(self, bd: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The breakdown plus the reasoning sent back with this request (its own category)."""
        if self.llm is None:
            return bd
        from agent_tui.agent.llm_provider import reasoning_text, reasoning_to_send

        text = reasoning_text(reasoning_to_send(self.llm, messages, self._reasoning_map()))
        if not text:
            return bd
        n = self.engine.counter.count(text)
        bd = {**bd, "categories": {**bd["categories"], "reasoning": n}, "total": bd["total"] + n}
        budget = bd.get("input_budget") or 0
        bd["used_pct"] = round(100.0 * bd["total"] / budget, 2) if budget else bd["used_pct"]
        return bd

    def _every_turn_reasoning(self) -> bool:
        """Whether every turn's kept reasoning goes back, not only this turn's (DeepSeek thinking, and Claude
        models with preserved thinking)."""
        from agent_tui.agent.llm_binding import preserved_thinking
        from agent_tui.agent.llm_provider import deepseek_thinking, family, family_of

        llm = self.llm
        model = str(getattr(llm, "model", "") or "")
        if llm is None:
            return False
        if family(model) == "anthropic":
            return preserved_thinking(model)  # (llm_binding: earlier turns' blocks go back while their prefix holds)
        return family_of(llm) == "deepseek" and deepseek_thinking(llm)

    def _bound_since(self) -> float:
        """For a model with preserved thinking, when the compaction block was last rebuilt: a reply made before has
        a changed prefix, so llm_binding leaves its blocks out, and counting them made the gauge and the
        compaction trigger see tokens that are not sent.  0 for other models."""
        from agent_tui.agent.llm_binding import preserved_thinking

        return self.engine.compactor.rebuilt_at if preserved_thinking(str(getattr(self.llm, "model", "") or "")) else 0.0

    def _reasoning_tokens(self, item: ContextItem) -> int:
        """Tokens of the reasoning the next request sends back with ``item`` (see ``_reasoning_map``):
        counted once per message, kept on it."""
        data = item.provenance.get("provider_data")
        if not data or ((not item.tool_calls or item.turn != self.engine.turn) and not self._every_turn_reasoning()) \
                or item.created_at < self._bound_since():
            return 0
        n = item.provenance.get("reasoning_tokens")
        if n is None:
            from agent_tui.agent.llm_provider import reasoning_text

            sent = {"thinking_blocks": data["thinking_blocks"]} if data.get("thinking_blocks") else {
                "reasoning_content": data.get("reasoning_content")}  # Claude's replies carry both: one goes back
            n = item.provenance["reasoning_tokens"] = self.engine.counter.count(reasoning_text({0: sent}))
        return int(n)

    def _reasoning_map(self) -> dict[str, dict[str, Any]]:
        """Kept provider reasoning state of this turn's assistant messages, by first tool-call id; on DeepSeek
        of every turn's: its thinking mode keeps a tool turn's reasoning_content in the context of all later
        turns, so a placeholder in its place changes the prompt the previous turn's steps sent (and cached).
        (Not when this DeepSeek model does not think: a session switched to deepseek-chat gets none.)"""
        from agent_tui.agent.llm_provider import answer_key

        every_turn = self._every_turn_reasoning()
        out: dict[str, dict[str, Any]] = {}
        eng = self.engine
        since = self._bound_since()
        for i in reversed(eng.order):
            it = eng.items[i]
            if it.turn != eng.turn and not every_turn:
                break
            data = it.provenance.get("provider_data") if it.role == "assistant" else None
            if not data or it.created_at < since:
                continue
            if it.tool_calls and it.tool_calls[0].get("id"):
                out[str(it.tool_calls[0]["id"])] = data
            elif not it.tool_calls and every_turn and it.content:  # a tool turn's final answer (``_reply_provenance``)
                out.setdefault(answer_key(it.content), data)
        return out

    def _closes_tool_turn(self, data: dict[str, Any]) -> bool:
        """Whether an answer with no tool call keeps its reasoning: on DeepSeek's thinking mode, when it ends a
        turn that called tools (DeepSeek wants all of such a turn's reasoning back in every later request; a
        turn with no tool call it ignores, so that one goes back as the placeholder)."""
        if not data.get("reasoning_content") or not self._every_turn_reasoning():
            return False
        eng = self.engine
        for i in reversed(eng.order):
            it = eng.items[i]
            if it.turn != eng.turn:
                return False
            if it.role == "assistant" and it.tool_calls:
                return True
        return False


def thinking_text(completion: Any) -> str:
    """The readable text of a reply's thinking blocks (when litellm gave no reasoning_content)."""
    return "\n\n".join(b.get("thinking", "") for b in getattr(completion, "thinking_blocks", []) or []
                       if b.get("thinking"))
