"""The context engine's own costs: assembly per turn, tokens counted per turn, store writes, recall.

    python scripts/bench_engine.py [--turns 500] [--capsules 100000] [--json]

1. A synthetic 500-turn coding session (a user message, an assistant step with
   one or two tool calls and their outputs, a file read every few turns) with
   well over 300K tokens of history, on gpt-4o's 128K window.  After each turn
   the engine assembles the request; the time of ``assemble()`` is measured
   with the store attached (request logged, as in the product) and without.
2. Tokens counted per turn: ``TokenCounter.calls`` and the characters
   tokenised per turn, against the characters the turn added (only new text
   should be counted).
3. Store appends per second (``append_message`` + ``save_item``, as the engine
   does for every message).
4. FTS recall latency over N memory capsules bulk-inserted with ``insert_all``.

A benchmark, not a test: it prints numbers; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_tui.core.config import Settings  # noqa: E402
from agent_tui.core.engine import ContextEngine  # noqa: E402
from agent_tui.core.items import Category, ContextItem  # noqa: E402
from agent_tui.core.tokens import TokenCounter  # noqa: E402
from agent_tui.store.recall import recall  # noqa: E402
from agent_tui.store.store import MemoryStore  # noqa: E402

WORDS = ("parser socket buffer thread module kernel config handler request response cache index "
         "token window budget summary history result stream server client schema query commit branch "
         "deploy build test lint format warning retry timeout session memory vector column").split()
#: A larger vocabulary for memory capsules, so word frequencies look like text, not a bag of 40 words.
VOCAB = WORDS + [f"{a}{b}" for a in ("re", "un", "pre", "sub", "over", "auto", "multi", "co")
                 for b in WORDS] + [f"name{i}" for i in range(3000)]
MODEL = "gpt-4o"


class MeasuringCounter(TokenCounter):
    """A TokenCounter that also adds up the characters it tokenises."""

    def __init__(self, model: str | None) -> None:
        super().__init__(model)
        self.chars = 0

    def count(self, text: str | bytes) -> int:
        if text:
            self.chars += len(text)
        return super().count(text)


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def run_session(turns: int, store: MemoryStore | None, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    counter = MeasuringCounter(MODEL)
    sid = store.new_session(model=MODEL) if store else "bench"
    eng = ContextEngine(Settings.default(model=MODEL), store=store, session_id=sid, counter=counter)
    eng.pin_rule("Use pnpm, never npm. Run the linter before committing.")
    times: list[float] = []
    cpu: list[float] = []
    compacted: list[bool] = []
    calls: list[int] = []
    chars: list[int] = []
    added_chars: list[int] = []
    history_tokens = 0
    for t in range(1, turns + 1):
        c0, ch0 = counter.calls, counter.chars
        new = 0
        text = f"Turn {t}: please fix the {rng.choice(WORDS)} handling. " + words(rng, rng.randint(50, 180))
        history_tokens += eng.add_user(text).tokens
        new += len(text)
        n_calls = rng.choice((1, 1, 2))
        tcalls = [{"id": f"c{t}_{k}", "type": "function",
                   "function": {"name": "run_command", "arguments": json.dumps({"command": f"pytest -k t{t}{k}"})}}
                  for k in range(n_calls)]
        say = "I will run the tests. " + words(rng, 30)
        history_tokens += eng.add_assistant(say, tcalls).tokens
        new += len(say) + len(json.dumps(tcalls))
        for call in tcalls:
            lines = [f"{rng.choice(('ok', 'PASS', 'info', 'debug'))} {words(rng, rng.randint(4, 14))}"
                     for _ in range(rng.randint(15, 40))]
            if rng.random() < 0.2:
                lines.append("FAILED tests/test_x.py::test_y - AssertionError: 3 != 4")
            out = "\n".join(lines) + f"\n{rng.randint(1, 90)} passed in 0.4s"
            history_tokens += eng.add_tool_result(call["id"], "run_command", out,
                                                  provenance={"command": call["function"]["arguments"]}).tokens
            new += len(out)
        if t % 4 == 0:
            body = "\n".join(f"def f{i}(x):\n    return x + {i}" for i in range(rng.randint(20, 120)))
            eng.note_file_read(f"src/mod{t % 7}.py", body)
            new += len(body)
        done = f"Done with turn {t}. " + words(rng, 25)
        history_tokens += eng.add_assistant(done).tokens
        new += len(done)
        n0 = len(eng.compactions)
        t0, p0 = time.perf_counter(), time.process_time()
        eng.assemble()
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - p0) * 1000)
        compacted.append(len(eng.compactions) > n0)
        calls.append(counter.calls - c0)
        chars.append(counter.chars - ch0)
        added_chars.append(new)
    last = eng.last
    assert last is not None
    return {
        "turns": turns,
        "history_tokens": history_tokens,
        "request_tokens_last": last.breakdown.total,
        "window": eng.plan.window,
        "compactions": sum(1 for c in eng.compactions if c.ok),
        "assemble_ms_p50": statistics.median(times),
        "assemble_ms_p95": percentile(times, 95),
        "assemble_ms_max": max(times),
        "assemble_cpu_ms_p50": statistics.median(cpu),
        "assemble_cpu_ms_p95": percentile(cpu, 95),
        "plain_turn_ms_p95": percentile([t for t, c in zip(times, compacted, strict=True) if not c], 95),
        "compaction_turn_ms_p50": statistics.median([t for t, c in zip(times, compacted, strict=True) if c] or [0]),
        "count_calls_per_turn": statistics.mean(calls),
        "chars_counted_per_turn": statistics.mean(chars),
        "chars_added_per_turn": statistics.mean(added_chars),
    }


def bench_appends(store: MemoryStore, n: int = 3000) -> float:
    sid = store.new_session(model=MODEL)
    rng = random.Random(3)
    items = [ContextItem(id=f"m{i}", category=Category.HISTORY, content=words(rng, 60), tokens=60,
                         role="user" if i % 2 else "assistant", turn=i) for i in range(n)]
    t0 = time.perf_counter()
    for i, it in enumerate(items):
        store.append_message(sid, it)
        store.save_item(sid, it, seq=i)
    return n / (time.perf_counter() - t0)


def bench_recall(path: Path, capsules: int, queries: int = 200) -> dict[str, Any]:
    store = MemoryStore.open(path)
    try:
        rng = random.Random(11)
        now = time.time()
        t0 = time.perf_counter()
        def text(n: int) -> str:
            # Zipf-like: a few words are common, most are rare (as in real notes).
            return " ".join(VOCAB[min(len(VOCAB) - 1, int(rng.paretovariate(0.8)) - 1)] for _ in range(n))

        batch = [{"session_id": "", "content": f"{text(rng.randint(8, 30))} fact{i}",
                  "type": rng.choice(("fact", "preference", "constraint", "lesson")),
                  "confidence": 0.8, "access_count": rng.randint(0, 5),
                  "last_access": now - rng.random() * 90 * 86400, "created": now - rng.random() * 90 * 86400}
                 for i in range(capsules)]
        with store.lock:
            store.db["capsules"].insert_all(batch, batch_size=5000)
        insert_s = time.perf_counter() - t0
        lat: list[float] = []
        hits = 0
        for q in range(queries):
            query = text(4) + (f" fact{rng.randrange(capsules)}" if q % 2 else "")
            t1 = time.perf_counter()
            res = recall(store, query, kinds=("capsule",), touch=False)
            lat.append((time.perf_counter() - t1) * 1000)
            hits += bool(res)
        return {"capsules": capsules, "insert_s": insert_s, "recall_ms_p50": statistics.median(lat),
                "recall_ms_p95": percentile(lat, 95), "queries_with_hits": hits, "queries": queries}
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=500)
    ap.add_argument("--capsules", type=int, default=100_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        mem = run_session(args.turns, None)
        store = MemoryStore.open(Path(tmp) / "session.db")
        try:
            stored = run_session(args.turns, store)
            appends = bench_appends(store)
        finally:
            store.close()
        rec = bench_recall(Path(tmp) / "recall.db", args.capsules)
    result = {"engine_only": mem, "with_store": stored, "store_appends_per_s": appends, "recall": rec}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    rows = [
        ("session", f"{mem['turns']} turns, {mem['history_tokens']:,} tokens of history, "
                    f"{mem['window']:,}-token window, {mem['compactions']} compactions"),
        ("assemble p50 / p95 / max (engine only)",
         f"{mem['assemble_ms_p50']:.2f} / {mem['assemble_ms_p95']:.2f} / {mem['assemble_ms_max']:.2f} ms"),
        ("  same, CPU time p50 / p95", f"{mem['assemble_cpu_ms_p50']:.2f} / {mem['assemble_cpu_ms_p95']:.2f} ms"),
        ("  turns without compaction p95 / compaction turns p50",
         f"{mem['plain_turn_ms_p95']:.2f} / {mem['compaction_turn_ms_p50']:.2f} ms"),
        ("assemble p50 / p95 / max (store + request log)",
         f"{stored['assemble_ms_p50']:.2f} / {stored['assemble_ms_p95']:.2f} / {stored['assemble_ms_max']:.2f} ms"),
        ("last request", f"{mem['request_tokens_last']:,} tokens"),
        ("texts tokenised per turn", f"{mem['count_calls_per_turn']:.2f}"),
        ("chars tokenised / chars added per turn",
         f"{mem['chars_counted_per_turn']:,.0f} / {mem['chars_added_per_turn']:,.0f}"),
        ("store appends (message + item) per s", f"{appends:,.0f}"),
        (f"recall over {rec['capsules']:,} capsules p50 / p95",
         f"{rec['recall_ms_p50']:.2f} / {rec['recall_ms_p95']:.2f} ms "
         f"({rec['queries_with_hits']}/{rec['queries']} queries hit; bulk insert {rec['insert_s']:.1f} s)"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
