"""Masked secrets in what the model writes back: restored from the file, or refused.

Every text the model is shown is redacted: a value the scanner takes for a secret reads
``[REDACTED:kind]``.  Some of those are code the scanner misread, and the model does not know which.
When it edits near such a line it copies the mask into ``old_text`` (which then is not in the file:
the edit fails for no reason it can see) or into ``new_text`` or a whole ``write_file`` content, which
would write the mask into the file and lose what it stood for.

So the file tools map each mask back to what it hides in the file as it is now: a line the model sent
that equals a masked line of the file (the file redacted the way ``read_file`` shows it) becomes that
line; otherwise each mask becomes the one value it hides anywhere in the file.  A mask with no single
such value is not guessed: a text still holding one is refused with what to do, and nothing is
written.  A mask the file itself holds literally (a test of a redactor) is plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.tools.base import ToolError

#: A mask as ``core.redact.mask`` writes it.
MASK_RE = re.compile(r"\[REDACTED:[A-Za-z0-9_.-]{1,80}\]")


@dataclass
class MaskedFile:
    """What the masks of one file's redacted view stand for."""

    lines: dict[str, set[str]] = field(default_factory=dict)
    """A masked line (as the model was shown it) → the file's lines it stands for."""
    values: dict[str, set[str]] = field(default_factory=dict)
    """A mask → the values it hides in the file."""
    spanning: set[str] = field(default_factory=set)
    """Masks of a value that spans lines (a private key's block: its other lines are shown empty): a line
    cannot put it back, so they are never restored."""


def has_mask(text: str) -> bool:
    """Whether ``text`` holds a mask."""
    return "[REDACTED:" in text and MASK_RE.search(text) is not None


def masked_view(current: str) -> MaskedFile:
    """The masks of ``current`` (LF text) as ``read_file`` would show it, with what each hides."""
    view = MaskedFile()
    shown = redact_keeping_lines(current)
    if shown == current:
        return view
    last: list[str] = []
    for original, masked in zip(current.split("\n"), shown.split("\n"), strict=False):
        if original != masked and not has_mask(masked):  # a line of the value masked on a line above
            view.spanning.update(last)
        if original == masked or not has_mask(masked):
            continue
        last = MASK_RE.findall(masked)
        view.lines.setdefault(masked, set()).add(original)
        for mask, value in _pairs(original, masked):
            view.values.setdefault(mask, set()).add(value)
    return view


def _pairs(original: str, masked: str) -> list[tuple[str, str]]:
    """(mask, value) for each mask of ``masked``, aligned on the text between masks; [] if they do not align."""
    masks = MASK_RE.findall(masked)
    pieces = MASK_RE.split(masked)
    if not original.startswith(pieces[0]) or not original.endswith(pieces[-1]):
        return []
    pos, out = len(pieces[0]), []
    for n, mask in enumerate(masks):
        after = pieces[n + 1]
        if n + 1 == len(masks):
            end = len(original) - len(after)
        elif not after:  # two masks side by side: where one value ends is unknown
            return []
        else:
            end = original.find(after, pos + 1)
        if end <= pos:
            return []
        out.append((mask, original[pos:end]))
        pos = end + len(after)
    return out


def unmask(text: str, view: MaskedFile) -> str:
    """``text`` with each mask the file explains put back (see the module's doc)."""
    if not has_mask(text):
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if has_mask(line) and not view.spanning.intersection(MASK_RE.findall(line)):
            originals = view.lines.get(line)
            if originals is not None and len(originals) == 1:
                line = next(iter(originals))
            else:
                line = MASK_RE.sub(lambda m: _single(view, m.group(0)), line)
        out.append(line)
    return "\n".join(out)


def _single(view: MaskedFile, mask: str) -> str:
    values = view.values.get(mask)
    return next(iter(values)) if values is not None and len(values) == 1 else mask


def refuse_masks(text: str, current: str | None, what: str, rel: str) -> None:
    """Raise ToolError when ``text`` (what would be written) still holds a mask ``current`` (the file
    now, None if new) does not hold literally: it would replace a value the model was never shown."""
    left = [m for m in dict.fromkeys(MASK_RE.findall(text)) if current is None or m not in current]
    if left:
        raise ToolError(
            f"{what} holds {', '.join(left)}: a placeholder for a value hidden from you (a secret, or text "
            f"the redaction took for one), not text of {rel}. Writing it would replace the real value, so "
            f"nothing was written. Leave the lines holding it out of your edit: change only the lines "
            f"around them (edit_file with a smaller old_text), and never retype a hidden value."
        )
