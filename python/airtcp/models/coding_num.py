"""The network utility maximisation of paper 001 (Seferoglu & Markopoulou, "Network coding-aware
queue management for TCP flows over coded wireless networks", IEEE/ACM ToN 22(4), 2014): eq. (1)
for one-hop (COPE) codes and eq. (8) for codes that travel two hops undecoded (BFLY), solved
exactly, with a certified gap, on any instance of the small format below.

Model (§III, §IV, §VII). Flows `s` on fixed paths with log utilities. A *hyperarc* h = (i, J) is
one transmission of node i wanted by the next hops J; its capacity is R_h = min_{j ∈ J} R_ij
(capacity x success probability of each link). A *code* k is a set of flows S_k XORed together
from node i for `hops` hops: at each of its steps every flow of S_k is at the same node, and the
step's hyperarc is (that node, the flows' next hops). A flow's traffic crosses each hop of its
path either uncoded (its own transmissions over (i, {next hop})) or inside a code; alpha, the
traffic split of eq. (1) (beta of eq. (8) for a multi-hop code), is the share on each. A code's
rate is the *largest* of its flows' rates on it (eq. (1)'s max: the slower flow's share of the
XOR is wasted). Transmissions interfere within cliques: sum_{h in C_q} tau_h <= gamma, with tau_h
the share of time hyperarc h transmits (gamma = 1 gives Appendix A's numbers; the paper's
instances are one collision domain, one clique).

    max sum_s log x_s
    s.t. for every flow s and hop t of its path: sum_{options o of s covering t} f_o = x_s
         y_k >= f_o for every coded option o of code k (the max)
         for every clique C: sum_{h in C} (sum_{uncoded o on h} f_o + sum_{codes k on h} y_k) / R_h <= gamma

The time shares tau_h = load_h / R_h are eliminated (tau appears only in the clique rows). The
program is convex: log utilities over a polytope.

Method: Kelley cutting planes, as `capacity_region.num_optimum`: each log x_s is replaced by the
minimum of its tangents at chosen points, the LP (HiGHS) is solved, a tangent is added at the new
rates, until the LP's value (an upper bound: tangents lie above a concave function) and the
utility of the LP's rates (a lower bound: they are feasible) differ by at most `tol`.

Decodability (`codes: auto`). A one-hop code over flows S at node i is usable when the flows'
next hops are distinct and each next hop holds every other flow's packet: it sent it to i (it is
that packet's previous hop) or overheard that previous hop (`hears`, or a link between them). A
two-hop code (BFLY, §VII) needs one common next hop j and distinct next hops after j, each of
which holds the other flows' packets in the same sense; j forwards the XOR undecoded. A packet
that originates at i is held by nobody else, so a flow is never coded at its own source.

Instance format (a mapping, e.g. read from YAML):

    links:   [{from: A1, to: I, capacity: 1}, ...]   # directed; `both: true` adds the reverse
    flows:   [{id: f1, path: [A1, I, A2]}, ...]
    hears:   [[A1, A2], ...]      # optional: pairs that overhear each other (links hear too)
    codes:   auto | none | [{at: I, flows: [f1, f2], hops: 1}, ...]     # default auto
    cliques: [[[I, [A1, A2]], [A1, [I]]], ...]       # optional; default: one clique of all
    gamma:   1                                        # optional

`appendix_a()` returns the paper's six instances (Figs. 10-15) and `wheel(n)` the wheel of §VI.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from airtcp.errors import ScenarioError, SimulationError
from airtcp.models._lp import sparse_rows, widen

__all__ = [
    "Code",
    "CodingInstance",
    "CodingOptimum",
    "appendix_a",
    "instance",
    "optimum",
    "wheel",
]

_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
# Above this many flows through one node, `codes: auto` would enumerate too many subsets.
MAX_AUTO_FLOWS = 12

Hyperarc = tuple[str, frozenset[str]]


@dataclass(frozen=True)
class Code:
    """Flows `flows` XORed at `at` for `hops` hops; `hyperarcs` per step."""

    at: str
    flows: tuple[int, ...]
    hops: int
    hyperarcs: tuple[Hyperarc, ...]
    #: Per flow (same order), the index of its first coded hop on its path.
    first_hop: tuple[int, ...]

    def label(self, flow_ids: Sequence[str]) -> str:
        names = "+".join(flow_ids[s] for s in self.flows)
        return f"{names}@{self.at}" + (f"x{self.hops}" if self.hops > 1 else "")


@dataclass(frozen=True)
class CodingInstance:
    """A checked instance: capacities R_ij, flows' paths, the codes allowed, the cliques."""

    capacity: Mapping[tuple[str, str], float]
    flow_ids: tuple[str, ...]
    paths: tuple[tuple[str, ...], ...]
    codes: tuple[Code, ...]
    cliques: tuple[frozenset[Hyperarc], ...] | None
    gamma: float

    def hyperarc_capacity(self, h: Hyperarc) -> float:
        node, next_hops = h
        return min(self.capacity[(node, j)] for j in next_hops)


def _fail(path: str, message: str) -> ScenarioError:
    return ScenarioError(path, message)


def _positive(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise _fail(path, f"must be a positive number, got {value!r}")
    return float(value)


def instance(spec: Mapping[str, Any]) -> CodingInstance:
    """Checks `spec` (the format of the module header) and builds the instance; a problem raises
    `ScenarioError` naming the field."""
    if not isinstance(spec, Mapping):
        raise _fail("instance", "must be a mapping")
    unknown = set(spec) - {"links", "flows", "hears", "codes", "cliques", "gamma"}
    if unknown:
        raise _fail(sorted(unknown)[0], "unknown field; allowed: links, flows, hears, codes, cliques, gamma")
    capacity: dict[tuple[str, str], float] = {}
    links = spec.get("links")
    if not isinstance(links, Sequence) or isinstance(links, str) or not links:
        raise _fail("links", "must be a non-empty list")
    for n, link in enumerate(links):
        if not isinstance(link, Mapping) or not {"from", "to", "capacity"} <= set(link):
            raise _fail(f"links[{n}]", "must have from, to and capacity")
        a, b = str(link["from"]), str(link["to"])
        if a == b:
            raise _fail(f"links[{n}]", f"a link from {a} to itself")
        c = _positive(link["capacity"], f"links[{n}].capacity")
        pairs = [(a, b), (b, a)] if link.get("both", False) else [(a, b)]
        for pair in pairs:
            if pair in capacity:
                raise _fail(f"links[{n}]", f"the link {pair[0]} -> {pair[1]} is listed twice")
            capacity[pair] = c
    flows = spec.get("flows")
    if not isinstance(flows, Sequence) or isinstance(flows, str) or not flows:
        raise _fail("flows", "must be a non-empty list")
    ids, paths = [], []
    for n, flow in enumerate(flows):
        if not isinstance(flow, Mapping) or "path" not in flow:
            raise _fail(f"flows[{n}]", "must have a path")
        path = flow["path"]
        if not isinstance(path, Sequence) or isinstance(path, str) or len(path) < 2:
            raise _fail(f"flows[{n}].path", "must list at least two nodes")
        path = tuple(str(v) for v in path)
        if len(set(path)) != len(path):
            raise _fail(f"flows[{n}].path", "visits a node twice")
        for t, (a, b) in enumerate(zip(path, path[1:])):
            if (a, b) not in capacity:
                raise _fail(f"flows[{n}].path[{t + 1}]", f"no link {a} -> {b}")
        fid = str(flow.get("id", f"f{n}"))
        if fid in ids:
            raise _fail(f"flows[{n}].id", f"{fid!r} is used twice")
        ids.append(fid)
        paths.append(path)
    hears = _hearing(spec.get("hears", []), capacity)
    gamma = _positive(spec.get("gamma", 1.0), "gamma")
    codes = _codes(spec.get("codes", "auto"), ids, paths, hears)
    cliques = _cliques(spec.get("cliques"), capacity)
    return CodingInstance(capacity, tuple(ids), tuple(paths), codes, cliques, gamma)


def _hearing(pairs: Any, capacity: Mapping[tuple[str, str], float]) -> frozenset[tuple[str, str]]:
    """Ordered pairs (talker, listener) that overhear: the `hears` pairs both ways, and links."""
    if not isinstance(pairs, Sequence) or isinstance(pairs, str):
        raise _fail("hears", "must be a list of node pairs")
    found = {pair for pair in capacity} | {(b, a) for a, b in capacity}
    for n, pair in enumerate(pairs):
        if not isinstance(pair, Sequence) or isinstance(pair, str) or len(pair) != 2:
            raise _fail(f"hears[{n}]", "must be a pair of nodes")
        a, b = str(pair[0]), str(pair[1])
        found |= {(a, b), (b, a)}
    return frozenset(found)


def _holds(node: str, path: Sequence[str], at: int, hears: frozenset[tuple[str, str]]) -> bool:
    """Whether `node` holds the packet of a flow on `path` that is at `path[at]`: it is the
    packet's previous hop or overheard it (never at the packet's source)."""
    if at == 0:
        return False
    previous = path[at - 1]
    return node == previous or (previous, node) in hears


def _step(paths: Sequence[Sequence[str]], flows: Sequence[int], hops: Sequence[int]) -> Hyperarc | None:
    """The hyperarc of one step of a code (the flows at hop indices `hops`), None if the flows are
    not at one node or their next hops are not all different (one next hop is allowed only on
    the first step of a two-hop code, handled by the caller)."""
    nodes = {paths[s][t] for s, t in zip(flows, hops)}
    if len(nodes) != 1 or any(t + 1 >= len(paths[s]) for s, t in zip(flows, hops)):
        return None
    return nodes.pop(), frozenset(paths[s][t + 1] for s, t in zip(flows, hops))


def _decodable(paths: Sequence[Sequence[str]], flows: Sequence[int], at_hop: Sequence[int],
               receivers: Sequence[str], hears: frozenset[tuple[str, str]]) -> bool:
    """Each flow's receiver holds every other flow's packet (the packets as they were at the
    coding node, hop indices `at_hop`)."""
    for a, receiver in zip(range(len(flows)), receivers):
        for b in range(len(flows)):
            if a != b and not _holds(receiver, paths[flows[b]], at_hop[b], hears):
                return False
    return True


def _auto_codes(paths: Sequence[Sequence[str]], hears: frozenset[tuple[str, str]]) -> list[Code]:
    at_node: dict[str, list[tuple[int, int]]] = {}
    for s, path in enumerate(paths):
        for t, node in enumerate(path[:-1]):
            at_node.setdefault(node, []).append((s, t))
    codes = []
    for node in sorted(at_node):
        here = at_node[node]
        if len(here) > MAX_AUTO_FLOWS:
            raise _fail("codes", f"{len(here)} flows pass {node}: too many to enumerate; list the codes")
        for size in range(2, len(here) + 1):
            for group in itertools.combinations(here, size):
                flows = tuple(s for s, _ in group)
                hops = tuple(t for _, t in group)
                codes += _one_hop(paths, node, flows, hops, hears) + _two_hop(paths, node, flows, hops, hears)
    return codes


def _one_hop(paths: Sequence[Sequence[str]], node: str, flows: tuple[int, ...], hops: tuple[int, ...],
             hears: frozenset[tuple[str, str]]) -> list[Code]:
    receivers = [paths[s][t + 1] for s, t in zip(flows, hops)]
    if len(set(receivers)) != len(receivers) or not _decodable(paths, flows, hops, receivers, hears):
        return []
    return [Code(node, flows, 1, ((node, frozenset(receivers)),), hops)]


def _two_hop(paths: Sequence[Sequence[str]], node: str, flows: tuple[int, ...], hops: tuple[int, ...],
             hears: frozenset[tuple[str, str]]) -> list[Code]:
    if any(t + 2 >= len(paths[s]) for s, t in zip(flows, hops)):
        return []
    relays = {paths[s][t + 1] for s, t in zip(flows, hops)}
    if len(relays) != 1:
        return []
    second = _step(paths, flows, [t + 1 for t in hops])
    receivers = [paths[s][t + 2] for s, t in zip(flows, hops)]
    if second is None or len(set(receivers)) != len(receivers):
        return []
    if not _decodable(paths, flows, hops, receivers, hears):
        return []
    return [Code(node, flows, 2, ((node, frozenset(relays)), second), hops)]


def _codes(spec: Any, ids: Sequence[str], paths: Sequence[Sequence[str]],
           hears: frozenset[tuple[str, str]]) -> tuple[Code, ...]:
    if spec == "auto":
        return tuple(_auto_codes(paths, hears))
    if spec == "none":
        return ()
    if not isinstance(spec, Sequence) or isinstance(spec, str):
        raise _fail("codes", "must be 'auto', 'none' or a list of codes")
    codes = []
    for n, code in enumerate(spec):
        path = f"codes[{n}]"
        if not isinstance(code, Mapping) or not {"at", "flows"} <= set(code):
            raise _fail(path, "must have at and flows")
        at, hops = str(code["at"]), code.get("hops", 1)
        if hops not in (1, 2):
            raise _fail(f"{path}.hops", f"must be 1 or 2, got {hops!r}")
        names = code["flows"]
        if not isinstance(names, Sequence) or isinstance(names, str) or len(names) < 2:
            raise _fail(f"{path}.flows", "must list at least two flows")
        flows = []
        for m, name in enumerate(names):
            if str(name) not in ids:
                raise _fail(f"{path}.flows[{m}]", f"unknown flow {name!r}")
            flows.append(ids.index(str(name)))
        if len(set(flows)) != len(flows):
            raise _fail(f"{path}.flows", "lists a flow twice")
        if any(at not in paths[s][:-1] for s in flows):
            raise _fail(f"{path}.at", f"not every flow leaves {at}")
        first = tuple(paths[s].index(at) for s in flows)
        made = (_one_hop if hops == 1 else _two_hop)(paths, at, tuple(flows), first, hears)
        if not made:
            raise _fail(path, "not decodable: every next hop must hold the other flows' packets")
        codes += made
    return tuple(codes)


def _cliques(spec: Any, capacity: Mapping[tuple[str, str], float]) -> tuple[frozenset[Hyperarc], ...] | None:
    if spec is None:
        return None
    if not isinstance(spec, Sequence) or isinstance(spec, str):
        raise _fail("cliques", "must be a list of cliques")
    cliques = []
    for n, clique in enumerate(spec):
        if not isinstance(clique, Sequence) or isinstance(clique, str):
            raise _fail(f"cliques[{n}]", "must be a list of hyperarcs [node, [next hops]]")
        members = set()
        for m, h in enumerate(clique):
            if not isinstance(h, Sequence) or isinstance(h, str) or len(h) != 2 or isinstance(h[1], str):
                raise _fail(f"cliques[{n}][{m}]", "must be [node, [next hops]]")
            node, next_hops = str(h[0]), frozenset(str(j) for j in h[1])
            if not next_hops or any((node, j) not in capacity for j in next_hops):
                raise _fail(f"cliques[{n}][{m}]", f"no links from {node} to every next hop")
            members.add((node, next_hops))
        cliques.append(frozenset(members))
    return tuple(cliques)


# --- The program ----------------------------------------------------------------------------


@dataclass
class _Program:
    """The LP's columns: x_s, then one f per option, then one y per code."""

    inst: CodingInstance
    # Options: (flow, first hop, hops covered, code index or -1, hyperarc if uncoded).
    options: list[tuple[int, int, int, int, Hyperarc | None]]

    @property
    def num_flows(self) -> int:
        return len(self.inst.paths)

    def f(self, o: int) -> int:
        return self.num_flows + o

    def y(self, k: int) -> int:
        return self.num_flows + len(self.options) + k

    @property
    def num_columns(self) -> int:
        return self.num_flows + len(self.options) + len(self.inst.codes)


def _program(inst: CodingInstance) -> _Program:
    options: list[tuple[int, int, int, int, Hyperarc | None]] = []
    for s, path in enumerate(inst.paths):
        for t in range(len(path) - 1):
            options.append((s, t, 1, -1, (path[t], frozenset([path[t + 1]]))))
    for k, code in enumerate(inst.codes):
        for s, t in zip(code.flows, code.first_hop):
            options.append((s, t, code.hops, k, None))
    return _Program(inst, options)


def _rows(prog: _Program) -> tuple[sparse.csr_array, np.ndarray, sparse.csr_array, np.ndarray]:
    """(A_ub, b_ub, A_eq, b_eq) of the program without the utility's tangents."""
    inst = prog.inst
    eq: list[tuple[int, int, float]] = []
    row = 0
    for s, path in enumerate(inst.paths):
        for t in range(len(path) - 1):
            eq.append((row, s, -1.0))
            for o, (flow, first, hops, _, _) in enumerate(prog.options):
                if flow == s and first <= t < first + hops:
                    eq.append((row, prog.f(o), 1.0))
            row += 1
    a_eq = sparse_rows(eq, (row, prog.num_columns))
    ub: list[tuple[int, int, float]] = []
    rhs: list[float] = []
    for o, (_, _, _, k, _) in enumerate(prog.options):
        if k >= 0:
            ub += [(len(rhs), prog.f(o), 1.0), (len(rhs), prog.y(k), -1.0)]
            rhs.append(0.0)
    loads = _hyperarc_loads(prog)
    cliques = inst.cliques if inst.cliques is not None else (frozenset(loads),)
    for clique in cliques:
        for h in clique:
            r = inst.hyperarc_capacity(h)
            ub += [(len(rhs), column, 1.0 / r) for column in loads.get(h, [])]
        rhs.append(inst.gamma)
    return sparse_rows(ub, (len(rhs), prog.num_columns)), np.array(rhs), a_eq, np.zeros(row)


def _hyperarc_loads(prog: _Program) -> dict[Hyperarc, list[int]]:
    """Per hyperarc, the columns whose sum is its traffic (uncoded options, codes)."""
    loads: dict[Hyperarc, list[int]] = {}
    for o, (_, _, _, k, h) in enumerate(prog.options):
        if k < 0 and h is not None:
            loads.setdefault(h, []).append(prog.f(o))
    for k, code in enumerate(prog.inst.codes):
        for h in code.hyperarcs:
            loads.setdefault(h, []).append(prog.y(k))
    return loads


@dataclass(frozen=True)
class CodingOptimum:
    """The log-utility optimum: `rates` x*_s by flow id, `total` sum x*_s, `utility` sum log x*_s
    (attained: a lower bound), `upper_bound` (the last LP's value), `code_rates` (y_k by code
    label), `time_shares` (tau_h by hyperarc, "node->next,hops"), `iterations`."""

    rates: dict[str, float]
    total: float
    utility: float
    upper_bound: float
    code_rates: dict[str, float]
    time_shares: dict[str, float]
    iterations: int

    @property
    def gap(self) -> float:
        """`upper_bound - utility` (>= 0): the certified distance from the optimum, in utility."""
        return self.upper_bound - self.utility


def _hyperarc_name(h: Hyperarc) -> str:
    return f"{h[0]}->{','.join(sorted(h[1]))}"


def optimum(spec: Mapping[str, Any] | CodingInstance, *, tol: float = 1e-10, max_iterations: int = 500) -> CodingOptimum:
    """The optimum of eq. (1) / (8) on `spec` (the module header's format, or a built instance),
    to a certified gap `tol` in utility (relative to max(1, |utility|))."""
    inst = spec if isinstance(spec, CodingInstance) else instance(spec)
    prog = _program(inst)
    a_ub, b_ub, a_eq, b_eq = _rows(prog)
    n, flows = prog.num_columns, prog.num_flows
    # x_s can never exceed gamma times the largest capacity: where the first tangents go.
    ceiling = inst.gamma * max(inst.capacity.values())
    cuts = [list(np.geomspace(ceiling * 1e-6, ceiling, 40)) for _ in range(flows)]
    objective = np.concatenate([np.zeros(n), -np.ones(flows)])
    bounds = [(0, None)] * n + [(None, None)] * flows
    for iteration in range(1, max_iterations + 1):
        # t_s <= log a + (x_s - a) / a for every cut point a of flow s.
        points = [(s, a) for s in range(flows) for a in cuts[s]]
        rows = [(r, n + s, 1.0) for r, (s, _) in enumerate(points)]
        rows += [(r, s, -1.0 / a) for r, (s, a) in enumerate(points)]
        rhs = [math.log(a) - 1.0 for _, a in points]
        full_ub = sparse.vstack([widen(a_ub, n + flows), sparse_rows(rows, (len(rhs), n + flows))]).tocsr()
        result = linprog(objective, A_ub=full_ub, b_ub=np.concatenate([b_ub, rhs]),
                         A_eq=widen(a_eq, n + flows), b_eq=b_eq, bounds=bounds, method="highs", options=_HIGHS)
        if result.status != 0:
            raise SimulationError(f"the coding NUM's LP failed: {result.message}")
        x = np.maximum(result.x[:flows], 0.0)
        utility = float(np.sum(np.log(np.maximum(x, 1e-300))))
        upper = -float(result.fun)
        if upper - utility <= tol * max(1.0, abs(utility)):
            break
        for s in range(flows):
            cuts[s].append(max(float(x[s]), ceiling * 1e-12))
    loads = _hyperarc_loads(prog)
    shares = {_hyperarc_name(h): float(sum(result.x[c] for c in cols)) / inst.hyperarc_capacity(h)
              for h, cols in sorted(loads.items(), key=lambda item: _hyperarc_name(item[0]))}
    codes = {code.label(inst.flow_ids): float(result.x[prog.y(k)]) for k, code in enumerate(inst.codes)}
    return CodingOptimum(
        rates={fid: float(v) for fid, v in zip(inst.flow_ids, x)}, total=float(np.sum(x)), utility=utility,
        upper_bound=upper, code_rates=codes, time_shares=shares, iterations=iteration,
    )


# --- The paper's instances ---------------------------------------------------------------------


def _both(a: str, b: str, c: float) -> dict[str, Any]:
    return {"from": a, "to": b, "capacity": c, "both": True}


def alice_bob(c1: float, c2: float) -> dict[str, Any]:
    """Fig. 2(a): A1 - I - A2, C1 on A1-I, C2 on A2-I, flows A1 -> A2 and A2 -> A1."""
    return {"links": [_both("A1", "I", c1), _both("A2", "I", c2)],
            "flows": [{"id": "1", "path": ["A1", "I", "A2"]}, {"id": "2", "path": ["A2", "I", "A1"]}]}


def x_topology(up1: float, up2: float, down1: float, down2: float) -> dict[str, Any]:
    """Fig. 1: S1 -> I -> R1 and S2 -> I -> R2; R1 overhears S2, R2 overhears S1. `up` are the
    S-I links, `down` the I-R links (Fig. 13's "C1 = C4 = 1, C2 = C3 = 4" is uplinks 4 and
    downlinks 1: the only labelling that gives its 1.3 / 0.80)."""
    return {"links": [_both("S1", "I", up1), _both("S2", "I", up2), _both("I", "R1", down1), _both("I", "R2", down2)],
            "flows": [{"id": "1", "path": ["S1", "I", "R1"]}, {"id": "2", "path": ["S2", "I", "R2"]}],
            "hears": [["S1", "R2"], ["S2", "R1"]]}


def butterfly(c1: float, c2: float, c3: float, c4: float, c5: float) -> dict[str, Any]:
    """Fig. 8: A1 -> I1 -> I2 -> A2 and B1 -> I1 -> I2 -> B2 (C1 A1-I1, C2 B1-I1, C3 I1-I2,
    C4 I2-A2, C5 I2-B2); A2 overhears B1 and B2 overhears A1, so I1's XOR travels two hops."""
    return {"links": [_both("A1", "I1", c1), _both("B1", "I1", c2), _both("I1", "I2", c3),
                      _both("I2", "A2", c4), _both("I2", "B2", c5)],
            "flows": [{"id": "1", "path": ["A1", "I1", "I2", "A2"]}, {"id": "2", "path": ["B1", "I1", "I2", "B2"]}],
            "hears": [["A1", "B2"], ["B1", "A2"]]}


def wheel(n: int, capacity: float = 1.0) -> dict[str, Any]:
    """§VI's wheel: n outer nodes O0..O(n-1) around a relay C, flows k <-> k + n/2 through C;
    every outer pair overhears but opposite ones (`n` even, at least 2)."""
    if n < 2 or n % 2:
        raise _fail("n", f"must be even and at least 2, got {n}")
    outer = [f"O{k}" for k in range(n)]
    half = n // 2
    hears = [[outer[a], outer[b]] for a in range(n) for b in range(a + 1, n) if b - a != half]
    flows = [{"id": f"{k}->{(k + half) % n}", "path": [outer[k], "C", outer[(k + half) % n]]} for k in range(n)]
    return {"links": [_both(o, "C", capacity) for o in outer], "flows": flows, "hears": hears}


def appendix_a() -> dict[str, dict[str, Any]]:
    """The six instances of the paper's Appendix A, by figure."""
    return {
        "Fig. 10": alice_bob(1, 1),
        "Fig. 11": alice_bob(1, 4),
        "Fig. 12": x_topology(1, 1, 1, 1),
        "Fig. 13": x_topology(4, 4, 1, 1),
        "Fig. 14": butterfly(1, 1, 1, 1, 1),
        "Fig. 15": butterfly(4, 4, 1, 4, 4),
    }
