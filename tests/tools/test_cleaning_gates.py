"""clean_text skips its base64 and blank-run regexes when a text cannot match them: the result
is the same as running them, on generated texts with blobs, wrapped blocks and blank runs."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.tools import cleaning
from agent_tui.tools.cleaning import clean_text, remove_base64


def remove_base64_always(text: str) -> str:
    """remove_base64 as it was: both regexes over every text."""
    text = cleaning.BASE64_BLOCK_RE.sub(cleaning._replace_block, text)
    return cleaning.BASE64_RE.sub(cleaning._replace_inline, text)


def clean_text_always(text: str) -> str:
    """clean_text (no web page: markup kept) as it was, every regex run."""
    text = text.replace("\r\n", "\n")
    text = cleaning.ANSI_RE.sub("", text)
    if "\r" in text:
        text = "\n".join(cleaning._resolve_carriage_returns(line) for line in text.split("\n"))
    text = cleaning.CONTROL_RE.sub("", text)
    text = remove_base64_always(text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n")


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
runs = st.one_of(st.text(alphabet=B64 + "_-=", min_size=30, max_size=260),
                st.integers(195, 205).flatmap(lambda n: st.text(alphabet=B64, min_size=n, max_size=n)))
block = st.tuples(st.integers(38, 42), st.integers(1, 7)).flatmap(  # n lines of one width, as wrapped blobs are
    lambda wn: st.lists(st.text(alphabet=B64, min_size=wn[0], max_size=wn[0]), min_size=wn[1], max_size=wn[1])
).map(lambda lines: "\n".join(lines) + "\n")
pieces = st.one_of(
    st.text(max_size=20), runs, block, st.just("data:image/png;base64,"), st.just("\n\n\n\n"),
    st.just(" \t\n"), st.just("\x1c"), st.just("="), st.just("\u00a0"),
)
texts = st.lists(pieces, max_size=10).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_remove_base64_equals_running_both_regexes(text: str) -> None:
    assert remove_base64(text) == remove_base64_always(text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_clean_text_equals_running_every_regex(text: str) -> None:
    assert clean_text(text) == clean_text_always(text)


def test_blobs_are_still_replaced() -> None:
    blob = ("QUJDRGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY3ODk" * 6)[:240]
    assert "[base64 " in remove_base64(f"image: {blob} end")
    wrapped = "\n".join([blob[:64], blob[64:128], blob[128:192], blob[192:]]) + "\n"
    assert remove_base64(f"-----\n{wrapped}-----").startswith("-----\n[base64 ")
    assert clean_text("a\n\n\n\nb") == "a\n\nb"
