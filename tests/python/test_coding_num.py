"""Paper 001's NUM with network coding (`airtcp.models.coding_num`): the six optima of the paper's
Appendix A and the wheel's gains against their closed forms, decodability from overhearing, an
independent solver on random capacities, and the instance format's errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize

from airtcp.errors import ScenarioError
from airtcp.models import coding_num as cn

# Closed forms (one collision domain, gamma = 1, log utilities): the paper prints them truncated
# ("0.88" for 8/9, "1.3" for 4/3, "1.14" for 8/7, "0.66" for 2/3).
APPENDIX_A = {
    "Fig. 10": (2 / 3, 1 / 2),
    "Fig. 11": (8 / 9, 4 / 5),
    "Fig. 12": (2 / 3, 1 / 2),
    "Fig. 13": (4 / 3, 4 / 5),
    "Fig. 14": (1 / 2, 1 / 3),
    "Fig. 15": (8 / 7, 2 / 3),
}


@pytest.mark.parametrize("figure", sorted(APPENDIX_A))
def test_the_appendix_a_optima_with_and_without_coding(figure: str) -> None:
    spec = cn.appendix_a()[figure]
    coded, plain = cn.optimum(spec), cn.optimum({**spec, "codes": "none"})
    assert coded.total == pytest.approx(APPENDIX_A[figure][0], abs=1e-6)
    assert plain.total == pytest.approx(APPENDIX_A[figure][1], abs=1e-6)
    for result in (coded, plain):
        assert -1e-9 <= result.gap <= 1e-8
        # The clique is full at the optimum: the time shares add up to gamma = 1.
        assert sum(result.time_shares.values()) == pytest.approx(1.0, abs=1e-7)


def test_the_butterfly_codes_at_i1_for_two_hops_and_nothing_at_i2() -> None:
    codes = cn.instance(cn.butterfly(1, 1, 1, 1, 1)).codes
    assert [(c.at, c.hops) for c in codes] == [("I1", 2)]
    shares = cn.optimum(cn.butterfly(1, 1, 1, 1, 1)).time_shares
    # Four transmissions per pair: two uplinks, the XOR to I2, the XOR on to {A2, B2}.
    assert shares["I1->I2"] == pytest.approx(0.25, abs=1e-7)
    assert shares["I2->A2,B2"] == pytest.approx(0.25, abs=1e-7)


@pytest.mark.parametrize("n", [2, 4, 6, 8])
def test_the_wheel_gains_n_minus_1_over_n_plus_1(n: int) -> None:
    # Without coding 2n transmissions carry one packet of each flow; with the n-way XOR, n + 1.
    spec = cn.wheel(n)
    gain = cn.optimum(spec).total / cn.optimum({**spec, "codes": "none"}).total - 1
    assert gain == pytest.approx((n - 1) / (n + 1), abs=1e-6)


def test_without_overhearing_nothing_is_coded() -> None:
    x = cn.x_topology(1, 1, 1, 1)
    del x["hears"]
    assert cn.instance(x).codes == ()
    assert cn.optimum(x).total == pytest.approx(0.5, abs=1e-6)
    butterfly = cn.butterfly(1, 1, 1, 1, 1)
    butterfly["hears"] = [["A1", "B2"]]  # A2 no longer overhears B1
    assert cn.instance(butterfly).codes == ()


def test_a_listed_code_must_decode() -> None:
    x = cn.x_topology(1, 1, 1, 1)
    x["hears"] = [["S1", "R2"]]
    with pytest.raises(ScenarioError) as caught:
        cn.instance({**x, "codes": [{"at": "I", "flows": ["1", "2"]}]})
    assert str(caught.value).startswith("codes[0]: not decodable")
    listed = cn.instance({**cn.x_topology(1, 1, 1, 1), "codes": [{"at": "I", "flows": ["1", "2"]}]})
    assert [c.flows for c in listed.codes] == [(0, 1)]


def _alice_bob_by_slsqp(c1: float, c2: float) -> float:
    """Alice and Bob written out by hand: v = (x1, x2, f1, f2, y), f_s the part of flow s the relay
    sends inside the XOR (y >= f1, f2), the rest uncoded; one collision domain."""

    def time(v: np.ndarray) -> float:
        x1, x2, f1, f2, y = v
        return x1 / c1 + x2 / c2 + (x1 - f1) / c2 + (x2 - f2) / c1 + y / min(c1, c2)

    constraints: list[dict[str, Any]] = [
        {"type": "ineq", "fun": lambda v: 1 - time(v)},
        {"type": "ineq", "fun": lambda v: v[4] - v[2]},
        {"type": "ineq", "fun": lambda v: v[4] - v[3]},
        {"type": "ineq", "fun": lambda v: v[0] - v[2]},
        {"type": "ineq", "fun": lambda v: v[1] - v[3]},
    ]
    best = -math.inf
    for start in ([0.1, 0.1, 0.0, 0.0, 0.0], [0.1, 0.1, 0.1, 0.1, 0.1]):
        result = minimize(lambda v: -math.log(v[0]) - math.log(v[1]), start, method="SLSQP",
                          bounds=[(1e-9, None)] * 5, constraints=constraints, options={"ftol": 1e-13, "maxiter": 500})
        best = max(best, -result.fun)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_alice_and_bob_agree_with_an_independent_solver(seed: int) -> None:
    c1, c2 = np.random.default_rng(seed).uniform(0.2, 5.0, 2)
    assert cn.optimum(cn.alice_bob(c1, c2)).utility == pytest.approx(_alice_bob_by_slsqp(c1, c2), abs=1e-6)


def test_coding_never_lowers_the_optimum_and_cliques_bind_separately() -> None:
    rng = np.random.default_rng(7)
    for _ in range(5):
        caps = rng.uniform(0.5, 4.0, 5)
        spec = cn.butterfly(*caps)
        assert cn.optimum(spec).utility >= cn.optimum({**spec, "codes": "none"}).utility - 1e-9
    # Two cliques (no interference between the two sides of Alice and Bob's relay): each side's
    # transmissions get the whole time, so the optimum rises.
    spec = cn.alice_bob(1, 1)
    spec["cliques"] = [[["A1", ["I"]], ["I", ["A1"]], ["I", ["A1", "A2"]]],
                       [["A2", ["I"]], ["I", ["A2"]], ["I", ["A1", "A2"]]]]
    assert cn.optimum(spec).total > 2 / 3 + 0.1


@pytest.mark.parametrize("change,message", [
    ({"zz": 1}, "zz: unknown field"),
    ({"links": []}, "links: must be a non-empty list"),
    ({"links": [{"from": "A1", "to": "I", "capacity": 0}]}, "links[0].capacity: must be a positive number"),
    ({"flows": [{"id": "1", "path": ["A1", "A2"]}]}, "flows[0].path[1]: no link A1 -> A2"),
    ({"flows": [{"id": "1", "path": ["A1", "I", "A2"]}, {"id": "1", "path": ["A2", "I", "A1"]}]},
     "flows[1].id: '1' is used twice"),
    ({"codes": [{"at": "I", "flows": ["1", "9"]}]}, "codes[0].flows[1]: unknown flow '9'"),
    ({"codes": [{"at": "I", "flows": ["1", "2"], "hops": 3}]}, "codes[0].hops: must be 1 or 2"),
    ({"cliques": [[["I", ["B"]]]]}, "cliques[0][0]: no links from I to every next hop"),
    ({"gamma": float("nan")}, "gamma: must be a positive number"),
])
def test_a_bad_instance_names_its_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        cn.instance({**cn.alice_bob(1, 1), **change})
    assert str(caught.value).startswith(message), str(caught.value)
