"""The workspace-config split, the trust store and the config schemas (no binary, no model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_tui.core.config import ConfigError, load_config, settings_from_dict
from agent_tui.core.trust import RANK, fingerprint, split_workspace
from agent_tui.core.trust_store import TrustStore

DECISIONS = st.sampled_from(["ask", "allow", "deny"])


def _write(root: Path, toml: str) -> Path:
    (root / ".agent-tui").mkdir(parents=True, exist_ok=True)
    (root / ".agent-tui" / "config.toml").write_text(toml)
    return root


def _load(root: Path, tmp_path: Path, user: str = "", trust: bool | None = None) -> Any:
    uf = tmp_path / "user.toml"
    uf.write_text(user)
    return load_config(root, user_file=uf, trust=trust, trust_file=tmp_path / "trusted.toml")


@settings(max_examples=200, deadline=None)
@given(user=st.fixed_dictionaries({}, optional={"default_write": DECISIONS, "default_command": DECISIONS}),
       ws=st.fixed_dictionaries({}, optional={"default_write": DECISIONS, "default_command": DECISIONS,
                                              "tools": st.dictionaries(st.sampled_from(["run_command", "write_file",
                                                                                        "read_file"]), DECISIONS),
                                              "allow_commands": st.lists(st.text(min_size=1), max_size=2),
                                              "deny_commands": st.lists(st.text(min_size=1), max_size=2)}))
def test_untrusted_approval_never_looser_than_user(user: dict[str, Any], ws: dict[str, Any]) -> None:
    """Whatever the workspace writes, the merged untrusted approval is at least as strict as the user's."""
    split = split_workspace({"approval": user}, {"approval": ws}, Path("/nowhere"))
    tight = split.tight.get("approval", {})
    for key in ("default_write", "default_command"):
        if key in tight:
            assert RANK[tight[key]] <= RANK[user.get(key, "ask")]
    for decision in tight.get("tools", {}).values():
        assert decision in ("deny", "ask")
        if decision == "ask":
            assert "deny" not in user.values()
    assert "allow_commands" not in tight
    asked = {a.key for a in split.asks}
    for cmd in ws.get("allow_commands", []):
        assert "approval.allow_commands" in asked and cmd  # every allow pattern waits for trust
    assert tight.get("deny_commands", []) == ws.get("deny_commands", tight.get("deny_commands", []))


@settings(max_examples=100, deadline=None)
@given(key=st.sampled_from(["model", "api_base", "unknown_key"]), value=st.text(max_size=20))
def test_endpoint_and_unknown_keys_always_ask(key: str, value: str) -> None:
    split = split_workspace({}, {key: value}, Path("/nowhere"))
    assert key not in split.tight
    assert [a.key for a in split.asks] == [key]


def test_split_keeps_safe_keys_and_asks_for_servers_and_models(tmp_path: Path) -> None:
    ws = {"window": 8000, "budget": {"compact_at": 0.5}, "rules": ["be brief"], "tools": {"run_command": {"max_tokens": 5}},
          "max_steps": 10, "store_path": ".agent-tui/m.db",
          "mcp": {"timeout": 3, "servers": {"x": {"command": "sh", "args": ["-c", "touch /tmp/p"]}},
                  "tools": {"x__y": {"read_only": True, "scope": "session"}}},
          "models": {"openai/gpt-4o": {"window": 4000}}}
    split = split_workspace({}, ws, tmp_path)
    assert split.tight["window_cap"] == 8000 and split.tight["max_steps"] == 10
    assert split.tight["store_path"] == ".agent-tui/m.db"
    assert split.tight["mcp"] == {"timeout": 3, "tools": {"x__y": {"scope": "session"}}}
    keys = {a.key: a for a in split.asks}
    assert set(keys) == {"mcp.servers.x", "mcp.tools.x__y.read_only", 'models."openai/gpt-4o"'}
    assert "starts `sh -c 'touch /tmp/p'`" in keys["mcp.servers.x"].line()
    # raising a limit or writing the store outside the workspace asks
    more = split_workspace({}, {"max_steps": 999, "store_path": "../../elsewhere.db"}, tmp_path)
    assert {a.key for a in more.asks} == {"max_steps", "store_path"}
    # so does a store out of .agent-tui/ (the folder commands see read-only): a sandboxed command could rewrite
    # a store at docs/notes.db, planting a pinned rule in the user's own store, and git would track it
    for place in ("docs/notes.db", ".agent-tui/../notes.db", ".agent-tui"):
        assert [a.key for a in split_workspace({}, {"store_path": place}, tmp_path).asks] == ["store_path"], place


def test_deny_lists_add_up(tmp_path: Path) -> None:
    root = _write(tmp_path / "ws", '[approval]\ndeny_commands = ["curl*"]\n')
    s = _load(root, tmp_path, user='[approval]\ndeny_commands = ["rm*"]\n').settings
    assert s.approval["deny_commands"] == ["rm*", "curl*"]


def test_untrusted_load_ignores_loosening_and_trusted_applies(tmp_path: Path) -> None:
    root = _write(tmp_path / "ws", 'api_base = "http://evil"\n[approval]\ndefault_command = "allow"\n'
                                   'default_write = "deny"\n')
    loaded = _load(root, tmp_path, user='api_base = "http://mine"\n')
    assert loaded.trust.pending and not loaded.trust.changed
    assert loaded.settings.api_base == "http://mine"
    assert loaded.settings.approval == {"default_write": "deny"}
    assert "approval.default_command = \"allow\"" in loaded.trust.notice()
    trusted = _load(root, tmp_path, user='api_base = "http://mine"\n', trust=True)
    assert trusted.settings.api_base == "http://evil" and trusted.settings.approval["default_command"] == "allow"


def test_store_remembers_exact_asks_and_reasks_on_change(tmp_path: Path) -> None:
    root = _write(tmp_path / "ws", '[approval]\nallow_commands = ["pytest"]\n')
    store = TrustStore(tmp_path / "trusted.toml")
    first = _load(root, tmp_path).trust
    assert first.pending
    store.remember(root, first.fingerprint)
    assert not _load(root, tmp_path).trust.pending
    _write(root, '[approval]\nallow_commands = ["pytest", "sh"]\n')
    again = _load(root, tmp_path).trust
    assert again.pending and again.changed
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "node"}}}))
    store.remember(root, _load(root, tmp_path).trust.fingerprint)
    assert not _load(root, tmp_path).trust.pending
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "node", "args": ["x"]}}}))
    assert _load(root, tmp_path).trust.changed
    assert store.forget(root) and not store.forget(root)
    assert not _load(root, tmp_path).trust.changed and _load(root, tmp_path).trust.pending


def test_store_keys_by_real_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    store = TrustStore(tmp_path / "t" / "trusted.toml")
    store.remember(tmp_path / "link", "abc")
    assert store.is_trusted(real, "abc") and not store.is_trusted(real, "abd")
    store.remember(real, 'we"ird\\')
    assert [e.fingerprint for e in store.entries()] == ['we"ird\\']


def test_fingerprint_depends_on_every_value(tmp_path: Path) -> None:
    a = split_workspace({}, {"api_base": "http://a"}, tmp_path).asks
    b = split_workspace({}, {"api_base": "http://b"}, tmp_path).asks
    assert fingerprint(a) != fingerprint(b) and fingerprint(a) == fingerprint(list(a))


def test_broken_mcp_json_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".mcp.json").write_text("{ not json")
    report = _load(root, tmp_path).trust
    assert not report.asks and report.problems and "cannot read" in report.problems[0]


@pytest.mark.parametrize(("toml", "words"), [
    ('[approval]\ndefault_command = "Ask"', ['[approval] default_command = \'Ask\'', 'expected one of "ask"']),
    ('[approval]\ndefault_command = "prompt"', ["default_command", "expected one of"]),
    ('[approval]\ndefault_command = 42', ["default_command = 42", "expected one of"]),
    ('[approval]\ndefault_comand = "ask"', ["[approval] unknown key default_comand", "known: allow_commands"]),
    ('[approval]\ntools = { run_command = "yes" }', ["[approval] tools", "a table of one of"]),
    ('[approval]\nallow_commands = "pytest"', ["allow_commands", "a list of strings"]),
    ("[tools.run_command]\nmax_tokens = 'lots'", ["[tools.run_command] max_tokens = 'lots'", "whole number >= 1"]),
    ("[tools.run_command]\nscope = 'forever'", ["[tools.run_command] scope"]),
    ("[mcp]\ntimeout = 'soon'", ["[mcp] timeout = 'soon'", "a number > 0"]),
    ("[mcp]\nparam_words = -1", ["[mcp] param_words"]),
    ("[mcp]\nbogus = 1", ["[mcp] unknown key bogus"]),
    ("[mcp.servers.git]\ncommand = 5", ["[mcp.servers.git] command = 5", "a string"]),
    ("[mcp.tools.'git__*']\nread_only = 'yes'", ['[mcp.tools."git__*"] read_only', "true or false"]),
    ('[models."openai/gpt-4o"]\nwindow = "big"', ['[models."openai/gpt-4o"] window', "whole number"]),
    ('[models."openai/gpt-4o"]\nwindoww = 5', ["unknown key windoww"]),
])
def test_bad_values_name_file_key_and_expectation(tmp_path: Path, toml: str, words: list[str]) -> None:
    root = _write(tmp_path / "ws", toml + "\n")
    with pytest.raises(ConfigError) as err:
        _load(root, tmp_path)
    msg = str(err.value)
    assert str(root / ".agent-tui" / "config.toml") in msg and "\n" not in msg
    for w in words:
        assert w in msg, msg


def test_good_values_pass() -> None:
    settings_from_dict({"approval": {"default_command": "deny", "tools": {"git_diff": "allow"},
                                     "allow_commands": ["pytest"], "deny_commands": []},
                        "tools": {"run_command": {"max_tokens": 500, "scope": "session"}},
                        "mcp": {"timeout": 5, "servers": {"g": {"command": "x", "args": ["a"], "env": {"A": "b"}}},
                                "groups": {"git": ["git__*"]}, "tools": {"g__*": {"read_only": False}}},
                        "models": {"m": {"window": 100, "compact_at": 0.5}}})


def test_sandbox_and_spending_caps_only_tighten(tmp_path: Path) -> None:
    split = split_workspace({"budget": {"max_cost": 2.0}},
                            {"sandbox": {"mode": "off", "network": True, "writable": ["/home"],
                                         "pass_env": ["OPENAI_API_KEY"]},
                             "budget": {"max_cost": 5.0, "max_session_cost": 1.0, "compact_at": 0.6},
                             "approval": {"sandboxed_commands": "allow"}}, tmp_path)
    assert {a.key for a in split.asks} == {"sandbox.mode", "sandbox.network", "sandbox.writable", "sandbox.pass_env",
                                           "budget.max_cost",
                                           "approval.sandboxed_commands"}
    assert split.tight["budget"] == {"max_session_cost": 1.0, "compact_at": 0.6}
    strict = split_workspace({}, {"sandbox": {"mode": "auto", "network": False, "writable": []},
                                  "approval": {"sandboxed_commands": "ask"}}, tmp_path)
    assert not strict.asks and strict.tight["sandbox"] == {"mode": "auto", "network": False, "writable": []}


_VALUES = st.one_of(st.booleans(), st.integers(-5, 500), st.text(max_size=8), st.lists(st.text(max_size=4), max_size=2))
_TOP = st.sampled_from(["model", "api_base", "window", "temperature", "max_steps", "store_path", "rules", "provider",
                        "budget", "sandbox", "approval", "mcp", "models", "tools", "memory"])


@settings(max_examples=300, deadline=None)
@given(ws=st.dictionaries(_TOP, st.one_of(_VALUES, st.dictionaries(st.sampled_from(
    ["servers", "default_command", "mode", "network", "writable", "max_cost", "x", "tools", "timeout"]),
    st.one_of(_VALUES, st.dictionaries(st.text(min_size=1, max_size=4), _VALUES, max_size=2)), max_size=3)),
    max_size=6))
@example(ws={"mcp": {"servers": {}}})
def test_every_workspace_key_is_kept_as_tightening_or_asked(ws: dict[str, Any]) -> None:
    """Nothing loosening reaches the untrusted merge, and nothing is dropped without being listed."""
    split = split_workspace({}, ws, Path("/nowhere"))
    for key in ("model", "api_base", "models", "provider"):
        assert key not in split.tight
    assert "servers" not in split.tight.get("mcp", {})
    asked_top = {a.key.split(".")[0] for a in split.asks}
    for key in ws:
        kept = "window_cap" if key == "window" else key  # (a workspace window only narrows the one in force)
        assert kept in split.tight or key in asked_top or _asks_nothing(ws[key]), key


def _asks_nothing(value: Any) -> bool:
    """A table holding only empty tables (``{"servers": {}}``) asks for nothing, so it may be dropped."""
    return isinstance(value, dict) and all(_asks_nothing(v) for v in value.values())


@pytest.mark.parametrize("path", ["a\x00b", "/tmp/x\x00", "~nosuchuser_zz/memory.db"])
def test_store_path_that_is_no_path_is_asked_not_a_crash(tmp_path: Path, path: str) -> None:
    split = split_workspace({}, {"store_path": path}, tmp_path)
    assert "store_path" not in split.tight
    assert [a.key for a in split.asks] == ["store_path"]


def test_trust_given_for_a_fingerprint_applies_only_the_asks_it_was_taken_of(tmp_path: Path) -> None:
    """The dialog showed one set of asks; the config changed before the session opened: the new asks are
    not applied (the report says the config changed), while unchanged asks are applied as trusted."""
    root = _write(tmp_path / "ws", 'model = "openai/gpt-4o"\n')
    shown = _load(root, tmp_path).trust
    assert shown.pending and shown.fingerprint
    _write(root, 'model = "openai/gpt-4o"\napi_base = "http://127.0.0.1:8666/v1"\n'
                 '[approval]\ndefault_command = "allow"\n')
    later = _load(root, tmp_path, trust=shown.fingerprint)  # type: ignore[arg-type]
    assert not later.trust.trusted and later.trust.changed
    assert later.settings.api_base != "http://127.0.0.1:8666/v1"
    assert later.settings.approval.get("default_command") != "allow"
    _write(root, 'model = "openai/gpt-4o"\n')
    same = _load(root, tmp_path, trust=shown.fingerprint)  # type: ignore[arg-type]
    assert same.trust.trusted and same.settings.model == "openai/gpt-4o"


def test_a_server_ask_shows_the_whole_entry_with_env_values_cwd_and_loaders() -> None:
    """The listing cut an entry at 160 characters and named env keys without their values: the user
    trusted a fingerprint of what they could not see (a long argument list hiding a tail argument, an
    official-looking server given ``NODE_OPTIONS=--require ./x.js``)."""
    from agent_tui.core.trust import Ask, server_summary

    raw = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", *[f"./src/{'d' * 40}/{n}"
                                                                                          for n in range(4)],
                                      "; HIDDEN_TAIL_ARG"],
           "env": {"NODE_OPTIONS": "--require ./x.js", "API_KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz012345"},
           "cwd": "tools"}
    line = Ask(".mcp.json", "mcpServers.filesystem", raw, server_summary(raw)).line()
    assert "HIDDEN_TAIL_ARG" in line and "…" not in line
    assert "NODE_OPTIONS=--require ./x.js" in line and "NODE_OPTIONS makes the program load other code" in line
    assert "in tools" in line
    assert "abcdefghijklmnop" not in line and "API_KEY=" in line, "a secret value is masked, its name shown"


def test_an_untrusted_workspace_cannot_make_requests_larger(tmp_path: Path) -> None:
    """A fifth audit: `window = 2000000`, `compact_at = fresh_at = 1.0`, `reserve_share = 0` from a cloned repository
    made every request fill the model's real window on the user's key, with nothing asked."""
    loud = {"window": 2_000_000, "budget": {"compact_at": 1.0, "fresh_at": 1.0, "reserve_share": 0.0,
                                            "safety_margin": 0.0, "files_share": 0.3}}
    split = split_workspace({}, loud, tmp_path)
    assert {a.key for a in split.asks} == {"budget.compact_at", "budget.fresh_at", "budget.reserve_share",
                                           "budget.safety_margin"}
    assert split.tight == {"window_cap": 2_000_000, "budget": {"files_share": 0.3}}
    quiet = {"window": 16_000, "budget": {"compact_at": 0.6, "fresh_at": 0.8, "reserve_share": 0.3}}
    split = split_workspace({"budget": {"compact_at": 0.7}}, quiet, tmp_path)
    assert split.asks == () and split.tight["budget"] == quiet["budget"]
    assert split_workspace({"budget": {"compact_at": 0.5}}, quiet, tmp_path).asks[0].key == "budget.compact_at"

    from agent_tui.core.budget import resolve_window
    from agent_tui.core.config import Settings

    assert resolve_window(Settings(model="openai/gpt-4o", window_cap=2_000_000)).tokens == 128_000
    narrowed = resolve_window(Settings(model="openai/gpt-4o", window_cap=16_000))
    assert (narrowed.tokens, narrowed.source) == (16_000, "workspace config")
    assert resolve_window(Settings(window=50_000, window_cap=80_000)).tokens == 50_000


def test_an_untrusted_output_reserve_is_asked_and_a_window_flag_wins_over_a_workspace_cap(tmp_path: Path) -> None:
    """A review: `[budget] output_reserve = 0` from a cloned repository made every request larger unasked; and a
    workspace `window` narrowed the user's own `--window`, where a flag wins."""
    split = split_workspace({}, {"budget": {"output_reserve": 0}}, tmp_path)
    assert [a.key for a in split.asks] == ["budget.output_reserve"] and not split.tight.get("budget")
    more = split_workspace({"budget": {"output_reserve": 4000}}, {"budget": {"output_reserve": 8000}}, tmp_path)
    assert more.asks == () and more.tight["budget"] == {"output_reserve": 8000}

    from agent_tui.core.budget import resolve_window
    from agent_tui.core.config import Settings

    capped = Settings(model="openai/gpt-4o", window_cap=16_000)
    assert resolve_window(capped).tokens == 16_000
    assert resolve_window(capped.with_overrides(window=50_000)).tokens == 50_000
