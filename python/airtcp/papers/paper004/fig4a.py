"""Paper 004, Fig. 4(a): one TCP-RLC flow through the wireless router, throughput against p_min
for C = 0.5, 1, 1.5, 2 Mbps (p~_min = p~_max = 0.5), beside plain TCP (NewReno + SACK, 256-byte
packets, one drop-tail FIFO of C x RTT at the router) on the same channel; and the theorems' checks
(`theorems`). The paper prints no number for the figure: each point is held against the AIMD
mean 0.75 p_min C that its Θ(p_min C) and Fig. 2's saw-tooth between p_min C / 2 and p_min C
describe (spec §6(b) 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.experiments.figures import plot_metric_vs_parameter
from airtcp.papers import Figure, Target
from airtcp.papers.paper004.common import (
    FULL_SEEDS, MBPS, QUICK_SEEDS, band, finished_flows, packets_per_rtt, rate_bps, redundancy, scenario, shorten,
)

CAPACITIES = (0.5, 1.0, 1.5, 2.0)  # Mbps of 1024 kbit/s
P_MIN = (0.5, 0.6, 0.7, 0.8, 0.9)
TCP_CAPACITIES = (0.5, 2.0)
SECTION = "Fig. 4(a)"


def aimd_mean_bps(c_mbps: float, p_min: float) -> float:
    """X = 0.75 p_min C, bit/s."""
    return 0.75 * p_min * c_mbps * MBPS


def _rows(capacities: tuple[float, ...], with_pairs: bool) -> dict[str, list[Any]]:
    rows: dict[str, list[Any]] = {"name": [], "routers[0].rate": [], "routers[0].queue.packets": [],
                                  "routers[0].users[0].channel.low": []}
    if with_pairs:
        rows["routers[0].priority_pairs.buffers"] = []
        rows["flows[0].transport.redundancy"] = []
    for c in capacities:
        buffer = packets_per_rtt(c * MBPS)
        for p in P_MIN:
            rows["name"].append(f"C{c:g}-p{p:g}")
            rows["routers[0].rate"].append(f"{round(c * MBPS)}bps")
            rows["routers[0].queue.packets"].append(buffer)
            rows["routers[0].users[0].channel.low"].append(p)
            if with_pairs:
                rows["routers[0].priority_pairs.buffers"].append({"high": buffer, "low": buffer})
                rows["flows[0].transport.redundancy"].append(redundancy(p))
    return rows


def rlc_spec(quick: bool) -> dict[str, Any]:
    return {
        "name": "fig4a",
        "base": shorten(scenario("single"), quick),
        "zip": _rows(CAPACITIES, with_pairs=True),
        "seeds": QUICK_SEEDS if quick else FULL_SEEDS,
    }


def tcp_spec(quick: bool) -> dict[str, Any]:
    base = shorten(scenario("single"), quick)
    router = base["routers"][0]
    del router["priority_pairs"]
    # NewReno with SACK, 256-byte packets on the air (216 bytes of payload + 40 of headers).
    base["flows"][0]["transport"] = {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 216}
    return {
        "name": "fig4a-tcp",
        "base": base,
        "zip": _rows(TCP_CAPACITIES, with_pairs=False),
        "seeds": QUICK_SEEDS if quick else FULL_SEEDS,
    }


WARM_UP_S = 100.0


def goodputs(exp: Experiment) -> pd.DataFrame:
    """One row per finished run: C (Mbps), p_min, goodput (bit/s over the whole run) and the
    mean of its goodput series after WARM_UP_S (W starts at 1: the ramp is over by then)."""
    flows = finished_flows(exp)
    late_series = exp.goodput[exp.goodput["t_s"] >= WARM_UP_S]
    late = late_series.groupby("key")["goodput_bps"].mean()
    return pd.DataFrame({
        "C": flows["routers[0].rate"].map(rate_bps) / MBPS,
        "p_min": flows["routers[0].users[0].channel.low"].astype(float),
        "goodput_bps": flows["goodput_bps"].astype(float),
        "late_bps": flows["key"].map(late).astype(float),
    })


def _mean(frame: pd.DataFrame, c: float, p: float, metric: str = "goodput_bps") -> tuple[float, float, int]:
    part = frame[(frame["C"].round(3) == round(c, 3)) & (frame["p_min"].round(3) == round(p, 3))]
    return mean_ci(part[metric])


def fig4a_targets(rlc: Experiment, tcp: Experiment, figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    runs, plain = goodputs(rlc), goodputs(tcp)
    low, high = band(0.85, 1.10, quick)
    targets = []
    for c in CAPACITIES:
        for p in P_MIN:
            mean, half, n = _mean(runs, c, p)
            x = aimd_mean_bps(c, p)
            targets.append(Target(
                section=SECTION, what=f"TCP-RLC, C = {c:g} Mbps, p_min = {p:g}", published=round(x / 1e3, 1),
                unit="kbit/s", airtcp=mean / 1e3 if n else None, ci95=half / 1e3 if n > 1 else None, n=n,
                tolerance=f"[{low:.3g}, {high:.3g}] x 0.75 p_min C", ok=bool(n) and low <= mean / x <= high,
                note="the figure is a plot: held against the AIMD mean 0.75 p_min C (whole-run goodput, W starts at 1)",
            ))
    late_low, late_high = band(0.90, 1.10, quick)
    for c in CAPACITIES:
        for p in P_MIN:
            mean, half, n = _mean(runs, c, p, "late_bps")
            x = aimd_mean_bps(c, p)
            targets.append(Target(
                section=SECTION, what=f"TCP-RLC after {WARM_UP_S:g} s, C = {c:g} Mbps, p_min = {p:g}",
                published=round(x / 1e3, 1), unit="kbit/s", airtcp=mean / 1e3 if n else None,
                ci95=half / 1e3 if n > 1 else None, n=n, tolerance=f"[{late_low:.3g}, {late_high:.3g}] x 0.75 p_min C",
                ok=bool(n) and late_low <= mean / x <= late_high, note="the goodput series' mean after the ramp",
            ))
    for c in CAPACITIES:
        means = [_mean(runs, c, p)[0] for p in P_MIN]
        rising = all(b > a for a, b in zip(means, means[1:]))
        targets.append(Target(
            section=SECTION, what=f"TCP-RLC, C = {c:g} Mbps: goodput rises with p_min", published="yes", unit="",
            airtcp="yes" if rising else "no", ok=rising,
        ))
    r_low, r_high = 4 * band(0.9, 1.1, quick)[0], 4 * band(0.9, 1.1, quick)[1]
    for p in P_MIN:
        ratio = _mean(runs, 2.0, p)[0] / _mean(runs, 0.5, p)[0]
        targets.append(Target(
            section=SECTION, what=f"TCP-RLC goodput at 2 Mbps / at 0.5 Mbps, p_min = {p:g}", published=4.0, unit="",
            airtcp=ratio, tolerance=f"[{r_low:.3g}, {r_high:.3g}]", ok=r_low <= ratio <= r_high,
            note="Θ(p_min C): linear in C",
        ))
    for p in P_MIN:
        for c, factor in ((0.5, 4.0), (2.0, 8.0)):
            gain = _mean(runs, c, p)[0] / _mean(plain, c, p)[0]
            targets.append(Target(
                section=f"{SECTION}, plain TCP", what=f"TCP-RLC / NewReno-SACK, C = {c:g} Mbps, p_min = {p:g}",
                published=f">= {factor:g}", unit="", airtcp=gain, ok=gain >= factor,
                note="§I-D: plain TCP gets Θ(1) over this channel",
            ))
        scale = _mean(plain, 2.0, p)[0] / _mean(plain, 0.5, p)[0]
        targets.append(Target(
            section=f"{SECTION}, plain TCP", what=f"NewReno-SACK at 2 Mbps / at 0.5 Mbps, p_min = {p:g}",
            published="<= 1.5", unit="", airtcp=scale, ok=scale <= 1.5, note="Θ(1): plain TCP does not scale with C",
        ))
    references = {
        f"0.75 p_min C, C = {c:g} Mbps": (list(P_MIN), [aimd_mean_bps(c, p) for p in P_MIN]) for c in CAPACITIES
    }
    frame = runs.assign(scheme=runs["C"].map(lambda c: f"TCP-RLC, C = {c:g} Mbps"))
    paths = plot_metric_vs_parameter(
        frame, "p_min", "goodput_bps", figures_dir / "fig4a", scheme="scheme", parameter_label="p_min",
        references=references, title="Fig. 4(a): one flow, throughput against p_min",
    )
    figure = Figure(paths[0], "TCP-RLC's throughput against p_min for C = 0.5-2 Mbps (mean and 95 % confidence "
                              "interval over seeds), beside the AIMD mean 0.75 p_min C (dashed).")
    return [figure], targets
