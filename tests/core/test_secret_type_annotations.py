"""Python type annotations on secret-named parameters are code, not secrets.

The assignment rule read ``key: Union[slice, TagType]`` as the secret ``Union[slice``: a file the agent read
reached the model as ``key: [REDACTED:secret], TagType]`` (found replaying a recorded pydicom session), so
the model saw code that is not in the file and could not quote the line in an edit.  A value with a digit,
or with brackets that follow no identifier, stays a secret."""

from __future__ import annotations

import pytest

from agent_tui.core.redact import Redactor
from agent_tui.core.secrets import find_secrets


def redacted(text: str) -> str:
    assert find_secrets(text) == find_secrets(text, prefilter=False)
    return Redactor()(text)


@pytest.mark.parametrize("text", [
    "    def __getitem__(\n        self, key: Union[slice, TagType]\n    ) -> Dataset:",
    "def login(user: str, token: Optional[str] = None) -> None:",
    "    api_key: Dict[str, Any] = field(default_factory=dict)",
    "secret_keys: typing.List[str] = []",
    "def f(password: Annotated[str, Secret]) -> None: ...",
])
def test_a_subscripted_type_after_a_secret_name_is_left_alone(text: str) -> None:
    assert redacted(text) == text


@pytest.mark.parametrize("text, secret", [
    ("password: s3cr3t[pass]word", "s3cr3t[pass]word"),
    ("token: [abcdefghijklmnop]", "abcdefghijklmnop"),
    ('api_key = "Optional[abcdefgh12345]"', "Optional[abcdefgh12345]"),
])
def test_a_value_with_brackets_that_is_no_type_is_still_masked(text: str, secret: str) -> None:
    out = redacted(text)
    assert "[REDACTED" in out
    assert secret not in out
