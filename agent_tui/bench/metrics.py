"""The benchmark's numbers, computed from replay records (per session and pooled).

Definitions (the tests in ``tests/bench/test_metrics.py`` pin them down):

* tokens per request: input tokens of each request, unrecorded prefix
  included; mean and p95 (nearest rank).
* total input tokens: all requests plus the input of summarising calls.
* peak window use: the largest request over the window, in percent; an
  overflow is a request larger than the window.
* prefix-stable share: tokens each request shares as a message prefix with the
  previous request (what a provider prompt cache reuses), over all request
  tokens.  Cache-weighted cost, in input-token equivalents, twice:
  ``cache_weighted_cost`` — uncached tokens at 1, shared tokens at
  ``CACHE_READ_WEIGHT`` (providers bill cache reads at about a tenth), no
  write premium; ``cache_write_cost`` — the same with uncached (newly cached)
  tokens at ``CACHE_WRITE_WEIGHT`` (Anthropic's 5-minute cache writes).  In both,
  a summarising call's input is billed the same way (its cached part as reads)
  and its output at ``OUTPUT_WEIGHT``.
* active-file retention: of the edits whose replaced text was visible in the
  recorded history, the share whose text was in the request that made them.
* rule retention: of all (request, rule) pairs, the share where the rule was
  in the request; ``rule_retention_last``: the same for each session's last
  request only.
* tool-output shaping: sent/raw tokens over all tool outputs; error-line
  recall: error lines of the raw outputs present in the messages that the request
  built right after the output arrived adds (what the model is newly shown, wherever
  it is: a read that shaping cut may show its text in a file note; a line only an
  older message or the task quotes does not count); ``error_line_recall_message``:
  present in the output's own message as sent (the stricter, older measure).
* assembly latency: wall time per step to take the new messages and build the
  request, p50 and p95, in milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from agent_tui.bench.replay import SessionRun

CACHE_READ_WEIGHT = 0.1
CACHE_WRITE_WEIGHT = 1.25
#: Output tokens (a summary) cost this many input tokens (4x at OpenAI and DeepSeek, 5x at Anthropic).
OUTPUT_WEIGHT = 4.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return float(ordered[min(rank, len(ordered)) - 1])


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


@dataclass
class Metrics:
    """One strategy's numbers over one session or a pool of sessions."""

    sessions: int
    requests: int
    total_input_tokens: int
    summarising_tokens: int
    mean_tokens: float
    p95_tokens: float
    peak_tokens: int
    peak_window_pct: float
    overflows: int
    prefix_stable_share: float
    cache_weighted_cost: float
    cache_write_cost: float
    edits_checked: int
    edits_present: int
    active_file_retention: float | None
    rule_checks: int
    rule_hits: int
    rule_retention: float | None
    rule_retention_last: float | None
    shaped_raw_ratio: float | None
    error_lines: int
    error_lines_kept: int
    error_line_recall: float | None
    error_lines_in_message: int
    error_line_recall_message: float | None
    latency_p50_ms: float
    latency_p95_ms: float

    def to_json(self) -> dict[str, float | int | None]:
        """A JSON-friendly dict (floats rounded)."""
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def _cost(total: int, shared: int, summarising: int, sum_cached: int, sum_out: int, write: float) -> float:
    """Input-token equivalents: new tokens at ``write``, cache reads at CACHE_READ_WEIGHT, output at OUTPUT_WEIGHT."""
    reads = shared + sum_cached
    return write * (total + summarising - reads) + CACHE_READ_WEIGHT * reads + OUTPUT_WEIGHT * sum_out


def compute(runs: Sequence[SessionRun]) -> Metrics:
    """Pool the records of ``runs`` (one strategy, one or many sessions) into Metrics."""
    steps = [s for r in runs for s in r.steps]
    shapes = [s for r in runs for s in r.shapes]
    tokens = [s.tokens for s in steps]
    summarising = sum(s.summarising for s in steps)
    sum_cached = sum(min(s.summarising_cached, s.summarising) for s in steps)
    sum_out = sum(s.summary_out for s in steps)
    request_total = sum(tokens)
    shared = sum(s.shared for s in steps)
    peak_pct = max((100.0 * max(s.tokens for s in r.steps) / r.window for r in runs if r.steps and r.window),
                   default=0.0)
    overflows = sum(1 for r in runs for s in r.steps if s.tokens > r.window)
    last_total = sum(r.steps[-1].rules_total for r in runs if r.steps)
    last_present = sum(r.steps[-1].rules_present for r in runs if r.steps)
    checks = sum(s.rules_total for s in steps)
    hits = sum(s.rules_present for s in steps)
    edits_checked = sum(s.edits_checked for s in steps)
    edits_present = sum(s.edits_present for s in steps)
    raw = sum(s.raw_tokens for s in shapes)
    sent = sum(s.sent_tokens for s in shapes)
    err = sum(s.error_lines for s in shapes)
    in_message = sum(s.error_lines_kept for s in shapes)
    kept = sum(s.error_lines_in_request for s in shapes)
    lat = [s.latency * 1000.0 for s in steps]
    return Metrics(
        sessions=len(runs),
        requests=len(steps),
        total_input_tokens=request_total + summarising,
        summarising_tokens=summarising,
        mean_tokens=request_total / len(steps) if steps else 0.0,
        p95_tokens=percentile(tokens, 95),
        peak_tokens=max(tokens, default=0),
        peak_window_pct=peak_pct,
        overflows=overflows,
        prefix_stable_share=_ratio(shared, request_total) or 0.0,
        cache_weighted_cost=_cost(request_total, shared, summarising, sum_cached, sum_out, 1.0),
        cache_write_cost=_cost(request_total, shared, summarising, sum_cached, sum_out, CACHE_WRITE_WEIGHT),
        edits_checked=edits_checked,
        edits_present=edits_present,
        active_file_retention=_ratio(edits_present, edits_checked),
        rule_checks=checks,
        rule_hits=hits,
        rule_retention=_ratio(hits, checks),
        rule_retention_last=_ratio(last_present, last_total),
        shaped_raw_ratio=_ratio(sent, raw),
        error_lines=err,
        error_lines_kept=kept,
        error_line_recall=_ratio(kept, err),
        error_lines_in_message=in_message,
        error_line_recall_message=_ratio(in_message, err),
        latency_p50_ms=percentile(lat, 50),
        latency_p95_ms=percentile(lat, 95),
    )
