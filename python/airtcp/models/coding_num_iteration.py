"""The distributed solution of paper 001's NUM with coding (§IV, eqs. (3)-(7); §VII, eq. (11)):
rate control, traffic splitting, dominance and scheduling driven by h-queue prices, iterated as
in the paper's Appendix A (Figs. 10-15), on the instances of `airtcp.models.coding_num`.

Per iteration, with prices q_h (the h-queues), splits beta and dominance m:

- **Dominance** (3): a code's rate is the largest of its flows' rates, written with weights m
  over the code's flows (sum 1) that pick the largest. Each code's m maximises
  sum_s (alpha_s x_s m_s - c (m_s - mu_s)^2) over the simplex: the projection of
  mu + alpha x / (2c) onto it.
- **Splitting** (5), (11): a flow's path is cut into segments (the hops that codes cover
  together; a two-hop code's hops form one segment); on a segment the flow splits into
  partitions, each a way to cross it by uncoded hops and codes (eq. (8)'s z). The partition's
  cost is the sum of q_h m_h^{s,k} over its hyperarcs (m = 1 uncoded); beta minimises
  sum_z beta_z cost_z + c sum_z (beta_z - nu_z)^2 over the simplex.
- **Rate control** (4): x_s = 1 / (sum over the path of the chosen partitions' costs), capped at
  `x_cap` (log utilities).
- **Scheduling** (6): tau maximises sum_h q_h R_h tau_h over the cliques (one clique: all of
  gamma to the largest q_h R_h, ties shared).
- **Prices** (7): q_h <- [q_h + c_t (load_h - R_h tau_h)]^+, load_h the uncoded traffic on h plus,
  per code on h, the largest alpha x_s of its flows.
- The proximal centres mu, nu move to m, beta every `refresh` iterations.

The paper gives none of c, c_t, the refresh, the initial values or the cap; the defaults (q = 1,
uniform beta and m, c = 1, c_t = 0.01, refresh 20, cap 10) converge on all six instances of
Appendix A: the rates averaged over the second half of 5000 iterations are within 1 % of the exact
optimum (the tests), and the prices of the hyperarcs in use approach |S| / R_h (the clique's price
|S|, the number of flows, per unit of time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linprog

from airtcp.errors import ScenarioError, SimulationError
from airtcp.models.coding_num import CodingInstance, Hyperarc, instance

__all__ = ["IterationTrace", "iterate"]


def _simplex(v: np.ndarray) -> np.ndarray:
    """The Euclidean projection of `v` onto {w >= 0, sum w = 1}."""
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    rho = int(np.nonzero(u - cumulative / k > 0)[0][-1])
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


Step = tuple[tuple[Hyperarc, ...], int]  # a code's hyperarcs (one uncoded hop: one), code or -1


@dataclass
class _Flow:
    """A flow's segments: per segment, its partitions, each a list of (hyperarc steps, code)."""

    partitions: list[list[list[Step]]]


def _tilings(options: Sequence[tuple[int, int, tuple[Hyperarc, ...], int]], at: int, end: int) -> list[list[Step]]:
    """Every way to cross hops [at, end) by consecutive options (first hop, hops, hyperarcs,
    code)."""
    if at == end:
        return [[]]
    return [[(arcs, k), *rest]
            for first, length, arcs, k in options if first == at and at + length <= end
            for rest in _tilings(options, at + length, end)]


def _segments(inst: CodingInstance, s: int) -> _Flow:
    """Cuts flow s's path where no code spans the cut, and lists each segment's tilings by
    uncoded hops and codes (code -1: uncoded)."""
    path = inst.paths[s]
    hops = len(path) - 1
    options: list[tuple[int, int, tuple[Hyperarc, ...], int]] = [
        (t, 1, ((path[t], frozenset([path[t + 1]])),), -1) for t in range(hops)
    ]
    for k, code in enumerate(inst.codes):
        for flow, first in zip(code.flows, code.first_hop):
            if flow == s:
                options.append((first, code.hops, code.hyperarcs, k))
    joined = [False] * hops  # joined[t]: hops t and t + 1 are in one segment
    for first, length, _, _ in options:
        for t in range(first, first + length - 1):
            joined[t] = True
    segments, start = [], 0
    for t in range(hops):
        if t == hops - 1 or not joined[t]:
            segments.append((start, t + 1))
            start = t + 1
    partitions = [_tilings(options, begin, end) for begin, end in segments]
    return _Flow(partitions)


@dataclass(frozen=True)
class IterationTrace:
    """The iteration's history: `rates[t, s]`, `total[t]`, `prices[t, h]` for the hyperarcs
    `hyperarcs` (names "node->next,hops"), and the rates averaged over the second half
    (`mean_rates`, `mean_total`)."""

    flow_ids: tuple[str, ...]
    hyperarcs: tuple[str, ...]
    rates: np.ndarray
    total: np.ndarray
    prices: np.ndarray
    mean_rates: np.ndarray
    mean_total: float
    mean_prices: np.ndarray


def iterate(
    spec: Mapping[str, Any] | CodingInstance,
    *,
    iterations: int = 5000,
    c: float = 1.0,
    c_t: float = 0.01,
    refresh: int = 20,
    x_cap: float = 10.0,
) -> IterationTrace:
    """Runs the distributed algorithm of the module header on `spec` for `iterations`."""
    for name, value in (("c", c), ("c_t", c_t), ("x_cap", x_cap)):
        if not value > 0:
            raise ScenarioError(name, f"must be positive, got {value!r}")
    if iterations < 2 or refresh < 1:
        raise ScenarioError("iterations", "need at least 2 iterations and a refresh of at least 1")
    inst = spec if isinstance(spec, CodingInstance) else instance(spec)
    flows = [_segments(inst, s) for s in range(len(inst.paths))]
    arcs: list[Hyperarc] = sorted({arc for f in flows for seg in f.partitions for z in seg for steps, _ in z
                                   for arc in steps}, key=lambda h: (h[0], sorted(h[1])))
    index = {h: n for n, h in enumerate(arcs)}
    capacity = np.array([inst.hyperarc_capacity(h) for h in arcs])
    cliques = inst.cliques if inst.cliques is not None else (frozenset(arcs),)
    codes = inst.codes
    q = np.ones(len(arcs))
    beta = [[np.full(len(seg), 1.0 / len(seg)) for seg in f.partitions] for f in flows]
    nu = [[b.copy() for b in bs] for bs in beta]
    m = [np.full(len(code.flows), 1.0 / len(code.flows)) for code in codes]
    mu = [v.copy() for v in m]
    rates = np.zeros((iterations, len(flows)))
    prices = np.zeros((iterations, len(arcs)))
    for t in range(iterations):
        share = {(k, s): m[k][n] for k, code in enumerate(codes) for n, s in enumerate(code.flows)}

        def cost(s: int, partition: Sequence[Step]) -> float:
            return sum(q[index[h]] * (1.0 if k < 0 else share[(k, s)]) for steps, k in partition for h in steps)

        x = np.zeros(len(flows))
        alpha: dict[tuple[int, int], float] = {}  # (code, flow) -> the flow's share in the code
        uncoded = np.zeros(len(arcs))
        for s, f in enumerate(flows):
            price = 0.0
            for z_list, b, centre in zip(f.partitions, beta[s], nu[s]):
                costs = np.array([cost(s, z) for z in z_list])
                b[:] = _simplex(centre - costs / (2 * c))
                price += float(b @ costs)
            x[s] = min(1.0 / price, x_cap) if price > 0 else x_cap
            for z_list, b in zip(f.partitions, beta[s]):
                for z, weight in zip(z_list, b):
                    for steps, k in z:
                        if k < 0:
                            uncoded[index[steps[0]]] += weight * x[s]
                        else:
                            alpha[(k, s)] = alpha.get((k, s), 0.0) + weight
        load = uncoded.copy()
        for k, code in enumerate(codes):
            sent = np.array([alpha.get((k, s), 0.0) * x[s] for s in code.flows])
            m[k] = _simplex(mu[k] + sent / (2 * c))
            for h in code.hyperarcs:
                load[index[h]] += float(sent.max())
        tau = _schedule(q * capacity, [[index[h] for h in clique if h in index] for clique in cliques], inst.gamma)
        q = np.maximum(q + c_t * (load - capacity * tau), 0.0)
        if (t + 1) % refresh == 0:
            mu = [v.copy() for v in m]
            nu = [[b.copy() for b in bs] for bs in beta]
        rates[t], prices[t] = x, q
    half = iterations // 2
    mean_rates = rates[half:].mean(axis=0)
    return IterationTrace(
        flow_ids=inst.flow_ids, hyperarcs=tuple(f"{h[0]}->{','.join(sorted(h[1]))}" for h in arcs),
        rates=rates, total=rates.sum(axis=1), prices=prices, mean_rates=mean_rates,
        mean_total=float(mean_rates.sum()), mean_prices=prices[half:].mean(axis=0),
    )


def _schedule(weights: np.ndarray, cliques: Sequence[Sequence[int]], gamma: float) -> np.ndarray:
    """tau maximising weights @ tau with each clique's sum at most gamma: with one clique all of
    gamma to the largest weights (shared among ties); otherwise an LP."""
    n = len(weights)
    if len(cliques) == 1 and sorted(cliques[0]) == list(range(n)):
        best = np.isclose(weights, weights.max(), rtol=1e-12, atol=0.0)
        return gamma * best / best.sum()
    rows = np.zeros((len(cliques), n))
    for r, clique in enumerate(cliques):
        rows[r, list(clique)] = 1.0
    result = linprog(-weights, A_ub=rows, b_ub=np.full(len(cliques), gamma), bounds=[(0, None)] * n, method="highs")
    if result.status != 0:
        raise SimulationError(f"the schedule's LP failed: {result.message}")
    return np.asarray(result.x)
