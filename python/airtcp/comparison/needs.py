"""What a network offers (`Facts`, read from the scenario as the simulator lays it out) and what a
scheme needs of it (`Need`): a scheme applies to a scenario when each of its needs finds what it
asks for, and otherwise its cell of the comparison says why not.

- `MESH`: a multi-hop wireless mesh: radios placed by a topology, and every flow between two
  radio nodes (no base station, no wireless router);
- `OVERHEARING`: a mesh whose nodes have one radio each, so that every neighbour overhears a
  transmission (inter-session coding, COPE/BFLY/NCAQM, decodes from what it overheard), and a
  flow of at least two hops, so that a relay holds packets of two directions to XOR (a TCP
  flow's data and its ACKs are already two);
- `MULTIPATH`: some flow has at least two node-disjoint paths over the radio links (Horizon
  spreads a flow over such paths);
- `DOWNLINK`: a base station serving users over a slotted downlink (`downlink:`);
- `ROUTER`: a wireless router serving users of varying channels (`routers:`).

A random topology is placed anew for every seed; its facts are those of the scenario's own seed.
"""

from __future__ import annotations

import enum
import json
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Facts", "Need", "facts_of", "layout_of", "disjoint_paths"]


@dataclass(frozen=True)
class Facts:
    """What a scenario's network is, for the needs."""

    kind: str  # "mesh", "cell", "router" or "wired"
    described: str  # the kind in words, for reasons
    radios_per_node: int  # the most radio channels one node uses (0 without radios)
    longest_route_hops: int  # hops of the longest flow's shortest route over usable radio links
    multipath_flows: int  # flows with at least two node-disjoint paths over usable radio links


class Need(enum.Enum):
    """A requirement a scheme declares; `unmet(facts)` says why a network does not meet it."""

    MESH = "a multi-hop wireless mesh"
    OVERHEARING = "a mesh with overhearing (one radio per node, a relay)"
    MULTIPATH = "multiple node-disjoint paths"
    DOWNLINK = "a base-station downlink"
    ROUTER = "a wireless router"

    def unmet(self, facts: Facts) -> str | None:
        """None if `facts` meet this need, else the reason, as a sentence fragment."""
        if self is Need.MESH:
            return None if facts.kind == "mesh" else f"needs a multi-hop wireless mesh; this is {facts.described}"
        if self is Need.OVERHEARING:
            if facts.radios_per_node > 1:
                return (f"codes over one shared channel (one radio per node); nodes here use up to "
                        f"{facts.radios_per_node} radios on different channels")
            if facts.longest_route_hops < 2:
                return "needs a relay to code at; every flow here is one hop"
            return None
        if self is Need.MULTIPATH:
            return None if facts.multipath_flows else "needs a flow with two node-disjoint paths; no flow here has two"
        if self is Need.DOWNLINK:
            return None if facts.kind == "cell" else f"needs a base-station downlink; this is {facts.described}"
        return None if facts.kind == "router" else f"needs a wireless router; this is {facts.described}"


def layout_of(scenario: Any) -> dict[str, Any]:
    """The simulator's layout of a validated `Scenario` (nodes, radio links with their rates and
    delivery, the DCF's timing, static routes): `_core.layout_json`."""
    from airtcp import _core
    from airtcp.scenario.schema import to_core_json

    return json.loads(_core.layout_json(to_core_json(scenario)))  # type: ignore[no-any-return]


def facts_of(scenario: Any, layout: Mapping[str, Any] | None = None) -> Facts:
    """The facts of a validated `Scenario` (its layout computed unless given)."""
    if scenario.downlink is not None:
        return Facts("cell", "a base-station cell", 0, 0, 0)
    if scenario.routers:
        return Facts("router", "a wireless router", 0, 0, 0)
    layout = layout if layout is not None else layout_of(scenario)
    # Routes and paths go over the links the routing may use (`routing.min_delivery`): a link
    # the receiver locks onto but that delivers next to no data frame is no hop of a route.
    radio_links = [(link["from"], link["to"]) for link in layout["links"]
                   if link["kind"] == "radio" and link.get("usable", True)]
    channels: dict[str, set[Any]] = {}
    for link in layout["links"]:
        if link["kind"] == "radio":
            channels.setdefault(link["from"], set()).add(link["channel"])
    radio_nodes = set(channels)
    flows = [(flow["src"], flow["dst"]) for flow in layout["flows"]]
    if not radio_links or not flows or any(src not in radio_nodes or dst not in radio_nodes for src, dst in flows):
        return Facts("wired", "not a wireless mesh (a flow ends off the radios)", 0, 0, 0)
    hops = [_hops(radio_links, src, dst) for src, dst in flows]
    multipath = sum(1 for src, dst in flows if disjoint_paths(radio_links, src, dst, at_most=2) >= 2)
    return Facts("mesh", "a wireless mesh", max(len(c) for c in channels.values()),
                 max((h for h in hops if h is not None), default=0), multipath)


def _hops(links: Sequence[tuple[str, str]], src: str, dst: str) -> int | None:
    """Hops of the shortest path `src` -> `dst` (None if unreachable)."""
    adjacent: dict[str, list[str]] = {}
    for a, b in links:
        adjacent.setdefault(a, []).append(b)
    seen = {src: 0}
    queue = deque([src])
    while queue:
        node = queue.popleft()
        if node == dst:
            return seen[node]
        for nxt in adjacent.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return None


def disjoint_paths(links: Sequence[tuple[str, str]], src: str, dst: str, *, at_most: int) -> int:
    """How many node-disjoint paths lead from `src` to `dst` over the directed `links` (counted
    up to `at_most`): unit-capacity augmenting paths over the node-split graph (Menger)."""
    if src == dst:
        return 0
    # Node v splits into (v, "in") -> (v, "out") of capacity 1 (unbounded at the ends).
    capacity: dict[tuple[Any, Any], int] = {}
    adjacent: dict[Any, set[Any]] = {}

    def arc(a: Any, b: Any, c: int) -> None:
        capacity[(a, b)] = capacity.get((a, b), 0) + c
        capacity.setdefault((b, a), 0)
        adjacent.setdefault(a, set()).add(b)
        adjacent.setdefault(b, set()).add(a)

    nodes = {n for link in links for n in link}
    for node in nodes:
        arc((node, "in"), (node, "out"), at_most if node in (src, dst) else 1)
    for a, b in links:
        if a != dst and b != src:
            arc((a, "out"), (b, "in"), 1)
    source, sink = (src, "out"), (dst, "in")
    found = 0
    while found < at_most:
        parent: dict[Any, Any] = {source: None}
        queue = deque([source])
        while queue and sink not in parent:
            node = queue.popleft()
            for nxt in sorted(adjacent.get(node, ()), key=repr):
                if nxt not in parent and capacity[(node, nxt)] > 0:
                    parent[nxt] = node
                    queue.append(nxt)
        if sink not in parent:
            break
        node = sink
        while parent[node] is not None:
            capacity[(parent[node], node)] -= 1
            capacity[(node, parent[node])] += 1
            node = parent[node]
        found += 1
    return found
