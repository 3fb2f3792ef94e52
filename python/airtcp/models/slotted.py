"""The idealised slotted model of paper 000 §2-3 from Python: build a `SlottedConfig`, run it, read
the results as tables.

The model itself (i.i.d. ON/OFF links, a conflict graph, backpressure routing with the classical or
TCP-aware differential of eq. (2), max-weight inter-node scheduling, the flow controller of eq. (5))
lives in the Rust core (`crates/airtcp/src/mac/conflict_graph/`, described in
`docs/conflict_graph.md`); this module only writes its configuration and reads its results, so the
serde schema stays the one source of truth:

    from airtcp.models import slotted as sl
    net = sl.diamond(p_on=0.8, bidirectional=True)
    flows = [sl.Flow(0, 1, sl.Controlled()), sl.Flow(0, 3, sl.Controlled())]
    cfg = sl.slotted_config(net, flows, k=5, m=20, slots=100_000)
    run = sl.run(cfg, warmup=10_000)
    run.flows[["flow", "admitted_rate"]]

The same `cfg` feeds `airtcp.models.capacity_region` (`max_scaling`, `num_optimum`), so the optimum and
the simulation describe one scenario. Node numbering of the paper-000 topologies follows
`scenarios/topologies/{tree,diamond}.yaml`: A = 0, B = 1, C = 2, D = 3.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from airtcp import _core
from airtcp.errors import ScenarioError

__all__ = [
    "Link",
    "NodeExclusive",
    "ProtocolModel",
    "ExplicitConflicts",
    "Network",
    "chain",
    "tree",
    "diamond",
    "grid",
    "Log",
    "AlphaFair",
    "TcpReno",
    "Bernoulli",
    "Poisson",
    "Controlled",
    "Flow",
    "slotted_config",
    "run",
    "LineFit",
    "SlottedRun",
    "conflict_pairs",
]

ConflictKind = Literal["node_exclusive", "protocol"]
PerLink = float | Sequence[float]


@dataclass(frozen=True)
class Link:
    """A directed link `src -> dst` carrying `capacity` packets (`R_l`) in a slot when ON, which it
    is with probability `p_on` in every slot (i.i.d.)."""

    src: int
    dst: int
    capacity: int = 1
    p_on: float = 1.0

    def to_core(self) -> dict[str, Any]:
        """The core's `Link` (it spells the ends `from` and `to`)."""
        return {"from": self.src, "to": self.dst, "capacity": self.capacity, "p_on": self.p_on}


@dataclass(frozen=True)
class NodeExclusive:
    """Primary interference: two links conflict iff they share a node."""

    def to_core(self, network: Network) -> dict[str, Any]:
        """The core's `conflicts` entry."""
        return {"kind": "node_exclusive"}


@dataclass(frozen=True)
class ProtocolModel:
    """Protocol interference model with a fixed range (needs node positions): links conflict if
    they share a node or a receiver is within `interference_range` of the other's transmitter."""

    interference_range: float = 250.0

    def to_core(self, network: Network) -> dict[str, Any]:
        """The core's `conflicts` entry, with the network's positions."""
        if network.positions is None:
            raise ScenarioError("conflicts.positions", "the protocol model needs node positions")
        return {
            "kind": "protocol",
            "positions": [list(p) for p in network.positions],
            "interference_range": self.interference_range,
        }


@dataclass(frozen=True)
class ExplicitConflicts:
    """Exactly these pairs of link indices conflict (node sharing is not added)."""

    pairs: tuple[tuple[int, int], ...]

    def to_core(self, network: Network) -> dict[str, Any]:
        """The core's `conflicts` entry."""
        return {"kind": "explicit", "pairs": [list(p) for p in self.pairs]}


Conflicts = NodeExclusive | ProtocolModel | ExplicitConflicts


@dataclass(frozen=True)
class Network:
    """Nodes `0..num_nodes`, directed links and how they interfere. `positions` (one `(x, y)` per
    node, metres) are needed by the protocol model only."""

    num_nodes: int
    links: tuple[Link, ...]
    conflicts: Conflicts = field(default_factory=NodeExclusive)
    positions: tuple[tuple[float, float], ...] | None = None

    def link_index(self, src: int, dst: int) -> int:
        """The index of link `src -> dst` (as flows' `allowed_links` and the results number them)."""
        for index, link in enumerate(self.links):
            if (link.src, link.dst) == (src, dst):
                return index
        raise KeyError(f"no link {src} -> {dst}")

    def to_core(self) -> dict[str, Any]:
        """The network part of a `SlottedConfig`."""
        return {
            "num_nodes": self.num_nodes,
            "links": [link.to_core() for link in self.links],
            "conflicts": self.conflicts.to_core(self),
        }


def _per_link(value: PerLink, count: int, name: str) -> list[float]:
    """A scalar for every link, or one value per link (in the builder's link order)."""
    if isinstance(value, (int, float)):
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ScenarioError(name, f"{len(values)} values for {count} links")
    return values


def _network(
    positions: Sequence[tuple[float, float]],
    ends: Sequence[tuple[int, int]],
    *,
    capacity: PerLink,
    p_on: PerLink,
    bidirectional: bool,
    conflicts: ConflictKind,
    interference_range: float,
) -> Network:
    """Builds a network from node positions and forward link ends; with `bidirectional`, the
    reverse links follow the forward ones (link `k + len(ends)` is link `k` reversed), so forward
    indices do not depend on that choice. `capacity` and `p_on` are per link in that order."""
    all_ends = list(ends) + ([(b, a) for a, b in ends] if bidirectional else [])
    caps = _per_link(capacity, len(all_ends), "capacity")
    probs = _per_link(p_on, len(all_ends), "p_on")
    links = tuple(Link(a, b, int(c), float(p)) for (a, b), c, p in zip(all_ends, caps, probs))
    if any(link.capacity != c for link, c in zip(links, caps)):
        raise ScenarioError("capacity", "capacities are whole packets per slot")
    kind: Conflicts
    if conflicts == "node_exclusive":
        kind = NodeExclusive()
    elif conflicts == "protocol":
        kind = ProtocolModel(interference_range)
    else:
        raise ScenarioError("conflicts", f"unknown kind {conflicts!r} (node_exclusive or protocol)")
    return Network(len(positions), links, kind, tuple((float(x), float(y)) for x, y in positions))


def chain(
    nodes: int,
    *,
    capacity: PerLink = 1,
    p_on: PerLink = 1.0,
    bidirectional: bool = False,
    conflicts: ConflictKind = "node_exclusive",
    spacing: float = 200.0,
    interference_range: float = 250.0,
) -> Network:
    """`0 -> 1 -> ... -> nodes-1`, `spacing` metres apart on a line. With node-exclusive conflicts
    neighbouring links conflict (a 3-node chain carries at most 1/2 per slot end to end); with the
    protocol model and the default 200 m / 250 m, links two hops apart conflict too."""
    if nodes < 2:
        raise ScenarioError("nodes", "a chain needs at least 2 nodes")
    positions = [(i * spacing, 0.0) for i in range(nodes)]
    ends = [(i, i + 1) for i in range(nodes - 1)]
    return _network(positions, ends, capacity=capacity, p_on=p_on, bidirectional=bidirectional,
                    conflicts=conflicts, interference_range=interference_range)


def tree(
    *,
    capacity: PerLink = 1,
    p_on: PerLink = 1.0,
    bidirectional: bool = False,
    conflicts: ConflictKind = "node_exclusive",
    interference_range: float = 250.0,
) -> Network:
    """Paper 000's tree (Fig. 5a, as reconstructed in `scenarios/topologies/tree.yaml`): links
    A->B, A->C, C->D (A = 0, B = 1, C = 2, D = 3)."""
    positions = [(141.0, 341.0), (0.0, 200.0), (283.0, 200.0), (283.0, 0.0)]
    return _network(positions, [(0, 1), (0, 2), (2, 3)], capacity=capacity, p_on=p_on,
                    bidirectional=bidirectional, conflicts=conflicts,
                    interference_range=interference_range)


def diamond(
    *,
    capacity: PerLink = 1,
    p_on: PerLink = 1.0,
    bidirectional: bool = False,
    conflicts: ConflictKind = "node_exclusive",
    interference_range: float = 250.0,
) -> Network:
    """Paper 000's diamond (Fig. 5b, as reconstructed in `scenarios/topologies/diamond.yaml`):
    links A->B, A->C, B->D, C->D (A = 0, B = 1, C = 2, D = 3); D is two hops from A either way."""
    positions = [(0.0, 141.0), (141.0, 283.0), (141.0, 0.0), (283.0, 141.0)]
    return _network(positions, [(0, 1), (0, 2), (1, 3), (2, 3)], capacity=capacity, p_on=p_on,
                    bidirectional=bidirectional, conflicts=conflicts,
                    interference_range=interference_range)


def grid(
    cols: int,
    rows: int,
    *,
    capacity: PerLink = 1,
    p_on: PerLink = 1.0,
    bidirectional: bool = True,
    conflicts: ConflictKind = "protocol",
    spacing: float = 200.0,
    interference_range: float = 250.0,
) -> Network:
    """A `cols x rows` grid, node `v` at `(v % cols, v // cols) * spacing`, links to the right and
    downward neighbours (then their reverses). The 4 x 3 grid with both directions has the 34 links
    of paper 000's Fig. 5c; it is too large for `airtcp.models.capacity_region` unless every `p_on` is 1."""
    if cols < 1 or rows < 1 or cols * rows < 2:
        raise ScenarioError("grid", "needs at least 2 nodes")
    positions = [((v % cols) * spacing, (v // cols) * spacing) for v in range(cols * rows)]
    ends: list[tuple[int, int]] = []
    for v in range(cols * rows):
        if v % cols + 1 < cols:
            ends.append((v, v + 1))
        if v + cols < cols * rows:
            ends.append((v, v + cols))
    return _network(positions, ends, capacity=capacity, p_on=p_on, bidirectional=bidirectional,
                    conflicts=conflicts, interference_range=interference_range)


@dataclass(frozen=True)
class Log:
    """`g(x) = log x` (proportional fairness; paper 000 §5's non-TCP flows)."""

    def to_core(self) -> dict[str, Any]:
        """The core's `Utility`."""
        return {"kind": "log"}


@dataclass(frozen=True)
class AlphaFair:
    """`g(x) = x^(1-α) / (1-α)`, α > 0 (paper 000 §4.3)."""

    alpha: float

    def to_core(self) -> dict[str, Any]:
        """The core's `Utility`."""
        return {"kind": "alpha_fair", "alpha": self.alpha}


@dataclass(frozen=True)
class TcpReno:
    """TCP-Reno's implicit utility (paper 000 Appendix C), `rtt` in slots, `beta` the decrease."""

    rtt: float
    beta: float = 0.5

    def to_core(self) -> dict[str, Any]:
        """The core's `Utility`."""
        return {"kind": "tcp_reno", "rtt": self.rtt, "beta": self.beta}


Utility = Log | AlphaFair | TcpReno


@dataclass(frozen=True)
class Bernoulli:
    """One packet with probability `rate` per slot (`rate <= 1`)."""

    rate: float

    def to_core(self) -> dict[str, Any]:
        """The core's `FlowSource`."""
        return {"kind": "bernoulli", "lambda": self.rate}


@dataclass(frozen=True)
class Poisson:
    """A Poisson number of packets per slot with mean `rate`."""

    rate: float

    def to_core(self) -> dict[str, Any]:
        """The core's `FlowSource`."""
        return {"kind": "poisson", "lambda": self.rate}


@dataclass(frozen=True)
class Controlled:
    """A saturated source admitted by eq. (5) with utility `utility`."""

    utility: Utility = field(default_factory=Log)

    def to_core(self) -> dict[str, Any]:
        """The core's `FlowSource`."""
        return {"kind": "controlled", "utility": self.utility.to_core()}


Source = Bernoulli | Poisson | Controlled


@dataclass(frozen=True)
class Flow:
    """A unicast flow `src -> dst`; `allowed_links` confines it to those link indices (default:
    every link, as backpressure routing has it)."""

    src: int
    dst: int
    source: Source
    allowed_links: tuple[int, ...] | None = None

    def to_core(self) -> dict[str, Any]:
        """The core's `SlottedFlow`."""
        out: dict[str, Any] = {"src": self.src, "dst": self.dst, "source": self.source.to_core()}
        if self.allowed_links is not None:
            out["allowed_links"] = list(self.allowed_links)
        return out


def slotted_config(
    network: Network,
    flows: Sequence[Flow],
    *,
    slots: int,
    k: float | None = None,
    m: float | None = None,
    r_max: float | None = None,
    backlogged_only: bool = False,
    scheduler: Mapping[str, Any] | None = None,
    seed: int = 1,
    trace_every: int = 0,
) -> dict[str, Any]:
    """A `SlottedConfig` as the core reads it (a plain dict: it can be stored, edited, dumped).

    `k=None` is classical backpressure, a number the TCP-aware differential of eq. (2) with that
    `K`. `m` switches on eq. (5) for `Controlled` flows; `r_max` defaults to twice the largest link
    capacity (the paper asks for more than any node's outgoing rate). `scheduler` is the core's
    `SchedulerKind` (default: exact max-weight)."""
    config: dict[str, Any] = {
        **network.to_core(),
        "flows": [flow.to_core() for flow in flows],
        "differential": {"kind": "classical"} if k is None else {"kind": "tcp_aware", "k": float(k)},
        "backlogged_only": backlogged_only,
        "slots": int(slots),
        "seed": int(seed),
        "trace_every": int(trace_every),
    }
    if m is not None:
        if r_max is None:
            r_max = 2.0 * max((link.capacity for link in network.links), default=1)
        config["flow_control"] = {"m": float(m), "r_max": float(r_max)}
    if scheduler is not None:
        config["scheduler"] = dict(scheduler)
    return config


@dataclass(frozen=True)
class LineFit:
    """A least-squares line through part of the backlog trace: `backlog ≈ intercept + slope * slot`;
    `r2` is the coefficient of determination (1 for a straight line, about 0 for noise)."""

    slope: float
    intercept: float
    r2: float


@dataclass(frozen=True)
class SlottedRun:
    """The results of one run, over its measured window (after `warmup` slots).

    `mean_backlog` is the time average of `Σ_{i,s} U_i^s` over the window; `flows` has per-flow
    `admitted` / `delivered` packets and rates per slot; `links` per-link active slots and packets;
    `backlog_trace` the total backlog every `trace_every` slots (absolute slot numbers);
    `mean_queues[i, s]` the time average of `U_i^s` over the window. `raw` is the core's
    `SlottedResults` of the whole run."""

    slots: int
    warmup: int
    mean_backlog: float
    final_backlog: float
    inexact_slots: int
    flows: pd.DataFrame
    links: pd.DataFrame
    backlog_trace: pd.DataFrame
    mean_queues: np.ndarray
    raw: dict[str, Any]

    @property
    def admitted_rates(self) -> np.ndarray:
        """Admitted packets per slot, per flow, over the window."""
        return np.asarray(self.flows["admitted_rate"], dtype=float)

    @property
    def delivered_rates(self) -> np.ndarray:
        """Delivered packets per slot, per flow, over the window."""
        return np.asarray(self.flows["delivered_rate"], dtype=float)

    def backlog_fit(self, since: float = 0.5) -> LineFit:
        """Fits a line to the trace points after the fraction `since` of the window: slope about 0
        when the queues are stable, about the excess arrival rate when they are not."""
        trace = self.backlog_trace
        start = self.warmup + since * self.slots
        part = trace[trace["slot"] > start]
        if len(part) < 3:
            raise ValueError("fewer than 3 trace points to fit; set trace_every")
        x = part["slot"].to_numpy(dtype=float)
        y = part["backlog"].to_numpy(dtype=float)
        slope, intercept = np.polyfit(x, y, 1)
        residual = y - (intercept + slope * x)
        spread = float(np.sum((y - y.mean()) ** 2))
        r2 = 1.0 - float(np.sum(residual**2)) / spread if spread > 0 else 1.0
        return LineFit(float(slope), float(intercept), r2)

    def mean_trace(self, start: float, stop: float) -> float:
        """The mean of the trace points in the fraction `(start, stop]` of the window."""
        trace = self.backlog_trace
        lo, hi = self.warmup + start * self.slots, self.warmup + stop * self.slots
        part = trace[(trace["slot"] > lo) & (trace["slot"] <= hi)]
        return float(part["backlog"].mean()) if len(part) else math.nan


def _core_run(config: Mapping[str, Any]) -> dict[str, Any]:
    """One call into the core; its `"<path>: <message>"` errors become `ScenarioError`s."""
    try:
        output = _core.slotted_json(json.dumps(config))
    except ValueError as error:
        path, sep, message = str(error).partition(": ")
        raise (ScenarioError(path, message) if sep else ScenarioError("<slotted>", str(error))) from None
    result: dict[str, Any] = json.loads(output)
    return result


def run(config: Mapping[str, Any], *, warmup: int = 0) -> SlottedRun:
    """Runs `config` (a `SlottedConfig` dict) and reports on its `slots` after `warmup` more.

    With a warm-up the model runs `warmup + slots` slots and, separately, the first `warmup`
    alone, and the counters are differenced. That is exact because a run's first `n` slots do not
    depend on how long it goes on (every random stream is fixed by the seed and the component):
    the short run is a prefix of the long one. It removes the start-up transient (queues filling
    to `O(M)` under eq. (5)) from rates and averages without a change to the core."""
    if warmup < 0:
        raise ScenarioError("warmup", "must be >= 0")
    slots = int(config["slots"])
    full = _core_run({**config, "slots": warmup + slots})
    prefix = _core_run({**config, "slots": warmup, "trace_every": 0}) if warmup else None
    return _to_run(config, full, prefix, warmup, slots)


def _minus(full: Sequence[float], prefix: Mapping[str, Any] | None, key: str) -> np.ndarray:
    """`full[key] - prefix[key]` per element (the window's share of a cumulative counter)."""
    values = np.asarray(full, dtype=float)
    return values - np.asarray(prefix[key], dtype=float) if prefix is not None else values


def _to_run(
    config: Mapping[str, Any],
    full: dict[str, Any],
    prefix: dict[str, Any] | None,
    warmup: int,
    slots: int,
) -> SlottedRun:
    """The window's statistics from the whole run and (with a warm-up) its prefix."""
    per_slot = 1.0 / slots if slots else math.nan
    admitted = _minus(full["admitted"], prefix, "admitted")
    delivered = _minus(full["delivered"], prefix, "delivered")
    flows = pd.DataFrame({
        "flow": range(len(admitted)),
        "src": [f["src"] for f in config["flows"]],
        "dst": [f["dst"] for f in config["flows"]],
        "admitted": admitted,
        "delivered": delivered,
        "admitted_rate": admitted * per_slot,
        "delivered_rate": delivered * per_slot,
    })
    packets = _minus(full["link_packets"], prefix, "link_packets")
    active = _minus(full["link_active_slots"], prefix, "link_active_slots").astype(np.int64)
    links = pd.DataFrame({
        "link": range(len(packets)),
        "from": [link["from"] for link in config["links"]],
        "to": [link["to"] for link in config["links"]],
        "active_slots": active,
        "packets": packets,
        "rate": packets * per_slot,
    })
    trace = pd.DataFrame(full["backlog_trace"], columns=["slot", "backlog"])
    trace = trace.astype({"slot": np.int64, "backlog": float})
    trace = trace[trace["slot"] > warmup].reset_index(drop=True)
    total = full["mean_backlog"] * (warmup + slots)
    before = prefix["mean_backlog"] * warmup if prefix is not None else 0.0
    inexact = full["inexact_slots"] - (prefix["inexact_slots"] if prefix is not None else 0)
    queues = np.asarray(full["mean_queues"], dtype=float) * (warmup + slots)
    if prefix is not None:
        queues -= np.asarray(prefix["mean_queues"], dtype=float) * warmup
    return SlottedRun(
        slots=slots,
        warmup=warmup,
        mean_backlog=(total - before) * per_slot,
        final_backlog=float(full["final_backlog"]),
        inexact_slots=int(inexact),
        flows=flows,
        links=links,
        backlog_trace=trace,
        mean_queues=(queues * per_slot).reshape(int(config["num_nodes"]), len(config["flows"])),
        raw=full,
    )


def conflict_pairs(config: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The conflicting link pairs `(a, b)`, `a < b`, of a `SlottedConfig`, by the core's rules
    (`ConflictGraph::{node_exclusive, protocol_model, from_pairs}` in
    `crates/airtcp/src/mac/conflict_graph/mod.rs`, transcribed): sharing a node; for the protocol
    model also a receiver within the range (inclusive) of the other link's transmitter."""
    ends = [(link["from"], link["to"]) for link in config["links"]]
    conflicts = config["conflicts"]
    kind = conflicts["kind"]
    if kind == "explicit":
        return sorted({(min(a, b), max(a, b)) for a, b in conflicts["pairs"]})
    if kind not in ("node_exclusive", "protocol"):
        raise ScenarioError("conflicts.kind", f"unknown kind {kind!r}")

    def shares_node(a: tuple[int, int], b: tuple[int, int]) -> bool:
        return bool({a[0], a[1]} & {b[0], b[1]})

    def within(tx: int, rx: int) -> bool:
        (px, py), (qx, qy) = conflicts["positions"][tx], conflicts["positions"][rx]
        return math.hypot(px - qx, py - qy) <= float(conflicts["interference_range"])

    def conflict(a: tuple[int, int], b: tuple[int, int]) -> bool:
        if shares_node(a, b):
            return True
        return kind == "protocol" and (within(b[0], a[1]) or within(a[0], b[1]))

    return [(a, b) for a in range(len(ends)) for b in range(a + 1, len(ends)) if conflict(ends[a], ends[b])]
