"""Run the replay benchmark without the main CLI: ``python scripts/bench_replay.py --help``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.bench.cli import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main())
