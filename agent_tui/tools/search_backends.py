"""Two ways to find matching lines: ripgrep when installed, pure Python otherwise.

ripgrep is much faster and already honours .gitignore; the Python walker gives the
same answers (same skipped folders, same .gitignore rules via ``IgnoreMatcher``,
smart case, binary files skipped) on machines without it.  Both return the same
``Hit`` tuples and stop collecting at ``MAX_HITS`` so a pattern like ``e`` cannot
flood memory; the total is then reported as "at least".
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from agent_tui.core.safe_files import UnsafeFileError, read_regular
from agent_tui.tools.base import ToolError
from agent_tui.tools.git_safe import safe_env
from agent_tui.tools.ignore import IgnoreMatcher, walk_files
from agent_tui.tools.programs import find_program
from agent_tui.tools.workspace import AGENT_DIR, SKIP_DIRS, SNIFF_BYTES

#: Matches collected at most; beyond this the count is a lower bound.
MAX_HITS = 5000
#: Set this environment variable to force the Python fallback even when rg exists.
NO_RG_ENV = "AGENT_TUI_NO_RG"
RG_TIMEOUT = 60.0
#: Characters of a matching line ripgrep prints (longer lines are cut with a preview).
RG_MAX_COLUMNS = 500
#: Bytes one output line of ripgrep may have before it is skipped (asyncio's default is 64 KiB).
RG_LINE_LIMIT = 1 << 20


class Hit(NamedTuple):
    path: str  # workspace-relative POSIX path
    line: int  # 1-based
    text: str


def rg_binary() -> str | None:
    """The ripgrep executable, unless missing or disabled with AGENT_TUI_NO_RG."""
    if os.environ.get(NO_RG_ENV):
        return None
    return find_program("rg")


def smart_case(pattern: str) -> bool:
    """True (ignore case) when the pattern has no upper-case letter, like ``rg -S``."""
    return not any(c.isupper() for c in pattern)


class LinePattern(Protocol):
    """A compiled search pattern (RE2's, see ``compile_pattern``)."""

    def search(self, text: bytes, pos: int = ..., endpos: int = ...) -> Any: ...


def compile_pattern(pattern: str, regex: bool) -> LinePattern:
    """The pattern compiled by RE2 (google-re2), escaped unless ``regex``, smart case, never matching
    across a line end (``never_nl``: every match lies within one line, as ripgrep's do).

    RE2, not Python's ``re``: the pattern is the model's and the text is the repository's, and a
    backtracking engine can take exponential time on a pattern like ``(a+)+$`` against a long line
    of a's, which would hold up the tool.  RE2 is linear in the text, and its syntax is ripgrep's
    (no look-around, no backreferences), so the fallback accepts what ripgrep accepts and the
    message for a pattern it rejects is the same on both paths."""
    import re2  # google-re2 (a compiled extension; imported when a search first runs)

    options = re2.Options()
    options.log_errors = False  # (RE2 would print the parse error on the terminal)
    options.never_nl = True
    options.case_sensitive = not smart_case(pattern)
    try:
        # bytes: RE2 searches UTF-8, and a str would be encoded again at every call
        return re2.compile(("(?m)" + (pattern if regex else re2.escape(pattern))).encode("utf-8", "surrogatepass"),
                           options=options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        raise ToolError(
            f"Invalid regular expression {pattern!r}: {why}. The syntax is ripgrep's: no look-around or "
            "backreferences. Fix it, or set regex=false to search for the literal text."
        ) from None


def matching_lines(compiled: LinePattern, data: bytes) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line of ``data`` (UTF-8) holding a match: one search per
    matching line over the whole file, not one call per line (RE2's per-call cost is what a
    line-by-line loop pays); a line that is not UTF-8 is shown with replacement characters."""
    pos, number, counted, size = 0, 1, 0, len(data)
    while pos <= size:
        found = compiled.search(data, pos)
        if found is None:
            return
        start = data.rfind(b"\n", 0, found.start()) + 1
        number += data.count(b"\n", counted, start)
        counted = start
        end = data.find(b"\n", found.start())
        end = size if end < 0 else end
        yield number, data[start:end].decode("utf-8", errors="replace")
        pos = end + 1


def glob_matches(rel: str, glob: str | None) -> bool:
    """rg-style glob: without '/', match the file name; with '/', the relative path."""
    if not glob:
        return True
    if "/" in glob:
        return fnmatch.fnmatchcase(rel, glob.lstrip("/")) or fnmatch.fnmatchcase(rel, glob)
    return fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], glob)


def parse_rg_lines(lines: list[bytes], root: Path, cwd: Path) -> list[Hit]:
    """Hits from ``rg --null --line-number`` output (``path NUL line:text``), paths made
    workspace-relative.  Bytes that are not UTF-8 (in names or lines) are decoded with
    replacement, so a Latin-1 line is found as the Python fallback finds it."""
    hits: list[Hit] = []
    for raw in lines:
        name, sep, rest = raw.partition(b"\0")
        number, colon, text = rest.partition(b":")
        if not sep or not colon or not number.isdigit():
            continue
        path = os.fsdecode(name)
        full = (cwd / path).resolve()
        if not full.is_relative_to(root):
            continue
        rel = full.relative_to(root).as_posix()
        line = text.decode("utf-8", errors="replace").rstrip("\r\n")
        hits.append(Hit(rel, int(number), line))
    return hits


async def search_rg(
    rg: str, root: Path, start: Path, pattern: str, glob: str | None, regex: bool
) -> list[Hit]:
    """Run ripgrep and collect at most MAX_HITS hits.

    Plain output (not ``--json``, which ignores ``--max-columns`` and would put a whole
    megabyte line on one output line): each hit's text is cut to RG_MAX_COLUMNS.
    """
    if regex:
        compile_pattern(pattern, regex)  # same error message as the fallback
    argv = [
        rg,
        "--no-heading",
        "--with-filename",
        "--line-number",
        "--null",
        "--color=never",
        "--no-config",
        f"--max-columns={RG_MAX_COLUMNS}",
        "--max-columns-preview",
        "--smart-case",
        "--no-messages",
        "--no-require-git",
    ]
    if not regex:
        argv.append("--fixed-strings")
    if glob:
        argv += ["--glob", glob]
    for skip in sorted(SKIP_DIRS | {AGENT_DIR}):  # after the model's glob: in rg the later glob wins ('*' re-included them)
        argv += ["--glob", f"!{skip}"]
    argv += ["--", pattern, str(start)]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=root,
        env=safe_env(),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        stdin=asyncio.subprocess.DEVNULL,
        limit=RG_LINE_LIMIT,
    )
    assert proc.stdout is not None
    lines: list[bytes] = []
    try:
        async with asyncio.timeout(RG_TIMEOUT):
            while len(lines) < MAX_HITS:
                try:
                    raw = await proc.stdout.readline()
                except ValueError:  # a line past the limit (a path of megabytes): skip it
                    await proc.stdout.read(RG_LINE_LIMIT)
                    continue
                if not raw:
                    break
                lines.append(raw)
    except TimeoutError:
        pass
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
    return parse_rg_lines(lines, root, root)


def search_python(
    root: Path, start: Path, pattern: str, glob: str | None, regex: bool
) -> list[Hit]:
    """The fallback: walk visible files, skip binary and huge ones, match line by line."""
    compiled = compile_pattern(pattern, regex)
    root = root.resolve()
    files = [start] if start.is_file() else walk_files(root, start, IgnoreMatcher(root))
    hits: list[Hit] = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        if not glob_matches(rel, glob):
            continue
        try:
            real = path.resolve(strict=True)
            if not real.is_relative_to(root):
                continue
            data = read_regular(real, rel, exact=True)  # at most what the file tools read; no swap, no FIFO
        except (OSError, RuntimeError, UnsafeFileError):
            continue
        if b"\x00" in data[:SNIFF_BYTES]:
            continue
        for number, line in matching_lines(compiled, data):
            hits.append(Hit(rel, number, line.rstrip("\r")))
            if len(hits) >= MAX_HITS:
                return hits
    return hits
