"""Masked secrets in what the model writes back: restored from the file, or refused.

Every text the model is shown is redacted: a value the scanner takes for a secret reads
``[REDACTED:kind]``.  Some of those are code the scanner misread, and the model does not know which.
When it edits near such a line it copies the mask into ``old_text`` (which then is not in the file:
the edit fails for no reason it can see) or into ``new_text`` or a whole ``write_file`` content, which
would write the mask into the file and lose what it stood for.

So the file tools put back a line the model sent exactly as it was shown: a line equal to a masked
line of the file (the file redacted the way ``read_file`` shows it) becomes the file's line, when only
one line of the file reads so.  Nothing else is guessed: a mask on a line the model changed could
stand for any value of that kind (every lower-case secret name masks as ``secret``; a line copied
from another file or from the history would take this file's value), so a text still holding a mask
the file's redaction makes is refused with what to do, and nothing is written.  A line the file holds
as it is (a test of a redactor spelling a mask out) is plain text, and so is a mask no redaction of the
file makes.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field

from agent_tui.core.hashing import content_hash
from agent_tui.core.redact_whole import redact_keeping_lines
from agent_tui.tools.base import ToolError

#: A mask as ``core.redact.mask`` writes it (a kind may hold ``:``: ``env:OPENAI_API_KEY``, ``DB:PASSWORD``).
MASK_RE = re.compile(r"\[REDACTED:[^\]\s]{1,160}\]")
#: Views kept for the files last checked: an edit's check, its approval preview and the edit itself
#: redact the same text once.
VIEWS_KEPT = 4


@dataclass
class MaskedFile:
    """What the masked lines of one file's redacted view stand for."""

    lines: dict[str, set[str]] = field(default_factory=dict)
    """A masked line (as the model was shown it) → the file's lines it stands for."""
    literal: set[str] = field(default_factory=set)
    """Lines holding a mask's text that the redaction leaves as they are (plain text of the file)."""
    produced: set[str] = field(default_factory=set)
    """Every mask the file's redaction makes."""
    spanning: set[str] = field(default_factory=set)
    """Masked lines of a value that spans lines (a private key's block: its other lines are shown empty): a
    line cannot put it back, so they are never restored."""


_VIEWS: OrderedDict[str, MaskedFile] = OrderedDict()


def has_mask(text: str) -> bool:
    """Whether ``text`` holds a mask."""
    return "[REDACTED:" in text and MASK_RE.search(text) is not None


def masked_view(current: str) -> MaskedFile:
    """The masked lines of ``current`` as ``read_file`` would show it, with what each stands for (line
    endings aside)."""
    key = content_hash(current)
    if (view := _VIEWS.get(key)) is not None:
        _VIEWS.move_to_end(key)
        return view
    view = MaskedFile()
    shown = redact_keeping_lines(current)
    last = ""
    for original, masked in zip(current.split("\n"), shown.split("\n"), strict=False):
        original, masked = original.removesuffix("\r"), masked.removesuffix("\r")
        if original == masked:
            if has_mask(original):
                view.literal.add(original)
            continue
        masks = MASK_RE.findall(masked)
        view.produced.update(masks)
        if masks:
            view.lines.setdefault(masked, set()).add(original)
            last = masked
        elif last:  # a line of a value masked on a line above
            view.spanning.add(last)
    _VIEWS[key] = view
    while len(_VIEWS) > VIEWS_KEPT:
        _VIEWS.popitem(last=False)
    return view


def unmask(text: str, view: MaskedFile) -> str:
    """``text`` (LF) with each line sent as the file's one masked line reads put back (see the module's doc)."""
    if not has_mask(text):
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if line not in view.literal and line not in view.spanning and has_mask(line):
            originals = view.lines.get(line)
            if originals is not None and len(originals) == 1:
                line = next(iter(originals))
        out.append(line)
    return "\n".join(out)


def refuse_masks(text: str, view: MaskedFile, what: str, rel: str) -> None:
    """Raise ToolError when ``text`` (what would be written, after ``unmask``) still holds a mask the file's
    redaction makes, on a line the file does not hold as it is: it would replace a value the model was never
    shown.  (A mask on a line of a new file: ``view`` is empty, so every mask is refused but one the file
    spells out literally.)"""
    left: list[str] = []
    for line in text.split("\n"):
        if line in view.literal or not has_mask(line):
            continue
        left.extend(m for m in MASK_RE.findall(line) if m in view.produced or not view.literal)
    if left:
        raise ToolError(
            f"{what} holds {', '.join(dict.fromkeys(left))}: a placeholder for a value hidden from you (a secret, "
            f"or text the redaction took for one), not text of {rel}. Writing it would replace the real value, so "
            f"nothing was written. A line holding it is kept only when you send it exactly as the file shows it "
            f"(the one line reading so); otherwise leave those lines out of your edit: change only the lines around "
            f"them (edit_file with a smaller old_text), and never retype a hidden value."
        )
