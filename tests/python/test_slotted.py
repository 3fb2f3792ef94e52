"""The slotted model of paper 000 §2-3 from Python (`airtcp.models.slotted`), its stability region and
utility optimum (`airtcp.models.capacity_region`), and Theorems 1 and 2 measured against them.

The numbers these tests print (`pytest -s`) are the ones quoted in docs/conflict_graph.md,
"Theorems 1 and 2, as measured"."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from scipy.optimize import LinearConstraint, minimize

from airtcp.models import capacity_region as cr
from airtcp.models import slotted as sl
from airtcp.errors import ScenarioError
from support import REPO

# ---------------------------------------------------------------------------------------------
# Front end


def test_builders_number_nodes_and_links_as_documented() -> None:
    assert [(l.src, l.dst) for l in sl.diamond().links] == [(0, 1), (0, 2), (1, 3), (2, 3)]
    both = sl.diamond(bidirectional=True)
    assert [(l.src, l.dst) for l in both.links[4:]] == [(1, 0), (2, 0), (3, 1), (3, 2)]
    assert [(l.src, l.dst) for l in sl.tree().links] == [(0, 1), (0, 2), (2, 3)]
    assert len(sl.grid(4, 3).links) == 34  # paper 000 Fig. 5c
    net = sl.chain(3, capacity=(2, 1), p_on=(0.9, 0.5))
    assert net.links == (sl.Link(0, 1, 2, 0.9), sl.Link(1, 2, 1, 0.5))
    assert net.link_index(1, 2) == 1


def test_conflict_pairs_follow_the_core_rules() -> None:
    # Links 0->1, 1->2, 2->3 on a 200 m line: neighbours share a node; 0->1 and 2->3 conflict
    # under the protocol model only when node 2 (a transmitter) is within range of node 1.
    def pairs(**kw: Any) -> list[tuple[int, int]]:
        return sl.conflict_pairs(sl.slotted_config(sl.chain(4, **kw), [], slots=1))

    assert pairs() == [(0, 1), (1, 2)]
    assert pairs(conflicts="protocol") == [(0, 1), (0, 2), (1, 2)]
    assert pairs(conflicts="protocol", interference_range=199.0) == [(0, 1), (1, 2)]
    assert pairs(conflicts="protocol", interference_range=200.0) == [(0, 1), (0, 2), (1, 2)]  # inclusive


def test_a_run_reports_per_flow_and_per_link_tables() -> None:
    cfg = sl.slotted_config(sl.chain(3), [sl.Flow(0, 2, sl.Bernoulli(0.4))], slots=20_000, trace_every=100)
    run = sl.run(cfg)
    assert list(run.flows.columns) == ["flow", "src", "dst", "admitted", "delivered", "admitted_rate",
                                       "delivered_rate"]
    assert abs(run.delivered_rates[0] - 0.4) < 0.01
    assert list(run.links["from"]) == [0, 1] and run.links["rate"].between(0.39, 0.41).all()
    assert len(run.backlog_trace) == 200 and run.inexact_slots == 0


def test_warmup_measures_the_window_exactly() -> None:
    """A run's first slots do not depend on its length, so the window is the difference of two
    runs; with a trace point every slot its mean is the window's mean backlog."""
    flows = [sl.Flow(0, 3, sl.Poisson(0.45))]
    cfg = sl.slotted_config(sl.diamond(p_on=0.9), flows, slots=3_000, k=3, trace_every=1, seed=5)
    run = sl.run(cfg, warmup=2_000)
    assert run.backlog_trace["slot"].iloc[0] == 2_001 and len(run.backlog_trace) == 3_000
    assert math.isclose(run.mean_backlog, run.backlog_trace["backlog"].mean(), rel_tol=1e-12)
    whole = sl.run({**cfg, "slots": 5_000})
    assert whole.raw["backlog_trace"][2_000:] == run.raw["backlog_trace"][2_000:]
    short = sl.run({**cfg, "slots": 2_000})
    assert run.flows["admitted"].iloc[0] == whole.flows["admitted"].iloc[0] - short.flows["admitted"].iloc[0]


def test_the_docs_example_runs() -> None:
    """The example of docs/conflict_graph.md, "From Python", as printed there."""
    text = (REPO / "docs" / "conflict_graph.md").read_text()
    section = text[text.index("## From Python"):]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    scope: dict[str, Any] = {}
    exec(compile(match.group(1), "conflict_graph.md", "exec"), scope)
    assert math.isclose(scope["edge"].theta, 0.48)
    assert np.allclose(scope["run"].admitted_rates, scope["opt"].rates, rtol=0.15)


BAD = [
    (lambda c: c["links"][1].update(p_on=1.5), "links[1].p_on", "must be in [0, 1]"),
    (lambda c: c.update(bogus=1), "<slotted>", "unknown field `bogus`"),
    (lambda c: c["links"][0].update(loss=0.1), "<slotted>", "unknown field `loss`"),
    (lambda c: c["flows"][0].update(source={"kind": "controlled", "utility": {"kind": "log"}}),
     "flow_control", "required by controlled flows"),
    (lambda c: c.update(differential={"kind": "tcp_aware", "k": -1}), "differential.k", "finite and >= 0"),
    # Beside a unit variant's tag, where serde's deny_unknown_fields does not look.
    (lambda c: c.update(differential={"kind": "classical", "k": 5}), "differential.k", "unknown field"),
    (lambda c: c.update(conflicts={"kind": "node_exclusive", "radius": 2}), "conflicts.radius", "unknown field"),
]


@pytest.mark.parametrize(("edit", "path", "message"), BAD, ids=[case[1] for case in BAD])
def test_core_errors_become_scenario_errors_with_the_path(edit: Any, path: str, message: str) -> None:
    cfg = sl.slotted_config(sl.chain(3), [sl.Flow(0, 2, sl.Bernoulli(0.4))], slots=10)
    edit(cfg)
    with pytest.raises(ScenarioError) as error:
        sl.run(cfg)
    assert error.value.path == path and message in error.value.message


def test_front_end_refuses_what_it_cannot_express() -> None:
    with pytest.raises(ScenarioError, match="capacity: capacities are whole packets"):
        sl.chain(3, capacity=1.5)
    with pytest.raises(ScenarioError, match="p_on: 3 values for 2 links"):
        sl.chain(3, p_on=(1, 1, 1))
    controlled = sl.slotted_config(sl.chain(3), [sl.Flow(0, 2, sl.Controlled())], slots=1, m=1)
    with pytest.raises(ScenarioError, match=r"flows\[0\].source"):
        cr.max_scaling(controlled)
    with pytest.raises(ScenarioError, match="2\\^17 channel states"):
        cr.region_lp(sl.slotted_config(sl.grid(4, 3, p_on=0.9, bidirectional=False), [], slots=1))
    unreachable = sl.slotted_config(sl.chain(3), [sl.Flow(2, 0, sl.Controlled())], slots=1, m=1)
    with pytest.raises(ScenarioError, match="cannot reach"):
        cr.num_optimum(unreachable)


# ---------------------------------------------------------------------------------------------
# The region and the optimum against closed forms and a second solver


def _config(net: sl.Network, flows: list[sl.Flow], **kw: Any) -> dict[str, Any]:
    return sl.slotted_config(net, flows, slots=1, **kw)


def test_max_scaling_matches_closed_forms() -> None:
    one = [sl.Flow(0, 2, sl.Bernoulli(0.3))]
    # Two conflicting links, always ON: each gets half the slots.
    assert math.isclose(cr.max_scaling(_config(sl.chain(3), one), [1]).theta, 0.5)
    # ON w.p. 0.8 each: link 0 alone when 1 is OFF (0.16), link 1 alone (0.16), and the 0.64 of
    # slots with both ON shared equally: 0.16 + 0.32 = 0.48. The config's own λ = 0.3 is at 0.625.
    chain = _config(sl.chain(3, p_on=0.8), one)
    assert math.isclose(cr.max_scaling(chain, [1]).theta, 0.48)
    assert math.isclose(cr.max_scaling(chain).theta, 0.48 / 0.3)
    # Diamond A -> D over both relays: sets {A->B, C->D} and {A->C, B->D} alternate, 1 per slot.
    assert math.isclose(cr.max_scaling(_config(sl.diamond(), [sl.Flow(0, 3, sl.Poisson(1))]), [1]).theta, 1.0)
    # Confined to one path it is a 3-node chain again.
    path = [sl.Flow(0, 3, sl.Poisson(1), allowed_links=(0, 2))]
    assert math.isclose(cr.max_scaling(_config(sl.diamond(), path), [1]).theta, 0.5)
    # Protocol model, 4-node chain at 200 m with a 250 m range: all three links conflict.
    four = _config(sl.chain(4, conflicts="protocol"), [sl.Flow(0, 3, sl.Bernoulli(0.2))])
    scaling = cr.max_scaling(four, [1])
    assert math.isclose(scaling.theta, 1 / 3)
    assert np.allclose(scaling.link_rates, 1 / 3) and np.allclose(scaling.flow_on_links[:, 0], 1 / 3)


def test_num_optimum_matches_closed_forms() -> None:
    # Two log flows out of A on the diamond share A's one transmission per slot: 1/2 each.
    flows = [sl.Flow(0, 1, sl.Controlled()), sl.Flow(0, 3, sl.Controlled())]
    opt = cr.num_optimum(_config(sl.diamond(), flows, m=1))
    assert np.allclose(opt.rates, 0.5, atol=1e-5) and 0 <= opt.gap < 1e-8
    assert math.isclose(opt.utility, 2 * math.log(0.5), abs_tol=1e-8)
    # α-fair (α = 2) with weights on capacities 2 and 1 of two conflicting links out of node 0:
    # max -1/x - 1/y with x/2 + y <= 1 gives y = 1/(1 + 1/√2), x = √2 y. (A utility gap of 1e-9
    # leaves the rates uncertain by about its square root.)
    net = sl.Network(3, (sl.Link(0, 1, 2), sl.Link(0, 2, 1)))
    alpha = [sl.Flow(0, 1, sl.Controlled(sl.AlphaFair(2))), sl.Flow(0, 2, sl.Controlled(sl.AlphaFair(2)))]
    y = 1 / (1 + 1 / math.sqrt(2))
    assert np.allclose(cr.num_optimum(_config(net, alpha, m=1)).rates, [math.sqrt(2) * y, y], atol=1e-4)
    # R^max binds when smaller than what the links offer.
    capped = cr.num_optimum(_config(sl.diamond(), flows, m=1, r_max=0.6))
    assert np.allclose(capped.rates, 0.3, atol=1e-5)


def _slsqp_log_num(config: dict[str, Any]) -> np.ndarray:
    """Σ log x_s over the same constraints, by SLSQP from an interior point: a second opinion on
    the cutting-plane LP."""
    lp = cr.region_lp(config)
    n, xs = lp.num_columns, [lp.x_index(s) for s in range(lp.num_flows)]

    def objective(v: np.ndarray) -> float:
        return -float(np.sum(np.log(np.maximum(v[xs], 1e-12))))

    def gradient(v: np.ndarray) -> np.ndarray:
        g = np.zeros(n)
        g[xs] = -1.0 / np.maximum(v[xs], 1e-12)
        return g

    start = cr.max_scaling(config, [1.0] * lp.num_flows)  # a feasible point with every x_s > 0
    v0 = np.zeros(n)
    v0[xs] = 0.5 * start.rates
    constraints = [LinearConstraint(lp.a_ub.toarray(), -np.inf, lp.b_ub),
                   LinearConstraint(lp.a_eq.toarray(), lp.b_eq, lp.b_eq)]
    bounds = [(lo, hi if hi is not None else None) for lo, hi in lp.bounds]
    result = minimize(objective, v0, jac=gradient, bounds=bounds, constraints=constraints, method="SLSQP",
                      options={"maxiter": 500, "ftol": 1e-12})
    assert result.success, result.message
    return np.asarray(result.x[xs])


def test_num_optimum_agrees_with_slsqp() -> None:
    net = sl.diamond(capacity=(2, 1, 1, 1), p_on=(0.9, 0.6, 0.7, 0.8))
    flows = [sl.Flow(0, 1, sl.Controlled()), sl.Flow(0, 3, sl.Controlled()), sl.Flow(2, 3, sl.Controlled())]
    config = _config(net, flows, m=1, r_max=4)
    opt = cr.num_optimum(config)
    assert opt.gap < 1e-8
    assert np.allclose(opt.rates, _slsqp_log_num(config), rtol=1e-4)


# ---------------------------------------------------------------------------------------------
# Theorem 1: inside the region every K keeps the backlog bounded; outside it grows linearly.

THEOREM1_SLOTS = 400_000
THEOREM1_WARMUP = 20_000
KS = [None, 0.0, 5.0, 20.0, 50.0]  # None: classical backpressure


def _theorem1_cases() -> dict[str, tuple[sl.Network, list[tuple[int, int]], type[sl.Bernoulli | sl.Poisson]]]:
    """Topology, flow ends and arrival process of each case."""
    return {
        # 3-node chain, links conflict (share node 1), ON w.p. 0.9 and 0.7: λ_max = 0.485.
        "chain3": (sl.chain(3, p_on=(0.9, 0.7)), [(0, 2)], sl.Bernoulli),
        # Paper 000's diamond with links both ways, ON w.p. 0.8; flows A->B and A->D (Figs. 7, 12).
        "diamond": (sl.diamond(bidirectional=True, p_on=0.8), [(0, 1), (0, 3)], sl.Poisson),
        # 4-node chain under the protocol model: all three links conflict, λ_max = 1/3.
        "chain4-protocol": (sl.chain(4, conflicts="protocol"), [(0, 3)], sl.Bernoulli),
    }


@pytest.mark.parametrize("case", list(_theorem1_cases()))
def test_theorem1_stable_inside_the_region_for_every_k(case: str) -> None:
    net, ends, source = _theorem1_cases()[case]
    lam_max = cr.max_scaling(_config(net, [sl.Flow(a, b, source(0.1)) for a, b in ends]), [1.0] * len(ends)).theta
    print(f"\n[theorem 1] {case}: lambda_max = {lam_max:.4f} per flow")
    for rho in (0.9, 1.1):
        rate = rho * lam_max
        excess = (rho - 1) * lam_max * len(ends)
        for k in KS:
            cfg = sl.slotted_config(net, [sl.Flow(a, b, source(rate)) for a, b in ends], slots=THEOREM1_SLOTS,
                                    k=k, trace_every=1_000, seed=7)
            run = sl.run(cfg, warmup=THEOREM1_WARMUP)
            first, second = run.mean_trace(0.0, 0.5), run.mean_trace(0.5, 1.0)
            fit = run.backlog_fit(0.5)
            label = "classical" if k is None else f"K={k:g}"
            print(f"  rho={rho} {label:>9}: mean backlog {run.mean_backlog:9.1f}  halves {first:9.1f} -> "
                  f"{second:9.1f}  slope {fit.slope:+.4f} (excess {excess:+.4f}, r2 {fit.r2:.3f})  "
                  f"delivered {np.round(run.delivered_rates, 4)}")
            assert run.inexact_slots == 0
            if rho < 1:
                # Bounded: no growth from one half to the next, and everything that arrives leaves.
                assert second <= 1.2 * first + 3.0, (label, first, second)
                assert abs(fit.slope) * THEOREM1_SLOTS / 2 < 0.2 * run.mean_backlog + 3.0, (label, fit)
                assert np.allclose(run.delivered_rates, rate, rtol=0.01), (label, run.delivered_rates)
            else:
                # Linear growth at (at least about) the excess arrival rate.
                assert fit.slope > 0.8 * excess and fit.r2 > 0.99, (label, fit)
                assert second > 2.0 * first, (label, first, second)


# ---------------------------------------------------------------------------------------------
# Theorem 2: eq. (5) approaches the utility optimum as M grows, with backlogs O(M).

THEOREM2_SLOTS = 400_000
MS = [5.0, 20.0, 80.0]


def _theorem2_config(m: float, k: float | None) -> dict[str, Any]:
    """The diamond with links both ways, unequal capacities and ON probabilities (so the optimum
    is not symmetric), and three log-utility flows: A->B, A->D and C->D."""
    net = sl.diamond(bidirectional=True, capacity=(2, 1, 1, 1, 1, 1, 1, 1),
                     p_on=(0.9, 0.6, 0.7, 0.8, 0.8, 0.8, 0.8, 0.8))
    flows = [sl.Flow(0, 1, sl.Controlled()), sl.Flow(0, 3, sl.Controlled()), sl.Flow(2, 3, sl.Controlled())]
    return sl.slotted_config(net, flows, slots=THEOREM2_SLOTS, m=m, r_max=4.0, k=k, trace_every=1_000)


@pytest.mark.parametrize("k", [None, 5.0], ids=["classical", "K=5"])
def test_theorem2_admitted_rates_approach_the_num_optimum(k: float | None) -> None:
    opt = cr.num_optimum(_theorem2_config(1.0, k))
    print(f"\n[theorem 2] optimum x* = {np.round(opt.rates, 4)}, sum log x* = {opt.utility:.5f} "
          f"(certified to {opt.gap:.1e})")
    gaps, errors, backlogs = [], [], []
    for m in MS:
        run = sl.run(_theorem2_config(m, k), warmup=20_000)
        x = run.admitted_rates
        gaps.append(opt.utility - float(np.sum(np.log(x))))
        errors.append(float(np.max(np.abs(x / opt.rates - 1))))
        backlogs.append(run.mean_backlog)
        print(f"  {'classical' if k is None else f'K={k:g}'} M={m:g}: x = {np.round(x, 4)}  utility gap "
              f"{gaps[-1]:.5f}  max rate error {errors[-1]:.2%}  mean backlog {backlogs[-1]:.1f}")
    assert all(a > b for a, b in zip(gaps, gaps[1:])), gaps
    assert all(a > b for a, b in zip(errors, errors[1:])), errors
    assert gaps[-1] < 2e-3 and errors[-1] < 0.04
    # Backlog O(M): each 4x in M multiplies it by about 4.
    ratios = [b / a for a, b in zip(backlogs, backlogs[1:])]
    assert all(3.0 < r < 5.0 for r in ratios), ratios
