"""In a small window the post-event floor (the task kept verbatim, the block, the latest step) sits
close to the compaction limit.  An event there must still buy several steps: the consolidated
summary stays within its share, and an event at the window limit waits until it frees a real part
of the budget (or the request gets near the budget).  Before, an 8K window made a summarising call
on almost every step, each one rewriting the whole request after the head."""

from __future__ import annotations

import tempfile
from pathlib import Path

from agent_tui.core.config import Settings
from agent_tui.core.engine import ContextEngine
from agent_tui.core.items import Category
from agent_tui.core.summary import Entry, Summary
from agent_tui.core.tokens import TokenCounter
from tests.core.core_helpers import call, filler, request_text

TASK = "TASK: make the parser keep dropped elements; run the tests after every change. "


TOOLS = [{"type": "function", "function": {"name": f"tool_{k}", "description": filler(f"tool{k}", 140),
                                           "parameters": {"type": "object", "properties": {}}}} for k in range(12)]
"""Tool definitions of about 1,900 tokens, as agent-tui's own (they ride in every request's head)."""


def small_window_session(window: int, steps: int, task_words: int = 1900,
                         tools: list[dict[str, object]] | None = None) -> tuple[ContextEngine, list[int], list[int]]:
    """A task of about a third of an 8K budget, two edited files, then ``steps`` steps of short outputs
    with a thought each; returns the engine, the steps that compacted and every request's size."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        eng = ContextEngine(Settings.default(window=window), workspace=root)
        eng.pin_rule("RULE: never push to main")
        eng.add_user(TASK + filler("task", task_words))
        for j in range(2):
            rel = f"src/mod{j}.py"
            (root / "src").mkdir(exist_ok=True)
            text = filler(f"file{j}", 500)
            (root / rel).write_text(text)
            eng.note_file_edit(rel, text)
        events: list[int] = []
        sizes: list[int] = []
        for k in range(steps):
            c = call(f"c{k}", command=f"sed -i 's/old{k}/new{k}/' src/mod{k % 2}.py && python -m pytest -k case{k}")
            eng.add_assistant(f"I decided to rename old{k} in mod{k % 2}. The root cause is case {k}. "
                              + filler(f"think{k}", 40), [c])
            eng.add_tool_result(c["id"], "run_command", f"ValueError: case {k} still drops element {k}\n"
                                f"tests/test_case{k}.py:{k + 10}: AssertionError\n{k} passed, 1 failed\n"
                                + filler(f"out{k}", 80), scope="session")
            asm = eng.assemble(tools)
            text = request_text(asm.messages)
            assert "RULE: never push to main" in text and TASK.strip() in text
            sizes.append(asm.breakdown.total)
            assert asm.breakdown.total <= eng.plan.input_budget
            if asm.compaction is not None:
                events.append(k)
                live = [it for it in eng.compactor.segments if it.in_window]
                assert sum(it.tokens for it in live) <= eng.compactor.summary_cap() + 64, \
                    f"step {k}: the summary outgrew its share ({eng.compactor.summary_cap()} tokens)"
        return eng, events, sizes


def test_an_8k_window_compacts_every_few_steps_not_every_step() -> None:
    eng, events, sizes = small_window_session(8192, 80)
    assert eng.plan.caps[Category.SUMMARY] < 400  # the window this is about: a summary share of ~300 tokens
    assert events, "the session never compacted: the test is not exercising the limit"
    gaps = [b - a for a, b in zip(events, events[1:], strict=False)]
    assert len(events) <= 80 // 4, f"{len(events)} events in 80 steps: {events}"
    assert min(gaps, default=99) >= 2, f"events on consecutive steps: {events}"


def test_a_16k_window_compacts_rarely() -> None:
    _, events, _ = small_window_session(16384, 80)
    assert events and len(events) <= 80 // 6, f"{len(events)} events in 80 steps: {events}"


def test_a_summary_cut_to_its_share_drops_the_oldest_entries_of_the_fullest_section_never_the_users() -> None:
    summary = Summary(covers=[f"t{k}" for k in range(40)])
    summary.sections["instructions"] = [Entry(f"never touch vendor/{k}", f"u{k}") for k in range(3)]
    summary.sections["errors"] = [Entry(f"ValueError: element {k} dropped " + "x" * 40, f"t{k}") for k in range(10)]
    summary.sections["decisions"] = [Entry(f"decided to rename old{k}", f"t{k}") for k in range(4)]
    count = TokenCounter(None).count
    whole = summary.render()
    assert summary.render(10**6, count) == whole  # within the limit: unchanged
    cut = summary.render(120, count)
    assert count(cut) <= 120 < count(whole)
    assert all(f"never touch vendor/{k}" in cut for k in range(3))
    assert "element 9 dropped" in cut and "element 0 dropped" not in cut  # the newest stay
    assert "decided to rename old3" in cut  # a short section keeps its newest
    only_users = summary.render(5, count)
    assert all(f"never touch vendor/{k}" in only_users for k in range(3))  # over the limit, but kept


def test_a_large_task_and_the_tool_definitions_do_not_make_every_step_an_event() -> None:
    """The tools (~2.2K tokens) and a task of ~2K tokens put the floor of an 8K window past the point halfway
    from compact_at to the budget: every step counted as urgent and compacted, freeing a few hundred tokens
    (59 events in 60 steps, the request no smaller after most of them)."""
    eng, events, _ = small_window_session(8192, 60, task_words=1500, tools=TOOLS)
    assert eng.head.tools_tokens > 1500
    assert events and len(events) <= 60 // 2, f"{len(events)} events in 60 steps: {events}"
    assert all(b - a >= 2 for a, b in zip(events, events[1:], strict=False)), events


def test_a_window_the_tools_crowd_is_warned_about_once_and_a_roomy_one_not() -> None:
    """At --window 4000 the tool definitions took 62 % of what a request may hold and nothing said so."""
    for window, warned in ((4096, True), (32_768, False)):
        eng = ContextEngine(Settings.default(window=window))
        eng.add_user("TASK: fix the parser")
        for _ in range(3):
            eng.assemble(TOOLS)
        said = [w for w in eng.warnings if "small for this setup" in w]
        assert len(said) == (1 if warned else 0), (window, eng.warnings)
        if warned:
            assert "tool definitions" in said[0] and "%" in said[0]


def test_the_demos_own_small_window_is_not_warned_about() -> None:
    from dataclasses import replace

    from agent_tui.agent.demo import DEMO_MODEL, DEMO_PROVIDER
    from agent_tui.core.budget import CHOSEN_WINDOW_PROVIDERS

    assert f"{DEMO_PROVIDER}/" in CHOSEN_WINDOW_PROVIDERS
    eng = ContextEngine(replace(Settings.default(window=4096), model=DEMO_MODEL))
    eng.add_user("TASK: fix the parser")
    eng.assemble(TOOLS)
    assert not [w for w in eng.warnings if "small for this setup" in w]
