"""Token counting: the right encoding per model, a correction for other families, odd input, caching."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.tokens import (
    FAMILY_CORRECTION,
    MESSAGE_OVERHEAD,
    REQUEST_OVERHEAD,
    TokenCounter,
    correction_for,
    encoding_name_for,
)
from tests.core.core_helpers import call, filler

#: o200k and cl100k split this differently, so a wrong encoding shows.
SAMPLE = "def parse(self):  # Привет, как дела? こんにちは世界 — मैं ठीक हूँ\n    return sorted(self.items())\n" * 3


@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o", "gpt-4o-mini", "gpt-5", "openai/gpt-5-mini",
                                   "o3", "o3-mini", "gpt-4.1", "azure/gpt-4o"])
def test_newer_openai_models_use_o200k(model: str) -> None:
    assert encoding_name_for(model) == "o200k_base"
    assert correction_for(model) == 1.0


@pytest.mark.parametrize("model", [None, "", "gpt-4", "gpt-3.5-turbo", "anthropic/claude-sonnet-4-5",
                                   "gemini/gemini-2.0-flash", "ollama/llama3", "deepseek/deepseek-coder"])
def test_everything_else_uses_cl100k(model: str | None) -> None:
    assert encoding_name_for(model) == "cl100k_base"


def test_counts_match_tiktoken_for_the_chosen_encoding() -> None:
    o200k = TokenCounter("gpt-4o")
    cl100k = TokenCounter("gpt-4")
    assert o200k.exact and cl100k.exact, "the encodings litellm ships must load offline"
    import tiktoken

    want_o = len(tiktoken.get_encoding("o200k_base").encode(SAMPLE))
    want_c = len(tiktoken.get_encoding("cl100k_base").encode(SAMPLE))
    assert want_o != want_c  # the sample tells the encodings apart
    assert o200k.count(SAMPLE) == want_o
    assert cl100k.count(SAMPLE) == want_c


@pytest.mark.parametrize("model,family", [("anthropic/claude-sonnet-4-5", "claude"), ("claude-3-opus", "claude"),
                                          ("gemini/gemini-1.5-pro", "gemini"), ("groq/llama-3.1-70b", "llama"),
                                          ("mistral/mistral-large", "mistral")])
def test_other_families_get_the_correction_factor(model: str, family: str) -> None:
    base = TokenCounter("gpt-4").count(SAMPLE)
    c = TokenCounter(model)
    assert c.factor == FAMILY_CORRECTION[family] > 1.0
    assert not c.exact  # an estimate, and it says so
    assert c.count(SAMPLE) == math.ceil(base * c.factor - 1e-9) or c.count(SAMPLE) == int(base * c.factor + 0.999)
    assert c.count(SAMPLE) > base  # errs high, so budgets stay safe


@pytest.mark.parametrize("text", [b"\xff\xfe\xfd binary \x00\x80 junk", "lone \ud800 surrogate \udfff here",
                                  "a\udcff" * 50, b"", "", "\x00" * 10, "<|endoftext|> special tokens are text"])
def test_odd_input_is_counted_without_crashing(text: str | bytes) -> None:
    for model in ("gpt-4o", "gpt-4", "claude-3-5-sonnet"):
        n = TokenCounter(model).count(text)
        assert n >= 0
        assert (n > 0) == bool(text)


def test_messages_with_odd_content_are_counted() -> None:
    c = TokenCounter("gpt-4o")
    msgs = [{"role": "user", "content": "bad \ud800 text"}, {"role": "assistant", "content": None,
                                                              "tool_calls": [call("c1", command="ls")]},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "x"}]}]
    n = c.count_messages(msgs)
    assert n > REQUEST_OVERHEAD + 3 * MESSAGE_OVERHEAD


def test_engine_counts_each_item_once_and_only_new_text_per_turn() -> None:
    counter = TokenCounter("gpt-4o")
    eng = ContextEngine(Settings.default(model="gpt-4o", window=64_000), counter=counter)
    eng.pin_rule("Use pnpm, never npm.")
    eng.add_user(filler("u1", 200))
    eng.add_assistant("Looking.", [call("c1", command="ls")])
    eng.add_tool_result("c1", "run_command", filler("o1", 300))
    eng.note_file_read("src/app.py", filler("file", 400))
    eng.assemble()
    eng.assemble()

    before = counter.calls
    eng.assemble()
    assert counter.calls == before, "assembling again must not re-tokenise anything"

    for turn in range(2, 6):
        before = counter.calls
        eng.add_user(filler(f"u{turn}", 50))  # 1 text (+1 stub for last turn's tool output)
        eng.add_assistant(filler(f"a{turn}", 40), [call(f"c{turn}", command="pytest")])  # 1 text
        eng.add_tool_result(f"c{turn}", "run_command", filler(f"o{turn}", 80))  # 1 text
        eng.assemble()  # + the new call's JSON, counted once
        eng.assemble()
        grew = counter.calls - before
        assert grew <= 5, f"turn {turn} tokenised {grew} texts for 3 new items"


def test_a_text_counted_again_is_not_tokenised_again_and_counts_the_same() -> None:
    counter = TokenCounter("claude-sonnet-4")  # a corrected family: the factor applies to remembered counts too
    texts = [SAMPLE, "x" * 5000, "hello world", SAMPLE + "!"]
    first = [counter.count(t) for t in texts]
    calls = counter.calls
    assert [counter.count(t) for t in texts] == first
    assert [counter.count(t.encode()) for t in texts] == first  # bytes: the same text
    assert counter.calls == calls == len(texts)
    assert first == [TokenCounter("claude-sonnet-4").count(t) for t in texts]


def test_remembered_counts_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    import agent_tui.core.tokens as tokens

    monkeypatch.setattr(tokens, "MEMO_CHARS", 10_000)
    counter = TokenCounter("gpt-4o")
    texts = [f"{i} " + "word " * 400 for i in range(40)]  # ~2 KB each: 80 KB in all
    counts = [counter.count(t) for t in texts]
    memo = counter._memo
    assert sum(map(len, memo.data)) <= 10_000 and memo.chars == sum(map(len, memo.data))
    assert texts[-1] in memo.data and texts[0] not in memo.data  # the oldest went first
    assert [counter.count(t) for t in texts] == counts  # forgotten ones are counted again, the same


PIECES = ["\n", "\n\n", " ", "  ", "\t", "\r\n", "\r", "/", "//", "def f(x):", "    return x", "'s", "'ll", "I'm",
          "123456", "3.14", "é", "日本語", "🙂", "\u00a0", "\u2028", "\u0085", "\u3000", "-", "#", "::", "\\", "\"",
          "<|endoftext|>", "x", "ABC", "abc", "Ωmega", "e\u0301"]
line = st.tuples(
    st.sampled_from(["", " ", "  ", "\t", "    ", "\u00a0", "\u2028"]),  # indent
    st.sampled_from(["/", "//", "#", "}", ":", "-", "x", "1", "'s", "é", "", " ", "<|endoftext|>"]),  # first
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=4).map("".join),
    st.sampled_from(["", ";", ":", "}", "-", " ", "\t", "/", "'"]),  # last
    st.sampled_from(["\n", "\r\n", "\n\n", " \n", "\n \n", "\r", "\u2028", ""]),  # line end
).map("".join)
chunky = st.lists(line, max_size=30).map("".join)


@pytest.mark.parametrize("model", ["gpt-4", "gpt-4o"])  # cl100k and o200k
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=chunky)
@example(text="x;\n//comment").via("o200k takes a / right after a newline into the piece before")
@example(text="}\n/*x*/\n  a\n\n\tb\n \n-c").via("the pieces around newlines")
def test_a_text_cut_at_every_allowed_place_counts_as_the_whole(model: str, text: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import agent_tui.core.tokens as tokens

    whole = TokenCounter(model)
    expected = len(whole._enc.encode(tokens._as_text(text), disallowed_special=())) if text else 0
    monkeypatch.setattr(tokens, "CHUNK_TEXT_MIN", 1)
    monkeypatch.setattr(tokens, "CHUNK_MIN", 1)
    monkeypatch.setattr(tokens, "CHUNK_SPREAD", 1)  # every place _CUT_RE allows is a cut
    assert TokenCounter(model).count(text) == expected


def test_a_file_shown_again_after_an_edit_counts_the_same_and_reuses_its_unchanged_chunks() -> None:
    body = "\n".join(f"def handler_{i}(event):\n    return {{'id': {i}, 'ok': True}}  # line {i}" for i in range(300))
    edited = body.replace("'id': 150,", "'id': 150, 'edited': 1,")
    counter = TokenCounter("gpt-4o")
    first = counter.count(f"### app.py (600 lines)\n```\n{body}\n```")
    chunks_before = set(counter._chunk_memo.data)
    again = counter.count(f"### app.py (600 lines, edited)\n```\n{edited}\n```")
    new_chunks = set(counter._chunk_memo.data) - chunks_before
    assert first == TokenCounter("gpt-4o")._enc.encode(f"### app.py (600 lines)\n```\n{body}\n```").__len__()
    assert again == len(TokenCounter("gpt-4o")._enc.encode(f"### app.py (600 lines, edited)\n```\n{edited}\n```"))
    assert len(chunks_before) > 10 and 0 < len(new_chunks) <= 4  # the header's chunk and the edited one


def _trace_texts() -> list[str]:
    from pathlib import Path

    from agent_tui.bench.adapters import load_sessions
    from tests.bench.helpers import SHARED_TRACES

    roots = [Path(__file__).resolve().parents[1] / "bench" / "fixtures"]
    roots += [SHARED_TRACES] if SHARED_TRACES.is_dir() else []
    out = [s.system_prompt for s in load_sessions(roots)]
    out += [t for s in load_sessions(roots) for m in s.messages for t in (m.content, m.raw_output)]
    return [t for t in dict.fromkeys(out) if t]


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_recorded_texts_cut_at_every_allowed_place_count_as_the_whole(encoding: str) -> None:
    import agent_tui.core.tokens as tokens

    enc = tokens._encoding(encoding)
    texts = _trace_texts()
    assert len(texts) > 10
    for text in texts:
        text = tokens._as_text(text)
        cuts = [0] + [m.end() for m in tokens._CUT_RE.finditer(text)] + [len(text)]
        parts = sum(len(enc.encode(text[a:b], disallowed_special=())) for a, b in zip(cuts, cuts[1:], strict=False))
        assert parts == len(enc.encode(text, disallowed_special=())), text[:200]
