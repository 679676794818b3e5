"""What secret redaction costs per model step.

Every request passes through the Redactor (``core.redact``).  A step's request is
mostly the previous request plus a few new messages, and results are cached by text,
so the steady-state cost is the new text only.  This measures, on a synthetic session
of code-like tool outputs: the cold cost of redacting a whole request (first step, or
after a compaction rewrote everything), the warm cost of the next step (one new tool
output of ~8 KB), and raw throughput in MB/s.

    .venv/bin/python scripts/bench_redact.py [--steps 40]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.core.redact import Redactor  # noqa: E402

CODE = '''def handler(event, context):
    """Process one event."""
    token = context.get("token")
    if not token:
        raise ValueError("missing token for %s" % event["id"])
    url = f"https://api.example.com/v1/items/{event['id']}?limit=50"
    resp = session.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return {"status": resp.status_code, "items": resp.json().get("items", [])}
'''


def tool_output(rnd: random.Random, size: int) -> str:
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < size:
        roll = rnd.random()
        if roll < 0.6:
            lines += CODE.splitlines()
        elif roll < 0.8:
            lines.append(f"tests/test_{rnd.randint(1, 99)}.py::test_case PASSED [{rnd.randint(1, 100)}%]")
        else:
            lines.append("".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(64)))
    return "\n".join(lines)


def session(steps: int, seed: int = 3) -> list[dict[str, str]]:
    rnd = random.Random(seed)
    msgs = [{"role": "system", "content": "You are a coding agent. " * 200}]
    for i in range(steps):
        msgs.append({"role": "assistant", "content": f"step {i}: reading the next file"})
        msgs.append({"role": "tool", "content": tool_output(rnd, 8000)})
    return msgs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    opts = parser.parse_args()
    msgs = session(opts.steps)
    Redactor()("warm up the detectors: GITHUB_TOKEN=ghp_" + "a1B" * 12)
    chars = sum(len(m["content"]) for m in msgs)

    red = Redactor()
    t = time.process_time()
    red.messages(msgs[:-2])
    cold = time.process_time() - t
    t = time.process_time()
    red.messages(msgs)
    warm = time.process_time() - t

    print(f"request: {len(msgs)} messages, {chars / 1e6:.2f} MB of text")
    print(f"cold (whole request, nothing cached): {cold * 1000:8.1f} ms CPU  ({chars / 1e6 / cold:.1f} MB/s)")
    print(f"warm (next step, one new 8 KB output): {warm * 1000:8.1f} ms CPU")


if __name__ == "__main__":
    main()
