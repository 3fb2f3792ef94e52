"""Validation against the independent references of the targets (not a paper): the simulator's
TCP on a wired link against ns-3, and its 802.11 DCF against Bianchi's saturation model.

1. **TCP NewReno vs ns-3 3.44** on a 2 Mbps / 20 ms point-to-point link with a packet error rate
   on the data direction, 1000-byte segments, 200 s (`scenarios/validation/p2p_bench.yaml`, the
   benchmark's `bench/p2p_bench.yaml`; `bench/README.md` maps every field to its ns-3 setting). The published numbers are ns-3's goodputs
   measured with its defaults (`airtcp.bench.wired.REFERENCE_NS3_KBPS`: 1896.8, 1538.8, 1165.4, 737.2,
   349.9 kb/s at PER 0, 0.005, 0.01, 0.02, 0.05). ns-3 sets ssthresh to half of the bytes in
   flight (the RFC 6675 pipe), so airtcp runs with `ssthresh_basis: pipe` here, and with
   `recovery: prr`, the counterpart of ns-3's default PRR recovery (docs/prr.md). Tolerance
   +-10 %, the benchmark's.
2. **802.11b saturation throughput vs Bianchi** (IEEE JSAC 18(3), 2000, eqs. 7, 9 and 13): N =
   1, 5, 10, 20 stations always backlogged with 1000-byte UDP payloads
   (`scenarios/validation/saturation.yaml`), basic access and RTS/CTS; airtcp's throughput is
   the delivered payload rate from 2 s to the end. The model's Tc counts EIFS after a collision
   (802.11-2016 §10.3.2.3.7), as in `crates/airtcp/tests/integration/saturation.rs`. Tolerance +-5 %.

Quick form: the same points, 3 seeds instead of 5 for TCP, one seed of 6 s instead of three of
21 s for the DCF.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.bench.wired import REFERENCE_NS3_KBPS
from airtcp.papers import Figure, Reproduction, SweepPlan, Target
from airtcp.experiments.figures import plot_goodput_vs_time, plot_metric_vs_parameter
from airtcp.scenario import bundled

__all__ = ["REPRODUCTION", "bianchi_throughput_bps"]

PER_PARAM = "links[0].loss.per"
SENDERS = (1, 5, 10, 20)
P2P_TOLERANCE = 0.10
DCF_TOLERANCE = 0.05
# The DCF throughput is measured from here on (every sender started, queues full).
DCF_WARMUP_S = 2.0


def _p2p_spec(quick: bool) -> dict[str, Any]:
    base = bundled.read_data("validation/p2p_bench")
    base["flows"][0]["transport"]["ssthresh_basis"] = "pipe"  # ns-3's rule (module docs)
    base["flows"][0]["transport"]["recovery"] = "prr"  # ns-3's default recovery
    return {
        "name": "p2p-newreno-vs-ns3",
        "base": base,
        "grid": {PER_PARAM: sorted(REFERENCE_NS3_KBPS)},
        "seeds": 3 if quick else 5,
    }


def _saturation_case(base: Mapping[str, Any], senders: int) -> tuple[list[Any], list[Any]]:
    """The node and flow lists of `senders` stations on a 20 m circle around `ap`."""
    nodes: list[Any] = [{"name": "ap", "x": "0m", "y": "0m"}]
    flows: list[Any] = []
    template = base["flows"][0]
    for i in range(senders):
        angle = 2 * math.pi * i / senders
        nodes.append({"name": f"s{i}", "x": f"{20 * math.cos(angle):.6f}m", "y": f"{20 * math.sin(angle):.6f}m"})
        flow = copy.deepcopy(template)
        # Starts 1 ms apart so that no two sources are in lockstep.
        flow.update({"id": f"f{i}", "src": f"s{i}", "start": f"{1000 + i}ms"})
        flows.append(flow)
    return nodes, flows


def _saturation_spec(quick: bool) -> dict[str, Any]:
    base = bundled.read_data("validation/saturation")
    base["duration"] = "6s" if quick else "21s"
    cases = [_saturation_case(base, n) for n in SENDERS]
    return {
        "name": "dcf-saturation-vs-bianchi",
        "base": base,
        "grid": {"radio.rts_cts": [False, True]},
        "zip": {
            "name": [f"saturation-n{n}" for n in SENDERS],
            "topology.nodes": [nodes for nodes, _ in cases],
            "flows": [flows for _, flows in cases],
        },
        "seeds": 1 if quick else 3,
    }


def bianchi_throughput_bps(senders: int, rts_cts: bool, payload_bytes: int = 1000, header_bytes: int = 64) -> float:
    """Bianchi's saturation throughput (payload bit/s) of 802.11b at 2 Mbps (basic rate 1 Mbps,
    long preamble). tau from eqs. 7 and 9 by bisection (W = 32, m = 5), S from eq. 13; Ts and Tc
    as in §IV-A, with EIFS after a collision. `header_bytes`: UDP/IP 28 + MAC header, FCS and
    LLC/SNAP 36."""
    w, m = 32.0, 5
    us = 1e-6

    def tau_of(p: float) -> float:
        return 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))

    lo, hi = 1e-9, 1.0
    for _ in range(200):
        tau = 0.5 * (lo + hi)
        p = 1 - (1 - tau) ** (senders - 1)
        lo, hi = (tau, hi) if tau_of(p) > tau else (lo, tau)
    tau = 0.5 * (lo + hi)
    p_tr = 1 - (1 - tau) ** senders
    p_s = senders * tau * (1 - tau) ** (senders - 1) / p_tr
    slot, sifs, difs, plcp = 20 * us, 10 * us, 50 * us, 192 * us
    rate, basic = 2e6, 1e6
    ack = plcp + 14 * 8 / basic
    rts, cts = plcp + 20 * 8 / basic, plcp + 14 * 8 / basic
    eifs = sifs + ack + difs
    header = plcp + header_bytes * 8 / rate
    payload = payload_bytes * 8 / rate
    delta = 1e-6  # propagation
    if rts_cts:
        ts = rts + sifs + delta + cts + sifs + delta + header + payload + sifs + delta + ack + difs + delta
        tc = rts + eifs + delta
    else:
        ts = header + payload + sifs + delta + ack + difs + delta
        tc = header + payload + eifs + delta
    s = p_s * p_tr * payload / ((1 - p_tr) * slot + p_tr * p_s * ts + p_tr * (1 - p_s) * tc)
    return s * rate


def _within(value: float, reference: float, tolerance: float) -> bool:
    return abs(value / reference - 1) <= tolerance


def _analyse_p2p(exp: Experiment, figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    flows = exp.flows[exp.flows["status"] == "done"]
    targets = []
    for per in sorted(REFERENCE_NS3_KBPS):
        mean, half, n = mean_ci(flows.loc[flows[PER_PARAM] == per, "goodput_bps"])
        reference = REFERENCE_NS3_KBPS[per]
        targets.append(Target(
            section="TCP vs ns-3", what=f"NewReno goodput, PER {per:g}", published=reference, unit="kb/s",
            airtcp=mean / 1e3 if n else None, ci95=half / 1e3 if n > 1 else None, n=n,
            tolerance=f"±{P2P_TOLERANCE * 100:.0f} %",
            ok=_within(mean / 1e3, reference, P2P_TOLERANCE) if n else False,
        ))
    vs_loss = plot_metric_vs_parameter(
        flows, PER_PARAM, "goodput_bps", figures_dir / "p2p_goodput_vs_per",
        parameter_label="packet error rate on the data direction",
        title="TCP NewReno, 2 Mb/s / 20 ms link, 1000 B segments",
        references={"ns-3 3.44 (reference)": (sorted(REFERENCE_NS3_KBPS), [REFERENCE_NS3_KBPS[p] * 1e3 for p in sorted(REFERENCE_NS3_KBPS)])},
    )
    series = exp.goodput[(exp.goodput["status"] == "done") & (exp.goodput[PER_PARAM] == 0.01)]
    over_time = plot_goodput_vs_time(series, figures_dir / "p2p_goodput_vs_time",
                                     title="TCP NewReno at PER 0.01: goodput per 1 s bin")
    return [
        Figure(vs_loss[0], "TCP NewReno goodput against the packet error rate (mean and 95 % confidence interval over seeds), beside ns-3 3.44's reference goodput."),
        Figure(over_time[0], "Goodput over time of the NewReno flow at PER 0.01, averaged over seeds."),
    ], targets


def _dcf_throughputs(exp: Experiment) -> pd.DataFrame:
    """One row per finished run: senders, access method, payload throughput after the warm-up."""
    series = exp.goodput[(exp.goodput["status"] == "done") & (exp.goodput["t_s"] >= DCF_WARMUP_S)]
    rows = []
    for (key, name, rts), part in series.groupby(["key", "name", "radio.rts_cts"], sort=False):
        per_bin = part.groupby("t_s")["goodput_bps"].sum()
        rows.append({"key": key, "senders": int(str(name).rsplit("n", 1)[1]),
                     "access": "RTS/CTS" if rts else "basic", "throughput_bps": float(per_bin.mean())})
    return pd.DataFrame(rows, columns=["key", "senders", "access", "throughput_bps"])


def _analyse_dcf(exp: Experiment, figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    runs = _dcf_throughputs(exp)
    targets = []
    for access, rts in (("basic", False), ("RTS/CTS", True)):
        for senders in SENDERS:
            values = runs.loc[(runs["access"] == access) & (runs["senders"] == senders), "throughput_bps"]
            mean, half, n = mean_ci(values)
            model = bianchi_throughput_bps(senders, rts) / 1e3
            targets.append(Target(
                section="802.11b DCF vs Bianchi", what=f"saturation throughput, {access}, N = {senders}",
                published=round(model, 1), unit="kb/s", airtcp=mean / 1e3 if n else None,
                ci95=half / 1e3 if n > 1 else None, n=n, tolerance=f"±{DCF_TOLERANCE * 100:.0f} %",
                ok=_within(mean / 1e3, model, DCF_TOLERANCE) if n else False,
                note="closed-form model, not a measurement",
            ))
    references = {
        f"Bianchi's model, {access}": (list(SENDERS), [bianchi_throughput_bps(n, rts) for n in SENDERS])
        for access, rts in (("basic", False), ("RTS/CTS", True))
    }
    paths = plot_metric_vs_parameter(
        runs, "senders", "throughput_bps", figures_dir / "dcf_saturation", scheme="access",
        parameter_label="saturated stations N", references=references,
        title="802.11b at 2 Mb/s, 1000 B payloads: saturation throughput",
    )
    return [Figure(paths[0], "802.11b saturation throughput against the number of stations, basic access and RTS/CTS (airtcp: mean and 95 % confidence interval over seeds), beside Bianchi's model.")], targets


def _analyse(experiments: Mapping[str, Experiment], figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    figures, targets = _analyse_p2p(experiments["p2p-newreno-vs-ns3"], figures_dir)
    more_figures, more_targets = _analyse_dcf(experiments["dcf-saturation-vs-bianchi"], figures_dir)
    return figures + more_figures, targets + more_targets


REPRODUCTION = Reproduction(
    key="validation",
    title="Validation against independent references: TCP vs ns-3 3.44, 802.11b DCF vs Bianchi",
    source="ns-3 3.44 runs stored with airtcp (bench/README.md) and Bianchi, IEEE JSAC 18(3), 2000; docs/validation.md",
    sweeps=(SweepPlan("p2p-newreno-vs-ns3", _p2p_spec), SweepPlan("dcf-saturation-vs-bianchi", _saturation_spec)),
    analyse=_analyse,
    notes=(
        "ns-3's numbers were measured with its default PRR recovery, which airtcp runs too "
        "(recovery: prr); airtcp uses ns-3's ssthresh rule (half the pipe).",
    ),
)
