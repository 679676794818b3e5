"""``fd -x``/``-X`` runs a command on what it finds, as ``find -exec`` does; ``rsync -e`` and ``man -P`` name a
program to run (audit 6).  A rule for ``fd``, ``rsync`` or ``man`` does not cover those commands: the command fd
runs needs a rule of its own and deny rules read it, and the program-naming options are asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent.permissions import Policy


def decide(command: str, tmp_path: Path, sandboxed: bool = False) -> str:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    p = Policy.from_config({"deny_commands": ["rm -rf"], "allow_commands": ["fd", "fdfind", "rsync", "man", "ls"]},
                           interactive=True, workspace=ws)
    p.sandboxed = sandboxed
    return p.verdict("run_command", "command", {"command": command}).decision


@pytest.mark.parametrize("line", ["fd . -X rm -rf", "fd -x rm -rf", "fdfind -e tmp -x rm -rf", "fd -HX rm -rf"])
def test_a_deny_rule_reads_the_command_fd_runs(line: str, tmp_path: Path) -> None:
    assert decide(line, tmp_path) == "deny"


@pytest.mark.parametrize("line", [
    "fd . -X sh -c id", "fd -Hx sh -c id", "fd --exec=sh -c id", "fd --exec-batch python3 -c 1",
    "rsync -avze 'sh -c id' a b:c", "rsync -e 'sh -c id' a b:c", "rsync --rsh=evil a b:c", "rsync --rsync-path=x a b:c",
    "man -P 'sh -c id' ls", "man --pager=evil ls", "man -Hfirefox ls", "man -C ./man.conf ls",
])
def test_an_allow_rule_does_not_cover_a_program_the_line_names(line: str, tmp_path: Path) -> None:
    assert decide(line, tmp_path) == "ask"


@pytest.mark.parametrize("line", ["fd -e py", "fd -e py -x ls", "fd . -X ls", "rsync -av a b", "rsync -avf '- *.o' a b",
                                  "man ls", "man -k foo", "man 3 printf"])
def test_plain_uses_stay_allowed(line: str, tmp_path: Path) -> None:
    assert decide(line, tmp_path) == "allow"
