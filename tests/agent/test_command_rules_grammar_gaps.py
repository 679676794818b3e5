"""Where tree-sitter-bash and bash disagree, the rules go by what bash runs (``tools/cmd_spans``).

A security review found lines an allow rule for `ls`, `cat`, `git status` or `pytest` auto-approved while bash ran
a command hidden in them: a `#` bash reads as part of a word (`\\ #`), which the grammar took for a comment;
backticks in an unquoted heredoc body or a `${x:-…}` operand, which the grammar keeps as text; a single quote in a
heredoc body, which is no quoting there; a `$'…'` decoded inside `${…}`; a read on a descriptor other than 0
(`3<~/.ssh/id_rsa`); a second review: a `{a[…]}>` descriptor name (bash evaluates the subscript), `$\\⏎(`
(bash joins the lines first), a `<(…)` inside `${x:-…}`.  Each line here is first run by bash to show that it
really runs `touch pwn`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.agent.permissions import Policy

ALLOW = ["pytest", "git status", "git commit", "ls", "cat", "echo", "python -m pytest"]

HIDDEN = [
    "ls \\ #; touch pwn",
    "git status \\ #;touch pwn",
    "ls \\\t#; touch pwn",
    "ls \\ # | touch pwn",
    "cat <<EOF\n`touch pwn`\nEOF",
    "cat <<-EOF\n`touch pwn`\nEOF",
    "cat <<EOF\n${x:-`touch pwn`}\nEOF",
    "ls <<<${x:-`touch pwn`}",
    "case ${x:-`touch pwn`} in *) ls;; esac",
    "for i in ${x:-`touch pwn`}; do ls; done",
    "ls; [[ ${x:-`touch pwn`} ]]",
    'ls "${x:=`touch pwn`}"',
    "ls \"${x-'`touch pwn`'}\"",
    "ls \"${x-$'\\x60touch pwn\\x60'}\"",
    "for f in *; do cat <<EOF\n'${a[f]}'\nEOF\ndone",
    "ls {a['`touch pwn`']}>/dev/null",
    "git status {a['`touch pwn`']}>&2",
    "for f in *; do ls {a[f]}>&2; done",
    'git commit --dry-run -m "$\\\n(touch pwn)"',
    'echo "a$\\\n(touch pwn)b"',
    "case ${x:-<(touch pwn)} in *) ls;; esac",
    "ls <<<${x:-<(touch pwn)}",
    "for i in ${x:-<(touch pwn)}; do ls; done",
    "ls; [[ -n ${x:->(touch pwn)} ]]",
]
"""Lines that run `touch pwn` (the last one through a file name the repository ships)."""

PLAIN = ["ls -la", "ls # a comment", "ls; # c", "ls #x", "cat <<'EOF'\n`not run`\nEOF", "git status # `x`",
         "cat 'a`b`'", "ls 'a$(b)'", "ls foo\\#bar", "pytest -k 'a or b'", "cat <<EOF\nplain 'text' here\nEOF",
         "cat \\`x\\`"]
"""Lines the rules still allow: comments where bash starts one, quotes that quote, escaped backticks."""


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "x[$(touch pwn)]").write_text("")  # a file name that runs code when bash evaluates it as a subscript
    return ws


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to show the line runs code")
@pytest.mark.parametrize("line", HIDDEN)
def test_bash_runs_the_hidden_command_and_the_rules_ask(tmp_path: Path, line: str) -> None:
    ws = _workspace(tmp_path)
    subprocess.run(["bash", "-c", line], cwd=ws, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    assert (ws / "pwn").exists(), "the line does not run `touch pwn`: not a bypass worth guarding"
    (ws / "pwn").unlink()
    for sandboxed in (True, False):
        p = Policy.from_config({"allow_commands": ALLOW}, workspace=ws)
        p.sandboxed = sandboxed
        v = p.verdict("run_command", "command", {"command": line})
        assert v.decision == "ask", (line, sandboxed, v)


@pytest.mark.parametrize("line", PLAIN)
def test_comments_and_real_quotes_are_still_allowed(tmp_path: Path, line: str) -> None:
    p = Policy.from_config({"allow_commands": ALLOW}, workspace=_workspace(tmp_path))
    assert p.verdict("run_command", "command", {"command": line}).decision == "allow", line


@pytest.mark.parametrize("line", ["cat 3<~/.ssh/id_rsa <&3", "cat 3</etc/passwd 0<&3", "cat 3<../x <&3",
                                  "ls 3</dev/tcp/example.com/80", "cat {fd}<$HOME/.bashrc"])
def test_a_read_on_any_descriptor_is_checked_like_one_on_stdin(tmp_path: Path, line: str) -> None:
    """On the host `cat 3<$SECRET <&3` handed the model a file `cat $SECRET` was asked for."""
    p = Policy.from_config({"allow_commands": ALLOW}, workspace=_workspace(tmp_path))
    p.sandboxed = False
    v = p.verdict("run_command", "command", {"command": line})
    assert v.decision == "ask", (line, v)
    assert "outside the workspace" in v.reason, v
