"""The schemes `airtcp compare` runs: each one a complete choice of routing, coding, window control
and queueing, taken from one of the five papers, that declares what a network needs for it to
apply (`Need`).

A scheme rewrites a scenario's user form (`to_user_dict`): its `routing`, `coding`, its flows'
`transport` and, on a cell or a router, the `downlink.scheduler` or the routers'
`priority_pairs`. Everything else (the network, the traffic, the radio, the duration) stays the
scenario's, which is what makes the comparison fair: one network, one set of flows and seeds,
only the scheme changes.

Adding a scheme: append a `Scheme` to `SCHEMES` (a key, a label, its paper, the needs, the settings
shown in the report and the function that rewrites the scenario); docs/compare.md walks through
it. The needs themselves are in `airtcp.comparison.needs`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from airtcp.comparison.needs import Need
from airtcp.scenario.consistency import cc_parameter_blocks
from airtcp.scenario.models import TcpTransport

__all__ = ["Scheme", "SCHEMES", "scheme_keys", "schemes_named", "BASELINES"]

Doc = dict[str, Any]


@dataclass(frozen=True)
class Scheme:
    """One scheme: `apply(doc)` returns a rewritten copy of a scenario's user form."""

    key: str
    label: str
    paper: str  # "000".."004", or "-" for the common baselines
    needs: tuple[Need, ...]
    settings: Mapping[str, Any]
    apply: Callable[[Doc], Doc] = field(repr=False)
    family: str = "mesh"  # mesh, cell or router: which baseline its sentence compares with


# The congestion controllers' parameter blocks (`cubic: {...}`), as the core registers them.
_CC_BLOCKS = tuple(cc_parameter_blocks(TcpTransport))


# `cc=LINUX` asks for the `linux` TCP profile (Cubic with HyStart, PRR, SACK, IW10, Linux's
# delayed ACK and timers; docs/tcp.md) rather than one window control.
LINUX = "linux"
# What the profile decides, so that a scenario's own choice does not override it; the segment
# size (`mss`, `header_bytes`) stays the scenario's, as for every scheme.
_PROFILE_FIELDS = ("sack", "recovery", "rack_tlp", "pacing", "ssthresh_basis", "initial_cwnd", "delayed_ack",
                   "delayed_ack_timeout", "min_rto", "max_rto", "clock_granularity", "rwnd")


def _tcp(transport: Mapping[str, Any], cc: str, nc: bool = False) -> dict[str, Any]:
    """A TCP transport with window control `cc` (or the `linux` profile), keeping the scenario's
    segment size, SACK and timers (the profile's own for `linux`); a parameter block of another
    window control, and the NC layer unless `nc`, go."""
    dropped = ("kind", "cc", "nc", "profile", *_CC_BLOCKS, "redundancy", "field", "decoder", "max_cwnd",
               "dupthresh", "initial_rto", "literal_dup", *(_PROFILE_FIELDS if cc == LINUX else ()))
    kept = {key: value for key, value in transport.items() if key not in dropped}
    if transport.get("kind") != "tcp":
        kept = {key: value for key, value in kept.items() if key in ("initial_cwnd",)}
    out = {"kind": "tcp", **kept, **({"profile": LINUX} if cc == LINUX else {"cc": cc})}
    if nc:
        out["nc"] = {"block": "cwnd"}
    return out


def _with_flows(doc: Doc, transport: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Doc:
    """A copy of `doc` with every TCP (or TCP-RLC) flow's transport rewritten; UDP flows, the
    scenario's background traffic, stay as they are."""
    out = copy.deepcopy(doc)
    for flow in out.get("flows", []):
        current = flow.get("transport") or {"kind": "tcp"}
        if current.get("kind", "tcp") in ("tcp", "tcp_rlc"):
            flow["transport"] = transport(current)
    return out


def _base_static(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario's own static routing (its metric), else min-hop static routes."""
    routing = doc.get("routing") or {}
    return dict(routing) if routing.get("kind") == "static" else {"kind": "static"}


def _mesh(routing: Callable[[Mapping[str, Any]], dict[str, Any]], *, coding: dict[str, Any] | None = None,
          cc: str = "newreno", nc: bool = False) -> Callable[[Doc], Doc]:
    def apply(doc: Doc) -> Doc:
        out = _with_flows(doc, lambda t: _tcp(t, cc, nc))
        out["routing"] = routing(doc)
        out.pop("coding", None)
        if coding is not None:
            out["coding"] = dict(coding)
        return out

    return apply


def _cell(scheduler: str, cc: str) -> Callable[[Doc], Doc]:
    def apply(doc: Doc) -> Doc:
        out = _with_flows(doc, lambda t: _tcp(t, cc))
        out["downlink"] = {**out["downlink"], "scheduler": {"kind": scheduler}}
        return out

    return apply


def _cell_scheme(key: str, label: str, scheduler: str, cc: str) -> Scheme:
    """A cell's scheme (paper 002's experiments): window control `cc` under `scheduler`."""
    return Scheme(key, label, "002", (Need.DOWNLINK,), {"scheduler": scheduler, "cc": cc}, _cell(scheduler, cc),
                  family="cell")


# TCP-RLC's router (paper 004 §III): a high- and a low-priority buffer per flow, coded packets
# served last-in first-out and only while the user's channel is good (the channel-aware policy
# of its multi-flow experiments).
_PRIORITY_PAIRS = {"low_order": "lifo", "low_policy": {"kind": "channel_aware", "kappa": 2}}
_RLC_REDUNDANCY = 2


def _router(rlc: bool, priority: bool, cc: str = "newreno") -> Callable[[Doc], Doc]:
    def transport(t: Mapping[str, Any]) -> dict[str, Any]:
        if not rlc:
            return _tcp(t, cc)
        return {"kind": "tcp_rlc", "redundancy": _RLC_REDUNDANCY}

    def apply(doc: Doc) -> Doc:
        out = _with_flows(doc, transport)
        for router in out.get("routers", []):
            router.pop("priority_pairs", None)
            if priority:
                packets = _queue_packets(router)
                router["priority_pairs"] = {"buffers": {"high": packets, "low": packets}, **copy.deepcopy(_PRIORITY_PAIRS)}
        return out

    return apply


def _queue_packets(router: Mapping[str, Any]) -> int:
    """The router's buffer in packets (its drop-tail queue's; 100, the schema's default, else)."""
    queue = router.get("queue") or {}
    packets = queue.get("packets", 100)
    return int(packets) if isinstance(packets, (int, float)) and packets >= 1 else 100


MESH, CELL, ROUTER = Need.MESH, Need.DOWNLINK, Need.ROUTER

SCHEMES: tuple[Scheme, ...] = (
    # --- a multi-hop mesh: routing and coding choices under TCP NewReno --------------------------
    Scheme("tcp_aodv", "TCP over AODV", "-", (MESH,), {"routing": "aodv", "cc": "newreno"},
           _mesh(lambda d: {"kind": "aodv"})),
    Scheme("tcp_static", "TCP over static routes", "-", (MESH,), {"routing": "static (the scenario's metric)", "cc": "newreno"},
           _mesh(_base_static)),
    Scheme("tcp_vegas", "TCP Vegas over static routes", "-", (MESH,), {"routing": "static (the scenario's metric)", "cc": "vegas"},
           _mesh(_base_static, cc="vegas")),
    Scheme("tcp_bbr", "TCP BBR over static routes", "-", (MESH,), {"routing": "static (the scenario's metric)", "cc": "bbr (v1)"},
           _mesh(_base_static, cc="bbr")),
    Scheme("tcp_linux", "Linux TCP over static routes", "-", (MESH,),
           {"routing": "static (the scenario's metric)", "cc": "linux profile: cubic + hystart, prr, rack-tlp, sack"},
           _mesh(_base_static, cc=LINUX)),
    Scheme("bp_classical", "Classical backpressure", "000", (MESH,),
           {"routing": "backpressure, differential U_i - U_j", "cc": "newreno"},
           _mesh(lambda d: {"kind": "backpressure", "differential": "classical"})),
    Scheme("bp_tcp_aware", "TCP-aware backpressure", "000", (MESH,),
           {"routing": "backpressure, differential max{K, U_i} - U_j", "cc": "newreno"},
           _mesh(lambda d: {"kind": "backpressure", "differential": "tcp_aware"})),
    Scheme("bp_tcp_aware_nc", "TCP-aware backpressure + NC", "000", (MESH,),
           {"routing": "backpressure, tcp_aware", "nc": "block = cwnd", "cc": "newreno"},
           _mesh(lambda d: {"kind": "backpressure", "differential": "tcp_aware"}, nc=True)),
    Scheme("cope", "COPE", "001", (MESH, Need.OVERHEARING), {"routing": "static", "coding": "cope, fifo", "cc": "newreno"},
           _mesh(_base_static, coding={"scheme": "cope"})),
    Scheme("bfly", "BFLY", "001", (MESH, Need.OVERHEARING), {"routing": "static", "coding": "bfly, fifo", "cc": "newreno"},
           _mesh(_base_static, coding={"scheme": "bfly"})),
    Scheme("ncaqm", "NCAQM over COPE", "001", (MESH, Need.OVERHEARING), {"routing": "static", "coding": "cope, ncaqm", "cc": "newreno"},
           _mesh(_base_static, coding={"scheme": "cope", "queue": "ncaqm"})),
    Scheme("horizon", "Horizon", "003", (MESH, Need.MULTIPATH),
           {"routing": "horizon (2 node-disjoint paths, ETT)", "cc": "newreno (unmodified)"},
           _mesh(lambda d: {"kind": "horizon"})),
    # --- a base-station cell: window control x downlink scheduler ---------------------------------
    _cell_scheme("cell_rr_newreno", "NewReno, round-robin", "round_robin", "newreno"),
    _cell_scheme("cell_rr_bbr", "BBR, round-robin", "round_robin", "bbr"),
    _cell_scheme("cell_rr_linux", "Linux TCP, round-robin", "round_robin", LINUX),
    _cell_scheme("cell_maxsnr_newreno", "NewReno, max-SNR", "max_snr", "newreno"),
    _cell_scheme("cell_mw_newreno", "NewReno, queue-length MaxWeight", "max_weight", "newreno"),
    _cell_scheme("cell_dmw_newreno", "NewReno, delay MaxWeight", "delay_max_weight", "newreno"),
    _cell_scheme("cell_dmw_cubic", "Cubic, delay MaxWeight", "delay_max_weight", "cubic"),
    _cell_scheme("cell_dmw_vegas", "Vegas, delay MaxWeight", "delay_max_weight", "vegas"),
    _cell_scheme("cell_dmw_compound", "Compound TCP, delay MaxWeight", "delay_max_weight", "compound"),
    _cell_scheme("cell_dmw_fast", "FAST TCP, delay MaxWeight", "delay_max_weight", "fast"),
    _cell_scheme("cell_dmw_quic", "QUIC-TCP, delay MaxWeight", "delay_max_weight", "quic_tcp"),
    _cell_scheme("cell_dmw_bbr", "BBR, delay MaxWeight", "delay_max_weight", "bbr"),
    # --- a wireless router with users of varying channels ----------------------------------------
    Scheme("router_newreno", "NewReno through the router", "004", (ROUTER,), {"transport": "tcp newreno", "router": "drop-tail"},
           _router(rlc=False, priority=False), family="router"),
    Scheme("router_bbr", "BBR through the router", "-", (ROUTER,), {"transport": "tcp bbr (v1)", "router": "drop-tail"},
           _router(rlc=False, priority=False, cc="bbr"), family="router"),
    Scheme("router_linux", "Linux TCP through the router", "-", (ROUTER,),
           {"transport": "tcp, linux profile", "router": "drop-tail"},
           _router(rlc=False, priority=False, cc=LINUX), family="router"),
    Scheme("router_rlc_fifo", "TCP-RLC, one drop-tail queue", "004", (ROUTER,),
           {"transport": f"tcp_rlc, redundancy {_RLC_REDUNDANCY}", "router": "drop-tail"},
           _router(rlc=True, priority=False), family="router"),
    Scheme("router_rlc", "TCP-RLC + priority queueing", "004", (ROUTER,),
           {"transport": f"tcp_rlc, redundancy {_RLC_REDUNDANCY}",
            "router": "priority pairs, low LIFO, channel-aware (kappa 2)"},
           _router(rlc=True, priority=True), family="router"),
)

# The scheme each family's sentences compare with: what is deployed without any of the papers.
BASELINES = {"mesh": "tcp_aodv", "cell": "cell_rr_newreno", "router": "router_newreno"}


def scheme_keys() -> list[str]:
    return [scheme.key for scheme in SCHEMES]


def schemes_named(keys: list[str] | None, field_path: str = "--schemes") -> list[Scheme]:
    """The schemes `keys` names, in `SCHEMES` order (all of them for None). Raises
    `ScenarioError(field_path, ...)` for an unknown or repeated key."""
    from airtcp.errors import ScenarioError

    if keys is None:
        return list(SCHEMES)
    known = {scheme.key: scheme for scheme in SCHEMES}
    problems = []
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key not in known:
            problems.append((f"{field_path}[{i}]", f"unknown scheme {key!r}; known: {', '.join(known)}"))
        elif key in seen:
            problems.append((f"{field_path}[{i}]", f"{key!r} is named twice"))
        seen.add(key)
    if not keys:
        problems.append((field_path, "names no scheme"))
    if problems:
        raise ScenarioError.from_list(problems)
    return [scheme for scheme in SCHEMES if scheme.key in seen]
