"""Paper 002: Huang, Sun & Wang, "End-to-End TCP Congestion Control for Mobile Applications", IEEE
Access 8, 2020 — QUIC-TCP ("QueueIng-Control", not the IETF transport) with the queueing-delay
MaxWeight scheduler of eq. (10) at the base station: the reproduction of §V's Figs. 5-7.

Scenarios: `scenarios/002_quic_tcp/` (fig3.yaml is the reconstruction of the lost Fig. 3: one wired
link of 3125 packets/s shared by the four flows, every inferred value commented there and in
docs/quic_tcp_reproduction.md; fig3_staggered.yaml starts the flows 50 s apart).

- Fig. 4: the fluid model (`airtcp.models`, docs/models_002.md) on the Matlab setting: eq. (9)
  every 20 ms with kappa 0.05 for rho = 0, 0.25, 0.5, 1 against the certified optimum of eq. (1);
  the paper's claim is that all converge, the smaller rho the faster.
- Fig. 5: per-flow average rates of each controller under eq. (10): QUIC-TCP (kappa 1.5, rho 0.5,
  p_s 200, at FAST's cadence: the paper's ns-2 module was FAST's), QUIC-TCP at the Matlab cadence
  (kappa 0.05 every 20 ms), FAST (gamma 1.5, alpha 200), Compound, Cubic, Vegas (alpha/beta
  200/203), Reno.
- Fig. 6: the four schedulers (eq. (10), round-robin, max-SNR, queue-length MaxWeight) x the six
  controllers: utility sum 200 ln x_s, total rate and Jain's index.
- Fig. 7(a): the aggregate rate and the windows' steadiness against the step size, FAST's gamma
  and QUIC-TCP's kappa (rho 0.5) at FAST's cadence and every 20 ms, with synchronous and
  staggered starts and with every link delay scaled by 0.5, 1 and 2; Fig. 7(b): QUIC-TCP's range
  of good kappa against rho (FAST's cadence), and the slope of its log bounds. kappa is per window
  computation, so its limits belong to a cadence: the rows say which.
- The downlink's one calibration (`downlink.rate_scale`, fitted to round-robin's published total
  only) and how the results move with it.

Modules: `common` (controllers, schedulers, published numbers, scenario edits, per-run rates),
`figs56` (Figs. 5-6, staggered starts, the calibration and slot sweeps), `fig7` (the step-size,
delay and rho sweeps), `fig4` (the fluid model's figure); this package registers the sweeps and
runs the analyses.

Rates are packets/s of 200-byte payload (goodput / 1600 b), averaged over [WARM_UP, end] of each
run, the paper's "average rate" not being defined (the whole-run averages are reported beside
them). What the published numbers cannot all be at once, and the misses expected from the
reconstruction (max-SNR's and queue-length MaxWeight's totals above 3125 packets/s, their Jain
indices, the loss-based controllers' deficits), are said in the rows' notes; nothing is tuned to
hit a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from airtcp.experiments.analysis import Experiment
from airtcp.papers import Figure, Reproduction, SweepPlan, Target
from airtcp.papers.paper002.common import (
    CONTROLLERS, PUBLISHED_RATES, QUIC_20MS, QUIC_VARIANTS, SCHEDULERS, WARM_UP_S, per_run, rates_table, slug,
)
from airtcp.papers.paper002.fig4 import fig4_targets
from airtcp.papers.paper002.fig7 import (
    FIG7A, delay_sensitivity, delays_spec, fig7a_spec, fig7a_targets, fig7b_spec, fig7b_targets,
)
from airtcp.papers.paper002.figs56 import (
    STAGGERED, calibration_spec, calibration_targets, fig5_6_figures, fig5_targets, fig6_targets, schedulers_spec,
    slot_spec, slot_targets, staggered_targets,
)

__all__ = ["CONTROLLERS", "PUBLISHED_RATES", "QUIC_VARIANTS", "REPRODUCTION", "SCHEDULERS", "rates_table"]


def _analyse(experiments: Mapping[str, Experiment], figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    runs = {c: per_run(rates_table(experiments[f"fig3-{slug(c)}"]), ["scheduler"]) for c in CONTROLLERS}
    staggered = {c: per_run(rates_table(experiments[f"fig3_staggered-{slug(c)}"], warm_up_s=WARM_UP_S + 150),
                            ["scheduler"]) for c in STAGGERED}
    targets = fig5_targets(runs) + fig6_targets(runs) + staggered_targets(staggered)
    figures = fig5_6_figures(runs, experiments, figures_dir)
    more_figures, more_targets = calibration_targets(experiments["calibration"], figures_dir)
    figures, targets = figures + more_figures, targets + more_targets
    more_figures, more_targets = slot_targets(experiments["slot"], figures_dir)
    figures, targets = figures + more_figures, targets + more_targets
    for schedule in FIG7A:
        more_figures, more_targets = fig7a_targets(experiments, figures_dir, schedule)
        figures, targets = figures + more_figures, targets + more_targets
    more_figures, more_targets = delay_sensitivity(experiments, figures_dir)
    figures, targets = figures + more_figures, targets + more_targets
    reference = runs["QUIC-TCP"].loc[runs["QUIC-TCP"]["scheduler"] == "eq. (10)", "utility"].mean()
    more_figures, more_targets = fig7b_targets(experiments["fig7b"], reference, figures_dir)
    figures, targets = figures + more_figures, targets + more_targets
    more_figures, more_targets = fig4_targets(figures_dir, quick)
    return figures + more_figures, targets + more_targets


REPRODUCTION = Reproduction(
    key="002",
    title="QUIC-TCP with queueing-delay MaxWeight at the base station (Huang, Sun & Wang, IEEE Access 2020): Figs. 4-7",
    source="the paper's §V (Figs. 4-7); tolerances and known differences: docs/quic_tcp_reproduction.md",
    sweeps=(
        *(SweepPlan(f"fig3-{slug(c)}", schedulers_spec(c)) for c in CONTROLLERS),
        *(SweepPlan(f"fig3_staggered-{slug(c)}", schedulers_spec(c, "fig3_staggered")) for c in STAGGERED),
        SweepPlan("calibration", calibration_spec),
        SweepPlan("slot", slot_spec),
        SweepPlan("fig7a-fast", fig7a_spec("FAST")),
        SweepPlan("fig7a-quictcp", fig7a_spec("QUIC-TCP")),
        SweepPlan("fig7a-quictcp-20ms", fig7a_spec(QUIC_20MS)),
        SweepPlan("fig7a_staggered-fast", fig7a_spec("FAST", "fig3_staggered")),
        SweepPlan("fig7a_staggered-quictcp", fig7a_spec("QUIC-TCP", "fig3_staggered")),
        SweepPlan("delays-fast", delays_spec("FAST")),
        SweepPlan("delays-quictcp", delays_spec("QUIC-TCP")),
        SweepPlan("fig7b", fig7b_spec),
    ),
    analyse=_analyse,
    notes=(
        "Fig. 3 is lost; the topology is reconstructed (scenarios/002_quic_tcp/fig3.yaml): one wired link of "
        "3125 packets/s shared by the four flows is what the published QUIC-TCP and FAST totals and "
        "round-robin's unequal, wireless-limited split force together.",
        "The downlink's absolute rate is the 802.16e 10 MHz PUSC frame (0.3456 of e B T carries data) with 10 bytes "
        "of MAC overhead per packet, times one declared residual calibration (downlink.rate_scale = 0.7172), fitted "
        "to round-robin's published total only; that row is marked CALIBRATED, every other number is out of sample.",
        "Rates are packets/s of 200-byte payload averaged over [100 s, end] of each run.",
    ),
)
