"""The budget plan (window from metadata, overrides, thresholds) and config loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.core.budget import FALLBACK_WINDOW, make_plan, model_info, resolve_window
from agent_tui.core.config import (
    BudgetConfig,
    ConfigError,
    MemoryConfig,
    Settings,
    load_settings,
    settings_from_dict,
    workspace_config_path,
)
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import CATEGORY_ORDER, Category


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# budget plan ------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4o", "openai/gpt-4o"])
def test_window_comes_from_litellm_metadata(model: str) -> None:
    info = model_info(model)
    assert info["max_input_tokens"] == 128_000
    plan = make_plan(Settings.default(model=model))
    assert plan.window == 128_000
    assert plan.window_source == "model metadata"
    assert plan.warning is None
    # The output reserve never exceeds the model's own output cap.
    assert plan.reserve == min(int(128_000 * BudgetConfig().reserve_share), info["max_output_tokens"])
    assert plan.input_budget == plan.window - plan.reserve - plan.margin


def test_config_window_overrides_metadata() -> None:
    plan = make_plan(Settings.default(model="gpt-4o", window=50_000))
    assert (plan.window, plan.window_source) == (50_000, "config")


def test_unknown_model_falls_back_with_a_visible_warning() -> None:
    w = resolve_window(Settings.default(model="acme/never-heard-of-it"))
    assert (w.tokens, w.source) == (FALLBACK_WINDOW, "fallback")
    assert w.warning and "acme/never-heard-of-it" in w.warning and "window" in w.warning
    eng = ContextEngine(Settings.default(model="acme/never-heard-of-it"))
    assert eng.plan.window == FALLBACK_WINDOW
    assert any("acme/never-heard-of-it" in x for x in eng.warnings)
    # No model at all is the same story.
    assert resolve_window(Settings.default()).source == "fallback"


def test_shares_split_the_input_budget() -> None:
    plan = make_plan(Settings.default(window=100_000))
    assert set(plan.caps) == set(CATEGORY_ORDER)
    assert plan.caps[Category.HISTORY] == int(plan.input_budget * 0.25)
    assert plan.caps[Category.FILES] == int(plan.input_budget * Settings().budget.files_share)
    assert plan.reserve == 20_000
    assert 0 < plan.margin < 0.05 * plan.window


def test_per_model_overrides_apply_to_that_model_only() -> None:
    models = {"openai/gpt-4o": {"window": 60_000, "output_reserve": 4_000, "compact_at": 0.6, "fresh_at": 0.8}}
    plan = make_plan(Settings(model="openai/gpt-4o", models=models))
    assert (plan.window, plan.reserve, plan.compact_at, plan.fresh_at) == (60_000, 4_000, 0.6, 0.8)
    other = make_plan(Settings(model="gpt-4o", models=models))
    assert (other.window, other.compact_at) == (128_000, 0.75)
    # A --window flag still beats the per-model table.
    assert make_plan(Settings(model="openai/gpt-4o", window=9_000, models=models)).window == 9_000


def test_per_model_overrides_from_toml(tmp_path: Path) -> None:
    user = write(tmp_path / "user.toml", '[models."acme/small"]\nwindow = 8192\ncompact_at = 0.5\n')
    s = load_settings(None, user_file=user).with_overrides(model="acme/small")
    plan = make_plan(s)
    assert (plan.window, plan.window_source, plan.compact_at) == (8192, "config", 0.5)


def test_thresholds_are_configurable_and_drive_compaction() -> None:
    s = settings_from_dict({"window": 8192, "budget": {"compact_at": 0.3, "fresh_at": 0.5}})
    plan = make_plan(s)
    assert (plan.compact_at, plan.fresh_at) == (0.3, 0.5)
    def run(settings: Settings) -> ContextEngine:
        eng = ContextEngine(settings)
        for i in range(6):
            eng.add_user(f"message {i} " + "word " * 400)
            eng.assemble()
        return eng

    low = run(s)
    assert low.last is not None and low.last.breakdown.compact_at == 0.3
    # ~2,400 tokens of history is small for the cost model but past 30% of the budget: the limit compacts.
    reasons = [c.reason for c in low.compactions if c.ok]
    assert reasons and set(reasons) == {"window limit"}
    default = run(settings_from_dict({"window": 8192}))
    assert default.compactions == []


def test_compact_at_above_fresh_at_is_rejected() -> None:
    with pytest.raises(ConfigError, match="compact_at"):
        settings_from_dict({"budget": {"compact_at": 0.95, "fresh_at": 0.9}}, where="my.toml")
    with pytest.raises(ConfigError, match="between 0 and 1"):
        settings_from_dict({"budget": {"reserve_share": 1.5}})


def test_per_model_overrides_are_validated(tmp_path: Path) -> None:
    bad = write(tmp_path / "user.toml", '[models."acme/small"]\ncompact_at = 0.95\nfresh_at = 0.9\n')
    with pytest.raises(ConfigError, match="compact_at") as e:
        load_settings(None, user_file=bad)
    assert str(bad) in str(e.value)
    typo = write(tmp_path / "typo.toml", '[models."acme/small"]\nwindw = 8192\n')
    with pytest.raises(ConfigError, match="windw") as e:
        load_settings(None, user_file=typo)
    assert str(typo) in str(e.value)


# config loading --------------------------------------------------------------------------


def test_user_and_workspace_files_merge_key_by_key(tmp_path: Path) -> None:
    user = write(tmp_path / "xdg" / "agent-tui" / "config.toml",
                 'model = "openai/gpt-4o"\ntemperature = 0.3\nrules = ["Use pnpm"]\n'
                 "[budget]\ncompact_at = 0.7\nhistory_share = 0.3\n[memory]\nmax_rounds = 12\n")
    ws = tmp_path / "proj"
    write(workspace_config_path(ws), "window = 40000\n[budget]\ncompact_at = 0.6\n[memory]\nrelease_files_after = 5\n")
    s = load_settings(ws, user_file=user)
    assert s.model == "openai/gpt-4o" and s.temperature == 0.3 and s.window == 40_000
    assert s.budget.compact_at == 0.6  # the workspace wins
    assert s.budget.history_share == 0.3  # the user's other keys survive
    assert s.memory.max_rounds == 12 and s.memory.release_files_after == 5
    assert s.rules == ("Use pnpm",)


def test_user_file_from_xdg_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(tmp_path / "xdg" / "agent-tui" / "config.toml", "max_steps = 7\n")
    assert load_settings(tmp_path / "nowhere").max_steps == 7


def test_no_files_means_defaults(tmp_path: Path) -> None:
    s = load_settings(tmp_path, user_file=tmp_path / "missing.toml")
    assert s.budget == BudgetConfig() and s.memory == MemoryConfig() and s.window is None


@pytest.mark.parametrize("where,text,key", [
    ("user", "modle = 'gpt-4o'\n", "modle"),
    ("workspace", "[budget]\ncompact_ta = 0.5\n", "compact_ta"),
    ("workspace", "[memory]\nmax_round = 3\n", "max_round"),
])
def test_unknown_key_is_an_error_naming_the_file(tmp_path: Path, where: str, text: str, key: str) -> None:
    ws = tmp_path / "proj"
    user = tmp_path / "user.toml"
    write(user, "temperature = 0.2\n")
    target = user if where == "user" else workspace_config_path(ws)
    write(target, text)
    with pytest.raises(ConfigError) as e:
        load_settings(ws, user_file=user)
    msg = str(e.value)
    assert key in msg and str(target) in msg
    assert "known:" in msg
    if where == "workspace":
        assert msg.startswith(str(target))  # the file at fault, not both


@pytest.mark.parametrize("text,what", [
    ("window = 'big'\n", "window"),
    ("window = -5\n", "window"),
    ("[budget]\ncompact_at = 'soon'\n", "compact_at"),
    ("[memory]\nmax_rounds = 0\n", "max_rounds"),
    ("budget = 3\n", "budget"),
])
def test_wrong_values_are_clear_errors(tmp_path: Path, text: str, what: str) -> None:
    f = write(tmp_path / "c.toml", text)
    with pytest.raises(ConfigError) as e:
        load_settings(None, user_file=f)
    assert what in str(e.value) and str(f) in str(e.value)


def test_broken_toml_names_the_file(tmp_path: Path) -> None:
    f = write(tmp_path / "c.toml", "model = \n[budget\n")
    with pytest.raises(ConfigError) as e:
        load_settings(None, user_file=f)
    assert str(f) in str(e.value)


def test_thresholds_are_checked_on_the_merged_files(tmp_path: Path) -> None:
    ws = tmp_path / "proj"
    user = write(tmp_path / "user.toml", "[budget]\ncompact_at = 0.6\n")
    write(workspace_config_path(ws), "[budget]\nfresh_at = 0.7\n")  # alone, 0.75 > 0.7; merged it is fine
    s = load_settings(ws, user_file=user)
    assert (s.budget.compact_at, s.budget.fresh_at) == (0.6, 0.7)
    write(user, "[budget]\ncompact_at = 0.8\n")
    with pytest.raises(ConfigError, match="compact_at") as e:
        load_settings(ws, user_file=user)
    assert str(user) in str(e.value) and str(workspace_config_path(ws)) in str(e.value)


def test_rules_must_be_a_list_of_strings(tmp_path: Path) -> None:
    f = write(tmp_path / "c.toml", 'rules = "Use pnpm"\n')
    with pytest.raises(ConfigError, match="rules"):
        load_settings(None, user_file=f)
