"""A PNG of tokens per request over each session, one line per strategy.

matplotlib is an optional extra (``pip install agent-tui[plot]``); it is
imported only when a plot is asked for, and its absence is a clear error
message, not a traceback.  One panel per session (the longest sessions first,
up to ``max_panels``), the window drawn as a dashed line.
"""

from __future__ import annotations

import math
from pathlib import Path

from agent_tui.bench.runner import BenchResult

COLOURS = {"full": "#d62728", "window": "#7f7f7f", "masking": "#9467bd", "auto-compact": "#ff7f0e",
           "batch": "#2ca02c", "agent-tui": "#1f77b4"}
#: Line styles where curves overlap (auto-compact follows full until it compacts); agent-tui drawn bold.
STYLES = {"auto-compact": "--"}
WIDTHS = {"agent-tui": 2.0}


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _pyplot():  # type: ignore[no-untyped-def]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotUnavailable(
            "plotting needs matplotlib: pip install 'agent-tui[plot]' (or pip install matplotlib)"
        ) from exc
    return plt


def plot_series(result: BenchResult, out: Path, max_panels: int = 12) -> Path:
    """Write the PNG to ``out``; raises PlotUnavailable without matplotlib."""
    plt = _pyplot()
    order = sorted(range(len(result.sessions)), key=lambda i: -result.sessions[i].calls)[:max_panels]
    n = max(1, len(order))
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.2 * rows), squeeze=False)
    for panel, i in enumerate(order):
        ax = axes[panel // cols][panel % cols]
        info = result.sessions[i]
        for name in result.strategies:
            ys = [s.tokens for s in result.runs[name][i].steps]
            ax.plot(range(1, len(ys) + 1), ys, label=name, color=COLOURS.get(name),
                    linestyle=STYLES.get(name, "-"), linewidth=WIDTHS.get(name, 1.2))
        ax.axhline(info.window, color="black", linestyle="--", linewidth=0.8, label="context window")
        ax.set_title(f"{info.id[:40]} ({info.source})", fontsize=8)
        ax.set_xlabel("model call", fontsize=7)
        ax.set_ylabel("input tokens", fontsize=7)
        ax.tick_params(labelsize=7)
    for panel in range(len(order), rows * cols):
        axes[panel // cols][panel % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
