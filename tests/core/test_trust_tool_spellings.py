"""An MCP tool whose server name starts with a digit is sent as ``_1password__get`` and written by the user as
``1password__get``; a workspace spelling it the other way must not turn the user's ``deny`` into ``ask``
(audit 6).  Whatever the spellings, the strictest decision wins."""

from __future__ import annotations

from pathlib import Path

from agent_tui.agent.permissions import Policy
from agent_tui.core.config import load_config
from agent_tui.core.tool_names import strictest_key


def test_the_workspace_spelling_is_a_loosening_the_user_is_asked_about(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".agent-tui").mkdir(parents=True)
    (root / ".agent-tui" / "config.toml").write_text('[approval]\ntools = { "_1password__get" = "ask" }\n')
    user = tmp_path / "user.toml"
    user.write_text('[approval]\ntools = { "1password__get" = "deny" }\n')
    loaded = load_config(root, user_file=user, trust=None, trust_file=tmp_path / "trusted.toml")
    assert [a.key for a in loaded.trust.asks] == ["approval.tools._1password__get"]
    policy = Policy.from_config(loaded.settings.approval, interactive=True, workspace=root)
    assert policy.verdict("_1password__get", "mcp", {}).decision == "deny"


def test_between_two_spellings_the_strictest_decision_wins() -> None:
    for tools in ({"1password__get": "deny", "_1password__get": "ask"},
                  {"_1password__get": "deny", "1password__get": "allow"}):
        key = strictest_key(tools, "_1password__get")
        assert key is not None and tools[key] == "deny"
    assert strictest_key({"1password__get": "allow"}, "_1password__get") == "1password__get"
    assert strictest_key({"github__search": "allow"}, "_1password__get") is None
