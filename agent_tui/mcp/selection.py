"""Which tool definitions a task gets, chosen once and then kept stable.

Sending every tool of every server costs thousands of tokens per request, so a task
gets only the groups it needs: the tools its message names are *required*, the rest
of their groups *optional*, and optional ones are the first to go when the definition
budget runs short.  The loaded set only grows during a session (new tools are appended,
so the request prefix — and the provider's prompt cache — stays the same) and shrinks
only at compaction, to the tools that were actually used.  Whatever is not loaded is a
``find_tools`` / ``enable_tools`` away, so no tool becomes unreachable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from agent_tui.core.tool_names import spellings
from agent_tui.mcp.catalog import ToolEntry, words

#: Points for a query word found in a tool's name, its server/group name, its description.
NAME_POINTS, GROUP_POINTS, DESC_POINTS = 3, 2, 1
#: A tool scoring this much is required by the task.
REQUIRED_SCORE = 3
#: At most this many tools are required by one message (the best-scoring ones).
MAX_REQUIRED = 5
_PATH_RE = re.compile(r"\S*[/\\]\S*|\b[\w-]+\.[A-Za-z0-9]{1,5}\b")


def points(
    query: set[str], entry: ToolEntry, group_words: frozenset[str] = frozenset()
) -> tuple[int, int]:
    """(name hits, score) of ``entry`` for the query words; server words in its name do not count."""
    name_words = entry.name_words - group_words
    hits = total = 0
    for word in query:
        if word in name_words:
            hits += 1
            total += NAME_POINTS
        elif word in entry.desc_words:
            total += DESC_POINTS
    return hits, total


def score(query: set[str], entry: ToolEntry, group_words: frozenset[str] = frozenset()) -> int:
    """How well ``entry`` matches the query words."""
    return points(query, entry, group_words)[1]


def task_words(message: str) -> set[str]:
    """The words of a user message that can name a tool (paths and file names removed)."""
    return set(words(_PATH_RE.sub(" ", message)))


def build_groups(
    entries: Iterable[ToolEntry], configured: dict[str, tuple[str, ...]]
) -> dict[str, list[str]]:
    """Tool groups: one per server plus the configured ones (globs over namespaced names)."""
    groups: dict[str, list[str]] = {}
    all_entries = list(entries)
    for entry in all_entries:
        groups.setdefault(entry.server, []).append(entry.qualified)
    for name, patterns in configured.items():
        members = [
            e.qualified for e in all_entries
            if any(fnmatchcase(n, p) for n in spellings(e.qualified) for p in patterns)
        ]
        groups[name] = members
    return groups


def resolve(
    names: Iterable[str], entries: dict[str, ToolEntry], groups: dict[str, list[str]]
) -> tuple[list[str], list[str]]:
    """Tool names for names given as tool, bare tool (if unique), group or glob; and the unknown ones."""
    found: list[str] = []
    unknown: list[str] = []
    for raw in names:
        name = str(raw).strip()
        if name in entries:
            hits = [name]
        elif name in groups:
            hits = list(groups[name])
        elif any(ch in name for ch in "*?["):
            hits = [q for q in entries if any(fnmatchcase(n, name) for n in spellings(q))]
        else:
            hits = [q for q, e in entries.items() if e.name == name or q.endswith(name)]
            hits = hits if len(hits) == 1 else []
        if hits:
            found.extend(h for h in hits if h not in found)
        else:
            unknown.append(name)
    return found, unknown


@dataclass(frozen=True)
class Selection:
    """What ``select`` did for one message."""

    groups: tuple[str, ...]
    required: tuple[str, ...]
    optional: tuple[str, ...]
    added: tuple[str, ...]
    skipped: tuple[str, ...]
    """Optional tools left out because of the budget."""
    loaded_tokens: int


class ToolSet:
    """The loaded tools, in load order, with why each was loaded."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.loaded: dict[str, str] = {}
        self.used: set[str] = set()

    def tokens(self, entries: dict[str, ToolEntry]) -> int:
        return sum(entries[q].tokens_shaped for q in self.loaded if q in entries)

    def add(self, names: Iterable[str], reason: str) -> list[str]:
        """Append ``names`` not loaded yet; returns the ones added."""
        added = [n for n in dict.fromkeys(names) if n not in self.loaded]
        for name in added:
            self.loaded[name] = reason
        return added

    def forget_missing(self, entries: dict[str, ToolEntry]) -> None:
        """Drop tools whose server no longer lists them."""
        for name in [n for n in self.loaded if n not in entries]:
            del self.loaded[name]

    def compact(self, keep: Iterable[str] = ()) -> list[str]:
        """Shrink to the tools used since the last compaction (plus ``keep``); returns the dropped."""
        keep_set = set(keep) | self.used | {n for n, r in self.loaded.items() if r == "always"}
        dropped = [n for n in self.loaded if n not in keep_set]
        for name in dropped:
            del self.loaded[name]
        self.used.clear()
        return dropped

    def select(
        self, message: str, entries: dict[str, ToolEntry], groups: dict[str, list[str]]
    ) -> Selection:
        """Load what ``message`` needs: matching tools (required), the rest of their groups (optional)."""
        query = task_words(message)
        group_words = {g: frozenset(words(g)) for g in groups}
        server_words: dict[str, frozenset[str]] = {}
        ranks: dict[str, int] = {}
        scored = []
        for q, entry in entries.items():
            if entry.deprecated:
                ranks[q] = -1
                continue
            hits, total = points(
                query, entry, server_words.setdefault(entry.server, frozenset(words(entry.server)))
            )
            ranks[q] = total
            if hits and total >= REQUIRED_SCORE:
                scored.append((total, q))
        scored.sort(key=lambda item: (-item[0], item[1]))
        required = [q for _, q in scored[:MAX_REQUIRED]]
        named = [g for g in groups if group_words[g] and group_words[g] <= query]
        touched = [
            g for g, members in groups.items() if g not in named and set(members) & set(required)
        ]
        # A group named in the message offers all its tools; a group reached through a
        # required tool offers only its other tools that match the message at all.
        pool = [m for g in named for m in groups[g] if ranks[m] >= 0]
        pool += [m for g in touched for m in groups[g] if ranks[m] > 0]
        required_set = set(required)
        optional_pool = [m for m in dict.fromkeys(pool) if m not in required_set]
        optional_pool.sort(key=lambda q: (-ranks[q], entries[q].tokens_shaped))
        chosen = named + touched
        added = self.add(required, "task")
        total = self.tokens(entries)
        optional: list[str] = []
        skipped: list[str] = []
        for name in optional_pool:
            if name in self.loaded:
                continue
            cost = entries[name].tokens_shaped
            if total + cost <= self.budget:
                optional.append(name)
                total += cost
            else:
                skipped.append(name)
        added += self.add(optional, "optional")
        return Selection(
            groups=tuple(chosen),
            required=tuple(required),
            optional=tuple(optional),
            added=tuple(added),
            skipped=tuple(skipped),
            loaded_tokens=self.tokens(entries),
        )
