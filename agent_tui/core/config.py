"""Settings: one TOML schema, read from a user file and a per-workspace file.

Files, later ones win key by key:

1. ``$XDG_CONFIG_HOME/agent-tui/config.toml`` (default ``~/.config/agent-tui/config.toml``)
2. ``<workspace>/.agent-tui/config.toml`` — only what tightens, until the user trusts the
   folder (``core/trust.py`` splits it; ``core/trust_store.py`` remembers the decision)
3. command-line flags (``--model``, ``--window`` ...)

The free-form tables (``[approval]``, ``[tools.X]``, ``[mcp]``, ``[models."x"]``) are checked
against the schemas in ``core/config_check.py``: an unknown key or a wrong value stops the
program with the file, the key and what was expected.

Per-model overrides live under ``[models."<model string>"]`` and may set
``window`` and any ``[budget]`` key (``output_reserve``, ``compact_at``...), plus
the per-model keys of :data:`agent_tui.core.model_settings.MODEL_KEYS`:
``api_key_env``/``api_key``, ``max_output_tokens`` (also the output reserve),
``temperature``, ``reasoning_effort``, ``thinking`` (budget), ``num_ctx``
(Ollama), ``stream_timeout``, prices (``input_cost_per_token``,
``output_cost_per_token``, ``cache_read_input_token_cost``,
``cache_creation_input_token_cost``), ``cache`` and ``extra`` (passed to litellm).  Every key is
documented in README.md ("Configuration").
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from agent_tui.core.model_settings import check_model_keys
from agent_tui.core.parse import loads_toml, read_config


class ConfigError(Exception):
    """A config file that cannot be read or has a wrong value; the message names the file."""


@dataclass(frozen=True)
class BudgetConfig:
    """How the window is split and when compaction starts."""

    reserve_share: float = 0.20
    """Share of the window kept free for the model's answer."""
    output_reserve: int | None = None
    """Absolute output reserve in tokens; overrides ``reserve_share`` when set."""
    system_share: float = 0.10
    """System prompt + rules + tool definitions (a soft share: warned, never cut)."""
    memory_share: float = 0.05
    """Recalled memories and memos."""
    summary_share: float = 0.05
    """The rolling summary of evicted rounds."""
    files_share: float = 0.25
    """Active files (protected: may overrun, then history gives way)."""
    history_share: float = 0.25
    """Verbatim recent history: the sliding memory's token cap."""
    results_share: float = 0.20
    """This turn's tool results."""
    compact_at: float = 0.75
    """Compact when the request uses this share of (window - reserve)."""
    fresh_at: float = 0.90
    """Offer a fresh session seeded by a memo at this share."""
    safety_margin: float = 0.01
    """Share of the window left unused to absorb tokenizer differences."""
    cache_read_weight: float | None = None
    """Price of a cached prompt token relative to a fresh one (default: the model's, else 0.1)."""
    cache_write_weight: float | None = None
    """Price of a fresh token entering the cache (default: the model's, e.g. 1.25 Anthropic, else 1)."""
    context_weight: float | None = None
    """What keeping a token in the prompt for one more step costs besides its cache read, relative to
    a fresh input token: slower answers, rate limits, attention spread thin (default: the read weight; 0: money only)."""
    max_cost: float | None = None
    """Dollars one turn may spend; the loop stops before the next model call past it (None: no limit)."""
    max_session_cost: float | None = None
    """Dollars one session may spend over all its runs (kept in the store); the loop stops past it (None: no limit)."""


@dataclass(frozen=True)
class MemoryConfig:
    """The sliding chat memory."""

    max_rounds: int = 20
    """Unused since compaction is scheduled by the cost model (kept so older config files load)."""
    batch_fraction: float = 0.5
    """Unused since compaction events evict deep by design (kept so older config files load)."""
    keep_recent_steps: int = 2
    """Steps a forced compaction (/compact) keeps verbatim; automatic events keep the latest one."""
    release_files_after: int = 3
    """Turns after which an untouched active file is released."""
    max_steps: int = 16
    """Unused since compaction is scheduled by the cost model (kept so older config files load)."""
    stub_after_steps: int = 4
    """Unused: outputs are shaped when they enter and leave only in a compaction event (kept for old files)."""
    stub_batch: int = 3
    """Unused: stubs are applied only inside a compaction event (kept so older config files load)."""
    release_reads_after_steps: int = 15
    """A file that was only read (never edited) is released after this many steps untouched."""
    release_written_after_steps: int = 10
    """A file the agent created and only wrote whole leaves at the next event after this many steps untouched."""
    max_file_tokens: int = 8000
    """An active file larger than this is named, not copied (the model reads ranges); a pinned one keeps its head."""
    recall_limit: int = 3
    """Memories recalled into a turn (labelled 'for reference')."""
    recall_min_score: float = 0.45
    """Minimum recall score (bm25 scaled by decay and use) to inject a memory."""


@dataclass(frozen=True)
class SandboxConfig:
    """``[sandbox]``: where the model's shell commands run (see agent_tui/tools/sandbox.py)."""

    mode: str = "auto"
    """``auto``: inside bubblewrap when it works (else unsandboxed, and said so); ``off``: never."""
    network: bool = False
    """Let sandboxed commands use the network (a stack of their own through slirp4netns when installed)."""
    host_network: bool = False
    """With the network on, share the host's instead: its localhost services and abstract sockets reachable."""
    pass_env: tuple[str, ...] = ()
    """Secret-named environment variables (``*KEY*``, ``*TOKEN*``…) that commands still get, sandboxed or not."""
    hide: tuple[str, ...] = ()
    """Paths (``~/…`` or absolute) sandboxed commands cannot read, besides the default secret stores."""


@dataclass(frozen=True)
class Settings:
    """Everything configurable, after merging files and flags."""

    model: str | None = None
    """litellm model string, e.g. ``openai/gpt-4o`` or ``anthropic/claude-sonnet-4-5``."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server."""
    window: int | None = None
    """Window override in tokens (else the model's metadata, else a fallback)."""
    window_cap: int | None = None
    """An untrusted workspace's ``window``: used only where it is smaller than the window otherwise in force."""
    temperature: float | None = None
    """Sampling temperature; None leaves it to the provider (reasoning models and Claude with
    thinking refuse anything else)."""
    max_steps: int = 200
    """Model calls allowed in one turn before the loop stops and says so (real tasks run 50–176)."""
    budget: BudgetConfig = field(default_factory=BudgetConfig)
    """Window split and thresholds."""
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    """Sliding memory, active files, recall."""
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """Where commands run: bubblewrap or not, network or not."""
    approval: dict[str, Any] = field(default_factory=dict)
    """Per-tool ``ask|allow|deny`` and ``allow_commands`` patterns (see README)."""
    tools: dict[str, Any] = field(default_factory=dict)
    """Per-tool result settings: ``{name: {scope, shape, max_tokens}}``."""
    mcp: dict[str, Any] = field(default_factory=dict)
    """The ``[mcp]`` table: servers, groups, per-tool result settings."""
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-model tables: window, [budget] keys, and the keys of ``model_settings.MODEL_KEYS``."""
    store_path: str | None = None
    """Database file; default ``<workspace>/.agent-tui/memory.db``."""
    rules: tuple[str, ...] = ()
    """Project rules pinned into every request (also pinnable from the CLI/TUI)."""

    @classmethod
    def default(cls, model: str | None = None, window: int | None = None) -> Settings:
        """Defaults with an optional model and window (used by tests and the benchmark)."""
        return cls(model=model, window=window)

    def for_model(self) -> Settings:
        """These settings with the ``[models."<model>"]`` overrides applied."""
        over = self.models.get(self.model or "", {})
        if not over:
            return self
        budget_keys = {f.name for f in fields(BudgetConfig)}
        b = {k: v for k, v in over.items() if k in budget_keys}
        if over.get("max_output_tokens") and "output_reserve" not in b:
            b["output_reserve"] = int(over["max_output_tokens"])  # reserve exactly what is sent
        s = replace(self, budget=replace(self.budget, **b)) if b else self
        if "window" in over and self.window is None:
            s = replace(s, window=int(over["window"]))
        return s

    def with_overrides(self, **kw: Any) -> Settings:
        """A copy with top-level fields replaced, skipping None values (a ``window`` given on the command line is
        the user's word: an untrusted workspace's ``window_cap`` no longer narrows it)."""
        given = {k: v for k, v in kw.items() if v is not None}
        if "window" in given:
            given.setdefault("window_cap", None)
        return replace(self, **given)


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "agent-tui" / "config.toml"


def user_state_dir() -> Path:
    """``$XDG_STATE_HOME/agent-tui`` (default ``~/.local/state/agent-tui``): what agent-tui keeps for the
    user between runs that is neither config nor cache (input history), outside every workspace."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "agent-tui"


def workspace_config_path(workspace: Path) -> Path:
    return workspace / ".agent-tui" / "config.toml"


def _links_out(root: Path, rel: str) -> str:
    """Why the workspace file ``rel`` is not read ("" when it is a file of the workspace): a cloned repository's
    config may be a link to a file elsewhere (another project's config, with its keys), which would be read
    and listed as this workspace's."""
    from agent_tui.core.safe_files import UnsafeFileError, inside

    try:
        inside(root, rel)
    except UnsafeFileError:
        return f"{root / rel}: links outside the workspace (to {os.path.realpath(root / rel)}); not read"
    return ""


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return loads_toml(read_config(path).decode("utf-8"))
    except (ValueError, OSError) as exc:  # (TOMLDecodeError and UnicodeDecodeError are ValueErrors)
        raise ConfigError(f"{path}: {exc}") from exc


def _section(cls: type, data: Any, where: str, cross: bool = True) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a table, got {data!r}")
    known = {f.name: f for f in fields(cls)}
    kw: dict[str, Any] = {}
    for k, v in data.items():
        if k not in known:
            raise ConfigError(f"{where}: unknown key {k!r} (known: {', '.join(sorted(known))})")
        kw[k] = v
    try:
        obj = cls(**kw)
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    _validate(obj, where, cross)
    return obj


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int_at_least(obj: Any, name: str, low: int, where: str, optional: bool = False) -> None:
    v = getattr(obj, name)
    if optional and v is None:
        return
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise ConfigError(f"{where}: {name} must be a whole number >= {low}, got {v!r}")


def _validate(obj: Any, where: str, cross: bool = True) -> None:
    if isinstance(obj, Settings):
        _int_at_least(obj, "window", 1, where, optional=True)
        _int_at_least(obj, "max_steps", 1, where)
        if obj.temperature is not None and not _number(obj.temperature):
            raise ConfigError(f"{where}: temperature must be a number, got {obj.temperature!r}")
        for name in ("model", "api_base", "store_path"):
            if getattr(obj, name) is not None and not isinstance(getattr(obj, name), str):
                raise ConfigError(f"{where}: {name} must be a string, got {getattr(obj, name)!r}")
        for name in ("approval", "tools", "mcp", "models"):
            if not isinstance(getattr(obj, name), dict):
                raise ConfigError(f"{where}: {name} must be a table, got {getattr(obj, name)!r}")
    if isinstance(obj, MemoryConfig):
        for name in ("max_rounds", "release_files_after", "max_file_tokens", "max_steps", "stub_after_steps",
                     "stub_batch", "release_reads_after_steps", "release_written_after_steps"):
            _int_at_least(obj, name, 1, where)
        for name in ("keep_recent_steps", "recall_limit"):
            _int_at_least(obj, name, 0, where)
        for name in ("batch_fraction", "recall_min_score"):
            v = getattr(obj, name)
            if not _number(v) or not (0 <= v <= 1):
                raise ConfigError(f"{where}: {name} must be between 0 and 1, got {v!r}")
    if isinstance(obj, SandboxConfig):
        if obj.mode not in ("auto", "off"):
            raise ConfigError(f"{where}: mode must be \"auto\" or \"off\", got {obj.mode!r}")
        for name in ("network", "host_network"):
            if not isinstance(getattr(obj, name), bool):
                raise ConfigError(f"{where}: {name} must be true or false, got {getattr(obj, name)!r}")
        if not isinstance(obj.pass_env, (list, tuple)) or not all(isinstance(n, str) for n in obj.pass_env):
            raise ConfigError(f"{where}: pass_env must be a list of variable names, got {obj.pass_env!r}")
        if not isinstance(obj.hide, (list, tuple)) or not all(
                isinstance(n, str) and (n.startswith(("/", "~")) or n.startswith("$HOME")) for n in obj.hide):
            raise ConfigError(f"{where}: hide must be a list of paths starting with / or ~, got {obj.hide!r}")
    if isinstance(obj, BudgetConfig):
        _int_at_least(obj, "output_reserve", 0, where, optional=True)
        for name in ("cache_read_weight", "cache_write_weight"):
            v = getattr(obj, name)
            if v is not None and not (_number(v) and 0 < v <= 10):
                raise ConfigError(f"{where}: {name} must be a number in (0, 10], got {v!r}")
        v = obj.context_weight
        if v is not None and not (_number(v) and 0 <= v <= 10):
            raise ConfigError(f"{where}: context_weight must be a number in [0, 10], got {v!r}")
        for name in ("max_cost", "max_session_cost"):
            v = getattr(obj, name)
            if v is not None and not (_number(v) and v > 0):
                raise ConfigError(f"{where}: {name} must be a positive number of dollars, got {v!r}")
        for f in fields(obj):
            v = getattr(obj, f.name)
            if f.name.endswith(("share", "_at", "margin")) and not (_number(v) and 0 <= v <= 1):
                raise ConfigError(f"{where}: {f.name} must be between 0 and 1, got {v!r}")
        if cross and obj.compact_at > obj.fresh_at:
            raise ConfigError(f"{where}: compact_at ({obj.compact_at}) must not exceed fresh_at ({obj.fresh_at})")


def settings_from_dict(data: dict[str, Any], where: str = "config", *, check_thresholds: bool = True) -> Settings:
    """Build Settings from a parsed TOML dict (unknown keys are errors, not silence).

    ``check_thresholds=False`` skips the cross-key check (compact_at <= fresh_at), for
    checking one file of several whose merge is checked whole.
    """
    data = dict(data)
    cross = check_thresholds
    budget = _section(BudgetConfig, data.pop("budget", {}), f"{where} [budget]", cross)
    memory = _section(MemoryConfig, data.pop("memory", {}), f"{where} [memory]")
    sandbox = _section(SandboxConfig, data.pop("sandbox", {}), f"{where} [sandbox]")
    rules = data.pop("rules", ()) or ()
    if not isinstance(rules, (list, tuple)) or not all(isinstance(r, str) for r in rules):
        raise ConfigError(f"{where}: rules must be a list of strings, got {rules!r}")
    from agent_tui.core.config_check import SchemaError, check_sections

    try:
        check_sections(data, where)
    except SchemaError as exc:
        raise ConfigError(str(exc)) from exc
    s = _section(Settings, data, where)
    for model, over in s.models.items():
        _check_model_override(model, over, budget, f'{where} [models."{model}"]', cross)
    return replace(s, budget=budget, memory=memory, sandbox=sandbox, rules=tuple(rules))


def _check_model_override(model: str, over: Any, budget: BudgetConfig, where: str, cross: bool) -> None:
    """A ``[models."x"]`` table may set ``window`` and any [budget] key, with the same checks."""
    if not isinstance(over, dict):
        raise ConfigError(f"{where}: expected a table, got {over!r}")
    budget_keys = {f.name for f in fields(BudgetConfig)}
    problem = check_model_keys(over, where)
    if problem:
        raise ConfigError(problem)
    w = over.get("window")
    if w is not None and (not isinstance(w, int) or isinstance(w, bool) or w < 1):
        raise ConfigError(f"{where}: window must be a whole number >= 1, got {w!r}")
    try:
        merged = replace(budget, **{k: v for k, v in over.items() if k in budget_keys})
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    _validate(merged, where, cross)


@dataclass(frozen=True)
class LoadedConfig:
    """Settings plus what the workspace asked for and whether it was granted."""

    settings: Settings
    """The merged settings (workspace asks left out unless trusted)."""
    trust: Any
    """The workspace's :class:`agent_tui.core.trust.TrustReport`."""


def load_config(workspace: Path | None = None, *, user_file: Path | None = None,
                trust: bool | str | None = None, trust_file: Path | None = None) -> LoadedConfig:
    """Merge the user file and the workspace file; the workspace only tightens unless trusted.

    ``trust``: None asks the trust store (trusted for exactly these asks?), True applies the
    workspace's asks (the caller remembers the decision), False leaves them out, and a fingerprint
    applies them only if they are still the asks it was taken of (the ones a trust dialog showed:
    a config changed while the user read the dialog is not what they trusted).
    """
    from agent_tui.core.trust import (
        Ask,
        TrustReport,
        fingerprint,
        mcp_json_asks,
        merge_tables,
        split_workspace,
        user_mcp_asks,
        without_servers,
    )

    up = user_file if user_file is not None else user_config_path()
    user = _read_toml(up)
    settings_from_dict(user, str(up), check_thresholds=False)  # each file alone first: errors name it
    if workspace is None:
        return LoadedConfig(settings_from_dict(user, str(up)), TrustReport(root=""))
    root = workspace.resolve()
    wp = workspace_config_path(workspace)
    linked = _links_out(root, ".agent-tui/config.toml")
    wdata = _read_toml(wp) if not linked else {}
    if wdata:
        settings_from_dict(wdata, str(wp), check_thresholds=False)
    split = split_workspace(user, wdata, root)
    json_linked = _links_out(root, ".mcp.json")
    json_asks, problems = mcp_json_asks(root / ".mcp.json") if not json_linked else ([], [json_linked])
    problems = [*([linked] if linked else []), *problems]
    from agent_tui.core.store_owner import foreign_store_ask, link_ask, store_file

    # the store an untrusted run opens, and the one trusting opens (a workspace `store_path` that asks): both
    tight_store, full_store = (v if isinstance(v := merge_tables(user, part).get("store_path"), str) else None
                               for part in (split.tight, split.full))
    stores = [tight_store, *([full_store] if store_file(root, full_store) != store_file(root, tight_store) else [])]
    store_asks: list[Ask] = []
    foreign: Ask | None = None
    for which in stores:
        foreign = foreign_store_ask(root, which)
        store_asks += [a for a in (link_ask(root, which), foreign) if a]
    ws_asks = (*split.asks, *json_asks, *store_asks)
    fp = fingerprint(ws_asks) if ws_asks else ""  # the user's own servers are asked per folder, not per fingerprint
    adoptable = foreign is not None and "id" in foreign.value  # (the store trusting opens, when it could be read)
    rest = [a for a in ws_asks if a is not foreign]
    from agent_tui.core.trust_store import TrustStore

    entry = None
    own_asks = user_mcp_asks(user, root)
    if own_asks or (ws_asks and trust is None):
        entry = TrustStore(trust_file).entry(root)
    if entry is not None:
        own_asks = []  # a folder trusted once may start the user's own servers
    asks = (*ws_asks, *own_asks)
    changed = False
    if not asks:
        granted = True
    elif trust is None:
        granted = entry is not None and entry.fingerprint == fp
        changed = entry is not None and not granted
    elif isinstance(trust, str):
        granted = trust == fp
        changed = not granted
    else:
        granted = trust
    report = TrustReport(root=str(root), asks=asks, trusted=granted, changed=changed, fingerprint=fp,
                         problems=tuple(problems), foreign_store=str(store_file(root, full_store)) if adoptable else "",
                         adopted_fingerprint=(fingerprint(rest) if rest else "") if adoptable else "")
    merged = merge_tables(user if granted else without_servers(user, own_asks), split.full if granted else split.tight)
    mine, theirs = user.get("rules"), wdata.get("rules")
    if isinstance(mine, list) and isinstance(theirs, list):  # the user's rules for every project, then the project's
        merged["rules"] = list(dict.fromkeys([*mine, *theirs]))
    where = f"{up} + {wp}" if wdata else str(up)
    return LoadedConfig(settings_from_dict(merged, where), report)


def load_settings(workspace: Path | None = None, *, user_file: Path | None = None,
                  trust: bool | str | None = None) -> Settings:
    """Merge the user file and the workspace file into Settings (see :func:`load_config`)."""
    return load_config(workspace, user_file=user_file, trust=trust).settings
