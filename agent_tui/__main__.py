"""`python -m agent_tui` runs the same entry point as the `agent-tui` script.

``-m`` puts the current folder first on ``sys.path``: in a cloned repository its ``argparse.py``,
``json.py`` or ``sqlite3.py`` would be imported instead of the standard library's and run as the
user before any trust decision.  The folder is taken off the path before anything else is imported
(this package is already loaded; its modules are found through the package itself).
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from agent_tui.cli import main  # noqa: E402

raise SystemExit(main())
