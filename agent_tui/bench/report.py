"""The benchmark's output: a Markdown report and a JSON document.

Markdown is for the README and notes: the overall table (one row per
strategy), the same by trace source, the aims checked against the numbers,
and one line per session.  JSON has, at least, ``{"strategies": {name:
{total_input_tokens, peak_window_pct, overflows, active_file_retention,
rule_retention, prefix_stable_share, ...}}, "sessions": N}``, plus the same
by source and per session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_tui.bench.metrics import (
    CACHE_READ_WEIGHT,
    CACHE_WRITE_WEIGHT,
    OUTPUT_WEIGHT,
    Metrics,
    compute,
)
from agent_tui.bench.runner import BenchResult

#: The aims for the ``agent-tui`` strategy (issue 10): shares of ``full``'s cost and tokens.
AIM_COST_VS_FULL = 0.40
AIM_TOKENS_VS_FULL = 0.30
AIM_FILE_RETENTION = 0.99
AIM_ERROR_RECALL = 0.99
AIM_PREFIX_STABLE = 0.90
AIM_P95_MS = 5.0
#: Strategies agent-tui must be cheaper than (on both cost variants).
ANCHORS = ("window", "masking", "auto-compact", "batch")


def _pct(v: float | None, digits: int = 1) -> str:
    return "–" if v is None else f"{100 * v:.{digits}f} %"


def _int(v: float) -> str:
    return f"{int(round(v)):,}"


def _vs(m: Metrics, base: Metrics | None) -> str:
    if base is None or not base.total_input_tokens:
        return "–"
    return f"{100 * (m.total_input_tokens / base.total_input_tokens - 1):+.1f} %"


def _times(v: float, base: float | None) -> str:
    return f"{v / base:.2f}×" if base else "–"


def overall(result: BenchResult) -> dict[str, Metrics]:
    """Pooled metrics per strategy."""
    return {name: compute(runs) for name, runs in result.runs.items()}


def by_source(result: BenchResult) -> dict[str, dict[str, Metrics]]:
    """Pooled metrics per trace source, per strategy."""
    sources = sorted({s.source for s in result.sessions})
    out: dict[str, dict[str, Metrics]] = {}
    for src in sources:
        out[src] = {name: compute([r for r in runs if r.source == src]) for name, runs in result.runs.items()}
    return out


def _table(rows: dict[str, Metrics], base: Metrics | None) -> list[str]:
    head = ("| strategy | total input tokens | vs full | tokens/request mean | p95 | peak window | overflows "
            "| prefix-stable | cost (reads 0.1) | × full | cost (+ writes 1.25) | × full "
            "| active-file retention | rule retention (every / last) "
            "| shaped/raw | error-line recall (request / own message) | assembly p50 / p95 |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, m in rows.items():
        files = f"{_pct(m.active_file_retention)} ({m.edits_present}/{m.edits_checked})"
        lines.append(
            f"| {name} | {_int(m.total_input_tokens)} | {_vs(m, base)} | {_int(m.mean_tokens)} | {_int(m.p95_tokens)} "
            f"| {m.peak_window_pct:.1f} % | {m.overflows} | {_pct(m.prefix_stable_share)} "
            f"| {_int(m.cache_weighted_cost)} | {_times(m.cache_weighted_cost, base and base.cache_weighted_cost)} "
            f"| {_int(m.cache_write_cost)} | {_times(m.cache_write_cost, base and base.cache_write_cost)} | {files} "
            f"| {_pct(m.rule_retention)} / {_pct(m.rule_retention_last)} | {_pct(m.shaped_raw_ratio)} "
            f"| {_pct(m.error_line_recall)} / {_pct(m.error_line_recall_message)} "
            f"| {m.latency_p50_ms:.2f} / {m.latency_p95_ms:.2f} ms |"
        )
    return lines


def aims(rows: dict[str, Metrics]) -> list[tuple[str, bool, str]]:
    """The aims for ``agent-tui``: (aim, met, measured)."""
    a, f = rows.get("agent-tui"), rows.get("full")
    if a is None:
        return []
    out: list[tuple[str, bool, str]] = []
    if f is not None and f.total_input_tokens:
        for label, mine, theirs in (("cost (reads 0.1)", a.cache_weighted_cost, f.cache_weighted_cost),
                                    ("cost (+ writes 1.25)", a.cache_write_cost, f.cache_write_cost)):
            r = mine / theirs if theirs else 0.0
            out.append((f"{label} ≤ {AIM_COST_VS_FULL:.2f}× full", r <= AIM_COST_VS_FULL, f"{r:.3f}×"))
        r = a.total_input_tokens / f.total_input_tokens
        out.append((f"input tokens ≤ {AIM_TOKENS_VS_FULL:.2f}× full", r <= AIM_TOKENS_VS_FULL, f"{r:.3f}×"))
    for name in ANCHORS:
        o = rows.get(name)
        if o is None:
            continue
        ok = a.cache_weighted_cost < o.cache_weighted_cost and a.cache_write_cost < o.cache_write_cost
        out.append((f"cheaper than {name} on both costs", ok,
                    f"{a.cache_weighted_cost / o.cache_weighted_cost:.3f}× / {a.cache_write_cost / o.cache_write_cost:.3f}×"))
    out.append(("never over the window", a.overflows == 0, f"{a.overflows} overflows, peak {a.peak_window_pct:.1f} %"))
    ret = a.active_file_retention
    out.append((f"active-file retention ≥ {AIM_FILE_RETENTION:.0%}", ret is None or ret >= AIM_FILE_RETENTION,
                _pct(ret)))
    rr = a.rule_retention
    out.append(("rule retention 100 %", rr is None or rr >= 1.0, _pct(rr, 2)))
    er = a.error_line_recall
    out.append((f"error-line recall ≥ {AIM_ERROR_RECALL:.0%}", er is None or er >= AIM_ERROR_RECALL, _pct(er)))
    out.append((f"prefix-stable share ≥ {AIM_PREFIX_STABLE:.0%}", a.prefix_stable_share >= AIM_PREFIX_STABLE,
                _pct(a.prefix_stable_share)))
    out.append((f"assembly p95 ≤ {AIM_P95_MS:g} ms", a.latency_p95_ms <= AIM_P95_MS, f"{a.latency_p95_ms:.2f} ms"))
    return out


def to_markdown(result: BenchResult) -> str:
    """The whole report as Markdown."""
    rows = overall(result)
    base = rows.get("full")
    n_req = sum(s.calls for s in result.sessions)
    srcs = sorted({s.source for s in result.sessions})
    counts = ", ".join(f"{sum(1 for s in result.sessions if s.source == src)} {src}" for src in srcs)
    if result.window:
        win = f"{result.window:,} tokens for every session"
    else:
        per = sorted({(s.source, s.window) for s in result.sessions})
        win = "per source: " + ", ".join(f"{src} {w:,}" for src, w in per)
    out = [
        f"## Replay benchmark: {len(result.sessions)} sessions ({counts}), {n_req:,} model calls",
        "",
        f"Window {win}; `window` keeps the last {result.rounds} rounds; cache reads weighted "
        f"{CACHE_READ_WEIGHT}, cache writes {CACHE_WRITE_WEIGHT} (second cost), summary output {OUTPUT_WEIGHT:g}; run time {result.seconds:.1f} s; malformed records skipped: {result.malformed}.",
        "",
        *_table(rows, base),
    ]
    blind = without_usage(result)
    if blind:
        out += ["", f"{len(blind)} session{'s' if len(blind) != 1 else ''} recorded no token usage "
                f"({', '.join(blind[:5])}{', …' if len(blind) > 5 else ''}): what the client sent unrecorded on every "
                "call (tool definitions, its own prompt) is unknown there and counted as 0 tokens for every strategy, "
                "so every strategy's share of `full` looks lower than it is."]
    checks = aims(rows)
    if checks:
        out += ["", "Aims for `agent-tui`:", ""]
        out += [f"- {'met' if ok else 'MISSED'}: {aim} — measured {val}" for aim, ok, val in checks]
    for src, srows in by_source(result).items():
        out += ["", f"### {src}", "", *_table(srows, srows.get("full"))]
    out += ["", "### Per session (total input tokens)", ""]
    names = result.strategies
    out.append("| session | source | calls | " + " | ".join(names)
               + " | agent-tui vs full | agent-tui vs window | agent-tui peak | agent-tui rules |")
    out.append("|" + "---|" * (len(names) + 7))
    for i, s in enumerate(result.sessions):
        ms = {n: compute([result.runs[n][i]]) for n in names}
        a = ms.get("agent-tui")
        cells = [_int(ms[n].total_input_tokens) for n in names]
        extra = ["–", "–", "–", "–"]
        if a is not None:
            extra = [_vs(a, ms.get("full")), _vs(a, ms.get("window")), f"{a.peak_window_pct:.1f} %",
                     _pct(a.rule_retention)]
        out.append(f"| {s.id} | {s.source} | {s.calls} | " + " | ".join(cells + extra) + " |")
    return "\n".join(out) + "\n"


def without_usage(result: BenchResult) -> list[str]:
    """Ids of the sessions whose recording has no token usage: their unrecorded prefix could not be estimated
    (``replay.calibrate``) and counts as 0 for every strategy (bench F14: it went unsaid)."""
    return [s.id for s in result.sessions if not any(r is not None for r in s.recorded)]


def to_json(result: BenchResult) -> dict[str, Any]:
    """The report as a JSON-friendly dict."""
    rows = overall(result)
    per_session: list[dict[str, Any]] = []
    for i, s in enumerate(result.sessions):
        per_session.append({
            "id": s.id, "source": s.source, "model": s.model, "path": s.path, "window": s.window,
            "calls": s.calls, "prefix_tokens": s.prefix_tokens, "usage_recorded": bool(s.recorded and any(
                r is not None for r in s.recorded)), "malformed": s.malformed,
            "strategies": {n: compute([result.runs[n][i]]).to_json() for n in result.strategies},
        })
    return {
        "sessions": len(result.sessions),
        "requests": sum(s.calls for s in result.sessions),
        "config": {"window": result.window, "rounds": result.rounds, "cache_read_weight": CACHE_READ_WEIGHT,
                   "cache_write_weight": CACHE_WRITE_WEIGHT, "output_weight": OUTPUT_WEIGHT},
        "run_seconds": round(result.seconds, 2),
        "malformed": result.malformed,
        "skipped": list(result.skipped),
        "without_usage": without_usage(result),
        "strategies": {n: m.to_json() for n, m in rows.items()},
        "aims": [{"aim": a, "met": ok, "measured": v} for a, ok, v in aims(rows)],
        "by_source": {src: {n: m.to_json() for n, m in srows.items()} for src, srows in by_source(result).items()},
        "per_session": per_session,
    }


def series(result: BenchResult, session_index: int) -> dict[str, Sequence[int]]:
    """Tokens per request of one session, per strategy (for plots)."""
    return {n: [s.tokens for s in result.runs[n][session_index].steps] for n in result.strategies}
