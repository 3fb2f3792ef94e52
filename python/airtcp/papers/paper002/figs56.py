"""Paper 002, Figs. 5-6: every controller under each of the four schedulers on the reconstructed
Fig. 3 (synchronous and staggered starts), with the two sensitivity sweeps of that setting: the
downlink's residual calibration and its slot length."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment
from airtcp.experiments.figures import plot_goodput_vs_time, plot_metric_vs_parameter
from airtcp.papers import Figure, Target
from airtcp.papers.paper002.common import (
    CONTROLLERS, P_S, PUBLISHED_JAIN_EQ10, PUBLISHED_QUIC_JAIN, PUBLISHED_QUIC_TOTAL, PUBLISHED_RATES, QUIC_VARIANTS,
    SCHEDULERS, SHARED_LINK, done_runs, per_run, printed_sum, rates_table, scenario, shorten, slug, target_row,
    with_controller,
)
from airtcp.scenario import units

# The residual downlink.rate_scale after the 802.16e frame model (0.7172 is fitted to round-robin's
# total; eq. (10) cannot split equally below 0.549, round-robin is not wireless-limited above 0.785).
CALIBRATION_SCALES = (0.57, 0.60, 0.63, 0.66, 0.7172, 0.75)


QUICK_CALIBRATION_SCALES = (0.57, 0.7172, 0.75)


# The downlink's slot lengths of the slot sensitivity sweep (fig3.yaml's is 10 ms; an 802.16e
# frame is 5 ms).
SLOTS = ("10ms", "5ms", "2ms")


def schedulers_spec(controller: str, schedule: str = "fig3") -> Any:
    def spec(quick: bool) -> dict[str, Any]:
        return {
            "name": f"{schedule}-{slug(controller)}",
            "base": shorten(with_controller(scenario(schedule), controller), quick),
            "grid": {"downlink.scheduler.kind": list(SCHEDULERS.values())},
            "seeds": 1 if quick else 5,
        }

    return spec


def slot_spec(quick: bool) -> dict[str, Any]:
    return {
        "name": "slot",
        "base": shorten(with_controller(scenario("fig3"), "QUIC-TCP"), quick),
        "grid": {"downlink.slot": list(SLOTS)},
        "seeds": 1 if quick else 3,
    }


def calibration_spec(quick: bool) -> dict[str, Any]:
    base = shorten(with_controller(scenario("fig3"), "QUIC-TCP"), quick)
    return {
        "name": "calibration",
        "base": base,
        "grid": {
            "downlink.rate_scale": list(QUICK_CALIBRATION_SCALES if quick else CALIBRATION_SCALES),
            "downlink.scheduler.kind": ["delay_max_weight", "round_robin"],
        },
        "seeds": 1 if quick else 3,
    }


def fig5_targets(runs: Mapping[str, pd.DataFrame]) -> list[Target]:
    rows: list[Target] = []
    eq10 = {c: r[r["scheduler"] == "eq. (10)"] for c, r in runs.items()}
    fair_share = SHARED_LINK / 4
    for controller in (*QUIC_VARIANTS, "FAST"):
        at = eq10[controller]
        for i, published in enumerate(PUBLISHED_RATES[controller]):
            values = at[f"x:f{i}"]
            rows.append(target_row("Fig. 5", f"{controller}, eq. (10): x_{i}", published, "pkt/s", values,
                                   tolerance="±10 % of 781.25",
                                   ok=bool(abs(values.mean() / fair_share - 1) <= 0.10)))
        total = at["total"]
        rows.append(target_row("Fig. 5", f"{controller}, eq. (10): total", printed_sum(PUBLISHED_RATES[controller]), "pkt/s", total,
                               tolerance="3125 x [0.99, 1.001]",
                               ok=bool(0.99 * SHARED_LINK <= total.mean() <= 1.001 * SHARED_LINK)))
        rows.append(target_row("Fig. 5", f"{controller}, eq. (10): Jain", 0.999, "", at["jain"], tolerance=">= 0.99",
                               ok=bool(at["jain"].mean() >= 0.99),
                               note="a 10 ms TDMA slot counts each user's wait for its slot as queueing: weak users "
                              "hold less of their p_s (docs/quic_tcp_reproduction.md)"))
        order = at[[f"x:f{i}" for i in range(4)]].mean()
        weakest_lowest = bool(order["x:f0"] == order.min())
        rows.append(Target(section="Fig. 5", what=f"{controller}, eq. (10): the 12 dB user has the lowest rate",
                           published="yes (published order follows SNR)", unit="",
                           airtcp="yes" if weakest_lowest else "no", n=len(at), ok=weakest_lowest))
        utility = at["utility"]
        rows.append(target_row("Fig. 5", f"{controller}, eq. (10): sum 200 ln x", 5328.6, "", utility,
                               tolerance=">= 5320", ok=bool(utility.mean() >= 5320)))
    quic, fast = eq10["QUIC-TCP"]["total"].mean(), eq10["FAST"]["total"].mean()
    rows.append(Target(section="Fig. 5", what="|total QUIC-TCP - total FAST| / total QUIC-TCP",
                       published=round(abs(3124.68 - 3124.64) / 3124.68, 6), unit="", airtcp=abs(quic - fast) / quic,
                       n=len(eq10["FAST"]), tolerance="<= 0.5 %", ok=bool(abs(quic - fast) <= 0.005 * quic)))
    quic_utility, quic_jain = eq10["QUIC-TCP"]["utility"].mean(), eq10["QUIC-TCP"]["jain"].mean()
    for controller in ("Compound", "Cubic", "Vegas", "Reno"):
        at = eq10[controller]
        published_total = printed_sum(PUBLISHED_RATES[controller])
        rows.append(target_row("Fig. 5", f"{controller}, eq. (10): total (at most QUIC-TCP's + 0.5 %)", published_total,
                               "pkt/s", at["total"], tolerance="<= QUIC-TCP + 0.5 %",
                               ok=bool(at["total"].mean() <= 1.005 * quic),
                               note="the published 5-16 % deficits are not claimed: the reconstruction's region "
                              "cannot explain them (docs/quic_tcp_reproduction.md)"))
        rows.append(target_row("Fig. 5/6", f"{controller}, eq. (10): Jain (below QUIC-TCP's)", PUBLISHED_JAIN_EQ10[controller],
                               "", at["jain"], tolerance="< QUIC-TCP", ok=bool(at["jain"].mean() < quic_jain),
                               note="Vegas 200/203 is fair with synchronous starts: an expected miss here, see the "
                              "staggered rows" if controller == "Vegas" else ""))
        rows.append(target_row("Fig. 6 top", f"{controller}, eq. (10): sum 200 ln x (below QUIC-TCP's)",
                               round(sum(P_S * math.log(v) for v in PUBLISHED_RATES[controller]), 2), "", at["utility"],
                               tolerance="< QUIC-TCP", ok=bool(at["utility"].mean() < quic_utility)))
    return rows


def fig6_targets(runs: Mapping[str, pd.DataFrame]) -> list[Target]:
    rows: list[Target] = []
    quic = runs["QUIC-TCP"]
    by = {s: quic[quic["scheduler"] == s] for s in SCHEDULERS}
    rr_total = by["round-robin"]["total"]
    rows.append(target_row("Fig. 6 middle", "QUIC-TCP, round-robin: total", PUBLISHED_QUIC_TOTAL["round-robin"], "pkt/s",
                           rr_total, tolerance="±3 % (calibrated)",
                           ok=bool(abs(rr_total.mean() / PUBLISHED_QUIC_TOTAL["round-robin"] - 1) <= 0.03),
                           note="CALIBRATED: downlink.rate_scale is fitted to this number; not evidence"))
    ratio = by["eq. (10)"]["total"].mean() / rr_total.mean()
    rows.append(Target(section="Fig. 6 middle", what="QUIC-TCP: total under eq. (10) / under round-robin",
                       published=round(3124.68 / 2856.75, 4), unit="", airtcp=ratio, n=len(rr_total),
                       tolerance="±0.03", ok=bool(abs(ratio - 3124.68 / 2856.75) <= 0.03)))
    for scheduler in ("max-SNR", "QL-MaxWeight"):
        total = by[scheduler]["total"]
        rows.append(target_row("Fig. 6 middle", f"QUIC-TCP, {scheduler}: total (>= 0.97 x eq. (10)'s)",
                               PUBLISHED_QUIC_TOTAL[scheduler], "pkt/s", total, tolerance=">= 0.97 x eq. (10)",
                               ok=bool(total.mean() >= 0.97 * by["eq. (10)"]["total"].mean()),
                               note="partial: the published total exceeds the 3125 packets/s eq. (10)'s equal split "
                              "implies all flows share; no static wired topology gives all four totals"))
    for scheduler, tolerance, note in (
        ("round-robin", 0.02, ""),
        ("max-SNR", 0.05, "out of sample"),
        ("QL-MaxWeight", 0.05, "expected miss: with the backlog in the shared wired queue the base station's "
                               "queues adjust themselves, and Q R is not the max-rate rule"),
    ):
        values = by[scheduler]["jain"]
        published = PUBLISHED_QUIC_JAIN[scheduler]
        rows.append(target_row("Fig. 6 bottom", f"QUIC-TCP, {scheduler}: Jain", published, "", values,
                               tolerance=f"±{tolerance}", ok=bool(abs(values.mean() - published) <= tolerance), note=note))
    for controller in (*QUIC_VARIANTS, "FAST"):
        part = runs[controller]
        means = part.groupby("scheduler")["utility"].mean()
        best = bool(means["eq. (10)"] >= means.drop("eq. (10)").max())
        rows.append(Target(section="Fig. 6 top", what=f"{controller}: eq. (10) has the highest sum 200 ln x",
                           published="yes", unit="", airtcp="yes" if best else "no", n=len(part), ok=best,
                           note="; ".join(f"{s} {v:.1f}" for s, v in means.items())))
    fast = runs["FAST"]
    for scheduler in SCHEDULERS:
        a = quic.loc[quic["scheduler"] == scheduler, "jain"].mean()
        b = fast.loc[fast["scheduler"] == scheduler, "jain"].mean()
        rows.append(Target(section="Fig. 6 bottom", what=f"|Jain FAST - Jain QUIC-TCP|, {scheduler}",
                           published="FAST ~ QUIC-TCP", unit="", airtcp=abs(a - b), n=len(fast),
                           tolerance="<= 0.01", ok=bool(abs(a - b) <= 0.01)))
    return rows


def staggered_targets(runs: Mapping[str, pd.DataFrame]) -> list[Target]:
    rows = []
    for controller, published in (("QUIC-TCP", 0.999), ("FAST", 0.999), ("Vegas", 0.722)):
        at = runs[controller]
        at = at[at["scheduler"] == "eq. (10)"]
        rows.append(target_row("Fig. 5, staggered starts", f"{controller}, eq. (10), flows 50 s apart: Jain", published, "",
                               at["jain"], ok=None,
                               note="sensitivity: a late starter measures its BaseRTT over the queue the others hold"))
    return rows


def fig5_6_figures(runs: Mapping[str, pd.DataFrame], experiments: Mapping[str, Experiment],
                   figures_dir: Path) -> list[Figure]:
    figures = []
    for controller in CONTROLLERS:
        exp = experiments[f"fig3-{slug(controller)}"]
        series = done_runs(exp.goodput)
        series = series[series["downlink.scheduler.kind"] == "delay_max_weight"]
        png = plot_goodput_vs_time(series, figures_dir / f"fig5_{slug(controller)}",
                                   title=f"Fig. 5: {controller} under eq. (10)")[0]
        figures.append(Figure(png, f"Fig. 5: goodput over time per flow, {controller}, eq. (10) scheduler."))
    table = pd.concat([r.assign(controller=c) for c, r in runs.items()], ignore_index=True)
    for metric, what in (("utility", "sum 200 ln x_s"), ("total", "total rate (packets/s)"), ("jain", "Jain's index")):
        png = plot_metric_vs_parameter(table, "scheduler", metric, figures_dir / f"fig6_{metric}",
                                       scheme="controller", parameter_label="scheduler",
                                       title=f"Fig. 6: {what}")[0]
        figures.append(Figure(png, f"Fig. 6: {what} per scheduler and controller (mean and 95 % CI over seeds)."))
    return figures


def calibration_targets(exp: Experiment, figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    rates = rates_table(exp)
    runs = per_run(rates, ["scheduler", "downlink.rate_scale"])
    runs["scale"] = runs.pop("downlink.rate_scale").astype(float)
    figures = []
    for metric, what in (("total", "total rate (packets/s)"), ("jain", "Jain's index")):
        png = plot_metric_vs_parameter(runs, "scale", metric, figures_dir / f"calibration_{metric}", scheme="scheduler",
                                       parameter_label="downlink.rate_scale", title=f"Calibration: {what}, QUIC-TCP")[0]
        figures.append(Figure(png, f"Calibration sensitivity: {what} of QUIC-TCP against the downlink's rate scale."))
    rows = []
    eq10 = runs[runs["scheduler"] == "eq. (10)"]
    for scale, part in eq10.groupby("scale"):
        rows.append(target_row("calibration", f"QUIC-TCP, eq. (10), scale {scale:g}: total", SHARED_LINK, "pkt/s",
                               part["total"], tolerance="±1 %",
                               ok=bool(abs(part["total"].mean() / SHARED_LINK - 1) <= 0.01)))
    return figures, rows


def slot_targets(exp: Experiment, figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    """Per-flow equality against the downlink's slot length: a user's wait for its slot counts as
    queueing in AvgRTT - BaseRTT, so the shorter the slot the closer eq. (10) comes to the equal
    split."""
    runs = per_run(rates_table(exp), ["downlink.slot"])
    runs["slot_ms"] = runs.pop("downlink.slot").map(lambda v: units.parse_duration(v) / 1e6)
    png = plot_metric_vs_parameter(runs, "slot_ms", "jain", figures_dir / "slot_jain", parameter_label="slot (ms)",
                                   title="Slot length: Jain's index, QUIC-TCP under eq. (10)")[0]
    figures = [Figure(png, "Slot sensitivity: Jain's index of QUIC-TCP under eq. (10) against the downlink's slot "
                           "length (fig3.yaml's is 10 ms).")]
    rows = []
    means = runs.groupby("slot_ms")["jain"].mean().sort_index()
    for slot, part in runs.groupby("slot_ms"):
        rows.append(target_row("slot length", f"QUIC-TCP, eq. (10), slot {slot:g} ms: Jain", 0.999, "", part["jain"],
                               ok=None, note="sensitivity: the paper's slot length is not given"))
    rising = bool((means.diff().dropna() < 0).all())  # means are sorted by slot, shortest first
    rows.append(Target(section="slot length", what="QUIC-TCP, eq. (10): Jain rises as the slot shrinks",
                       published="(mechanism of the per-flow spread)", unit="",
                       airtcp=", ".join(f"{s:g} ms: {j:.4f}" for s, j in means.items()), n=len(runs), ok=rising,
                       note="each user's wait for its slot counts as queueing, so weak users hold less of p_s"))
    shortest = runs[runs["slot_ms"] == means.index.min()]["jain"]
    rows.append(target_row("slot length", f"QUIC-TCP, eq. (10), slot {means.index.min():g} ms: Jain reaches the published",
                           0.999, "", shortest, tolerance=">= 0.999", ok=bool(shortest.mean() >= 0.999)))
    return figures, rows


STAGGERED = ("QUIC-TCP", "FAST", "Vegas")
