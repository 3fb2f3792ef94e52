"""The weighted proportionally-fair NUM of paper 002 eq. (1) and the problem (19) behind the
mapping F of §IV-B, solved exactly (up to a certified duality gap) for a wired network ending in
a wireless region.

Problems (paper 002 §II, §IV-B). Flows `s` with weights `w_s` (packets) and propagation delays
`d_s >= 0` (seconds) cross wired links `l ∈ L_f` of capacity `c_l` and end at a wireless link
(a user `u_s` of a downlink whose region is `R̄`, `airtcp.models.downlink_region`):

    max_{x >= 0, r} Σ_s (w_s log x_s - d_s x_s)
    s.t. (C1) Σ_{s ∈ S(l)} x_s <= c_l (l ∈ L_f),  (C2) Σ_{s: u_s = u} x_s <= r_u,  (C3) r ∈ R̄.   (19)

With `d = 0` and `w = p` it is eq. (1), the NUM whose optimum QUIC-TCP + eq. (10) should reach.
Rates are in packets per second, delays in seconds, so multipliers `q_l` are queueing delays
(seconds) and `q·r`, `w`, `τ` are in packets.

Dual. With `q^s = Σ_{l ∈ L(s)} q_l` (the route's queueing delay) and `h(q_w) = max_{r ∈ R̄}
q_w·r` the region's support function, the Lagrangian dual of (19) is

    g(q) = Σ_s [w_s log(w_s / (d_s + q^s)) - w_s] + Σ_{l ∈ L_f} c_l q_l + h(q_w),   q >= 0,

minimised at the queueing delays of §III-A; the primal solution is `x_s = w_s / (d_s + q^s)`,
eq. (11), and `r` a maximiser of `q_w·r` (eq. (17)). Weak duality: any `q >= 0` gives an upper
bound `g(q)` on the optimum, any feasible `x` a lower bound.

Method: Newton on the smoothed dual (spec 002 §4 item 3). `h` is piecewise linear for a TDMA
region; `h_τ` (`Region.smoothed`: a log-sum-exp per channel state, `h <= h_τ <= h + τ log U`,
`τ` in packets) is smooth and convex and its gradient is a point of `R̄` (a randomised
schedule), so `g_τ = g - h + h_τ` is minimised by a projected Newton method with an Armijo line
search on the bound `q >= 0` (the links at 0 with a positive gradient are held there), stopping
when every free link's gradient — the mismatch between its capacity (`c_l`, or `r_u` from
`∇h_τ`) and its load — is below `rtol` times the load. A cold start goes down a ladder of
`τ` (each rung warm-starts the next); a warm start (`q0`, as the fluid iteration gives) takes
one rung. Newton's step is damped (Levenberg-Marquardt) when it fails, as where the Hessian is
singular along a direction in which `g_τ` is linear (box links behind a wired link carrying the
same flows). The smoothing moves the optimum by `O(τ)`: at the paper's instances (`τ = 1e-3`
packets) rates move by 2e-6 to 3e-6 relative, half that at `τ = 5e-4` (two users on a kink of the
polytope get slightly different rates where the exact optimum has equal ones).

Certificate (`certify`): `x` is shrunk, flow by flow, until every wired link carries at most
`c_l` and every user at most `r_u = ∇h_τ(q_w)` (a point of the region); `P = Σ w log x - d x` of
that feasible `x` is a lower bound and `g(q)` with the exact `h` an upper bound. `gap = g - P`;
`relative_gap = gap / Σ_s w_s`, which bounds the `w`-weighted mean of `log(x*_s / x_s)`
whatever the unit of the rates. `num_optimum` tightens `τ` until `relative_gap <= tol`.
The gap also bounds the rates themselves: at the optimum `w_s / x*_s = d_s + q^{s*}` and
`Σ_s q^{s*} x_s <= Σ_s q^{s*} x*_s` for every feasible `x` (`r*` maximises `q*·r`), so with
`t_s = x_s / x*_s`, `gap >= P(x*) - P(x) >= Σ_s w_s (t_s - 1 - log t_s)`, whence
`|t_s - 1| <= ε + sqrt(ε^2 + 2ε)`, `ε = gap / w_s` (`Certificate.rate_tolerance`). The gap is
second order in the rates: a gap of 1e-7 relative at `w = 200` certifies them to about 1e-3,
while the smoothing moves them by a few 1e-6.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from airtcp.errors import ScenarioError, SimulationError
from airtcp.models.downlink_region import (
    IEEE_802_16E,
    AmcTable,
    BoxRegion,
    Downlink,
    Region,
    SmoothRegion,
    liu2004,
)

__all__ = [
    "Network",
    "Instance",
    "FluidSolution",
    "solve",
    "sensitivity",
    "Certificate",
    "certify",
    "NumOptimum",
    "num_optimum",
    "SubgradientTrace",
    "subgradient_trace",
]


# eq=False: compared by identity (it holds NumPy arrays, which `==` cannot reduce to a bool).
@dataclass(frozen=True, eq=False)
class Network:
    """Links and routes: `wired_capacities` (pkt/s) of the wired links, the wireless `region`
    (one link per user; None for a wired network), and per flow its wired links
    (`flow_wired_links[s]`, indices into `wired_capacities`; empty for none) and the user it ends
    at (`flow_users[s]`, None for a flow that stays on the wired network). Every flow must cross
    at least one link. Link order in the multiplier vector `q`: the wired links, then the users."""

    flow_users: tuple[int | None, ...]
    region: Region | None = None
    wired_capacities: tuple[float, ...] = ()
    flow_wired_links: tuple[tuple[int, ...], ...] = ()
    _routing: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flows = len(self.flow_users)
        if flows == 0:
            raise ScenarioError("flows", "needs at least one flow")
        wired = self.flow_wired_links or tuple(() for _ in range(flows))
        if len(wired) != flows:
            raise ScenarioError("flow_wired_links", f"one tuple of links per flow ({flows})")
        object.__setattr__(self, "flow_wired_links", tuple(tuple(int(l) for l in links) for links in wired))
        if not all(c > 0 and math.isfinite(c) for c in self.wired_capacities):
            raise ScenarioError("wired_capacities", "must be positive")
        users = 0 if self.region is None else self.region.num_links
        routing = np.zeros((len(self.wired_capacities) + users, flows))
        for s, (links, user) in enumerate(zip(self.flow_wired_links, self.flow_users)):
            for l in links:
                if not 0 <= l < len(self.wired_capacities):
                    raise ScenarioError(f"flows[{s}].wired", f"no wired link {l}")
                routing[l, s] = 1.0
            if user is not None:
                if not 0 <= user < users:
                    raise ScenarioError(f"flows[{s}].user", f"no user {user} in the region")
                routing[len(self.wired_capacities) + user, s] = 1.0
            if not routing[:, s].any():
                raise ScenarioError(f"flows[{s}]", "crosses no link")
        object.__setattr__(self, "_routing", routing)

    @classmethod
    def wireless_only(cls, region: Region) -> Network:
        """One flow per user, no wired link (flow `u` ends at user `u`)."""
        return cls(flow_users=tuple(range(region.num_links)), region=region)

    @property
    def num_flows(self) -> int:
        """S."""
        return len(self.flow_users)

    @property
    def num_wired(self) -> int:
        """Wired links."""
        return len(self.wired_capacities)

    @property
    def num_links(self) -> int:
        """Wired links plus users: the length of `q`."""
        return self._routing.shape[0]

    @property
    def routing(self) -> np.ndarray:
        """The routing matrix `A` of eq. (20), links x flows (wired rows first)."""
        return self._routing.copy()


# eq=False: compared by identity (it holds NumPy arrays, which `==` cannot reduce to a bool).
@dataclass(frozen=True, eq=False)
class Instance:
    """A network with its flows' propagation delays `d_s` (s) and weights `p_s` (packets).

    `Instance.from_dict` reads the plain-data form (all keys but `flows` optional):

        {"downlink": {"mean_snr_db": [11, 17, 12, 15],
                      "amc": "liu2004" | "ieee802_16e" | {"kind": "liu2004", "count": 5, "target_per": 0.01}
                             | {"kind": "custom", "modes": [{"min_snr_db": 5, "efficiency": 1}, ...]},
                      "bandwidth_hz": 5e6, "slot_s": 0.01, "rate_scale": 1, "packet_bytes": 200},
         # or "region": {"kind": "box" | "smooth", "capacities": [...]}
         "wired": [{"capacity": 3125}],                                  # pkt/s
         "flows": [{"user": 0, "wired": [0], "delay_s": 0.010, "weight": 200}, ...]}

    A flow's `user` defaults to None (wired only), `wired` to `[]`, `delay_s` to 0, `weight` to 1.
    """

    network: Network
    delays: np.ndarray
    weights: np.ndarray

    def __post_init__(self) -> None:
        d = np.asarray(self.delays, dtype=float)
        p = np.asarray(self.weights, dtype=float)
        n = self.network.num_flows
        if d.shape != (n,) or np.any(d < 0) or not np.all(np.isfinite(d)):
            raise ScenarioError("delays", f"needs {n} finite delays >= 0")
        if p.shape != (n,) or np.any(p <= 0) or not np.all(np.isfinite(p)):
            raise ScenarioError("weights", f"needs {n} finite weights > 0")
        object.__setattr__(self, "delays", d)
        object.__setattr__(self, "weights", p)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Instance:
        """The instance of the plain-data form in the class docstring."""
        region: Region | None = None
        if "downlink" in spec:
            region = _downlink(spec["downlink"]).region()
        elif "region" in spec:
            kind = spec["region"].get("kind")
            caps = tuple(float(c) for c in spec["region"]["capacities"])
            if kind == "box":
                region = BoxRegion(caps)
            elif kind == "smooth":
                region = SmoothRegion(caps)
            else:
                raise ScenarioError("region.kind", f"unknown region {kind!r} (box, smooth)")
        flows = spec.get("flows") or []
        network = Network(
            flow_users=tuple(f.get("user") for f in flows),
            region=region,
            wired_capacities=tuple(float(l["capacity"]) for l in spec.get("wired", [])),
            flow_wired_links=tuple(tuple(f.get("wired", ())) for f in flows),
        )
        return cls(network, np.array([float(f.get("delay_s", 0.0)) for f in flows]),
                   np.array([float(f.get("weight", 1.0)) for f in flows]))


def _downlink(spec: Mapping[str, Any]) -> Downlink:
    amc_spec = spec.get("amc", "ieee802_16e")
    if isinstance(amc_spec, str):
        amc_spec = {"kind": amc_spec}
    kind = amc_spec.get("kind")
    amc: AmcTable
    if kind == "ieee802_16e":
        amc = IEEE_802_16E
    elif kind == "liu2004":
        amc = liu2004(int(amc_spec.get("count", 5)), float(amc_spec.get("target_per", 0.01)))
    elif kind == "custom":
        modes = amc_spec["modes"]
        amc = AmcTable(tuple(float(m["min_snr_db"]) for m in modes), tuple(float(m["efficiency"]) for m in modes))
    else:
        raise ScenarioError("downlink.amc.kind", f"unknown AMC table {kind!r} (ieee802_16e, liu2004, custom)")
    options = {k: float(spec[k]) for k in ("bandwidth_hz", "slot_s", "rate_scale", "packet_bytes") if k in spec}
    return Downlink(tuple(float(s) for s in spec["mean_snr_db"]), amc, **options)


@dataclass(frozen=True)
class FluidSolution:
    """A solution of (19) with the smoothed support function: `q` per link (s; wired links
    first), `flow_delay` `q^s` and `rtt` `d̄_s = d_s + q^s` per flow, `rates` `x_s = w_s / (d_s + q^s)`, `region_rates` `r`
    (a point of the region: the randomised schedule `∇h_τ(q_w)`), the `tau` used and the Newton
    `iterations` taken (over every rung of the `τ` ladder); `hessian` `∇²g_τ(q)` and `held` (the
    links held at `q_l = 0` by the bound) for `sensitivity`."""

    q: np.ndarray
    flow_delay: np.ndarray
    rtt: np.ndarray
    rates: np.ndarray
    region_rates: np.ndarray
    tau: float
    iterations: int
    hessian: np.ndarray
    held: np.ndarray


class _Dual:
    """The smoothed dual `g_τ` of one problem: value, gradient and Hessian in `q`."""

    def __init__(self, network: Network, w: np.ndarray, d: np.ndarray) -> None:
        self.network = network
        self.a = network._routing
        self.w = w
        self.d = d
        self.nf = network.num_wired
        self.c = np.asarray(network.wired_capacities, dtype=float)
        self.region = network.region

    def value(self, q: np.ndarray, tau: float) -> float:
        dbar = self.d + q @ self.a
        if np.any(dbar <= 0):
            return math.inf
        value = -float(self.w @ np.log(dbar)) + float(self.c @ q[: self.nf])
        if self.region is not None:
            value += self.region.smoothed(q[self.nf :], tau, hessian=False)[0]
        return value

    def full(self, q: np.ndarray, tau: float) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """`(g_τ, ∇g_τ, ∇²g_τ, x, r)` at `q`; None outside the domain `d + q^s > 0`."""
        dbar = self.d + q @ self.a
        if np.any(dbar <= 0):
            return None
        x = self.w / dbar
        value = -float(self.w @ np.log(dbar)) + float(self.c @ q[: self.nf])
        supply = np.empty(len(q))
        supply[: self.nf] = self.c
        hess = (self.a * (x / dbar)) @ self.a.T
        r = np.zeros(0)
        if self.region is not None:
            hv, r, hh = self.region.smoothed(q[self.nf :], tau)
            value += hv
            supply[self.nf :] = r
            hess[self.nf :, self.nf :] += hh
        return value, supply - self.a @ x, hess, x, r

    def exact(self, q: np.ndarray) -> float:
        """`g(q)` with the exact support function: an upper bound on (19)'s optimum."""
        dbar = self.d + q @ self.a
        value = float(self.w @ (np.log(self.w / dbar) - 1.0)) + float(self.c @ q[: self.nf])
        if self.region is not None:
            value += self.region.support(q[self.nf :])
        return value

    def start(self) -> np.ndarray:
        """A cold start: each link's queueing delay if it alone carried its flows' windows (a user
        with `1 / U` of the slots it can use)."""
        supply = np.empty(self.network.num_links)
        supply[: self.nf] = self.c
        if self.region is not None:
            u = self.region.num_links
            # Each user's rate with every slot it can use, shared among the users.
            supply[self.nf :] = [self.region.scheduled_rates(np.eye(u)[i])[i] / u for i in range(u)]
        load = self.a @ self.w
        if np.any((load > 0) & (supply <= 0)):
            bad = int(np.flatnonzero((load > 0) & (supply <= 0))[0]) - self.nf
            raise ScenarioError(f"flows (user {bad})", "a flow ends at a user who can never receive")
        return np.where(load > 0, load / np.where(supply > 0, supply, 1.0), 0.0)


# Residual (gradient over load) below which Newton may stop when it stalls at rounding level.
_STALL_RTOL = 1e-7
# Levenberg-Marquardt dampings (times the Hessian's diagonal) tried when Newton's step fails.
_DAMPINGS = (0.0, 1e-6, 1e-3, 1.0, 1e3)


_State = tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _newton(dual: _Dual, q: np.ndarray, tau: float, rtol: float, max_iterations: int) -> tuple[np.ndarray, int, bool, _State]:
    """Projected Newton on `g_τ` over `q >= 0` from `q`: `(q, iterations, converged, state)`,
    `state` the `_Dual.full` of the `q` returned."""
    state = dual.full(q, tau)
    if state is None:
        raise SimulationError("the starting point of Newton leaves the dual's domain")
    current = state
    f, grad, hess, x, _ = state
    t_last, best, stalled = 1.0, math.inf, 0
    for iteration in range(max_iterations):
        scale = np.maximum(dual.a @ x, 1e-300)
        held = (q <= 0) & (grad > 0)
        free = ~held
        residual = np.abs(grad) / scale
        worst = float(np.max(residual[free], initial=0.0))
        if worst <= rtol:
            return q, iteration, True, current
        # At small τ rounding (of q R / τ) puts a floor under the residual: stop once full
        # steps no longer shrink it, if it is small by then.
        if worst < 0.5 * best:
            best, stalled = worst, 0
        else:
            stalled += 1
            if stalled >= 3 and best <= _STALL_RTOL:
                return q, iteration, True, current
        if held.any():
            sub = hess[np.ix_(free, free)]
            rhs = grad[free]
        else:
            sub, rhs = hess, grad
        diagonal = np.abs(np.diag(sub))
        top = max(float(np.max(diagonal)), 1e-300)
        accepted = None
        # Newton's step, then (a Hessian singular along a direction where g_τ is linear, as with
        # a wired link and box links carrying the same flows) Levenberg-Marquardt steps.
        for damping in _DAMPINGS:
            regular = sub + np.diag(damping * np.maximum(diagonal, 1e-13 * top) + 1e-13 * top)
            step = np.zeros(len(q))
            try:
                step[free] = -np.linalg.solve(regular, rhs)
            except np.linalg.LinAlgError:
                step[free] = -np.linalg.lstsq(regular, rhs, rcond=None)[0]
            # First trial: twice the last accepted step length (Newton's full step once it is
            # accepted again), which saves trials while kinks of h_τ keep cutting the steps.
            t = min(1.0, 2.0 * t_last) if damping == 0.0 else 1.0
            while t >= (1e-14 if damping == _DAMPINGS[-1] else 1e-6):
                trial = np.maximum(q + t * step, 0.0)
                state = dual.full(trial, tau)
                if state is not None:
                    if state[0] <= f + 1e-4 * float(grad @ (trial - q)):
                        accepted = trial
                        break
                    if state[0] <= f + 1e-13 * abs(f):
                        # Rounding hides the decrease: accept if the gradient shrinks.
                        g2, x2 = state[1], state[3]
                        free2 = ~((trial <= 0) & (g2 > 0))
                        if float(np.max(np.abs(g2[free2]) / np.maximum(dual.a @ x2, 1e-300)[free2], initial=0.0)) < worst:
                            accepted = trial
                            break
                t *= 0.5
            if accepted is not None:
                break
        if accepted is None:
            return q, iteration, False, current
        trial = accepted
        q, t_last, current = trial, t, state
        f, grad, hess, x, _ = state
    return q, max_iterations, False, current


def _predict(dual: _Dual, q: np.ndarray, tau: float, next_tau: float) -> np.ndarray:
    """The tangent predictor from the solution at `tau` to the one at `next_tau`: `dq/dτ =
    -(∇²g_τ)^{-1} ∂_τ ∇g_τ` (the derivative in `τ` by a forward difference). The solution moves
    about linearly in `τ` (a tie between users is resolved at `q`-differences of order `τ`), so
    this halves the Newton steps of a rung."""
    state = dual.full(q, tau)
    ahead = dual.full(q, tau * (1.0 + 1e-3))
    if state is None or ahead is None:
        return q
    hess = state[2]
    hess = hess + np.diag(np.full(len(q), 1e-13 * max(float(np.max(np.abs(np.diag(hess)))), 1e-300)))
    try:
        slope = -np.linalg.solve(hess, (ahead[1] - state[1]) / (tau * 1e-3))
    except np.linalg.LinAlgError:
        return q
    return np.maximum(q + (next_tau - tau) * slope, 0.0)


def solve(
    network: Network,
    weights: Sequence[float],
    delays: Sequence[float] | None = None,
    *,
    tau: float = 1e-3,
    q0: Sequence[float] | None = None,
    rtol: float = 1e-10,
    max_iterations: int = 500,
) -> FluidSolution:
    """Problem (19) for windows (or weights) `weights` and propagation delays `delays` (default
    0, i.e. eq. (1)), by the smoothed-dual Newton method of the module header; `q0` warm-starts it
    at `tau` directly, otherwise a ladder of `τ` from `max(mean w / 10, tau)` down to `tau`, a
    decade per rung, each rung solved loosely (gradients within 1 % of the loads) and the next
    one started from the tangent predictor.
    Raises `SimulationError` if Newton does not converge."""
    w = np.asarray(weights, dtype=float)
    d = np.zeros(network.num_flows) if delays is None else np.asarray(delays, dtype=float)
    if w.shape != (network.num_flows,) or np.any(w <= 0) or not np.all(np.isfinite(w)):
        raise ScenarioError("weights", f"needs {network.num_flows} finite values > 0")
    if d.shape != (network.num_flows,) or np.any(d < 0):
        raise ScenarioError("delays", f"needs {network.num_flows} values >= 0")
    dual = _Dual(network, w, d)
    if q0 is not None:
        ladder = [tau]
        q = np.maximum(np.asarray(q0, dtype=float), 0.0)
        if np.any(d + q @ dual.a <= 0):
            q = dual.start()
    else:
        # A decade per rung from a tenth of the mean window (smooth at the scale of q R).
        top = max(float(np.mean(w)) / 10.0, tau)
        rungs = max(1, math.ceil(math.log10(top / tau)))
        ladder = list(np.geomspace(top, tau, rungs + 1)) if top > tau else [tau]
        q = dual.start()
    total = 0
    for rung, t in enumerate(ladder):
        last = rung == len(ladder) - 1
        q, iterations, converged, state = _newton(dual, q, t, rtol if last else max(rtol, 1e-2), max_iterations)
        total += iterations
        if last and not converged:
            raise SimulationError(f"Newton on the smoothed dual did not converge at tau = {t:g} ({iterations} iterations)")
        if not last:
            q = _predict(dual, q, t, ladder[rung + 1])
    _, grad, hess, x, r = state
    held = (q <= 0) & (grad > 0)
    flow_delay = q @ dual.a
    return FluidSolution(q, flow_delay, d + flow_delay, x, r, tau, total, hess, held)


def sensitivity(network: Network, solution: FluidSolution) -> tuple[np.ndarray, np.ndarray]:
    """`(∂x/∂w, ∂q^s/∂w)` (flows x flows) of the smoothed problem (19) at `solution`, by implicit
    differentiation of its optimality condition `∇g_τ(q; w) = 0` on the links not held at 0:
    `∂q/∂w = (∇²g_τ)^{-1} A diag(1 / d̄)`, `∂q^s/∂w = A^T ∂q/∂w`,
    `∂x/∂w = diag(1 / d̄) - diag(x / d̄) ∂q^s/∂w` (`d̄ = d + q^s`). Equal to eq. (25) of the paper
    where the region is a box; on a polytope the softmax's curvature ties `q` to the face."""
    a = network._routing
    x = solution.rates
    dbar = solution.rtt
    free = ~solution.held
    dq = np.zeros((len(solution.q), len(x)))
    sub = solution.hessian[np.ix_(free, free)]
    sub = sub + np.diag(np.full(int(free.sum()), 1e-13 * max(float(np.max(np.abs(np.diag(sub)), initial=0.0)), 1e-300)))
    dq[free] = np.linalg.solve(sub, a[free] / dbar[None, :])
    dqs = a.T @ dq
    return np.diag(1.0 / dbar) - (x / dbar)[:, None] * dqs, dqs


@dataclass(frozen=True)
class Certificate:
    """Bounds on (19)'s optimum: `lower` (`Σ w log x - d x` of the `feasible_rates`) and `upper`
    (the exact dual `g(q)`) of the problem with weights summing to `weight_sum`; `gap = upper -
    lower >= 0`, `relative_gap = gap / weight_sum`."""

    lower: float
    upper: float
    feasible_rates: np.ndarray

    @property
    def gap(self) -> float:
        """`upper - lower`."""
        return self.upper - self.lower

    @property
    def relative_gap(self) -> float:
        """The gap over `Σ_s w_s` (unit-free)."""
        return self.gap / self.weight_sum

    @property
    def rate_tolerance(self) -> float:
        """The largest `|x_s / x*_s - 1|` the gap allows (module header): `ε + sqrt(ε^2 + 2ε)`,
        `ε = gap / min_s w_s`."""
        eps = max(self.gap, 0.0) / self.min_weight
        return eps + math.sqrt(eps * eps + 2.0 * eps)

    weight_sum: float = 1.0
    min_weight: float = 1.0


def certify(network: Network, weights: Sequence[float], delays: Sequence[float] | None, solution: FluidSolution) -> Certificate:
    """The duality-gap certificate of the module header for `solution`."""
    w = np.asarray(weights, dtype=float)
    d = np.zeros(network.num_flows) if delays is None else np.asarray(delays, dtype=float)
    a = network._routing
    x = solution.rates
    supply = np.concatenate([np.asarray(network.wired_capacities, dtype=float), solution.region_rates])
    load = a @ x
    ratio = np.where(load > supply, supply / np.where(load > 0, load, 1.0), 1.0)
    shrink = np.array([float(np.min(ratio[a[:, s] > 0])) for s in range(network.num_flows)])
    feasible = x * shrink
    lower = float(w @ np.log(feasible) - d @ feasible)
    upper = _Dual(network, w, d).exact(solution.q)
    return Certificate(lower, upper, feasible, float(w.sum()), float(w.min()))


@dataclass(frozen=True)
class NumOptimum:
    """The optimum of eq. (1): `rates` `x*` (feasible), `prices` `q*` per link (s; wired first),
    `flow_delay` `q^{s*}`, `region_rates` `r*`, `utility` `Σ p log x*` (a lower bound, attained),
    `upper_bound` (the exact dual at `q*`), `relative_gap` (over `Σ p`), `rate_tolerance` (the
    rate error the gap allows, `Certificate.rate_tolerance`), `tau` of the last rung and Newton
    `iterations`."""

    rates: np.ndarray
    prices: np.ndarray
    flow_delay: np.ndarray
    region_rates: np.ndarray
    utility: float
    upper_bound: float
    relative_gap: float
    rate_tolerance: float
    tau: float
    iterations: int

    @property
    def gap(self) -> float:
        """`upper_bound - utility` (packets)."""
        return self.upper_bound - self.utility


def num_optimum(
    network: Network,
    weights: Sequence[float],
    *,
    tol: float = 1e-7,
    tau: float | None = None,
    max_rungs: int = 6,
) -> NumOptimum:
    """`max Σ_s p_s log x_s` over the network (eq. (1)), certified: solve at `tau` (packets;
    default `5e-6 × mean p`, i.e. 1e-3 at `p = 200`), then divide `tau` by 100 (warm-started)
    until the relative duality gap is at most `tol`. Raises `SimulationError` if `max_rungs`
    rungs do not get there (rounding floors the gap near 1e-8 relative)."""
    p = np.asarray(weights, dtype=float)
    solution = solve(network, p, tau=5e-6 * float(np.mean(p)) if tau is None else tau)
    cert = certify(network, p, None, solution)
    iterations, rungs = solution.iterations, 0
    while cert.relative_gap > tol and rungs < max_rungs:
        try:
            solution = solve(network, p, tau=solution.tau / 100.0, q0=solution.q)
        except SimulationError:
            break  # rounding stops Newton at this τ: report the gap reached
        cert = certify(network, p, None, solution)
        iterations, rungs = iterations + solution.iterations, rungs + 1
    if cert.relative_gap > tol:
        raise SimulationError(f"NUM optimum: relative gap {cert.relative_gap:.3g} above {tol:g} at tau = {solution.tau:g}")
    return NumOptimum(
        cert.feasible_rates, solution.q, solution.flow_delay, solution.region_rates,
        cert.lower, cert.upper, cert.relative_gap, cert.rate_tolerance, solution.tau, iterations,
    )


@dataclass(frozen=True)
class SubgradientTrace:
    """`prices` (iterations x links) of the dual sub-gradient iteration, the `rates` `x = p /
    q^s` at each, and their running averages `mean_rates` (the primal estimate)."""

    prices: np.ndarray
    rates: np.ndarray
    mean_rates: np.ndarray


def subgradient_trace(
    network: Network,
    weights: Sequence[float],
    *,
    step: float,
    iterations: int,
    q0: Sequence[float] | None = None,
) -> SubgradientTrace:
    """The "standard sub-gradient iteration" of §V-A (spec 002 §5.5): `q_l ← [q_l + α (load_l -
    supply_l)]^+` with `x_s = p_s / q^s`, wired supply `c_l` and wireless supply `r(q_w)` of
    eq. (17) (`Region.scheduled_rates`), step `α` (s per packet/s). For a figure; the optimum
    itself comes from `num_optimum`."""
    p = np.asarray(weights, dtype=float)
    dual = _Dual(network, p, np.zeros(network.num_flows))
    q = dual.start() if q0 is None else np.asarray(q0, dtype=float)
    a, nf, c = dual.a, dual.nf, dual.c
    prices = np.empty((iterations, len(q)))
    rates = np.empty((iterations, network.num_flows))
    for i in range(iterations):
        x = p / np.maximum(q @ a, 1e-12)
        supply = np.concatenate([c, network.region.scheduled_rates(q[nf:]) if network.region is not None else []])
        q = np.maximum(q + step * (a @ x - supply), 0.0)
        prices[i], rates[i] = q, x
    mean = np.cumsum(rates, axis=0) / np.arange(1, iterations + 1)[:, None]
    return SubgradientTrace(prices, rates, mean)
