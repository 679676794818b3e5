"""What runs before the user says anything: the sandbox check at start-up, and what `--yes` covers when there is
no sandbox.

A fifth audit: agent-tui checked that bubblewrap works by having it run `true`, looked up on the user's whole
`PATH` in the workspace, so with a relative entry such as `./node_modules/.bin` a repository's own `true` ran
at start, with the user's keys in its environment, and by exiting 1 it turned the sandbox off; `run --yes` then
ran the model's commands on the host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.agent.permissions import Policy
from agent_tui.tools import shell_dialect
from agent_tui.tools.sandbox import probe
from tests.agent.helpers import make_repo
from tests.support.binary import BIN, events
from tests.support.bwrap import require_bwrap
from tests.support.fake_openai import FakeOpenAI, Reply
from tests.support.fixtures import FAKE_MODEL

KEY = "sk-test-CANARY-0123456789abcdef"


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A folder outside /tmp: the probe's sandbox puts a fresh /tmp over /tmp, so a workspace there was never its
    working folder (and a planted program under it never found), while a real project's folder is."""
    folder = Path(tempfile.mkdtemp(prefix="agent-tui-probe-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _plant(root: Path, name: str, canary: Path, code: int = 1) -> None:
    """A repository program ``bin/NAME`` that records it ran (and the key it saw), then exits ``code``."""
    (root / "bin").mkdir(exist_ok=True)
    script = root / "bin" / name
    script.write_text(f"#!/bin/sh\necho \"ran with $OPENAI_API_KEY\" >> {canary}\nexit {code}\n")
    script.chmod(0o755)


def _run(root: Path, fake: FakeOpenAI, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "OPENAI_API_KEY": KEY, "XDG_CONFIG_HOME": str(root.parent / "xdg"), **env}
    return subprocess.run([BIN, "run", "do it", "--model", FAKE_MODEL, "--api-base", fake.base_url, "--json",
                           "--workspace", str(root), *extra], capture_output=True, text=True, timeout=300,
                          env=full, stdin=subprocess.DEVNULL, cwd=root)


def test_a_repository_true_on_a_relative_path_never_runs_and_the_sandbox_holds(outside_tmp: Path,
                                                                                fake_llm: FakeOpenAI) -> None:
    require_bwrap()
    root = make_repo(outside_tmp / "proj")
    canary = outside_tmp / "PWNED"  # (read-only to the probe: what tells is its exit code turning the sandbox off)
    _plant(root, "true", canary)
    fake_llm.script(Reply.tool_call("run_command", {"command": "echo from-the-box > made.txt"}), Reply.text("ok"))
    proc = _run(root, fake_llm, {"PATH": "bin:./node_modules/.bin:" + os.environ["PATH"]}, "--yes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not canary.exists(), f"the repository's `true` ran at start: {canary.read_text()}"
    assert "without a sandbox" not in proc.stdout + proc.stderr
    assert (root / "made.txt").read_text() == "from-the-box\n", "the command ran, in the sandbox"


def test_the_probe_itself_takes_nothing_from_the_current_folder(outside_tmp: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    require_bwrap()
    canary = outside_tmp / "PWNED"
    _plant(outside_tmp, "true", canary, code=1)
    monkeypatch.chdir(outside_tmp)
    monkeypatch.setenv("PATH", "bin:" + os.environ["PATH"])
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    probe.cache_clear()
    try:
        path, why = probe()
    finally:
        probe.cache_clear()
    assert path is not None, why
    assert not canary.exists()


def test_bash_is_never_taken_from_a_relative_path_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where neither /bin/bash nor /usr/bin/bash exists (NixOS), bash was looked up on the raw PATH."""
    canary = tmp_path / "PWNED"
    _plant(tmp_path, "bash", canary, code=0)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "bin:" + os.environ["PATH"])
    monkeypatch.setattr(shell_dialect, "BASH_PATHS", (str(tmp_path / "none" / "bash"),))
    shell_dialect.bash_path.cache_clear()
    try:
        found = shell_dialect.bash_path()
    finally:
        shell_dialect.bash_path.cache_clear()
    assert found is not None and Path(found).is_absolute()
    assert not Path(found).is_relative_to(tmp_path), found


def test_yes_does_not_run_commands_on_the_host_when_the_sandbox_is_missing(tmp_path: Path,
                                                                           fake_llm: FakeOpenAI) -> None:
    """No bwrap on PATH: `--yes` used to run every command on the host.  Now it is refused, saying how to choose
    otherwise; with `[sandbox] mode = "off"` in the user's own config, --yes covers it again."""
    root = make_repo(tmp_path / "proj")
    canary = tmp_path / "PWNED"
    for name in ("git", "bwrap", "true"):
        _plant(root, name, canary)
    # Nothing on an absolute PATH entry: bash is found at its own path and `echo` is a builtin.  The repository's
    # `bin/git` is what a bare `git` would run (GitPython's import did, and then failed with a traceback).
    no_bwrap = {"PATH": f"bin:{tmp_path / 'empty'}"}
    fake_llm.script(Reply.tool_call("git_status", {}),
                    Reply.tool_call("run_command", {"command": "echo on-the-host > made.txt"}), Reply.text("ok"))
    proc = _run(root, fake_llm, no_bwrap, "--yes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not canary.exists(), f"a repository program ran: {canary.read_text()}"
    assert not (root / "made.txt").exists(), "a command ran on the host under --yes with no sandbox"
    git_status, command = [e for e in events(proc) if e["type"] == "tool_finished"]
    assert git_status["is_error"] and "git is not installed" in git_status["text"]
    assert command["is_error"] and "no working sandbox" in command["text"]

    xdg = root.parent / "xdg" / "agent-tui"
    xdg.mkdir(parents=True, exist_ok=True)
    (xdg / "config.toml").write_text('[sandbox]\nmode = "off"\n')
    fake_llm.clear()
    fake_llm.script(Reply.tool_call("run_command", {"command": "echo on-the-host > made.txt"}), Reply.text("ok"))
    proc = _run(root, fake_llm, no_bwrap, "--yes")
    assert (root / "made.txt").read_text() == "on-the-host\n", proc.stdout[-2000:] + proc.stderr[-2000:]


def test_policy_without_a_sandbox_asks_in_the_tui_and_refuses_headless_even_with_yes(tmp_path: Path) -> None:
    def verdict(**kw: object) -> str:
        p = Policy.from_config({}, workspace=tmp_path, **kw)  # type: ignore[arg-type]
        p.sandbox_missing = True
        return p.verdict("run_command", "command", {"command": "make build"}).decision

    assert verdict(yes=True, interactive=False) == "deny"
    assert verdict(interactive=True) == "ask"
    allowed = Policy.from_config({"allow_commands": ["make build"]}, yes=True, interactive=False, workspace=tmp_path)
    allowed.sandbox_missing = True
    assert allowed.verdict("run_command", "command", {"command": "make build"}).decision == "allow"
