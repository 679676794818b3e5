"""Test support: an OpenAI-compatible fake model server and its fixtures."""

from .fake_openai import FakeOpenAI, RecordedRequest, Reply, ToolCallSpec, check_tool_pairing

__all__ = ["FakeOpenAI", "RecordedRequest", "Reply", "ToolCallSpec", "check_tool_pairing"]
