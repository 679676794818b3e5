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


def run_calls(root: Path, fake_llm: Any, env: dict[str, str], commands: list[str], *flags: str) -> list[dict[str, Any]]:
    fake_llm.script(Reply.tool_calls([("run_command", {"command": c}) for c in commands]), Reply.text("done"))
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
        ]
        finished = run_calls(root, fake_llm, env, commands)  # headless, no --yes: nobody to ask
        assert [e["is_error"] for e in finished] == [False, False, False, True], [e["text"] for e in finished]
        assert (root / "build.txt").read_text() == "built\n"
        assert "Read-only file system" in finished[1]["text"] and "sandboxed" in finished[1]["text"]
        assert "Refused by the approval policy" in finished[3]["text"]
        assert sorted(p.name for p in home.iterdir()) == ["keep.txt"]
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=False)
