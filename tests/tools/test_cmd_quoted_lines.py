"""A line break inside double quotes is part of the word: tree-sitter-bash leaves it out of every child of the
string, and `python3 -c "import sys⏎for …"` was read as `import sysfor …`, so the rules saw another argument
than bash runs, and the approval's "Why asked" showed text that was not in the command."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.agent.permissions import Policy
from agent_tui.tools.argv_text import shown_argv
from agent_tui.tools.cmdparse import parse_command


@pytest.mark.parametrize("line", [
    'printf "%s|" "import sys\nfor i in x"', 'printf "%s|" "a\n$HOME\nb"', 'printf "%s|" "x\\\ny"',
    'printf "%s|" "a\n\n  b" tail"\n"', 'printf "%s|" "a\\"b\nc"', 'printf "%s|" $"t\nx"',
])
def test_the_words_are_what_bash_passes(line: str) -> None:
    (command,) = parse_command(line).commands
    ran = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env={"HOME": "$HOME"}).stdout
    assert "|".join(command.argv[2:]) + "|" == ran


def test_why_asked_shows_the_line_break_and_reads_like_the_command(tmp_path: Path) -> None:
    p = Policy.from_config({}, workspace=tmp_path)
    p.sandboxed = True
    reason = p.verdict("run_command", "command", {
        "command": "python3 -c \"import sys\nfor i in range(3): print(f'line {i}')\""}).reason
    assert "`python3 -c \"import sys⏎for i in range(3): print(f'line {i}')\"`" in reason, reason
    assert "sysfor" not in reason and "'\"'\"'" not in reason
    assert shown_argv(["git", "commit", "-m", "it's $HOME"]) == "git commit -m 'it'\"'\"'s $HOME'"
    assert shown_argv(["ls", "-la", "my dir"]) == "ls -la 'my dir'"
