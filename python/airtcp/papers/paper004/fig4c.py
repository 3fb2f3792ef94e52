"""Paper 004, Fig. 4(c): 30 TCP-RLC flows through one wireless router (30 x C), each user's
channel p_1 = 0.5-0.9 a quarter of the time, else 1; flow i's wired delay U[100, 200] ms drawn
once per run (`delay_spread`); the router channel-aware (per-block quotas from p_i(t)) or blind.
The paper: per-flow throughput "between 70-80 % of the expected throughput" E[1/P]^-1 C."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.experiments.figures import plot_metric_vs_parameter
from airtcp.papers import Figure, Target
from airtcp.papers.paper004.common import (
    FULL_SEEDS, MBPS, QUICK_SEEDS, finished_flows, packets_per_rtt, redundancy, scenario, shorten,
)

FLOWS = 30
P_1 = (0.5, 0.6, 0.7, 0.8, 0.9)
LOW_SHARE = 0.25
CAPACITIES = (1.0, 0.5)  # Mbps per flow; the quick form runs 1 Mbps only
POLICIES = {"channel-aware": {"kind": "channel_aware", "kappa": 2}, "blind": {"kind": "blind"}}
SECTION = "Fig. 4(c)"


def harmonic_bps(p1: float, c_mbps: float) -> float:
    """E[1/P]^-1 C."""
    return c_mbps * MBPS / (LOW_SHARE / p1 + 1 - LOW_SHARE)


def _base(quick: bool) -> dict[str, Any]:
    base = shorten(scenario("multiflow"), quick)
    for link in base["links"]:
        # U[100, 200] ms per flow, drawn per run from the seed.
        link["delay"], link["delay_spread"] = "100ms", "100ms"
    return base


def spec(quick: bool) -> dict[str, Any]:
    base = _base(quick)
    template_user, template_flow = base["routers"][0]["users"][0], base["flows"][0]
    rows: dict[str, list[Any]] = {"name": [], "routers[0].rate": [], "routers[0].users": [], "flows": []}
    for c in CAPACITIES[:1] if quick else CAPACITIES:
        # Pairs of rate x the mean base RTT (0.3 s) each: the delays are drawn per run.
        buffer = packets_per_rtt(c * MBPS)
        for p in P_1:
            users = []
            for i in range(FLOWS):
                user = {**template_user, "node": f"D{i}", "buffers": {"high": buffer, "low": buffer}}
                user["channel"] = {**template_user["channel"], "low": p}
                users.append(user)
            flows = [{**template_flow, "id": f"f{i}", "src": f"S{i}", "dst": f"D{i}",
                      "transport": {"kind": "tcp_rlc", "redundancy": redundancy(p)}} for i in range(FLOWS)]
            rows["name"].append(f"C{c:g}-p{p:g}")
            rows["routers[0].rate"].append(f"{round(FLOWS * c * MBPS)}bps")
            rows["routers[0].users"].append(users)
            rows["flows"].append(flows)
    return {
        "name": "fig4c",
        "base": base,
        "grid": {"routers[0].priority_pairs.low_policy": list(POLICIES.values())},
        "zip": rows,
        "seeds": QUICK_SEEDS if quick else FULL_SEEDS,
    }


def per_run(exp: Experiment) -> pd.DataFrame:
    """One row per finished run: C, p_1, policy, mean per-flow goodput and its share of
    E[1/P]^-1 C."""
    flows = finished_flows(exp)
    rows = []
    for (key, name), part in flows.groupby(["key", "name"], sort=False):
        c, p = (float(x[1:]) for x in str(name).split("-"))
        policy = part["routers[0].priority_pairs.low_policy"].iloc[0]
        kind = "channel-aware" if policy["kind"] == "channel_aware" else "blind"
        mean = float(part["goodput_bps"].mean())
        rows.append({"C": c, "p_1": p, "policy": kind, "per_flow_bps": mean, "share": mean / harmonic_bps(p, c)})
    return pd.DataFrame(rows, columns=["C", "p_1", "policy", "per_flow_bps", "share"])


def _mean(frame: pd.DataFrame, c: float, p: float, policy: str) -> tuple[float, float, int]:
    part = frame[(frame["C"] == c) & (frame["p_1"].round(3) == round(p, 3)) & (frame["policy"] == policy)]
    return mean_ci(part["share"])


def fig4c_targets(exp: Experiment, figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    runs = per_run(exp)
    low, high = (0.60, 0.90) if quick else (0.65, 0.85)
    targets = []
    for c in sorted(set(runs["C"]), reverse=True):
        for p in P_1:
            for policy in POLICIES:
                mean, half, n = _mean(runs, c, p, policy)
                aware = policy == "channel-aware"
                targets.append(Target(
                    section=SECTION, what=f"{policy}, C = {c:g} Mbps, p_1 = {p:g}: per-flow goodput / E[1/P]^-1 C",
                    published="0.70-0.80" if aware else "", unit="", airtcp=mean if n else None,
                    ci95=half if n > 1 else None, n=n, tolerance=f"[{low:g}, {high:g}]" if aware else "",
                    ok=(bool(n) and low <= mean <= high) if aware else None,
                    note="the published band is the channel-aware router's" if aware else "the paper gives no band for the channel-blind router: shown for comparison",
                ))
        aware, blind = _mean(runs, c, 0.5, "channel-aware")[0], _mean(runs, c, 0.5, "blind")[0]
        gain = aware / blind if blind and not math.isnan(blind) else math.nan
        targets.append(Target(
            section=SECTION, what=f"channel-aware / blind, C = {c:g} Mbps, p_1 = 0.5", published=">= 1.2", unit="",
            airtcp=gain, ok=gain >= 1.2,
            note="the spec's expectation from per-round-trip states; the paper's states last half a round trip "
                 "(docs/tcp_rlc.md)",
        ))
    frame = runs[runs["C"] == 1.0]
    paths = plot_metric_vs_parameter(
        frame, "p_1", "share", figures_dir / "fig4c", scheme="policy", parameter_label="p_1",
        references={"0.70 and 0.80 (published band)": (list(P_1), [0.7] * len(P_1))},
        title="Fig. 4(c): 30 flows, per-flow goodput / E[1/P]^-1 C",
    )
    figure = Figure(paths[0], "Per-flow goodput of 30 TCP-RLC flows through one router as a share of E[1/P]^-1 C "
                              "(C = 1 Mbps), channel-aware and blind (mean and 95 % interval over seeds).")
    return [figure], targets
