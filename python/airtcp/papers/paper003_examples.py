"""Paper 003 (Horizon, Radunović et al., MobiCom 2008): the worked examples of §2.2 and §3.5, run
by the algorithms rather than asserted from closed forms (spec 003 §3 rows E1-E5, §6(b)).

The setting is Fig. 1: nodes 1..6, directed links 1→2, 1→3, 4→6, 5→6 at 100 packets per time
unit, 2→4 at 2 and 3→5 at 4. Links are independent (no interference), and U(y) = −144/y, so
flow control (eq. 5) gives y = sqrt(144/price) = 12/sqrt(price). Flow f goes 1→6 over both paths,
flow g 2→4 on link 2-4 only.

Four models, each the paper's algorithm run to steady state:

- `classical_bp_fluid` (E1, E3). Back-pressure (eqs. 5-6) on queues per (node, flow) in steps of
  length `eps`. Each link serves the flow with the largest positive differential `q_i − q_j`
  (destination queue 0). The literal rule serves at the full link rate. A link faster than its
  load then chatters around differential 0, and a discrete run converges only on average, with a
  bias of order `rate·eps`. At `eps` = 0.01 the literal rule gives q2 ≈ 4.97 and q3 ≈ 4.94, and
  its total of 13.93 matches the slotted model's 13.89: the same dynamics, with queues ×100. The
  default `serve="projected"` runs the fluid limit of that chattering (the
  sliding mode) instead. A link carries `min(rate·eps, content, differential/2)`: at most what
  makes the two queues equal, and everything when the next hop is the destination. Links update
  one after the other in upstream order (Gauss-Seidel), so no node overshoots. Unsaturated links
  then hold their differentials at 0, saturated links run at full rate, and the run settles on
  the fixed point, with no oscillation left to average. `serve="full"` keeps the literal rule for
  comparison. Rates and queues are time averages over `window` after `warmup`.
- `bp_burst` (E2). The integer form of the same rule during one short instant. Packets move one
  at a time over the link with the largest positive differential, and each link carries at most
  `floor(rate·instant)` packets, so the bottlenecks carry none.
- `horizon_pricing` (E4, E5). Horizon's pricing and forwarding (eqs. 11-15) from custody, with
  prices per rate as spec 003 §2.2 reads them: `C_i^f = min_j (C_j^f + S_i/R_ij)` with
  `S_i = max_g P_i^g · R_{i,j(g)}`. `price="queue"` is the literal (13) with R ≡ 1. Node i holds
  custody `P_i^f` per flow. Acknowledgements and advertised prices are instantaneous (the §3
  idealisation). For link i→j, node i picks the flow with the largest custody (14) among the
  flows waiting whose cheapest next hop (15) is j. A flow whose cheapest hop is busy waits for
  it (strict (15)). Ties in (11)/(15) go to the lower hop count to the destination, then the
  lower node id. Sources send at y = 12/sqrt(C_s) (U'(y) = C_s). Custody forms only where the
  link out is the bottleneck: node 1 passes its traffic on at rate 100, so P_1 ≈ 0. It runs in
  one of two models, below.
- `horizon_pricing(model="fluid")`, the default. In each step of `eps`, sources inject `y·eps`,
  prices follow from custody, then links, upstream first, carry up to `rate·eps`, largest
  custody first. P and C are sampled when the decisions are taken. The one discreteness left is
  node 1's single-step custody `y·eps` (≈ 0.06), which sits in C_1.
- `horizon_pricing(model="packets")`: integer packets, event-driven. A link sends one packet at
  a time, taking `1/rate`. A packet stays in i's custody until j has it, whether queued (FIFO
  per flow) or on the link. Ties in (14) go round-robin after the last flow served. Sources emit
  at evenly spaced times, at the current y. Ties in (15) go to node 2, and the run locks into a
  cycle, so P_2 sits about 0.7 of a packet above P_3 on average: C_2 ≈ 4.7, not 4. C_1 = 4.03
  and C_3 = 4.0 are right. With ties to node 3 instead, C_3 ≈ 4.35 and C_2 ≈ 3.95.
- Stranding (spec §5 A5), in both Horizon models. Strict (14) can strand f's custody at node 2
  behind g's larger custody. It happens when g starts after f has custody there (`start`). No
  aging rule is added; each run reports `hol_wait`, the longest time a (node, flow) held
  custody unserved.
- `slotted_bp` (E1, E3 in airtcp's slotted conflict-graph simulator, `airtcp.models.slotted`).
  Classical back-pressure with α-fair flow control (`AlphaFair(2)`), `m` = 14400 (queues ×100)
  and independent links. It reports rates, the mean total backlog and each node's mean queue
  per flow.

`worked_examples(quick)` runs them all and returns the rows of the published-vs-airtcp table,
against the corrected targets. "y* = 8" in §3.5 is a typo for 6 (A1). §3.5's "90" packets is a
slip for §2.3's 63 (A2). §2.2 swaps x24 and x35 (A3): the correct values are x24 = 2, x35 = 4.
Everything is deterministic: no randomness is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

__all__ = [
    "FIG1_RATES",
    "UTILITY_K",
    "Flow",
    "FLOW_F",
    "FLOW_G",
    "fig1_flows",
    "flow_control",
    "FluidBpResult",
    "classical_bp_fluid",
    "BurstResult",
    "bp_burst",
    "horizon_prices",
    "HorizonResult",
    "Model",
    "horizon_pricing",
    "SlottedCheck",
    "slotted_bp",
    "worked_examples",
]

Link = tuple[int, int]
Serve = Literal["projected", "full"]
Price = Literal["per_rate", "queue"]

FIG1_RATES: dict[Link, float] = {
    (1, 2): 100.0, (1, 3): 100.0, (2, 4): 2.0, (3, 5): 4.0, (4, 6): 100.0, (5, 6): 100.0,
}
"""Fig. 1's links and their rates, packets per time unit, in upstream-to-downstream order."""

UTILITY_K = 144.0
"""U(y) = −K/y (§2.2)."""



_TIE = 1e-12  # differentials this close count as equal: float noise must not flip a choice


@dataclass(frozen=True)
class Flow:
    """A flow `src → dst` confined to `links` (its routing DAG: `D_i(f)` are the ends of its links
    out of i)."""

    name: str
    src: int
    dst: int
    links: tuple[Link, ...]
    _out: dict[int, tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Prices are recomputed at every step or event: look next hops up, do not search links.
        out = {i: tuple(j for a, j in self.links if a == i) for i, _ in self.links if i != self.dst}
        object.__setattr__(self, "_out", out)

    def next_hops(self, node: int) -> tuple[int, ...]:
        """`D_node(f)`, in link order (none at the destination)."""
        return self._out.get(node, ())

    def hops_to_dst(self, node: int) -> int:
        """Hop count from `node` to the destination over the flow's links (breadth first)."""
        frontier, seen, hops = [node], {node}, 0
        while frontier:
            if self.dst in frontier:
                return hops
            frontier = [j for n in frontier for j in self.next_hops(n) if j not in seen]
            seen.update(frontier)
            hops += 1
        return 1 << 30  # unreachable: sorts after every real path


FLOW_F = Flow("f", 1, 6, tuple(FIG1_RATES))
FLOW_G = Flow("g", 2, 4, ((2, 4),))


def fig1_flows(two_flows: bool) -> tuple[Flow, ...]:
    """f alone (§2.2's first example), or f and g (its second)."""
    return (FLOW_F, FLOW_G) if two_flows else (FLOW_F,)


def flow_control(price: float, y_max: float) -> float:
    """Eq. (5) with U = −K/y: U'(y) = K/y² = price, so y = sqrt(K/price). Capped at `y_max`, which
    is also the rate at price 0 (an empty network)."""
    return y_max if price <= UTILITY_K / y_max**2 else math.sqrt(UTILITY_K / price)


# ---- classical back-pressure, fluid (E1, E3) -------------------------------------------------


@dataclass(frozen=True)
class FluidBpResult:
    """Time averages over the measured window: `y` per flow, `link_rates[(link, flow)]`,
    `queues[(node, flow)]` (every node the flow touches but its destination) and their `total`."""

    y: dict[str, float]
    link_rates: dict[tuple[Link, str], float]
    queues: dict[tuple[int, str], float]
    total: float


def classical_bp_fluid(
    flows: Sequence[Flow] = (FLOW_F,),
    rates: Mapping[Link, float] = FIG1_RATES,
    *,
    eps: float = 0.01,
    warmup: float = 300.0,
    window: float = 100.0,
    serve: Serve = "projected",
    y_max: float = 200.0,
    smoothing: float = 0.0,
) -> FluidBpResult:
    """Classical back-pressure (eqs. 5-6) as a fluid model with step `eps` (module docstring):
    runs `warmup` then `window` time units from empty queues and averages over the window.
    `smoothing` > 0 makes sources follow eq. (5) through a first-order lag of that time
    constant."""
    if serve not in ("projected", "full"):
        raise ValueError(f"serve {serve!r}: projected or full")
    links = list(rates)
    users = [[k for k, flow in enumerate(flows) if link in flow.links] for link in links]
    q = [[0.0] * (1 + max(max(link) for link in links)) for _ in flows]
    y = [y_max] * len(flows)
    warm_steps, steps = round(warmup / eps), round(window / eps)
    moved = [[0.0] * len(flows) for _ in links]
    injected = [0.0] * len(flows)
    q_sum = [[0.0] * len(q[0]) for _ in flows]
    for step in range(warm_steps + steps):
        measuring = step >= warm_steps
        _bp_sources(q, flows, y, eps, y_max, smoothing, injected if measuring else None)
        _bp_links(q, flows, links, rates, users, eps, serve, moved if measuring else None)
        if measuring:
            for k in range(len(flows)):
                q_sum[k] = [s + v for s, v in zip(q_sum[k], q[k])]
    return _bp_result(flows, links, moved, injected, q_sum, window, steps)


def _bp_sources(
    q: list[list[float]], flows: Sequence[Flow], y: list[float], eps: float, y_max: float,
    smoothing: float, injected: list[float] | None,
) -> None:
    """Eq. (5) at every source from its own queue, then its arrivals for one step."""
    for k, flow in enumerate(flows):
        target = flow_control(q[k][flow.src], y_max)
        y[k] = target if smoothing <= 0 else y[k] + (target - y[k]) * min(1.0, eps / smoothing)
        q[k][flow.src] += y[k] * eps
        if injected is not None:
            injected[k] += y[k] * eps


def _bp_links(
    q: list[list[float]], flows: Sequence[Flow], links: list[Link], rates: Mapping[Link, float],
    users: list[list[int]], eps: float, serve: Serve, moved: list[list[float]] | None,
) -> None:
    """Eq. (6) on independent links, upstream first: each serves its largest positive
    differential (ties: the lower flow index)."""
    for index, (i, j) in enumerate(links):
        best, best_diff = -1, _TIE
        for k in users[index]:
            diff = q[k][i] - q[k][j]
            if diff > best_diff + _TIE:
                best, best_diff = k, diff
        if best < 0:
            continue
        amount = min(rates[(i, j)] * eps, q[best][i])
        if serve == "projected" and j != flows[best].dst:
            amount = min(amount, best_diff / 2)  # no further than equal queues: the sliding mode
        q[best][i] -= amount
        if j != flows[best].dst:  # the destination absorbs: its queue stays 0
            q[best][j] += amount
        if moved is not None:
            moved[index][best] += amount


def _bp_result(
    flows: Sequence[Flow], links: list[Link], moved: list[list[float]], injected: list[float],
    q_sum: list[list[float]], window: float, steps: int,
) -> FluidBpResult:
    """The window's averages as a result."""
    queues = {
        (node, flow.name): q_sum[k][node] / steps
        for k, flow in enumerate(flows)
        for node in sorted({n for link in flow.links for n in link} - {flow.dst})
    }
    return FluidBpResult(
        y={flow.name: injected[k] / window for k, flow in enumerate(flows)},
        link_rates={
            (link, flow.name): moved[index][k] / window
            for index, link in enumerate(links)
            for k, flow in enumerate(flows)
            if link in flow.links
        },
        queues=queues,
        total=sum(queues.values()),
    )


# ---- classical back-pressure, integer burst (E2) ---------------------------------------------


@dataclass(frozen=True)
class BurstResult:
    """Packets each link carried during the instant, and the queues after it."""

    sent: dict[Link, int]
    queues: dict[int, int]


def bp_burst(
    queues: Mapping[int, int],
    arrivals: Mapping[int, int],
    rates: Mapping[Link, float] = FIG1_RATES,
    *,
    dst: int = 6,
    instant: float = 0.1,
) -> BurstResult:
    """§2.2's burst for one flow: `arrivals` join `queues`, then back-pressure moves integer packets
    one at a time over the link with the largest positive differential (ties: link order) until
    none is positive or the links' budgets `floor(rate·instant)` run out."""
    q = {node: queues.get(node, 0) + arrivals.get(node, 0) for node in {n for link in rates for n in link}}
    q[dst] = 0
    budget = {link: math.floor(rate * instant) for link, rate in rates.items()}
    sent = dict.fromkeys(rates, 0)
    while True:
        open_links = [link for link in rates if budget[link] > 0 and q[link[0]] - q[link[1]] > 0]
        if not open_links:
            return BurstResult(sent, {node: value for node, value in sorted(q.items()) if node != dst})
        i, j = max(open_links, key=lambda link: q[link[0]] - q[link[1]])  # first of equals wins
        q[i] -= 1
        q[j] += 1 if j != dst else 0
        budget[(i, j)] -= 1
        sent[(i, j)] += 1


# ---- Horizon pricing and forwarding (E4, E5) -------------------------------------------------

Key = tuple[int, str]  # (node, flow name)
Model = Literal["fluid", "packets"]


@lru_cache(maxsize=None)
def _upstream_order(flows: tuple[Flow, ...]) -> tuple[int, ...]:
    """The nodes of the flows' union DAG, downstream first (prices are computed in this order)."""
    links = {link for flow in flows for link in flow.links}
    nodes = sorted({n for link in links for n in link})
    order: list[int] = []
    while len(order) < len(nodes):
        ready = [n for n in nodes if n not in order and all(j in order for i, j in links if i == n)]
        if not ready:
            raise ValueError("the flows' links contain a cycle")
        order += ready
    return tuple(order)


@lru_cache(maxsize=None)
def _hops(flow: Flow, node: int) -> int:
    """`flow.hops_to_dst(node)`, kept: (15) breaks ties with it at every decision."""
    return flow.hops_to_dst(node)


def _cheapest_hop(flow: Flow, node: int, price: Mapping[Key, float]) -> int:
    """Eqs. (11)/(15): the next hop with the lowest advertised price; ties go to the lower hop
    count to the destination, then the lower node id."""
    return min(flow.next_hops(node), key=lambda j: (price[(j, flow.name)], _hops(flow, j), j))


def horizon_prices(
    custody: Mapping[Key, float],
    flows: Sequence[Flow],
    rates: Mapping[Link, float] = FIG1_RATES,
    *,
    price: Price = "per_rate",
) -> tuple[dict[Key, float], dict[Key, int]]:
    """Eqs. (11)-(13) from the custody `P[(node, flow)]`: the prices `C[(node, flow)]` (0 at the
    destination) and every node's cheapest next hop `j(f)`. `per_rate`:
    `C_i^f = min_j (C_j^f + S_i/R_ij)`, `S_i = max_g P_i^g R_{i,j(g)}`; `queue`: R ≡ 1."""
    C = {(flow.dst, flow.name): 0.0 for flow in flows}
    hop: dict[Key, int] = {}
    for node in _upstream_order(tuple(flows)):
        here = [flow for flow in flows if flow.next_hops(node)]
        for flow in here:
            hop[(node, flow.name)] = _cheapest_hop(flow, node, C)

        def rate(j: int, node: int = node) -> float:
            return rates[(node, j)] if price == "per_rate" else 1.0

        # The max runs over every flow at the node: one heavy flow prices all of them (§3.5).
        s = max((custody.get((node, f.name), 0.0) * rate(hop[(node, f.name)]) for f in here), default=0.0)
        for flow in here:
            C[(node, flow.name)] = min(C[(j, flow.name)] + s / rate(j) for j in flow.next_hops(node))
    return C, hop


@dataclass(frozen=True)
class HorizonResult:
    """Time averages over the measured window: `y` (injected per time unit) per flow, `prices` C
    and `custody` P per (node, flow), `total` custody, `link_rates[(link, flow)]` and
    `share_via_2[flow]` (the fraction node 1 sent to node 2). Over the whole run: `hol_wait`, the
    longest time a (node, flow) held custody without being served (a stranded one counted to the
    end), and `final_custody` at the end."""

    y: dict[str, float]
    prices: dict[Key, float]
    custody: dict[Key, float]
    total: float
    link_rates: dict[tuple[Link, str], float]
    share_via_2: dict[str, float]
    hol_wait: dict[Key, float]
    final_custody: dict[Key, float]


def _keys(flows: Sequence[Flow]) -> list[Key]:
    """Every (node, flow) a flow touches, destination included (its price is 0, its custody 0)."""
    return [(n, f.name) for f in flows for n in sorted({n for link in f.links for n in link})]


def _share_via_2(sent: Mapping[tuple[Link, str], float], name: str) -> float:
    via_2 = sent.get(((1, 2), name), 0.0)
    total = via_2 + sent.get(((1, 3), name), 0.0)
    return via_2 / total if total else math.nan


class _Stats:
    """Time integrals of P and C over the measured window, what each source injected and each
    link carried in it, and the longest unserved custody over the whole run."""

    def __init__(self, keys: list[Key], names: list[str]) -> None:
        self.keys, self.span = keys, 0.0
        self.p_int = dict.fromkeys(keys, 0.0)
        self.c_int = dict.fromkeys(keys, 0.0)
        self.injected = dict.fromkeys(names, 0.0)
        self.sent: dict[tuple[Link, str], float] = {}
        self.waiting_since = dict.fromkeys(keys, 0.0)
        self.hol_wait = dict.fromkeys(keys, 0.0)

    def hold(self, custody: Mapping[Key, float], C: Mapping[Key, float], dt: float) -> None:
        self.span += dt
        for key in self.keys:
            self.p_int[key] += custody[key] * dt
            self.c_int[key] += C.get(key, 0.0) * dt

    def served(self, key: Key, t: float) -> None:
        self.hol_wait[key] = max(self.hol_wait[key], t - self.waiting_since[key])
        self.waiting_since[key] = t

    def result(self, custody: Mapping[Key, float], waiting: Iterable[Key], t: float) -> HorizonResult:
        for key in waiting:  # still waiting at the end: count its wait so far
            self.served(key, t)
        mean_p = {key: value / self.span for key, value in self.p_int.items()}
        return HorizonResult(
            y={name: value / self.span for name, value in self.injected.items()},
            prices={key: value / self.span for key, value in self.c_int.items()},
            custody=mean_p,
            total=sum(mean_p.values()),
            link_rates={key: value / self.span for key, value in sorted(self.sent.items())},
            share_via_2={name: _share_via_2(self.sent, name) for name in self.injected},
            hol_wait=dict(self.hol_wait),
            final_custody=dict(custody),
        )


def _horizon_fluid(
    flows: Sequence[Flow], rates: Mapping[Link, float], *, eps: float, warmup: float, window: float,
    price: Price, y_max: float, start: Mapping[str, float],
) -> HorizonResult:
    """The fluid form: each step, sources inject `y·eps` at y = 12/sqrt(C_s), prices follow from
    custody, then links, upstream first, carry up to `rate·eps` of the flows whose cheapest hop
    they lead to, largest custody first (14)."""
    keys = _keys(flows)
    P = dict.fromkeys(keys, 0.0)
    stats = _Stats(keys, [f.name for f in flows])
    C, _ = horizon_prices(P, flows, rates, price=price)
    warm_steps, steps = round(warmup / eps), round(window / eps)
    for step in range(warm_steps + steps):
        t, measuring = step * eps, step >= warm_steps
        for flow in flows:
            y = flow_control(C[(flow.src, flow.name)], y_max) if t >= start.get(flow.name, 0.0) else 0.0
            P[(flow.src, flow.name)] += y * eps
            if measuring:
                stats.injected[flow.name] += y * eps
        C, hop = horizon_prices(P, flows, rates, price=price)
        if measuring:  # P and C at the same instant, the one the forwarding decisions see
            stats.hold(P, C, eps)
        served = _fluid_links(P, flows, rates, hop, eps, stats.sent if measuring else None)
        for key in keys:
            if key in served or P[key] <= _TIE:
                stats.served(key, t + eps)
    return stats.result(P, [key for key in keys if P[key] > _TIE], (warm_steps + steps) * eps)


def _fluid_links(
    P: dict[Key, float], flows: Sequence[Flow], rates: Mapping[Link, float], hop: Mapping[Key, int],
    eps: float, sent: dict[tuple[Link, str], float] | None,
) -> set[Key]:
    """One step of (14)-(15) on every link; returns the (node, flow)s that were served."""
    served: set[Key] = set()
    for (i, j), rate in rates.items():
        capacity = rate * eps
        waiting = [f for f in flows if hop.get((i, f.name)) == j and P[(i, f.name)] > _TIE]
        for flow in sorted(waiting, key=lambda f: -P[(i, f.name)]):  # stable: equal custody by flow order
            amount = min(capacity, P[(i, flow.name)])
            P[(i, flow.name)] -= amount
            if j != flow.dst:
                P[(j, flow.name)] += amount
            served.add((i, flow.name))
            if sent is not None:
                sent[((i, j), flow.name)] = sent.get(((i, j), flow.name), 0.0) + amount
            capacity -= amount
            if capacity <= _TIE:
                break
    return served


class _PacketSim:
    """The integer-packet form (module docstring): events are transmissions ending and sources
    emitting; after each, prices are recomputed and every free link takes a packet."""

    def __init__(
        self, flows: Sequence[Flow], rates: Mapping[Link, float], price: Price, y_max: float,
        start: Mapping[str, float],
    ) -> None:
        self.flows, self.rates, self.price, self.y_max = list(flows), dict(rates), price, y_max
        self.start = {f.name: start.get(f.name, 0.0) for f in flows}
        self.by_name = {f.name: f for f in flows}
        self.keys = _keys(flows)
        self.t = 0.0
        self.queued = dict.fromkeys(self.keys, 0)  # custody not yet on a link, FIFO per flow
        self.busy: dict[Link, tuple[str, float] | None] = dict.fromkeys(self.rates)
        self.custody = dict.fromkeys(self.keys, 0.0)
        self.last_served: dict[int, str] = {}
        self.credit = dict.fromkeys(self.by_name, 0.0)
        self.C, self.hop = horizon_prices(self.custody, self.flows, self.rates, price=price)
        self.y = dict.fromkeys(self.by_name, 0.0)
        self._set_rates()
        self.stats = _Stats(self.keys, list(self.by_name))

    def run(self, until: float, measure_from: float) -> HorizonResult:
        """Runs to `until`, measuring from `measure_from` on."""
        while True:
            t_next = min(self._next_event_time(), until)
            self._advance(t_next, measure_from)
            if t_next >= until:
                waiting = [key for key, count in self.queued.items() if count]
                return self.stats.result(self.custody, waiting, self.t)
            measuring = self.t >= measure_from
            self._complete_transmissions()
            self._emit(measuring)
            self.C, self.hop = horizon_prices(self.custody, self.flows, self.rates, price=self.price)
            self._set_rates()
            self._dispatch(measuring)

    def _next_event_time(self) -> float:
        ends = [busy[1] for busy in self.busy.values() if busy is not None]
        emits = [self.t + (1.0 - self.credit[n]) / self.y[n] for n in self.y if self.y[n] > 0]
        starts = [s for s in self.start.values() if s > self.t]
        return min(ends + emits + starts, default=math.inf)

    def _advance(self, t_next: float, measure_from: float) -> None:
        """Integrates the piecewise-constant state over [t, t_next)."""
        for name, y in self.y.items():
            self.credit[name] += y * (t_next - self.t)
        counted = t_next - max(self.t, measure_from)
        if counted > 0:
            self.stats.hold(self.custody, self.C, counted)
        self.t = t_next

    def _join(self, key: Key) -> None:
        """A packet joins the FIFO at `key`, and the node's custody."""
        if not self.queued[key]:
            self.stats.waiting_since[key] = self.t  # it is the head of the line
        self.queued[key] += 1
        self.custody[key] += 1

    def _complete_transmissions(self) -> None:
        for (i, j), busy in self.busy.items():
            if busy is None or busy[1] > self.t + _TIE:
                continue
            name = busy[0]
            self.busy[(i, j)] = None
            self.custody[(i, name)] -= 1  # j's Horizon layer has it: i's responsibility ends
            if j != self.by_name[name].dst:
                self._join((j, name))

    def _emit(self, measuring: bool) -> None:
        for flow in self.flows:
            if self.credit[flow.name] >= 1.0 - 1e-9:
                self.credit[flow.name] -= 1.0
                self._join((flow.src, flow.name))
                if measuring:
                    self.stats.injected[flow.name] += 1

    def _set_rates(self) -> None:
        """Eq. (5) at every started source from its own path price, U'(y) = C_s."""
        for flow in self.flows:
            started = self.t >= self.start[flow.name]
            self.y[flow.name] = flow_control(self.C[(flow.src, flow.name)], self.y_max) if started else 0.0

    def _dispatch(self, measuring: bool) -> None:
        """Every free link takes the head packet of the flow chosen by (14) among those whose
        cheapest next hop (15) it leads to."""
        for (i, j), busy in self.busy.items():
            name = self._choose_flow(i, j) if busy is None else None
            if name is None:
                continue
            self.queued[(i, name)] -= 1
            self.stats.served((i, name), self.t)
            self.last_served[i] = name
            self.busy[(i, j)] = (name, self.t + 1.0 / self.rates[(i, j)])
            if measuring:
                self.stats.sent[((i, j), name)] = self.stats.sent.get(((i, j), name), 0.0) + 1

    def _choose_flow(self, i: int, j: int) -> str | None:
        """Eq. (14) with (15) strict: the largest custody among flows queued at i whose cheapest
        hop is j; equal custody goes round-robin after the flow last served at i."""
        names = list(self.by_name)
        first = names.index(self.last_served[i]) + 1 if i in self.last_served else 0
        best: str | None = None
        for name in names[first:] + names[:first]:
            if self.queued.get((i, name)) and self.hop.get((i, name)) == j:
                if best is None or self.custody[(i, name)] > self.custody[(i, best)]:
                    best = name
        return best


def horizon_pricing(
    flows: Sequence[Flow] = (FLOW_F,),
    rates: Mapping[Link, float] = FIG1_RATES,
    *,
    model: Model = "fluid",
    eps: float = 0.01,
    warmup: float = 300.0,
    window: float = 300.0,
    price: Price = "per_rate",
    y_max: float = 200.0,
    start: Mapping[str, float] | None = None,
) -> HorizonResult:
    """Horizon's pricing (11)-(13) and forwarding (14)-(15) from an empty network, `warmup` then
    `window` time units, averaged over the window: `model="fluid"` in steps of `eps`, `"packets"`
    with integer packets (module docstring). `start[flow]` delays a source (default 0)."""
    start = start or {}
    if model not in ("fluid", "packets"):
        raise ValueError(f"model {model!r}: fluid or packets")
    if price not in ("per_rate", "queue"):
        raise ValueError(f"price {price!r}: per_rate or queue")
    if model == "fluid":
        return _horizon_fluid(flows, rates, eps=eps, warmup=warmup, window=window, price=price,
                              y_max=y_max, start=start)
    return _PacketSim(flows, rates, price, y_max, start).run(warmup + window, measure_from=warmup)


# ---- airtcp's slotted simulator (E1, E3) -----------------------------------------------------


@dataclass(frozen=True)
class SlottedCheck:
    """One slotted run: admitted `y` per flow and `link_rates` in packets per slot, the mean total
    backlog and each node's queue per flow in the paper's units (divided by `m/144`), and the
    slots not proven max-weight."""

    y: dict[str, float]
    link_rates: dict[Link, float]
    total: float
    inexact_slots: int
    queues: dict[tuple[int, str], float]
    """Mean queue of each (node, flow), in the paper's units."""


def slotted_bp(
    flows: Sequence[Flow] = (FLOW_F,),
    rates: Mapping[Link, float] = FIG1_RATES,
    *,
    m: float = 14400.0,
    slots: int = 200_000,
    warmup: int = 50_000,
) -> SlottedCheck:
    """E1/E3 in `airtcp.models.slotted`: classical back-pressure, `AlphaFair(2)` flow control
    with `m` and independent links (`ExplicitConflicts(())`). Eq. (5) there is
    `max m·(−1/y) − y·U`, so y = sqrt(m/U) and the queues are `m/144` times the paper's; the
    total is reported divided by that. Nodes keep the paper's numbers (node 0 is unused); each
    flow is pinned to its links with `allowed_links`; `r_max` is the default, 200."""
    # Imported here: the other models are pure Python, this one needs the core and pandas.
    from airtcp.models import slotted as sl

    if any(float(rate) != int(rate) for rate in rates.values()):
        raise ValueError("the slotted model needs whole packets per slot")
    links = tuple(sl.Link(i, j, int(rate)) for (i, j), rate in rates.items())
    network = sl.Network(1 + max(max(link) for link in rates), links, sl.ExplicitConflicts(()))
    slotted_flows = [
        sl.Flow(flow.src, flow.dst, sl.Controlled(sl.AlphaFair(2.0)),
                allowed_links=tuple(network.link_index(*link) for link in flow.links))
        for flow in flows
    ]
    run = sl.run(sl.slotted_config(network, slotted_flows, slots=slots, m=m), warmup=warmup)
    return SlottedCheck(
        y={flow.name: float(rate) for flow, rate in zip(flows, run.admitted_rates)},
        link_rates={link: float(rate) for link, rate in zip(rates, run.links["rate"])},
        total=run.mean_backlog / (m / UTILITY_K),
        inexact_slots=run.inexact_slots,
        queues={(node, flow.name): float(run.mean_queues[node, k]) / (m / UTILITY_K)
                for k, flow in enumerate(flows) for node in range(run.mean_queues.shape[0])},
    )


# ---- the report table ------------------------------------------------------------------------


def _row(
    item: str, quantity: str, published: float, value: float, tolerance: str, ok: bool | None,
    note: str = "",
) -> dict[str, Any]:
    return {"item": item, "quantity": quantity, "published": published, "airtcp": value,
            "tolerance": tolerance, "ok": ok, "note": note}


def _near(item: str, quantity: str, published: float, value: float, tol: float, note: str = "") -> dict[str, Any]:
    return _row(item, quantity, published, value, f"±{tol:g}", bool(abs(value - published) <= tol), note)


def _at_most(item: str, quantity: str, published: float, value: float, bound: float, note: str = "") -> dict[str, Any]:
    return _row(item, quantity, published, value, f"≤ {bound:g}", bool(value <= bound), note)


_NOTE_A2 = "§2.3 says 63; §3.5's 'instead of 90' is a slip (A2)"
_NOTE_A3 = "§2.2 prints x24 = 4, x35 = 2: swapped (A3)"
_PHASE_LOCK = (
    "integer packets at fixed spacing lock into a cycle; ties in (15) go to node 2, whose custody "
    "then sits a packet above node 3's for part of each 0.5-unit service: C2 > C1 = min(C2, C3)"
)
_LATE_G = 50.0  # f has settled (P2^f ≈ 4) well before: its time constant is ≈ 3 time units


def _classical_rows(quick: bool) -> list[dict[str, Any]]:
    one = classical_bp_fluid(fig1_flows(False), warmup=60.0 if quick else 100.0, window=40.0)
    two = classical_bp_fluid(fig1_flows(True), warmup=300.0 if quick else 500.0, window=100.0)
    rows = [_near("E1 fluid BP", "y_f", 6, one.y["f"], 0.05)]
    rows += [_near("E1 fluid BP", f"q{n}^f", 4, one.queues[(n, "f")], 0.3) for n in (1, 2, 3)]
    rows += [_near("E1 fluid BP", f"q{n}^f", 0, one.queues[(n, "f")], 0.3) for n in (4, 5)]
    rows += [
        _near("E1 fluid BP", "x24", 2, one.link_rates[((2, 4), "f")], 0.05, _NOTE_A3),
        _near("E1 fluid BP", "x35", 4, one.link_rates[((3, 5), "f")], 0.05, _NOTE_A3),
        _near("E1 fluid BP", "total queued", 12, one.total, 1.0),
        _near("E3 fluid BP", "y_f", 4, two.y["f"], 0.05),
        _near("E3 fluid BP", "y_g", 2, two.y["g"], 0.05),
    ]
    rows += [_near("E3 fluid BP", f"q{n}^f", 9, two.queues[(n, "f")], 0.3) for n in (1, 2, 3)]
    rows += [
        _near("E3 fluid BP", "q2^g", 36, two.queues[(2, "g")], 1.0),
        _near("E3 fluid BP", "total queued", 63, two.total, 2.0, _NOTE_A2),
    ]
    return rows + _literal_rows()


def _literal_rows() -> list[dict[str, Any]]:
    """The literal full-rate rule converges on average only, with a bias of order rate·eps."""
    item, eps = "E1 fluid BP, full-rate rule", 0.001
    one = classical_bp_fluid(fig1_flows(False), eps=eps, serve="full", warmup=60.0, window=40.0)
    note = f"eps = {eps:g}; at eps = 0.01 q2, q3 ≈ 4.95 (the slotted model's bias)"
    rows = [_near(item, f"q{n}^f", 4, one.queues[(n, "f")], 0.3, note) for n in (1, 2, 3)]
    return rows + [_near(item, "total queued", 12, one.total, 1.0, note)]


def _burst_rows() -> list[dict[str, Any]]:
    burst = bp_burst({1: 4, 2: 4, 3: 4, 4: 0, 5: 0}, {1: 9})
    rows = [_near("E2 burst", f"sent 1→{j}", 3, burst.sent[(1, j)], 0) for j in (2, 3)]
    return rows + [_near("E2 burst", f"q{n}", 7, burst.queues[n], 0) for n in (1, 2, 3)]


def _slotted_rows(quick: bool) -> list[dict[str, Any]]:
    slots = 100_000 if quick else 200_000
    one, two = (slotted_bp(fig1_flows(both), slots=slots) for both in (False, True))
    note = f"m = 14400, queues ÷ 100, {slots} slots after 50k warm-up"
    return [
        _near("E1 slotted BP", "y_f", 6, one.y["f"], 0.05, note),
        _near("E1 slotted BP", "x24", 2, one.link_rates[(2, 4)], 0.05, _NOTE_A3),
        _near("E1 slotted BP", "x35", 4, one.link_rates[(3, 5)], 0.05, _NOTE_A3),
        _near("E1 slotted BP", "total queued", 14, one.total, 3.0,
              "paper 12; one-slot pumping over the R = 100 links adds ≈ 0.9 at q2, q3 (spec §6(b))"),
        *(_near("E1 slotted BP", f"q{n}^f", 4, one.queues[(n, "f")], 1.5, note) for n in (1, 2, 3)),
        _near("E3 slotted BP", "y_f", 4, two.y["f"], 0.05, note),
        _near("E3 slotted BP", "y_g", 2, two.y["g"], 0.05, note),
        _near("E3 slotted BP", "total queued", 65, two.total, 4.0, "paper 63 (A2); pumping bias as E1"),
        *(_near("E3 slotted BP", f"q{n}^f", 9, two.queues[(n, "f")], 1.5, note) for n in (1, 2, 3)),
        _near("E3 slotted BP", "q2^g", 36, two.queues[(2, "g")], 1.5, note),
    ]


def _horizon_one_rows(model: Model, quick: bool) -> list[dict[str, Any]]:
    one = horizon_pricing(fig1_flows(False), model=model, warmup=100.0, window=100.0 if quick else 300.0)
    item = f"E4 Horizon {model}"
    rows = [_near(item, "y_f", 6, one.y["f"], 0.05, "§3.5 prints y* = 8: typo for 6 (A1)")]
    rows += [_near(item, f"C{n}^f", 4, one.prices[(n, "f")], 0.5, _PHASE_LOCK if (model, n) == ("packets", 2) else "")
             for n in (1, 2, 3)]
    rows += [_near(item, f"C{n}^f", 0, one.prices[(n, "f")], 0.5, "tolerance ours") for n in (4, 5)]
    rows += [_near(item, f"P{n}^f", 4, one.custody[(n, "f")], 1.0) for n in (2, 3)]
    rows += [_near(item, f"P{n}^f", 0, one.custody[(n, "f")], 0.5, "tolerance ours") for n in (1, 4, 5)]
    return rows + [
        _near(item, "share of f via node 2", 1 / 3, one.share_via_2["f"], 0.03),
        _near(item, "total custody", 8, one.total, 2.0, "BP queues 12 for the same prices"),
    ]


def _horizon_two_rows(model: Model, quick: bool) -> list[dict[str, Any]]:
    two = horizon_pricing(fig1_flows(True), model=model, warmup=300.0, window=100.0 if quick else 300.0)
    item = f"E5 Horizon {model}"
    return [
        _near(item, "y_f", 4, two.y["f"], 0.05),
        _near(item, "y_g", 2, two.y["g"], 0.05),
        _near(item, "C1^f", 9, two.prices[(1, "f")], 0.5),
        _near(item, "C3^f", 9, two.prices[(3, "f")], 0.5),
        _near(item, "C2^f", 36, two.prices[(2, "f")], 1.5),
        _near(item, "C2^g", 36, two.prices[(2, "g")], 1.5),
        _near(item, "P3^f", 9, two.custody[(3, "f")], 1.0),
        _near(item, "P2^g", 36, two.custody[(2, "g")], 1.5),
        _at_most(item, "P2^f", 0, two.custody[(2, "f")], 1.0, "§3.5: 0"),
        _at_most(item, "share of f via node 2", 0, two.share_via_2["f"], 0.01, "< 1 %"),
        _near(item, "total custody", 45, two.total, 3.0, "'instead of 90': BP queues 63 (A2)"),
        _row(item, "longest unserved custody (time)", math.nan, max(two.hol_wait.values()), "report", None,
             "both start at 0: g has custody at node 2 before node 1 forwards f's first packet"),
    ]


def _stranding_rows(quick: bool) -> list[dict[str, Any]]:
    """A5: g starting after f has custody at node 2 strands it there under strict (14)."""
    late = horizon_pricing(fig1_flows(True), model="packets", warmup=300.0, window=100.0 if quick else 300.0,
                           start={"g": _LATE_G})
    item = f"A5 Horizon packets, g from t={_LATE_G:g}"
    note = "strict (14): f's packets at node 2 never outweigh g's custody; no aging rule added"
    return [
        _row(item, "P2^f stranded at the end", 0, late.final_custody[(2, "f")], "report", None, note),
        _row(item, "longest head-of-line wait of f at node 2", math.nan, late.hol_wait[(2, "f")], "report",
             None, "the whole run after g started"),
    ]


def worked_examples(quick: bool) -> list[dict[str, Any]]:
    """Every worked example run by its algorithm: rows `{item, quantity, published, airtcp,
    tolerance, ok, note}` against the corrected targets (`ok` None: reported, not checked).
    `quick` shortens the measured windows."""
    rows = _classical_rows(quick) + _burst_rows() + _slotted_rows(quick)
    models: tuple[Model, ...] = ("fluid", "packets")
    for model in models:
        rows += _horizon_one_rows(model, quick) + _horizon_two_rows(model, quick)
    return rows + _stranding_rows(quick)


def _flatten(rows: Iterable[dict[str, Any]]) -> list[str]:
    """The rows as aligned text (for a quick look from the command line)."""
    return [
        f"{r['item']:<14} {r['quantity']:<24} {r['published']:>8.3g} {r['airtcp']:>9.4g} "
        f"{r['tolerance']:<8} {r['ok']!s:<5} {r['note']}"
        for r in rows
    ]


if __name__ == "__main__":
    print("\n".join(_flatten(worked_examples(quick=True))))
