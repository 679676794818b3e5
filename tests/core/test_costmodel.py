"""The cost model's batch size: the economic order quantity over what holding a token costs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui.core.config import BudgetConfig, ConfigError, Settings, load_settings
from agent_tui.core.costmodel import MIN_EVENT_GAP, CacheCosts, costs_for, decide


def settings(**budget: float) -> Settings:
    return Settings(model=None, budget=BudgetConfig(**budget))


def test_holding_a_token_costs_its_read_plus_the_context_weight() -> None:
    assert costs_for(settings()).hold == pytest.approx(2 * costs_for(settings()).read)  # default: twice the read
    assert costs_for(settings(context_weight=0.0)).hold == pytest.approx(costs_for(settings()).read)  # money only
    c = costs_for(settings(cache_read_weight=0.25, context_weight=0.5))
    assert (c.read, c.hold) == (0.25, 0.75)


@given(request=st.integers(2_000, 150_000), floor=st.integers(500, 20_000), growth=st.floats(10, 5_000),
       summary=st.integers(50, 2_000), context=st.floats(0, 1))
def test_the_batch_is_the_economic_order_quantity_of_the_holding_cost(
        request: int, floor: int, growth: float, summary: int, context: float) -> None:
    costs = CacheCosts(read=0.1, write=1.25, output=4.0, hold=0.1 + context)
    d = decide(costs, request=request, floor=floor, head=100, growth=growth, summary=summary,
               hard_limit=10**9, min_excess=0)
    assert d.threshold == int(math.sqrt(2 * d.event_cost * growth / costs.hold))
    assert d.compact == (d.excess >= d.threshold) and d.excess == max(0, request - floor)
    money = decide(CacheCosts(read=0.1, write=1.25, output=4.0, hold=0.1), request=request, floor=floor,
                   head=100, growth=growth, summary=summary, hard_limit=10**9, min_excess=0)
    assert d.threshold <= money.threshold  # a context weight never makes batches larger
    if d.excess >= money.threshold:
        assert d.compact  # it only ever compacts earlier


def test_the_window_is_a_hard_limit_whatever_the_weights() -> None:
    costs = CacheCosts(read=0.1, write=1.0, output=4.0, hold=0.1)
    d = decide(costs, request=90_000, floor=89_000, head=100, growth=1.0, summary=100, hard_limit=80_000,
               min_excess=50_000)
    assert d.compact and d.reason == "window limit"


@pytest.mark.parametrize("value", [-0.1, 11, "much"])
def test_a_bad_context_weight_is_refused_with_its_name(tmp_path, value: object) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"[budget]\ncontext_weight = {value!r}\n".replace("'", '"'))
    with pytest.raises(ConfigError, match="context_weight"):
        load_settings(None, user_file=cfg)


def test_a_cost_model_event_waits_four_steps_after_the_last_but_the_window_does_not() -> None:
    costs = CacheCosts(read=0.1, write=1.0, output=4.0, hold=0.2)
    kw = dict(request=20_000, floor=2_000, head=100, growth=2_000.0, summary=100, min_excess=0)
    assert not decide(costs, hard_limit=10**9, since_event=MIN_EVENT_GAP - 1, **kw).compact  # type: ignore[arg-type]
    assert decide(costs, hard_limit=10**9, since_event=MIN_EVENT_GAP, **kw).compact  # type: ignore[arg-type]
    d = decide(costs, hard_limit=15_000, since_event=1, **kw)  # type: ignore[arg-type]
    assert d.compact and d.reason == "window limit"


def test_right_after_an_event_the_window_limit_waits_until_an_event_frees_a_quarter_of_the_budget() -> None:
    costs = CacheCosts(read=0.1, write=1.0, output=4.0, hold=0.2)
    kw = dict(head=100, growth=200.0, summary=100, min_excess=512, hard_limit=4_500, budget=6_000, since_event=1)
    small = decide(costs, request=4_700, floor=4_300, **kw)  # type: ignore[arg-type]
    assert not small.compact and "near the window" in small.reason
    assert decide(costs, request=4_700, floor=3_100, **kw).compact  # type: ignore[arg-type]  # frees 1,600 >= 1,500
    # past halfway to the budget: an event that frees min_excess; past the budget itself, any
    assert not decide(costs, request=5_300, floor=5_000, **kw).compact  # type: ignore[arg-type]
    urgent = decide(costs, request=5_300, floor=4_700, **kw)  # type: ignore[arg-type]
    assert urgent.compact and urgent.reason == "window limit"
    assert decide(costs, request=6_100, floor=6_000, **kw).compact  # type: ignore[arg-type]
    assert decide(costs, request=4_700, floor=4_300, **{**kw, "budget": None}).compact  # type: ignore[arg-type]
    # the first crossing of the limit (the user's compact_at) compacts, as it did; so does one 4 steps on
    assert decide(costs, request=4_700, floor=4_300, **{**kw, "since_event": None}).compact  # type: ignore[arg-type]
    assert decide(costs, request=4_700, floor=4_300, **{**kw, "since_event": MIN_EVENT_GAP}).compact  # type: ignore[arg-type]
