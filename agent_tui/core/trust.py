"""Workspace trust: what a cloned repository's own config may do before the user has looked at it.

A workspace's ``.agent-tui/config.toml`` and ``.mcp.json`` are written by whoever wrote the
repository.  Until the user trusts the folder, they may only *tighten*: a stricter approval
default, another deny pattern, a smaller budget.  Everything that would loosen approval, send
the user's key or conversation somewhere (``api_base``, ``model``, ``[models]``), start a program
or connect somewhere (MCP servers, with their ``${VAR}`` expansions) is an :class:`Ask`: listed
for the user, ignored until trusted.  :func:`split_workspace` does the split; the fingerprint of
the asks is what the trust store remembers, so a repository that later asks for more is asked
about again.

Unknown keys default to asking: a new loosening key cannot slip through by being forgotten here.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.parse import loads_json, read_config
from agent_tui.core.tool_names import RANK, strictest_key

WORKSPACE_TOML = ".agent-tui/config.toml"
WORKSPACE_MCP_JSON = ".mcp.json"

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")

SAFE_TOP = frozenset({"temperature", "memory", "rules", "tools"})
"""Top-level keys a workspace may always set: they shape the context, not what may run or where data goes."""

CAPS: dict[str, int | None] = {"max_steps": 200}
"""Limits where lower is stricter: a workspace may lower them, raising asks (value: the built-in default)."""

BUDGET_CAPS = frozenset({"max_cost", "max_session_cost", "max_steps", "compact_at", "fresh_at"})
"""``[budget]`` keys where lower spends less (spending caps, and how full a request gets before compaction): a
workspace may lower them; raising (or lifting) one asks."""
BUDGET_FLOORS = frozenset({"reserve_share", "safety_margin", "output_reserve"})
"""``[budget]`` keys where higher spends less (what a request leaves unused): a workspace may raise them."""

UNION_LISTS: tuple[tuple[str, str], ...] = (("approval", "deny_commands"), ("sandbox", "hide"))
"""Lists the workspace adds to instead of replacing (a workspace deny list never drops the user's)."""

SAFE_MCP = frozenset({"groups", "always_load", "timeout", "result_max_tokens", "tool_budget",
                      "description_words", "param_words", "catalog_tokens", "connect_timeout"})
"""``[mcp]`` keys that only shape tool definitions and results."""


@dataclass(frozen=True)
class Ask:
    """One thing the workspace asks for that needs the user's trust."""

    source: str
    """The workspace file it comes from (``.agent-tui/config.toml`` or ``.mcp.json``)."""
    key: str
    """Dotted key, e.g. ``approval.default_command`` or ``mcp.servers.git``."""
    value: Any
    """The value as written (JSON-able); part of the fingerprint."""
    summary: str = ""
    """What it means in words, e.g. ``starts `node x.js``` (shown instead of the raw value)."""

    def line(self, width: int | None = None) -> str:
        """One human line: ``key = value`` or ``key: summary``, escape sequences and controls shown, not
        obeyed (``core/terminal.py``: a repository must not rewrite what the user decides on).  Whole unless
        a ``width`` is given (a one-line notice that points to the whole list): what the user trusts is
        exactly what they were shown."""
        from agent_tui.core.redact import redact_text
        from agent_tui.core.terminal import printable

        # (a value is shown masked where it holds a secret: a key in a workspace config reached the terminal, and
        # whatever records it, in clear; the key's name and the rest stay, so the user still sees what is asked)
        shown = self.summary or redact_text(json.dumps(self.value, ensure_ascii=False, default=str))
        text = printable(f"{self.key}: {shown}" if self.summary else f"{self.key} = {shown}", newlines=False)
        return text if width is None or len(text) <= width else text[: width - 1] + "…"


@dataclass(frozen=True)
class Split:
    """A workspace config cut in two: what applies untrusted, and what waits for trust."""

    tight: dict[str, Any]
    """The workspace TOML with every asking key removed (safe to merge untrusted)."""
    asks: tuple[Ask, ...]
    """What the rest would do."""
    full: dict[str, Any] = field(default_factory=dict)
    """The whole workspace TOML (merged when trusted)."""


def env_refs(value: Any) -> list[str]:
    """The ``${VAR}`` names referenced anywhere inside ``value`` (sorted, unique)."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, str):
            found.update(m.group(1) for m in _ENV_REF.finditer(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(value)
    return sorted(found)


#: Environment variables that make a program load code it was not started with.
LOADER_VARS = frozenset({"NODE_OPTIONS", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PYTHONPATH", "PYTHONSTARTUP",
                         "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "BASH_ENV", "ENV",
                         "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "NODE_PATH", "GIT_CONFIG_GLOBAL"})


def server_summary(raw: Any) -> str:
    """An MCP server entry in words: the command line it starts or the URL it connects to."""
    from agent_tui.core.redact import redact_text

    if not isinstance(raw, dict):
        return f"server entry {redact_text(json.dumps(raw, default=str)[:80])}"
    parts: list[str] = []
    if raw.get("command") is not None:  # (a key in the arguments is the user's own: never printed)
        args = raw.get("args") if isinstance(raw.get("args"), list) else []
        parts.append("starts `" + redact_text(shlex.join([str(raw["command"]), *(str(a) for a in args)])) + "`")
    if raw.get("url") is not None:
        parts.append(f"connects to {redact_text(str(raw['url']))}")
    if raw.get("cwd") is not None:
        parts.append(f"in {raw['cwd']}")
    if isinstance(raw.get("env"), dict) and raw["env"]:
        env = {str(k): str(v) for k, v in raw["env"].items()}
        parts.append("env " + " ".join(shlex.quote(f"{k}={redact_text(v)}") for k, v in sorted(env.items())))
        loaders = sorted(k for k in env if k in LOADER_VARS or k.startswith("DYLD_"))
        if loaders:
            parts.append(f"{', '.join(loaders)} make{'s' if len(loaders) == 1 else ''} the program load other code")
    if isinstance(raw.get("headers"), dict) and raw["headers"]:
        parts.append("headers " + ", ".join(sorted(str(k) for k in raw["headers"])))
    refs = env_refs(raw)
    if refs:
        parts.append("expands " + ", ".join(f"${{{r}}}" for r in refs))
    return "; ".join(parts) or "server entry without command or url"


def _loosens(ws_value: Any, base: Any) -> bool:
    """True when decision ``ws_value`` is looser than ``base`` (anything unrecognised loosens)."""
    if not isinstance(ws_value, str) or not isinstance(base, str) or ws_value not in RANK or base not in RANK:
        return True
    return RANK[ws_value] > RANK[base]


def _split_approval(user: dict[str, Any], ws: dict[str, Any], asks: list[Ask]) -> dict[str, Any]:
    tight: dict[str, Any] = {}
    user_denies = "deny" in (user.get("default_write"), user.get("default_command"))
    for key, value in ws.items():
        where = f"approval.{key}"
        if key in ("default_write", "default_command", "sandboxed_commands"):
            if _loosens(value, user.get(key, "ask")):
                asks.append(Ask(WORKSPACE_TOML, where, value))
            else:
                tight[key] = value
        elif key == "tools" and isinstance(value, dict):
            user_tools = user.get("tools") if isinstance(user.get("tools"), dict) else {}
            kept: dict[str, Any] = {}
            for tool, decision in value.items():
                mine = strictest_key(user_tools, str(tool))  # (the user's spelling may differ: 1password__get)
                base = user_tools[mine] if mine is not None else "deny" if user_denies else "ask"
                if isinstance(decision, str) and (decision == "deny" or (decision == "ask" and not _loosens(decision, base))):
                    kept[tool] = decision
                else:
                    asks.append(Ask(WORKSPACE_TOML, f"approval.tools.{tool}", decision))
            if kept:
                tight[key] = kept
        elif key == "deny_commands":
            tight[key] = value
        else:  # allow_commands and anything unknown
            asks.append(Ask(WORKSPACE_TOML, where, value))
    return tight


def _split_mcp(ws: dict[str, Any], asks: list[Ask]) -> dict[str, Any]:
    tight: dict[str, Any] = {}
    for key, value in ws.items():
        if key in SAFE_MCP:
            tight[key] = value
        elif key == "servers" and isinstance(value, dict):
            for name, raw in value.items():
                asks.append(Ask(WORKSPACE_TOML, f"mcp.servers.{name}", raw, server_summary(raw)))
        elif key == "tools" and isinstance(value, dict):
            kept: dict[str, Any] = {}
            for name, settings in value.items():
                if isinstance(settings, dict) and settings.get("read_only") is True:
                    asks.append(Ask(WORKSPACE_TOML, f"mcp.tools.{name}.read_only", True,
                                    "treats this MCP tool as read-only (runs without asking)"))
                    settings = {k: v for k, v in settings.items() if k != "read_only"}
                kept[name] = settings
            tight[key] = kept
        else:
            asks.append(Ask(WORKSPACE_TOML, f"mcp.{key}", value))
    return tight


SANDBOX_OFF = frozenset({"off", "none", "disabled", "never", "false"})
"""``[sandbox] mode`` values that turn the sandbox off."""


def _split_sandbox(ws: dict[str, Any], asks: list[Ask]) -> dict[str, Any]:
    tight: dict[str, Any] = {}
    for key, value in ws.items():
        strict = ((key == "mode" and isinstance(value, str) and value.lower() not in SANDBOX_OFF)
                  or (key == "network" and value is False)
                  or (key in ("writable", "pass_env") and value == [])
                  or (key == "hide" and isinstance(value, list)))  # hiding more only tightens
        if strict:
            tight[key] = value
        else:  # sandbox off, network on, extra writable paths, anything unknown
            asks.append(Ask(WORKSPACE_TOML, f"sandbox.{key}", value))
    return tight


def _split_budget(user: dict[str, Any], ws: dict[str, Any], asks: list[Ask]) -> dict[str, Any]:
    """Budget shares are safe; a spending cap or a compaction threshold may only go down (None, the default, means
    no cap), and what a request leaves unused only up: an untrusted repository cannot make requests larger."""
    from agent_tui.core.config import BudgetConfig

    defaults = BudgetConfig()
    tight: dict[str, Any] = {}
    for key, value in ws.items():
        if key in BUDGET_CAPS:
            base = user.get(key, getattr(defaults, key, None))
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if number and (base is None or value <= base):
                tight[key] = value
            else:
                asks.append(Ask(WORKSPACE_TOML, f"budget.{key}", value))
        elif key in BUDGET_FLOORS:
            base = user.get(key, getattr(defaults, key))  # (output_reserve: None, the model's own, is no floor known)
            if isinstance(value, int | float) and not isinstance(value, bool) and base is not None and value >= base:
                tight[key] = value
            else:
                asks.append(Ask(WORKSPACE_TOML, f"budget.{key}", value))
        else:
            tight[key] = value
    return tight


def _inside(root: Path, value: Any) -> bool:
    if not isinstance(value, str) or "\x00" in value:
        return False  # not a path the OS can open: asked like any outside path, never resolved
    try:
        p = Path(value).expanduser()
        target = (p if p.is_absolute() else root / p).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return target == root.resolve() or root.resolve() in target.parents


def _in_agent_dir(root: Path, value: Any) -> bool:
    """``value`` names a file inside the workspace's ``.agent-tui/`` folder, the one the sandbox mounts
    read-only.  A store anywhere else in the workspace (``docs/notes.db``) was writable by any command the
    agent ran, so a repository's code could plant a pinned rule in the user's own store, and git would
    track the whole conversation."""
    if not isinstance(value, str) or "\x00" in value:
        return False
    try:
        p = Path(value).expanduser()
        target = (p if p.is_absolute() else root / p).resolve()
        return (root / ".agent-tui").resolve() in target.parents
    except (OSError, ValueError, RuntimeError):
        return False


def split_workspace(user: dict[str, Any], ws: dict[str, Any], root: Path) -> Split:
    """Cut the workspace TOML ``ws`` into what tightens (relative to ``user``'s TOML) and what asks."""
    asks: list[Ask] = []
    tight: dict[str, Any] = {}
    for key, value in ws.items():
        if key in SAFE_TOP:
            tight[key] = value
        elif key == "window":
            tight["window_cap"] = value  # (a smaller window spends less: it applies only below the one in force)
        elif key in CAPS:
            base = user.get(key, CAPS[key])
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if ok and (base is None or value <= base):
                tight[key] = value
            else:
                asks.append(Ask(WORKSPACE_TOML, key, value))
        elif key == "approval" and isinstance(value, dict):
            user_approval = user.get("approval") if isinstance(user.get("approval"), dict) else {}
            kept = _split_approval(user_approval, value, asks)
            if kept:
                tight[key] = kept
        elif key == "budget" and isinstance(value, dict):
            user_budget = user.get("budget") if isinstance(user.get("budget"), dict) else {}
            tight[key] = _split_budget(user_budget, value, asks)
        elif key == "sandbox" and isinstance(value, dict):
            kept = _split_sandbox(value, asks)
            if kept:
                tight[key] = kept
        elif key == "mcp" and isinstance(value, dict):
            kept = _split_mcp(value, asks)
            if kept:
                tight[key] = kept
        elif key == "models" and isinstance(value, dict):
            for model, over in value.items():
                asks.append(Ask(WORKSPACE_TOML, f'models."{model}"', over))
        elif key == "store_path" and _in_agent_dir(root, value):
            tight[key] = value  # (the folder commands see read-only: elsewhere they could rewrite the store)
        else:  # model, api_base, a store_path out of .agent-tui/, anything unknown
            asks.append(Ask(WORKSPACE_TOML, key, value))
    return Split(tight=tight, asks=tuple(asks), full=ws)


def mcp_json_asks(path: Path) -> tuple[list[Ask], list[str]]:
    """The servers a workspace ``.mcp.json`` would start, as asks, and any problem reading it."""
    if not path.is_file():
        return [], []
    try:
        data = loads_json(read_config(path).decode("utf-8"))
    except (OSError, ValueError) as exc:
        return [], [f"{path}: cannot read: {exc}"]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [], [f"{path}: no `mcpServers` object"]
    return [Ask(WORKSPACE_MCP_JSON, f"mcpServers.{name}", raw, server_summary(raw))
            for name, raw in servers.items()], []


USER_MCP_SOURCE = "your config"
"""The :attr:`Ask.source` of the user's own MCP servers (asked per folder, not per fingerprint)."""


def user_mcp_asks(user: dict[str, Any], root: Path) -> list[Ask]:
    """The user's own stdio MCP servers that would start with ``root`` as working directory.

    Started inside a cloned folder, a launcher can be steered by the folder's files (``python -m x``
    imports the folder's ``x.py``, ``npx`` prefers its ``node_modules/.bin`` and ``.npmrc``, ``uvx`` reads
    its ``uv.toml``), so they wait until the user has trusted the folder once.  Servers that connect
    to a URL, are disabled, or run in a folder of their own outside the workspace ask nothing.
    """
    mcp = user.get("mcp") if isinstance(user.get("mcp"), dict) else {}
    servers = mcp.get("servers") if isinstance(mcp.get("servers"), dict) else {}
    asks: list[Ask] = []
    for name, raw in servers.items():
        if not isinstance(raw, dict) or raw.get("command") is None or raw.get("url") is not None:
            continue
        if raw.get("disabled") or raw.get("enabled", True) is False:
            continue
        cwd = raw.get("cwd")
        if cwd is not None and not _inside(root, cwd):
            continue
        args = raw.get("args") if isinstance(raw.get("args"), list) else []
        asks.append(Ask(USER_MCP_SOURCE, f"mcp.servers.{name}", [str(raw["command"]), *(str(a) for a in args)],
                        f"your MCP server would start in this folder: {server_summary(raw)}"))
    return asks


def without_servers(user: dict[str, Any], asks: tuple[Ask, ...] | list[Ask]) -> dict[str, Any]:
    """``user`` with the MCP servers named by the :data:`USER_MCP_SOURCE` asks left out."""
    names = {a.key.removeprefix("mcp.servers.") for a in asks if a.source == USER_MCP_SOURCE}
    mcp = user.get("mcp")
    if not names or not isinstance(mcp, dict) or not isinstance(mcp.get("servers"), dict):
        return user
    kept = {k: v for k, v in mcp["servers"].items() if k not in names}
    return {**user, "mcp": {**mcp, "servers": kept}}


def fingerprint(asks: tuple[Ask, ...] | list[Ask]) -> str:
    """A digest of exactly what is asked: any change to a key or value changes it."""
    canon = sorted(json.dumps([a.source, a.key, a.value], sort_keys=True, ensure_ascii=False, default=str)
                   for a in asks)
    return hashlib.sha256("\n".join(canon).encode("utf-8")).hexdigest()


def merge_tables(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``b`` over ``a`` key by key (tables merge; values replace) except the union lists, which add."""
    out = _merge(a, b)
    for section, key in UNION_LISTS:
        left = a.get(section, {}).get(key) if isinstance(a.get(section), dict) else None
        right = b.get(section, {}).get(key) if isinstance(b.get(section), dict) else None
        if isinstance(left, list) and isinstance(right, list):
            out[section][key] = [*left, *(x for x in right if x not in left)]
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


@dataclass(frozen=True)
class TrustReport:
    """What a workspace asked for and whether it was granted, for notices, the dialog and ``--json``."""

    root: str
    """The workspace's real path."""
    asks: tuple[Ask, ...] = ()
    """Everything that needs trust (empty: the workspace asks for nothing)."""
    trusted: bool = True
    """Whether the asks apply (True when there is nothing to ask)."""
    changed: bool = False
    """The folder was trusted before, but for different asks."""
    fingerprint: str = ""
    """Digest of ``asks`` (what the trust store remembers)."""
    problems: tuple[str, ...] = ()
    """Workspace files that could not be read (e.g. a broken ``.mcp.json``)."""
    foreign_store: str = ""
    """The path of a memory store the user did not create, which trusting adopts ("" when none can be)."""
    adopted_fingerprint: str = ""
    """Digest of ``asks`` once that store is the user's own (without its ask): what trusting remembers then."""

    @property
    def pending(self) -> bool:
        """The workspace asks for something that was not granted."""
        return bool(self.asks) and not self.trusted

    def ignored(self) -> list[str]:
        """Lines for what is being ignored (empty when trusted)."""
        from agent_tui.core.terminal import printable

        return [] if self.trusted else [f"{printable(a.source, newlines=False)}: {a.line()}" for a in self.asks]

    def notice(self) -> str:
        """One line for stderr when asks are ignored."""
        what = "; ".join(a.line(100) for a in self.asks[:4]) + (f"; +{len(self.asks) - 4} more"
                                                                 if len(self.asks) > 4 else "")
        why = "its config changed since you trusted it" if self.changed else "it is not trusted"
        from agent_tui.core.terminal import printable

        return (f"workspace {printable(self.root, newlines=False)}: {why}; ignoring {what} "
                f"(review with `agent-tui trust`, or pass --trust)")

    def to_json(self) -> dict[str, Any]:
        """The ``trust`` event of ``run --json``."""
        return {"workspace": self.root, "trusted": self.trusted, "changed": self.changed,
                "asks": [{"source": a.source, "key": a.key, "value": a.value, "summary": a.summary} for a in self.asks],
                "ignored": self.ignored(), "problems": list(self.problems)}
