"""yarn runs the JavaScript a repository's rc file names, for every command.

Yarn 2+ reads ``yarnPath`` from ``.yarnrc.yml`` and runs that file (a release the project checks in, or any
script) in place of itself; its ``plugins`` load more of the project's JavaScript.  Yarn 1 does the same with
``yarn-path`` in ``.yarnrc``.  So on the host, ``yarn --version`` or ``yarn list`` under an allow rule ran the
repository's code as the user; such a line is asked, the reason naming the file and the setting.  Inside the
sandbox it stays allowed (``command_rules_toolcfg``).
"""

from __future__ import annotations

import re

from agent_tui.agent.command_rules_toolcfg_files import Unsure, Where, text

RC_FILES = (".yarnrc.yml", ".yarnrc")
"""Where yarn reads its settings, in each folder from the workspace root down to the working folder."""
_LOADS = re.compile(r"""^\s*["']?(yarnPath|yarn-path|plugins)["']?\s*(?::|=|\s)""", re.MULTILINE)
"""A setting that makes yarn run or load a file of the project's."""


def yarn_blockers(where: Where) -> list[str]:
    """Why a host-run ``yarn`` line may not be auto-approved (empty when no rc file names code to run)."""
    why: list[str] = []
    for folder in where.chain():
        for name in RC_FILES:
            path = folder / name
            try:
                body = text(where.root, path)
            except Unsure as exc:
                why.append(f"outside the sandbox, yarn reads {where.rel(path)}, and {exc}: agent-tui cannot tell "
                           "whether it runs the repository's code")
                continue
            found = _LOADS.search(body) if body else None
            if found is not None:
                why.append(f"outside the sandbox, yarn runs the JavaScript {where.rel(path)} names "
                           f"({found.group(1)}), as you")
    return why
