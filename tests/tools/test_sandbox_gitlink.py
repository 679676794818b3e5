"""A `.git` that is not a plain folder, and two agents on one workspace, run for real: a symlinked `.git`
cannot be swapped for a crafted git folder, a `gitdir:` file's folder is read-only, write tools refuse the
real git folder behind a link, and one agent's clean-up never pulls the read-only `.git` out from under
another agent's running command."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.shell_exec import run_shell
from agent_tui.tools.workspace import WorkspaceError, refuse_protected, resolve
from tests.support.bwrap import require_bwrap

EVIL = "[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch pwned\\n"


def _fsmonitor(ws: Path) -> str:
    done = subprocess.run(["git", "config", "--get", "core.fsmonitor"], cwd=ws, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose `.git` is a symlink to a repository kept outside it."""
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    subprocess.run(["git", "init", "-q", f"--separate-git-dir={tmp_path / 'store.git'}", str(ws)], check=True)
    (ws / ".git").unlink()  # the gitdir: file, replaced by a link
    (ws / ".git").symlink_to(tmp_path / "store.git")
    (ws / "a.txt").write_text("a\n")
    assert _fsmonitor(ws) == "" and subprocess.run(["git", "status"], cwd=ws, capture_output=True).returncode == 0
    return ws, tmp_path / "store.git"


@pytest.mark.parametrize("attack", [
    f"mkdir evil && cp -r .git/. evil/ && printf '{EVIL}' > evil/config && ln -sfn evil .git",
    f"rm .git && mkdir .git && cp -r {{store}}/. .git/ && printf '{EVIL}' > .git/config",
    f"mkdir evil && cp -r .git/. evil/ && printf '{EVIL}' > evil/config && rm .git && echo 'gitdir: evil' > .git",
])
async def test_a_symlinked_git_cannot_be_swapped_for_a_crafted_one(linked: tuple[Path, Path], attack: str) -> None:
    from agent_tui.tools.shell import run_command
    from tests.tools.fakes import FakeContext

    ws, store = linked
    ctx = FakeContext(workspace=ws)
    ctx.sandbox = Sandbox(require_bwrap(), ws)  # type: ignore[attr-defined]
    result = await run_command({"command": attack.format(store=store)}, ctx)  # type: ignore[arg-type]
    assert os.readlink(ws / ".git") == str(store), result.text
    assert _fsmonitor(ws) == "", result.text
    assert "put back" in result.text, result.text
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, check=True)
    assert not (ws / "pwned").exists()


async def test_the_folder_a_gitdir_file_names_is_read_only(tmp_path: Path) -> None:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    subprocess.run(["git", "init", "-q", f"--separate-git-dir={ws / '.repo'}", str(ws)], check=True)
    assert (ws / ".git").is_file()
    out = await run_shell(f"printf '{EVIL}' >> .repo/config; echo 'touch pwned' > .repo/hooks/post-checkout",
                          ws, 60, sandbox=Sandbox(require_bwrap(), ws))
    assert out.exit_code != 0, out.output
    assert _fsmonitor(ws) == "" and not (ws / ".repo" / "hooks" / "post-checkout").exists()


def test_write_tools_refuse_the_git_folder_behind_a_link_inside_the_workspace(tmp_path: Path) -> None:
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".git").rename(ws / ".repo")
    (ws / ".git").symlink_to(".repo")
    for path in (".git/config", ".repo/config", ".repo/hooks/pre-commit", ".git"):
        with pytest.raises(WorkspaceError, match="Refused"):
            refuse_protected(ws, resolve(ws, path))
    refuse_protected(ws, resolve(ws, "src/app.py"))  # ordinary files stay writable


async def _wait_for(path: Path) -> None:
    while not path.exists():
        await asyncio.sleep(0.05)


async def test_two_agents_without_git_never_lose_the_read_only_placeholder(tmp_path: Path) -> None:
    """Agent A's command starts first (its sandbox makes the empty read-only `.git`), B's starts while A runs;
    A finishing must not remove the folder B's sandbox stands on, or B could `git init` a crafted repo."""
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    bwrap = require_bwrap()
    a, b = Sandbox(bwrap, ws), Sandbox(bwrap, ws)
    first = asyncio.create_task(run_shell("touch a-up; while [ ! -e a-go ]; do sleep 0.05; done", ws, 300, sandbox=a))
    await _wait_for(ws / "a-up")
    second = asyncio.create_task(run_shell(
        f"touch b-up; while [ ! -e b-go ]; do sleep 0.05; done; git init -q . ; printf '{EVIL}' >> .git/config",
        ws, 300, sandbox=b))
    await _wait_for(ws / "b-up")
    (ws / "a-go").touch()
    await first
    (ws / "b-go").touch()
    out = await second
    assert not (ws / ".git" / "config").exists(), out.output
    assert not (ws / ".git").exists(), "the last sandbox out removes the empty mount point"
