"""Which lines of a session are *rules* that every request must still carry.

A rule is a directive line of the system prompt or of the task (the first
user message): a line containing must, never, always, do not, don't, should,
only, important, critical or required (case-insensitive, whole words), at
least ``MIN_RULE_CHARS`` long after trimming.  A task without any directive
line is itself the rule: its first non-empty line (what the user asked for)
must stay visible.  Pins a strategy adds are checked the same way.  A rule
counts as present when each of its sentences is (a summary may keep a
multi-sentence line as separate bullets).
"""

from __future__ import annotations

import re

DIRECTIVE = re.compile(
    r"\b(must|never|always|do not|don't|should|only|important|critical|required)\b", re.I
)
MIN_RULE_CHARS = 12
MAX_RULE_CHARS = 400


def directive_lines(text: str) -> list[str]:
    """The directive lines of ``text``, trimmed, in order, without duplicates."""
    out: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        s = line.strip()
        if len(s) < MIN_RULE_CHARS or len(s) > MAX_RULE_CHARS or not DIRECTIVE.search(s):
            continue
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def extract_rules(system_prompt: str, task: str) -> list[str]:
    """Rules of a session: directive lines of the system prompt and the task.

    If the task has no directive line, its first non-empty line is a rule.
    """
    rules = directive_lines(system_prompt)
    task_rules = directive_lines(task)
    if not task_rules:
        first = next((ln.strip() for ln in task.splitlines() if ln.strip()), "")
        task_rules = [first[:MAX_RULE_CHARS]] if first else []
    for r in task_rules:
        if r not in rules:
            rules.append(r)
    return rules


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def rule_fragments(rule: str) -> list[str]:
    """The sentences of a rule; it is present when each of them is (summaries split sentences)."""
    parts = [p.strip() for p in _SENTENCE_END.split(rule) if p.strip()]
    return parts or [rule]
