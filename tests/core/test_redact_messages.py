"""Redactor.messages returns a clean message itself without copying it, and a message with a
secret (anywhere but the provider's reasoning fields and the call ids) redacted, exactly as a full copy would."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.core.redact import REQUEST_IDS, UNTOUCHED_FIELDS, Redactor

#: A known secret value as short as one can be (a field that is exactly it must still be masked).
KNOWN = "s3cr3tAB"
SECRETS = ["ghp_" + "Ab1" * 12, "AKIAIOSFODNN7EXAMPLE", "DB_PASSWORD=s3cr3t-value", "sk_live_" + "a1B2" * 6, KNOWN]
strings = st.one_of(st.text(max_size=30), st.sampled_from(SECRETS),
                    st.tuples(st.text(max_size=10), st.sampled_from(SECRETS)).map(" ".join))
values = st.recursive(st.one_of(strings, st.integers(), st.none()),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.sampled_from(["content", "arguments", "function",
                                                                               "reasoning_content", "signature", "id",
                                                                               "tool_call_id"]),
                                                              inner, max_size=3)),
                      max_leaves=8)
messages = st.lists(st.dictionaries(st.sampled_from(["role", "content", "tool_calls", "thinking_blocks", "name"]),
                                    values, max_size=4), max_size=4)


def copied(r: Redactor, msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Redactor.messages as it was: every message copied, then compared."""
    out = []
    for m in msgs:
        red = r.value(m, UNTOUCHED_FIELDS | REQUEST_IDS)
        out.append(m if red == m else red)
    return out


@settings(max_examples=300, deadline=None)
@given(messages)
def test_messages_equal_a_full_copy_and_keep_clean_ones(msgs: list[dict[str, Any]]) -> None:
    r = Redactor([KNOWN])
    expected = copied(Redactor([KNOWN]), msgs)
    got = r.messages(msgs)
    assert got == expected
    assert [g is m for g, m in zip(got, msgs, strict=True)] == [e is m for e, m in zip(expected, msgs, strict=True)]


def test_call_ids_pass_as_the_provider_made_them_and_everything_else_is_masked() -> None:
    """A provider's call id can look like a token (``call_00_nJhzRFg5SVerhbtSvUvq8kKs``); masking it would
    unpair the call from its result.  The arguments beside it and a result's text are still scanned."""
    token = "ghp_" + "Ab1" * 12
    msgs = [{"role": "assistant", "content": None,
             "tool_calls": [{"id": token, "type": "function", "function": {"name": "f", "arguments": f'{{"t": "{token}"}}'}}]},
            {"role": "tool", "tool_call_id": token, "content": f"echo {token}"}]
    got = Redactor([]).messages(msgs)
    assert got[0]["tool_calls"][0]["id"] == token and got[1]["tool_call_id"] == token
    assert token not in got[0]["tool_calls"][0]["function"]["arguments"] and token not in got[1]["content"]
    assert Redactor([]).value(msgs[1])["tool_call_id"] != token  # (outside a request, e.g. the store, as before)
