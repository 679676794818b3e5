"""`agent-tui bench`: flags, Markdown and JSON output, the optional plot."""

from __future__ import annotations

import argparse
import builtins
import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.bench.cli import add_bench_arguments, main, run_bench
from tests.bench.helpers import FIXTURES


def parse(*argv: str) -> argparse.Namespace:
    return add_bench_arguments(argparse.ArgumentParser()).parse_args(list(argv))


def test_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_bench(parse("--traces", str(FIXTURES), "--json", "--jobs", "1")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"] == 2
    assert set(data["strategies"]) == {"full", "window", "masking", "auto-compact", "batch", "agent-tui"}
    for m in data["strategies"].values():
        for key in ("total_input_tokens", "peak_window_pct", "overflows", "active_file_retention",
                    "rule_retention", "prefix_stable_share", "cache_weighted_cost", "cache_write_cost"):
            assert key in m
    assert {s["source"] for s in data["per_session"]} == {"mini-swe-agent", "claude-code"}
    assert data["malformed"] == 3


def test_markdown_table_and_one_window_for_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--traces", str(FIXTURES), "--window", "64000", "--strategy", "full", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "| strategy | total input tokens |" in out
    assert "| full |" in out and "| window |" not in out
    assert "64,000 tokens for every session" in out


def test_bad_arguments(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run_bench(parse("--traces", str(tmp_path / "nope"))) == 2
    assert run_bench(parse("--traces", str(tmp_path))) == 2  # empty folder: nothing recognised
    assert run_bench(parse("--traces", str(FIXTURES), "--window", "10")) == 2
    assert "no such trace folder" in capsys.readouterr().err


def test_plot_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "tokens.png"
    assert run_bench(parse("--traces", str(FIXTURES), "--plot", str(out), "--jobs", "1")) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_is_a_clear_message(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code = run_bench(parse("--traces", str(FIXTURES), "--plot", str(tmp_path / "x.png"), "--jobs", "1"))
    captured = capsys.readouterr()
    assert code == 3
    assert "pip install" in captured.err and "matplotlib" in captured.err
    assert "| strategy |" in captured.out  # the report is still printed


def test_default_traces_is_shared_beside_the_repo() -> None:
    from agent_tui.bench.cli import default_traces
    from tests.bench.helpers import SHARED_TRACES

    assert default_traces() == SHARED_TRACES or not SHARED_TRACES.is_dir()


def test_a_window_smaller_than_the_unrecorded_prefix_skips_the_session_with_why() -> None:
    """A bench review: at --window 8000 every Claude Code session (its unrecorded tool definitions and prompt are
    15-26K tokens) overflowed on every call for every strategy, and those numbers went into the pooled figures."""
    from agent_tui.bench.runner import run_benchmark
    from tests.bench.helpers import FIXTURES

    result = run_benchmark([FIXTURES / "claude-code"], ["full", "agent-tui"], window=100)
    assert result.sessions == []
    assert result.skipped and all("no larger than what the client sent unrecorded" in s["reason"]
                                  for s in result.skipped)
    assert run_benchmark([FIXTURES / "claude-code"], ["full"]).sessions, "at its own window it is replayed"


def _drop_usage(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _drop_usage(x) for k, x in v.items() if k != "usage"}
    if isinstance(v, list):
        return [_drop_usage(x) for x in v]
    return v


def test_a_session_with_no_recorded_usage_is_named_not_silently_counted_with_no_prefix(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Bench F14: without usage the unrecorded prefix (tool definitions, the client's prompt) cannot be
    estimated and counts as 0 for every strategy; the report says so and names the session."""
    src = FIXTURES / "mini-swe-agent" / "tiny.traj.json"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "tiny.traj.json").write_text(src.read_text())
    blind = tmp_path / "blind"
    blind.mkdir()
    (blind / "tiny.traj.json").write_text(json.dumps(_drop_usage(json.loads(src.read_text()))))
    assert main(["--traces", str(plain), "--json", "--jobs", "1"]) == 0
    seen = json.loads(capsys.readouterr().out)
    assert seen["without_usage"] == [] and seen["per_session"][0]["usage_recorded"] is True
    assert seen["per_session"][0]["prefix_tokens"] > 0
    assert main(["--traces", str(blind), "--json", "--jobs", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    (session,) = data["per_session"]
    assert session["usage_recorded"] is False and session["prefix_tokens"] == 0
    assert data["without_usage"] == [session["id"]]
    assert main(["--traces", str(blind), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 session recorded no token usage" in out and session["id"] in out
