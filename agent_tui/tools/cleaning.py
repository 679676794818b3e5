"""Strip the noise that costs tokens and tells the model nothing.

Tool outputs (ours and MCP servers') carry base64 blobs, terminal escape codes,
progress-bar carriage returns and runs of blank lines, and an MCP server may answer with a
whole web page.  They are removed before a result is measured, so a result that only
*looked* big because of junk fits in full.  Markup is removed only from such a page: the
text of a file or of a command's output is never rewritten (a template or a component read
without its tags would be edited wrongly).
The original is never changed: when a result is stored behind a handle, the store keeps
the raw text.
"""

from __future__ import annotations

import html
import re

ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
)
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: An inline blob: 200+ base64 characters, optionally a ``data:`` URI.
BASE64_RE = re.compile(
    r"(?:data:[\w.+-]+/[\w.+-]+;base64,)?(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{200,}={0,2}"
)
#: Shortest run of base64 characters an inline blob has (``BASE64_RE``).
INLINE_MIN = 200
#: Shortest base64 line a wrapped blob has (``BASE64_BLOCK_RE``).
BLOCK_LINE_MIN = 40
#: A wrapped blob (PEM, MIME): 2+ full lines of base64 characters and a shorter last line.
BASE64_BLOCK_RE = re.compile(
    r"(?:^[A-Za-z0-9+/]{40,}={0,2}[ \t]*(?:\n|\Z)){2,}(?:^[A-Za-z0-9+/]+={0,2}[ \t]*(?:\n|\Z))?",
    re.M,
)
HTML_STRONG_RE = re.compile(r"<!doctype\s+html|<html[\s>]|<body[\s>]", re.I)
HTML_TAG_RE = re.compile(
    r"</?(?:div|span|p|a|table|tr|td|th|li|ul|ol|br|head|script|style|meta|link|img|h[1-6]|section|nav)\b[^<>]*>",
    re.I,
)
_BLOCK_TAG_RE = re.compile(
    r"<br\s*/?>|</?(?:p|div|li|tr|h[1-6]|table|ul|ol|section|article|header|footer|pre|blockquote|nav)\b[^<>]*>",
    re.I,
)
_DROP_OPEN_RE = re.compile(r"<(script|style|noscript|svg)\b|<!--", re.I)
_BLANK_RUN_RE = re.compile(r"\n{3,}")
_ANY_TAG_RE = re.compile(r"</?[A-Za-z][^<>]*>|<![^<>]*>")


def _looks_base64(blob: str) -> bool:
    body = blob.split(",", 1)[1] if blob.startswith("data:") else blob
    return (
        any(c.isupper() for c in body)
        and any(c.islower() for c in body)
        and any(c.isdigit() for c in body)
    )


def _blob_label(blob: str) -> str:
    body = blob.split(",", 1)[1] if blob.startswith("data:") else blob
    chars = sum(1 for c in body if c not in "=\n\r \t")
    return f"[base64 {chars * 3 // 4} bytes]"


def _replace_inline(match: re.Match[str]) -> str:
    blob = match.group(0)
    return _blob_label(blob) if _looks_base64(blob) else blob


def _replace_block(match: re.Match[str]) -> str:
    blob = match.group(0)
    if len(blob) < 200 or not _looks_base64(blob):
        return blob
    return _blob_label(blob) + ("\n" if blob.endswith("\n") else "")


def _longest_word(text: str) -> int:
    """Length of the longest whitespace-free run: every base64 run lies inside one."""
    return max(map(len, text.split()), default=0)


def remove_base64(text: str) -> str:
    """Replace base64 blobs of 200+ characters with ``[base64 N bytes]``.

    Both regexes need a whitespace-free run (a block's lines 40+ characters, an inline blob
    200+), which ``str.split`` finds far faster than the regexes scan: without one, they are
    not run."""
    longest = _longest_word(text)
    if longest >= BLOCK_LINE_MIN:
        blocked = BASE64_BLOCK_RE.sub(_replace_block, text)
        if blocked != text:
            text, longest = blocked, _longest_word(blocked)
    if longest < INLINE_MIN:
        return text
    return BASE64_RE.sub(_replace_inline, text)


def is_html(text: str) -> bool:
    """True when ``text`` is an HTML document or fragment rather than text quoting a tag."""
    if HTML_STRONG_RE.search(text[:5000]):
        return True
    return len(HTML_TAG_RE.findall(text[:20000])) >= 5


def is_html_page(text: str) -> bool:
    """True when ``text`` starts as a whole HTML document (a doctype, ``<html>`` or ``<body>`` near
    its start), not source code that holds markup (a template, a component)."""
    return bool(HTML_STRONG_RE.search(text.lstrip()[:300]))


def drop_blocks(text: str) -> str:
    """``text`` without ``<script>``/``<style>``/``<noscript>``/``<svg>`` blocks and comments.

    A scan with ``str.find`` rather than a lazy ``.*?`` regex: many unclosed openers
    would make the regex rescan to the end from each one (quadratic); here a closer
    known to be missing is never searched for again.
    """
    low = text.lower()
    out: list[str] = []
    missing: set[str] = set()
    pos = 0
    while (m := _DROP_OPEN_RE.search(text, pos)) is not None:
        closer = "-->" if m.group(0) == "<!--" else f"</{m.group(1).lower()}"
        end = -1 if closer in missing else low.find(closer, m.end())
        if end != -1 and closer != "-->":
            end = low.find(">", end)
        if end == -1:
            missing.add(closer)
            out.append(text[pos : m.end()])
            pos = m.end()
            continue
        out.append(text[pos : m.start()])
        pos = end + (3 if closer == "-->" else 1)
    out.append(text[pos:])
    return "".join(out)


def strip_html(text: str) -> str:
    """Readable text from HTML: scripts/styles/comments dropped, tags removed, entities decoded."""
    text = drop_blocks(text)
    text = _BLOCK_TAG_RE.sub("\n", text)
    text = _ANY_TAG_RE.sub("", text)
    text = html.unescape(text)
    return "\n".join(" ".join(line.split()) for line in text.split("\n"))


def _resolve_carriage_returns(line: str) -> str:
    """A progress bar redraws with ``\\r``: keep what the terminal would finally show."""
    if "\r" not in line:
        return line
    parts = [p for p in line.split("\r") if p.strip()]
    return parts[-1] if parts else ""


def clean_text(text: str, *, html_page: bool = False) -> str:
    """``text`` without escape codes, control characters, base64 blobs and blank runs; with
    ``html_page`` (a result that may be a web page: an MCP server's), an HTML document also loses
    its markup.  Never for a file or a command's output: a template, a JSX or LiveView module or
    an ``.html`` file the agent reads or ``cat``s must reach the model byte for byte, or its edits
    will not match the file."""
    text = text.replace("\r\n", "\n")
    text = ANSI_RE.sub("", text)
    if "\r" in text:
        text = "\n".join(_resolve_carriage_returns(line) for line in text.split("\n"))
    text = CONTROL_RE.sub("", text)
    text = remove_base64(text)
    if html_page and is_html_page(text):
        text = strip_html(text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    if "\n\n\n" in text:
        text = _BLANK_RUN_RE.sub("\n\n", text)
    return text.strip("\n")
