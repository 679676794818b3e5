"""`python -m agent_tui` runs the same entry point as the `agent-tui` script."""

from agent_tui.cli import main

raise SystemExit(main())
