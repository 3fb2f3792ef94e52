"""The cases of the differential matrix against ns-3 (`bench/wifi/wifi_matrix.cc`): each is one
placement of nodes, its flows pinned to paths, one radio configuration, and both simulators'
inputs for it: the ns-3 program's arguments and the airtcp scenario.

Both sides are configured as ns-3 3.44 is by default, except where a case says otherwise:
transmit power 16.0206 dBm, preamble detection at -82 dBm and energy detection at -62 dBm
(airtcp's `rx_threshold` and `cs_threshold`), noise in the channel width with a 7 dB noise figure,
SINR reception without capture, a 500-packet MAC queue whose packets expire after 500 ms, 7
transmission attempts, constant rates
with ACKs at the standard's control rate, long DSSS preambles; TCP NewReno with SACK, delayed ACKs
every second segment, an initial window of 10, 52 header bytes (timestamps) and ssthresh from the
pipe, as the ns-3 reference programs have always had it (bench/wifi/README.md).

The groups (`GROUPS`): one flow over one hop at several rates, distances and propagation models;
2, 4 and 8 senders to one receiver; hidden pairs with and without RTS/CTS; chains of 1-6 hops with
paths along the line; two flows crossing at a relay; saturated UDP beside them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# ns-3 3.44's defaults the cases share.
TX_POWER_DBM = 16.0206
LOG_REFERENCE_LOSS_DB = 46.6777
START_S = 1.0
STAGGER_S = 0.1
DURATION_S = 20.0
FREQUENCY_HZ = {"11a": 5.15e9, "11b": 2.412e9}


@dataclass(frozen=True)
class Case:
    """One case of the matrix."""

    name: str
    group: str
    what: str
    standard: str  # "11a" or "11b"
    rate_mbps: float
    positions: tuple[tuple[float, float], ...]
    paths: tuple[tuple[int, ...], ...]
    propagation: str = "logdistance"  # range, logdistance, tworay
    exponent: float = 3.0
    range_m: float = 250.0
    rts: bool = False
    traffic: str = "tcp"  # tcp (bulk NewReno) or udp (saturating constant bit rate)
    segment: int = 1460
    duration_s: float = DURATION_S
    tags: tuple[str, ...] = field(default=())

    def ns3_args(self, seed: int, trace: str | None = None) -> list[str]:
        """The arguments of `wifi_matrix` for this case and seed."""
        args = [
            "--positions=" + ";".join(f"{x:g},{y:g}" for x, y in self.positions),
            "--paths=" + ";".join("-".join(str(n) for n in p) for p in self.paths),
            f"--standard={self.standard}",
            f"--rate={self.rate_mbps:g}",
            f"--rtscts={int(self.rts)}",
            f"--propagation={self.propagation}",
            f"--range={self.range_m:g}",
            f"--exponent={self.exponent:g}",
            f"--refloss={LOG_REFERENCE_LOSS_DB:g}",
            f"--frequency={FREQUENCY_HZ[self.standard]:g}",
            "--height=1.5",
            f"--txpower={TX_POWER_DBM:g}",
            f"--traffic={self.traffic}",
            f"--segment={self.segment}",
            f"--duration={self.duration_s:g}",
            f"--start={START_S:g}",
            f"--stagger={STAGGER_S:g}",
            f"--seed={seed}",
        ]
        if trace:
            args.append(f"--trace={trace}")
        return args

    def scenario(self, seed: int = 1) -> dict[str, Any]:
        """The airtcp scenario for this case (a mapping shaped like a scenario file)."""
        eleven_a = self.standard == "11a"
        radio: dict[str, Any] = {
            "standard": "802.11a" if eleven_a else "802.11b",
            "data_rate": f"{self.rate_mbps:g}Mbps",
            "basic_rate": "6Mbps" if eleven_a else "1Mbps",
            "rate_control": {"kind": "constant"},
            "tx_power": f"{TX_POWER_DBM}dBm",
            "rx_threshold": "-82dBm",
            "cs_threshold": "-62dBm",
            "rts_cts": self.rts,
            "ack_rate": "control",
            "reception": "sinr",
            "queue": {"kind": "droptail", "packets": 500},
            # WifiMacQueue's MaxDelay.
            "msdu_lifetime": "500ms",
            "short_retry_limit": 6,
            "long_retry_limit": 6,
            "propagation": self._propagation(),
        }
        if not eleven_a:
            radio["preamble"] = "long"
        nodes = [
            {"name": f"n{i}", "x": f"{x:g}m", "y": f"{y:g}m"} for i, (x, y) in enumerate(self.positions)
        ]
        flows = []
        for k, path in enumerate(self.paths):
            flow: dict[str, Any] = {
                "id": f"f{k}",
                "src": f"n{path[0]}",
                "dst": f"n{path[-1]}",
                "start": f"{START_S + STAGGER_S * k:g}s",
            }
            if self.traffic == "tcp":
                flow["app"] = {"kind": "bulk"}
                flow["transport"] = {
                    "kind": "tcp",
                    "cc": "newreno",
                    "sack": True,
                    "mss": self.segment,
                    "delayed_ack": 2,
                    "initial_cwnd": 10,
                    "header_bytes": 52,
                    "ssthresh_basis": "pipe",
                    "rwnd": "1MiB",
                }
            else:
                # Twice the data rate, as the ns-3 program offers: the MAC queue never empties.
                flow["app"] = {
                    "kind": "cbr",
                    "rate": f"{2 * self.rate_mbps:g}Mbps",
                    "packet_size": self.segment,
                }
                flow["transport"] = {"kind": "udp"}
            if len(path) > 2:
                flow["paths"] = {"kind": "explicit", "paths": [[f"n{n}" for n in path]]}
            flows.append(flow)
        return {
            "name": f"matrix-{self.name}",
            "duration": f"{self.duration_s:g}s",
            "seed": seed,
            "radio": radio,
            "topology": {"kind": "explicit", "nodes": nodes},
            "routing": {"kind": "static"},
            "flows": flows,
        }

    def _propagation(self) -> dict[str, Any]:
        if self.propagation == "range":
            return {"kind": "range", "range": f"{self.range_m:g}m"}
        if self.propagation == "logdistance":
            return {
                "kind": "log_distance",
                "exponent": self.exponent,
                "reference_distance": "1m",
                "reference_loss": f"{LOG_REFERENCE_LOSS_DB}dB",
            }
        if self.propagation == "tworay":
            return {
                "kind": "two_ray_ground",
                "frequency": f"{FREQUENCY_HZ[self.standard]:g}Hz",
                "antenna_height": "1.5m",
            }
        raise ValueError(f"unknown propagation {self.propagation!r}")


# --------------------------------------------------------------------------------------------
# The groups


def _line(n: int, spacing: float) -> tuple[tuple[float, float], ...]:
    return tuple((spacing * i, 0.0) for i in range(n))


def _star(n: int, radius: float) -> tuple[tuple[float, float], ...]:
    """A receiver at the origin (node 0) and `n` senders evenly on a circle around it."""
    ring = [
        (round(radius * math.cos(2 * math.pi * i / n), 3), round(radius * math.sin(2 * math.pi * i / n), 3))
        for i in range(n)
    ]
    return ((0.0, 0.0), *ring)


def one_hop_cases() -> list[Case]:
    """One TCP flow over one hop: several rates, distances, propagation models, segment sizes."""
    specs = [
        # name, standard, rate, distance, propagation, segment
        ("a54-10m", "11a", 54, 10, "logdistance", 1460),
        ("a54-10m-1000", "11a", 54, 10, "logdistance", 1000),
        ("a54-20m", "11a", 54, 20, "logdistance", 1460),
        ("a24-30m", "11a", 24, 30, "logdistance", 1460),
        ("a6-45m", "11a", 6, 45, "logdistance", 1460),
        ("a54-range", "11a", 54, 10, "range", 1460),
        ("a54-tworay-60m", "11a", 54, 60, "tworay", 1460),
        ("b11-10m", "11b", 11, 10, "logdistance", 1460),
        ("b11-range-1000", "11b", 11, 100, "range", 1000),
        ("b2-range-1000", "11b", 2, 200, "range", 1000),
        ("b11-tworay-100m", "11b", 11, 100, "tworay", 1460),
    ]
    return [
        Case(
            name=f"hop1-{name}",
            group="one_hop",
            what=f"one hop, {_std(std)} {rate} Mbps, {dist} m, {_prop(prop)}, {seg}-byte segments",
            standard=std,
            rate_mbps=rate,
            positions=_line(2, dist),
            paths=((0, 1),),
            propagation=prop,
            segment=seg,
        )
        for name, std, rate, dist, prop, seg in specs
    ]


def star_cases() -> list[Case]:
    """N TCP senders 10 m around one receiver (all hear each other)."""
    out = []
    for std, rate, n, rts in (
        ("11a", 54, 2, False),
        ("11a", 54, 4, False),
        ("11a", 54, 8, False),
        ("11a", 54, 4, True),
        ("11b", 11, 4, False),
    ):
        out.append(
            Case(
                name=f"star{n}-{std[-1]}{rate}" + ("-rts" if rts else ""),
                group="star",
                what=f"{n} senders 10 m from one receiver, {_std(std)} {rate} Mbps"
                + (", RTS/CTS" if rts else ""),
                standard=std,
                rate_mbps=rate,
                positions=_star(n, 10.0),
                paths=tuple((i, 0) for i in range(1, n + 1)),
                rts=rts,
            )
        )
    return out


def hidden_cases() -> list[Case]:
    """Two senders on either side of a receiver, hidden from each other: each is 38.6 m from the
    receiver (-78.3 dBm there, 0.75 of the 51.5-m preamble-detection range) and 77.2 m from the
    other (-87.3 dBm: neither detected nor above the energy threshold)."""
    d = 38.6
    positions = ((0.0, 0.0), (-d, 0.0), (d, 0.0))
    out = []
    for std, rate, rts in (("11a", 24, False), ("11a", 24, True), ("11b", 11, False), ("11b", 11, True)):
        out.append(
            Case(
                name=f"hidden-{std[-1]}{rate}" + ("-rts" if rts else ""),
                group="hidden",
                what=f"two hidden senders, receiver between, {_std(std)} {rate} Mbps"
                + (", RTS/CTS" if rts else ", no RTS/CTS"),
                standard=std,
                rate_mbps=rate,
                positions=positions,
                paths=((1, 0), (2, 0)),
                rts=rts,
            )
        )
    return out


def chain_cases() -> list[Case]:
    """Chains with the flow's path along the line: 802.11a at 54 Mbps 15 m apart (two hops
    away is still detected, -75 dBm), 24 Mbps 30 m apart (two hops away is hidden, -84 dBm), and
    802.11b at 11 Mbps 30 m apart."""
    out = []
    for std, rate, spacing, hops_list in (
        ("11a", 54, 15.0, (2, 3, 4, 6)),
        ("11a", 24, 30.0, (2, 3, 4, 6)),
        ("11b", 11, 30.0, (2, 4)),
    ):
        for hops in hops_list:
            out.append(
                Case(
                    name=f"chain{hops}-{std[-1]}{rate}",
                    group="chain",
                    what=f"chain of {hops} hops, {spacing:g} m apart, {_std(std)} {rate} Mbps",
                    standard=std,
                    rate_mbps=rate,
                    positions=_line(hops + 1, spacing),
                    paths=(tuple(range(hops + 1)),),
                )
            )
    return out


def cross_cases() -> list[Case]:
    """Two flows crossing at a relay in the middle of a plus sign: west -> east and north ->
    south, each over two hops."""
    out = []
    for std, rate, d in (("11a", 54, 15.0), ("11a", 24, 30.0)):
        positions = ((0.0, 0.0), (-d, 0.0), (d, 0.0), (0.0, d), (0.0, -d))
        out.append(
            Case(
                name=f"cross-{std[-1]}{rate}",
                group="cross",
                what=f"two 2-hop flows crossing at a relay, arms {d:g} m, {_std(std)} {rate} Mbps",
                standard=std,
                rate_mbps=rate,
                positions=positions,
                paths=((1, 0, 2), (3, 0, 4)),
            )
        )
    return out


def udp_cases() -> list[Case]:
    """Saturated UDP: one sender, and four senders around one receiver."""
    out = []
    for std, rate, n in (("11a", 54, 1), ("11a", 54, 4), ("11b", 11, 4)):
        out.append(
            Case(
                name=f"udp{n}-{std[-1]}{rate}",
                group="udp",
                what=f"{n} saturated UDP sender(s) 10 m from one receiver, {_std(std)} {rate} Mbps",
                standard=std,
                rate_mbps=rate,
                positions=_star(n, 10.0),
                paths=tuple((i, 0) for i in range(1, n + 1)),
                traffic="udp",
                segment=1000,
                duration_s=10.0,
            )
        )
    return out


def _std(std: str) -> str:
    return "802.11a" if std == "11a" else "802.11b"


def _prop(prop: str) -> str:
    return {"logdistance": "log-distance", "range": "range", "tworay": "two-ray ground"}[prop]


GROUPS = {
    "one_hop": one_hop_cases,
    "star": star_cases,
    "hidden": hidden_cases,
    "chain": chain_cases,
    "cross": cross_cases,
    "udp": udp_cases,
}


def all_cases() -> list[Case]:
    """Every case, group by group."""
    return [case for make in GROUPS.values() for case in make()]


def case_by_name(name: str) -> Case:
    for case in all_cases():
        if case.name == name:
            return case
    raise KeyError(name)
