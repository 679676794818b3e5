"""What a sandboxed command can read or reach, run for real: the user's secret stores under ~ and the
sockets that act as the user (ssh/gpg agents, editors, terminals) are out of its reach, since its output
goes to the model provider; toolchains and ordinary files under ~ stay readable."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.tools.sandbox import Sandbox
from agent_tui.tools.shell_exec import run_shell
from tests.support.bwrap import require_bwrap

SECRETS = {
    ".ssh/id_ed25519": "SECRET-ssh-key",
    ".aws/credentials": "SECRET-aws",
    ".gnupg/private-keys-v1.d/k.key": "SECRET-gpg",
    ".config/gcloud/application_default_credentials.json": "SECRET-gcloud",
    ".kube/config": "SECRET-kube",
    ".docker/config.json": "SECRET-docker",
    ".netrc": "SECRET-netrc",
    ".git-credentials": "SECRET-git-credentials",
    ".npmrc": "SECRET-npmrc",
    ".pypirc": "SECRET-pypirc",
    ".config/pip/pip.conf": "SECRET-pip-index-password",
    ".pip/pip.conf": "SECRET-old-pip-index-password",
    ".config/uv/uv.toml": "SECRET-uv-index-password",
    ".config/pypoetry/auth.toml": "SECRET-poetry-http-basic",
    ".config/gh/hosts.yml": "SECRET-gh",
    ".config/agent-tui/config.toml": "SECRET-agent-tui-api-key",
    ".local/state/agent-tui/input-history/other-0123.jsonl": "SECRET-typed-in-another-workspace",
    ".bash_history": "SECRET-history",
    # where providers' instructions put `export OPENAI_API_KEY=…`: a base64 copy passes redaction
    ".bashrc": "SECRET-bashrc-export",
    ".profile": "SECRET-profile-export",
    ".zshrc": "SECRET-zshrc-export",
    ".config/fish/config.fish": "SECRET-fish-export",
    ".env": "SECRET-home-dotenv",
    # other AI tools' keys and private keys (a fifth audit found 43 of 49 such files readable)
    ".gemini/oauth_creds.json": "SECRET-gemini-oauth",
    ".gemini/.env": "SECRET-gemini-env",
    ".aider.conf.yml": "SECRET-aider",
    ".continue/config.json": "SECRET-continue",
    ".config/io.datasette.llm/keys.json": "SECRET-llm-keys",
    ".local/share/opencode/auth.json": "SECRET-opencode",
    ".cursor/mcp.json": "SECRET-cursor-mcp",
    ".config/sops/age/keys.txt": "SECRET-age-private-key",
    ".ollama/id_ed25519": "SECRET-ollama-key",
    ".cache/agent-tui/logs/mcp/server.log": "SECRET-mcp-log",
    ".databrickscfg": "SECRET-databricks",
    ".config/.wrangler/config/default.toml": "SECRET-wrangler",
    ".vercel/auth.json": "SECRET-vercel",
    ".config/stripe/config.toml": "SECRET-stripe",
    ".m2/settings.xml": "SECRET-maven-server-password",
    ".terraformrc": "SECRET-terraformrc",
    ".config/helm/repositories.yaml": "SECRET-helm",
    ".config/heroku/config.json": "SECRET-heroku",
    # a fourth audit's stores: wallets, messaging sessions, cloud/CI and package credentials, histories, editors
    ".config/solana/id.json": "SECRET-solana",
    ".ethereum/keystore/UTC--key": "SECRET-ethereum",
    ".bitcoin/wallet.dat": "SECRET-bitcoin",
    ".config/Signal/config.json": "SECRET-signal",
    ".local/share/TelegramDesktop/tdata/key_datas": "SECRET-telegram",
    ".config/Slack/Cookies": "SECRET-slack-cookies",
    ".pulumi/credentials.json": "SECRET-pulumi",
    ".cloudflared/cert.pem": "SECRET-cloudflared",
    ".kaggle/kaggle.json": "SECRET-kaggle",
    ".circleci/cli.yml": "SECRET-circleci",
    ".yarnrc": "SECRET-yarn-v1-token",
    ".nuget/NuGet/NuGet.Config": "SECRET-nuget",
    ".local/share/python_keyring/keyring_pass.cfg": "SECRET-python-keyring",
    ".vault_pass.txt": "SECRET-ansible-vault",
    ".histfile": "SECRET-zsh-histfile",
    ".local/share/atuin/history.db": "SECRET-atuin",
    ".config/Code/User/globalStorage/state.vscdb": "SECRET-vscode-tokens",
    ".config/JetBrains/IdeaIC/options/security.xml": "SECRET-jetbrains",
    # a seventh audit's: snap/flatpak browsers, fish's universal variables, R and IPython start-up, HF tokens
    "snap/firefox/common/.mozilla/firefox/p/cookies.sqlite": "SECRET-snap-firefox",
    ".var/app/org.mozilla.firefox/.mozilla/firefox/p/logins.json": "SECRET-flatpak-firefox",
    ".config/fish/fish_variables": "SECRET-fish-universal-key",
    ".Renviron": "SECRET-renviron",
    ".ipython/profile_default/startup/00-keys.py": "SECRET-ipython",
    ".cache/huggingface/stored_tokens": "SECRET-hf-stored",
    ".config/aichat/config.yaml": "SECRET-aichat",
}


def _outside_tmp() -> Path:
    """A writable folder the sandbox does not replace anyway (its /tmp, /var/tmp and /dev are its own)."""
    for base in (Path.home() / ".cache", Path.cwd()):
        real = base.resolve()
        if not any(real.is_relative_to(t) for t in (Path("/tmp"), Path("/var/tmp"), Path("/dev"))):
            real.mkdir(parents=True, exist_ok=True)
            if os.access(real, os.W_OK):
                return real
    pytest.fail("no writable folder outside /tmp for a fake home")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fake $HOME (outside /tmp, so the private /tmp does not hide it anyway) full of planted secrets."""
    root = _outside_tmp() / f"agent-tui-test-home-{uuid.uuid4().hex[:8]}"
    for rel, text in SECRETS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n")
    (root / "notes").mkdir()
    (root / "notes" / "readme.txt").write_text("VISIBLE-notes\n")
    (root / ".rustup").mkdir()
    (root / ".rustup" / "settings.toml").write_text("VISIBLE-toolchain\n")
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / ".config"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


async def sh(box: Sandbox, command: str) -> tuple[int | None, str]:
    out = await run_shell(command, box.workspace, 60, sandbox=box)
    return out.exit_code, out.output


async def test_secret_stores_under_home_are_hidden_but_toolchains_stay(home: Path, ws: Path) -> None:
    box = Sandbox(require_bwrap(), ws)
    cat = " ; ".join(f"cat {home / rel}" for rel in SECRETS)
    code, out = await sh(box, f"{cat} ; cat {home}/notes/readme.txt {home}/.rustup/settings.toml; ls -a {home}/.ssh")
    leaked = [text for text in SECRETS.values() if text in out]
    assert leaked == [], out
    assert "VISIBLE-notes" in out and "VISIBLE-toolchain" in out, out
    code, out = await sh(box, f"echo planted > {home}/.ssh/authorized_keys; cp -r {home}/.aws ./copied")
    assert not (home / ".ssh" / "authorized_keys").exists()
    assert not any("SECRET" in p.read_text() for p in ws.rglob("*") if p.is_file())
    assert "~/.ssh" in box.describe()


async def test_hide_adds_paths_and_files_named_by_the_environment(home: Path, ws: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "work" / "keys").mkdir(parents=True)
    (home / "work" / "keys" / "prod.pem").write_text("SECRET-extra\n")
    (home / "elsewhere").mkdir()
    (home / "elsewhere" / "kube.yaml").write_text("SECRET-kubeconfig-env\n")
    (home / "elsewhere" / "sa.json").write_text("SECRET-gac-env\n")
    monkeypatch.setenv("KUBECONFIG", str(home / "elsewhere" / "kube.yaml"))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(home / "elsewhere" / "sa.json"))
    (home / "elsewhere" / "pip.ini").write_text("SECRET-pip-config-file-env\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(home / "elsewhere" / "pip.ini"))
    box = Sandbox(require_bwrap(), ws, hide=("~/work/keys",))
    _, out = await sh(box, f"cat {home}/work/keys/prod.pem {home}/elsewhere/kube.yaml {home}/elsewhere/sa.json "
                           f"{home}/elsewhere/pip.ini {home}/notes/readme.txt")
    assert "SECRET" not in out and "VISIBLE-notes" in out, out


async def test_hiding_all_of_home_keeps_the_workspace_inside_it(home: Path) -> None:
    ws = home / "src" / "project"
    ws.mkdir(parents=True)
    box = Sandbox(require_bwrap(), ws, hide=("~",))
    code, out = await sh(box, f"echo made > built.txt && cat built.txt; cat {home}/notes/readme.txt")
    assert "made" in out and "VISIBLE-notes" not in out, out
    assert (ws / "built.txt").read_text() == "made\n"


@pytest.mark.parametrize("where", [".local/bin", "bin"])
async def test_a_bash_that_lives_under_a_hidden_home_still_runs_commands(
        home: Path, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hide = ["~"]`` with bash from a per-user package manager: its installation stays visible
    (read-only), the secrets beside it and the rest of the home do not."""
    from agent_tui.tools import shell_dialect

    ws = home / "src" / "project"
    ws.mkdir(parents=True)
    own = home / where / "bash"
    own.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2("/bin/bash", own)
    (own.parent / "helper.txt").write_text("VISIBLE-beside-bash\n")
    monkeypatch.setattr(shell_dialect, "bash_path", lambda: str(own))
    box = Sandbox(require_bwrap(), ws, hide=("~",))
    code, out = await sh(box, f"echo ran-by-$BASH; cat {own.parent}/helper.txt; cat {home}/.local/state/agent-tui/"
                              f"input-history/other-0123.jsonl {home}/notes/readme.txt {home}/.ssh/id_ed25519")
    assert f"ran-by-{own}" in out and "VISIBLE-beside-bash" in out, out
    assert "SECRET" not in out and "VISIBLE-notes" not in out, out
    code, out = await sh(box, f"echo changed > {own.parent}/helper.txt")
    assert (own.parent / "helper.txt").read_text() == "VISIBLE-beside-bash\n"


def _listen(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True)
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen(4)
    return srv


@pytest.mark.parametrize("network", [False, True])
async def test_agent_and_editor_sockets_under_home_are_out_of_reach(home: Path, ws: Path, network: bool) -> None:
    """An ssh agent signs as the user, an editor or terminal socket (nvim, kitty) runs commands outside."""
    paths = [home / ".1password" / "agent.sock", home / ".local" / "state" / "nvim" / "server.sock",
             ws / "dev.sock"]
    servers = [_listen(p) for p in paths]
    try:
        box = Sandbox(require_bwrap(), ws, network=network)
        for path in paths:
            connect = (f"{sys.executable} -c \"import socket; s = socket.socket(socket.AF_UNIX); "
                       f"s.connect('{path}'); print('REACHED')\"")
            code, out = await sh(box, connect)
            assert code != 0 and "REACHED" not in out, (path, out)
    finally:
        for srv, path in zip(servers, paths, strict=True):
            srv.close()
            path.unlink(missing_ok=True)


async def test_sandboxed_commands_lose_agent_and_editor_variables(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.agent.session import SessionOptions, build_agent
    from agent_tui.core.config import Settings
    from agent_tui.tools.shell import run_command

    require_bwrap()
    planted = {"SSH_AUTH_SOCK": "/x/agent.sock", "NVIM": "/x/nvim.sock", "TMUX": "/x/tmux,1,0",
               "KITTY_LISTEN_ON": "unix:/x/kitty", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x/bus",
               "DOCKER_HOST": "unix:///x/docker.sock", "I3SOCK": "/x/i3", "KRB5CCNAME": "FILE:/x/krb"}
    for k, v in planted.items():
        monkeypatch.setenv(k, v)
    agent, wsp = build_agent(tmp_path, SessionOptions(), settings=Settings())
    try:
        boxed = await run_command({"command": "env"}, agent.ctx)
        assert "exit code 0" in boxed.text
        assert [k for k in planted if f"{k}=" in boxed.text] == [], boxed.text
        free = await run_command({"command": "env", "outside_sandbox": True}, agent.ctx)
        assert "NVIM=/x/nvim.sock" in free.text and "TMUX=" in free.text, free.text
        assert "SSH_AUTH_SOCK=/x/agent.sock" in free.text, free.text  # `git push` over ssh, asked, needs it
    finally:
        wsp.close()


def test_hide_is_validated_and_a_workspace_may_only_add_to_it(tmp_path: Path) -> None:
    from agent_tui.core.config import ConfigError, settings_from_dict
    from agent_tui.core.trust import merge_tables

    assert settings_from_dict({"sandbox": {"hide": ["~/keys", "/srv/k"]}}).sandbox.hide == ["~/keys", "/srv/k"]
    for bad in ("~/keys", ["relative/path"], [3]):
        with pytest.raises(ConfigError, match=r"hide"):
            settings_from_dict({"sandbox": {"hide": bad}})
    merged = merge_tables({"sandbox": {"hide": ["~/keys"]}}, {"sandbox": {"hide": []}})
    assert merged["sandbox"]["hide"] == ["~/keys"], "a workspace cannot drop the user's hidden paths"


def test_a_workspace_hide_list_needs_no_trust(tmp_path: Path) -> None:
    from agent_tui.core import trust

    asks: list[trust.Ask] = []
    kept = trust._split_sandbox({"hide": ["~/more"]}, asks)
    assert kept == {"hide": ["~/more"]} and asks == []



@pytest.mark.parametrize("folder_gone", [False, True])
async def test_a_socket_that_vanishes_before_the_mounts_does_not_fail_the_command(
        ws: Path, monkeypatch: pytest.MonkeyPatch, folder_gone: bool) -> None:
    """The socket list is read just before bwrap starts; a socket closed in between (another test's server,
    a restarted agent) must not make the command fail — nor one whose folder went with it (bwrap says "Can't
    mkdir parents for …": CI failed on a test home removed while another test's command started)."""
    import agent_tui.tools.sandbox as sb

    calls: list[int] = []
    where = Path.home() / f".agent-tui-vanished-{uuid.uuid4().hex[:8]}" if folder_gone else Path.home()
    gone = where / ("agent.sock" if folder_gone else f".agent-tui-vanished-{uuid.uuid4().hex[:8]}.sock")

    def scan(skip: object, exposed: object = ()) -> list[Path]:
        calls.append(1)
        return [gone] if len(calls) == 1 else []

    monkeypatch.setattr(sb, "host_sockets", scan)
    code, out = await sh(Sandbox(require_bwrap(), ws), "echo ran")
    assert code == 0 and out.strip() == "ran", out
    assert len(calls) == 2


async def test_another_projects_store_is_hidden_and_this_ones_stays(home: Path, ws: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostile repository's sandboxed script copied ~/*/.agent-tui/memory.db and printed another project's
    conversation, which went on to the model."""
    from agent_tui.core.config import Settings
    from agent_tui.store.known_stores import MAX_STORES, known, remember
    from agent_tui.store.workspace import Workspace

    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    other = home / "otherproj"
    other.mkdir()
    Workspace(other, settings=Settings()).close()  # the user worked there once: its store is on the list
    with (other / ".agent-tui" / "memory.db").open("ab") as f:
        f.write(b"SECRET-other-project-plan")
    Workspace(ws, settings=Settings()).close()
    (ws / ".agent-tui" / "note.txt").write_text("VISIBLE-own-store-folder\n")
    assert {p.parent.name for p in known()} == {".agent-tui"} and len(known()) == 2
    box = Sandbox(require_bwrap(), ws)
    code, out = await sh(box, f"cat {other}/.agent-tui/memory.db | grep -ao SECRET-other-project-plan; "
                              f"ls -a {other}/.agent-tui; cat .agent-tui/note.txt")
    assert "SECRET-other-project-plan" not in out and "No such file" in out, out
    assert "memory.db" not in out.splitlines() and "logs" not in out.splitlines(), "its folder is empty"
    assert "VISIBLE-own-store-folder" in out, out
    for n in range(MAX_STORES + 5):
        remember(home / f"p{n}" / ".agent-tui" / "memory.db")
    assert len(known()) == MAX_STORES and known()[-1] == home / f"p{MAX_STORES + 4}" / ".agent-tui" / "memory.db"


def test_the_list_is_written_only_when_a_store_is_new_to_its_end(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_tui.store.known_stores import known, list_path, remember

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    a, b = tmp_path / "a" / ".agent-tui" / "memory.db", tmp_path / "b" / ".agent-tui" / "memory.db"
    remember(a)
    remember(b)
    written = list_path().stat().st_mtime_ns
    remember(b)  # (every run of the same project: no write)
    assert list_path().stat().st_mtime_ns == written
    remember(a)
    assert known() == [b, a], "opened again: moved to the end, once"


def test_stores_opened_at_the_same_moment_all_stay_on_the_list(tmp_path: Path) -> None:
    """Two agent-tui starting at once each rewrote the list from what they had read: one store fell off it,
    and the other projects' commands could read it."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    code = ("import sys; from pathlib import Path; from agent_tui.store.known_stores import remember\n"
            "for k in range(7): remember(Path(sys.argv[1]) / f's{k}' / '.agent-tui' / 'memory.db')")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / f"p{n}")], env=env) for n in range(9)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    listed = (tmp_path / "state" / "agent-tui" / "stores.txt").read_text().split()
    assert len(listed) == len(set(listed)) == 63, "9 x 7 stores, fewer than the 64 kept: every one, once"
