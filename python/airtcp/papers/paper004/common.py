"""Paper 004's shared pieces: the paper's units, the redundancy rule, the scenario edits every
sweep makes and the per-run goodputs the analyses read (docs/tcp_rlc.md)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment
from airtcp.scenario import bundled

FOLDER = "004_tcp_rlc"

# The paper's "1 Mbps": 1024 kbit/s, 500 packets of 256 bytes per second (spec §2.9).
MBPS = 1_024_000
PACKET_BITS = 256 * 8
BASE_RTT_S = 0.3  # the single-path and multipath set-ups: 150 ms one way

QUICK_DURATION = "200s"
FULL_DURATION = "1000s"
QUICK_SEEDS = 2
FULL_SEEDS = 5
# The spec's quick form checks the same bands 1.5 times wider.
QUICK_WIDEN = 1.5


def redundancy(p_min: float) -> int:
    """r = ceil(2 / p_min) - 1: the text's "(1 + r)/p_min ~ 2" read as (1 + r) p_min ~ 2 (A1)."""
    return math.ceil(2 / p_min - 1e-9) - 1


def rate_bps(rate: object) -> float:
    """A rate column's value ("1024000bps", as the sweeps write it) in bit/s."""
    return float(str(rate).removesuffix("bps"))


def packets_per_rtt(rate_bps: float, rtt_s: float = BASE_RTT_S) -> int:
    """A buffer of "rate x RTT", in 256-byte packets."""
    return max(1, round(rate_bps * rtt_s / PACKET_BITS))


def scenario(name: str) -> dict[str, Any]:
    """A bundled paper-004 scenario as a mutable mapping."""
    return bundled.read_data(f"{FOLDER}/{name}")


def shorten(base: dict[str, Any], quick: bool) -> dict[str, Any]:
    base["duration"] = QUICK_DURATION if quick else FULL_DURATION
    return base


def band(low: float, high: float, quick: bool) -> tuple[float, float]:
    """A tolerance band around 1, widened in the quick form."""
    if not quick:
        return low, high
    return 1 - (1 - low) * QUICK_WIDEN, 1 + (high - 1) * QUICK_WIDEN


def finished_flows(exp: Experiment) -> pd.DataFrame:
    return exp.flows[exp.flows["status"] == "done"]
