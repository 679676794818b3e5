"""A server that prints credentials to stderr and dies: they reach no log, no error, no model request.

``leaky_server`` prints a bearer token of no known format, an OpenAI-format key, a GitHub token, the
secret its config gives it, a PEM private key and a title escape sequence, then exits — once before
it answers ``initialize``, once in the middle of a tool call the model made.  The server's log file,
its status error (what the MCP panel and ``agent-tui mcp list`` show), the loop's events and every
request sent to the (fake) model are searched for each secret and for the escape character.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from leaky_server import CONFIGURED, SECRETS

from agent_tui.agent import events as ev
from agent_tui.mcp.config import load_mcp_config
from agent_tui.mcp.connection import Backoff
from agent_tui.mcp.manager import McpManager
from tests.agent.helpers import make_repo, run_mcp_turn
from tests.support.fake_openai import FakeOpenAI, Reply

LEAKY = str(Path(__file__).with_name("leaky_server.py"))


def leaks(text: str) -> list[str]:
    """The secrets (and the escape character) found in ``text``."""
    return [s for s in (*SECRETS, "\x1b") if s in text]


def logs_under(*roots: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for root in roots for p in root.rglob("*.log"))


async def test_a_server_that_dies_at_start_leaves_no_secret_in_its_error_or_log(tmp_path: Path) -> None:
    table = {"servers": {"leaky": {"command": sys.executable, "args": [LEAKY, "--die-at-start"],
                                   "env": {"LEAKY_API_TOKEN": CONFIGURED}}}}
    manager = McpManager(load_mcp_config(table, tmp_path), tmp_path / "logs",
                         backoff=Backoff(first=0.05, max_failures=1))
    await manager.start()
    try:
        status = manager.status()[0]
        error = status.error or ""
        assert "stderr:" in error and "[REDACTED:" in error, error
        assert "env dump" in error, "the server's last words are still quoted"
        assert leaks(error) == [], error
        log = logs_under(tmp_path / "logs")
        assert "upstream said 401" in log and "[REDACTED:private-key]" in log, log
        assert leaks(log) == [], log
    finally:
        await manager.close()


async def test_a_server_that_dies_in_a_call_leaves_no_secret_for_the_model(tmp_path: Path,
                                                                        fake_llm: FakeOpenAI) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"leaky": {
        "command": sys.executable, "args": [LEAKY], "env": {"LEAKY_API_TOKEN": CONFIGURED}}}}))
    fake_llm.script(
        Reply.tool_call("find_tools", {"query": "upstream api boom"}),
        Reply.tool_call("leaky__boom", {}),
        Reply.text("The server died."),
    )
    events = await run_mcp_turn(root, fake_llm.base_url, "call the upstream api")
    boom = next(e for e in events if isinstance(e, ev.ToolCallFinished) and e.name == "leaky__boom")
    assert boom.is_error and "died" in boom.text and "its last stderr" in boom.text, boom.text
    assert "[REDACTED:" in boom.text and "env dump" in boom.text, boom.text
    for e in events:
        assert leaks(repr(e)) == [], e
    sent = json.dumps([r.messages for r in fake_llm.requests])
    assert "env dump" in sent, "the model was told what the server said"
    assert leaks(sent) == []
    log = logs_under(root, tmp_path)
    assert "upstream said 401" in log
    assert leaks(log) == [], log


def test_the_log_has_what_the_child_wrote_once_settled(tmp_path: Path) -> None:
    from agent_tui.mcp.server_log import MAX_LINE, ServerLog

    path = tmp_path / "s.log"
    log = ServerLog(path)
    log.note("connecting (stdio)")
    child = log.child_stderr()
    child.write(f"Authorization: Bearer {SECRETS[0]}\n" + "x" * (MAX_LINE + 10) + "\npartial line")
    child.flush()
    log.settle(30.0)  # a hang guard: it returns as soon as the pipe is drained
    text = path.read_text()
    assert "[REDACTED:authorization]" in text and SECRETS[0] not in text
    assert "(10 bytes cut)" in text, "a huge line is cut, not buffered forever"
    log.close()
    log._pump.join(30.0)  # type: ignore[union-attr]
    assert path.read_text().endswith("partial line\n"), "the last, unterminated line is kept at the end"


def test_mcp_list_shows_a_server_given_escape_sequence_instead_of_printing_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Tool names and errors in ``agent-tui mcp list`` come from the server: printed escaped."""
    import argparse

    from agent_tui.mcp import cli

    report = {"servers": [{"name": "evil", "status": "down", "tokens_raw": 1, "tokens_shaped": 1,
                           "error": "boom \x1b]52;c;eA==\x07", "tools": [{"name": "x\x1b[8my", "tokens_raw": 1,
                                                                        "tokens_shaped": 1}]}],
              "totals": {"servers": 1, "servers_up": 0, "tools": 1, "tokens_raw": 1, "tokens_shaped": 1,
                         "tokens_meta": 1, "tokens_listing": 1}, "errors": []}

    async def fake_collect(*_: object) -> dict[str, object]:
        return report

    monkeypatch.setattr(cli, "collect", fake_collect)
    cli.run_mcp_list(argparse.Namespace(workspace=str(tmp_path), config=None, json=False))
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b]52;c;eA==" in out and "x\\x1b[8my" in out


async def test_the_sdks_own_log_masks_a_token_a_server_printed_on_stdout(tmp_path: Path) -> None:
    """The SDK logs a stdout line it cannot parse, quoting it (pydantic's ``input_value``): that log was written
    as is, token and all, where sandboxed commands of the workspace can read it."""
    import logging

    sdk = logging.getLogger("mcp")
    before = list(sdk.handlers)
    for h in [h for h in sdk.handlers if getattr(h, "_agent_tui", False)]:
        sdk.removeHandler(h)
    table = {"servers": {"leaky": {"command": sys.executable, "args": [LEAKY, "--stdout-noise"]}}}
    manager = McpManager(load_mcp_config(table, tmp_path), tmp_path / "logs", backoff=Backoff(first=0.05))
    try:
        await manager.start()
        assert manager.status()[0].error is None
    finally:
        await manager.close()
        for h in list(sdk.handlers):
            if getattr(h, "_agent_tui", False):
                h.flush()
                sdk.removeHandler(h)
        for h in before:
            if h not in sdk.handlers:
                sdk.addHandler(h)
    sdk_log = (tmp_path / "logs" / "mcp-sdk.log").read_text()
    assert "[REDACTED:github-token]" in sdk_log, sdk_log
    assert leaks(sdk_log) == [], sdk_log
