"""The ergodic capacity region of a TDMA downlink with adaptive modulation and coding (AMC) under
Rayleigh fading (paper 002 §IV-C, Fig. 1(c)), and the rates that schedulers get from it with
every queue full.

Model (paper 002 §III, §V; `crates/airtcp/src/mac/downlink/`, `docs/downlink.md`). A base
station serves users `u = 0..U-1` in slots of length `T` over a channel of bandwidth `B`. In a
slot user `u`'s SNR is `snrbar_u g_u`, `g_u ~ Exp(1)` independent over users and i.i.d. over
slots (block Rayleigh fading); the AMC table's highest mode `m` with threshold `th_m <= snr` is
used (outage below the lowest), which carries

    bits_m = floor(e_m B T rate_scale)  per slot,  i.e.  R_m = floor(bits_m / 8) / (packet_bytes T)

packets per second: exactly the bits of `AmcTable::new` in `crates/airtcp/src/mac/downlink/amc.rs`
and the whole-slot byte budget `floor(bits / 8)` of the slot loop (`mod.rs`; `whole_bytes=False`
drops that floor, for the paper's fluid model). A packet is
`packet_bytes` bytes *on the air*: paper 002 counts 200-byte packets (the default, as in the
spec's reference numbers); a scenario whose TCP segments carry 200 bytes of payload under 40
bytes of headers puts 240 bytes on the air, so pass `packet_bytes=240` to get its packet rates.
User `u` is in mode `m` with probability `exp(-th_m / snrbar_u) - exp(-th_{m+1} / snrbar_u)`
(`th_{M+1} = inf`; outage `1 - exp(-th_1 / snrbar_u)`).

A joint channel state `k` fixes every user's mode; with `K` modes there are `(K+1)^U` of them
(modes of equal efficiency are merged and the all-outage state, which carries nothing, is
dropped), each of probability `π_k = Π_u P(mode of u in k)`. A TDMA scheduler gives the slot in
state `k` to user `u` with probability `φ_{k,u}`; the long-run rates it offers are

    r_u = Σ_k π_k φ_{k,u} R_{k,u},     Σ_u φ_{k,u} <= 1,  φ >= 0                         (R̄)

the ergodic region of §II-C/§IV-C (exact for i.i.d. states: the slot length drops out of rates
per second apart from the floor of `bits_m`). It is a polytope, the "piecewise linear" case of
Claim 1. What the code uses of it:

- its support function `h(q) = max_{r ∈ R̄} q·r = Σ_k π_k max_u q_u R_{k,u}` and a maximiser
  (eq. (17): give the slot to `argmax_u q_u R_{k,u}`, ties split equally) —
  `TdmaRegion.support`, `TdmaRegion.scheduled_rates`;
- its smoothed support function `h_τ(q) = Σ_k π_k τ log Σ_u exp(q_u R_{k,u} / τ)`, the expected
  maximum under Gumbel perturbations of scale `τ` (packets), with `h <= h_τ <= h + τ log U`,
  convex and smooth, whose gradient `Σ_k π_k softmax_k(q R_k / τ) R_k` is a point of `R̄` (a
  randomised schedule); the mapping F and the NUM optimum (`airtcp.models.num_optimum`) run a
  Newton method on it — `TdmaRegion.smoothed`;
- `max_scaling(direction)`: `max θ` with `θ d ∈ R̄`, one LP over the `φ` (HiGHS);
  `largest_equal_rate` is `d = 1`.

Schedulers with every queue full (spec 002 §6(a) item 6): `round_robin_rates` (`E[R_u] / U`:
channel-blind, a slot given to a user in outage is wasted), `max_snr_rates` (the user of highest
instantaneous SNR, an integral over the continuous SNRs since equal modes are not ties),
`max_rate_rates` (`argmax_u R_{k,u}`, ties split: queue-length MaxWeight with equal queues) and
`proportional_fair_rates` (eq. (10) with equal queues is `argmax_u R_{k,u} / AveR_u`; its fluid
fixed point, with the average window taken to infinity, is the proportional-fair point
`argmax_{r ∈ R̄} Σ log r_u`, computed exactly by `airtcp.models.num_optimum`).

`BoxRegion` (dedicated channels, Theorem 2) and `SmoothRegion` (`Σ (r_l / c_l)^2 <= 1`,
Theorem 3) have the same interface, for the Lyapunov checks of §IV.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Protocol

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from airtcp.errors import ScenarioError, SimulationError

__all__ = [
    "AmcTable",
    "IEEE_802_16E",
    "liu2004",
    "Downlink",
    "Region",
    "TdmaRegion",
    "BoxRegion",
    "SmoothRegion",
    "round_robin_rates",
    "max_snr_rates",
    "max_rate_rates",
    "proportional_fair_rates",
    "largest_equal_rate",
    "jain",
]


@dataclass(frozen=True)
class AmcTable:
    """An AMC table: SNR thresholds (dB, strictly increasing; a mode is used from its threshold
    on) and spectral efficiencies (bit/s/Hz, positive, not decreasing), lowest mode first."""

    thresholds_db: tuple[float, ...]
    efficiencies: tuple[float, ...]
    name: str = "custom"

    def __post_init__(self) -> None:
        object.__setattr__(self, "thresholds_db", tuple(float(t) for t in self.thresholds_db))
        object.__setattr__(self, "efficiencies", tuple(float(e) for e in self.efficiencies))
        th, eff = self.thresholds_db, self.efficiencies
        if not th or len(th) != len(eff):
            raise ScenarioError("amc", "needs as many thresholds as efficiencies, at least one")
        if not all(math.isfinite(t) for t in th) or any(a >= b for a, b in zip(th, th[1:])):
            raise ScenarioError("amc.thresholds_db", "must be finite and strictly increasing")
        if not all(e > 0 and math.isfinite(e) for e in eff) or any(a > b for a, b in zip(eff, eff[1:])):
            raise ScenarioError("amc.efficiencies", "must be positive and not decreasing")


# crates/airtcp/src/mac/downlink/amc.rs `IEEE_802_16E`: the eight IEEE 802.16e OFDMA downlink
# modes QPSK 1/2 ... 64-QAM 5/6 with the 802.16e receiver SNRs (22 dB of 64-QAM 5/6 extrapolated).
IEEE_802_16E = AmcTable(
    thresholds_db=(5.0, 8.0, 10.5, 14.0, 16.0, 18.0, 20.0, 22.0),
    efficiencies=(1.0, 1.5, 2.0, 3.0, 3.0, 4.0, 4.5, 5.0),
    name="ieee802_16e",
)

# crates/airtcp/src/mac/downlink/amc.rs `LIU2004_FIT`: Liu, Zhou & Giannakis (2004) Table I,
# (efficiency, a_n, g_n) of PER_n(snr) ~ a_n exp(-g_n snr).
_LIU2004_FIT = (
    (0.5, 274.7229, 7.9932),
    (1.0, 90.2514, 3.4998),
    (1.5, 67.6181, 1.6883),
    (2.25, 50.1222, 0.6644),
    (3.0, 53.3987, 0.3756),
    (4.5, 35.3508, 0.0900),
)


def liu2004(count: int = 5, target_per: float = 0.01) -> AmcTable:
    """The first `count` (1..6) modes of Liu, Zhou & Giannakis (2004), mode `n` used from
    `ln(a_n / target_per) / g_n` (linear SNR), as `liu2004_modes` of the core computes them
    (count 5 at 1 %: 1.068, 4.154, 7.180, 11.080, 13.589 dB; 0.5 ... 3 bit/s/Hz)."""
    if not 1 <= count <= len(_LIU2004_FIT):
        raise ScenarioError("amc.count", f"must be between 1 and {len(_LIU2004_FIT)}")
    if not 0.0 < target_per < 1.0:
        raise ScenarioError("amc.target_per", "must be within (0, 1)")
    fit = _LIU2004_FIT[:count]
    return AmcTable(
        thresholds_db=tuple(10.0 * math.log10(math.log(a / target_per) / g) for _, a, g in fit),
        efficiencies=tuple(e for e, _, _ in fit),
        name=f"liu2004(count={count}, target_per={target_per})",
    )


@dataclass(frozen=True)
class Downlink:
    """A TDMA downlink under i.i.d. Rayleigh block fading: one mean SNR per user (dB), the AMC
    table, bandwidth (Hz), slot (s), `rate_scale` (the fraction of each slot carrying data, as in
    the scenario's `downlink.rate_scale`) and the size of a packet on the air (bytes). Rates are in
    packets per second.

    `whole_bytes`: True (default) counts what the core serves in a whole slot, `floor(bits / 8)`
    bytes; False the fluid `bits / 8` (paper 002's Matlab model has no bytes). They differ only
    when a mode's bits per slot are not a multiple of 8 (16-QAM 9/16 of `liu2004` at 5 MHz and
    10 ms: 112 500 bits = 14 062.5 bytes)."""

    mean_snr_db: tuple[float, ...]
    amc: AmcTable = IEEE_802_16E
    bandwidth_hz: float = 10e6
    slot_s: float = 0.01
    rate_scale: float = 1.0
    packet_bytes: float = 200.0
    whole_bytes: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean_snr_db", tuple(float(s) for s in self.mean_snr_db))
        if not self.mean_snr_db or not all(math.isfinite(s) for s in self.mean_snr_db):
            raise ScenarioError("mean_snr_db", "needs at least one finite mean SNR")
        for name in ("bandwidth_hz", "slot_s", "packet_bytes"):
            value = getattr(self, name)
            if not (value > 0 and math.isfinite(value)):
                raise ScenarioError(name, "must be positive")
        if not 0.0 < self.rate_scale <= 1.0:
            raise ScenarioError("rate_scale", "must be within (0, 1]")

    @property
    def num_users(self) -> int:
        """U."""
        return len(self.mean_snr_db)

    def bits_per_slot(self) -> np.ndarray:
        """Bits per slot of each mode, `floor(e B T rate_scale)` exactly as the core's
        `AmcTable::new` (slot in whole nanoseconds, the same 1e-12 guard against flooring an exact
        product one bit low)."""
        slot_ns = round(self.slot_s * 1e9)
        symbols = self.bandwidth_hz * slot_ns / 1e9 * self.rate_scale
        return np.floor(np.asarray(self.amc.efficiencies) * symbols * (1.0 + 1e-12))

    def mode_rates(self) -> np.ndarray:
        """Packets per second of each mode: `floor(bits / 8)` bytes per slot (the whole-slot
        budget of the core's slot loop; `bits / 8` without `whole_bytes`) over `packet_bytes`,
        per slot length."""
        slot = round(self.slot_s * 1e9) / 1e9
        octets = self.bits_per_slot() / 8.0
        return (np.floor(octets) if self.whole_bytes else octets) / self.packet_bytes / slot

    def mode_probabilities(self) -> np.ndarray:
        """`(U, K+1)`: per user, the probability of outage (column 0) and of each mode."""
        th = 10.0 ** (np.asarray(self.amc.thresholds_db) / 10.0)
        rows = []
        for snr_db in self.mean_snr_db:
            mean = 10.0 ** (snr_db / 10.0)
            tail = np.exp(-th / mean)
            rows.append(np.concatenate([[-math.expm1(-th[0] / mean)], tail - np.append(tail[1:], 0.0)]))
        return np.array(rows)

    def mean_rates(self) -> np.ndarray:
        """`E[R_u]`: the whole-slot rate each user's channel offers on average."""
        return self.mode_probabilities()[:, 1:] @ self.mode_rates()

    def region(self) -> TdmaRegion:
        """The ergodic region `R̄` of this downlink."""
        rates = np.concatenate([[0.0], self.mode_rates()])
        probabilities = self.mode_probabilities()
        return TdmaRegion.from_independent_users([(rates, p) for p in probabilities])


class Region(Protocol):
    """What the NUM and fluid solvers need of a capacity region of `num_links` wireless links:
    its support function, a maximiser, and a smooth convex approximation with derivatives."""

    @property
    def num_links(self) -> int: ...

    def support(self, q: np.ndarray) -> float:
        """`max_{r ∈ R̄} q·r` for `q >= 0`."""
        ...

    def scheduled_rates(self, q: np.ndarray) -> np.ndarray:
        """A maximiser of `q·r` over the region (eq. (17))."""
        ...

    def smoothed(self, q: np.ndarray, tau: float, hessian: bool = True) -> tuple[float, np.ndarray, np.ndarray | None]:
        """`(h_τ(q), ∇h_τ(q), ∇²h_τ(q))`: a convex smooth function within `[h, h + τ log U]`
        whose gradient lies in the region."""
        ...

    def max_scaling(self, direction: Sequence[float]) -> float:
        """`max θ` with `θ d` in the region."""
        ...


# eq=False: compared by identity (it holds NumPy arrays, which `==` cannot reduce to a bool).
@dataclass(frozen=True, eq=False)
class TdmaRegion:
    """The ergodic TDMA region (R̄) of the module header: `probabilities` `π_k` (S,) and
    `rates` `R_{k,u}` (S, U) of the joint channel states, in packets per second."""

    probabilities: np.ndarray
    rates: np.ndarray
    _rates_t: np.ndarray = field(init=False, repr=False, compare=False)
    _weighted_t: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = np.asarray(self.probabilities, dtype=float)
        r = np.asarray(self.rates, dtype=float)
        if r.ndim != 2 or p.shape != (r.shape[0],) or np.any(p < 0) or np.any(r < 0):
            raise ScenarioError("region", "needs S non-negative probabilities and S x U non-negative rates")
        object.__setattr__(self, "probabilities", p)
        object.__setattr__(self, "rates", r)
        object.__setattr__(self, "_rates_t", np.ascontiguousarray(r.T))
        object.__setattr__(self, "_weighted_t", np.ascontiguousarray((p[:, None] * r).T))  # π R

    @classmethod
    def from_independent_users(cls, users: Sequence[tuple[Sequence[float], Sequence[float]]]) -> TdmaRegion:
        """The region of users whose per-slot rates are independent: one `(levels, probabilities)`
        per user (pkt/s; probabilities summing to at most 1, any remainder meaning rate 0). Equal
        levels are merged and states where nobody can receive are dropped."""
        merged = []
        for levels, probs in users:
            lv = np.asarray(levels, dtype=float)
            pr = np.asarray(probs, dtype=float)
            unique, inverse = np.unique(lv, return_inverse=True)
            total = np.zeros(len(unique))
            np.add.at(total, inverse, pr)
            merged.append((unique, total))
        grids = np.meshgrid(*[np.arange(len(lv)) for lv, _ in merged], indexing="ij")
        index = [g.ravel() for g in grids]
        rates = np.stack([lv[i] for (lv, _), i in zip(merged, index)], axis=1)
        probabilities = np.prod(np.stack([pr[i] for (_, pr), i in zip(merged, index)], axis=1), axis=1)
        keep = (rates.max(axis=1) > 0) & (probabilities > 0)
        return cls(probabilities[keep], rates[keep])

    @property
    def num_links(self) -> int:
        """U, one wireless link per user."""
        return self.rates.shape[1]

    @property
    def num_states(self) -> int:
        """S, the joint channel states kept."""
        return self.rates.shape[0]

    def mean_rates(self) -> np.ndarray:
        """`E[R_u]`."""
        return self.probabilities @ self.rates

    def support(self, q: np.ndarray) -> float:
        """`h(q) = Σ_k π_k max_u q_u R_{k,u}`."""
        weighted = self._rates_t * np.asarray(q, dtype=float)[:, None]
        return float(self.probabilities @ np.maximum.reduce(weighted))

    def scheduled_rates(self, q: np.ndarray) -> np.ndarray:
        """The rates of eq. (17)'s scheduler: in every state the slot goes to `argmax_u q_u
        R_{k,u}`, split equally among exact ties (users that cannot receive take no share)."""
        weighted = self.rates * np.asarray(q, dtype=float)[None, :]
        best = weighted.max(axis=1, keepdims=True)
        winners = (weighted >= best * (1.0 - 1e-12)) & (weighted > 0)
        counts = winners.sum(axis=1, keepdims=True)
        share = np.divide(winners, counts, out=np.zeros_like(weighted), where=counts > 0)
        return self.probabilities @ (share * self.rates)

    def smoothed(self, q: np.ndarray, tau: float, hessian: bool = True) -> tuple[float, np.ndarray, np.ndarray | None]:
        """`h_τ(q) = Σ_k π_k τ log Σ_u exp(q_u R_{k,u} / τ)`, its gradient `Σ_k π_k p_k ∘ R_k`
        (`p_k` the softmax of `q ∘ R_k / τ`: a point of the region) and Hessian
        `Σ_k π_k (diag(p_k) - p_k p_k^T) ∘ (R_k R_k^T) / τ`."""
        z = self._rates_t * (np.asarray(q, dtype=float) / tau)[:, None]
        top = np.maximum.reduce(z)
        z -= top
        np.exp(z, out=z)
        total = z.sum(axis=0)
        value = tau * float(self.probabilities @ (top + np.log(total)))
        z /= total  # softmax p_{k,u}, users x states
        weighted = z * self._weighted_t  # π p R
        grad = weighted.sum(axis=1)
        if not hessian:
            return value, grad, None
        hess = -(weighted @ (z * self._rates_t).T)
        # The diagonal as Σ π p (1 - p) R^2 directly: as Σ π p R^2 - Σ π p^2 R^2 it would be the
        # difference of two large numbers where the softmax is one-hot.
        np.fill_diagonal(hess, np.einsum("us,us->u", weighted * (1.0 - z), self._rates_t))
        hess /= tau
        return value, grad, hess

    def max_scaling(self, direction: Sequence[float]) -> float:
        """`max θ` with `θ d ∈ R̄`: the LP over the time shares `φ_{k,u}` (HiGHS)."""
        d = _direction(direction, self.num_links)
        s, u = self.rates.shape
        n = s * u
        # Rows 0..S-1: Σ_u φ_{k,u} <= 1; rows S..S+U-1: θ d_u - Σ_k π_k R_{k,u} φ_{k,u} <= 0.
        states = np.repeat(np.arange(s), u)
        users = np.tile(np.arange(u), s)
        rows = np.concatenate([states, s + users, s + np.arange(u)])
        cols = np.concatenate([np.arange(n), np.arange(n), np.full(u, n)])
        vals = np.concatenate([np.ones(n), -(self.probabilities[:, None] * self.rates).ravel(), d])
        a_ub = sparse.coo_array((vals, (rows, cols)), shape=(s + u, n + 1)).tocsr()
        b_ub = np.concatenate([np.ones(s), np.zeros(u)])
        objective = np.zeros(n + 1)
        objective[n] = -1.0
        # The interior-point solver (with crossover) is several times faster than simplex here.
        result = linprog(objective, A_ub=a_ub, b_ub=b_ub, bounds=(0, None), method="highs-ipm")
        if result.status != 0:
            raise SimulationError(f"the region's LP failed: {result.message}")
        return float(result.x[n])


@dataclass(frozen=True)
class BoxRegion:
    """Dedicated channels (Fig. 1(a), Theorem 2): `0 <= r_l <= c_l`."""

    capacities: tuple[float, ...]

    @property
    def num_links(self) -> int:
        """L."""
        return len(self.capacities)

    def support(self, q: np.ndarray) -> float:
        """`c·q`."""
        return float(np.asarray(self.capacities) @ np.asarray(q, dtype=float))

    def scheduled_rates(self, q: np.ndarray) -> np.ndarray:
        """`c` (every link always at capacity)."""
        return np.asarray(self.capacities, dtype=float)

    def smoothed(self, q: np.ndarray, tau: float, hessian: bool = True) -> tuple[float, np.ndarray, np.ndarray | None]:
        """Already smooth: `(c·q, c, 0)`."""
        c = np.asarray(self.capacities, dtype=float)
        return float(c @ q), c, (np.zeros((len(c), len(c))) if hessian else None)

    def max_scaling(self, direction: Sequence[float]) -> float:
        """`min_l c_l / d_l`."""
        d = _direction(direction, self.num_links)
        c = np.asarray(self.capacities, dtype=float)
        return float(np.min(np.where(d > 0, c / np.where(d > 0, d, 1.0), np.inf)))


@dataclass(frozen=True)
class SmoothRegion:
    """A smooth region (Fig. 1(b), Theorem 3): `f(r) = Σ_l (r_l / c_l)^2 - 1 <= 0`, `r >= 0`, with
    support function `||c ∘ q||_2` and maximiser `c^2 ∘ q / ||c ∘ q||_2`."""

    capacities: tuple[float, ...]

    @property
    def num_links(self) -> int:
        """L."""
        return len(self.capacities)

    def support(self, q: np.ndarray) -> float:
        """`||c ∘ q||_2`."""
        return float(np.linalg.norm(np.asarray(self.capacities) * np.asarray(q, dtype=float)))

    def scheduled_rates(self, q: np.ndarray) -> np.ndarray:
        """`c^2 ∘ q / ||c ∘ q||` (the point of the boundary whose normal is `q`, Lemma 2)."""
        c = np.asarray(self.capacities, dtype=float)
        norm = np.linalg.norm(c * q)
        return c * c * np.asarray(q, dtype=float) / norm if norm > 0 else np.zeros_like(c)

    def smoothed(self, q: np.ndarray, tau: float, hessian: bool = True) -> tuple[float, np.ndarray, np.ndarray | None]:
        """`sqrt(||c ∘ q||^2 + τ^2)` (smooth at `q = 0` too), gradient and Hessian."""
        c2 = np.asarray(self.capacities, dtype=float) ** 2
        q = np.asarray(q, dtype=float)
        value = math.sqrt(float(c2 @ (q * q)) + tau * tau)
        grad = c2 * q / value
        if not hessian:
            return value, grad, None
        return value, grad, (np.diag(c2) - np.outer(grad, grad)) / value

    def max_scaling(self, direction: Sequence[float]) -> float:
        """`1 / ||d / c||_2`."""
        d = _direction(direction, self.num_links)
        return float(1.0 / np.linalg.norm(d / np.asarray(self.capacities, dtype=float)))


def _direction(direction: Sequence[float], n: int) -> np.ndarray:
    d = np.asarray(direction, dtype=float)
    if d.shape != (n,) or np.any(d < 0) or not np.any(d > 0):
        raise ScenarioError("direction", f"needs {n} non-negative weights, not all 0")
    return d


def round_robin_rates(downlink: Downlink) -> np.ndarray:
    """Saturated round-robin: every user gets every `U`-th slot whatever its channel, so
    `E[R_u] / U` (a slot granted in outage carries nothing, as the core's `round_robin`)."""
    return downlink.mean_rates() / downlink.num_users


def max_snr_rates(downlink: Downlink) -> np.ndarray:
    """Saturated max-SNR: the user of highest instantaneous SNR `s` takes the slot at its mode's
    rate. With exponential SNRs of means `a_v`, user `u` gets
    `Σ_m R_m ∫_{th_m}^{th_{m+1}} (1/a_u) e^{-s/a_u} Π_{v≠u} (1 - e^{-s/a_v}) ds`, integrated in
    closed form by expanding the product over the subsets of the other users."""
    th = 10.0 ** (np.asarray(downlink.amc.thresholds_db) / 10.0)
    upper = np.append(th[1:], np.inf)
    rates = downlink.mode_rates()
    inverse = 10.0 ** (-np.asarray(downlink.mean_snr_db) / 10.0)  # 1 / a_v
    out = np.zeros(downlink.num_users)
    for u in range(downlink.num_users):
        others = [v for v in range(downlink.num_users) if v != u]
        total = 0.0
        for size in range(len(others) + 1):
            for subset in combinations(others, size):
                gamma = inverse[u] + sum(inverse[v] for v in subset)
                mass = np.exp(-gamma * th) - np.exp(-gamma * upper)  # ∫ gamma e^{-gamma s} ds
                total += (-1.0) ** size * inverse[u] / gamma * float(rates @ mass)
        out[u] = total
    return out


def max_rate_rates(region: TdmaRegion) -> np.ndarray:
    """Saturated max-rate (queue-length MaxWeight with equal queues): `argmax_u R_{k,u}` per state,
    ties split equally."""
    return region.scheduled_rates(np.ones(region.num_links))


def proportional_fair_rates(region: Region, *, tol: float = 1e-7) -> np.ndarray:
    """The proportional-fair point `argmax_{r ∈ R̄} Σ_u log r_u`: the fluid fixed point of
    `argmax_u R_u / AveR_u` (eq. (10) with equal queues) with every queue full, certified to a
    relative duality gap `tol` (`airtcp.models.num_optimum`)."""
    from airtcp.models.num_optimum import Network, num_optimum

    return num_optimum(Network.wireless_only(region), np.ones(region.num_links), tol=tol).rates


def largest_equal_rate(region: Region) -> float:
    """`max θ` with `(θ, ..., θ) ∈ R̄`."""
    return region.max_scaling(np.ones(region.num_links))


def jain(x: Sequence[float]) -> float:
    """Jain's index `(Σ x)^2 / (n Σ x^2)`."""
    a = np.asarray(x, dtype=float)
    return float(a.sum() ** 2 / (len(a) * (a * a).sum()))
