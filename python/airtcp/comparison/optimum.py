"""The optimum beside the measurements: for each scenario the model of the five papers that
describes it, solved for the largest total goodput and for the proportionally fair (log-utility)
optimum, in the same units the simulator measures (bit/s of TCP payload).

Mesh (paper 000 §2-3; with every routing allowed it is also the optimum paper 003's multipath
back-pressure fluid model (§2) converges to over the same link-rate region). The radio links the
simulator lays out (`_core.layout_json`: each link's data rate, its expected delivery of a data
frame, the DCF's timing) become a conflict graph: two links on one channel conflict when they
share a node or any end of one is within the busy range of any end of the other (the layout's
`busy_m`: a radio senses the medium busy for a frame it could lock onto as well as for energy
above the carrier-sense threshold; DCF defers to both the data frame and its answer, so both
ends count); links on different channels never do (one radio per channel). A link carries
`1 / T_l` segments per second when scheduled, with

    T_l = (DIFS + CWmin/2 slot + [RTS + SIFS + CTS + SIFS] + data + SIFS + ACK) / d_l
          + (the same for a TCP ACK on the reverse link) / (b d_l')

the expected air time of one delivered segment (`d_l` its delivery per attempt, every attempt
costing a whole exchange) plus its share of the TCP ACKs (`b`, the segments per delayed ACK)
riding back over the same pair of nodes, which conflicts with exactly the same links.

On 802.11n radios that aggregate (`radio.aggregation`), every exchange is the largest A-MPDU the
Block Ack agreement allows (`airtcp.comparison.airtime`: at most 64 MPDUs, 65,535 bytes and a
5.484-ms HT-mixed PPDU, IEEE 802.11-2016 §19.4.3 eq. 19-89/19-90 and Table 19-25; subframes of a
4-byte delimiter and the MPDU padded to 4 bytes, §9.7.1), after AIFS[AC_BE] (SIFS + 3 slots) and
the mean backoff, answered after SIFS by a compressed Block Ack at the control-response rate
(the layout's `ba_us`), its n MPDUs each delivered with probability `d_l`:

    T_l = (AIFS + CWmin/2 slot + [RTS/CTS] + A-MPDU(n) + SIFS + BA) / (n d_l)
          + (the same for n' TCP ACKs on the reverse link) / (n' b d_l')

Full aggregates at every transmit opportunity make it an upper bound: a queue holding fewer
packets than an A-MPDU's worth sends a shorter one, and a forwarding layer that does not
aggregate (COPE, BFLY, NCAQM: the layout's `single_frames`) sends its frames one at a time
(docs/dot11n.md).

Flows may use every link (any routing): `capacity_region.num_optimum` (HiGHS, cutting planes, a
certified gap) gives the log-utility optimum and a linear utility the largest total. The backoff
is counted in full for every frame; a frame that finds the medium idle goes at once and several
contenders count down together, so a mesh can carry slightly more than the model (fractions a
little above 1).

Coding (paper 001 eq. (1)/(8)). On a network that is one collision domain (every pair of radio
nodes within carrier-sense range) with static routes, `coding_num.optimum` on the routes (COPE's
one-hop and BFLY's two-hop codes found automatically, overhearing from the decode range, the same
`T_l`) gives the log-utility optimum with coding. The utility column reports the better of the
two models; the total column the conflict-graph model's (coding has no largest-total solver).

Cell (paper 002 §IV-C). The ergodic TDMA region of the base station's downlink (the AMC table's
bits per slot from the core, after the frame and the residual factor, each user's Rayleigh mode
probabilities), with the wired links the flows cross before it: `num_optimum` (eq. (1), equal
weights) and the region's largest total (each state to its best user).

Router (paper 004 §II's channel). A router sends one packet at a time at its rate; a packet to
user u gets through with the probability of u's channel state (bimodal: `low` a fraction
`low_probability` of the time, since both states hold for the same mean time, else `high`; 1
without a channel), independently over users. That is a TDMA region over the users' joint
states, as the downlink's (`TdmaRegion`), with rates `rate / packet bits x success`: every
delivered packet carries at most one packet's worth of new data, coded or not, so it bounds
every scheme; `num_optimum` and each state's best user give the two optima. A router with
several flows to one user, or a flow that does not end at a user, has none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from airtcp.comparison.airtime import aggregated_exchange_us, airtime_us, exchange_us, largest_ampdu
from airtcp.errors import ScenarioError

__all__ = ["Optimum", "optimum_of", "exchange_us", "airtime_us"]

# TCP's ACK segment on the air: 40 bytes of TCP/IP headers.
_TCP_ACK_BYTES = 40
# Links delivering fewer data frames than this per attempt carry nothing worth modelling.
_MIN_DELIVERY = 0.05


@dataclass(frozen=True)
class Optimum:
    """A scenario's optimum (or why there is none): `total_bps` the largest total goodput,
    `utility` Σ log x*_s of the proportionally fair point (x* in bit/s) with its `rates_bps`,
    `model` naming what was solved, `notes` the choices that shaped it."""

    model: str
    total_bps: float | None = None
    utility: float | None = None
    rates_bps: tuple[float, ...] = ()
    unavailable: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "total_bps": self.total_bps, "utility": self.utility,
                "rates_bps": list(self.rates_bps), "unavailable": self.unavailable, "notes": list(self.notes)}


def optimum_of(scenario: Any, layout: Mapping[str, Any], kind: str) -> Optimum:
    """The optimum of a validated `Scenario` whose network is `kind` (`Facts.kind`)."""
    try:
        if kind == "mesh":
            return _mesh(scenario, layout)
        if kind == "cell":
            return _cell(scenario, layout)
        if kind == "router":
            return _router(scenario, layout)
        return Optimum("none", unavailable="no model for this network")
    except ScenarioError as error:  # too large, or a network the model does not describe
        return Optimum("none", unavailable="the model could not be solved: " + "; ".join(error.lines()))
    except Exception as error:  # noqa: BLE001 - a model that cannot be solved is reported, not fatal
        return Optimum("none", unavailable=f"the model could not be solved: {type(error).__name__}: {error}")


# --- Mesh: the conflict-graph region ----------------------------------------------------------


def _segments(scenario: Any) -> tuple[int, int, int]:
    """The TCP flows' payload and on-air segment sizes and segments per ACK (their mean, if the
    flows differ; a model has one segment size)."""
    payload, header, per_ack = [], [], []
    for flow in scenario.flows:
        transport = flow.transport
        mss = getattr(transport, "mss", 1000)
        payload.append(mss)
        header.append(getattr(transport, "header_bytes", 40))
        per_ack.append(max(1, int(getattr(transport, "delayed_ack", 1) or 1)))
    n = max(len(payload), 1)
    return round(sum(payload) / n), round(sum(header) / n), round(sum(per_ack) / n)


def _per_packet_us(timing: Mapping[str, Any], link: Mapping[str, Any], packet_bytes: int) -> float:
    """Air time per packet of `packet_bytes` delivered over `link`: one exchange per packet, or
    on an aggregating radio the exchange of the largest A-MPDU shared by its MPDUs (each MPDU
    delivered with the link's probability, the missing ones resent in the next full A-MPDU)."""
    if timing.get("aggregation") is None:
        return exchange_us(timing, packet_bytes, link["rate_bps"], link["ack_us"]) / link["delivery"]
    t, count = aggregated_exchange_us(timing, packet_bytes, link["rate_bps"], link["ack_us"], link["ba_us"])
    return t / (count * link["delivery"])


def _link_times(layout: Mapping[str, Any], segment: int, per_ack: int) -> dict[tuple[str, str, Any], float]:
    """Air time per delivered segment (us) of every usable radio link, TCP ACK share included."""
    timing = layout["timing"]
    radio = [link for link in layout["links"] if link["kind"] == "radio" and link["delivery"] >= _MIN_DELIVERY]
    by_ends = {(link["from"], link["to"], link["channel"]): link for link in radio}
    times = {}
    for (a, b, channel), link in by_ends.items():
        t = _per_packet_us(timing, link, segment)
        back = by_ends.get((b, a, channel))
        if back is not None:
            t += _per_packet_us(timing, back, _TCP_ACK_BYTES) / per_ack
        times[(a, b, channel)] = t
    return times


def _aggregation_note(layout: Mapping[str, Any], segment: int) -> tuple[str, ...]:
    """What the model assumed of A-MPDUs, for the notes (none without aggregation)."""
    timing = layout["timing"]
    if timing.get("aggregation") is None:
        return ()
    rates = sorted({link["rate_bps"] for link in layout["links"] if link["kind"] == "radio"}, reverse=True)
    overhead = int(timing["mac_overhead_bytes"])
    counts = ", ".join(
        f"{largest_ampdu(timing, segment + overhead, r)} segments / {largest_ampdu(timing, _TCP_ACK_BYTES + overhead, r)} "
        f"TCP ACKs at {r / 1e6:g} Mbit/s" for r in rates[:3])
    return (f"802.11n: every exchange a full A-MPDU under Block Ack ({counts}), an upper bound",)


def _conflicts(keys: Sequence[tuple[str, str, Any]], positions: Mapping[str, tuple[float, float]],
               sense_m: float) -> list[tuple[int, int]]:
    near = {}

    def within(p: str, q: str) -> bool:
        if (p, q) not in near:
            (px, py), (qx, qy) = positions[p], positions[q]
            near[(p, q)] = near[(q, p)] = p == q or math.hypot(px - qx, py - qy) <= sense_m
        return near[(p, q)]

    pairs = []
    for i, (a, b, ca) in enumerate(keys):
        for j in range(i + 1, len(keys)):
            c, d, cb = keys[j]
            if ca == cb and any(within(p, q) for p in (a, b) for q in (c, d)):
                pairs.append((i, j))
    return pairs


def _mesh(scenario: Any, layout: Mapping[str, Any]) -> Optimum:
    from airtcp.models.capacity_region import num_optimum

    payload, header, per_ack = _segments(scenario)
    times = _link_times(layout, payload + header, per_ack)
    keys = sorted(times)
    names = [node["name"] for node in layout["nodes"]]
    index = {name: i for i, name in enumerate(names)}
    positions = {node["name"]: (node["x"], node["y"]) for node in layout["nodes"] if node["x"] is not None}
    config = {
        "num_nodes": len(names),
        "links": [{"from": index[a], "to": index[b], "capacity": 1e6 / times[(a, b, c)], "p_on": 1.0} for a, b, c in keys],
        "conflicts": {"kind": "explicit", "pairs": _conflicts(keys, positions, float(layout["radio"]["busy_m"]))},
        # One schedule budget per channel: a node's radios on different channels work in parallel.
        "link_groups": [c for _, _, c in keys],
        "flows": [{"src": index[f["src"]], "dst": index[f["dst"]]} for f in layout["flows"]],
    }
    bits = 8.0 * payload
    n = len(config["flows"])
    fair = num_optimum(config, [{"kind": "log"}] * n, tol=1e-7)
    largest = num_optimum(config, [{"kind": "alpha_fair", "alpha": 0.0}] * n, tol=1e-7)
    rates = tuple(float(x) * bits for x in fair.rates)
    mesh = Optimum("conflict-graph region (paper 000 §3, any routing)", total_bps=float(np.sum(largest.rates)) * bits,
                   utility=_log_sum(rates), rates_bps=rates,
                   notes=(f"{len(keys)} radio links, {payload}-byte segments, one TCP ACK per {per_ack}",
                          *_aggregation_note(layout, payload + header)))
    coded = _coding(scenario, layout, times, keys, payload)
    if coded is not None and coded.utility is not None and mesh.utility is not None and coded.utility > mesh.utility:
        return Optimum(f"{mesh.model}; utility: coding NUM (paper 001, static routes)", total_bps=mesh.total_bps,
                       utility=coded.utility, rates_bps=coded.rates_bps, notes=mesh.notes + coded.notes)
    return mesh


def _log_sum(rates_bps: Sequence[float]) -> float | None:
    if not rates_bps or min(rates_bps) <= 0:
        return None
    return float(sum(math.log(x) for x in rates_bps))


def _coding(scenario: Any, layout: Mapping[str, Any], times: Mapping[tuple[str, str, Any], float],
            keys: Sequence[tuple[str, str, Any]], payload: int) -> Optimum | None:
    """The coding NUM on the static routes, when the mesh is one collision domain on one channel."""
    from airtcp.models import coding_num

    routes = [flow["route"] for flow in layout["flows"]]
    channels = {c for _, _, c in keys}
    if any(route is None or len(route) < 2 for route in routes) or len(channels) != 1:
        return None
    positions = [(node["x"], node["y"]) for node in layout["nodes"] if node["x"] is not None]
    sense = float(layout["radio"]["busy_m"])
    if any(math.hypot(p[0] - q[0], p[1] - q[1]) > sense for p in positions for q in positions):
        return None
    spec = {
        "links": [{"from": a, "to": b, "capacity": 1e6 / times[(a, b, c)]} for a, b, c in keys],
        "flows": [{"id": flow["id"], "path": flow["route"]} for flow in layout["flows"]],
        "codes": "auto",
    }
    result = coding_num.optimum(spec, tol=1e-8)
    rates = tuple(result.rates[flow["id"]] * 8.0 * payload for flow in layout["flows"])
    return Optimum("coding NUM", utility=_log_sum(rates), rates_bps=rates,
                   notes=("coding NUM: one collision domain, COPE/BFLY codes found on the static routes",))


# --- Cell: the downlink region ----------------------------------------------------------------


def _cell(scenario: Any, layout: Mapping[str, Any]) -> Optimum:
    from airtcp.models import downlink as dl
    from airtcp.models.downlink_region import AmcTable, Downlink, TdmaRegion
    from airtcp.models.num_optimum import Network, num_optimum

    section = scenario.downlink
    payload, header, _ = _segments(scenario)
    rates = dl.rates(section)
    air_bytes = payload + header + rates.mac_overhead_bytes
    per_mode = np.array([math.floor(mode.bits_per_slot / 8) for mode in rates.modes], dtype=float) / air_bytes / rates.slot_s
    # Each user's Rayleigh mode probabilities, from the modes' thresholds (the bits per slot above
    # are the core's, after the frame and the residual factor).
    table = AmcTable(tuple(mode.min_snr_db for mode in rates.modes), tuple(mode.efficiency for mode in rates.modes))
    probabilities = Downlink(rates.mean_snr_db, table).mode_probabilities()
    users_by_node = {user.node: u for u, user in enumerate(section.users)}
    region = TdmaRegion.from_independent_users([(np.concatenate([[0.0], per_mode]), p) for p in probabilities])
    wired, flow_wired = _wired_links(scenario, layout, payload + header, section.base_station)
    flow_users = tuple(users_by_node.get(flow["dst"]) for flow in layout["flows"])
    if any(user is None for user in flow_users):
        return Optimum("none", unavailable="a flow does not end at a user of the base station")
    network = Network(flow_users=flow_users, region=region, wired_capacities=tuple(wired), flow_wired_links=tuple(flow_wired))
    fair = num_optimum(network, [1.0] * len(flow_users))
    bits = 8.0 * payload
    fair_rates = tuple(float(x) * bits for x in fair.rates)
    served = sorted(set(flow_users))
    # The largest total: every state's slot to its fastest user among those with a flow.
    total = float(np.sum(region.probabilities * np.max(region.rates[:, served], axis=1)))
    capped = min(total, sum(wired) if wired and all(flow_wired) else math.inf)
    return Optimum("downlink region (paper 002 §IV-C)", total_bps=capped * bits, utility=_log_sum(fair_rates),
                   rates_bps=fair_rates, notes=(f"{payload}-byte segments, {air_bytes} bytes on the air",))


def _router(scenario: Any, layout: Mapping[str, Any]) -> Optimum:
    from airtcp.models.downlink_region import TdmaRegion
    from airtcp.models.num_optimum import Network, num_optimum

    if len(scenario.routers) != 1:
        return Optimum("none", unavailable="the router model covers one router")
    router = scenario.routers[0]
    payload, header, _ = _segments(scenario)
    packets_per_s = float(router.rate) / (8.0 * (payload + header))
    per_user = []
    for user in router.users:
        channel = user.channel
        if channel is None:
            per_user.append((np.array([packets_per_s]), np.array([1.0])))
        else:
            per_user.append((np.array([packets_per_s * channel.low, packets_per_s * channel.high]),
                             np.array([channel.low_probability, 1.0 - channel.low_probability])))
    region = TdmaRegion.from_independent_users(per_user)
    users_by_node = {user.node: u for u, user in enumerate(router.users)}
    flow_users = tuple(users_by_node.get(flow["dst"]) for flow in layout["flows"])
    if any(user is None for user in flow_users) or len(set(flow_users)) != len(flow_users):
        return Optimum("none", unavailable="the router model needs one flow per user of the router")
    fair = num_optimum(Network(flow_users=flow_users, region=region), [1.0] * len(flow_users))
    bits = 8.0 * payload
    fair_rates = tuple(float(x) * bits for x in fair.rates)
    total = float(np.sum(region.probabilities * np.max(region.rates[:, list(flow_users)], axis=1)))
    return Optimum("erasure region of the router (paper 004's channel)", total_bps=total * bits,
                   utility=_log_sum(fair_rates), rates_bps=fair_rates,
                   notes=(f"{payload}-byte segments, {payload + header} bytes a packet",))


def _wired_links(scenario: Any, layout: Mapping[str, Any], packet_bytes: int, base_station: str) -> tuple[list[float], list[tuple[int, ...]]]:
    """Capacities (packets/s) of the wired links the flows cross before the base station, and
    each flow's indices into them."""
    capacity = {}
    for link in scenario.links:
        rate = float(link.rate) / (8.0 * packet_bytes)
        capacity[(link.from_, link.to)] = capacity[(link.to, link.from_)] = rate
    index: dict[tuple[str, str], int] = {}
    wired: list[float] = []
    per_flow: list[tuple[int, ...]] = []
    for flow in layout["flows"]:
        route = flow.get("route") or []
        used = []
        for a, b in zip(route, route[1:]):
            if a == base_station or (a, b) not in capacity:
                continue
            if (a, b) not in index:
                index[(a, b)] = len(wired)
                wired.append(capacity[(a, b)])
            used.append(index[(a, b)])
        per_flow.append(tuple(used))
    return wired, per_flow
