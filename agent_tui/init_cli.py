"""`agent-tui init [--yes]`: draft the workspace's AGENTS.md with the model, from the command line.

The same task as the TUI's ``/init`` (``agent/init_agents.py``): the model reads the repository
with its read-only tools and writes the file.  The write is shown as a unified diff before
anything touches the disk — an existing AGENTS.md is never replaced unseen — and is written only
when the user answers yes at the terminal or passed ``--yes``.  Any other write or command the
model tries is refused.  Exit 0 when the file was written, 1 when it was not, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from agent_tui.agent.events import ApprovalRequested


def add_init_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``init`` (the model flags are shared with ``run`` and the TUI)."""
    parser.add_argument("--yes", "-y", action="store_true", help="write the draft after showing its diff, without asking")


class InitApprover:
    """Shows the draft's diff and decides: yes with --yes or a 'y' typed at the terminal, else no."""

    def __init__(self, target: Path, root: Path, yes: bool, stdin: TextIO, out: TextIO) -> None:
        self.target, self.root, self.yes, self.stdin, self.out = target.resolve(), root, yes, stdin, out
        self.written = False
        """The user (or --yes) accepted a write of the target."""

    async def __call__(self, req: ApprovalRequested) -> str:
        from agent_tui.agent.init_agents import written_path

        if req.kind != "write" or written_path(req.path, self.root) != self.target:
            print(f"\n[init] refused {req.name}: agent-tui init only writes {self.target.name}", file=self.out)
            return f"deny:agent-tui init only writes {self.target.name}; read with the read-only tools"
        print(f"\n{req.preview}\n", file=self.out, flush=True)
        if not self.yes:
            if not self.stdin.isatty():
                print(f"[init] {self.target.name} not written: pass --yes to accept the diff above "
                      "(no terminal to ask)", file=self.out)
                return "deny:the user did not accept the draft"
            answer = await asyncio.to_thread(_ask, f"Write {self.target.name}? [y/N] ", self.stdin, self.out)
            if answer.strip().lower() not in ("y", "yes"):
                print(f"[init] {self.target.name} not written", file=self.out)
                return "deny:the user declined the draft"
        self.written = True
        return "once"


def _ask(question: str, stdin: TextIO, out: TextIO) -> str:
    out.write(question)
    out.flush()
    return stdin.readline()


async def _init(args: argparse.Namespace, workspace: Path) -> int:
    from agent_tui.agent.events import ApprovalRequested
    from agent_tui.agent.headless import prepare, print_event, session_options
    from agent_tui.agent.init_agents import init_task
    from agent_tui.agent.session import build_agent

    opts = session_options(argparse.Namespace(**{**vars(args), "yes": False, "demo": False}), interactive=True)
    target, task = init_task(workspace.resolve())
    before = _text(target)
    approver = InitApprover(target, workspace.resolve(), bool(args.yes), sys.stdin, sys.stdout)
    agent, ws = build_agent(workspace, opts, approver)
    try:
        code = await prepare(agent, ws, opts, False)
        if code is not None:
            return code
        async for e in agent.run(task):
            if not isinstance(e, ApprovalRequested):
                print_event(e, False, sys.stdout)
    finally:
        ws.close()
    if approver.written and _text(target) not in (before, None):
        print(f"[init] wrote {target}")
        return 0
    print(f"[init] {target.name} was not changed", file=sys.stderr)
    return 1


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def run_init(args: argparse.Namespace, workspace: Path) -> int:
    """Draft AGENTS.md for ``workspace``; the exit code."""
    if getattr(args, "demo", False):
        print("agent-tui init: the offline demo has no scripted AGENTS.md draft; init needs a model "
              "(--model, e.g. openai/gpt-4o). `agent-tui --demo` shows the demo.", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_init(args, workspace))
    except KeyboardInterrupt:
        return 130
