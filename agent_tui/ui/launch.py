"""`agent-tui` (no subcommand): open the TUI.

Decides between a real model and the offline demo from the flags and the
config files only (a TOML read, no agent imports), builds the app and runs it.
Without a configured model the TUI still opens — in the demo, on the user's
copy of the sample project (``demo_project``), with a banner saying how to
configure a model.

``AGENT_TUI_FIRST_FRAME_PROBE=FILE`` makes the app write its start-up facts
(when the first frame was painted, whether litellm was loaded) to FILE and
exit: the start-up benchmark and the lazy-import test use it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agent_tui.ui.options import SessionSpec, UiOptions

PROBE_ENV = "AGENT_TUI_FIRST_FRAME_PROBE"


def options_from_args(args: argparse.Namespace, workspace: Path) -> UiOptions:
    """UiOptions for the parsed command line."""
    from agent_tui.core.config import load_config

    demo = bool(getattr(args, "demo", False))
    model = getattr(args, "model", None)
    reason: str | None = "flag" if demo else None
    if not demo and not model and not load_config(workspace, trust=True).settings.model:
        reason = "no-model"  # (a model the workspace asks for counts: the trust dialog decides on it)
    if reason is not None:
        from agent_tui.demo_project import IN_USE_NOTE, make_demo_workspace, running_elsewhere

        chosen = demo and getattr(args, "workspace", None) is not None
        workspace = make_demo_workspace(workspace if chosen else None)
        note = IN_USE_NOTE if running_elsewhere(workspace) else ""
    else:
        note = ""
    trust: bool | None = None
    if getattr(args, "trust", False) and reason is None:
        from agent_tui.store.trust_grant import grant

        report = load_config(workspace, trust=True).trust
        if report.asks and (problem := grant(report)[1]):
            print(f"agent-tui: trusted for this run only: {problem}", file=sys.stderr)
        trust = True
    spec = SessionSpec(model=None if reason else model, api_base=getattr(args, "api_base", None),
                       window=getattr(args, "window", None), session=getattr(args, "session", None),
                       demo=reason is not None, trust=trust, max_steps=getattr(args, "max_steps", None),
                       max_cost=getattr(args, "max_cost", None), max_session_cost=getattr(args, "max_session_cost", None))
    return UiOptions(workspace=workspace, session=spec, demo_reason=reason, demo_note=note, first_frame_probe=os.environ.get(PROBE_ENV) or None)


def run_tui(args: argparse.Namespace, workspace: Path) -> int:
    """Run the TUI until the user quits; the exit code."""
    from agent_tui.ui.app import make_app

    session = getattr(args, "session", None)
    if session and not getattr(args, "demo", False):
        from agent_tui.store.workspace import require_session

        require_session(workspace, session)  # one clear line and exit 2, before the screen is taken
    app = make_app(options_from_args(args, workspace))
    result = app.run()
    return int(result or 0)
