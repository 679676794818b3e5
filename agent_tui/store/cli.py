"""`agent-tui memory ...` and `agent-tui context`: the store from the shell.

So a user (or a script) can pin project rules, inspect what the agent keeps,
and read the latest budget breakdown without opening the TUI.  JSON shapes are
documented in README.md and are a stable interface.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agent_tui.core.call_args import calls_tokens
from agent_tui.core.config import Settings, load_settings
from agent_tui.core.engine import GLOBAL_SESSION, ContextEngine, EngineError
from agent_tui.core.items import ContextItem
from agent_tui.core.pinning import pin_target
from agent_tui.core.terminal import json_text, printable
from agent_tui.store.db import UnknownSession
from agent_tui.store.workspace import Workspace, store_path

READ_ONLY = ("list", "show")
"""Memory commands that never create a store (run in a folder with none, they say so and exit 0)."""


def add_memory_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="memory_cmd", required=True)
    ls = sub.add_parser("list", help="list items (project rules and the session's items)")
    ls.add_argument("--all", action="store_true", help="include evicted and summarised items and tool definitions")
    ls.add_argument("--category", help="only this category")
    show = sub.add_parser("show", help="show one item in full")
    show.add_argument("id")
    pin = sub.add_parser("pin", help="pin an item by id, or pin TEXT as a new project rule")
    pin.add_argument("target", help='an item id (m12, t3, f:src/app.py) or the text of a rule, e.g. "Use pnpm, never npm"')
    pin.add_argument("--rule", action="store_true", help="TARGET is the text of a rule even if it looks like an id")
    for name, helptext in (("unpin", "unpin an item"), ("evict", "take an item out of the window"),
                           ("restore", "bring an evicted or summarised item back")):
        sp = sub.add_parser(name, help=helptext)
        sp.add_argument("id")
    for sp in (ls, show, pin, *[sub.choices[n] for n in ("unpin", "evict", "restore")]):
        sp.add_argument("--json", action="store_true", help="machine-readable output")
        sp.add_argument("--session", default=argparse.SUPPRESS, help="session id (default: the latest)")
        # Also accepted after the action (`memory pin TEXT --workspace DIR`); SUPPRESS keeps an
        # earlier --workspace when it is not repeated here.
        sp.add_argument("--workspace", "-w", type=Path, default=argparse.SUPPRESS,
                        help="project folder (default: current directory)")


def add_context_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--session", default=argparse.SUPPRESS, help="session id (default: the latest)")


def _row(item: ContextItem, counter: Any = None) -> dict[str, Any]:
    """One item for ``memory list``; ``tokens`` is what its message costs, an assistant's tool calls included (as
    the inspector and ``context`` count it: a call with no text showed 0)."""
    calls = calls_tokens(item, counter) if counter is not None else 0
    return {
        "id": item.id,
        "category": str(item.category),
        "tokens": item.tokens + calls,
        "pinned": item.pinned,
        "state": str(item.state),
        "preview": item.preview(100),
        "role": item.role,
        "turn": item.turn,
    }


def _engine(ws: Workspace, session: str | None) -> ContextEngine:
    if session is None and ws.store.latest_session() is None:
        eng = ContextEngine(ws.settings, store=ws.store, session_id=GLOBAL_SESSION, workspace=ws.root,
                            log_requests=False)
        eng.load(ws.global_items())
        return eng
    return ws.engine(session)


def _print(obj: Any, as_json: bool, text: str) -> None:
    print(json_text(obj) if as_json else text)


def _missing_store(workspace: Path, session: str | None) -> tuple[Settings, Path] | None:
    """(settings, path) when the workspace has no database yet (None when it has one).

    Read-only commands then answer from what is on disk without creating ``.agent-tui/``; an
    explicit ``--session`` cannot exist, so it is the same one-line error as elsewhere."""
    settings = load_settings(workspace)
    path = store_path(workspace.resolve(), settings)
    if path.exists():
        return None
    if session is not None:
        raise UnknownSession(f"no session {session!r}: {workspace} has no agent-tui store yet ({path})")
    return settings, path


def _storeless_engine(settings: Settings, workspace: Path) -> ContextEngine:
    return ContextEngine(settings, store=None, session_id=GLOBAL_SESSION, workspace=workspace.resolve(),
                         log_requests=False)


def _say_no_store(path: Path) -> None:
    print(f"agent-tui: no store yet at {path} (nothing recorded in this folder; nothing was created)",
          file=sys.stderr)


def run_memory(args: argparse.Namespace, workspace: Path) -> int:
    if args.memory_cmd in READ_ONLY:
        missing = _missing_store(workspace, args.session)
        if missing is not None:
            _say_no_store(missing[1])
            return _read_memory(args, _storeless_engine(missing[0], workspace), empty_ok=True)
    ws = Workspace(workspace)
    try:
        eng = _engine(ws, args.session)
        for line in ws.store.unreadable:
            print(f"agent-tui: memory store: {line}", file=sys.stderr)
        cmd = args.memory_cmd
        if cmd in READ_ONLY:
            return _read_memory(args, eng)
        if cmd == "pin":
            item = ws.add_rule(args.target) if args.rule else pin_target(eng, args.target, ws.add_rule)
        elif cmd == "unpin":
            item = eng.unpin(args.id)
        elif cmd == "evict":
            item = eng.evict(args.id)
        else:
            item = eng.restore(args.id)
        _print(_row(item), args.json, f"{cmd}: {item.id} ({item.category}, {item.tokens:,} tokens, "
               f"{item.state}{', pinned' if item.pinned else ''})")
        return 0
    except (EngineError, KeyError) as exc:
        print(f"agent-tui: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    finally:
        ws.close()


def _read_memory(args: argparse.Namespace, eng: ContextEngine, empty_ok: bool = False) -> int:
    """``memory list`` and ``memory show`` (they write nothing)."""
    if args.memory_cmd == "list":
        items = [i for i in eng.all_items() if i.id != "sys"]
        if not args.all:
            items = [i for i in items if i.in_window and (str(i.category) != "tools" or args.category == "tools")]
        if args.category:
            items = [i for i in items if str(i.category) == args.category]
        rows = [_row(i, eng.counter) for i in items]
        width = min(48, max([10, *(len(r["id"]) + 1 for r in rows)]))  # a file's id (f:src/app.py) is longer than m42
        lines = [printable(f"{r['id']:<{width}} {r['category']:<8} {r['tokens']:>7,}  "
                           f"{'pin ' if r['pinned'] else '    '}{r['state']:<10} {r['preview']}", newlines=False)
                 for r in rows]
        _print(rows, args.json, "\n".join(lines) or "(no items)")
        return 0
    try:
        item = eng.get(args.id)
    except EngineError as exc:
        if not empty_ok:
            raise
        _print(None, args.json, f"{exc}")
        return 0
    _print(item.to_row(), args.json, printable(f"{item.id} [{item.category}, {item.tokens:,} tokens, "
                                               f"{item.state}{', pinned' if item.pinned else ''}]\n{item.content}"))
    return 0


def _print_breakdown(bd: dict[str, Any], as_json: bool) -> int:
    if as_json:
        print(json.dumps(bd))
        return 0
    print(f"window {bd['window']:,}  reserve {bd['reserve']:,}  total {bd['total']:,}  "
          f"({bd['used_pct']:.1f}% of {bd['input_budget']:,})" + ("  OVER BUDGET" if bd["over_budget"] else ""))
    for name, n in bd["categories"].items():
        share = 100.0 * n / bd["input_budget"] if bd["input_budget"] else 0
        print(f"  {name:<8} {n:>8,}  {share:5.1f}%  {'#' * int(share / 2)}")
    return 0


def run_context(args: argparse.Namespace, workspace: Path) -> int:
    missing = _missing_store(workspace, args.session)
    if missing is not None:
        _say_no_store(missing[1])
        print("agent-tui: below, what a first request in this folder would hold", file=sys.stderr)
        eng = _storeless_engine(missing[0], workspace)
        bd = {**eng.assemble(auto_compact=False, log=False).breakdown.to_json(), "session": None, "turn": 0,
              "step": 0}
        return _print_breakdown(bd, args.json)
    ws = Workspace(workspace)
    try:
        sid = args.session or ws.store.latest_session()
        rows = ws.store.assemblies(sid, limit=1) if sid else []
        if rows:
            bd = rows[0]["breakdown"]
            bd = {**bd, "session": sid, "turn": rows[0]["turn"], "step": rows[0]["step"]}
        else:
            eng = _engine(ws, args.session)
            bd = {**eng.assemble(auto_compact=False, log=False).breakdown.to_json(), "session": sid,
                  "turn": 0, "step": 0}
        return _print_breakdown(bd, args.json)
    except KeyError as exc:
        print(f"agent-tui: {exc.args[0]}", file=sys.stderr)
        return 2
    finally:
        ws.close()
