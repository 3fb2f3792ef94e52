"""QUIC-TCP in paper 002's fluid model: the mapping F of §IV-B, the window iteration (9) as the
paper's Matlab simulation runs it (Fig. 4), its linear stability at the equilibrium, and the
Lyapunov function (26) of §IV along the continuous-time law (18).

Mapping F (§IV-B, eq. (19)). For windows `w` the network settles at rates `x` and queueing
delays `q` that solve (19) and its dual (`airtcp.models.num_optimum.solve`): `x_s (d_s + q^s) =
w_s` (11), complementary slackness on every link (12)-(15) and the region's rates chosen by the
queueing-delay MaxWeight scheduler (17). `FluidMap` evaluates it warm-started from the previous
call with a tangent predictor (`q ≈ q_prev + ∂q/∂w (w - w_prev)`), so a step of the iteration
usually costs one or two Newton steps.

Window iteration (eq. (9) with BaseRTT = `d_s` and AvgRTT = `d̄_s = d_s + q^s = w_s / x_s` exact,
no feedback delay, one update of every source per `interval`, 20 ms in §V-A):

    w_s ← w_s - κ (d_s / d̄_s) w_s^{1-2ρ} v_s,    v_s = w_s - (d_s / d̄_s) w_s - p_s = w_s - d_s x_s - p_s.

Its equilibrium `v = 0` is `w* = p + x* d` with `x*` the optimum of eq. (1) (Theorem 1).
`iterate` runs it; `convergence_time` is the first time after which every `x_s` stays within a
tolerance of `x*_s`.

Linear stability. At `w*` (`v = 0`) the map's Jacobian is `I - κ M`,
`M = diag((d_s / d̄_s) w_s^{1-2ρ}) (I - D ∂x/∂w)` (only `v`'s derivative survives), with `∂x/∂w`
from `airtcp.models.num_optimum.sensitivity`. The map is locally stable iff every eigenvalue
`μ` of `M` has `|1 - κ μ| < 1`, i.e. `κ < 2 Re μ / |μ|^2` for all of them (`linear_stability`:
the spectral radius at a given `κ` and the largest stable `κ`). On the TDMA polytope the
equilibrium sits on a face (two users tied, "on a kink"); the smoothed map is differentiable there
and its Jacobian is the face's.

Continuous time (eq. (18)) and the Lyapunov function (26): `dw_s/dt = -κ (d_s / d̄_s)
w_s^{1-2ρ} v_s`, `Y(w) = ½ Σ_s (v_s / w_s^ρ)^2`, which Theorems 2-3 show non-increasing for
`ρ ∈ (0, 1]` on box and smooth regions (and Claim 1 argues for polytopes). `euler_trajectory`
integrates (18) with explicit Euler steps `dt` and records `Y`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from airtcp.errors import ScenarioError
from airtcp.models.num_optimum import FluidSolution, Network, num_optimum, sensitivity, solve

__all__ = [
    "FluidMap",
    "window_update",
    "Trajectory",
    "iterate",
    "convergence_time",
    "equilibrium",
    "Stability",
    "linear_stability",
    "lyapunov",
    "euler_trajectory",
]


class FluidMap:
    """F: `w -> (x, q)` for one network and propagation delays `d_s` (s), with the smoothing
    `tau` (packets) of `num_optimum.solve`. Calls are warm-started from the previous one;
    `evaluations` and `newton_iterations` count the work done."""

    def __init__(self, network: Network, delays: Sequence[float], *, tau: float = 1e-3, rtol: float = 1e-10) -> None:
        d = np.asarray(delays, dtype=float)
        if d.shape != (network.num_flows,) or np.any(d < 0) or not np.all(np.isfinite(d)):
            raise ScenarioError("delays", f"needs {network.num_flows} finite delays >= 0")
        self.network = network
        self.delays = d
        self.tau = tau
        self.rtol = rtol
        self.evaluations = 0
        self.newton_iterations = 0
        self._last: tuple[np.ndarray, FluidSolution, np.ndarray] | None = None  # w, solution, ∂q/∂w

    def __call__(self, w: Sequence[float]) -> FluidSolution:
        """The solution of (19) at windows `w` (`rates` `x`, `flow_delay` `q^s`, `rtt` `d̄`, ...)."""
        w = np.asarray(w, dtype=float)
        q0 = None
        if self._last is not None:
            w_prev, prev, dq = self._last
            q0 = np.maximum(prev.q + dq @ (w - w_prev), 0.0)
        solution = solve(self.network, w, self.delays, tau=self.tau, q0=q0, rtol=self.rtol)
        self.evaluations += 1
        self.newton_iterations += solution.iterations
        # The predictor's slope is refreshed whenever it was not good enough on its own.
        dq = self._dq(solution) if self._last is None or solution.iterations > 0 else self._last[2]
        self._last = (w, solution, dq)
        return solution

    def _dq(self, solution: FluidSolution) -> np.ndarray:
        """`∂q/∂w` (links x flows) at `solution`, for the next call's predictor."""
        a = self.network.routing
        free = ~solution.held
        dq = np.zeros((len(solution.q), self.network.num_flows))
        sub = solution.hessian[np.ix_(free, free)]
        if sub.size:
            sub = sub + np.diag(np.full(len(sub), 1e-13 * max(float(np.max(np.abs(np.diag(sub)))), 1e-300)))
            try:
                dq[free] = np.linalg.solve(sub, a[free] / solution.rtt[None, :])
            except np.linalg.LinAlgError:
                pass
        return dq

    def jacobian(self, w: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
        """`(∂x/∂w, ∂q^s/∂w)` at `w` (`num_optimum.sensitivity`)."""
        return sensitivity(self.network, self(w))


def window_update(
    w: np.ndarray, x: np.ndarray, delays: np.ndarray, weights: np.ndarray, kappa: float, rho: float
) -> np.ndarray:
    """One step of eq. (9) for every source, with BaseRTT/AvgRTT = `d_s / d̄_s = d_s x_s / w_s`."""
    ratio = delays * x / w
    v = w - delays * x - weights
    return w - kappa * ratio * w ** (1.0 - 2.0 * rho) * v


@dataclass(frozen=True)
class Trajectory:
    """An iteration of eq. (9): `t` (s) and, per sample (rows) and flow (columns), windows `w`
    (packets), rates `x` (pkt/s) and queueing delays `flow_delay` (s); `diverged` if a window
    left `(0, ∞)` (the run stops there). Row `n` is the state after `n` updates."""

    t: np.ndarray
    w: np.ndarray
    x: np.ndarray
    flow_delay: np.ndarray
    diverged: bool


def iterate(
    fmap: FluidMap,
    weights: Sequence[float],
    *,
    kappa: float,
    rho: float,
    w0: Sequence[float],
    duration: float,
    interval: float = 0.02,
) -> Trajectory:
    """Eq. (9) every `interval` seconds for `duration` seconds from windows `w0`, rates from F."""
    if not kappa > 0 or not 0.0 <= rho <= 1.0:
        raise ScenarioError("kappa, rho", "needs kappa > 0 and rho in [0, 1]")
    p = np.asarray(weights, dtype=float)
    d = fmap.delays
    steps = int(round(duration / interval))
    n = fmap.network.num_flows
    ws = np.empty((steps + 1, n))
    xs = np.empty((steps + 1, n))
    qs = np.empty((steps + 1, n))
    w = np.asarray(w0, dtype=float).copy()
    diverged = False
    last = steps
    for k in range(steps + 1):
        sol = fmap(w)
        ws[k], xs[k], qs[k] = w, sol.rates, sol.flow_delay
        if k == steps:
            break
        w = window_update(w, sol.rates, d, p, kappa, rho)
        if not np.all(np.isfinite(w)) or np.any(w <= 0):
            diverged, last = True, k
            break
    keep = last + 1
    return Trajectory(np.arange(keep) * interval, ws[:keep], xs[:keep], qs[:keep], diverged)


def convergence_time(t: np.ndarray, x: np.ndarray, target: Sequence[float], tol: float = 0.01) -> float:
    """The first time after which every `x_s` stays within `tol` (relative) of `target_s` until
    the end of the samples; `inf` if the last sample is outside."""
    error = np.max(np.abs(x / np.asarray(target, dtype=float) - 1.0), axis=1)
    outside = np.flatnonzero(error > tol)
    if len(outside) == 0:
        return float(t[0])
    if outside[-1] == len(t) - 1:
        return math.inf
    return float(t[outside[-1] + 1])


def equilibrium(network: Network, weights: Sequence[float], delays: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """`(w*, x*)`: `x*` the optimum of eq. (1) (`num_optimum`), `w* = p + x* d` (Theorem 1)."""
    p = np.asarray(weights, dtype=float)
    x = num_optimum(network, p).rates
    return p + x * np.asarray(delays, dtype=float), x


@dataclass(frozen=True)
class Stability:
    """Linear stability of eq. (9) at `w*`: `eigenvalues` of `M` (the map is `I - κ M`),
    `spectral_radius` of `I - κ M` at the `kappa` given, `largest_stable_kappa`
    (`min 2 Re μ / |μ|^2`)."""

    eigenvalues: np.ndarray
    kappa: float
    spectral_radius: float
    largest_stable_kappa: float


def linear_stability(fmap: FluidMap, w_star: Sequence[float], *, rho: float, kappa: float) -> Stability:
    """The Jacobian of eq. (9)'s map at the equilibrium `w_star` (module header; `v = 0` there,
    so the weights do not enter)."""
    w = np.asarray(w_star, dtype=float)
    sol = fmap(w)
    jx, _ = sensitivity(fmap.network, sol)
    d = fmap.delays
    ratio = d / sol.rtt
    m = (ratio * w ** (1.0 - 2.0 * rho))[:, None] * (np.eye(len(w)) - d[:, None] * jx)
    mu = np.linalg.eigvals(m)
    radius = float(np.max(np.abs(1.0 - kappa * mu)))
    limits = [2.0 * z.real / abs(z) ** 2 for z in mu if abs(z) > 0 and z.real > 0]
    unstable_anyway = any(z.real <= 0 and abs(z) > 1e-12 * float(np.max(np.abs(mu))) for z in mu)
    largest = 0.0 if unstable_anyway else (min(limits) if limits else math.inf)
    return Stability(mu, kappa, radius, float(largest))


def lyapunov(w: np.ndarray, x: np.ndarray, delays: np.ndarray, weights: np.ndarray, rho: float) -> float:
    """`Y(w) = ½ Σ_s (v_s / w_s^ρ)^2`, eq. (26), `v_s = w_s - d_s x_s - p_s`."""
    v = w - delays * x - weights
    return 0.5 * float(np.sum((v / w**rho) ** 2))


def euler_trajectory(
    fmap: FluidMap,
    weights: Sequence[float],
    *,
    kappa: float,
    rho: float,
    w0: Sequence[float],
    dt: float,
    steps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eq. (18) by explicit Euler steps of `dt` seconds: `(t, w, Y)` with `Y` of eq. (26) at each
    sample."""
    p = np.asarray(weights, dtype=float)
    d = fmap.delays
    w = np.asarray(w0, dtype=float).copy()
    ws = np.empty((steps + 1, len(w)))
    ys = np.empty(steps + 1)
    for k in range(steps + 1):
        sol = fmap(w)
        ws[k], ys[k] = w, lyapunov(w, sol.rates, d, p, rho)
        if k < steps:
            v = w - d * sol.rates - p
            w = w - dt * kappa * (d / sol.rtt) * w ** (1.0 - 2.0 * rho) * v
    return np.arange(steps + 1) * dt, ws, ys
