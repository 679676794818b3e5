"""How the ``agent-tui`` strategy shapes a recorded tool output: the product's own shapers.

A recorded output is shaped the way agent-tui's tools would have shown it:
command output (``bash``/``Bash``) through ``run_command``'s excerpt (first
40 and last 80 lines plus error lines from the middle, within its token cap),
then every result through the registry's cap with
:func:`agent_tui.tools.shaping.shape_result` (cap per tool: the read tool's
for ``Read``, the shell tool's for commands, the default otherwise).  The
whole output stays in a result store behind a handle, as in the product.
"""

from __future__ import annotations

from agent_tui.core.results import MemoryResultStore, ResultStore
from agent_tui.core.tokens import counter_for
from agent_tui.tools.base import DEFAULT_MAX_RESULT_TOKENS
from agent_tui.tools.fs_read import READ_TOKEN_CAP
from agent_tui.tools.shaping import shape_result
from agent_tui.tools.shell import OUTPUT_TOKEN_CAP, shape_output

COMMAND_TOOLS = frozenset({"bash", "Bash", "run_command", "shell"})
READ_TOOLS = frozenset({"Read", "read_file"})


def result_cap(tool: str) -> int:
    """The token cap agent-tui applies to a result of ``tool``."""
    if tool in COMMAND_TOOLS:
        return OUTPUT_TOKEN_CAP
    if tool in READ_TOOLS:
        return READ_TOKEN_CAP
    return DEFAULT_MAX_RESULT_TOKENS


class ProductShaper:
    """Shapes tool outputs with the product's shapers, storing originals behind handles."""

    def __init__(self, model: str | None, store: ResultStore | None = None) -> None:
        self.model = model
        self.counter = counter_for(model)
        self.store: ResultStore = store if store is not None else MemoryResultStore()

    def shape(self, tool: str, text: str, intent: str = "") -> str:
        """What the model would see of ``text``, an output of ``tool`` (``intent``: the call's arguments)."""
        if tool in COMMAND_TOOLS:
            text, _ = shape_output(text, self.counter)
        return shape_result(text, max_tokens=result_cap(tool), store=self.store, intent=intent[:300],
                            label=tool, model=self.model).text
