"""What the sandbox hides from commands: the user's secrets under ``$HOME`` and the host's sockets.

The sandbox has no network, but a command's output goes to the model provider: a repository's
``conftest.py`` that prints ``~/.ssh/id_ed25519`` sends the key out through the model.  So the
places where keys, tokens, cookies and shell histories live are hidden (an empty, read-only
folder over a folder, ``/dev/null`` over a file), as Claude Code's ``denyRead`` and firejail's
``disable-*`` profiles do.  Hiding all of ``$HOME`` was weighed and not made the default: per-user
toolchains (rustup, nvm, pyenv, uv, go), their caches and editable installs or path dependencies
on sibling checkouts live there, and a sandbox that breaks ``cargo test`` gets turned off.  A user
who wants it writes ``hide = ["~"]`` (the workspace and the agent's own Python stay visible).

``[sandbox] hide`` adds paths (``~/…`` or absolute) to the defaults; it cannot remove any.  Files
named by the user's environment (``KUBECONFIG``, ``GOOGLE_APPLICATION_CREDENTIALS``, ``GNUPGHOME``…)
are hidden too.  Unix sockets are found in ``/proc/net/unix`` and hidden wherever they are (a
read-only mount does not stop ``connect()``): an ssh or gpg agent signs as the user, a terminal,
editor or window manager socket (kitty, nvim, i3) runs commands outside the sandbox.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

#: Secret stores hidden from every sandboxed command (``~`` is the user's home).
DEFAULT_HIDDEN: tuple[str, ...] = (
    # keys and agents
    "~/.ssh", "~/.gnupg", "~/.password-store", "~/.local/share/keyrings", "~/.pki",
    # cloud, cluster and container credentials
    "~/.aws", "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker", "~/.config/containers/auth.json",
    "~/.oci", "~/.config/doctl", "~/.terraform.d/credentials.tfrc.json", "~/.vault-token", "~/.fly",
    "~/.s3cfg", "~/.boto", "~/.config/rclone",
    # git, package registries and forges
    "~/.netrc", "~/.git-credentials", "~/.config/git/credentials", "~/.config/gh", "~/.config/hub",
    "~/.config/glab-cli", "~/.npmrc", "~/.yarnrc.yml", "~/.pypirc", "~/.cargo/credentials",
    "~/.cargo/credentials.toml", "~/.gem/credentials", "~/.m2/settings-security.xml",
    "~/.gradle/gradle.properties", "~/.config/op", "~/.pgpass", "~/.my.cnf",
    "~/.config/pip/pip.conf", "~/.pip/pip.conf", "~/.config/uv/uv.toml", "~/.condarc", "~/.bundle/config",
    "~/.composer/auth.json", "~/.config/composer/auth.json", "~/.config/pypoetry/auth.toml",
    "~/.local/share/uv/credentials",
    # other AI tools' keys, and agent-tui's own config (api_key, trusted folders) and state (the input
    # history of every workspace: one workspace's commands must not read what was typed in another)
    "~/.config/agent-tui", "~/.local/state/agent-tui", "~/.codex", "~/.claude", "~/.claude.json", "~/.config/github-copilot",
    "~/.huggingface", "~/.cache/huggingface/token", "~/.config/openai", "~/.gemini", "~/.aider.conf.yml",
    "~/.aider.oauth-keys.env", "~/.continue", "~/.config/io.datasette.llm", "~/.local/share/opencode",
    "~/.config/opencode", "~/.cursor", "~/.config/anthropic", "~/.config/openrouter", "~/.config/sops",
    "~/.ollama/id_ed25519", "~/.cache/agent-tui", "~/.config/goose", "~/.config/zed",
    # more cloud and service credentials
    "~/.databrickscfg", "~/.wrangler", "~/.config/.wrangler", "~/.vercel", "~/.local/share/com.vercel.cli",
    "~/.netlify", "~/.config/netlify", "~/.config/stripe", "~/.config/hcloud", "~/.snowsql", "~/.m2/settings.xml",
    "~/.config/heroku", "~/.netrc.gpg", "~/.bundle/credentials", "~/.terraformrc", "~/.config/helm",
    "~/.config/configstore", "~/.config/firebase", "~/.config/twilio", "~/.config/flyctl", "~/.config/railway",
    "~/.railway", "~/.supabase", "~/.config/supabase", "~/.config/ngrok", "~/.ngrok2", "~/.config/doppler",
    "~/.doppler", "~/.config/age", "~/.config/rbw", "~/.config/Bitwarden CLI", "~/.config/1Password",
    # shell start-up files: where providers' own instructions put `export OPENAI_API_KEY=…` (redaction
    # matches the value as written, not a base64 or reversed copy a command makes of the file)
    "~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_aliases", "~/.profile", "~/.zshrc", "~/.zshenv",
    "~/.zprofile", "~/.zlogin", "~/.kshrc", "~/.cshrc", "~/.tcshrc", "~/.config/fish/config.fish",
    "~/.config/fish/conf.d", "~/.env", "~/.envrc", "~/.config/direnv",
    # shell and REPL histories (tokens typed on command lines), browser profiles (cookies), X auth
    "~/.bash_history", "~/.zsh_history", "~/.local/share/fish/fish_history", "~/.python_history",
    "~/.psql_history", "~/.mysql_history", "~/.node_repl_history", "~/.sqlite_history",
    "~/.mozilla", "~/.config/google-chrome", "~/.config/chromium", "~/.config/BraveSoftware",
    "~/.thunderbird", "~/.Xauthority", "~/.ICEauthority",
    # crypto wallets and keystores
    "~/.config/solana", "~/.ethereum", "~/.bitcoin", "~/.electrum", "~/.foundry/keystores", "~/.near-credentials",
    "~/.config/Exodus", "~/.monero", "~/.litecoin", "~/.brownie/accounts", "~/.sui/sui_config", "~/.aptos",
    # messaging sessions and desktop apps' cookies
    "~/.config/Signal", "~/.local/share/TelegramDesktop", "~/.config/discord", "~/.config/Slack",
    "~/.config/Element", "~/.config/Microsoft/Microsoft Teams", "~/.config/teams-for-linux", "~/.purple",
    # more cloud, cluster and CI credentials
    "~/.pulumi", "~/.cloudflared", "~/.mc", "~/.minikube", "~/.talos", "~/.config/scw", "~/.ovh.conf",
    "~/.config/linode-cli", "~/.linode-cli", "~/.bluemix", "~/.aliyun", "~/.tccli", "~/.civo.json",
    "~/.kaggle", "~/.dbt/profiles.yml", "~/.streamlit/credentials.toml", "~/.jfrog", "~/.sentryclirc",
    "~/.circleci", "~/.config/tea", "~/.config/exercism", "~/.config/gitlab-runner", "~/.ibmcloud",
    "~/.config/vultr-cli.yaml", "~/.digitalocean", "~/.terraform.d/plugin-cache/credentials",
    # package-manager credentials
    "~/.yarnrc", "~/.nuget/NuGet/NuGet.Config", "~/.config/NuGet/NuGet.Config", "~/.ivy2/.credentials",
    "~/.sbt/credentials", "~/.sbt/.credentials", "~/.config/pnpm/rc", "~/.bunfig.toml", "~/.deno",
    "~/.config/hatch", "~/.config/pdm",
    # keyrings and vault files
    "~/.local/share/python_keyring", "~/.awsvault", "~/.vault_pass.txt", "~/.vault_pass", "~/.ansible",
    "~/.config/keybase", "~/.local/share/keybase",
    # more shell and tool histories (zsh's common HISTFILE names, atuin, REPLs, editors' histories)
    "~/.histfile", "~/.zhistory", "~/.local/share/atuin", "~/.rediscli_history", "~/.viminfo",
    "~/.local/state/nvim/shada", "~/.irb_history", "~/.pry_history", "~/.lesshst", "~/.wget-hsts",
    "~/.sh_history", "~/.ksh_history", "~/.mongosh", "~/.dbshell", "~/.local/share/nvim/shada",
    # editors' stored tokens and AI plugins' keys
    "~/.config/Code/User/globalStorage", "~/.vscode-server", "~/.config/Cursor/User/globalStorage",
    "~/.codeium", "~/.config/JetBrains", "~/.local/share/JetBrains", "~/.config/VSCodium/User/globalStorage",
    "~/.windsurf", "~/.config/Windsurf/User/globalStorage",
    # a seventh audit: snap and flatpak browser profiles, fish's universal variables (`set -Ux` keys), R's and
    # IPython's start-up files, Hugging Face's stored tokens, more AI command lines' configs
    "~/snap/firefox", "~/snap/chromium", "~/.var/app", "~/.config/fish/fish_variables", "~/.Renviron",
    "~/.cache/huggingface/stored_tokens", "~/.ipython", "~/.config/aichat", "~/.config/fabric",
)
#: The same stores relative to ``$XDG_CONFIG_HOME`` when it is not ``~/.config``.
XDG_CONFIG_HIDDEN: tuple[str, ...] = ("agent-tui", "gcloud", "gh", "hub", "glab-cli", "op", "rclone", "doctl",
                                      "git/credentials", "containers/auth.json", "github-copilot", "openai",
                                      "pip/pip.conf", "uv/uv.toml", "composer/auth.json", "fish/config.fish",
                                      "fish/conf.d", "direnv", "io.datasette.llm", "opencode", "anthropic",
                                      "openrouter", "sops", "stripe", "hcloud", "heroku", "helm", "netlify",
                                      ".wrangler", "configstore", "firebase", "flyctl", "railway", "supabase",
                                      "ngrok", "doppler", "age", "rbw", "goose", "zed", "solana", "Signal",
                                      "discord", "Slack", "Element", "scw", "tea", "JetBrains", "keybase",
                                      "Code/User/globalStorage", "Cursor/User/globalStorage", "NuGet/NuGet.Config",
                                      "pnpm/rc", "hatch", "pdm", "linode-cli", "Exodus")
#: Environment variables naming a secret file or folder (``:``-separated lists allowed).
PATH_VARS: tuple[str, ...] = (
    "GNUPGHOME", "DOCKER_CONFIG", "KUBECONFIG", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR", "NETRC", "PASSWORD_STORE_DIR",
    "XAUTHORITY", "REGISTRY_AUTH_FILE", "KRB5CCNAME", "HISTFILE", "GH_CONFIG_DIR", "SSH_AUTH_SOCK",
    "PIP_CONFIG_FILE", "UV_CONFIG_FILE", "CONDARC",
)
#: Sockets left reachable: name lookups need them when the network is on, and they run nothing.
_HARMLESS_SOCKETS = ("/run/systemd/resolve/", "/run/nscd/", "/var/run/nscd/", "/run/systemd/journal/")
#: At most this many sockets are hidden (each is one mount; a busy desktop has a few dozen).
MAX_SOCKETS = 256


def _expand(raw: str, home: Path) -> Path | None:
    """``raw`` (``~/x``, ``~``, ``$HOME/x`` or absolute) as an absolute path; None if relative."""
    text = raw.strip()
    if text.startswith("FILE:"):  # KRB5CCNAME=FILE:/path
        text = text[5:]
    if text == "~" or text.startswith("~/"):
        text = str(home) + text[1:]
    elif text.startswith("$HOME"):
        text = str(home) + text[5:]
    p = Path(text)
    return p if p.is_absolute() else None


def hidden_paths(extra: Iterable[str], workspace: Path, env: Mapping[str, str] | None = None,
                 home: Path | None = None, nested: bool = False) -> list[Path]:
    """The real paths to hide (existing ones only, each once, none inside another unless ``nested``),
    defaults first.

    Never ``/``, the workspace itself or a folder holding it from the environment's variables (a
    ``GNUPGHOME=$HOME`` must not hide everything); the user's own ``extra`` may hide a folder
    holding the workspace (``~``): the workspace is mounted again on top.
    """
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())
    ws = workspace.resolve()
    wanted: list[tuple[str, bool]] = [(p, False) for p in DEFAULT_HIDDEN]
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg and Path(xdg).is_absolute():
        wanted += [(str(Path(xdg) / p), False) for p in XDG_CONFIG_HIDDEN]
    xdg_state = env.get("XDG_STATE_HOME")
    if xdg_state and Path(xdg_state).is_absolute():
        wanted.append((str(Path(xdg_state) / "agent-tui"), False))
    for name in PATH_VARS:
        wanted += [(part, True) for part in (env.get(name) or "").split(":") if part]
    wanted += [(p, False) for p in extra]
    wanted += [(str(p), False) for p in _other_stores(ws)]
    out: list[Path] = []
    for raw, from_env in wanted:
        path = _expand(raw, home)
        if path is None:
            continue
        try:
            if not (path.exists() or path.is_symlink()):
                continue
            real = path.resolve()
        except (OSError, RuntimeError):
            continue
        if real == Path("/") or real == ws or (from_env and (ws.is_relative_to(real) or real == home)):
            continue
        if real.exists():
            out.append(real)
    return list(dict.fromkeys(out)) if nested else outermost(out)


def _other_stores(workspace: Path) -> list[Path]:
    """Other projects' stores (``store/known_stores``): a sandboxed command read ``~/*/.agent-tui/memory.db``,
    another project's whole conversation.  The workspace's own store stays as it was (read-only)."""
    from agent_tui.store.known_stores import hidden_for_store, known

    out: list[Path] = []
    for store in known():
        out += [p for p in hidden_for_store(store) if not p.is_relative_to(workspace)]
    return out


def outermost(paths: list[Path]) -> list[Path]:
    """``paths`` without duplicates and without those inside another one (order kept)."""
    uniq = list(dict.fromkeys(paths))
    return [p for p in uniq if not any(q != p and p.is_relative_to(q) for q in uniq)]


def host_sockets(skip: Iterable[Path], exposed: Iterable[Path] = (),
                 proc_net_unix: str = "/proc/net/unix") -> list[Path]:
    """Path-named Unix sockets listening on the host, outside the folders in ``skip`` (already hidden)
    unless inside a folder in ``exposed`` (mounted again on top: the workspace under /tmp, say).

    Abstract sockets (``@name``) have no path; without network they live in the host's network
    namespace, which the sandbox does not share.
    """
    skipped = [p.resolve() if p.exists() else p for p in skip]
    shown = [p.resolve() for p in exposed]
    try:
        with open(proc_net_unix, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()[1:]
    except OSError:
        return []
    found: list[Path] = []
    for line in lines:
        parts = line.split(None, 7)
        if len(parts) < 8 or not parts[7].startswith("/"):
            continue
        raw = parts[7]
        if raw.startswith(_HARMLESS_SOCKETS):
            continue
        path = Path(raw)
        try:
            if not stat.S_ISSOCK(os.lstat(path).st_mode):
                continue  # gone (a stale entry), or replaced by something else
            real = path.resolve()
        except OSError:
            continue
        if any(real.is_relative_to(s) for s in skipped) and not any(real.is_relative_to(e) for e in shown):
            continue
        found.append(real)
        if len(found) >= MAX_SOCKETS:
            break
    return list(dict.fromkeys(found))


def hide_flags(paths: Iterable[Path]) -> list[str]:
    """bwrap flags putting an empty folder over each folder and ``/dev/null`` over anything else."""
    out: list[str] = []
    for p in paths:
        try:
            is_dir = p.is_dir()
        except OSError:
            continue
        out += ["--tmpfs", str(p)] if is_dir else ["--ro-bind", "/dev/null", str(p)]
    return out


def remount_flags(paths: Iterable[Path]) -> list[str]:
    """bwrap flags making the empty folders read-only (after anything mounted inside them)."""
    out: list[str] = []
    for p in paths:
        if p.is_dir():
            out += ["--remount-ro", str(p)]
    return out
