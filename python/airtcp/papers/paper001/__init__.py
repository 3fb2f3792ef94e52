"""Paper 001: Seferoglu & Markopoulou, "Network coding-aware queue management for TCP flows over
coded wireless networks", IEEE/ACM ToN 22(4), 2014: NCAQM over COPE (docs/ncaqm.md, docs/cope.md).

`airtcp reproduce 001` runs, on the same networks and seeds for every scheme (paired):

- Table I and Fig. 4 (`runs.table1_targets`): TCP+noNC, TCP+COPE and TCP+NCAQM on Alice-and-Bob,
  the X, the cross and the random grid (`grid`, drawn per seed), L = 10, 1 Mbps; the "Optimal"
  column from the NUM solver.
- Fig. 5 (buffer L), Fig. 6 (flows on the wheel, L = 30), Fig. 7 (link rate, L = 30).
- Figs. 10-15 (`num`): the distributed solution of the NUM with coding on Appendix A's six
  instances, against the exact optima.

- The sensitivity of Table I to COPE's inferred constants (`runs.SENSITIVITY`), reported.

- Example 1 (`runs.example1_targets`): how long the X's relay holds no data of one of its flows.

- Fig. 9 (`butterfly`): TCP+BFLY and NCAQM over BFLY on the butterfly against the buffer and
  the link rate, with and without a recovery rule, COPE's one-hop codes beside them.

Scenarios: `scenarios/001_ncaqm/` (the TCP+noNC files; the sweeps add the `coding` block).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from airtcp.experiments.analysis import Experiment
from airtcp.papers import Figure, Reproduction, SweepPlan, Target
from airtcp.papers.paper001 import butterfly, num, runs

__all__ = ["REPRODUCTION"]

_RATES = {"radio.data_rate": list(runs.CAPACITIES), "radio.basic_rate": list(runs.CAPACITIES)}


def _wheel_rows() -> dict[str, list[object]]:
    return {"topology.n": list(runs.WHEEL_FLOWS), "flows": [runs.wheel_flows(n) for n in runs.WHEEL_FLOWS]}


def _printed_step(value: float) -> float:
    """The last printed digit's unit of a published number (0.1 for "1.3", 0.01 for "0.66")."""
    text = repr(value)
    return 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def _num_targets(figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    """Figs. 10-15: the exact optima against Appendix A's (printed truncated: the true value lies
    within one unit of the last printed digit above), and the distributed iteration's second-half
    mean within 1 % of the optimum after 5000 iterations."""
    figures, targets = [], []
    for c in num.convergence(figures_dir, iterations=5000):
        published, published_without = num.PUBLISHED[c.figure]
        half = c.trace.total[len(c.trace.total) // 2:].mean()
        for what, value, pub in (("optimum with coding", c.optimum, published),
                                 ("optimum without coding", c.optimum_without, published_without)):
            step = _printed_step(pub)
            targets.append(Target(
                section=c.figure, what=f"NUM {what} (total rate)", published=pub, unit="", airtcp=value,
                tolerance=f"in [{pub:g}, {pub + step:g}) (printed truncated)",
                ok=bool(pub - 1e-9 <= value < pub + step),
            ))
        gap = abs(half / c.optimum - 1)
        targets.append(Target(
            section=c.figure, what="distributed iteration (5000 steps), mean of its second half / optimum - 1",
            published=0.0, unit="", airtcp=gap, tolerance="within 1 %", ok=bool(gap <= 0.01),
        ))
        figures.append(Figure(c.paths[0], f"{c.figure}: rates of the distributed solution against the iteration"))
    return figures, targets


def _analyse(experiments: Mapping[str, Experiment], figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    optimal = num.optimal_improvements()
    figures, targets = runs.table1_targets(experiments, optimal, figures_dir, quick)
    for more in (
        runs.buffer_targets(experiments, figures_dir),
        runs.wheel_targets(experiments["fig6-wheel"], figures_dir),
        runs.capacity_targets(experiments, figures_dir),
        _num_targets(figures_dir),
        ([], runs.sensitivity_targets(experiments)),
        ([], runs.example1_targets(quick)),
        butterfly.targets(experiments, optimal["butterfly"], figures_dir),
    ):
        figures, targets = figures + more[0], targets + more[1]
    return figures, targets


REPRODUCTION = Reproduction(
    key="001",
    title="NCAQM over COPE and BFLY (Seferoglu & Markopoulou, IEEE/ACM ToN 2014): Table I, Figs. 4-7, Fig. 9, "
          "Figs. 10-15, Example 1, the sensitivity to COPE's constants",
    source="the paper's §VI, Table I and Appendix A; tolerances and the reading of each claim: docs/ncaqm.md",
    sweeps=(
        *(SweepPlan(f"table1-{key}", runs.topology_spec(key, f"table1-{key}", many=True))
          for key in runs.TOPOLOGIES.values()),
        SweepPlan("table1-grid", runs.grid_spec),
        *(SweepPlan(f"fig5-{key}", runs.topology_spec(key, f"fig5-{key}",
                                                       grid={"radio.queue.packets": list(runs.BUFFERS)}))
          for key in runs.TOPOLOGIES.values()),
        SweepPlan("fig6-wheel", runs.topology_spec("wheel", "fig6-wheel", zip_=_wheel_rows(), buffer=30)),
        *(SweepPlan(f"fig7-{key}", runs.topology_spec(key, f"fig7-{key}", zip_=_RATES, buffer=30))
          for key in runs.TOPOLOGIES.values()),
        *(SweepPlan(f"sensitivity-{key}", runs.sensitivity_spec(key)) for key in runs.TOPOLOGIES.values()),
        SweepPlan("fig9a-butterfly", butterfly.spec("fig9a-butterfly", grid={"radio.queue.packets": list(runs.BUFFERS)})),
        SweepPlan("fig9b-butterfly", butterfly.spec("fig9b-butterfly", zip_=_RATES, buffer=30)),
    ),
    analyse=_analyse,
    notes=(
        "Improvements are the ratio of the mean total goodputs over seeds minus 1 (Table I, Figs. 5-7) and per seed "
        "(Fig. 4's CDFs); the schemes run on the same seeds.",
        "Fig. 9 judges BFLY with the recovery rule the paper does not give (coder_ack) and reports it without "
        "(none) on the same seeds.",
    ),
)
