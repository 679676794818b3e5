"""What the agent has seen of one file, merged across partial reads and edits.

Agents read files in ranges (``sed -n '120,180p'``, ``Read offset/limit``), so
the replay keeps, per path, the lines seen so far by line number, applies
writes and edits to them, and renders the view the ``agent-tui`` strategy
hands to the engine as the active file's content.  Unseen stretches render as
one marker line, so the model would know they exist without paying for them.
"""

from __future__ import annotations


class FileView:
    """The known lines of one file (1-based line numbers)."""

    def __init__(self) -> None:
        self.lines: dict[int, str] = {}
        self.whole = False
        self._changed = False
        self.committed: tuple[dict[int, str], bool] | None = ({}, False)
        """The lines seen before the first change (the committed text a ``git checkout`` brings
        back); None once a write replaced the file without a read first."""

    def read(self, content: str, start_line: int = 1, whole: bool = False) -> None:
        """Merge lines seen by a read (``whole``: the read returned the entire file)."""
        if whole:
            self._replace(content)
        else:
            for i, line in enumerate(_split(content)):
                self.lines[start_line + i] = line
        if self.committed is not None and not self.changed:
            self.committed = (dict(self.lines), self.whole)

    @property
    def changed(self) -> bool:
        """Written or edited since the committed text was read."""
        return self._changed

    def write(self, content: str) -> None:
        """The file now holds exactly ``content``."""
        if not self.changed and not self.lines:
            self.committed = None  # a new file: there is no committed text to go back to
        self._replace(content)
        self._changed = True

    def _replace(self, content: str) -> None:
        self.lines = {i + 1: line for i, line in enumerate(_split(content))}
        self.whole = True

    def revert(self) -> bool:
        """``git checkout FILE``: back to the committed text seen before the first change
        (False when there is none to go back to)."""
        if self.committed is None or not self.changed:
            return False
        lines, whole = self.committed
        self.lines, self.whole, self._changed = dict(lines), whole, False
        return True

    def copy_from(self, other: FileView) -> None:
        """``cp OTHER THIS``: this file now holds what is known of the other one (a changed file
        unless that is its committed text, e.g. a backup of it put back)."""
        self.lines, self.whole = dict(other.lines), other.whole
        if self.committed is None:
            self._changed = True
        else:
            self._changed = (self.lines, self.whole) != self.committed

    def edit(self, old: str, new: str, full_after: str | None = None) -> bool:
        """Apply a replacement; False when ``old`` is not in a known stretch."""
        if full_after is not None:
            self._replace(full_after)
            self._changed = True
            return True
        for start, block in self._blocks():
            text = "\n".join(block)
            if old and old in text:
                replaced = _split(text.replace(old, new, 1))
                delta = len(replaced) - len(block)
                end = start + len(block)
                kept = {n: s for n, s in self.lines.items() if n < start}
                kept.update({start + i: s for i, s in enumerate(replaced)})
                kept.update({n + delta: s for n, s in self.lines.items() if n >= end})
                self.lines = kept
                self._changed = True
                return True
        return False

    def _blocks(self) -> list[tuple[int, list[str]]]:
        blocks: list[tuple[int, list[str]]] = []
        prev = None
        for n in sorted(self.lines):
            if prev is not None and n == prev + 1:
                blocks[-1][1].append(self.lines[n])
            else:
                blocks.append((n, [self.lines[n]]))
            prev = n
        return blocks

    def rendered_span(self, start: int, count: int) -> tuple[int, int] | None:
        """Where real lines ``start``..``start + count - 1`` sit in :meth:`render`'s text (1-based,
        inclusive: a gap marker takes one line), or None when they are not all known."""
        if count <= 0 or any(n not in self.lines for n in range(start, start + count)):
            return None
        if self.whole:
            return start, start + count - 1
        at, expected = 0, 1
        for first, block in self._blocks():
            if first > expected:
                at += 1  # the marker line
            if first <= start < first + len(block):
                lo = at + (start - first) + 1
                return lo, lo + count - 1
            at += len(block)
            expected = first + len(block)
        return None

    def render(self) -> str:
        """The known text; gaps between read stretches become one marker line."""
        if self.whole:
            return "\n".join(self.lines[n] for n in sorted(self.lines))
        parts: list[str] = []
        expected = 1
        for start, block in self._blocks():
            if start > expected:
                parts.append(f"… (lines {expected}-{start - 1} not read)")
            parts.extend(block)
            expected = start + len(block)
        return "\n".join(parts)


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
