"""What a glob word, or an option that follows symbolic links, reaches: checked before a line runs unasked.

The path checks in ``command_rules`` resolve each word as written.  A cloned repository can ship
``docs/notes.txt -> ~/.ssh/id_rsa`` (git keeps links); ``cat docs/notes.txt`` is then caught, but bash
expands ``cat docs/note?.txt`` to the same path after the check, and ``grep -R . docs`` follows the link
by itself.  So a glob word is expanded here as bash would expand it in the workspace (``*`` skips hidden
names, ``**`` is ``*``, no extglob) and every match is checked like a literal path; a word this expansion
cannot read for certain (quotes or a backslash inside the pattern, a ``[[:class:]]``) or one with too many
matches to check is not run unasked.  A program given an option that follows links while it walks
(``grep -R``, ``rg -L``, ``find -L``, ``tar -h``, ``zip -r``…) is not run unasked while the workspace holds a
link leading out of it (or, on the host, into ``.git`` / ``.agent-tui``).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from pathlib import Path

from agent_tui.tools.cmdparse import GLOB, SimpleCommand

#: Matches of one glob word checked at most; a word with more is not run unasked.
MAX_MATCHES = 20_000
#: Entries of the workspace looked at for a link leading out; a larger tree is not walked to the end.
MAX_WALK = 50_000

#: Per program, options that make it follow symbolic links while it walks folders (or, for zip, by default
#: when it recurses).  Short ones also count inside a bundle (``grep -Rn``); long ones by abbreviation.
LINK_FOLLOWING: dict[str, tuple[str, ...]] = {
    "grep": ("-R", "--dereference-recursive"),
    "egrep": ("-R", "--dereference-recursive"),
    "fgrep": ("-R", "--dereference-recursive"),
    "rg": ("-L", "--follow"),
    "ag": ("-f", "--follow"),
    "fd": ("-L", "--follow"),
    "find": ("-L", "-follow"),
    "tar": ("-h", "--dereference"),
    "cp": ("-L", "--dereference"),
    "du": ("-L", "--dereference"),
    "ls": ("-L", "--dereference"),
    "tree": ("-l",),
    "rsync": ("-L", "--copy-links", "-k", "--copy-dirlinks"),
    "zip": ("-r", "--recurse-paths", "-R", "--recurse-patterns"),
    "chmod": ("-L",),
    "chown": ("-L",),
    "chgrp": ("-L",),
}


def follows_links(cmd: SimpleCommand) -> str | None:
    """The word of ``cmd`` that makes it follow links while it walks, or None."""
    options = LINK_FOLLOWING.get(cmd.program, ())
    for word in cmd.argv[1:]:
        if word == "--":
            break
        if word in options:
            return word
        if word.startswith("--") and len(word.split("=", 1)[0]) > 3:
            name = word.split("=", 1)[0]
            if any(o.startswith("--") and o.startswith(name) for o in options):
                return word
        elif word.startswith("-") and not word.startswith("--") and word[1:].isalpha() \
                and any(len(o) == 2 and o[1] in word[1:] for o in options):
            return word
    return None


def glob_word(word: str) -> bool:
    """Whether bash would expand ``word`` as a pathname pattern (a variable or ``~`` aside: said elsewhere)."""
    return bool(GLOB.search(word)) and "$" not in word and not word.startswith("~")


def unreadable_pattern(word: str) -> bool:
    """A pattern whose expansion this module cannot reproduce for certain (quotes or escapes mixed in, a
    POSIX class): it is not run unasked."""
    return any(ch in word for ch in "'\"\\") or "[:" in word or "[=" in word or "[." in word


def expand(word: str, root: Path) -> list[str] | None:
    """The paths ``word`` expands to in ``root`` (relative ones relative to it), as bash would; [] when none
    match (bash then passes the word as it is); None past ``MAX_MATCHES``."""
    pattern = word.replace("[^", "[!")  # (bash takes both for a negated set; Python only ``!``)
    out: list[str] = []
    relative = not pattern.startswith("/")
    for match in glob.iglob(pattern, root_dir=root if relative else None):
        out.append(match)
        if len(out) > MAX_MATCHES:
            return None
    return out


SYSTEM_PLACES = tuple(Path(p) for p in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
                                         "/nix/store", "/snap"))
"""Where a link may lead without counting as leading out (a virtualenv's ``bin/python -> /usr/bin/python3``):
the system's programs and libraries, readable by anyone, hold nothing of the user's."""


def walked(cmd: SimpleCommand, root: Path) -> list[Path]:
    """What a link-following ``cmd`` walks in ``root``: the operands that name a path in it, else ``root``.  A path
    outside it is not walked (naming it is asked about already, and ``/`` would be walked to ``MAX_WALK``)."""
    out: list[Path] = []
    for word in cmd.argv[1:]:
        if word.startswith("-"):
            continue
        path = Path(os.path.normpath(word if word.startswith("/") else root / word))
        if (path == root or path.is_relative_to(root)) and os.path.lexists(path):
            out.append(path)
    return out or [root]


def link_leading_out(places: list[Path], root: Path, bad: Callable[[Path], bool]) -> str | None:
    """The first symbolic link in or under ``places`` whose target ``bad`` refuses (``link -> target``;
    a link into ``SYSTEM_PLACES`` is fine), ``…`` when they are too large to look through, else None."""
    seen = 0

    def check(path: Path) -> str | None:
        try:
            target = path.resolve(strict=False)
        except (OSError, RuntimeError):
            return f"{path} (a link loop)"
        if bad(target) and not any(target == s or s in target.parents for s in SYSTEM_PLACES):
            shown = path.relative_to(root) if path.is_relative_to(root) else path
            return f"{shown} -> {os.readlink(path)}"
        return None

    for place in places:
        if place.is_symlink() and (found := check(place)):
            return found
        for folder, dirs, files in os.walk(place):
            for name in (*dirs, *files):
                seen += 1
                if seen > MAX_WALK:
                    return "…"
                path = Path(folder, name)
                if path.is_symlink() and (found := check(path)):
                    return found
    return None
