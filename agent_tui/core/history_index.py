"""Which history groups are in the window, kept incrementally.

A long session has thousands of messages, most of them summarised long ago; the
assembler needs, every step, the groups still in the window, the trace entries of
the ones out of it and the pins carried out of their groups.  This index keeps that
scan per group and redoes it only from the first group that changed.
"""

from __future__ import annotations

from typing import Any

from agent_tui.core.assembler import TraceEntry
from agent_tui.core.items import ContextItem, State
from agent_tui.core.memory import Group, HistoryGroups


class HistoryIndex:
    """Mixin for ContextEngine: the incremental scan of history groups."""

    items: dict[str, ContextItem]
    order: list[str]

    def _reset_history(self) -> None:
        """Forget the incremental history index (after items were replaced by ``load``)."""
        self._version = getattr(self, "_version", 0) + 1
        self._window_cache: tuple[tuple[int, int], Any] | None = None
        # The scan of history groups, kept per group so a turn rescans only what changed.
        self._scan_from = 0
        self._scan_acc: tuple[list[Group], list[ContextItem], list[TraceEntry]] = ([], [], [])
        self._scan_marks: list[tuple[int, int, int]] = []
        self._hist: list[ContextItem] = []
        self._blocks: list[ContextItem] = []
        self._hist_seen = 0
        self._hgroups = HistoryGroups()

    def _history_items(self) -> list[ContextItem]:
        """Message items in order (maintained incrementally: ``order`` only grows)."""
        for i in self.order[self._hist_seen:]:
            it = self.items[i]
            (self._hist if it.role is not None else self._blocks).append(it)
        self._hist_seen = len(self.order)
        return self._hist

    def _window_groups(self) -> tuple[list[Group], list[TraceEntry], list[ContextItem]]:
        """History groups in the window, trace entries of the items out of it, and pins carried
        out of their groups.

        Kept per group and rescanned from the first group that changed (``_save`` notes it; new
        messages only touch the last group), so a long summarised history is not rescanned every
        step; callers get fresh lists.
        """
        key = (self._version, len(self.order))
        if self._window_cache is None or self._window_cache[0] != key:
            self._scan_window()
            self._window_cache = (key, None)
        groups, carried, trace = self._scan_acc
        return list(groups), list(trace), list(carried)

    def _scan_window(self) -> None:
        all_groups = self._hgroups.extend(self._history_items())
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

