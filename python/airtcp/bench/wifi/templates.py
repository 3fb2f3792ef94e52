"""airtcp's templates against the ns-3 programs: the settings the programs compile in
(`bench/wifi/wifi_common.h`, `bench/wifi/README.md`) and the check that each template has them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .chain import CHAIN11A_TEMPLATE, CHAIN_DURATION_S, CHAIN_START_S, CHAIN_TEMPLATE
from .common import NS_PER_S
from .grid import (
    GRID_COLS,
    GRID_DURATION_S,
    GRID_ROWS,
    GRID_STAGGER_S,
    GRID_START_S,
    GRID_TEMPLATE,
    grid_pairs,
)
from .scale import SCALE_TEMPLATE

BENCH_CASES = ("chain", "chain11a", "grid", "scale")
BENCH_TEMPLATES = {
    "chain": CHAIN_TEMPLATE,
    "chain11a": CHAIN11A_TEMPLATE,
    "grid": GRID_TEMPLATE,
    "scale": SCALE_TEMPLATE,
}

# What the ns-3 programs compile in (wifi_common.h, bench/wifi/README.md), in the normalised form
# of an airtcp scenario: bits/s, bytes, metres, nanoseconds.
EXPECTED_RADIO: dict[str, Any] = {
    "standard": "802.11b",
    "data_rate": 2_000_000,
    # RTS/CTS and broadcasts go at 1 Mbps in ns-3 (ControlMode, NonUnicastMode).
    "basic_rate": 1_000_000,
    "rts_cts": False,
    "propagation": {"kind": "range", "range": 250.0},
    "fading": {"kind": "none"},
    # No capture model in ns-3: the SINR error model alone decides.
    "reception": "sinr",
    # ns-3's ad-hoc stations acknowledge at the data rate.
    "ack_rate": "data",
    "preamble": "long",
    "queue": {"kind": "droptail", "packets": 500},
    # FrameRetryLimit 7 counts attempts; airtcp's limit counts retransmissions.
    "short_retry_limit": 6,
    "mac_overhead": 36,
}
# The same for `wifi_chain --standard=11a` at its default 54 Mbps (the benchmark sets 24 Mbps with
# --set radio.data_rate=24Mbps, as `--rate=24` does in ns-3). Rate control is constant (as
# ConstantRateWifiManager), which the normalised form leaves out.
EXPECTED_RADIO_11A: dict[str, Any] = {
    **EXPECTED_RADIO,
    "standard": "802.11a",
    "data_rate": 54_000_000,
    # ControlMode OfdmRate6Mbps: RTS/CTS and broadcasts.
    "basic_rate": 6_000_000,
    # ns-3 answers at the highest mandatory rate (6, 12, 24 Mbps) not above the data rate:
    # measured, 24 Mbps ACKs for 54 and 24 Mbps data, 6 Mbps ACKs for 6 Mbps data.
    "ack_rate": "control",
    # Left out: 802.11a has one OFDM preamble (16 us + 4 us SIGNAL), as ns-3's OfdmPhy.
    "preamble": None,
}
EXPECTED_TCP: dict[str, Any] = {
    "kind": "tcp",
    "cc": "newreno",
    "sack": True,
    "mss": 1000,
    # 20 IP + 20 TCP + 12 timestamp option.
    "header_bytes": 52,
    "delayed_ack": 2,
    "delayed_ack_timeout": 200_000_000,
    "initial_cwnd": 10,
    "initial_ssthresh": None,
    "rwnd": 1 << 20,
    "dupthresh": 3,
    # ns-3 halves the data in flight (the pipe) on a loss.
    "ssthresh_basis": "pipe",
    # ns-3's default TcpPrrRecovery; the benchmark's --recovery classic overrides both sides.
    "recovery": "prr",
    "min_rto": 1_000_000_000,
    "max_rto": 60_000_000_000,
    "initial_rto": 1_000_000_000,
    "clock_granularity": 1_000_000,
}


def _differences(where: str, got: Any, want: Any) -> list[str]:
    """Where `got` differs from `want`; only the keys `want` names are compared."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where} is {got!r}, expected a mapping"]
        problems = []
        for key, value in want.items():
            problems += _differences(f"{where}.{key}", got.get(key), value)
        return problems
    return [] if got == want else [f"{where} is {got!r}, expected {want!r} (as in ns-3)"]


def expected_settings(case: str) -> dict[str, Any]:
    """The normalised scenario fields the template of `case` must have to match ns-3's case."""
    flow = {"app": {"kind": "bulk", "bytes": None}, "transport": EXPECTED_TCP, "stop": None}
    if case in ("chain", "chain11a"):
        return {
            "duration": int(CHAIN_DURATION_S * NS_PER_S),
            "radio": EXPECTED_RADIO if case == "chain" else EXPECTED_RADIO_11A,
            "topology": {"kind": "chain", "spacing": 200.0},
            "routing": {"kind": "static", "metric": "hops"},
            "flows": [{**flow, "src": "n0", "start": int(CHAIN_START_S * NS_PER_S)}],
        }
    if case == "grid":
        return {
            "duration": int(GRID_DURATION_S * NS_PER_S),
            "radio": EXPECTED_RADIO,
            "topology": {"kind": "grid", "rows": GRID_ROWS, "cols": GRID_COLS, "spacing": 200.0},
            # ns-3's AodvHelper defaults: no local repair; EnableHello true, HelloInterval 1 s,
            # AllowedHelloLoss 2.
            "routing": {
                "kind": "aodv",
                "local_repair": False,
                "hello": True,
                "hello_interval": NS_PER_S,
                "allowed_hello_loss": 2,
            },
            "flows": [
                {
                    **flow,
                    "src": f"n{src}",
                    "dst": f"n{dst}",
                    "start": round((GRID_START_S + i * GRID_STAGGER_S) * NS_PER_S),
                }
                for i, (src, dst) in enumerate(grid_pairs())
            ],
        }
    if case == "scale":
        return {
            "radio": EXPECTED_RADIO,
            "topology": {"kind": "random"},
            "routing": {"kind": "static", "metric": "hops"},
            "flows": [flow],
        }
    raise ValueError(f"unknown case {case!r}")


def template_problems(case: str, normalised: dict[str, Any]) -> list[str]:
    """Differences between a template (airtcp's normalised form) and ns-3's settings."""
    want = expected_settings(case)
    problems = []
    for key, value in want.items():
        if key == "flows":
            flows = normalised.get("flows") or []
            if len(flows) != len(value):
                problems.append(f"flows: {len(flows)} flows, expected {len(value)}")
            for i, (got, expected) in enumerate(zip(flows, value)):
                problems += _differences(f"flows[{i}]", got, expected)
        else:
            problems += _differences(key, normalised.get(key), value)
    return problems


def check_templates(wifi_dir: Path, cases: Iterable[str] = BENCH_CASES) -> list[str]:
    """Validates the templates of `cases` as airtcp does and compares them with ns-3's settings."""
    from airtcp.errors import ScenarioError
    from airtcp.scenario.schema import load_scenario, to_core_dict

    problems = []
    for case in cases:
        path = wifi_dir / BENCH_TEMPLATES[case]
        try:
            normalised = to_core_dict(load_scenario(path))
        except ScenarioError as error:
            problems.append(f"{path.name}: {error}")
            continue
        problems += [f"{path.name}: {p}" for p in template_problems(case, normalised)]
    return problems
