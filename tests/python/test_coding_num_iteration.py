"""The distributed algorithm of paper 001 (`airtcp.models.coding_num_iteration`) against the exact
optimum of `airtcp.models.coding_num`: Appendix A's six instances with and without coding."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from airtcp.errors import ScenarioError
from airtcp.models import coding_num as cn
from airtcp.models import coding_num_iteration as it


@pytest.mark.parametrize("codes", ["auto", "none"])
@pytest.mark.parametrize("figure", sorted(cn.appendix_a()))
def test_the_iteration_reaches_the_optimum_and_its_prices(figure: str, codes: str) -> None:
    spec = {**cn.appendix_a()[figure], "codes": codes}
    exact = cn.optimum(spec)
    trace = it.iterate(spec)
    # Rates averaged over the second half of 5000 iterations: within 1 % of the optimum.
    assert trace.mean_total == pytest.approx(exact.total, rel=0.01)
    for fid, rate in zip(trace.flow_ids, trace.mean_rates):
        assert rate == pytest.approx(exact.rates[fid], rel=0.02)
    # Hyperarcs in use are priced at the clique's price per unit of time, |S| / R_h (2 flows);
    # measured within 2.8 % (Fig. 11's A2 -> I), the schedule being all-or-nothing.
    inst = cn.instance(spec)
    for name, price in zip(trace.hyperarcs, trace.mean_prices):
        if exact.time_shares.get(name, 0.0) > 1e-6:
            node, next_hops = name.split("->")
            r = min(inst.capacity[(node, j)] for j in next_hops.split(","))
            assert price == pytest.approx(2 / r, rel=0.03), name
    assert trace.rates.shape == (5000, 2) and trace.prices.shape[0] == 5000
    assert np.allclose(trace.total, trace.rates.sum(axis=1))


def test_the_simplex_projection_is_the_nearest_point_of_the_simplex() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        v = rng.normal(0, 2, rng.integers(1, 7))
        w = it._simplex(v)
        assert w.min() >= 0 and w.sum() == pytest.approx(1.0)
        # Optimality: no other point of the simplex (random ones, and the vertices) is nearer.
        others = [rng.dirichlet(np.ones(len(v))) for _ in range(50)] + list(np.eye(len(v)))
        assert all(np.linalg.norm(v - w) <= np.linalg.norm(v - o) + 1e-9 for o in others)


def test_two_cliques_schedule_by_linear_programming() -> None:
    spec = cn.alice_bob(1, 1)
    spec["cliques"] = [[["A1", ["I"]], ["I", ["A1"]], ["I", ["A1", "A2"]]],
                       [["A2", ["I"]], ["I", ["A2"]], ["I", ["A1", "A2"]]]]
    exact = cn.optimum(spec)
    assert it.iterate(spec, iterations=4000).mean_total == pytest.approx(exact.total, rel=0.02)


@pytest.mark.parametrize("kwargs,message", [
    ({"c": 0.0}, "c: must be positive"),
    ({"c_t": -1.0}, "c_t: must be positive"),
    ({"iterations": 1}, "iterations: need at least 2"),
])
def test_bad_parameters_name_themselves(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        it.iterate(cn.alice_bob(1, 1), **kwargs)
    assert str(caught.value).startswith(message)
