"""MCP tools through the real loop: meta-tools reach the manager, MCP calls pass approval."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_tui.agent import events as ev
from tests.agent.helpers import make_repo, run_mcp_turn
from tests.support.fake_openai import Reply


async def test_model_finds_enables_and_calls_an_mcp_tool(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}}))
    fake_llm.script(
        Reply.tool_call("find_tools", {"query": "current time timezone"}),
        Reply.tool_call("time__get_current_time", {"timezone": "Asia/Tokyo"}),
        Reply.text("It is late in Tokyo."),
    )
    events = await run_mcp_turn(root, fake_llm.base_url, "hello there")
    finished = {e.name: e for e in events if isinstance(e, ev.ToolCallFinished)}
    assert not finished["find_tools"].is_error and "time__get_current_time" in finished["find_tools"].text
    assert not finished["time__get_current_time"].is_error, finished["time__get_current_time"].text
    assert "Asia/Tokyo" in finished["time__get_current_time"].text
    first_tools = {t["function"]["name"] for t in fake_llm.requests[0].tools}
    assert {"find_tools", "enable_tools"} <= first_tools
    assert "read_file" in first_tools


async def test_an_mcp_call_is_asked_as_a_call_of_its_server_with_its_whole_arguments(tmp_path: Path,
                                                                                     fake_llm) -> None:
    """A tool that only reads but may reach the outside world is asked about; the dialog's request names
    the server and why, and shows every argument (not a diff, not cut at 800 characters)."""
    from tests.mcp.mcp_testkit import fault_server

    root = make_repo(tmp_path / "proj")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"fault": fault_server()}}))
    text = "word " * 400 + "THE-END"
    fake_llm.script(Reply.tool_call("enable_tools", {"names": ["fault__echo"]}),
                    Reply.tool_call("fault__echo", {"text": text}), Reply.text("done"))
    asked: list[ev.ApprovalRequested] = []

    async def approver(req: ev.ApprovalRequested) -> str:
        asked.append(req)
        return "once"

    events = await run_mcp_turn(root, fake_llm.base_url, "echo it", approver=approver)
    (req,) = asked
    assert req.name == "fault__echo" and req.server == "fault" and req.path is None
    assert "not closed to the outside world (openWorldHint)" in req.reason
    assert req.preview.startswith("fault__echo {") and "THE-END" in req.preview
    finished = [e for e in events if isinstance(e, ev.ToolCallFinished) and e.name == "fault__echo"]
    assert finished and not finished[0].is_error and "THE-END" in finished[0].text


def test_no_configured_server_never_imports_the_mcp_sdk(tmp_path: Path) -> None:
    """The MCP SDK costs ~1.4 s of imports at every start: a session without servers must not load it."""
    import subprocess

    root = make_repo(tmp_path / "proj")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from agent_tui.agent.mcp_setup import make_mcp_manager\n"
        "from tests.agent.helpers import make_agent\n"
        f"agent, ws = make_agent(Path({str(root)!r}), 'http://127.0.0.1:9/v1')\n"
        "assert make_mcp_manager(agent.engine, ws.root, workspace_json=True) is None\n"
        "ws.close()\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'agent_tui.mcp.manager'))))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=repo, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]", proc.stdout
