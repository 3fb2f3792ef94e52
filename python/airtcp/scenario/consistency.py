"""The rules of a scenario that tie several fields together, which its JSON Schema cannot say.

Node names (wired, placed, generated n0..), flow ids, an application's transport, timing, each
standard's rates and slot, the downlink's and the routers' users, flow paths, and which parts
go together (coding, routing, radios). Each problem is a (path, message) pair; the scenario's
model raises them together (`airtcp.scenario.rules`). Whether two radios reach one another is
left to the core, which knows the propagation models.

The models are read by their `kind`, so this module needs none of them: it is imported by the
rules the generated models are built with.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable, Mapping
from decimal import Decimal
from typing import Any, get_args

from airtcp.scenario import json_schema, units
from airtcp.scenario.units import U32_MAX

__all__ = ["cc_parameter_blocks", "placed_node_names", "generated_count", "problems", "standard_table"]

# The exact decoder keeps B^2 coefficients per block (transport::tcp_rlc::config::MAX_EXACT_BLOCK).
MAX_EXACT_BLOCK = 2048

# Nodes of the named topologies with a fixed size (crates/airtcp/src/scenario/topology.rs).
_FIXED_SIZES = {"tree": 4, "diamond": 4, "x": 5, "alice_bob": 3, "cross": 5, "butterfly": 6}


def cc_parameter_blocks(tcp_model: Any) -> list[str]:
    """The congestion controllers' parameter blocks of the TCP block's model: its fields named as
    one of its `cc` values (the core's registry of controllers, transport/tcp/cc/registry.rs,
    names each block after the controller that uses it)."""
    controllers = get_args(tcp_model.model_fields["cc"].annotation)
    return [name for name in tcp_model.model_fields if name in controllers]


def generated_count(topology: Any) -> int:
    """How many nodes a generated topology names n0..n{N-1} (0 for an explicit one)."""
    if topology.kind == "chain":
        return topology.hops + 1
    if topology.kind == "grid":
        return topology.rows * topology.cols
    if topology.kind == "random":
        return topology.n
    if topology.kind == "cells":
        return topology.rows * topology.cols * topology.per_cell + (topology.gateway is not None)
    if topology.kind == "wheel":
        return topology.n + 1  # the relay and the outer nodes
    if topology.kind == "ring":
        return topology.n
    return _FIXED_SIZES.get(topology.kind, 0)


def placed_node_names(topology: Any) -> list[str]:
    """The names of the nodes `topology` places, in node-id order."""
    if topology is None:
        return []
    if topology.kind == "explicit":
        return [node.name for node in topology.nodes]
    return [f"n{i}" for i in range(generated_count(topology))]


# Each standard's facts and defaults come from the core (airtcp.scenario.json_schema): its rates,
# bit/s, lowest first (802.11b DSSS/CCK, 802.11a OFDM), its slot time, ns, and the value of each
# radio field a block leaves out that defaults by standard (docs/dot11a.md): ns-2's thresholds
# and 22 MHz noise for 802.11b; 802.11a's 6 Mbps sensitivity, energy-detect CCA threshold and
# 20 MHz noise, ACKs by the control-rate rule and no DSSS preamble. Read when first asked for
# (a scenario with radios), so that a wired scenario does not read
# the schema.
_STANDARD_TABLES = {
    "RATES_OF_STANDARD": lambda: {s: tuple(f["rates"]) for s, f in json_schema.standards().items()},
    "DOT11B_RATES": lambda: tuple(json_schema.standards()["802.11b"]["rates"]),
    "DOT11A_RATES": lambda: tuple(json_schema.standards()["802.11a"]["rates"]),
    "SLOT_NS": lambda: {s: f["slot"] for s, f in json_schema.standards().items()},
    "STANDARD_DEFAULTS": json_schema.standard_defaults,
}


_TABLES: dict[str, Any] = {}


def tcp_profiles() -> dict[str, dict[str, Any]]:
    """Each TCP profile's settings (`transport: {kind: tcp, profile: ...}`), from the schema's
    `x-profiles` on the TCP transport, read when first asked for."""
    table = _TABLES.get("TCP_PROFILES")
    if table is None:
        kinds = json_schema.definition("TransportConfig")["oneOf"]
        tcp = next(k for k in kinds if k["properties"]["kind"].get("const") == "tcp")
        # The core writes durations in ns; a file spells a duration with its unit.
        durations = {key for key, field in tcp["properties"].items() if field.get("x-unit") == "duration"}
        table = _TABLES["TCP_PROFILES"] = {
            name: {key: f"{value}ns" if key in durations else value for key, value in settings.items()}
            for name, settings in tcp["x-profiles"].items()
        }
    return table  # type: ignore[no-any-return]


def standard_table(name: str) -> Any:
    """One of the standards' tables (`RATES_OF_STANDARD`, `DOT11B_RATES`, `DOT11A_RATES`,
    `SLOT_NS`, `STANDARD_DEFAULTS`), read from the schema when first asked for."""
    table = _TABLES.get(name)
    if table is None:
        table = _TABLES[name] = _STANDARD_TABLES[name]()
    return table



# Generated nodes are n0, n1, ...; "n01" is not one of them.
_GENERATED_NAME = re.compile(r"n(0|[1-9][0-9]*)")


class _Directory:
    """The scenario's node names. Generated names are recognised by their number rather than
    listed, so a large grid costs nothing to check against."""

    # A plain class: `dataclasses` imports `inspect`, several milliseconds of every command.
    __slots__ = ("explicit", "generated", "wired")

    def __init__(self, wired: dict[str, int], explicit: dict[str, int], generated: int):
        self.wired = wired  # name -> first index in `nodes`
        self.explicit = explicit  # name -> first index in `topology.nodes`
        self.generated = generated  # the topology names n0..n{generated-1}

    def is_generated(self, name: str) -> bool:
        match = _GENERATED_NAME.fullmatch(name)
        return match is not None and int(match[1]) < self.generated

    def is_placed(self, name: str) -> bool:
        return name in self.explicit or self.is_generated(name)

    def __contains__(self, name: str) -> bool:
        return name in self.wired or self.is_placed(name)

    def generated_range(self) -> str:
        return "n0" if self.generated == 1 else f"n0..n{self.generated - 1}"

    def missing(self, name: str) -> str:
        """The problem with a reference to a node that does not exist."""
        listed = self.describe()
        return f"no node named {name!r} ({f'nodes: {listed}' if listed else 'the scenario has no nodes'})"

    def check_ends(self, where: str, ends: Iterable[tuple[str, str]]) -> Generator[tuple[str, str], None, bool]:
        """A problem for each of `ends` ((field, node) pairs at `where`) that names no node;
        returns whether all name one."""
        known = True
        for field, node in ends:
            if node not in self:
                known = False
                yield f"{where}.{field}", self.missing(node)
        return known

    def describe(self) -> str:
        # A name with a line break or another control character is quoted, so that the message
        # stays one line.
        names = [name if name.isprintable() else repr(name) for name in (*self.wired, *self.explicit)]
        if self.generated:
            names.append(self.generated_range())
        if len(names) > 12:
            total = len(self.wired) + len(self.explicit) + self.generated
            names = [*names[:10], f"... ({total} in all)"]
        return ", ".join(names)


def _mbps(rate: int) -> str:
    """2_000_000 -> "2", 5_500_000 -> "5.5" (megabits per second, exact)."""
    return format(Decimal(rate).scaleb(-6).normalize(), "f")


def problems(scenario: Any) -> Iterable[tuple[str, str]]:
    """Checks spanning several fields, as (path, message) pairs, in the file's order of parts."""
    directory = yield from _name_problems(scenario)
    yield from _radio_problems(scenario)
    radio = scenario.radio
    if radio is not None:
        yield from _node_channel_problems(radio, directory)
        for k, link_rate in enumerate(radio.link_rates):
            yield from _wireless_link_problems(
                f"radio.link_rates[{k}]", link_rate.from_, link_rate.to, directory,
                "link_rates set the rates of wireless links between nodes the topology places",
            )

    neighbours = yield from _link_problems(scenario, directory)
    downlink = scenario.downlink
    if downlink is not None:
        yield from _downlink_problems(downlink, directory, neighbours)
        if scenario.routing.kind == "aodv":
            yield "routing.kind", "aodv routes over radios only; this scenario has a downlink (use static)"
        if scenario.routing.kind == "backpressure":
            yield "routing.kind", "backpressure forwards over radios only; this scenario has a downlink"
        if scenario.routing.kind == "horizon":
            yield "routing.kind", (
                "horizon forwards over radios only; this scenario has wired links, a downlink or routers"
            )
    if scenario.routers:
        yield from _router_problems(scenario, directory, neighbours)
    if scenario.coding is not None:
        yield from _coding_problems(scenario)

    for i, extra in enumerate(scenario.link_errors):
        where = f"link_errors[{i}]"
        yield from _wireless_link_problems(
            where, extra.from_, extra.to, directory,
            "link_errors apply to wireless links between nodes the topology places, wired links have their own loss",
        )
        error = extra.error
        if error.kind == "bimodal" and error.hold_max < error.hold_min:
            yield (
                f"{where}.error.hold_max",
                f"must not be smaller than hold_min ({units.format_duration(error.hold_min)})",
            )

    for i, failure in enumerate(scenario.failures):
        where = f"failures[{i}].node"
        if failure.node not in directory:
            yield where, directory.missing(failure.node)
        elif not directory.is_placed(failure.node):
            yield where, f"{failure.node!r} has no radio; only wireless nodes can fail"

    yield from _mobility_problems(scenario, directory)
    yield from _flow_problems(scenario, directory, neighbours)
    if scenario.trace is not None:
        yield from _trace_problems(scenario.trace, directory)


def _trace_problems(trace: Any, directory: _Directory) -> Iterable[tuple[str, str]]:
    """The nodes a `trace` block captures: known, each once. (Whether each has an interface of
    the kinds asked for, and whether the folder can be written, the core checks.)"""
    if trace.pcap == "all":
        return
    seen: dict[str, int] = {}
    for i, name in enumerate(trace.pcap):
        if name not in directory:
            yield f"trace.pcap[{i}]", directory.missing(name)
        elif name in seen:
            yield f"trace.pcap[{i}]", f"{name!r} is listed already (trace.pcap[{seen[name]}])"
        seen.setdefault(name, i)


def _mobility_problems(scenario: Any, directory: _Directory) -> Iterable[tuple[str, str]]:
    """Moving nodes: placed ones, with a topology and a radio; the ranges the models need."""
    if scenario.mobility and (scenario.topology is None or scenario.radio is None):
        yield "mobility", "moving nodes need a topology and a radio"
        return
    for i, entry in enumerate(scenario.mobility):
        nodes = getattr(entry, "nodes", "all")
        for j, node in enumerate(nodes if isinstance(nodes, list) else []):
            if node not in directory:
                yield f"mobility[{i}].nodes[{j}]", directory.missing(node)
            elif not directory.is_placed(node):
                yield f"mobility[{i}].nodes[{j}]", f"{node!r} has no position; only placed nodes move"
        if entry.kind in ("random_waypoint", "random_walk") and entry.max_speed < entry.min_speed:
            yield f"mobility[{i}].max_speed", f"must be at least min_speed ({entry.min_speed})"
        if entry.kind == "random_waypoint" and entry.max_pause < entry.min_pause:
            yield f"mobility[{i}].max_pause", f"must be at least min_pause ({units.format_duration(entry.min_pause)})"
        bounds = getattr(entry, "bounds", None)
        if bounds is not None:
            # The core's rule (`phy/mobility/config.rs`): at least a metre a side.
            if not bounds.x_max - bounds.x_min >= 1:
                yield f"mobility[{i}].bounds.x_max", f"must exceed x_min ({bounds.x_min} m) by at least 1 m"
            if not bounds.y_max - bounds.y_min >= 1:
                yield f"mobility[{i}].bounds.y_max", f"must exceed y_min ({bounds.y_min} m) by at least 1 m"


def _name_problems(scenario: Any) -> Generator[tuple[str, str], None, _Directory]:
    """Node names: unique across `nodes`, explicit and generated ones; returns them all."""
    topology = scenario.topology
    wired: dict[str, int] = {}
    for i, node in enumerate(scenario.nodes):
        if node in wired:
            yield f"nodes[{i}]", f"duplicate node name {node!r}"
        wired.setdefault(node, i)
    explicit: dict[str, int] = {}
    if topology is not None and topology.kind == "explicit":
        for i, placed in enumerate(topology.nodes):
            where, name = f"topology.nodes[{i}].name", placed.name
            if name in wired:
                yield where, f"{name!r} is already a node name (nodes[{wired[name]}])"
            elif name in explicit:
                yield where, f"duplicate node name {name!r} (also topology.nodes[{explicit[name]}])"
            explicit.setdefault(name, i)
    generated = generated_count(topology) if topology is not None else 0
    directory = _Directory(wired, explicit, generated)
    if generated and topology is not None:
        for i, node in enumerate(scenario.nodes):
            if directory.is_generated(node):
                yield (
                    f"nodes[{i}]",
                    f"{node!r} is already a node name: the {topology.kind} topology names its nodes "
                    f"{directory.generated_range()}",
                )

    placed_count = len(topology.nodes) if topology is not None and topology.kind == "explicit" else generated
    if not scenario.nodes and topology is None:
        yield "nodes", "the scenario has no nodes: list wired nodes here or place wireless ones with topology"
    elif len(scenario.nodes) + placed_count > U32_MAX:
        yield "topology", f"places {placed_count} nodes; a scenario holds at most {U32_MAX} nodes in all"

    return directory


def _radio_problems(scenario: Any) -> Iterable[tuple[str, str]]:
    """A radio goes with a topology; its rates and slot are its standard's."""
    topology, radio = scenario.topology, scenario.radio
    if topology is not None and radio is None:
        yield (
            "radio",
            "required with a topology (the radio of the nodes it places), e.g. {standard: 802.11b, "
            "data_rate: 2Mbps, basic_rate: 1Mbps, propagation: {kind: range, range: 250m}}",
        )
    if radio is not None:
        if topology is None:
            yield (
                "topology",
                "required with a radio (where the wireless nodes are), e.g. {kind: chain, hops: 3, spacing: 200m}",
            )
        yield from _rate_problems(radio)
        slot_ns = standard_table("SLOT_NS")[radio.standard]
        if radio.standard == "802.11n":
            slot_ns = json_schema.standards()["802.11n"]["slot_by_band"][_ht_phy(radio)["band"]]
        if radio.cca_time >= slot_ns:
            yield "radio.cca_time", (
                f"must be shorter than the slot ({slot_ns // 1000} us in {radio.standard}): a station has to "
                f"sense a transmission within the slot it started in; got {radio.cca_time} ns"
            )
        if radio.standard != "802.11b" and radio.preamble is not None:
            yield "radio.preamble", f"{radio.standard} has one OFDM preamble (16 us + 4 us SIGNAL); leave preamble out"
        if radio.standard != "802.11n" and radio.ht is not None:
            yield "radio.ht", f"only an 802.11n radio has an HT PHY; leave ht out under {radio.standard}"
        if radio.standard != "802.11n" and radio.aggregation is not None:
            yield "radio.aggregation", (
                f"only an 802.11n radio aggregates; leave aggregation out under {radio.standard}"
            )
        aggregation = radio.aggregation
        if (radio.standard == "802.11n" and aggregation is not None and aggregation.max_amsdu_bytes > 0
                and aggregation.max_ampdu_bytes == 0):
            yield "radio.aggregation.max_amsdu_bytes", (
                "A-MSDUs are sent under the Block Ack agreement, which max_ampdu_bytes 0 turns off"
            )
        if radio.standard == "802.11n" and radio.ack_rate == "data":
            yield "radio.ack_rate", "802.11n acknowledges HT frames at a non-HT rate; use control or basic"
        if radio.standard != "802.11n" and radio.rate_control.kind == "minstrel_ht":
            yield "radio.rate_control.kind", (
                f"minstrel_ht chooses among 802.11n's MCSs; use minstrel under {radio.standard}"
            )


def _ht_phy(radio: Any) -> dict[str, str]:
    """An 802.11n radio's band, channel width and guard interval, the block's or the defaults."""
    ht = radio.ht
    return {
        "band": "5GHz" if ht is None else ht.band,
        "channel_width": "20MHz" if ht is None else ht.channel_width,
        "guard_interval": "long" if ht is None else ht.guard_interval,
    }


def _rate_problems(radio: Any) -> Iterable[tuple[str, str]]:
    """Data and basic rates are the standard's; 802.11n's data rates are its MCSs at the radio's
    width and guard interval, its basic rates 802.11a's but 9 Mbit/s (and 54 where MCS 3 has it)."""
    data_rates = basic_rates = standard_table("RATES_OF_STANDARD")[radio.standard]
    data_what = basic_what = ""
    if radio.standard == "802.11n":
        facts, ht = json_schema.standards()["802.11n"], _ht_phy(radio)
        data_rates = tuple(facts["ht_rates"][ht["channel_width"]][ht["guard_interval"]])
        basic_rates = tuple(r for r in facts["basic_rates"] if r not in data_rates)
        data_what = f"HT {ht['channel_width'][:-3]} MHz {ht['guard_interval']} GI "
        basic_what = "non-HT "
    given = [("radio.data_rate", radio.data_rate, data_rates, data_what)]
    given.append(("radio.basic_rate", radio.basic_rate, basic_rates, basic_what))
    given += [(f"radio.link_rates[{k}].rate", lr.rate, data_rates, data_what) for k, lr in enumerate(radio.link_rates)]
    for where, rate, rates, what in given:
        if rate not in rates:
            allowed = ", ".join(_mbps(r) for r in rates)
            yield where, f"{radio.standard} has no {_mbps(rate)} Mbps {what}rate; use one of {allowed} Mbps"


def _link_problems(scenario: Any, directory: _Directory) -> Generator[tuple[str, str], None, dict[str, set[str]]]:
    """Wired links: known ends, no loops, no parallel links; returns who neighbours whom."""
    neighbours: dict[str, set[str]] = {node: set() for node in scenario.nodes}
    seen_pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(scenario.links):
        ends_ok = yield from directory.check_ends(f"links[{i}]", (("from", link.from_), ("to", link.to)))
        if link.from_ == link.to:
            yield f"links[{i}].to", f"a link cannot connect node {link.to!r} to itself"
            continue
        pair = frozenset((link.from_, link.to))
        if pair in seen_pairs:
            # Queues are named "FROM->TO" in the results; parallel links would be ambiguous.
            yield f"links[{i}]", f"duplicate of links[{seen_pairs[pair]}] (both connect {link.from_} and {link.to})"
        seen_pairs.setdefault(pair, i)
        if ends_ok:
            neighbours.setdefault(link.from_, set()).add(link.to)
            neighbours.setdefault(link.to, set()).add(link.from_)
    return neighbours


def _flow_problems(
    scenario: Any, directory: _Directory, neighbours: dict[str, set[str]]
) -> Iterable[tuple[str, str]]:
    """Each flow: its id, ends, application and transport, timing, paths and parameters."""
    topology = scenario.topology
    duration = scenario.duration
    flow_ids: dict[str, int] = {}
    for i, flow in enumerate(scenario.flows):
        where = f"flows[{i}]"
        if flow.id in flow_ids:
            yield f"{where}.id", f"duplicate flow id {flow.id!r} (also flows[{flow_ids[flow.id]}])"
        flow_ids.setdefault(flow.id, i)
        ends_ok = yield from directory.check_ends(where, (("src", flow.src), ("dst", flow.dst)))
        if flow.src == flow.dst:
            yield f"{where}.dst", f"source and destination are the same node {flow.dst!r}"
        # Over radios, whether a route exists depends on the propagation model: the core decides.
        elif ends_ok and topology is None and not _reachable(neighbours, flow.src, flow.dst):
            yield f"{where}.dst", f"no route from {flow.src!r} to {flow.dst!r} over the links"

        app_kind, transport_kind = flow.app.kind, flow.transport.kind
        needed = ("tcp", "tcp_rlc") if app_kind == "bulk" else ("udp",)
        if transport_kind not in needed:
            yield (
                f"{where}.transport.kind",
                f"a {app_kind} application needs a {' or '.join(needed)} transport, got {transport_kind!r}",
            )

        if flow.start >= duration:
            yield (
                f"{where}.start",
                f"must be before the end of the run ({units.format_duration(duration)}), "
                f"got {units.format_duration(flow.start)}",
            )
        if flow.start_jitter and flow.start + flow.start_jitter > duration:
            yield (
                f"{where}.start_jitter",
                f"start + start_jitter must not be later than the end of the run ({units.format_duration(duration)})",
            )
        # A stop after the end of the run is allowed: the core caps it at `duration`, which lets
        # `--set duration=...` shorten a run without editing every flow.
        if flow.stop is not None and flow.stop <= flow.start:
            yield f"{where}.stop", f"must be after start ({units.format_duration(flow.start)})"
        elif flow.stop is not None and flow.stop < flow.start + flow.start_jitter:
            # The flow starts up to start_jitter late, drawn per seed: a stop before that would
            # make the scenario fail for some seeds only.
            latest = units.format_duration(flow.start + flow.start_jitter)
            yield f"{where}.stop", f"must not be before start + start_jitter ({latest}), the latest the flow may start"

        if flow.paths is not None:
            yield from _flow_paths_problems(
                where, flow, scenario.routing, directory, neighbours, ends_ok and flow.src != flow.dst
            )

        if flow.transport.kind == "tcp_rlc":
            rlc = flow.transport
            if rlc.max_cwnd < rlc.initial_cwnd:
                yield f"{where}.transport.max_cwnd", "must not be smaller than initial_cwnd"
            elif rlc.decoder == "exact" and rlc.max_cwnd > MAX_EXACT_BLOCK:
                yield (
                    f"{where}.transport.max_cwnd",
                    f"the exact decoder keeps B^2 coefficients per block: at most {MAX_EXACT_BLOCK} with it",
                )

        if flow.transport.kind == "tcp":
            tcp = flow.transport
            if tcp.max_rto < tcp.min_rto:
                yield f"{where}.transport.max_rto", "must not be smaller than min_rto"
            if tcp.rwnd < tcp.mss:
                yield f"{where}.transport.rwnd", f"must hold at least one segment (mss {tcp.mss} bytes)"
            for block in cc_parameter_blocks(type(tcp)):
                if getattr(tcp, block) is not None and tcp.cc != block:
                    yield f"{where}.transport.{block}", f"only used with cc: {block} (cc is {tcp.cc})"
            if tcp.vegas is not None and tcp.vegas.beta < tcp.vegas.alpha:
                yield (
                    f"{where}.transport.vegas.beta",
                    f"must not be smaller than alpha ({tcp.vegas.alpha:g}), got {tcp.vegas.beta:g}",
                )


def _flow_paths_problems(
    where: str,
    flow: Any,
    routing: Any,
    directory: _Directory,
    neighbours: Mapping[str, set[str]],
    ends_ok: bool,
) -> Iterable[tuple[str, str]]:
    """A flow's `paths`: static routing only; each explicit path over known nodes from the flow's
    source to its destination, none twice, consecutive nodes linked where the links say so (whether
    two radios are in range is the core's to judge, as for routes). The core checks the same, and
    finds the disjoint paths."""
    paths = flow.paths
    if routing.kind == "aodv":
        yield f"{where}.paths", "aodv finds its routes itself; flow paths are followed under static routing"
        return
    if routing.kind == "backpressure":
        yield f"{where}.paths", "backpressure chooses next hops itself; flow paths are followed under static routing"
        return
    if paths is None or paths.kind != "explicit":
        return
    for j, path in enumerate(paths.paths):
        at = f"{where}.paths.paths[{j}]"
        if len(path) < 2:
            yield (
                at,
                f"a path runs from the flow's source {flow.src!r} to its destination {flow.dst!r}: two "
                f"nodes at least, got {len(path)}",
            )
            continue
        known = True
        seen: dict[str, int] = {}
        for m, name in enumerate(path):
            if name not in directory:
                known = False
                yield f"{at}[{m}]", directory.missing(name)
            elif name in seen:
                known = False
                yield f"{at}[{m}]", f"{name!r} is on the path already (at [{seen[name]}]); a path visits each node once"
            seen.setdefault(name, m)
        if path[0] != flow.src:
            yield f"{at}[0]", f"must be the flow's source {flow.src!r}, got {path[0]!r}"
        if path[-1] != flow.dst:
            yield f"{at}[{len(path) - 1}]", f"must be the flow's destination {flow.dst!r}, got {path[-1]!r}"
        if not (known and ends_ok):
            continue
        for m in range(1, len(path)):
            a, b = path[m - 1], path[m]
            # Two placed nodes may be radios in range of each other: the core knows.
            if b not in neighbours.get(a, ()) and not (directory.is_placed(a) and directory.is_placed(b)):
                yield (
                    f"{at}[{m}]",
                    f"no link from {a!r} to {b!r} (consecutive nodes must be neighbours: a wired link, the "
                    "downlink, or radios in range)",
                )
                break


def _downlink_problems(
    downlink: Any,
    directory: _Directory,
    neighbours: dict[str, set[str]],
) -> Iterable[tuple[str, str]]:
    """The downlink's node references and orderings; its links join `neighbours`."""
    bs = downlink.base_station
    bs_ok = bs in directory
    if not bs_ok:
        yield "downlink.base_station", directory.missing(bs)
    users: dict[str, int] = {}
    for i, user in enumerate(downlink.users):
        where = f"downlink.users[{i}].node"
        if user.node not in directory:
            yield where, directory.missing(user.node)
        elif user.node == bs:
            yield where, "the base station cannot be one of its own users"
        elif user.node in users:
            yield where, f"{user.node!r} is already downlink.users[{users[user.node]}]"
        else:
            users[user.node] = i
            if bs_ok:
                # Downlink one way, the user's uplink the other.
                neighbours.setdefault(bs, set()).add(user.node)
                neighbours.setdefault(user.node, set()).add(bs)
    if downlink.amc.kind == "custom":
        modes = downlink.amc.modes
        for i in range(1, len(modes)):
            if modes[i].min_snr <= modes[i - 1].min_snr:
                yield f"downlink.amc.modes[{i}].min_snr", "thresholds must increase"
            if modes[i].efficiency < modes[i - 1].efficiency:
                yield f"downlink.amc.modes[{i}].efficiency", "must not be below the previous mode's"
    erasure = downlink.erasure
    if erasure is not None and erasure.hold_max < erasure.hold_min:
        yield (
            "downlink.erasure.hold_max",
            f"must not be smaller than hold_min ({units.format_duration(erasure.hold_min)})",
        )


def _router_problems(
    scenario: Any,
    directory: _Directory,
    neighbours: dict[str, set[str]],
) -> Iterable[tuple[str, str]]:
    """The routers' node references, users and channels; their links join `neighbours`."""
    if scenario.routing.kind == "aodv":
        yield "routing.kind", "aodv routes over radios only; this scenario has routers (use static)"
    elif scenario.routing.kind == "backpressure":
        yield "routing.kind", "backpressure forwards over radios only; this scenario has routers"
    elif scenario.routing.kind == "horizon":
        yield "routing.kind", "horizon forwards over radios only; this scenario has wired links, a downlink or routers"
    elif any(r.priority_pairs is not None for r in scenario.routers) and scenario.routing.kind != "static":
        yield "routing.kind", "routers with priority_pairs forward over static routes (use static)"
    base_station = scenario.downlink.base_station if scenario.downlink is not None else None
    routers: dict[str, int] = {}
    for r, router in enumerate(scenario.routers):
        where = f"routers[{r}]"
        node_ok = router.node in directory
        if not node_ok:
            yield f"{where}.node", directory.missing(router.node)
        elif router.node in routers:
            yield f"{where}.node", f"{router.node!r} is already routers[{routers[router.node]}]"
        elif router.node == base_station:
            yield f"{where}.node", "the node is the downlink's base station"
        routers.setdefault(router.node, r)
        users: dict[str, int] = {}
        for u, user in enumerate(router.users):
            at = f"{where}.users[{u}]"
            if user.node not in directory:
                yield f"{at}.node", directory.missing(user.node)
            elif user.node == router.node:
                yield f"{at}.node", "a router cannot be one of its own users"
            elif user.node in users:
                yield f"{at}.node", f"{user.node!r} is already {where}.users[{users[user.node]}]"
            else:
                users[user.node] = u
                if node_ok:
                    neighbours.setdefault(router.node, set()).add(user.node)
                    neighbours.setdefault(user.node, set()).add(router.node)
            channel = user.channel
            if channel is not None and channel.hold_max < channel.hold_min:
                yield (
                    f"{at}.channel.hold_max",
                    f"must not be smaller than hold_min ({units.format_duration(channel.hold_min)})",
                )


def _coding_problems(scenario: Any) -> Iterable[tuple[str, str]]:
    """`coding`: over radios, one per node, under static routes, with no wired links, downlink or
    routers (flows' paths are fine). The core checks the same (`scenario::coding::check`), in this
    order."""
    if scenario.coding.recovery is not None and scenario.coding.scheme != "bfly":
        yield "coding.recovery", "is BFLY's recovery rule; it needs scheme: bfly"
    radio = scenario.radio
    if radio is None:
        yield "coding", "coding runs over radios; this scenario has none"
        return
    if scenario.routing.kind != "static":
        yield "routing.kind", "coding forwards over static routes (use static)"
    if scenario.links or scenario.downlink is not None or scenario.routers:
        yield "coding", "coding runs over radios only; this scenario has wired links, a downlink or routers"
    if radio.node_channels:
        yield "radio.node_channels", "coding runs on one radio per node"


def _wireless_link_problems(
    where: str, src: str, dst: str, directory: _Directory, wired_hint: str
) -> Iterable[tuple[str, str]]:
    """The two ends of a per-link radio setting at `where` (`link_errors[i]`,
    `radio.link_rates[i]`): placed nodes, and not the same one."""
    for field, node in (("from", src), ("to", dst)):
        if node not in directory:
            yield f"{where}.{field}", directory.missing(node)
        elif not directory.is_placed(node):
            yield f"{where}.{field}", f"{node!r} has no radio (it is listed in nodes); {wired_hint}"
    if src == dst:
        yield f"{where}.to", f"a link cannot connect node {dst!r} to itself"


def _node_channel_problems(
    radio: Any, directory: _Directory
) -> Iterable[tuple[str, str]]:
    """`radio.node_channels`: placed nodes only, each with a non-empty list of distinct channels."""
    for name, channels in radio.node_channels.items():
        where = f"radio.node_channels.{name}"
        if name not in directory:
            yield where, directory.missing(name)
        elif not directory.is_placed(name):
            yield where, f"{name!r} is a wired node (listed in nodes); only placed nodes have radios"
        if not channels:
            yield where, "needs at least one channel"
        seen: set[int] = set()
        for k, channel in enumerate(channels):
            if channel in seen:
                yield f"{where}[{k}]", f"channel {channel} is listed twice (one radio per channel)"
            seen.add(channel)


def _reachable(neighbours: Mapping[str, set[str]], src: str, dst: str) -> bool:
    """Whether the links connect src to dst (breadth-first search)."""
    frontier, seen = [src], {src}
    while frontier:
        node = frontier.pop()
        if node == dst:
            return True
        for nxt in neighbours[node] - seen:
            seen.add(nxt)
            frontier.append(nxt)
    return False
