"""shape_result: cleaning, JSON and text summaries, the token bound, and exact paging."""

from __future__ import annotations

import base64
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.core.results import MemoryResultStore
from agent_tui.core.tokens import count_tokens, counter_for
from agent_tui.tools.cleaning import clean_text
from agent_tui.tools.paging import PAGE_CHARS, get_page, page_count
from agent_tui.tools.shaping import shape_result
from agent_tui.tools.shell import shape_output


def test_clean_base64_html_ansi_blank_runs() -> None:
    blob = base64.b64encode(random.Random(1).randbytes(600)).decode()
    raw = f'\x1b[1;32mOK\x1b[0m image: "data:image/png;base64,{blob}" end\n\n\n\n\nnext\x07'
    cleaned = clean_text(raw)
    assert cleaned == 'OK image: "[base64 600 bytes]" end\n\nnext'


def test_clean_wrapped_base64_block() -> None:
    blob = base64.encodebytes(random.Random(2).randbytes(300)).decode()  # 76-char lines
    cleaned = clean_text(f"-----BEGIN CERT-----\n{blob}-----END CERT-----")
    assert cleaned == "-----BEGIN CERT-----\n[base64 300 bytes]\n-----END CERT-----"


def test_clean_keeps_long_non_base64_runs() -> None:
    line = "-" * 300
    assert clean_text(line) == line
    hexdigits = "deadbeef" * 40
    assert clean_text(hexdigits) == hexdigits  # no capitals: not treated as base64


def test_clean_html() -> None:
    page = (
        "<!DOCTYPE html><html><head><style>body{color:red}</style><script>var x=1;</script></head>"
        "<body><h1>Title</h1><p>First &amp; <b>bold</b> para.</p><ul><li>one</li><li>two</li></ul>"
        "<!-- hidden --></body></html>"
    )
    cleaned = clean_text(page, html_page=True)
    assert cleaned.split("\n") == ["Title", "", "First & bold para.", "", "one", "", "two"]
    assert clean_text(page) == page  # a file or a command's output keeps its markup


LIVEVIEW = (
    "defmodule AppWeb.PaneListLive do\n  use Phoenix.LiveView\n\n  def render(assigns) do\n    ~H\"\"\"\n"
    + "".join(f'    <div class="row">\n      <span id="r{i}"><a href="/p/{i}">{i}</a></span>\n    </div>\n'
              for i in range(8))
    + '    <html><body><p>inline</p></body></html>\n    \"\"\"\n  end\nend'
)


def test_source_code_holding_markup_reaches_the_model_byte_for_byte() -> None:
    """A template, a JSX or LiveView module, an .html file: its tags and indentation are what the
    agent edits.  Shaping used to take five tags for a web page and strip them (a recorded Read of
    an Elixir LiveView lost its markup and indentation: 30,592 -> 19,220 characters)."""
    assert clean_text(LIVEVIEW) == LIVEVIEW
    assert clean_text(LIVEVIEW, html_page=True) == LIVEVIEW  # markup inside code is not a page
    html_file = "<!DOCTYPE html>\n<html>\n  <body>\n    <p>Hi</p>\n  </body>\n</html>"
    assert clean_text(html_file) == html_file
    store = MemoryResultStore()
    assert shape_result(LIVEVIEW, max_tokens=5000, store=store).text == LIVEVIEW
    assert shape_output(LIVEVIEW, counter_for(None))[0] == LIVEVIEW  # `cat` through run_shell


def test_clean_progress_bar_carriage_returns() -> None:
    assert clean_text("10%\r50%\r100%\ndone\r\n") == "100%\ndone"


def test_text_that_quotes_one_tag_is_not_html() -> None:
    text = "Use <div> for blocks\nand that is all"
    assert clean_text(text) == text


def test_fits_returns_cleaned_without_handle() -> None:
    store = MemoryResultStore()
    shaped = shape_result("\x1b[31mhello\x1b[0m\n\n\n\nworld", max_tokens=100, store=store)
    assert shaped.text == "hello\n\nworld"
    assert shaped.handle is None and store.get("r1") is None
    assert shaped.raw_chars == len("\x1b[31mhello\x1b[0m\n\n\n\nworld")


def test_json_summary_keys_types_counts_rows() -> None:
    store = MemoryResultStore()
    data = {
        "items": [{"id": i, "name": f"item-{i}", "tags": ["a", "b"]} for i in range(1500)],
        "meta": {"page": 1, "total": 1500},
        "status": "ok",
    }
    raw = json.dumps(data, indent=2)
    shaped = shape_result(raw, max_tokens=400, store=store, label="api.list")
    text = shaped.text
    assert text.startswith("api.list: JSON object with 3 key(s):")
    assert '"items": array of 1,500 (object{id:int, name:str, tags:array[2]})' in text
    assert '[0] {"id":0,"name":"item-0","tags":["a","b"]}' in text
    assert '"total": 1500' in text and '"status": "ok"' in text
    assert shaped.handle is not None and store.get(shaped.handle) == raw
    assert (
        f"[stored whole as {shaped.handle}: {len(raw):,} chars, {shaped.raw_tokens:,} tokens"
        in text
    )
    assert f'fetch_result("{shaped.handle}", page=N), N=1..{page_count(raw)}]' in text
    assert shaped.shaped_tokens <= 400 < shaped.raw_tokens


def test_text_summary_head_tail_intent_and_errors() -> None:
    store = MemoryResultStore()
    lines = [f"step {i}: processing record" for i in range(1, 3001)]
    lines[1200] = "Traceback (most recent call last):"
    lines[1201] = '  File "/srv/app/worker.py", line 88, in run'
    lines[1202] = "KeyError: 'customer_id'"
    lines[2000] = "checkpoint: invoice batch 77 written"
    lines[2500] = "tests/test_api.py::test_create FAILED"
    raw = "\n".join(lines)
    shaped = shape_result(raw, max_tokens=500, store=store, intent="find the invoice batch")
    text = shaped.text
    assert text.startswith("3,000 lines; showing the head, the tail")
    assert "L1: step 1: processing record" in text
    assert "L3000: step 3000: processing record" in text
    assert "L1201: Traceback (most recent call last):" in text
    assert 'L1202:   File "/srv/app/worker.py", line 88, in run' in text
    assert "L1203: KeyError: 'customer_id'" in text
    assert "L2501: tests/test_api.py::test_create FAILED" in text
    assert "L2001: checkpoint: invoice batch 77 written" in text
    assert "lines omitted" in text
    assert shaped.shaped_tokens <= 500
    assert store.get(shaped.handle or "") == raw


def test_stores_original_not_cleaned() -> None:
    store = MemoryResultStore()
    raw = "\x1b[33mwarn\x1b[0m line\n" * 3000
    shaped = shape_result(raw, max_tokens=200, store=store)
    assert store.get(shaped.handle or "") == raw
    assert "\x1b" not in shaped.text


def test_tiny_budgets_degrade_gracefully() -> None:
    store = MemoryResultStore()
    raw = "word " * 5000
    for budget in (0, 2, 5, 20, 60):
        shaped = shape_result(raw, max_tokens=budget, store=store)
        assert count_tokens(shaped.text) <= budget
        assert shaped.handle is not None
    assert shape_result(raw, max_tokens=5, store=store).text.startswith("[r")


_line = st.one_of(
    st.text(max_size=120),
    st.sampled_from(["Traceback (most recent call last):", "FAILED x", "src/a.py:12: boom", ""]),
    st.builds(lambda n: "x" * n, st.integers(0, 3000)),
)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["lines", "json", "blob"]))
    if kind == "lines":
        return "\n".join(draw(st.lists(_line, max_size=300)))
    if kind == "json":
        rows = draw(
            st.lists(
                st.dictionaries(st.text(max_size=8), st.text(max_size=40), max_size=6), max_size=200
            )
        )
        return json.dumps({"rows": rows, "n": len(rows)})
    return draw(st.text(min_size=0, max_size=6000))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_documents(), max_tokens=st.integers(0, 600), intent=st.text(max_size=30))
def test_shaped_text_never_exceeds_max_tokens(doc: str, max_tokens: int, intent: str) -> None:
    store = MemoryResultStore()
    shaped = shape_result(doc, max_tokens=max_tokens, store=store, intent=intent, label="t")
    assert count_tokens(shaped.text) <= max_tokens
    assert shaped.shaped_tokens == count_tokens(shaped.text)
    if shaped.handle is not None:
        assert store.get(shaped.handle) == doc


@settings(max_examples=80, deadline=None)
@given(
    content=st.one_of(
        st.text(max_size=2000),
        st.builds(lambda s, n: s * n, st.text(min_size=1, max_size=40), st.integers(0, 1200)),
    )
)
def test_paging_round_trip(content: str) -> None:
    pages = page_count(content)
    assert pages == max(1, -(-len(content) // PAGE_CHARS))
    parts = [get_page(content, p) for p in range(1, pages + 1)]
    assert "".join(parts) == content
    assert all(len(p) <= PAGE_CHARS for p in parts)
