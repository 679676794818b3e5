"""The history segment: the session's items in order, and which groups are in the window.

A long session has thousands of messages, most of them summarised long ago; the
assembler needs, every step, the groups still in the window, the trace entries of
the ones out of it and the pins carried out of their groups.  This index owns the
items and keeps that scan per group, redoing it only from the first group that
changed (new messages only touch the last group; a compaction event or a user
action marks the group it touched).
"""

from __future__ import annotations

from collections.abc import Callable

from agent_tui.core.assembler import TraceEntry
from agent_tui.core.items import ContextItem, State
from agent_tui.core.memory import Group, HistoryGroups


class HistoryIndex:
    """The session's items (messages and the non-message items: rules, memos, summaries) in order."""

    def __init__(self) -> None:
        self.items: dict[str, ContextItem] = {}
        """Every item by id (active files, tool definitions and the system prompt live elsewhere)."""
        self.order: list[str] = []
        """Item ids in creation order (only grows)."""
        self.version = 0
        """Bumped by every change of state: the window scan is stale."""
        self.reset()

    def reset(self) -> None:
        """Forget the incremental scan (after items were replaced by a load or another process)."""
        self.version += 1
        self._cache_key: tuple[int, int] | None = None
        self._scan_from = 0
        self._scan_acc: tuple[list[Group], list[ContextItem], list[TraceEntry]] = ([], [], [])
        self._scan_marks: list[tuple[int, int, int]] = []
        self._hist: list[ContextItem] = []
        self._blocks: list[ContextItem] = []
        self._seen = 0
        self._groups = HistoryGroups()
        self._costs: dict[int, tuple[int, int]] = {}

    def add(self, item: ContextItem) -> None:
        self.version += 1
        self.items[item.id] = item
        self.order.append(item.id)

    def touched(self, item: ContextItem) -> None:
        """``item`` changed state: rescan from its group."""
        self.version += 1
        g = self._groups.where.get(item.id)
        if g is not None:
            self._costs.pop(g, None)
            if g < self._scan_from:
                self._scan_from = g

    def messages(self) -> list[ContextItem]:
        """Message items in order (maintained incrementally: ``order`` only grows)."""
        for i in self.order[self._seen:]:
            it = self.items[i]
            (self._hist if it.role is not None else self._blocks).append(it)
        self._seen = len(self.order)
        return self._hist

    def blocks(self) -> list[ContextItem]:
        """Items that are not messages (rules, memos, summaries), in order."""
        self.messages()
        return self._blocks

    def group_cost(self, group: Group, cost: Callable[[Group], int]) -> int:
        """``cost(group)``, remembered until the group gains a message or one of its items changes
        state (``touched``): a request estimate sums every group in the window at every step."""
        index = self._groups.where.get(group.items[0].id)
        if index is None:
            return cost(group)
        hit = self._costs.get(index)
        if hit is not None and hit[0] == len(group.items):
            return hit[1]
        value = cost(group)
        self._costs[index] = (len(group.items), value)
        return value

    def window_groups(self) -> tuple[list[Group], list[TraceEntry], list[ContextItem]]:
        """History groups in the window, trace entries of the items out of it, and pins carried
        out of their groups (fresh lists; rescanned only from the first group that changed)."""
        key = (self.version, len(self.order))
        if self._cache_key != key:
            self._scan()
            self._cache_key = key
        groups, carried, trace = self._scan_acc
        return list(groups), list(trace), list(carried)

    def _scan(self) -> None:
        all_groups = self._groups.extend(self.messages())
        start = max(0, min(self._scan_from, len(self._scan_marks) - 1))  # the last group may have grown
        groups, carried, trace = self._scan_acc
        if start < len(self._scan_marks):
            n_groups, n_carried, n_trace = self._scan_marks[start]
            del groups[n_groups:], carried[n_carried:], trace[n_trace:], self._scan_marks[start:]
        into: dict[str | None, str] = {}
        for g in all_groups[start:]:
            self._scan_marks.append((len(groups), len(carried), len(trace)))
            head = g.items[0]
            if head.state in (State.IN, State.STALE) and not (head.role == "tool"):
                groups.append(g)
                continue
            for it in g.items:
                if it.pinned:
                    carried.append(it)
                    continue
                if it.state == State.SUMMARISED:
                    why = into.get(it.summarised_into)
                    if why is None:
                        why = into[it.summarised_into] = f"summarised into {it.summarised_into}"
                elif head.role == "tool" and it.state == State.IN:
                    why = "orphan tool result (its call is gone)"
                else:
                    why = str(it.state)
                trace.append(TraceEntry(it.id, False, why, it.tokens))
        self._scan_from = len(all_groups)
