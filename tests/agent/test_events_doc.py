"""The README's table of `agent-tui run --json` events lists every event the loop can yield, with each of
its fields: a consumer of the JSON Lines stream reads that table, not the code."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from agent_tui.agent import events as ev

README = Path(__file__).resolve().parents[2] / "README.md"


def _table() -> dict[str, str]:
    text = README.read_text()
    start = text.index("`agent-tui run --json` — JSON Lines")
    rows: dict[str, str] = {}
    for line in text[start:].splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        m = re.match(r"\| `([a-z_]+)` \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def _events() -> list[type[ev.Event]]:
    return [c for c in vars(ev).values()
            if isinstance(c, type) and issubclass(c, ev.Event) and c is not ev.Event and dataclasses.is_dataclass(c)]


def test_every_event_type_and_field_is_in_the_readme() -> None:
    rows = _table()
    assert len(rows) >= 15
    missing = []
    for cls in _events():
        row = rows.get(cls.type)
        if row is None:
            missing.append(f"{cls.type}: no row")
            continue
        named = set(re.findall(r"`([a-z_]+)`", row))
        missing += [f"{cls.type}.{f.name}" for f in dataclasses.fields(cls) if f.name not in named]
    assert not missing, missing
    assert set(rows) == {cls.type for cls in _events()}
