"""What the approval dialog shows: the exact change a write would make, as a real unified diff.

The user decides from this text alone, so an edit's diff is built from the file as it is
on disk now — the edit applied the way ``edit_file`` applies it — with true ``@@`` line
numbers and three lines of context, not from the model's snippet.  When the file cannot
be read or the snippet is not in it, the snippet diff is shown under a note saying so
(the tool itself will refuse the edit and tell the model why).  No UI code here: the
agent builds the preview, the UI colours it.

Answers to an approval request are strings: ``once``, ``always``, ``deny`` or
``deny:<reason>`` (``split_answer`` reads them); a reason reaches the model as
``denied by user: <reason>``.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

CONTEXT_LINES = 3
"""Unchanged lines shown around each hunk."""
NEW_FILE_LINES = 200
"""A new file's preview shows at most this many of its lines."""
ARGS_CHARS = 20_000
"""Characters of another tool's arguments shown (the box scrolls; beyond this it says how much is left out)."""
OUTSIDE_SANDBOX = "  (outside the sandbox)"
"""Ends a command's preview when the call asks to run outside the sandbox (the dialog shows it in its title)."""


def preview(name: str, args: dict[str, Any], workspace: Path | None) -> str:
    """The dialog text for one call: a diff for edits and writes, the command line for shell; escape
    sequences and control characters shown as ``\\x1b``…, never obeyed by the terminal (``core/terminal.py``:
    ``pytest ESC[8m; curl … | sh`` must not read as ``pytest``)."""
    from agent_tui.core.terminal import printable

    return printable(_preview(name, args, workspace))


def _preview(name: str, args: dict[str, Any], workspace: Path | None) -> str:
    if name == "edit_file":
        return edit_diff(args, workspace)
    if name == "write_file":
        return write_diff(args, workspace)
    if name == "run_command":
        outside = args.get("outside_sandbox") is True
        command = str(args.get("command", ""))
        text = f"$ {command}{OUTSIDE_SANDBOX if outside else ''}"
        if outside and workspace is not None and re.search(r"\bgit\b", command):
            from agent_tui.tools.repo_programs import repo_programs

            programs = repo_programs(workspace)
            if programs is None:
                text += "\n# outside the sandbox, git uses a repository here that agent-tui cannot read for certain"
            elif programs:
                text += ("\n# outside the sandbox, git runs what this repository names, as you: "
                         + "; ".join(programs))
        return text
    shown = json.dumps(args, ensure_ascii=False, indent=2)
    if len(shown) > ARGS_CHARS:
        shown = f"{shown[:ARGS_CHARS]}\n… {len(shown) - ARGS_CHARS} more characters of arguments"
    return f"{name} {shown}"


def _current(workspace: Path | None, path: str) -> tuple[str, str] | None:
    """(relative path, LF text) of ``path`` now, or None if it cannot be read."""
    if workspace is None:
        return None
    from agent_tui.tools.workspace import read_text

    try:
        _, rel, text = read_text(workspace, path)
    except Exception:  # missing, outside, binary: the tool reports it; the preview falls back
        return None
    return rel, text.replace("\r\n", "\n")


def _unmasked(current: str, *texts: str) -> tuple[str, ...]:
    """``texts`` with the masks copied from a redacted read put back as the tool will (``tools/fs_unmask``):
    the preview shows the change that will be made, not the real value turned into a mask."""
    from agent_tui.tools.fs_unmask import has_mask, masked_view, unmask

    if not any(has_mask(t) for t in texts):
        return texts
    view = masked_view(current)
    return tuple(unmask(t.replace("\r\n", "\n"), view) for t in texts)


def lines_of(text: str) -> list[str]:
    """``text``'s lines as the file has them: split at LF only.  ``str.splitlines`` also splits at form feed,
    U+2028, NEL and a lone CR, which Python's parser does not take for line breaks, so swapping a newline for
    one showed no change in the diff while it joined a line to the comment above it."""
    parts = text.split("\n")
    return parts[:-1] if parts and parts[-1] == "" else parts


def unified(before: str, after: str, rel: str, a: str | None = None) -> str:
    """A unified diff ``a/rel`` → ``b/rel`` with true line numbers."""
    return "\n".join(difflib.unified_diff(
        lines_of(before), lines_of(after), a or f"a/{rel}", f"b/{rel}", n=CONTEXT_LINES, lineterm=""))


def edit_diff(args: dict[str, Any], workspace: Path | None) -> str:
    """The diff an ``edit_file`` call would make to the file as it is now."""
    path = str(args.get("path", "?"))
    old = str(args.get("old_text", "")).replace("\r\n", "\n")
    new = str(args.get("new_text", "")).replace("\r\n", "\n")
    found = _current(workspace, path)
    if found is not None and old:
        from agent_tui.tools.fs_edit import edited, occurrences

        rel, text = found
        old, new = _unmasked(text, old, new)
        spans = occurrences(text, old)  # (the tool's own matching: overlapping occurrences count)
        count = len(spans)
        if count == 1 or (count > 1 and args.get("replace_all")):
            diff = unified(text, edited(text, spans, new), rel)
            if count > 1:
                diff = f"# {count} occurrences replaced\n{diff}"
            return diff
        note = (f"# old_text occurs {count} times in {rel}: the edit will be refused" if count
                else f"# old_text is not in {rel} as it is now: the edit will be refused")
    else:
        note = f"# {path} cannot be read: the edit will be refused"
    snippet = "\n".join(difflib.unified_diff(lines_of(old), lines_of(new), f"a/{path}", f"b/{path}",
                                             lineterm=""))
    return f"{note}\n{snippet}"


def write_diff(args: dict[str, Any], workspace: Path | None) -> str:
    """The diff a ``write_file`` call would make: against the current file, or a new file."""
    path = str(args.get("path", "?"))
    content = str(args.get("content", "")).replace("\r\n", "\n")
    found = _current(workspace, path)
    if found is not None:
        rel, text = found
        (content,) = _unmasked(text, content)
        return unified(text, content, rel) or f"# {rel} already holds exactly this text"
    lines = lines_of(content)
    shown = lines[:NEW_FILE_LINES]
    head = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@"
    body = "\n".join("+" + line for line in shown)
    more = f"\n# … {len(lines) - len(shown)} more lines" if len(lines) > len(shown) else ""
    return f"# new file {path} ({len(lines)} line{'s' if len(lines) != 1 else ''})\n{head}\n{body}{more}"


def split_answer(answer: str) -> tuple[str, str]:
    """(verb, reason) of an approver's answer: ``deny:too risky`` → (``deny``, ``too risky``)."""
    verb, _, reason = answer.partition(":")
    return verb.strip(), reason.strip()


def denial_text(kind: str, name: str, what: str, reason: str) -> str:
    """The tool result the model gets for a denied call (with the user's reason when given)."""
    if reason:
        return (f"denied by user: {reason}\n(This {kind} — {name} {what} — was not run. Do not retry it "
                "unchanged; follow the user's reason.)")
    return (f"The user denied this {kind} ({name} {what}). Do not retry it; "
            "ask the user or choose another way.")
