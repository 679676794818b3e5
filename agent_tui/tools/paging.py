"""Paging a stored output by characters, so the model can read all of it in bounded bites.

Pages are plain character slices of a fixed size (``PAGE_CHARS``): concatenating
pages 1..K reproduces the stored string exactly, which is what lets the UI, the tests
and the model trust that nothing was lost behind a handle.  Character pages (not line
pages) keep every page bounded even for one-line minified JSON.
"""

from __future__ import annotations

#: Characters per page (about 2,000 tokens of English or code).
PAGE_CHARS = 8000


def page_count(content: str) -> int:
    """How many pages ``content`` has (an empty string is one empty page)."""
    return max(1, -(-len(content) // PAGE_CHARS))


def get_page(content: str, page: int) -> str:
    """The exact slice for 1-based ``page``; ValueError when it is out of range."""
    pages = page_count(content)
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} is out of range: there are {pages} page(s) (1..{pages})")
    start = (page - 1) * PAGE_CHARS
    return content[start : start + PAGE_CHARS]


def page_header(handle: str, content: str, page: int) -> str:
    """The one-line header ``fetch_result`` puts before a page's text."""
    pages = page_count(content)
    start = (page - 1) * PAGE_CHARS
    end = min(len(content), start + PAGE_CHARS)
    more = f'; next: fetch_result("{handle}", page={page + 1})' if page < pages else "; last page"
    return f"[{handle} page {page}/{pages}, chars {start:,}-{end:,} of {len(content):,}{more}]"


def fetch_hint(handle: str, content: str) -> str:
    """How the model reads the rest: ``fetch_result("r12", page=N), N=1..K``."""
    return f'fetch_result("{handle}", page=N), N=1..{page_count(content)}'
