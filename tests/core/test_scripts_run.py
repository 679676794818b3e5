"""Which paths a shell command runs as programs (core/scripts_run)."""

from __future__ import annotations

import pytest

from agent_tui.core.scripts_run import commands_of, same_file, scripts_run


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python reproduce.py", ["reproduce.py"]),
        ("cd /testbed && python3 -u ./test_fix.py --flag", ["test_fix.py"]),
        ("/usr/bin/python3.11 -W error x.py | head", ["x.py"]),
        ("./run.sh && bash scripts/check.sh; node tools/a.js", ["run.sh", "scripts/check.sh", "tools/a.js"]),
        ("deno run main.ts", ["main.ts"]),
        ("python -m pytest tests/test_x.py", []),
        ("python -c 'print(1)' x.py", []),
        ("pytest tests/test_x.py", []),
        ("mix test test/a_test.exs", []),
        ("echo python x.py", []),
        ("cat > a.py << EOF\npython b.py\nEOF\npython a.py", ["a.py"]),
        ("python 'unterminated", []),
    ],
)
def test_scripts_run(command: str, expected: list[str]) -> None:
    assert scripts_run(command) == expected


def test_commands_of_tool_calls() -> None:
    calls = [{"function": {"name": "run_shell", "arguments": '{"command": "python x.py"}'}},
             {"function": {"name": "read_file", "arguments": '{"path": "x.py"}'}},
             {"function": {"name": "run_shell", "arguments": "{not json"}}]
    assert commands_of(calls) == ["python x.py"]


def test_same_file() -> None:
    assert same_file("/testbed/reproduce.py", "reproduce.py")
    assert same_file("reproduce.py", "/work/ws/reproduce.py")
    assert same_file("a/b.py", "a/b.py")
    assert not same_file("/testbed/xreproduce.py", "reproduce.py")
    assert not same_file("a.py", "")
