"""Replaying one session through one strategy, measuring every request.

Each recorded model call is one request.  Before call *k* the strategy has
observed exactly the messages that existed when the recording agent made it
(the recorded replies and tool outputs, as they were: we measure inputs, not
model behaviour).  For each request the replay records its tokens (plus the
session's unrecorded prefix: tool definitions and the client's hidden
prompt, the same for every strategy), the tokens it shares as a message
prefix with the previous request, summarising cost, which rules are present,
whether each edit's replaced text is present (a rule is present when each of
its sentences is, in any message: summaries keep sentences as bullets), and the wall time the strategy
took to observe the step's new messages and build the request.  Every tool
result also yields a shaping record (raw vs sent size, error lines kept).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

from agent_tui.bench.measure import MessageCache, MessageKey, message_key, normalise
from agent_tui.bench.rules import extract_rules, rule_fragments
from agent_tui.bench.strategies import Strategy
from agent_tui.bench.trace import Compaction, Session

#: Lines that carry a failure signal; shaping must keep them.  ``file:line`` covers
#: ``path.py:12`` and Python's ``File "path.py", line 12``.
ERROR_LINE = re.compile(r'Traceback|Error|FAILED|assert|(?<![\w./-])[\w./-]{1,255}\.\w{1,16}:\d+|File "[^"]+", line \d+')
"""A line that signals a failure.  (The ``path.py:12`` form starts where a run of path characters starts and is
bounded: unbounded, it was quadratic on a long line, 38 s for one 80K-character base64 token.)"""


@dataclass
class StepRecord:
    """Measurements of one request."""

    tokens: int
    shared: int
    """Tokens the request shares as a message prefix with the previous one (0 for the first)."""
    summarising: int = 0
    summary_out: int = 0
    summarising_cached: int = 0
    """Of ``summarising``, tokens read from the prompt cache."""
    rules_present: int = 0
    rules_total: int = 0
    edits_checked: int = 0
    """Edits made in reply to this request whose replaced text was ever visible."""
    edits_present: int = 0
    latency: float = 0.0
    recorded: int | None = None


@dataclass
class ShapeRecord:
    """One tool result: raw vs sent tokens and error lines kept."""

    raw_tokens: int
    sent_tokens: int
    error_lines: int
    error_lines_kept: int
    """Error lines present in the output's own message as sent."""
    error_lines_in_request: int = 0
    """Error lines present in the messages the request built right after the output arrived adds to
    the previous one (a read that shaping cut can show its text in a file note rather than in the
    tool message; a line that only an older message or the task quotes does not count)."""


@dataclass
class SessionRun:
    """One strategy over one session."""

    session_id: str
    source: str
    strategy: str
    window: int
    steps: list[StepRecord] = field(default_factory=list)
    shapes: list[ShapeRecord] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    edits_total: int = 0


def error_lines(text: str) -> list[str]:
    """Normalised lines of ``text`` that signal a failure (Traceback, Error, FAILED, assert, file:line)."""
    return [s for line in text.split("\n") if (s := normalise(line)) and ERROR_LINE.search(s)]


def shape_record(raw: str, sent: str, cache: MessageCache) -> ShapeRecord:
    """Compare a tool's whole output with what the strategy sent for it."""
    errs = error_lines(raw)
    sent_norm = normalise(sent) if errs else ""
    kept = sum(1 for e in errs if e in sent_norm)
    return ShapeRecord(cache.text_tokens(raw), cache.text_tokens(sent), len(errs), kept)


def checkable_edits(session: Session, cache: MessageCache) -> dict[int, list[str]]:
    """Per call, the normalised replaced texts that were visible somewhere in the recorded history.

    An edit whose text the agent never saw (typed from memory, regex guess)
    cannot be retained by any strategy and is left out of the metric.
    """
    out: dict[int, list[str]] = {}
    searches: list[str] = []
    for k, call in enumerate(session.calls):
        while len(searches) < call.history_len:
            m = session.messages[len(searches)]
            searches.append(cache.info(message_key(m.to_openai())).search)
        for edit in (e for e in session.edits if e.call == k):
            needle = normalise(edit.old)
            if needle and any(needle in s for s in searches):
                out.setdefault(k, []).append(needle)
    return out


def replay(
    session: Session,
    strategy: Strategy,
    window: int,
    cache: MessageCache,
    checkable: dict[int, list[str]] | None = None,
) -> SessionRun:
    """Run ``strategy`` over ``session`` and measure every request."""
    rules = [[normalise(f) for f in rule_fragments(r)] for r in extract_rules(session.system_prompt,
                                                                               session.first_user())]
    fragments = [(j, f) for j, frags in enumerate(rules) for f in frags]
    checkable = checkable if checkable is not None else checkable_edits(session, cache)
    run = SessionRun(session.id, session.source, strategy.name, window, rules=[" ".join(r) for r in rules],
                     edits_total=len(session.edits))
    rule_hits: dict[MessageKey, frozenset[int]] = {}
    strategy.start(session, window)
    seen = 0
    prev: list[MessageKey] = []
    prev_opaque = 0
    for k, call in enumerate(session.calls):
        t0 = time.perf_counter()
        observed: list[tuple[str, str]] = []
        for i in range(seen, call.history_len):
            msg = session.messages[i]
            sent = strategy.observe(i, msg)
            if msg.role == "tool" and sent is not None:
                observed.append((msg.raw_output, sent))
        seen = max(seen, call.history_len)
        req = strategy.build(k)
        latency = time.perf_counter() - t0
        keys = [message_key(m) for m in req.messages]
        sent_before = set(prev)  # only what this request adds can show an output that just arrived
        searches = [cache.info(key).search for key in keys if key not in sent_before]
        for raw, sent in observed:
            rec = shape_record(raw, sent, cache)
            if rec.error_lines:
                rec.error_lines_in_request = sum(1 for e in error_lines(raw) if any(e in t for t in searches))
            run.shapes.append(rec)
        tokens = session.prefix_tokens + req.opaque_tokens + cache.request_tokens(keys)
        shared = 0
        if k > 0:
            shared = session.prefix_tokens + (req.opaque_tokens if req.opaque_tokens == prev_opaque else 0)
            for a, b in zip(prev, keys, strict=False):
                if a != b:
                    break
                shared += cache.info(b).tokens
        seen_frags: set[int] = set()
        for key in keys:
            hits = rule_hits.get(key)
            if hits is None:
                search = cache.info(key).search
                hits = frozenset(n for n, (_, frag) in enumerate(fragments) if frag in search)
                rule_hits[key] = hits
            seen_frags |= hits
        missing = {fragments[n][0] for n in range(len(fragments)) if n not in seen_frags}
        present = [j for j in range(len(rules)) if j not in missing]
        needles = checkable.get(k, [])
        found = sum(1 for n in needles if any(n in cache.info(key).search for key in keys))
        run.steps.append(StepRecord(
            tokens=tokens, shared=shared, summarising=req.summarising_input_tokens,
            summary_out=req.summary_tokens, summarising_cached=req.summarising_cached, rules_present=len(present), rules_total=len(rules),
            edits_checked=len(needles), edits_present=found, latency=latency,
            recorded=call.recorded_input_tokens,
        ))
        prev, prev_opaque = keys, req.opaque_tokens
    return run


def _counted(session: Session, start: int, end: int, cache: MessageCache) -> int:
    msgs = [{"role": "system", "content": session.system_prompt}] if session.system_prompt else []
    msgs += [m.to_openai() for m in session.messages[start:end]]
    return cache.request_tokens([message_key(m) for m in msgs])


def calibrate(session: Session, cache: MessageCache) -> None:
    """Estimate what the recording sent but did not record, from the recorded usage.

    ``prefix_tokens``: first call's recorded input minus the count of its
    recorded messages (tool definitions, the client's hidden prompt).  Each
    compaction's ``restored_tokens``: the same gap at the first call after it,
    beyond the prefix (files and todos the client re-injected).
    """
    calls = [c for c in session.calls if c.recorded_input_tokens is not None]
    if not calls:
        return
    first = calls[0]
    session.prefix_tokens = max(0, (first.recorded_input_tokens or 0) - _counted(session, 0, first.history_len, cache))
    fixed: list[Compaction] = []
    for comp in session.compactions:
        after = next((c for c in calls if c.history_len > comp.at), None)
        restored = 0
        if after is not None:
            gap = (after.recorded_input_tokens or 0) - _counted(session, comp.at, after.history_len, cache)
            restored = max(0, gap - session.prefix_tokens)
        fixed.append(replace(comp, restored_tokens=restored))
    session.compactions = fixed
