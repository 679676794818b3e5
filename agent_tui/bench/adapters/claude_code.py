"""Adapter for Claude Code session transcripts (``*.jsonl``, Claude Code 2.x).

One JSON object per line.  What is sent to the model:

* ``user`` lines: a string (the user typed it), or blocks — ``tool_result``
  blocks become tool messages, ``text`` blocks a user message.  The line after
  a ``compact_boundary`` is the compaction summary (``isCompactSummary``).
* ``assistant`` lines: Claude Code writes one line per content block, all with
  the same ``message.id``; one id is one model call.  Blocks are merged into
  one assistant message.  ``thinking`` text is kept (Opus 4.5+ keeps earlier
  turns' thinking in context, and the recorded usage agrees better with it).
  ``usage`` input + cache creation + cache read is what the call cost.
* ``system`` lines with ``compactMetadata``: the client compacted;
  ``preTokens`` is the input of its summarising call.

Skipped: ``progress``, ``file-history-snapshot``, ``queue-operation``, other
``system`` lines, sidechain lines of a main transcript (a sub-agent's calls; a file that is
sidechain throughout is a sub-agent's own transcript and is read as its session), and
``<synthetic>`` assistant lines (the client wrote them, no model call).
File events come from ``Read``/``Write``/``Edit``/``MultiEdit`` and their
``toolUseResult`` (which holds the file text and, for edits, the original file).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_tui.bench.adapters.blocks import text_of
from agent_tui.bench.adapters.shell_files import shell_file_events
from agent_tui.bench.bashedits import parse_edits
from agent_tui.bench.trace import (
    COMPACT_SUMMARY,
    Compaction,
    Edit,
    FileEvent,
    Message,
    ModelCall,
    Session,
    ToolCall,
)

WINDOW = 200_000
_NUMBERED = re.compile(r"^\s*(\d+)→(.*)$", re.M)
INTERRUPTED = "[Request interrupted by user"
"""The line Claude Code writes when the user stops a turn: not a request of the user's (the task goes on)."""
READ_DEFAULT_LINES = 2000
"""Lines Claude Code's Read tool shows when no limit is given."""


class ClaudeCodeAdapter:
    """Reads Claude Code ``.jsonl`` transcripts."""

    name = "claude-code"

    def detect(self, path: Path) -> bool:
        if path.suffix != ".jsonl":
            return False
        try:
            with path.open("r", encoding="utf-8", errors="replace") as fh:
                head = fh.read(8192)
        except OSError:
            return False
        return '"sessionId"' in head or '"parentUuid"' in head or '"type"' in head

    def load(self, path: Path) -> Session:
        session = Session(id=path.stem, source=self.name, model="", default_window=WINDOW, path=str(path))
        b = _Builder(session)
        try:
            fh = path.open("r", encoding="utf-8", errors="replace")
        except OSError:
            session.malformed += 1
            return session
        rows: list[dict[str, Any]] = []
        with fh:
            for line in fh:
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    row = None
                if isinstance(row, dict):
                    rows.append(row)
                else:
                    session.malformed += 1
        # A sub-agent's own transcript (``subagents/agent-*.jsonl``) is sidechain from end to end: it
        # is that agent's session.  In a main transcript, sidechain lines are another agent's calls.
        b.keep_sidechain = not any(r.get("type") in ("user", "assistant") and not r.get("isSidechain")
                                   for r in rows)
        for row in rows:
            try:
                b.row(row)
            except (ValueError, TypeError, KeyError, AttributeError):
                session.malformed += 1
        return session


class _Builder:
    def __init__(self, session: Session) -> None:
        self.s = session
        self.current_id: str | None = None
        self.current: Message | None = None
        self.uses: dict[str, tuple[str, dict[str, Any], int]] = {}
        """tool_use id -> (name, input, call index)."""
        self.pending_compaction: int | None = None
        self.keep_sidechain = False
        self.cwd = "/"
        """The session's working folder (its lines' ``cwd``): where a shell command's relative paths lead."""
        """The file is a sub-agent's own transcript: its sidechain lines are the session."""

    def row(self, r: dict[str, Any]) -> None:
        kind = r.get("type")
        if r.get("isSidechain") and not self.keep_sidechain:
            return
        if isinstance(r.get("cwd"), str) and r["cwd"].startswith("/"):
            self.cwd = r["cwd"]
        if kind == "system":
            meta = r.get("compactMetadata")
            if isinstance(meta, dict):
                self.pending_compaction = int(meta.get("preTokens") or 0)
            return
        if kind == "assistant":
            self._assistant(r["message"])
        elif kind == "user":
            self._user(r)

    def _assistant(self, msg: dict[str, Any]) -> None:
        if msg.get("model") == "<synthetic>":
            return
        mid = str(msg.get("id") or "")
        if mid != self.current_id or self.current is None:
            usage = msg.get("usage") or {}
            keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            recorded = sum(int(usage.get(k) or 0) for k in keys) if usage else None
            self.s.calls.append(ModelCall(len(self.s.messages), recorded))
            self.current_id = mid
            self.current = Message("assistant", "")
            self.s.messages.append(self.current)
            if not self.s.model:
                self.s.model = str(msg.get("model") or "")
        k = len(self.s.calls) - 1
        for block in msg.get("content") or []:
            t = block.get("type")
            if t in ("text", "thinking"):
                text = str(block.get("text") or block.get("thinking") or "")
                if text.strip():
                    self.current.content = f"{self.current.content}\n\n{text}" if self.current.content else text
            elif t == "tool_use":
                inp = block.get("input") if isinstance(block.get("input"), dict) else {}
                call = ToolCall(str(block.get("id") or ""), str(block.get("name") or ""), json.dumps(inp))
                self.current.tool_calls = (*self.current.tool_calls, call)
                self.uses[call.id] = (call.name, inp, k)
                for path, old in _edits_of(call.name, inp, self.cwd):
                    self.s.edits.append(Edit(k, path, old))

    def _user(self, r: dict[str, Any]) -> None:
        content = r["message"]["content"]
        if isinstance(content, str):
            self._append_user(content, r)
            return
        texts: list[dict[str, Any]] = []
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in content:
            if block.get("type") == "tool_result":
                self._tool_result(block, self._result_of(block, r.get("toolUseResult"), len(results)))
            else:
                texts.append(block)
        if texts:
            self._append_user(text_of(texts), r)

    def _result_of(self, block: dict[str, Any], result: Any, blocks: int) -> Any:
        """The line's ``toolUseResult`` if it belongs to ``block``: a line answering several calls carries one, so
        it is taken only for the call whose file it names (two parallel Reads both got the first file's text)."""
        if blocks <= 1 or not isinstance(result, dict):
            return result
        _, inp, _ = self.uses.get(str(block.get("tool_use_id") or ""), ("", {}, -1))
        path = inp.get("file_path") if isinstance(inp, dict) else None
        file = result.get("file") if isinstance(result.get("file"), dict) else {}
        named = result.get("filePath") or file.get("filePath")
        return result if path and named == path else None

    def _append_user(self, text: str, r: dict[str, Any]) -> None:
        self.current_id, self.current = None, None
        kind = COMPACT_SUMMARY if r.get("isCompactSummary") else ""
        if self.pending_compaction is not None:
            self.s.compactions.append(Compaction(len(self.s.messages), self.pending_compaction))
            self.pending_compaction = None
            kind = COMPACT_SUMMARY
        framework = bool(r.get("isMeta")) or text.lstrip().startswith(INTERRUPTED)
        self.s.messages.append(Message("user", text, kind=kind, continues=True if framework else None))

    def _tool_result(self, block: dict[str, Any], result: Any) -> None:
        use_id = str(block.get("tool_use_id") or "")
        name, inp, _ = self.uses.get(use_id, ("", {}, -1))
        at = len(self.s.messages)
        self.s.messages.append(Message("tool", text_of(block.get("content")), tool_call_id=use_id, name=name))
        if block.get("is_error") or not isinstance(inp, dict):
            return
        if name == "Bash" and isinstance(inp.get("command"), str):
            self.s.file_events += shell_file_events(inp["command"], self.cwd, at)
            return
        path = str(inp.get("file_path") or "")
        res = result if isinstance(result, dict) else {}
        if name == "Read" and path:
            f = res.get("file") if isinstance(res.get("file"), dict) else None
            if f is not None:
                start, n, total = int(f.get("startLine") or 1), int(f.get("numLines") or 0), f.get("totalLines")
                whole = start == 1 and total is not None and n >= int(total)
                self.s.file_events.append(FileEvent(at, path, "read", str(f.get("content") or ""), start, whole))
            else:  # no toolUseResult (a sub-agent's transcript): the numbered lines of the output
                read = _numbered_read(self.s.messages[at].content, inp)
                if read is not None:
                    self.s.file_events.append(FileEvent(at, path, "read", read[0], read[1], read[2]))
        elif name == "Write" and path:
            self.s.file_events.append(FileEvent(at, path, "write", str(inp.get("content") or ""), whole=True))
        elif name in ("Edit", "MultiEdit") and path:
            # The file's whole text after the edit (Claude Code records the text before it) rides on
            # the last replacement: the product's edit tool knows the file it wrote, but the model was
            # shown only its own replacement — this is not a Write whose arguments hold the text.
            original = res.get("originalFile")
            after = original if isinstance(original, str) else None
            replacements = _replacements(name, inp)
            for old, new, every in replacements:
                if after is not None:
                    after = after.replace(old, new) if every else after.replace(old, new, 1)
            for k, (old, new, _) in enumerate(replacements):
                last = k == len(replacements) - 1
                self.s.file_events.append(FileEvent(at, path, "edit", old=old, new=new,
                                                    full_after=after if last else None))


def _numbered_read(output: str, inp: dict[str, Any]) -> tuple[str, int, bool] | None:
    """(text, first line, whole) of a Read output's ``   N→line`` lines — not the reminders Claude
    Code appends after them; whole when no offset or limit was asked and the file ended before the
    Read tool's default 2,000 lines.  None when no line is numbered."""
    found = [(int(m.group(1)), m.group(2)) for m in _NUMBERED.finditer(output)]
    if not found:
        return None
    start = found[0][0]
    whole = start == 1 and not inp.get("offset") and not inp.get("limit") and len(found) < READ_DEFAULT_LINES
    return "\n".join(line for _, line in found) + "\n", start, whole


def _replacements(name: str, inp: dict[str, Any]) -> list[tuple[str, str, bool]]:
    items = inp.get("edits") if name == "MultiEdit" else [inp]
    out: list[tuple[str, str, bool]] = []
    for e in items or []:
        if isinstance(e, dict) and isinstance(e.get("old_string"), str) and e["old_string"]:
            out.append((e["old_string"], str(e.get("new_string") or ""), bool(e.get("replace_all"))))
    return out


def _edits_of(name: str, inp: dict[str, Any], cwd: str) -> list[tuple[str, str]]:
    if name == "Bash" and isinstance(inp.get("command"), str):
        return [(op.path, op.old) for op in parse_edits(inp["command"], cwd) if op.path]
    if name not in ("Edit", "MultiEdit"):
        return []
    path = str(inp.get("file_path") or "")
    return [(path, old) for old, _, _ in _replacements(name, inp)] if path else []
