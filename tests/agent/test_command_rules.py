"""Commands are parsed, not globbed: chained forms are never auto-approved by a prefix, deny rules
see through spelling and wrappers, and "always" remembers the exact line or an explicit prefix."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from agent_tui.agent.command_rules import CommandRules, offered_prefix
from agent_tui.agent.permissions import Policy
from agent_tui.core.config import ConfigError
from agent_tui.tools.cmdparse import parse_command

X = "touch /tmp/agent-tui-pwned"
NAME_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")

#: The chained forms from issue 9: each one ran X with allow_commands = ["pytest*"].
CHAINED = [
    f"pytest -q; {X}",
    f"pytest -q && {X}",
    f"pytest -q || {X}",
    f"pytest -q $({X})",
    f"pytest -q `{X}`",
    f"pytest -q\n{X}",
    f"pytest -q | {X}",
    "pytest -q > /tmp/outside-the-workspace.txt",
    f"pytest -q & {X}",
    f'pytest -q "$({X})"',
    f"pytest -q <({X})",
    f"pytest -q\r\n{X}",
    f"pytest -q <<EOF\n$({X})\nEOF",
    f"FOO=$({X}) pytest -q",
]


def _victim(tmp: str = "/tmp/victim") -> list[str]:
    v = tmp
    return [
        f"rm -rf {v}", f"rm  -rf {v}", f"/bin/rm -rf {v}", f"\\rm -rf {v}", f"rm -fr {v}", f"rm -r -f {v}",
        f"rm --recursive --force {v}", f"rm -Rf {v}", f"bash -c 'rm -rf {v}'", f'sh -c "rm -fr {v}"',
        f"env rm -rf {v}", f"find {v} -delete", f"echo {v} | xargs rm -rf",
        f"python3 -c \"import shutil; shutil.rmtree('{v}')\"", f'"rm" -rf {v}', f"command rm -rf {v}",
        f"nice -n 5 rm -rf {v}", f"sudo rm -rf {v}", f"timeout 5 rm -rf {v}", f"find {v} -exec rm -rf {{}} +",
        f"perl -e 'use File::Path; rmtree(\"{v}\")'", f"nohup rm -rf {v} &", f"exec rm -rf {v}",
        f"env -i PATH=/bin bash -lc 'cd / && rm -rf {v}'", f"r''m -rf {v}", f"$'\\x72m' -rf {v}",
        f"python3 -c 'import os; os.system(\"rm -rf {v}\")'", f"true && rm -r -f {v}", f"rm -rf {v} $(",
        # found by trying more: wrappers, aliases, abbreviations, variables, code fed to a shell's input
        f"eval 'rm -rf {v}'", f"su -c 'rm -rf {v}'", f"script -qc 'rm -rf {v}'", f'bash -c "$(echo rm -rf {v})"',
        f"coproc rm -rf {v}", f"chrt -i 0 rm -rf {v}", f"taskset 1 rm -rf {v}", f"parallel rm -rf ::: {v}",
        f"RM=rm; $RM -rf {v}", f"alias x=rm; x -rf {v}", f"rm --rec --force {v}", f"echo 'rm -rf {v}' | sh",
        f"echo 'rm -rf {v}' | bash -s", f"sh <<< 'rm -rf {v}'", f"bash <<EOF\nrm -rf {v}\nEOF",
        f"su root --command='rm -fr {v}'",
    ]


DELETIONS = _victim()


def policy(ws: Path, **kw: object) -> Policy:
    cfg = {"allow_commands": ["pytest*"], "deny_commands": ["rm -rf*"]}
    cfg.update(kw)  # type: ignore[arg-type]
    return Policy.from_config(cfg, workspace=ws)


@pytest.mark.parametrize("command", CHAINED)
def test_chained_forms_are_not_auto_approved(command: str, tmp_path: Path) -> None:
    v = policy(tmp_path).verdict("run_command", "command", {"command": command})
    assert v.decision == "ask", v
    assert v.prefix is None, "no prefix is offered for a line that runs more than one thing"
    headless = Policy.from_config({"allow_commands": ["pytest*"]}, interactive=False, workspace=tmp_path)
    assert headless.decide("run_command", "command", {"command": command}) == "deny"


@pytest.mark.parametrize("command", [
    "pytest", "pytest -q", "pytest -q tests/test_x.py -k 'a and b'", "pytest -q > out.txt 2>&1",
    "pytest -q 2>/dev/null", "(pytest -q)", "pytest -q && pytest -x",
])
def test_covered_lines_are_auto_approved(command: str, tmp_path: Path) -> None:
    v = policy(tmp_path).verdict("run_command", "command", {"command": command})
    assert v.decision == "allow", v
    assert "pytest" in v.reason


def test_a_pipe_needs_every_side_allowed(tmp_path: Path) -> None:
    p = policy(tmp_path)
    assert p.decide("run_command", "command", {"command": "pytest -q | tail -5"}) == "ask"
    p.allow_commands.append("tail")
    assert p.decide("run_command", "command", {"command": "pytest -q | tail -5"}) == "allow"


@pytest.mark.parametrize("command", DELETIONS)
def test_deletion_variants_are_refused_even_with_yes_and_a_per_tool_allow(command: str, tmp_path: Path) -> None:
    cfg = {"deny_commands": ["rm -rf*"], "tools": {"run_command": "allow"}, "default_command": "allow"}
    p = Policy.from_config(cfg, yes=True, workspace=tmp_path)
    p.sandboxed, p.sandboxed_commands = True, "allow"
    p.remember("run_command", {"command": command})
    v = p.verdict("run_command", "command", {"command": command})
    assert v.decision == "deny", (command, v)
    assert "rm -rf" in v.reason


@pytest.mark.parametrize("command", ["rm x.txt", "rm -r build", "ls -rf", "git rm -rf --cached x", "echo rm -rf",
                                     "grep -rf patterns.txt .", "bash scripts/test.sh", "python3 -m pytest",
                                     "bash -lc 'make test'", "perl -ne 'print' f", "$PYTHON -m pytest", "rm --verbose x",
                                     "eval echo hi", "echo hi | grep h", "node index.js"])
def test_deny_rules_do_not_refuse_other_commands(command: str, tmp_path: Path) -> None:
    assert CommandRules([], ["rm -rf*"]).denied(command) is None


def test_deny_rule_with_words_matches_them_in_order(tmp_path: Path) -> None:
    rules = CommandRules([], ["git push --force", "git reset --hard"])
    assert rules.denied("git push -f origin main")
    assert rules.denied("git push origin main --force")
    assert rules.denied("cd x && git reset --hard HEAD~3")
    assert rules.denied("git push origin main") is None
    assert rules.denied("git reset --soft HEAD~1") is None


def test_always_remembers_the_exact_command_not_the_first_word(tmp_path: Path) -> None:
    p = Policy.from_config({}, workspace=tmp_path)
    cmd = {"command": "python3 -m pytest -q"}
    assert p.decide("run_command", "command", cmd) == "ask"
    p.remember("run_command", cmd)
    assert p.decide("run_command", "command", cmd) == "allow"
    for other in ["python3 -c 'import os; os.remove(\"x\")'", "python3 -m pytest -q; rm x",
                  "python3 -m pytest -q tests/", "python3 evil.py"]:
        assert p.decide("run_command", "command", {"command": other}) == "ask", other


def test_always_on_a_write_covers_that_file_only(tmp_path: Path) -> None:
    """An 'always' on write_file to a scratch file let the agent overwrite app.py unasked later."""
    p = Policy.from_config({}, workspace=tmp_path)
    assert p.decide("write_file", "write", {"path": "scratch.txt", "content": "tmp"}) == "ask"
    p.remember("write_file", {"path": "scratch.txt", "content": "tmp"})
    assert p.decide("write_file", "write", {"path": "./scratch.txt", "content": "other"}) == "allow"
    assert p.decide("write_file", "write", {"path": "app.py", "content": "# wiped"}) == "ask"
    assert p.decide("edit_file", "write", {"path": "scratch.txt"}) == "allow", "'this file': an edit of it too"
    assert p.decide("edit_file", "write", {"path": "app.py"}) == "ask"
    p.remember("fs__write", {"path": "a.txt"})  # an MCP tool: the tool, as its dialog says, whatever its path
    assert p.decide("fs__write", "write", {"path": "b.txt"}) == "allow"


def test_always_this_prefix_covers_the_prefix_only(tmp_path: Path) -> None:
    p = Policy.from_config({"deny_commands": ["rm -rf"]}, workspace=tmp_path)
    v = p.verdict("run_command", "command", {"command": "python3 -m pytest -q"})
    assert v.prefix == ("python3", "-m", "pytest") and v.prefix_text == "python3 -m pytest"
    p.remember("run_command", {"command": "python3 -m pytest -q"}, prefix=v.prefix)
    assert p.decide("run_command", "command", {"command": "python3 -m pytest tests/test_a.py -x"}) == "allow"
    assert p.decide("run_command", "command", {"command": "python3 -c 'print(1)'"}) == "ask"
    assert p.decide("run_command", "command", {"command": "pytest && rm -rf ~/x"}) == "deny"
    assert p.decide("run_command", "command", {"command": "python3 -m pytest && rm -r ~/x"}) == "ask"


def test_a_prefix_never_covers_inline_code(tmp_path: Path) -> None:
    p = Policy.from_config({"allow_commands": ["python3*", "bash", "node"]}, workspace=tmp_path)
    assert p.decide("run_command", "command", {"command": "python3 script.py"}) == "allow"
    for inline in ["python3 -c 'print(1)'", "python3 -Sc 'print(1)'", "bash -c 'ls'", "bash -lc ls",
                   "node -e 'process.exit(1)'"]:
        assert p.decide("run_command", "command", {"command": inline}) == "ask", inline
    assert p.decide("run_command", "command", {"command": "python3 -m pytest -q -k c"}) == "allow"  # (not -c code)
    assert p.decide("run_command", "command", {"command": "python3 -m pytest -c other.ini"}) == "ask"  # (pytest's own -c)


@pytest.mark.parametrize("command,prefix", [
    ("pytest -q tests/", ("pytest",)),
    ("git status --short", ("git", "status")),
    ("npm run test -- --watch", ("npm", "run", "test")),
    ("python3 -m pytest -q", ("python3", "-m", "pytest")),
    ("python3 tools/gen.py", ("python3", "tools/gen.py")),
    ("git -C sub status", None),
    ("python3 -c 'x'", None),
    ("env FOO=1 pytest", None),
    ("pytest; ls", None),
    ("$RUNNER -q", None),
])
def test_offered_prefix(command: str, prefix: tuple[str, ...] | None, tmp_path: Path) -> None:
    assert offered_prefix(parse_command(command), tmp_path) == prefix


def test_sandbox_policy_allows_but_deny_still_wins(tmp_path: Path) -> None:
    p = Policy.from_config({"deny_commands": ["git push"], "sandboxed_commands": "allow"}, workspace=tmp_path)
    assert p.decide("run_command", "command", {"command": "make build"}) == "ask", "no sandbox, no auto-allow"
    p.sandboxed = True
    assert p.decide("run_command", "command", {"command": "make build && ./run.sh"}) == "allow"
    assert p.decide("run_command", "command", {"command": "git push origin"}) == "deny"
    out = {"command": "git commit -qam x", "outside_sandbox": True}
    assert p.decide("run_command", "command", out) == "ask", "outside the sandbox the sandbox policy does not apply"
    p.yes = True
    assert p.decide("run_command", "command", out) == "ask", "--yes does not cover leaving the sandbox"
    p.interactive = False
    v = p.verdict("run_command", "command", out)
    assert v.decision == "deny" and "--yes does not cover" in v.reason
    assert p.decide("run_command", "command", {"command": "make build"}) == "allow", "inside: as before"
    p.allow_commands.append("git commit")
    assert p.decide("run_command", "command", out) == "deny", "an allow rule for the sandbox does not"
    p.allow_outside_commands.append("git commit")
    assert p.decide("run_command", "command", out) == "allow", "an allow rule the user wrote for outside does"


def test_an_approval_in_the_sandbox_does_not_carry_outside(tmp_path: Path) -> None:
    """``git status`` allowed in the sandbox, run outside it, runs the repository's ``core.fsmonitor`` on the
    host; ``make -n`` its ``$(shell …)``.  An "always" or an allow rule given for one place covers that place."""
    p = Policy.from_config({"allow_commands": ["git status"]}, workspace=tmp_path)
    p.sandboxed = True
    inside = {"command": "git status"}
    outside = {"command": "git status", "outside_sandbox": True}
    assert p.decide("run_command", "command", inside) == "allow"
    v = p.verdict("run_command", "command", outside)
    assert v.decision == "ask" and "outside the sandbox" in v.reason
    p.remember("run_command", {"command": "make -n"})
    p.remember("run_command", {"command": "pytest -q"}, prefix=("pytest",))
    assert p.decide("run_command", "command", {"command": "make -n"}) == "allow"
    assert p.decide("run_command", "command", {"command": "pytest -x"}) == "allow"
    assert p.decide("run_command", "command", {"command": "make -n", "outside_sandbox": True}) == "ask"
    assert p.decide("run_command", "command", {"command": "pytest -x", "outside_sandbox": True}) == "ask"
    p.remember("run_command", {"command": "git commit -m x", "outside_sandbox": True}, prefix=("git", "commit"))
    assert p.decide("run_command", "command", {"command": "git commit -m y", "outside_sandbox": True}) == "allow"
    assert p.decide("run_command", "command", {"command": "git commit -m y"}) == "ask", "and the other way round"
    p.sandboxed = False  # no sandbox: every command runs outside, and the rules are what the user wrote them for
    assert p.decide("run_command", "command", outside) == "allow"


def test_arguments_naming_outside_paths_are_not_auto_approved(tmp_path: Path) -> None:
    """`pytest --basetemp=DIR` empties DIR: a prefix rule for pytest must not reach outside the workspace."""
    p = policy(tmp_path)
    for cmd in ("pytest --basetemp=~/x", "pytest --basetemp=/home/u/x", "pytest ../other", "pytest --basetemp=$HOME/x"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask" and "outside the workspace" in v.reason, (cmd, v)
    for cmd in ("pytest tests/ -q", f"pytest {tmp_path}/tests", "pytest -k 'a/b'"):
        assert p.decide("run_command", "command", {"command": cmd}) == "allow", cmd


def test_a_pytest_basetemp_inside_the_workspace_is_asked_unless_the_user_allowed_it(tmp_path: Path) -> None:
    """A review: `pytest --basetemp=src` ran under a `pytest` rule, and pytest emptied the workspace's src/."""
    p = policy(tmp_path, allow_commands=["pytest", "python -m pytest"])
    for cmd in ("pytest --basetemp=src", "pytest --basetemp src", "python -m pytest -q --basetemp=.tmp"):
        v = p.verdict("run_command", "command", {"command": cmd})
        assert v.decision == "ask", (cmd, v)
    assert "--basetemp" in p.verdict("run_command", "command", {"command": "pytest --basetemp=src"}).reason
    p = policy(tmp_path, allow_commands=["pytest --basetemp=.tmp"])
    assert p.decide("run_command", "command", {"command": "pytest --basetemp=.tmp -q"}) == "allow"
    assert p.decide("run_command", "command", {"command": "pytest --basetemp=src"}) == "ask"


def test_redirects_inside_the_workspace_are_fine_outside_are_not(tmp_path: Path) -> None:
    p = policy(tmp_path)
    assert p.decide("run_command", "command", {"command": "pytest > logs/out.txt"}) == "allow"
    assert p.decide("run_command", "command", {"command": "pytest > ../out.txt"}) == "ask"
    assert p.decide("run_command", "command", {"command": f"pytest >> {tmp_path}/x.log"}) == "allow"
    assert p.decide("run_command", "command", {"command": "pytest > ~/.bashrc"}) == "ask"
    assert p.decide("run_command", "command", {"command": 'pytest > "$OUT"'}) == "ask"


@pytest.mark.parametrize("bad", ["Ask", "prompt", 42, True, None])
def test_bad_decision_values_are_errors_not_allow(bad: object) -> None:
    with pytest.raises(ConfigError, match="default_command"):
        Policy.from_config({"default_command": bad})
    with pytest.raises(ConfigError, match="sandboxed_commands"):
        Policy.from_config({"sandboxed_commands": "deny" if bad is None else bad})
    with pytest.raises(ConfigError, match="tools.x"):
        Policy.from_config({"tools": {"x": bad}})


def test_unparsable_lines_are_never_auto_approved(tmp_path: Path) -> None:
    p = policy(tmp_path, deny_commands=[])
    for line in ('pytest -q "unterminated', "if", "{", "!"):
        v = p.verdict("run_command", "command", {"command": line})
        assert v.decision == "ask" and "could not be parsed" in v.reason, line
    with_deny = policy(tmp_path)  # deny rules cannot check what an unreadable line runs: refused, and said why
    v = with_deny.verdict("run_command", "command", {"command": 'pytest -q "unterminated'})
    assert v.decision == "deny" and "could not be read" in v.reason


_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
                       "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]"})
"""Bash reserved words: unquoted at the start of a line they are syntax."""
_DECLARATIONS = frozenset({"declare", "typeset", "export", "readonly", "local"})
"""Words the grammar reads as a declaration command."""
_WORD = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=6))
@example(["1@"])  # tree-sitter-bash misreads a first word holding `@`
@example(["1%"])  # or `%` after its first character
@example(["a%b", "x"])
@example(["user@host", "-p", "22"])
@example(["1="])  # not an assignment for bash (no name): a program called `1=`; the grammar read an assignment
@example(["1=x", "ls"])
def test_quoted_words_parse_back_to_the_same_argv(argv: list[str]) -> None:
    assume(argv[0] not in _RESERVED)  # shlex leaves `if`, `{`, `!` bare: they are shell syntax, not a program
    assume(NAME_ASSIGNMENT.match(argv[0]) is None)  # nor `A=…`: bash sets a variable, shlex does not quote `=`
    # tree-sitter-bash cannot read a bare word holding `@` or `%` after a declaration word (`readonly 1@`): such a
    # line is asked (test_a_declaration_with_an_at_word_is_asked); quoting the word for the grammar, as is done for
    # a first word, was tried and reverted: on a line with a heredoc or a comment it hid commands
    assume(not (argv[0] in _DECLARATIONS and any(c in w for w in argv[1:] for c in "@%")))
    parsed = parse_command(shlex.join(argv))
    assert parsed.parsed
    assert [c.argv for c in parsed.commands] == [tuple(argv)]
    assert not parsed.substitution and not parsed.chained and not parsed.background


@pytest.mark.parametrize("line", ["readonly 1@", "export a%b x", "ls << a@b\na@b\nrm -rf ~ #'\na@b",
                                  "cat << a@b\n'$(touch pwned)\na@b\n#'\n[ 1@ ]"])
def test_a_line_the_grammar_cannot_read_is_asked(line: str) -> None:
    """Lines tree-sitter-bash misreads around a word holding `@` or `%` are asked, never read otherwise: a rewrite
    that quoted such words for the grammar made the last two (a reviewer's) read as one allowed ls or cat."""
    parsed = parse_command(line)
    assert not parsed.parsed
    policy = Policy.from_config({"allow_commands": ["ls", "cat", "echo", "readonly", "export", "["]})
    assert policy.decide("run_command", "command", {"command": line}) == "ask"


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORD, min_size=0, max_size=4), st.sampled_from([";", "&&", "||", "|", "\n", "&"]))
def test_a_second_command_after_any_separator_is_seen(args: list[str], sep: str) -> None:
    line = f"pytest {shlex.join(args)} {sep} {X}"
    parsed = parse_command(line)
    programs = [c.argv[0] for c in parsed.commands if c.argv]
    assert programs == ["pytest", "touch"], line
    assert Policy.from_config({"allow_commands": ["pytest"]}).decide("run_command", "command", {"command": line}) == "ask"
