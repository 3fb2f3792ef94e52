"""TCP-RLC's RTT-slotted model (paper 004 §II) from Python: the model Theorems 1-3 are proved in,
run as a Monte Carlo simulation in the Rust core (`crates/airtcp/src/transport/tcp_rlc/slotted.rs`,
docs/tcp_rlc.md), so that the theorems are checked against measured means, not restated.

    from airtcp.models import rlc_slotted as rs
    one = rs.run(rs.config(rs.single(capacity=150), low=0.7, low_probability=0.5, redundancy=2))
    one.flows[0]["mean_window"]       # E[W], packets
    many = rs.run(rs.config(rs.multiflow(30, 500, rs.quota(2.0)), low=0.5, low_probability=0.25,
                            redundancy=3))

A slot is one round trip; `capacity` is packets per slot (rate x RTT / 2048 bit for 256-byte
packets). Errors are `ScenarioError`s naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from airtcp import _core
from airtcp.errors import ScenarioError

__all__ = [
    "SlottedResult",
    "blind",
    "config",
    "holds",
    "multiflow",
    "multipath",
    "proportional",
    "quota",
    "run",
    "single",
]


def single(capacity: int) -> dict[str, Any]:
    """One flow through one router of `capacity` packets per slot (Theorem 1)."""
    return {"kind": "single", "capacity": capacity}


def multipath(paths: int, capacity: int) -> dict[str, Any]:
    """One flow coded across `paths` routers of `capacity` packets per slot each (Theorem 2)."""
    return {"kind": "multipath", "paths": paths, "capacity": capacity}


def multiflow(flows: int, capacity: int, policy: Mapping[str, Any]) -> dict[str, Any]:
    """`flows` flows through one router of `flows x capacity` packets per slot (Theorem 3)."""
    return {"kind": "multiflow", "flows": flows, "capacity": capacity, "policy": dict(policy)}


def blind() -> dict[str, Any]:
    """The router gives every flow `capacity` transmissions."""
    return {"kind": "blind"}


def proportional() -> dict[str, Any]:
    """The router shares in proportion to W_i / p_i (instant channel knowledge)."""
    return {"kind": "proportional"}


def quota(kappa: float = 2.0) -> dict[str, Any]:
    """Per-flow quotas ceil((W + kappa sqrt(W (1 - p))) / p) first, then equally (the packet
    router's channel-aware rule)."""
    return {"kind": "quota", "kappa": kappa}


def holds(rtt: float, hold_min: float = 0.1, hold_max: float = 0.2) -> dict[str, Any]:
    """The packet simulator's channel: states of U[hold_min, hold_max] s drawn independently, a
    slot of `rtt` s, each packet judged at its place in the slot (the default is one draw per
    slot)."""
    ns = 1e9
    return {"kind": "holds", "rtt": round(rtt * ns), "hold_min": round(hold_min * ns), "hold_max": round(hold_max * ns)}


def config(
    setting: Mapping[str, Any],
    *,
    low: float,
    low_probability: float,
    redundancy: int,
    high: float = 1.0,
    variation: Mapping[str, Any] | None = None,
    slots: int = 100_000,
    warmup: int = 1_000,
    seed: int = 1,
    initial_cwnd: int = 1,
    max_cwnd: int = 10_000,
) -> dict[str, Any]:
    """An `RlcSlottedConfig`: the channel p = `low` with probability `low_probability`, else
    `high`; `redundancy` is r."""
    return {
        "slots": slots,
        "warmup": warmup,
        "seed": seed,
        "redundancy": redundancy,
        "initial_cwnd": initial_cwnd,
        "max_cwnd": max_cwnd,
        "channel": {
            "low": low,
            "high": high,
            "low_probability": low_probability,
            "variation": dict(variation) if variation is not None else {"kind": "iid"},
        },
        "setting": dict(setting),
    }


@dataclass(frozen=True)
class SlottedResult:
    """Per flow (one for single and multipath): `mean_window` E[W], `throughput` data packets
    per slot, `success_rate`, `path_windows` (multipath: each path's E[w_l]); `mean_p`, the mean
    success probability of the packets sent."""

    flows: list[dict[str, Any]]
    mean_p: float


def run(cfg: Mapping[str, Any]) -> SlottedResult:
    """Runs the model."""
    try:
        output = _core.rlc_slotted_json(json.dumps(cfg))
    except ValueError as error:
        path, sep, message = str(error).partition(": ")
        raise (ScenarioError(path, message) if sep else ScenarioError("<rlc_slotted>", str(error))) from None
    result = json.loads(output)
    return SlottedResult(flows=list(result["flows"]), mean_p=float(result["mean_p"]))
