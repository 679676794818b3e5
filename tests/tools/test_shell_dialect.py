"""What the approval rules read is what runs: commands run with bash, the dialect they are parsed in.

A fourth trust audit found `/bin/sh` (dash on Debian) splitting lines the tree-sitter-bash parse
reads as one command: with `allow_outside_commands = ["git commit"]`, `git commit $'\\' ; X #'` and
`git commit &>/dev/null sh setup.sh` ran X / setup.sh outside the sandbox, unasked."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_tui.agent.permissions import Policy
from agent_tui.tools.cmd_env import command_env
from agent_tui.tools.cmdparse import parse_command
from agent_tui.tools.shell_dialect import bash_path, shell_argv
from agent_tui.tools.shell_exec import run_shell


def _run(command: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    return asyncio.run(run_shell(command, cwd, 20, env=env)).output


def _setup_script(ws: Path, marker: str = "PWNED") -> None:
    (ws / "setup.sh").write_text(f"touch {marker}\n")


@pytest.mark.parametrize(("line", "decision"), [
    ("git commit $'\\' ; touch PWNED #'", "allow"),
    ("git commit -q &>/dev/null sh setup.sh", "allow"),
    ("git commit &>/dev/null ; touch PWNED", "ask"),
])
def test_a_line_an_allow_rule_covers_runs_as_the_rule_read_it(tmp_path: Path, line: str, decision: str) -> None:
    _setup_script(tmp_path)
    p = Policy.from_config({"allow_outside_commands": ["git commit"]}, workspace=tmp_path)
    p.sandboxed = True
    verdict = p.verdict("run_command", "command", {"command": line, "outside_sandbox": True})
    assert verdict.decision == decision, verdict.reason
    if decision == "allow":  # the program does not matter, what the shell makes of the rest does
        _run(line.replace("git commit", "true", 1), tmp_path)
        assert not (tmp_path / "PWNED").exists(), f"allowed as one command, ran another: {verdict.reason}"


def test_the_words_after_a_redirections_target_are_the_commands_arguments(tmp_path: Path) -> None:
    parsed = parse_command("git commit &>/dev/null --no-verify")
    assert parsed.commands[0].argv == ("git", "commit", "--no-verify")
    p = Policy.from_config({"allow_commands": ["git commit"], "deny_commands": ["git commit --no-verify"]},
                           workspace=tmp_path)
    assert p.decide("run_command", "command", {"command": "git commit &>/dev/null --no-verify"}) == "deny"
    outside = parse_command("echo x > /tmp/elsewhere b")  # bash writes "x b" to /tmp/elsewhere
    assert outside.writes_outside(tmp_path) == ["/tmp/elsewhere"]
    _run("echo x > out.txt b", tmp_path)
    assert (tmp_path / "out.txt").read_text() == "x b\n", "and bash agrees"
    assert parse_command("{ echo; } > a b").error is not None, "where bash refuses the words, nothing is allowed"


def test_without_bash_no_rule_allows_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = Policy.from_config({"allow_commands": ["pytest"]}, workspace=tmp_path)
    assert p.decide("run_command", "command", {"command": "pytest -q"}) == "allow"
    monkeypatch.setattr("agent_tui.agent.permissions.rules_apply", lambda: False)
    v = p.verdict("run_command", "command", {"command": "pytest -q"})
    assert v.decision == "ask" and "no bash" in v.reason and v.prefix is None


def test_the_command_runs_with_bash(tmp_path: Path) -> None:
    assert bash_path() is not None and shell_argv("x")[0] == bash_path()
    assert _run("echo $BASH_VERSION", tmp_path).strip() != ""


def test_bash_start_up_code_and_exported_functions_are_not_inherited(tmp_path: Path) -> None:
    rc = tmp_path / "rc.sh"
    rc.write_text("touch FROM_BASH_ENV\n")
    env = {**os.environ, "BASH_ENV": str(rc), "ENV": str(rc), "BASH_FUNC_git%%": "() { touch FROM_FUNCTION; }",
           "SHELLOPTS": "xtrace"}
    clean = command_env(("BASH_ENV",), base=env)
    assert not {"BASH_ENV", "ENV", "BASH_FUNC_git%%", "SHELLOPTS"} & set(clean), "not even when pass_env names it"
    out = _run("git --version >/dev/null 2>&1; echo done", tmp_path, env=clean)
    assert "done" in out and not (tmp_path / "FROM_BASH_ENV").exists() and not (tmp_path / "FROM_FUNCTION").exists()
    _run("true", tmp_path, env=env)  # the check has teeth: inherited as is, bash runs the file
    assert (tmp_path / "FROM_BASH_ENV").exists()


_PIECES = st.sampled_from([
    " ", "x", "'", '"', "\\", "$'", "$", ";", "#", "&>", ">", "<", "&", "|", "\n", "(", ")", "{", "}", "`",
    " touch PWNED", "touch PWNED", "sh setup.sh", " -q", "&>/dev/null", "2>&1", "<<<", "$(", "${", "!",
    " <<EOF", "<<-EOF", "\nEOF\n", " && ", " || ", "| sh",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tail=st.lists(_PIECES, max_size=10).map("".join))
@example(tail=" $'\\' ; touch PWNED #'")
@example(tail=" &>/dev/null sh setup.sh")
@example(tail="=~&>;x")  # a redirection inside the command (no statement around it): the parse raised
@example(tail=" <<EOF && touch PWNED\nx\nEOF\n")  # the rest of a heredoc's line was read as echo's words
@example(tail=" <<EOF | sh setup.sh\nx\nEOF\n")
def test_whatever_a_prefix_rule_allows_never_runs_another_program(tmp_path: Path, tail: str) -> None:
    """The rule covers `echo`; any line it allows, bash runs as echo alone (no PWNED file appears)."""
    for leftover in tmp_path.iterdir():
        if leftover.is_dir():
            continue
        leftover.unlink()
    _setup_script(tmp_path)
    line = "echo" + tail
    p = Policy.from_config({"allow_commands": ["echo"]}, workspace=tmp_path)
    if p.decide("run_command", "command", {"command": line}) != "allow":
        return
    _run(line, tmp_path)
    made = {q.name for q in tmp_path.iterdir()} - {"setup.sh"}
    assert "PWNED" not in made, f"{line!r} was allowed as `echo` and ran more"
    for name in made:  # a redirect the rules allowed wrote inside the workspace, nowhere else
        assert stat.S_ISREG((tmp_path / name).lstat().st_mode)


def test_what_follows_a_heredoc_on_its_line_is_read_as_what_it_is(tmp_path: Path) -> None:
    """The grammar puts the rest of a heredoc's line inside its node: a review found whole commands read as
    words of the first one (`git commit -F- <<EOF && bash -c id` allowed outside the sandbox by a `git commit`
    rule, a deny rule on `git push --force` blind to it, `> ~/.bashrc` not seen as a write)."""
    p = Policy.from_config({"allow_outside_commands": ["git commit"], "deny_commands": ["git push --force"]},
                           workspace=tmp_path)
    p.sandboxed = True
    line = "git commit -F- <<EOF && bash -c id\nmsg\nEOF"
    assert p.decide("run_command", "command", {"command": line, "outside_sandbox": True}) == "ask"
    pushed = "git commit -F- <<EOF && git push --force\nmsg\nEOF"
    assert p.decide("run_command", "command", {"command": pushed, "outside_sandbox": True}) == "deny"
    parsed = parse_command("cat <<EOF > ~/.bashrc\nx\nEOF")
    assert parsed.writes_outside(tmp_path) == ["(a computed path)"]
    assert [c.argv for c in parse_command("cat <<EOF notes.txt\nx\nEOF").commands] == [("cat", "notes.txt")]
    assert {c.argv for c in parse_command("cat <<EOF | sh\nx\nEOF").commands} == {("cat",), ("sh",)}
