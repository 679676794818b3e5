"""The LLM summariser: the model compresses evicted rounds with prompts/summary.md.

One call per compaction event, built on the request as it stands
(:func:`summary_request_cached`): the head, block and history are resent
byte-identical, so the provider serves them from its prompt cache, and the
instruction comes last, naming the items that leave.  The engine's extractive
summariser still runs alongside to feed the decision store and is the
fallback when the call fails, so a failure never loses a round.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_tui.agent.prompts import load_prompt, render_prompt
from agent_tui.core.budget import BudgetPlan
from agent_tui.core.items import ContextItem

MAX_ITEM_CHARS = 4000

Complete = Callable[[list[dict[str, Any]]], Awaitable[str]]


def render_items(items: Sequence[ContextItem]) -> str:
    """Items as a transcript for the summarising request (long outputs cut to head and tail)."""
    parts = []
    for it in items:
        text = it.content
        if len(text) > MAX_ITEM_CHARS:
            half = MAX_ITEM_CHARS // 2
            text = text[:half] + f"\n[… {len(it.content) - MAX_ITEM_CHARS:,} chars cut …]\n" + text[-half:]
        label = it.role or str(it.category)
        if it.role == "tool":
            label = f"tool {it.name}"
        calls = ""
        if it.tool_calls:
            calls = " calls: " + ", ".join(
                f"{c.get('function', {}).get('name')}({c.get('function', {}).get('arguments', '')[:200]})"
                for c in it.tool_calls
            )
        parts.append(f"[{it.id}] {label}:{calls}\n{text}")
    return "\n\n".join(parts)


def summary_request(items: Sequence[ContextItem], previous: str, max_words: int) -> list[dict[str, Any]]:
    """Messages of one summarising call."""
    system = render_prompt("summary", max_words=max_words, merge_rule=load_prompt("summary_rule_whole").strip())
    body = f"Previous summary:\n{previous or '(none)'}\n\nNew conversation to fold in:\n{render_items(items)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]


#: The most a summarising call may write: a summary is asked for at most 400 words (about 550 tokens).
SUMMARY_MAX_TOKENS = 2048
#: Below this much room for its answer, a summarising call is not made (the extractive summary is used).
SUMMARY_MIN_TOKENS = 256


def summary_call_room(plan: BudgetPlan, sent: int, configured: int | None) -> int | None:
    """The output limit of a summarising call whose messages count ``sent`` tokens: ``SUMMARY_MAX_TOKENS`` (the
    configured limit when lower), less what the window cannot hold beside the request; None when not even
    ``SUMMARY_MIN_TOKENS`` fit.  The call resends the request as it stands plus the instruction, and in a small
    window a request may stand well past ``compact_at``: with the whole output reserve as its limit it went past
    the window, and a server that enforces its context (vLLM, llama.cpp) refused it."""
    want = min(SUMMARY_MAX_TOKENS, configured) if configured else SUMMARY_MAX_TOKENS
    free = plan.window - plan.margin - int(sent * (plan.calibration or 1.0))
    if free < SUMMARY_MIN_TOKENS:
        return None
    return min(want, free)


def summary_request_cached(request: Sequence[dict[str, Any]], leaving: Sequence[ContextItem], previous: str | None,
                           focus: str = "", max_words: int = 400) -> list[dict[str, Any]]:
    """The request as it stands plus the summary instruction as the last user message.

    ``previous`` None: the summary so far is in the request and stays as it is, so the model
    writes only what the items leaving add (the next segment).  A string: the model rewrites
    the whole summary, merging ``previous`` (the segments, consolidated)."""
    ids = ", ".join(it.id for it in leaving[:60]) + (" …" if len(leaving) > 60 else "")
    if previous is None:
        rule = load_prompt("summary_rule_segment").strip()
        ask = (f"{render_prompt('summary', max_words=max_words, merge_rule=rule)}\n\n"
               f"Summarise what the conversation above adds since the summary so far (items {ids} leave "
               "the window). Answer with the new summary lines only; call no tool.")
    else:
        rule = load_prompt("summary_rule_whole").strip()
        ask = (f"{render_prompt('summary', max_words=max_words, merge_rule=rule)}\n\n"
               f"Previous summary:\n{previous or '(none)'}\n\n"
               f"Summarise the conversation above (everything before this message: items {ids} leave the window). "
               "Answer with the summary only; call no tool.")
    if focus:
        ask += f"\n\nThe user asks to keep above all: {focus}"
    return [*(dict(m) for m in request), {"role": "user", "content": ask}]


#: The section names the summary prompt asks for (an answer with none of them and no list line is not one).
SECTION_NAMES = ("User instructions", "Agent answers", "Agent decisions", "Open todos", "Errors seen", "Command and test results",
                 "Files changed", "Commands that changed files")


#: How a reply that acknowledges instead of summarising opens ("Sure - the session went fine").
_CHATTY = re.compile(r"(sure|ok|okay|certainly|of course|noted|got it|understood|i understand|thanks|thank you"
                     r"|no problem|will do|alright)\b", re.IGNORECASE)


def unusable_summary(text: str) -> str:
    """Why a summarising call's answer cannot stand in for the rounds it replaces ("" when it can): it
    repeats the instruction back, or it acknowledges instead of summarising (opens like "Sure", "OK",
    "Noted" and has none of the summary's sections or list lines).  The extractive summary, which keeps
    the user's words by construction, is used instead.  A terse summary in prose is kept."""
    if load_prompt("summary").splitlines()[0][:60] in text:
        return "it repeats the summary instruction"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    structured = any(line.startswith(("- ", "* ", "• ")) or any(line.startswith(name) for name in SECTION_NAMES)
                     for line in lines)
    if not structured and lines and _CHATTY.match(lines[0]):
        return "it acknowledges the request instead of summarising"
    return ""
