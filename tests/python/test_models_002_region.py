"""Paper 002's downlink region and NUM optimum (`airtcp.models.downlink_region`,
`airtcp.models.num_optimum`) against the spec's reference values (spec 002 §6(a) items 6-7), the
core's AMC tables, a Monte Carlo of the max-SNR scheduler and an independent cutting-plane LP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

import airtcp
from airtcp.models import downlink_region as dr
from airtcp.models import num_optimum as no
from airtcp.models import paper002_fluid as pf


def _close(value: np.ndarray, expected: list[float], rel: float) -> None:
    assert np.allclose(value, expected, rtol=rel, atol=0), (list(value), expected)


# --- the AMC tables are the core's -----------------------------------------------------------------


def _core_rates(amc: dict, snrs_db: list[float], bandwidth: str, slot: str, scale: float) -> list[float]:
    """Each user's `mean_rate_bps` in a core run without fading (a constant mode per user)."""
    users = [{"node": f"U{i}", "mean_snr": f"{s!r}dB"} for i, s in enumerate(snrs_db)]
    scenario = {
        "name": "amc", "duration": "0.1s", "seed": 1,
        "nodes": ["S", "BS"] + [u["node"] for u in users],
        "links": [{"from": "S", "to": "BS", "rate": "100Mbps", "delay": "1ms"}],
        "downlink": {"base_station": "BS", "users": users, "fading": {"kind": "none"}, "amc": amc,
                     "bandwidth": bandwidth, "slot": slot, "rate_scale": scale,
                     "scheduler": {"kind": "round_robin"}},
        "flows": [{"id": "f0", "src": "S", "dst": "U0", "start": "0s",
                   "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": 200}, "transport": {"kind": "udp"}}],
    }
    return list(airtcp.run(scenario).downlink["mean_rate_bps"])


@pytest.mark.parametrize(
    ("amc", "table"),
    [({"kind": "ieee802_16e"}, dr.IEEE_802_16E), ({"kind": "liu2004", "count": 6}, dr.liu2004(6, 0.01)),
     ({"kind": "liu2004", "count": 3, "target_per": 0.1}, dr.liu2004(3, 0.1))],
    ids=["ieee802_16e", "liu2004-6", "liu2004-3-10%"],
)
def test_amc_tables_agree_with_the_core(amc: dict, table: dr.AmcTable) -> None:
    # Just above each threshold the core uses that mode, just below the one before (or none).
    above = [t + 1e-6 for t in table.thresholds_db]
    below = [t - 1e-6 for t in table.thresholds_db]
    for bandwidth, slot, scale in (("10MHz", "10ms", 1.0), ("5MHz", "7ms", 0.2379)):
        link = dr.Downlink(tuple(above), table, bandwidth_hz=float(bandwidth[:-3]) * 1e6,
                           slot_s=float(slot[:-2]) * 1e-3, rate_scale=scale)
        bits = link.bits_per_slot() / link.slot_s
        assert _core_rates(amc, above, bandwidth, slot, scale) == pytest.approx(list(bits), rel=1e-12)
        assert _core_rates(amc, below, bandwidth, slot, scale) == pytest.approx([0.0, *bits[:-1]], rel=1e-12)


def test_liu2004_thresholds_are_the_spec_s() -> None:
    table = dr.liu2004()
    assert table.thresholds_db == pytest.approx([1.068, 4.154, 7.180, 11.080, 13.589], abs=6e-4)
    assert table.efficiencies == (0.5, 1.0, 1.5, 2.25, 3.0)


def test_bad_tables_and_downlinks_are_refused() -> None:
    with pytest.raises(airtcp.ScenarioError, match="increasing"):
        dr.AmcTable((5.0, 3.0), (1.0, 2.0))
    with pytest.raises(airtcp.ScenarioError, match="not decreasing"):
        dr.AmcTable((1.0, 3.0), (2.0, 1.0))
    with pytest.raises(airtcp.ScenarioError, match="rate_scale"):
        dr.Downlink((10.0,), rate_scale=1.5)
    with pytest.raises(airtcp.ScenarioError, match="amc.count"):
        dr.liu2004(7)


# --- the region and the saturated schedulers (item 6) ----------------------------------------------

NS2 = pf.ns2_downlink()


def test_the_joint_states_are_exhaustive() -> None:
    region = NS2.region()
    # 8 modes with two of equal efficiency + outage -> 8 levels per user; the all-outage state dropped.
    assert region.num_states == 8**4 - 1
    outage = NS2.mode_probabilities()[:, 0]
    assert region.probabilities.sum() == pytest.approx(1.0 - outage.prod(), rel=1e-12)
    assert region.mean_rates() == pytest.approx(NS2.mean_rates(), rel=1e-12)
    # docs/downlink.md's E[R] in bits per slot.
    assert NS2.mean_rates() * 1600 * 0.01 == pytest.approx([162_581, 324_767, 183_261, 251_450], abs=1)


def test_saturated_scheduler_rates_are_the_spec_s() -> None:
    region = NS2.region()
    _close(dr.round_robin_rates(NS2), [2540.3, 5074.5, 2863.5, 3928.9], 0.01)
    _close(dr.max_snr_rates(NS2), [1086.2, 14686.3, 1768.3, 5985.3], 0.01)
    _close(dr.max_rate_rates(region), [1237.7, 14389.1, 1912.4, 5986.8], 0.01)
    pf_rates = dr.proportional_fair_rates(region)
    _close(pf_rates, [4296.6, 7291.6, 4375.1, 5833.6], 0.01)
    assert dr.jain(pf_rates) == pytest.approx(0.9517, abs=1e-4)
    # Exact values (4 decimals) are closer than 1 %: RR and max-rate to 0.01 pkt/s.
    _close(dr.round_robin_rates(NS2), [2540.33, 5074.49, 2863.45, 3928.90], 1e-5)
    _close(dr.max_rate_rates(region), [1237.74, 14389.11, 1912.39, 5986.83], 1e-5)


def test_max_snr_closed_form_matches_monte_carlo() -> None:
    rng = np.random.default_rng(2)
    th = 10.0 ** (np.asarray(NS2.amc.thresholds_db) / 10.0)
    levels = np.concatenate([[0.0], NS2.mode_rates()])
    served = np.zeros(4)
    chunks, slots = 4, 500_000
    for _ in range(chunks):
        snr = 10.0 ** (np.asarray(NS2.mean_snr_db) / 10.0) * rng.exponential(size=(slots, 4))
        best = snr.argmax(axis=1)
        rate = levels[np.searchsorted(th, snr[np.arange(slots), best], side="right")]
        served += np.bincount(best, weights=rate, minlength=4)
    _close(dr.max_snr_rates(NS2), list(served / (chunks * slots)), 0.005)


def test_support_function_and_scheduler_agree() -> None:
    region = pf.matlab_downlink().region()
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = rng.uniform(0, 1, 4)
        r = region.scheduled_rates(q)
        assert q @ r == pytest.approx(region.support(q), rel=1e-12)
        value, grad, hess = region.smoothed(q, 1e-3)
        h = region.support(q)
        assert h * (1 - 1e-12) <= value <= h + 1e-3 * math.log(4) + 1e-9
        assert q @ grad <= region.support(q) * (1 + 1e-12)  # a point of the region
        assert np.all(np.linalg.eigvalsh(hess) >= -1e-9 * max(np.abs(hess).max(), 1.0))


# --- the NUM optimum (item 7) ----------------------------------------------------------------------


def test_largest_equal_rate() -> None:
    theta = dr.largest_equal_rate(NS2.region())
    assert theta == pytest.approx(5151.0, abs=0.05)
    # Equal split of 3125 pkt/s over a shared wired link is feasible from scale 0.1517 up.
    assert 781.25 / theta == pytest.approx(0.1517, abs=5e-5)


def test_wireless_only_optimum_is_the_spec_s() -> None:
    opt = no.num_optimum(pf.ns2_network(wired_capacity=None), [200.0] * 4)
    _close(opt.rates, [4300.4, 7297.3, 4378.2, 5838.1], 1e-3)
    assert opt.rates.sum() == pytest.approx(21813.9, abs=0.1)
    assert dr.jain(opt.rates) == pytest.approx(0.9517, abs=1e-4)
    assert opt.utility == pytest.approx(6863.65, abs=0.01)
    assert 0 <= opt.relative_gap <= 1e-5 and opt.upper_bound >= opt.utility
    assert opt.rate_tolerance < 1e-2
    # x_s = p_s / q^s (eq. (2)) and the region's rates carry the flows.
    assert opt.rates == pytest.approx(200.0 / opt.flow_delay, rel=1e-6)
    assert np.all(opt.region_rates >= opt.rates * (1 - 1e-9))


def test_the_optimum_scales_with_the_downlink() -> None:
    def optimum(scale: float, whole_bytes: bool) -> np.ndarray:
        link = dr.Downlink(pf.NS2_SNR_DB, rate_scale=scale, whole_bytes=whole_bytes)
        return no.num_optimum(no.Network.wireless_only(link.region()), [200.0] * 4).rates

    full = optimum(1.0, True)
    for scale in (0.1, 0.2379):
        # Exactly proportional in the fluid count of bits; the core's whole bytes per slot
        # (2973 of 2973.75 bytes in QPSK 1/2 at 0.2379) move it by up to 6e-5.
        _close(optimum(scale, False), list(scale * full), 1e-6)
        _close(optimum(scale, True), list(scale * full), 1e-4)


@pytest.mark.parametrize("scale", [0.1517, 0.16, 0.2379, 1.0])
def test_a_shared_3125_link_splits_equally_above_0_1517(scale: float) -> None:
    opt = no.num_optimum(pf.ns2_network(scale), [200.0] * 4)
    _close(opt.rates, [781.25] * 4, 1e-4)
    assert opt.relative_gap <= 1e-5
    assert opt.prices[0] == pytest.approx(200 / 781.25, rel=1e-3)  # the wired link holds the delay


def test_below_0_1517_the_downlink_binds() -> None:
    opt = no.num_optimum(pf.ns2_network(0.14), [200.0] * 4)
    assert opt.rates.min() < 0.9 * 781.25 and opt.prices[0] == 0.0
    _close(opt.rates, list(0.14 * no.num_optimum(pf.ns2_network(wired_capacity=None), [200.0] * 4).rates), 1e-5)


def _kelley(region: dr.TdmaRegion, weights: np.ndarray, wired: float | None) -> tuple[np.ndarray, float, float]:
    """max Σ p log x over the φ-LP of the region (and a shared wired link) by tangent cuts
    `t_s <= p_s (log a + x_s / a - 1)` (Kelley), to a gap of 1e-10 relative: `(x, value, upper)`."""
    s, u = region.rates.shape
    nphi = s * u
    x0, t0, n = nphi, nphi + u, nphi + 2 * u
    base: list[tuple[list[tuple[int, float]], float]] = []
    for k in range(s):  # Σ_u φ_{k,u} <= 1
        base.append(([(k * u + j, 1.0) for j in range(u)], 1.0))
    for j in range(u):  # x_j <= Σ_k π_k R_{k,j} φ_{k,j}
        base.append(([(x0 + j, 1.0)] + [(k * u + j, -region.probabilities[k] * region.rates[k, j]) for k in range(s)], 0.0))
    if wired is not None:
        base.append(([(x0 + j, 1.0) for j in range(u)], wired))
    cuts = [list(np.geomspace(1.0, 1e5, 30)) for _ in range(u)]
    objective = np.zeros(n)
    objective[t0:] = -1.0
    bounds = [(0, None)] * (nphi + u) + [(None, None)] * u
    for _ in range(300):
        rows = list(base) + [([(t0 + j, 1.0), (x0 + j, -weights[j] / a)], weights[j] * (math.log(a) - 1.0))
                             for j in range(u) for a in cuts[j]]
        entries = [(r, c, v) for r, (terms, _) in enumerate(rows) for c, v in terms]
        a_ub = sparse.coo_array(([e[2] for e in entries], ([e[0] for e in entries], [e[1] for e in entries])),
                                shape=(len(rows), n)).tocsr()
        result = linprog(objective, A_ub=a_ub, b_ub=[b for _, b in rows], bounds=bounds, method="highs",
                         options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
        assert result.status == 0
        x = result.x[x0:t0]
        value = float(weights @ np.log(x))
        if -result.fun - value <= 1e-10 * abs(value):
            return x, value, -float(result.fun)
        for j in range(u):
            cuts[j].append(float(x[j]))
    raise AssertionError("Kelley did not converge")


@pytest.mark.parametrize("wired", [None, 2000.0])
def test_num_optimum_agrees_with_an_independent_cutting_plane_lp(wired: float | None) -> None:
    link = dr.Downlink((6.0, 14.0, 9.0), dr.liu2004(3), bandwidth_hz=5e6)
    region = link.region()
    weights = np.array([100.0, 250.0, 180.0])
    net = (no.Network.wireless_only(region) if wired is None
           else no.Network((0, 1, 2), region, (wired,), ((0,),) * 3))
    opt = no.num_optimum(net, weights)
    x, value, upper = _kelley(region, weights, wired)
    # Both bracket the same optimum; utility gaps pin rates only to their square root.
    assert opt.utility <= upper * (1 + 1e-12) and value <= opt.upper_bound * (1 + 1e-12)
    assert opt.utility == pytest.approx(value, rel=1e-8)
    _close(opt.rates, list(x), 1e-4)


def test_subgradient_trace_approaches_the_optimum() -> None:
    net = pf.matlab_network()
    opt = no.num_optimum(net, [200.0] * 4)
    trace = no.subgradient_trace(net, [200.0] * 4, step=3e-7, iterations=4000)
    _close(trace.rates[-1000:].mean(axis=0), list(opt.rates), 0.005)
    assert trace.mean_rates.shape == (4000, 4)


def test_instances_from_plain_data() -> None:
    inst = no.Instance.from_dict({
        "downlink": {"mean_snr_db": [12, 19, 13, 16], "amc": "ieee802_16e", "rate_scale": 0.2379},
        "wired": [{"capacity": 3125}],
        "flows": [{"user": u, "wired": [0], "delay_s": 0.05 + 0.02 * u, "weight": 200} for u in range(4)],
    })
    opt = no.num_optimum(inst.network, inst.weights)
    _close(opt.rates, [781.25] * 4, 1e-5)
    smooth = no.Instance.from_dict({"region": {"kind": "smooth", "capacities": [3, 4]},
                                    "flows": [{"user": 0}, {"user": 1}]})
    # max log x0 + log x1 over (x0/3)^2 + (x1/4)^2 <= 1: x = (3, 4) / sqrt(2).
    _close(no.num_optimum(smooth.network, smooth.weights).rates, [3 / math.sqrt(2), 4 / math.sqrt(2)], 1e-6)
    with pytest.raises(airtcp.ScenarioError, match="crosses no link"):
        no.Instance.from_dict({"flows": [{"weight": 1}]})
    with pytest.raises(airtcp.ScenarioError, match="no user 5"):
        no.Instance.from_dict({"region": {"kind": "box", "capacities": [1]}, "flows": [{"user": 5}]})
