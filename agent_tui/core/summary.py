"""The rolling summary of evicted rounds, kept by role, and the extractive summariser.

A summary keeps conclusions, not exploration, in three role sections (DESIGN §2):

* user: instructions, constraints and preferences;
* agent: decisions and open todos;
* environment: errors and test/command results.

The agent's own shell commands that edit files in place or undo edits (``sed -i``, ``git
checkout``/``stash``/``apply``, ``cp``/``mv``/``rm``) are kept verbatim too: after a
compaction the model must still know exactly what it changed and how, to build on it or
undo it.  (Writes of whole files need no such entry: the file's text is carried itself.)

The extractive summariser copies sentences and lines verbatim (it never
infers), is deterministic, cannot fail on ordinary text, and is the fallback
when the LLM summariser fails.  On conflict the newer fact wins: an entry with
the same *key* (the command that produced a result, the file an edit touched)
supersedes the older one, which is kept as ``superseded`` for the record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.core.items import ContextItem
from agent_tui.core.parse import loads_json
from agent_tui.core.secret_gates import FOLD_CHARS

SECTIONS: tuple[str, ...] = ("instructions", "answers", "decisions", "todos", "errors", "results", "files",
                             "changes")
SECTION_TITLES = {
    "instructions": "User instructions, constraints and preferences",
    "answers": "Agent answers to the user (their start and headings; recall the id for the whole)",
    "decisions": "Agent decisions",
    "todos": "Open todos",
    "errors": "Errors seen",
    "results": "Command and test results",
    "files": "Files changed",
    "changes": "Commands that changed files",
}
#: Entries kept per section (newest win); the rest are dropped from the summary but stay in the store.
SECTION_LIMIT = {"instructions": 24, "answers": 4, "decisions": 20, "todos": 10, "errors": 10, "results": 10,
                 "files": 30, "changes": 12}
#: Characters of an answer's extract: its first line and its headings, copied.
ANSWER_CHARS = 300
#: Longest command kept whole in ``changes``; a longer one keeps its start and end.
CHANGE_CHARS = 400


@dataclass
class Entry:
    """One extracted fact."""

    text: str
    """The fact, copied verbatim (trimmed)."""
    source: str
    """The item id it came from."""
    key: str = ""
    """Conflict key: a newer entry with the same key supersedes this one."""
    uncertain: bool = False
    """Marked to-confirm (e.g. a question or a 'maybe')."""


@dataclass
class Summary:
    """A rolling summary: role sections of entries plus what it covers."""

    sections: dict[str, list[Entry]] = field(default_factory=lambda: {s: [] for s in SECTIONS})
    covers: list[str] = field(default_factory=list)
    """Ids of every item folded into this summary (over all compactions)."""
    superseded: list[Entry] = field(default_factory=list)
    """Older facts replaced by newer ones with the same key."""
    text_override: str | None = None
    """Free text from an LLM summariser (rendered instead of the sections)."""

    def merge(self, newer: Summary) -> Summary:
        """Fold ``newer`` into this summary; newer facts win on key conflicts."""
        covered = set(self.covers)  # (a session covers thousands of items: no list scans)
        out = Summary(covers=self.covers + [c for c in newer.covers if c not in covered])
        out.superseded = list(self.superseded) + list(newer.superseded)
        for s in SECTIONS:
            entries = list(self.sections.get(s, [])) + list(newer.sections.get(s, []))
            kept: list[Entry] = []
            seen_text: set[str] = set()
            kept_keys: set[str] = set()
            for e in reversed(entries):
                norm = " ".join(e.text.lower().split())
                if norm in seen_text:
                    continue
                if e.key and e.key in kept_keys:
                    out.superseded.append(e)
                    continue
                seen_text.add(norm)
                kept.append(e)
                kept_keys.add(e.key)
            kept.reverse()
            limit = SECTION_LIMIT.get(s, 20)
            out.sections[s] = kept[-limit:]
        out.text_override = newer.text_override  # an LLM's text belongs to the event that wrote it
        return out

    def render(self, limit: int | None = None, count: Callable[[str], int] | None = None) -> str:
        """The text sent to the model; within ``limit`` tokens (as ``count`` counts them) when both are
        given: the oldest entries of the fullest section go first, the user's instructions never (they
        stay in the store and ``recall`` finds them, as entries past ``SECTION_LIMIT`` do)."""
        if self.text_override:
            return self.text_override.strip()
        sections = {s: list(self.sections.get(s) or []) for s in SECTIONS}
        if limit is not None and count is not None:
            _trim(sections, limit, count)
        parts: list[str] = []
        for s in SECTIONS:
            if sections[s]:
                parts.append(f"{SECTION_TITLES[s]}:\n" + "\n".join(_line(e) for e in sections[s]))
        return "\n".join(parts)

    def render_since(self, covered: Collection[str]) -> str:
        """Only what items outside ``covered`` added (one event's segment of an append-only summary):
        their entries, each marked when it replaced an older fact with the same key."""
        replaced = {e.key for e in self.superseded if e.key and e.source in covered}
        parts: list[str] = []
        for s in SECTIONS:
            entries = [e for e in self.sections.get(s) or [] if e.source not in covered]
            if not entries:
                continue
            lines = [f"- {'(to confirm) ' if e.uncertain else ''}{e.text} [{e.source}]"
                     f"{' (replaces the earlier entry)' if e.key and e.key in replaced else ''}" for e in entries]
            parts.append(f"{SECTION_TITLES[s]}:\n" + "\n".join(lines))
        return "\n".join(parts)

    def decisions(self) -> list[Entry]:
        """Decision entries (they also go to the decision store)."""
        return list(self.sections.get("decisions") or [])

    def to_json(self) -> str:
        return json.dumps(
            {
                "sections": {s: [e.__dict__ for e in v] for s, v in self.sections.items()},
                "covers": self.covers,
                "superseded": [e.__dict__ for e in self.superseded],
                "text_override": self.text_override,
            }
        )

    @classmethod
    def from_json(cls, raw: str) -> Summary:
        d = loads_json(raw)
        out = cls(covers=list(d.get("covers") or []), text_override=d.get("text_override"))
        for s, v in (d.get("sections") or {}).items():
            out.sections[s] = [Entry(**e) for e in v]
        out.superseded = [Entry(**e) for e in d.get("superseded") or []]
        return out


#: Heading of the user's own words carried beside a model-written summary that left them out.
VERBATIM_TITLE = "User instructions (verbatim, as the user wrote them)"


def with_user_words(text: str, summary: Summary, sources: Collection[str] | None) -> str:
    """``text`` (a model-written summary) plus every user instruction of ``summary`` it does not already
    hold word for word: all of them (``sources`` None, a whole rewrite) or those from the items in
    ``sources`` (one segment).  A model may paraphrase, drop or invent; the user's words are the one
    thing a summary must never lose, so they are carried verbatim whatever the model wrote."""
    have = " ".join(text.lower().split())
    missing = [e for e in summary.sections.get("instructions") or []
               if (sources is None or e.source in sources) and " ".join(e.text.lower().split()) not in have]
    if not missing:
        return text
    lines = [f"- {'(to confirm) ' if e.uncertain else ''}{e.text} [{e.source}]" for e in missing]
    return f"{text.rstrip()}\n\n{VERBATIM_TITLE}:\n" + "\n".join(lines)


def _line(e: Entry) -> str:
    return f"- {'(to confirm) ' if e.uncertain else ''}{e.text} [{e.source}]"


def _trim(sections: dict[str, list[Entry]], limit: int, count: Callable[[str], int]) -> None:
    """Drop entries from ``sections`` (oldest first, from the section holding the most tokens) until the
    rendering fits ``limit``; user instructions are never dropped.  Each line is counted once."""
    sizes = {s: [count(_line(e)) + 1 for e in entries] for s, entries in sections.items()}
    total = sum(sum(v) for v in sizes.values()) + sum(count(SECTION_TITLES[s]) + 2 for s in SECTIONS if sections[s])
    while total > limit:
        candidates = [s for s in SECTIONS if s != "instructions" and sections[s]]
        if not candidates:
            return
        s = max(candidates, key=lambda name: sum(sizes[name]))
        sections[s].pop(0)
        total -= sizes[s].pop(0)
        if not sections[s]:
            total -= count(SECTION_TITLES[s]) + 2


class SummariserError(Exception):
    """A summariser could not produce a summary; the rounds stay verbatim."""


class Summariser(Protocol):
    """Turns evicted items into a Summary (extract only, never infer)."""

    name: str
    max_input_tokens: int | None
    """Largest chunk it accepts; None for unlimited (the engine chunks larger batches)."""

    def summarise(self, items: Sequence[ContextItem], previous: Summary | None) -> Summary:
        """Summarise ``items``; may raise SummariserError."""
        ...


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_INSTRUCTION = re.compile(
    r"\b(must|never|always|do not|don't|dont|should|shouldn't|please|only|avoid|prefer|make sure|ensure|"
    r"use|keep|need to|required?|instead|fix|add|remove|implement|change|rename|update|write|create)\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(i will|i'll|i decided|decided|decision|we will|we'll|going to|chose|choose|instead of|"
    r"the fix is|the cause is|root cause|the problem is|switch(ed)? to|plan:)\b",
    re.I,
)
_TODO = re.compile(r"\b(todo|next step|next,|remaining|still need|left to do|not yet|follow[- ]up)\b", re.I)
_UNCERTAIN = re.compile(r"\b(maybe|might|perhaps|not sure|unclear|probably|i think|possibly)\b|\?\s*$", re.I)
_ERROR = re.compile(r"(Traceback|\bError\b|(?<=\w)Error:|\bFAILED\b|\bassert|Exception:|\bfatal\b|\bpanic)", re.I)
_RESULT = re.compile(
    r"(\d+ (passed|failed|errors?)|\bOK\b|exit code \d+|\bexit(ed)? (with )?\d+|Ran \d+ tests?)", re.I
)


#: Cheap substring pre-checks: a line without any of these cannot match the regex after it.
_ERROR_WORDS = ("traceback", "error", "failed", "assert", "exception:", "fatal", "panic")
_RESULT_WORDS = ("passed", "failed", "error", "ok", "exit", "ran ")


#: Line boundaries of ``str.splitlines`` other than ``\n``.
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
#: Lowercase words one of which every match of ``_TODO`` or ``_DECISION`` holds (in any case): an
#: assistant message without any of them has no todo or decision sentence to look for.
_NOTE_WORDS = ("todo", "next step", "next,", "remaining", "still need", "left to do", "not yet", "follow",
               "i will", "i'll", "decided", "decision", "we will", "we'll", "going to", "chose", "choose",
               "instead of", "the fix is", "the cause is", "root cause", "the problem is", "switch", "plan:")


def may_hold_notes(text: str) -> bool:
    """False only when no sentence of ``text`` can match ``_TODO`` or ``_DECISION``: it holds none
    of ``_NOTE_WORDS`` once lowered, and no letter ``re.IGNORECASE`` folds to an ASCII one that
    lowering does not (``FOLD_CHARS``)."""
    low = text.lower()
    for w in _NOTE_WORDS:  # (substring tests: faster than one regex of the alternatives)
        if w in low:
            return True
    return any(c in text for c in FOLD_CHARS)


def lowered_lines(body: str) -> str | None:
    """``body`` lowered, when it lines up with ``body`` character for character (no character
    lowers to two, as ``İ`` does) and ``\n`` is its only line break; else None."""
    low = body.lower()
    if len(low) != len(body) or any(c in body for c in _OTHER_BREAKS):
        return None
    return low


def matching_lines(body: str, low: str | None, words: tuple[str, ...], regex: re.Pattern[str],
                   last: bool = False) -> list[str]:
    """The lines of ``body`` (as ``splitlines`` cuts them) whose lowercase holds one of ``words``
    and that ``regex`` matches, stripped, in order (``low``: ``lowered_lines(body)``; ``last``:
    only the last such line, found from the end).

    Most lines of a tool output hold none of the words: instead of lowering and testing every
    line, each word is found in the lowered body and only the lines it falls in are tried.  When
    ``low`` is None (the lowered body does not line up) every line is tested, as it always was."""
    if low is None:
        found = [ln.strip() for ln in body.splitlines() if any(w in ln.lower() for w in words) and regex.search(ln)]
        return found[-1:] if last else found
    lines: dict[int, int] = {}  # start -> end of each line holding a word
    for w in words:
        pos = low.find(w)
        while pos != -1:
            start = low.rfind("\n", 0, pos) + 1
            end = low.find("\n", pos)
            end = len(low) if end == -1 else end
            lines[start] = end
            pos = low.find(w, end + 1)
    out: list[str] = []
    for start in sorted(lines, reverse=last):
        line = body[start:lines[start]]
        if regex.search(line):
            out.append(line.strip())
            if last:
                break
    return out


def _sentences(text: str) -> list[str]:
    out = []
    for s in _SENT_SPLIT.split(text or ""):
        s = s.strip(" -*\t")
        if len(s) >= 8:
            out.append(s if len(s) <= 300 else s[:299] + "…")
    return out


#: The alternatives of the commands that may change files, each behind a word every match of it holds: a long
#: command (a heredoc of a whole file) was searched from every position for the one with no literal start.
_CHANGE_PARTS = (
    (("sed", "perl", "ruby"), re.compile(r"\b(sed|perl|ruby)\b[^|;&\n]{0,300}?[ \t](-[a-zA-Z]*i|--in-place)\b")),
    (("git",), re.compile(r"\bgit\s+(apply|am|checkout|restore|reset|stash|revert|mv|rm)\b")),
    (("mv", "cp", "rm"), re.compile(r"(^|[;&|(]\s*)(mv|cp|rm)\s")),
)
_CHANGES = re.compile("|".join(regex.pattern for _, regex in _CHANGE_PARTS))
"""The commands that may change files, as one regex (what ``changes_files`` answers)."""


def changes_files(command: str) -> bool:
    """``_CHANGES.search(command)`` is not None, found faster."""
    return any(any(w in command for w in words) and regex.search(command) is not None
               for words, regex in _CHANGE_PARTS)


def file_changing_commands(item: ContextItem) -> list[str]:
    """The shell commands of an assistant message's tool calls that may change files, verbatim.

    A heuristic for the summary, never for approval: it may keep a harmless command, and a
    command it misses is only left to the other sections."""
    out = []
    for call in item.tool_calls or []:
        cmd = _arguments(call).get("command")
        if isinstance(cmd, list):
            cmd = " ".join(str(c) for c in cmd)
        if isinstance(cmd, str) and cmd.strip() and changes_files(cmd):
            cmd = cmd.strip()
            if len(cmd) > CHANGE_CHARS:
                cmd = cmd[:CHANGE_CHARS * 2 // 3] + " … " + cmd[-CHANGE_CHARS // 3:]
            out.append(cmd)
    return out


def _command_of(item: ContextItem) -> str:
    cmd = item.provenance.get("command") or item.provenance.get("args") or ""
    if isinstance(cmd, dict):
        cmd = cmd.get("command") or cmd.get("path") or json.dumps(cmd, sort_keys=True)
    return f"{item.name or 'tool'}:{cmd}"[:200]


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    """A tool call's arguments as a dict (empty when they are not a JSON object)."""
    try:
        args = loads_json((call.get("function") or {}).get("arguments") or "{}")
    except (ValueError, TypeError, AttributeError):
        return {}
    return args if isinstance(args, dict) else {}


def file_changes(item: ContextItem) -> list[tuple[str, str]]:
    """(tool, path) of the edit_file / write_file calls an assistant message makes."""
    out = []
    for call in item.tool_calls or []:
        name = (call.get("function") or {}).get("name")
        if name in ("edit_file", "write_file"):
            out.append((str(name), str(_arguments(call).get("path", "?"))))
    return out


def answer_extract(text: str) -> str:
    """What an answer to the user leaves in the summary: all of it when short, else its first line and its
    markdown headings, copied, within :data:`ANSWER_CHARS` (the user's next message may refer to it; the
    whole answer stays in the store, found by its id)."""
    flat = " ".join(text.split())
    if len(flat) <= ANSWER_CHARS:
        return flat
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    heads = [ln.lstrip("#").strip() for ln in lines[1:] if ln.startswith("#")]
    out = " ".join(lines[0].split())[:ANSWER_CHARS // 2]
    for h in heads:
        if len(out) + len(h) + 3 > ANSWER_CHARS:
            out += " | …"
            break
        out += " | " + h
    return out


class ExtractiveSummariser:
    """Deterministic, copy-only summariser; the fallback that cannot fail on text."""

    name = "extractive"
    max_input_tokens: int | None = None

    def summarise(self, items: Sequence[ContextItem], previous: Summary | None) -> Summary:
        new = Summary(covers=[i.id for i in items])
        sec = new.sections
        for it in items:
            if it.role == "user":
                # the user's words are the one thing never filtered: keep each message (capped)
                text = " ".join(it.content.split())
                text = text if len(text) <= 600 else text[:599] + "…"
                if text:
                    sec["instructions"].append(Entry(text, it.id, uncertain=bool(_UNCERTAIN.search(text))))
            elif it.role == "assistant":
                if not it.tool_calls and (extract := answer_extract(it.content)):
                    sec["answers"].append(Entry(extract, it.id))
                for s in _sentences(it.content) if may_hold_notes(it.content) else ():
                    if not may_hold_notes(s):
                        continue
                    if _TODO.search(s):
                        sec["todos"].append(Entry(s, it.id, uncertain=bool(_UNCERTAIN.search(s))))
                    elif _DECISION.search(s):
                        sec["decisions"].append(Entry(s, it.id, uncertain=bool(_UNCERTAIN.search(s))))
                for tool, path in file_changes(it):
                    sec["files"].append(Entry(f"{tool} {path}", it.id, key=f"file:{path}"))
                for cmd in file_changing_commands(it):
                    sec["changes"].append(Entry(cmd, it.id))
            elif it.role == "tool":
                body = it.provenance.get("raw_preview") or it.content
                key = _command_of(it)
                low = lowered_lines(body)
                errs = matching_lines(body, low, _ERROR_WORDS, _ERROR)
                if errs:
                    text = " | ".join(dict.fromkeys(errs))[:300]
                    sec["errors"].append(Entry(f"{key}: {text}", it.id, key=f"err:{key}"))
                res = matching_lines(body, low, _RESULT_WORDS, _RESULT, last=True)
                if res:
                    sec["results"].append(Entry(f"{key}: {res[-1][:200]}", it.id, key=f"res:{key}"))
        return previous.merge(new) if previous is not None else Summary().merge(new)


def extract_decisions(items: Sequence[ContextItem]) -> list[Entry]:
    """Every decision sentence of the assistant messages in ``items`` (no section limit: a deep
    batch may hold more decisions than the summary keeps, and the decision store wants them all)."""
    out: list[Entry] = []
    for it in items:
        if it.role != "assistant" or not may_hold_notes(it.content):
            continue
        for s in _sentences(it.content):
            if may_hold_notes(s) and not _TODO.search(s) and _DECISION.search(s):
                out.append(Entry(s, it.id, uncertain=bool(_UNCERTAIN.search(s))))
    return out
