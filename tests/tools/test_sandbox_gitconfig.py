"""The user's git config inside the sandbox, run for real under bwrap: a command sees the identity and
harmless settings, never a token (``url.<TOKEN@…>.insteadOf``, ``http.extraHeader``, a credential helper,
``[github] token``, an included file, the system or XDG file, ``GIT_CONFIG_*`` variables), and ``git commit``
still works as the user."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools import sandbox_git
from agent_tui.tools.cmd_env import command_env
from agent_tui.tools.sandbox import Sandbox
from tests.support.bwrap import require_bwrap
from tests.tools.test_sandbox_secrets import _outside_tmp, sh

TOKEN = "ghp_TOKENsandboxLEAK0123456789abcdefABCD"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fake $HOME (outside /tmp) whose git config files hold the user's identity and tokens."""
    root = _outside_tmp() / f"agent-tui-test-gitconfig-{uuid.uuid4().hex[:8]}"
    ws = (tmp_path / "ws").resolve()
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True, env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    root.mkdir(parents=True)
    (root / ".gitconfig").write_text(f"""[user]
\tname = Real User
\temail = real@example.com
[init]
\tdefaultBranch = trunk
[alias]
\tco = checkout
\tleak = !curl -H 'Authorization: token {TOKEN}' https://api.github.com
[url "https://{TOKEN}@github.com/"]
\tinsteadOf = https://github.com/
[http]
\textraHeader = Authorization: Bearer {TOKEN}
[credential]
\thelper = store --file {root}/.my-credentials-{TOKEN}
[github]
\ttoken = {TOKEN}
[core]
\tsshCommand = ssh -i ~/.ssh/deploy-{TOKEN}
\tautocrlf = input
[commit]
\tgpgSign = true
[include]
\tpath = ~/.gitconfig.secret
[includeIf "gitdir:{ws}/"]
\tpath = ~/.gitconfig-work
[includeIf "gitdir:/nowhere/"]
\tpath = ~/.gitconfig-other
""")
    (root / ".gitconfig.secret").write_text(f"[sendemail]\n\tsmtpPass = {TOKEN}\n")
    (root / ".gitconfig-work").write_text("[user]\n\temail = work@example.com\n")
    (root / ".gitconfig-other").write_text(f"[gitlab]\n\ttoken = {TOKEN}\n")
    (root / ".config" / "git").mkdir(parents=True)
    (root / ".config" / "git" / "config").write_text(f"[http \"https://corp.example\"]\n\textraHeader = X-Token: {TOKEN}\n"
                                                     "[pull]\n\trebase = true\n")
    (root / "system-gitconfig").write_text(f"[credential]\n\thelper = !echo password={TOKEN}\n[core]\n\tabbrev = 12\n")
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / ".config"))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(root / "system-gitconfig"))
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
                 "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _ws(home: Path, tmp_path: Path) -> Path:
    return (tmp_path / "ws").resolve()


async def test_a_command_sees_the_identity_and_no_token(home: Path, tmp_path: Path) -> None:
    box = Sandbox(require_bwrap(), _ws(home, tmp_path))
    files = " ".join(str(home / f) for f in (".gitconfig", ".config/git/config", ".gitconfig.secret",
                                             ".gitconfig-work", ".gitconfig-other", "system-gitconfig"))
    code, out = await sh(box, f"cat {files}; git config --global --list; git config --system --list; "
                              "git config --list --show-origin; git config --get-urlmatch http https://github.com/x")
    assert TOKEN not in out, out
    assert "user.name=Real User" in out and "user.email=work@example.com" in out, out
    assert "init.defaultbranch=trunk" in out and "alias.co=checkout" in out and "core.autocrlf=input" in out
    assert "pull.rebase=true" in out and "core.abbrev=12" in out, "XDG and system files keep their harmless keys"
    for gone in ("credential", "extraheader", "insteadof", "sshcommand", "gpgsign", "alias.leak", "include"):
        assert gone not in out.lower(), (gone, out)


async def test_git_commit_in_the_sandbox_uses_the_users_identity(home: Path, tmp_path: Path) -> None:
    box = Sandbox(require_bwrap(), _ws(home, tmp_path))
    code, out = await sh(box, "cd /tmp && git init -q r && cd r && git commit -q --allow-empty -m first "
                              "&& git log --format='%an <%ae>' && git symbolic-ref --short HEAD")
    assert code == 0, out
    assert "Real User <work@example.com>" in out and "trunk" in out, out


async def test_hiding_all_of_home_still_gives_git_an_identity(home: Path, tmp_path: Path) -> None:
    box = Sandbox(require_bwrap(), _ws(home, tmp_path), hide=("~",))
    code, out = await sh(box, "git config --global user.name; ls -a ~; cat ~/.gitconfig-work")
    assert "Real User" in out and TOKEN not in out and ".gitconfig-other" not in out, out


async def test_a_file_the_user_hides_stays_hidden(home: Path, tmp_path: Path) -> None:
    box = Sandbox(require_bwrap(), _ws(home, tmp_path), hide=("~/.gitconfig",))
    code, out = await sh(box, "cat ~/.gitconfig; git config --global user.name; echo END")
    assert "Real User" not in out and TOKEN not in out and "END" in out, out


def test_allow_list_keeps_identity_and_drops_what_logs_in_or_runs() -> None:
    kept = [("user.name", "A"), ("user.email", "a@b"), ("core.autocrlf", "input"), ("init.defaultbranch", "main"),
            ("alias.st", "status -sb"), ("color.diff.meta", "blue bold"), ("advice.detachedhead", "false"),
            ("safe.directory", "*")]
    dropped = [("credential.helper", "store"), ("credential.https://x.helper", "osxkeychain"),
               ("http.extraheader", "Authorization: x"), ("http.https://x.extraheader", "X"),
               ("url.https://t@github.com/.insteadof", "https://github.com/"), ("include.path", "~/x"),
               ("includeif.gitdir:~/w/.path", "~/y"), ("core.sshcommand", "ssh -i k"), ("core.fsmonitor", "x"),
               ("core.hookspath", "~/hooks"), ("core.pager", "less"), ("gpg.program", "gpg2"),
               ("github.token", "x"), ("sendemail.smtppass", "x"), ("filter.lfs.clean", "git-lfs clean"),
               ("diff.external", "x"), ("alias.sh", "!rm -rf /"), ("alias.p", f"push https://u:{TOKEN}@host/r"),
               ("user.email", f"https://me:{TOKEN}@x.example/"), ("commit.gpgsign", "true"),
               ("init.templatedir", "~/tpl"), ("color.ui", "auto\n[credential]"), ("remote.origin.url", "x"),
               ("user", "x")]
    assert [k for k, v in kept if not sandbox_git.keep(k, v)] == []
    assert [k for k, v in dropped if sandbox_git.keep(k, v)] == []


def test_render_round_trips_through_git(tmp_path: Path) -> None:
    entries = [("user.name", 'O"Brien \\ Tab\there'), ("color.diff.meta", "blue bold"), ("alias.lg", "log --oneline; #x")]
    path = tmp_path / "c"
    path.write_text(sandbox_git.render(entries))
    read = sandbox_git._read(shutil.which("git") or pytest.fail("git is needed"), path, tmp_path, {"PATH": "/usr/bin:/bin"})
    assert read is not None and [(k, v) for _, k, v in read] == entries


def test_without_git_or_with_a_broken_file_the_files_are_hidden_whole(home: Path, tmp_path: Path) -> None:
    ws = _ws(home, tmp_path)
    tops = sandbox_git.config_files(os.environ, home)
    assert tops == [home / "system-gitconfig", home / ".config/git/config", home / ".gitconfig"]
    view = sandbox_git.build_view(ws, git="", out_dir=tmp_path)
    assert view.binds == () and set(view.hidden) == set(tops)
    (home / ".config" / "git" / "config").write_text(f"[broken\ntoken = {TOKEN}\n")
    view = sandbox_git.build_view(ws, out_dir=tmp_path)
    assert home / ".config/git/config" in view.hidden
    assert all(TOKEN not in copy.read_text() for copy, _ in view.binds)


def test_git_config_variables_do_not_reach_sandboxed_commands() -> None:
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader", "GIT_CONFIG_VALUE_0": f"Authorization: {TOKEN}",
           "GIT_CONFIG_PARAMETERS": f"'http.extraheader'='{TOKEN}'", "GIT_ASKPASS": "/usr/bin/ksshaskpass",
           "GIT_SSH_COMMAND": "ssh -i key", "PATH": "/usr/bin"}
    boxed = command_env(base=env, sandboxed=True)
    assert boxed == {"PATH": "/usr/bin"}
    assert command_env(base=env)["GIT_CONFIG_COUNT"] == "1", "approved unsandboxed commands keep them"
