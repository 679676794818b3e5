"""What a shell command did to files, as file events: writes, in-place edits, reverts and copies read out of the
command line (:mod:`agent_tui.bench.bashops`, :mod:`agent_tui.bench.bashedits`).  Shared by the adapters, so a
file changed through a shell is seen alike whichever agent ran it (Claude Code's `Bash` changed files unseen: the
engine kept showing the text before the change).
"""

from __future__ import annotations

from agent_tui.bench.bashedits import parse_edits
from agent_tui.bench.bashops import parse_copies, parse_reverts, parse_write
from agent_tui.bench.trace import FileEvent


def shell_file_events(command: str, cwd: str, at: int) -> list[FileEvent]:
    """The file events of ``command`` run in ``cwd``, attached to message ``at`` (its output)."""
    events: list[FileEvent] = []
    if write := parse_write(command, cwd):
        events.append(FileEvent(at, write.path, "write", write.content, whole=True))
    for op in parse_edits(command, cwd):
        if op.path and op.literal:
            events.append(FileEvent(at, op.path, "edit", old=op.old, new=op.new))
    events += [FileEvent(at, path, "revert") for path in parse_reverts(command, cwd)]
    events += [FileEvent(at, dst, "copy", source=src) for src, dst in parse_copies(command, cwd)]
    return events
