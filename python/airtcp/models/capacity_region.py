"""The stability region of paper 000 §2 and the utility optimum of Theorem 2, by linear programming,
for small slotted networks (the `SlottedConfig` dicts of `airtcp.models.slotted`).

Model (paper 000 §2). Links `l = (i, j)` carry `R_l` packets in a slot when their channel is ON,
which happens with probability `p_l` independently over links and i.i.d. over slots; links that
conflict may not be active together. In channel state `c ∈ {ON, OFF}^L` (probability
`π(c) = Π_l p_l^{c_l} (1 - p_l)^{1 - c_l}`) the feasible rate vectors `Γ_c` are `R ∘ 1_m` for the
independent sets `m` of ON links. A stationary policy picks, in state `c`, schedule `m` with
probability `α_{c,m}`; the long-run link rates it offers are

    μ_l = Σ_c π(c) Σ_{m ∋ l} α_{c,m} R_l,     Σ_m α_{c,m} <= 1,  α >= 0,              (R)

i.e. `μ ∈ Σ_c π(c) conv(Γ_c)`, the link-rate region. Only maximal sets `m` are needed (a subset
offers less everywhere): the maximal independent sets of the whole conflict graph, cut down to the
ON links of `c` and deduplicated. The stability region `Λ` of §2 is the set of arrival vectors
`λ` for which per-flow link rates `f_l^s >= 0` exist with

    Σ_s f_l^s <= μ_l                                           (capacity, per link)
    Σ_{l out of i} f_l^s - Σ_{l into i} f_l^s = λ_s 1[i = o(s)]   (conservation, per flow s and
                                                                    node i != dst(s))

(the fluid version of eq. (1): a node sends on what it receives plus, at the source, what
arrives). `f_l^s = 0` on links leaving `dst(s)` (the simulator does not route a flow out of its
destination) and outside the flow's `allowed_links`. All of this is linear in `(α, f, λ)`.

- `max_scaling(config, direction)`: `max θ` such that `θ d ∈ Λ` — the edge of `Λ` along `d`
  (Theorem 1: backpressure is stable for `λ = ρ θ* d` with `ρ < 1`). One `scipy.optimize.linprog`.
- `num_optimum(config)`: `max Σ_s g_s(x_s)` over `x ∈ Λ` with `Σ_{s: o(s)=i} x_s <= R^max` — the
  point eq. (5)'s admitted rates approach as `M` grows (Theorem 2). The concave `g_s` are replaced
  by the minimum of their tangents (`t_s <= g_s(a) + g_s'(a)(x_s - a)`), which turns the problem
  into an LP; Kelley's cutting-plane method adds a tangent at each solution until the LP's value (an
  upper bound: the tangents lie above `g`) and `Σ g_s(x_s)` at its feasible solution (a lower
  bound) are within `tol`. The gap is a certificate, the LP solver (HiGHS) is robust to the
  degenerate polytopes these networks give, and any concave `g` of the core (log, α-fair,
  TCP-Reno's) works the same way.

Size: `2^u` channel states for `u` links with `0 < p_l < 1` (links always ON or always OFF add no
states); `max_states` (4096 by default) refuses anything larger rather than run for minutes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from airtcp.errors import ScenarioError, SimulationError
from airtcp.models._lp import sparse_rows, widen
from airtcp.models.slotted import conflict_pairs

__all__ = [
    "maximal_independent_sets",
    "RegionLp",
    "region_lp",
    "Scaling",
    "max_scaling",
    "NumOptimum",
    "num_optimum",
    "utility_value",
]

Config = Mapping[str, Any]

# HiGHS's feasibility tolerances, tightened from 1e-7 so that the cutting-plane loop of
# `num_optimum` can close its gap below 1e-8 (at the default it stalls near 3e-9 relative).
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


# Schedules (maximal independent sets) an LP may hold: k conflicting pairs alone have 2^k of
# them, so a large, sparse conflict graph is refused rather than enumerated for hours.
MAX_SCHEDULES = 200_000


def maximal_independent_sets(num_links: int, pairs: Sequence[tuple[int, int]], *,
                             limit: int = MAX_SCHEDULES) -> list[frozenset[int]]:
    """Every maximal independent set of the conflict graph (Bron–Kerbosch with pivoting on the
    complement graph, whose maximal cliques they are), sorted for a reproducible LP. Raises
    `ScenarioError` as soon as there are more than `limit`."""
    compatible = [set(range(num_links)) - {a} for a in range(num_links)]
    for a, b in pairs:
        compatible[a].discard(b)
        compatible[b].discard(a)
    found: list[frozenset[int]] = []

    def expand(chosen: set[int], candidates: set[int], excluded: set[int]) -> None:
        if not candidates and not excluded:
            found.append(frozenset(chosen))
            if len(found) > limit:
                raise ScenarioError("conflicts", f"more than {limit:,} maximal independent sets (schedules): "
                                                 "too large a network for the region's LP")
            return
        pivot = max(candidates | excluded, key=lambda v: len(compatible[v] & candidates))
        for v in sorted(candidates - compatible[pivot]):
            expand(chosen | {v}, candidates & compatible[v], excluded & compatible[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    if num_links:
        expand(set(), set(range(num_links)), set())
    return sorted(found, key=sorted)


def _channel_states(p_on: Sequence[float], max_states: int) -> list[tuple[float, frozenset[int]]]:
    """`(π(c), ON links of c)` for every channel state of positive probability."""
    uncertain = [l for l, p in enumerate(p_on) if 0.0 < p < 1.0]
    always = frozenset(l for l, p in enumerate(p_on) if p >= 1.0)
    if 2 ** len(uncertain) > max_states:
        raise ScenarioError(
            "links", f"{len(uncertain)} links with 0 < p_on < 1 give 2^{len(uncertain)} channel states "
            f"(more than max_states = {max_states})")
    states = []
    for bits in product((True, False), repeat=len(uncertain)):
        prob = math.prod(p_on[l] if on else 1.0 - p_on[l] for l, on in zip(uncertain, bits))
        states.append((prob, always | {l for l, on in zip(uncertain, bits) if on}))
    return states


def _schedules(mis: Sequence[frozenset[int]], on: frozenset[int]) -> list[frozenset[int]]:
    """The maximal independent sets among the ON links: each maximal set of the whole graph cut
    down to `on`, deduplicated, without the empty set and the sets contained in another."""
    cut = {m & on for m in mis} - {frozenset()}
    return sorted((m for m in cut if not any(m < other for other in cut)), key=sorted)


@dataclass(frozen=True)
class RegionLp:
    """The linear constraints (R), capacity and conservation of the module header for one config.

    Columns: `α` (one per state and schedule), then `f_l^s` at `f_index(l, s)`, then `x_s` at
    `x_index(s)`. Rows: `a_ub @ v <= b_ub` (per-state budgets, per-link capacities) and
    `a_eq @ v = b_eq` (conservation); `bounds` per column. Solvers append their own columns."""

    num_links: int
    num_flows: int
    num_alpha: int
    alpha_rates: sparse.csr_array  # (links x alpha): π(c) R_l 1[l ∈ m], so μ = alpha_rates @ α
    a_ub: sparse.csr_array
    b_ub: np.ndarray
    a_eq: sparse.csr_array
    b_eq: np.ndarray
    bounds: list[tuple[float, float | None]]
    sources: list[int]

    @property
    def num_columns(self) -> int:
        """Columns of the base LP."""
        return self.num_alpha + self.num_links * self.num_flows + self.num_flows

    def f_index(self, link: int, flow: int) -> int:
        """Column of `f_link^flow`."""
        return self.num_alpha + link * self.num_flows + flow

    def x_index(self, flow: int) -> int:
        """Column of `x_flow` (the flow's end-to-end rate)."""
        return self.num_alpha + self.num_links * self.num_flows + flow

    def link_rates(self, solution: np.ndarray) -> np.ndarray:
        """`μ_l` offered by the schedule shares of a solution."""
        return np.asarray(self.alpha_rates @ solution[: self.num_alpha])

    def flow_on_links(self, solution: np.ndarray) -> np.ndarray:
        """`f_l^s` of a solution, as a `links x flows` array."""
        start = self.num_alpha
        return solution[start : start + self.num_links * self.num_flows].reshape(self.num_links, self.num_flows)


def region_lp(config: Config, *, max_states: int = 4096) -> RegionLp:
    """The region's LP skeleton for a `SlottedConfig` dict (links, conflicts, flows and their
    `allowed_links`; arrival rates and utilities are the solvers' business)."""
    links, flows = config["links"], config["flows"]
    num_links, num_flows = len(links), len(flows)
    if config.get("link_groups") is not None:
        return _grouped_region_lp(config)
    mis = maximal_independent_sets(num_links, conflict_pairs(config))
    states = _channel_states([float(link["p_on"]) for link in links], max_states)
    rate_entries: list[tuple[int, int, float]] = []  # (link, α column, π(c) R_l)
    budget_rows: list[list[int]] = []  # the α columns of each state
    num_alpha = 0
    for prob, on in states:
        columns = []
        for m in _schedules(mis, on):
            columns.append(num_alpha)
            rate_entries.extend((l, num_alpha, prob * float(links[l]["capacity"])) for l in sorted(m))
            num_alpha += 1
        budget_rows.append(columns)
    return _assemble(config, num_links, num_flows, num_alpha, rate_entries, budget_rows)


def _grouped_region_lp(config: Config) -> RegionLp:
    """`region_lp` for links in independent groups (`config["link_groups"]`, one group id per
    link: radios on different channels): no link conflicts with a link of another group, so each
    group schedules on its own, `Σ_m α_{g,m} <= 1` per group over the group's own maximal sets.
    The region is the product of the groups' regions; its LP has the sum of their schedule
    counts, not their product (two channels of 10^4 sets each would otherwise give 10^8).
    Links must be always ON (channel states would couple the groups' schedules)."""
    links, flows = config["links"], config["flows"]
    groups = list(config["link_groups"])
    if len(groups) != len(links):
        raise ScenarioError("link_groups", f"{len(groups)} groups for {len(links)} links")
    if any(float(link["p_on"]) != 1.0 for link in links):
        raise ScenarioError("link_groups", "grouped links must be always ON (p_on = 1)")
    pairs = conflict_pairs(config)
    if any(groups[a] != groups[b] for a, b in pairs):
        raise ScenarioError("link_groups", "a conflict joins links of two groups")
    rate_entries: list[tuple[int, int, float]] = []
    budget_rows: list[list[int]] = []
    num_alpha = 0
    for group in sorted(set(groups), key=repr):
        members = [l for l, g in enumerate(groups) if g == group]
        local = {l: i for i, l in enumerate(members)}
        local_pairs = [(local[a], local[b]) for a, b in pairs if a in local]
        columns = []
        for m in maximal_independent_sets(len(members), local_pairs):
            columns.append(num_alpha)
            rate_entries.extend((members[i], num_alpha, float(links[members[i]]["capacity"])) for i in sorted(m))
            num_alpha += 1
        budget_rows.append(columns)
    return _assemble(config, len(links), len(flows), num_alpha, rate_entries, budget_rows)


def _assemble(
    config: Config,
    num_links: int,
    num_flows: int,
    num_alpha: int,
    rate_entries: list[tuple[int, int, float]],
    budget_rows: list[list[int]],
) -> RegionLp:
    """Puts the rows of (R), capacity and conservation and the column bounds together."""
    n = num_alpha + num_links * num_flows + num_flows
    alpha_rates = sparse_rows(rate_entries, (num_links, num_alpha))
    a_ub = sparse_rows(_inequality_entries(num_links, num_flows, num_alpha, rate_entries, budget_rows),
                   (len(budget_rows) + num_links, n))
    b_ub = np.concatenate([np.ones(len(budget_rows)), np.zeros(num_links)])
    eq_entries, eq_rows = _conservation_entries(config, num_alpha)
    bounds: list[tuple[float, float | None]] = [(0.0, None)] * n
    for s, flow in enumerate(config["flows"]):
        allowed = flow.get("allowed_links")
        for l, link in enumerate(config["links"]):
            if link["from"] == flow["dst"] or (allowed is not None and l not in allowed):
                bounds[num_alpha + l * num_flows + s] = (0.0, 0.0)
    return RegionLp(num_links, num_flows, num_alpha, alpha_rates, a_ub, b_ub,
                    sparse_rows(eq_entries, (eq_rows, n)), np.zeros(eq_rows), bounds,
                    [int(flow["src"]) for flow in config["flows"]])


def _inequality_entries(
    num_links: int,
    num_flows: int,
    num_alpha: int,
    rate_entries: Sequence[tuple[int, int, float]],
    budget_rows: Sequence[Sequence[int]],
) -> list[tuple[int, int, float]]:
    """Rows `Σ_m α_{c,m} <= 1` per state, then `Σ_s f_l^s - μ_l <= 0` per link."""
    entries = [(row, column, 1.0) for row, columns in enumerate(budget_rows) for column in columns]
    first = len(budget_rows)
    entries += [(first + l, column, -value) for l, column, value in rate_entries]
    entries += [(first + l, num_alpha + l * num_flows + s, 1.0) for l in range(num_links) for s in range(num_flows)]
    return entries


def _conservation_entries(config: Config, num_alpha: int) -> tuple[list[tuple[int, int, float]], int]:
    """Rows `out - in - x_s 1[i = o(s)] = 0` per flow `s` and node `i != dst(s)`; with the count."""
    links, flows = config["links"], config["flows"]
    num_links, num_flows = len(links), len(flows)
    entries: list[tuple[int, int, float]] = []
    row = 0
    for s, flow in enumerate(flows):
        for i in range(int(config["num_nodes"])):
            if i == flow["dst"]:
                continue
            for l, link in enumerate(links):
                sign = (link["from"] == i) - (link["to"] == i)
                if sign:
                    entries.append((row, num_alpha + l * num_flows + s, float(sign)))
            if i == flow["src"]:
                entries.append((row, num_alpha + num_links * num_flows + s, -1.0))
            row += 1
    return entries, row


def _solve(
    lp: RegionLp,
    objective: np.ndarray,
    extra_ub: Sequence[tuple[int, int, float]] = (),
    extra_ub_rhs: Sequence[float] = (),
    extra_eq: Sequence[tuple[int, int, float]] = (),
    extra_eq_rhs: Sequence[float] = (),
    extra_bounds: Sequence[tuple[float | None, float | None]] = (),
) -> Any:
    """`min objective @ v` over the region's LP with extra rows and columns (row indices of the
    extras count from 0, column indices are absolute). Raises `SimulationError` if HiGHS fails."""
    n = lp.num_columns + len(extra_bounds)
    a_ub = sparse.vstack([widen(lp.a_ub, n), sparse_rows(extra_ub, (len(extra_ub_rhs), n))]).tocsr()
    a_eq = sparse.vstack([widen(lp.a_eq, n), sparse_rows(extra_eq, (len(extra_eq_rhs), n))]).tocsr()
    result = linprog(objective, A_ub=a_ub, b_ub=np.concatenate([lp.b_ub, extra_ub_rhs]),
                     A_eq=a_eq, b_eq=np.concatenate([lp.b_eq, extra_eq_rhs]),
                     bounds=[*lp.bounds, *extra_bounds], method="highs", options=_HIGHS)
    if result.status != 0:
        raise SimulationError(f"the region's LP failed: {result.message}")
    return result


@dataclass(frozen=True)
class Scaling:
    """`theta`: the largest `θ` with `θ d ∈ Λ` (`rates = θ d`); `link_rates` the `μ_l` and
    `flow_on_links` the `f_l^s` (links x flows) of one optimal solution."""

    theta: float
    rates: np.ndarray
    link_rates: np.ndarray
    flow_on_links: np.ndarray


def max_scaling(config: Config, direction: Sequence[float] | None = None, *, max_states: int = 4096) -> Scaling:
    """The edge of the stability region along `direction` (one non-negative weight per flow;
    default: the flows' own arrival rates, so `theta > 1` means the config's load is inside `Λ`
    and `1 / theta` is its load factor `ρ`)."""
    lp = region_lp(config, max_states=max_states)
    d = np.asarray(direction if direction is not None else _arrival_rates(config), dtype=float)
    if d.shape != (lp.num_flows,) or np.any(d < 0) or not np.any(d > 0):
        raise ScenarioError("direction", f"needs {lp.num_flows} non-negative weights, not all 0")
    theta = lp.num_columns  # the extra column
    objective = np.zeros(lp.num_columns + 1)
    objective[theta] = -1.0
    eq = [(s, lp.x_index(s), 1.0) for s in range(lp.num_flows)] + [(s, theta, -d[s]) for s in range(lp.num_flows)]
    result = _solve(lp, objective, extra_eq=eq, extra_eq_rhs=[0.0] * lp.num_flows, extra_bounds=[(0.0, None)])
    value = float(result.x[theta])
    return Scaling(value, value * d, lp.link_rates(result.x), lp.flow_on_links(result.x))


def _arrival_rates(config: Config) -> list[float]:
    """Each flow's `λ` (its Bernoulli or Poisson mean); controlled flows have none."""
    rates = []
    for s, flow in enumerate(config["flows"]):
        source = flow["source"]
        if source["kind"] not in ("bernoulli", "poisson"):
            raise ScenarioError(f"flows[{s}].source", "a controlled flow has no arrival rate; give a direction")
        rates.append(float(source["lambda"]))
    return rates


def utility_value(utility: Mapping[str, Any], x: float) -> tuple[float, float]:
    """`(g(x), g'(x))` for a core `Utility` dict (`log`, `alpha_fair`, `tcp_reno`), as
    `crates/airtcp/src/mac/conflict_graph/flow_control.rs` defines them."""
    kind = utility["kind"]
    if kind == "log" or (kind == "alpha_fair" and utility["alpha"] == 1.0):
        return (math.log(x) if x > 0 else -math.inf), (1.0 / x if x > 0 else math.inf)
    if kind == "alpha_fair":
        alpha = float(utility["alpha"])
        if x <= 0:
            return (0.0 if alpha < 1 else -math.inf), math.inf
        return x ** (1.0 - alpha) / (1.0 - alpha), x ** (-alpha)
    if kind == "tcp_reno":
        scale = math.sqrt(float(utility["beta"])) * float(utility["rtt"])
        return math.atan(scale * x) / scale, 1.0 / (1.0 + (scale * x) ** 2)
    raise ScenarioError("utility.kind", f"unknown utility {kind!r}")


@dataclass(frozen=True)
class NumOptimum:
    """The utility optimum: `rates` `x*`, `utility` `Σ g_s(x*_s)` (a lower bound on the optimum,
    attained), `upper_bound` (the last LP's value; the optimum lies in between), `iterations` of
    the cutting-plane loop, and the `link_rates` / `flow_on_links` of the solution."""

    rates: np.ndarray
    utility: float
    upper_bound: float
    iterations: int
    link_rates: np.ndarray
    flow_on_links: np.ndarray

    @property
    def gap(self) -> float:
        """`upper_bound - utility` (>= 0): how far from optimal `rates` can be, in utility."""
        return self.upper_bound - self.utility


def num_optimum(
    config: Config,
    utilities: Sequence[Mapping[str, Any]] | None = None,
    *,
    r_max: float | None = None,
    tol: float = 1e-9,
    max_iterations: int = 200,
    max_states: int = 4096,
) -> NumOptimum:
    """`max Σ_s g_s(x_s)` over `x ∈ Λ` with `Σ_{s: o(s)=i} x_s <= R^max` (eq. (5)'s cap), by the
    cutting-plane LP of the module header, to a certified gap `tol` (relative to `max(1, |Σ g|)`).

    `utilities` (core `Utility` dicts) default to the `Controlled` flows' own; `r_max` to the
    config's `flow_control.r_max` (no cap without one)."""
    lp = region_lp(config, max_states=max_states)
    utilities = list(utilities) if utilities is not None else _utilities(config)
    if len(utilities) != lp.num_flows:
        raise ScenarioError("utilities", f"{len(utilities)} utilities for {lp.num_flows} flows")
    if r_max is None and config.get("flow_control"):
        r_max = float(config["flow_control"]["r_max"])
    ceiling = _rate_ceilings(config, r_max)
    cuts: list[list[float]] = [list(np.geomspace(c * 1e-6, c, 60)) for c in ceiling]
    for iteration in range(1, max_iterations + 1):
        result = _solve_cuts(lp, utilities, cuts, r_max)
        x = np.array([result.x[lp.x_index(s)] for s in range(lp.num_flows)])
        value = sum(utility_value(u, xs)[0] for u, xs in zip(utilities, x))
        upper = -float(result.fun)
        if upper - value <= tol * max(1.0, abs(value)):
            break
        for s, xs in enumerate(x):
            cuts[s].append(max(float(xs), ceiling[s] * 1e-9))
    return NumOptimum(x, value, upper, iteration, lp.link_rates(result.x), lp.flow_on_links(result.x))


def _utilities(config: Config) -> list[Mapping[str, Any]]:
    """The `Controlled` flows' utilities; an exogenous flow has none."""
    found = []
    for s, flow in enumerate(config["flows"]):
        if flow["source"]["kind"] != "controlled":
            raise ScenarioError(f"flows[{s}].source", "not a controlled flow; pass its utility")
        found.append(flow["source"]["utility"])
    return found


def _rate_ceilings(config: Config, r_max: float | None) -> list[float]:
    """Per flow, an upper bound on its rate (what its source's links can carry, and `R^max`), used
    to place the first tangents; 0 means the flow cannot reach its destination at all."""
    links = config["links"]
    ceilings = []
    for s, flow in enumerate(config["flows"]):
        if not _reachable(config, s):
            raise ScenarioError(f"flows[{s}]", "cannot reach its destination over links that are ever ON")
        out = sum(float(l["capacity"]) * float(l["p_on"]) for l in links if l["from"] == flow["src"])
        ceilings.append(min(out, r_max) if r_max is not None else out)
    return ceilings


def _reachable(config: Config, s: int) -> bool:
    """Whether flow `s`'s destination can be reached from its source over usable allowed links."""
    flow = config["flows"][s]
    allowed = flow.get("allowed_links")
    usable = [(int(l["from"]), int(l["to"])) for k, l in enumerate(config["links"])
              if l["capacity"] > 0 and l["p_on"] > 0 and (allowed is None or k in allowed)]
    seen, frontier = {int(flow["src"])}, [int(flow["src"])]
    while frontier:
        i = frontier.pop()
        for a, b in usable:
            if a == i and b not in seen and a != flow["dst"]:
                seen.add(b)
                frontier.append(b)
    return int(flow["dst"]) in seen


def _solve_cuts(
    lp: RegionLp,
    utilities: Sequence[Mapping[str, Any]],
    cuts: Sequence[Sequence[float]],
    r_max: float | None,
) -> Any:
    """The LP `max Σ_s t_s` with `t_s <= g_s(a) + g_s'(a)(x_s - a)` for every cut point `a` of
    flow `s`, over the region (and the per-node cap `R^max`)."""
    t = [lp.num_columns + s for s in range(lp.num_flows)]
    objective = np.zeros(lp.num_columns + lp.num_flows)
    objective[t] = -1.0
    rows: list[tuple[int, int, float]] = []
    rhs: list[float] = []
    for s, points in enumerate(cuts):
        for a in points:
            g, slope = utility_value(utilities[s], a)
            rows += [(len(rhs), t[s], 1.0), (len(rhs), lp.x_index(s), -slope)]
            rhs.append(g - slope * a)
    if r_max is not None:
        for node in sorted(set(lp.sources)):
            rows += [(len(rhs), lp.x_index(s), 1.0) for s in range(lp.num_flows) if lp.sources[s] == node]
            rhs.append(r_max)
    return _solve(lp, objective, extra_ub=rows, extra_ub_rhs=rhs, extra_bounds=[(None, None)] * lp.num_flows)
