"""The real `agent-tui run` binary with a scripted model: chained commands are not auto-approved by
``allow_commands = ["pytest*"]`` and their second command never runs; deletion variants are refused
by ``deny_commands = ["rm -rf*"]`` even with ``--yes``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.helpers import make_repo
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def user_config(tmp: Path, text: str) -> dict[str, str]:
    """An environment whose user config (not the workspace's) holds ``text``."""
    xdg = tmp / "xdg"
    (xdg / "agent-tui").mkdir(parents=True, exist_ok=True)
    (xdg / "agent-tui" / "config.toml").write_text(text)
    env = dict(os.environ, XDG_CONFIG_HOME=str(xdg), OPENAI_API_KEY="sk-test-0123456789")
    env.pop("ANTHROPIC_API_KEY", None)
    return env


def run_calls(root: Path, fake_llm: Any, env: dict[str, str], commands: list[str] | list[dict[str, Any]],
              *flags: str) -> list[dict[str, Any]]:
    calls = [("run_command", c if isinstance(c, dict) else {"command": c}) for c in commands]
    fake_llm.script(Reply.tool_calls(calls), Reply.text("done"))
    proc = subprocess.run([BIN, "run", "go", "--model", "openai/gpt-4o", "--api-base", fake_llm.base_url, "--json",
                           "--workspace", str(root), *flags], capture_output=True, text=True, timeout=240, env=env,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return [e for e in events if e["type"] == "tool_finished"]


def test_chained_commands_are_not_auto_approved_and_never_run(tmp_path: Path, fake_llm: Any) -> None:
    root = make_repo(tmp_path / "proj")
    out = tmp_path / "out"
    out.mkdir()
    env = user_config(tmp_path, '[approval]\nallow_commands = ["pytest*", "echo*"]\n')
    forms = {
        "semicolon": "pytest -q; touch {m}",
        "and": "pytest -q && touch {m}",
        "or": "pytest -q || touch {m}",
        "substitution": "pytest -q $(touch {m})",
        "backticks": "pytest -q `touch {m}`",
        "newline": "pytest -q\ntouch {m}",
        "pipe": "pytest -q | touch {m}",
        "redirect": "pytest -q > {m}",
        "background": "pytest -q & touch {m}",
        "outside-path": "pytest -q --basetemp={m}",
    }
    commands = [f.format(m=out / name) for name, f in forms.items()]
    commands.append(f"echo control > {root / 'control.txt'}")
    finished = run_calls(root, fake_llm, env, commands)
    assert len(finished) == len(commands)
    for e in finished[:-1]:
        assert e["is_error"] and "Refused by the approval policy" in e["text"], e["text"]
    assert sorted(p.name for p in out.iterdir()) == [], "the second command ran"
    assert not finished[-1]["is_error"], finished[-1]["text"]
    assert (root / "control.txt").read_text() == "control\n", "a covered command runs unasked"


def test_deletion_variants_are_refused_with_yes(tmp_path: Path, fake_llm: Any) -> None:
    root = make_repo(tmp_path / "proj")
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "sub" / "keep.txt").write_text("precious")
    env = user_config(tmp_path, '[approval]\ndeny_commands = ["rm -rf*"]\ntools = { run_command = "allow" }\n')
    v = str(victim)
    variants = [
        f"rm  -rf {v}", f"/bin/rm -rf {v}", f"\\rm -rf {v}", f"rm -fr {v}", f"rm -r -f {v}",
        f"rm --recursive --force {v}", f"bash -c 'rm -rf {v}'", f"env rm -rf {v}", f"find {v} -delete",
        f"echo {v} | xargs rm -rf", f"python3 -c \"import shutil; shutil.rmtree('{v}')\"",
        f"nice rm -Rf {v}", f"find {v} -exec rm -rf {{}} +", f"sh -c \"cd / && rm -rf {v}\"", f"command rm -rf {v}",
        # more, found by trying: wrappers, aliases, abbreviations, variables, code fed to a shell's input
        f"eval 'rm -rf {v}'", f"script -qc 'rm -rf {v}'", f'bash -c "$(echo rm -rf {v})"', f"taskset 1 rm -rf {v}",
        f"RM=rm; $RM -rf {v}", f"alias x=rm; x -rf {v}", f"rm --rec --force {v}", f"echo 'rm -rf {v}' | sh",
        f"sh <<< 'rm -rf {v}'", f"bash <<EOF\nrm -rf {v}\nEOF",
    ]
    finished = run_calls(root, fake_llm, env, variants, "--yes")
    assert len(finished) == len(variants)
    for cmd, e in zip(variants, finished, strict=True):
        assert e["is_error"] and "Refused by the approval policy" in e["text"], (cmd, e["text"])
    assert (victim / "sub" / "keep.txt").read_text() == "precious"


def test_sandboxed_commands_run_unasked_but_cannot_leave_the_workspace(tmp_path: Path, fake_llm: Any) -> None:
    from tests.support.bwrap import require_bwrap

    require_bwrap()
    root = make_repo(tmp_path / "proj")
    home = Path.home() / f".agent-tui-test-{os.getpid()}"
    home.mkdir()
    (home / "keep.txt").write_text("precious")
    env = user_config(tmp_path, '[approval]\nsandboxed_commands = "allow"\ndeny_commands = ["rm -rf"]\n')
    try:
        commands = [
            "echo built > build.txt && ls",
            f"python3 -c \"import shutil as s; getattr(s, 'rm' + 'tree')('{home}')\"",  # slips past deny rules
            f"echo evil > {home}/planted.txt",
            f"rm -rf {home}",  # a deny rule still refuses
            "mv .git .gitx; mkdir .git; printf '[core]\\n\\tfsmonitor = touch pwned\\n' > .git/config",
        ]
        finished = run_calls(root, fake_llm, env, commands)  # headless, no --yes: nobody to ask
        assert [e["is_error"] for e in finished[:4]] == [False, False, False, True], [e["text"] for e in finished]
        git = subprocess.run(["git", "status"], cwd=root, capture_output=True, text=True)
        assert git.returncode == 0 and not (root / "pwned").exists() and not (root / ".gitx").exists(), finished[4]
        # --yes is safe because of the sandbox: it never covers a call asking to leave it
        escape = {"command": f"echo evil > {home}/planted.txt", "outside_sandbox": True}
        fake_llm.clear()
        escaped = run_calls(root, fake_llm, env, [escape], "--yes")
        assert escaped[0]["is_error"] and "--yes does not cover" in escaped[0]["text"], escaped[0]["text"]
        assert (root / "build.txt").read_text() == "built\n"
        assert "Read-only file system" in finished[1]["text"] and "sandboxed" in finished[1]["text"]
        assert "Refused by the approval policy" in finished[3]["text"]
        assert sorted(p.name for p in home.iterdir()) == ["keep.txt"]
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=False)


def test_repository_code_run_by_a_command_never_gets_the_users_keys(tmp_path: Path, fake_llm: Any) -> None:
    """An approved `pytest` runs the repository's conftest.py: it must not find the user's keys in its
    environment (it could send them anywhere); `[sandbox] pass_env` hands over the ones the user names."""
    root = make_repo(tmp_path / "proj")
    (root / "conftest_like.py").write_text(
        "import os, pathlib\n"
        "names = ['OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'INNOCENT', 'HOME', 'PATH']\n"
        "pathlib.Path('seen.txt').write_text(repr({n: os.environ.get(n) for n in names}))\n")
    env = user_config(tmp_path, '[approval]\nallow_commands = ["python3 conftest_like.py"]\n'
                                '[sandbox]\npass_env = ["GITHUB_TOKEN"]\n')
    aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    env.update(AWS_SECRET_ACCESS_KEY=aws, GITHUB_TOKEN="ghp_passed_on_purpose_0123456789abcdef",
               INNOCENT="sk-test-0123456789")  # the API key again, under a name that does not look secret
    finished = run_calls(root, fake_llm, env, ["python3 conftest_like.py"])
    assert not finished[0]["is_error"], finished[0]["text"]
    seen = eval((root / "seen.txt").read_text())  # noqa: S307  (our own repr of a dict of strings)
    assert seen["OPENAI_API_KEY"] is None and seen["AWS_SECRET_ACCESS_KEY"] is None and seen["INNOCENT"] is None
    assert seen["GITHUB_TOKEN"] == "ghp_passed_on_purpose_0123456789abcdef", "pass_env keeps what the user named"
    assert seen["HOME"] and seen["PATH"], "the rest of the environment is the user's"


def test_sandboxed_commands_cannot_send_the_users_secret_files_to_the_model(tmp_path: Path, fake_llm: Any) -> None:
    """A command's output goes to the model provider: `cat ~/.ssh/id_ed25519` in a repository's test script
    must not put the key into a request. Ordinary files under ~ stay readable."""
    from tests.support.bwrap import require_bwrap

    require_bwrap()
    root = make_repo(tmp_path / "proj")
    home = Path.home() / f".agent-tui-test-home-{os.getpid()}"  # outside /tmp, which the sandbox replaces anyway
    planted = {".ssh/id_ed25519": "hunter-ssh-marker", ".aws/credentials": "hunter-aws-marker",
               ".config/agent-tui/config.toml": "# hunter-config-marker\n[approval]\nsandboxed_commands = \"allow\""}
    try:
        for rel, text in planted.items():
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text(text + "\n")
        (home / "notes.txt").write_text("plain-notes-marker\n")
        env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), OPENAI_API_KEY="sk-test-0123456789")
        script = "; ".join(f"cat ~/{rel}" for rel in planted) + "; cat ~/notes.txt"
        finished = run_calls(root, fake_llm, env, [script])
        assert len(finished) == 1
        sent = "".join(r.raw.decode("utf-8", "replace") for r in fake_llm.requests)
        assert "plain-notes-marker" in sent, "the command ran unasked in the sandbox and its output was sent"
        assert "hunter" not in sent, sent[-2000:]
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=False)


def test_an_outside_allow_rule_runs_only_what_it_covers_whatever_the_systems_sh(tmp_path: Path, fake_llm: Any) -> None:
    """`/bin/sh` is dash on Debian: it read these lines as `git commit` followed by another program, which
    then ran outside the sandbox with no approval (`allow_outside_commands = ["git commit"]`)."""
    root = make_repo(tmp_path / "proj")
    (root / "setup.sh").write_text(f"touch {tmp_path / 'from-setup'}\n")
    env = user_config(tmp_path, '[approval]\nallow_outside_commands = ["git commit"]\n')
    lines = [f"git commit -q $'\\' ; touch {tmp_path / 'from-ansi'} #'", "git commit -q &>/dev/null sh setup.sh"]
    done = run_calls(root, fake_llm, env, [{"command": c, "outside_sandbox": True} for c in lines])
    assert len(done) == 2
    assert not (tmp_path / "from-ansi").exists() and not (tmp_path / "from-setup").exists()


def test_without_a_sandbox_an_allowed_echo_cannot_write_outside_or_plant_a_git_program(tmp_path: Path,
                                                                                        fake_llm: Any) -> None:
    """With no sandbox (bwrap missing: here `mode = "off"`) approval is the only guard. Bash expands
    `{../x,}` to `../x`, which the rules read as a file inside the workspace, so an `echo` rule appended to a
    file outside it; and `echo … >> .git/config` planted an fsmonitor the user's next `git status` ran."""
    root = make_repo(tmp_path / "proj")
    env = user_config(tmp_path, '[approval]\nallow_commands = ["echo"]\n[sandbox]\nmode = "off"\n')
    outside = tmp_path / "outside.txt"
    marker = tmp_path / "PWNED_BY_FSMONITOR"
    lines = [f"echo planted >> {{../{outside.name},}}",
             f"echo '[core]\n\tfsmonitor = \"touch {marker}\"' >> .git/config",
             "echo fine >> inside.txt"]
    done = run_calls(root, fake_llm, env, lines)  # headless, no --yes: nobody to ask
    assert [e["is_error"] for e in done] == [True, True, False], [e["text"] for e in done]
    assert not outside.exists() and (root / "inside.txt").read_text() == "fine\n"
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=True)
    assert not marker.exists()


def test_a_line_with_no_simple_command_never_runs_code_unasked(tmp_path: Path, fake_llm: Any) -> None:
    """A second audit: `[[ 'x[$(…)]' -eq 0 ]]` has no simple command, so no rule was missing and it was allowed
    ("allowed by "), on the host, headless, with no --yes and no config; bash ran the quoted `$(…)`."""
    root = make_repo(tmp_path / "proj")
    env = user_config(tmp_path, "")
    marker = tmp_path / "RAN_FROM_A_SUBSCRIPT"
    line = f"[[ 'x[$(touch {marker})]' -eq 0 ]]"
    done = run_calls(root, fake_llm, env, [{"command": line, "outside_sandbox": True}, {"command": line}])
    assert [e["is_error"] for e in done] == [True, True], [e["text"] for e in done]
    assert not marker.exists()
