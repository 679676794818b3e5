"""`agent-tui trust [--yes | --forget]`: see what a workspace's own config asks for, and decide.

Without a flag it lists the asks and whether they are trusted (exit 0 when trusted or
nothing is asked, 1 when a decision is pending); ``--yes`` trusts the folder for exactly
these asks; ``--forget`` drops the folder from the trusted list.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.core.trust import TrustReport
    from agent_tui.core.trust_store import TrustStore


def add_trust_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trust``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--yes", "-y", action="store_true", help="trust this folder for what it asks now")
    group.add_argument("--forget", action="store_true", help="stop trusting this folder")


def run_trust(args: argparse.Namespace, workspace: Path) -> int:
    """Show, record or forget the trust decision for ``workspace``."""
    from agent_tui.core.config import load_config
    from agent_tui.core.terminal import printable
    from agent_tui.core.trust_store import TrustStore
    from agent_tui.store.trust_grant import forget

    store = TrustStore()
    if args.forget:
        gone = forget(workspace, store)
        print(f"{workspace}: {'no longer trusted' if gone else 'was not trusted'}")
        return 0
    report = load_config(workspace).trust
    for problem in report.problems:
        print(f"problem: {printable(problem, newlines=False)}", file=sys.stderr)
    if not report.asks:
        print(f"{workspace}: its config asks for nothing that needs trust")
        if args.yes:  # still the user's word on the folder (an old in-workspace input history waits for it)
            return _granted(report, store)
        return 0
    state = "trusted" if report.trusted else ("changed since you trusted it" if report.changed else "not trusted")
    print(f"{workspace}: {state}; it asks for:")
    for ask in report.asks:
        print(f"  {printable(ask.source, newlines=False)}: {ask.line()}")
    if args.yes:
        return _granted(report, store)
    if not report.trusted:
        print("run `agent-tui trust --yes` to trust it, or `agent-tui run --trust …` for a run")
        return 1
    return 0


def _granted(report: TrustReport, store: TrustStore) -> int:
    """Trust the folder for what ``report`` lists (adopting the store it ships); the exit code."""
    from agent_tui.store.trust_grant import grant

    fp, problem = grant(report, store)
    if problem:
        print(f"agent-tui: not trusted: {problem}", file=sys.stderr)
        return 1
    print(f"trusted (remembered in {store.path})")
    if report.foreign_store and fp != report.fingerprint:
        print(f"{report.foreign_store} is now your own store: a pull or checkout that replaces it is asked about again")
    return 0
