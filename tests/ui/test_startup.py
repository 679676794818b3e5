"""Start-up: the first frame comes before litellm (a subprocess in a real pty proves it), and
without a configured model the TUI opens the offline demo with a banner that says so."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_tui.demo_project import default_demo_workspace
from agent_tui.ui.launch import options_from_args
from agent_tui.ui.widgets.chat_items import Banner
from agent_tui.ui.widgets.prompt import PromptInput

from .conftest import ready

ROOT = Path(__file__).resolve().parents[2]


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_startup", ROOT / "scripts" / "bench_startup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_litellm_is_not_imported_before_the_first_frame(tmp_path: Path) -> None:
    facts = _bench_module().run_once(tmp_path / "inventory-app")
    assert facts["exit_code"] == 0
    assert facts["litellm"] is False, "litellm must load in a worker after the first frame"
    assert facts["agent_loaded"] is False, "the agent loop loads after the first frame too"
    assert facts["startup_s"] > 0


def _args(**kw: Any) -> argparse.Namespace:
    base = dict(model=None, api_base=None, window=None, session=None, demo=False, workspace=None)
    return argparse.Namespace(**{**base, **kw})


def test_choosing_between_the_demo_and_a_real_model(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    opts = options_from_args(_args(), project)
    assert opts.demo_reason == "no-model" and opts.session.demo
    assert opts.workspace == default_demo_workspace() and (opts.workspace / "inventory" / "stock.py").is_file()
    assert "no model is configured" in opts.banner() and "--model" in opts.banner()
    assert opts.keep_history, "the demo's own folder is the same each run: its history and draft are kept"
    assert options_from_args(_args(demo=True), project).workspace == opts.workspace

    chosen = tmp_path / "demo-here"
    opts = options_from_args(_args(demo=True, workspace=chosen), chosen)
    assert opts.demo_reason == "flag" and opts.workspace == chosen and (chosen / "inventory").is_dir()
    assert opts.keep_history

    opts = options_from_args(_args(model="openai/gpt-4o"), project)
    assert opts.demo_reason is None and opts.workspace == project and opts.banner() is None
    assert opts.session.model == "openai/gpt-4o" and not opts.session.demo and opts.keep_history

    (project / ".agent-tui").mkdir()
    (project / ".agent-tui" / "config.toml").write_text('model = "anthropic/claude-sonnet-4-5"\n')
    assert options_from_args(_args(), project).demo_reason is None


async def test_no_model_opens_the_demo_with_a_banner(tmp_path: Path) -> None:
    from agent_tui.agent.demo import DEMO_MODEL
    from agent_tui.ui.app import make_app

    project = tmp_path / "empty"
    project.mkdir()
    app = make_app(options_from_args(_args(), project))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        banner = str(app.main.query_one(Banner).render())
        assert "Offline demo" in banner and "no model is configured" in banner and "--model" in banner
        assert app.controller.model == DEMO_MODEL
        assert app.main.status.model == DEMO_MODEL
        prompt = app.main.query_one(PromptInput)
        assert prompt.value == "", "the box starts empty: typing does not append to the demo task"
        assert "enter sends the demo task" in str(prompt.placeholder)
        assert app.controller.root == app.options.workspace == default_demo_workspace()

