"""Pinning by id, and what a pin of something that is not an item means.

`pin m99` for an id no item has is an error — it used to become a permanent project rule
whose text was "m99".  A rule is pinned from its text (quoted when it is one word that
looks like an id); `f:path` pins the file's current text as a protected active file that
stays across tasks until unpinned or evicted (released, with the reason in the trace).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.core.item_actions import EngineError
from agent_tui.core.items import ContextItem
from agent_tui.core.safe_files import FileTooLargeError, UnsafeFileError, read_regular

ID_LIKE = re.compile(r"^(?:[a-z]+\d+|(?:f|ins|tool):\S+)$")
"""What an item id looks like (m12, t3, rule2, memo1, f:src/app.py, ins:AGENTS.md, tool:read_file)."""
MAX_PIN_BYTES = 2_000_000
"""A file larger than this cannot be pinned whole (the model reads it by ranges)."""
QUOTES = ('"', "'", "“", "”", "«", "»")


def looks_like_id(text: str) -> bool:
    return bool(ID_LIKE.match(text.strip()))


def unquote(text: str) -> str | None:
    """The text inside matching quotes, or None when it is not quoted."""
    t = text.strip()
    if len(t) >= 2 and t[0] in QUOTES and t[-1] in QUOTES:
        return t[1:-1].strip()
    return None


def missing_message(target: str) -> str:
    return (f'no item {target}; to pin a new rule, quote the text: /pin "{target} …" in the TUI, '
            f'or agent-tui memory pin --rule "{target} …"')


def pin_target(engine: Any, target: str, add_rule: Callable[[str], ContextItem]) -> ContextItem:
    """Pin an existing item by id, a file by ``f:path``, or ``target`` as a new project rule.

    ``add_rule`` makes the rule (the CLI pins it workspace-wide through the store, the TUI
    through its engine).  A one-word target that looks like an id but names no item is an
    EngineError saying how to pin a rule instead."""
    quoted = unquote(target)
    if quoted is not None:
        if not quoted:
            raise EngineError("an empty rule cannot be pinned")
        return add_rule(quoted)
    t = target.strip()
    if not t:
        raise EngineError("an empty rule cannot be pinned: give the rule's text (or an item id)")
    if t.startswith("f:") or t in engine.items or _known(engine, t):
        return engine.pin(t)
    if looks_like_id(t):
        raise EngineError(missing_message(t))
    return add_rule(t)


def _known(engine: Any, item_id: str) -> bool:
    try:
        engine.get(item_id)
    except EngineError:
        return False
    return True


def read_for_pin(workspace: Path | None, path: str) -> str:
    """The current text of a workspace file, for pinning one that is not active yet.

    Stays inside the workspace (no ``..``, absolute paths or symlinks out), regular files only."""
    if workspace is None:
        raise EngineError(f"f:{path}: no workspace to read it from")
    root = workspace.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise EngineError(f"f:{path} is outside the workspace; only workspace files can be pinned")
    if target.is_dir():
        raise EngineError(f"f:{path} is a folder; pin the files in it one by one (f:{path.rstrip('/')}/NAME)")
    if not target.is_file():
        raise EngineError(f"no item f:{path}: there is no such file in the workspace")
    try:  # (as resolved above, following no link since: a folder swapped for a link out is refused)
        data = read_regular(target, f"f:{path}", MAX_PIN_BYTES, exact=True)
    except FileTooLargeError:
        raise EngineError(f"f:{path} is larger than {MAX_PIN_BYTES:,} bytes; too big to keep whole in the window") \
            from None
    except (UnsafeFileError, OSError) as exc:
        raise EngineError(f"f:{path} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
    if b"\0" in data[:8192]:
        raise EngineError(f"f:{path} is a binary file; it cannot be pinned")
    return data.decode("utf-8", "surrogateescape")
