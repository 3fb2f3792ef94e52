"""Paper 003: Radunović, Gkantsidis, Gunawardena & Key, "Horizon: Balancing TCP over multiple
paths in wireless mesh network", MobiCom 2008 — multipath back-pressure for unmodified TCP.

Scenarios: `scenarios/003_horizon/` (the testbed as reconstructed: fig4.yaml, testbed22.yaml;
fig1_independent.yaml for Fig. 1 at packet level; every inferred value commented there and in
docs/horizon.md).

- The worked examples of §2.2, §2.3 and §3.5 (`airtcp.papers.paper003_examples`): classical
  back-pressure and Horizon's pricing run by their algorithms, against the corrected targets.
- Fig. 1 at packet level (`fig1`): the split of one flow over two independent paths by their
  rates, and the second flow that pushes it off node 2.
- Fig. 4 (`fig4`): two flows sharing a path for 20 s, then one alone; Horizon against
  single-path TCP, by the paper's ratios.
- Figs. 5-8 (`random_sets`): random sets of 1, 2, 4 and 8 flows, the single-flow groups by
  multi-homing, the CDFs of the improvement of min, mean, max, Jain and utility, and how many
  flows balance over both paths.
- §5.2.2's tuning (`sensitivity`): Fig. 4 with the custody threshold and the refreshment period
  varied (report only).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from airtcp.experiments.analysis import Experiment
from airtcp.papers import Figure, Reproduction, SweepPlan, Target
from airtcp.papers.paper003.fig1 import fig1_targets
from airtcp.papers.paper003.fig1 import spec as fig1_spec
from airtcp.papers.paper003.fig4 import fig4_targets
from airtcp.papers.paper003.fig4 import spec as fig4_spec
from airtcp.papers.paper003.random_sets import random_set_targets
from airtcp.papers.paper003.random_sets import spec as random_spec
from airtcp.papers.paper003.sensitivity import sensitivity_targets
from airtcp.papers.paper003.sensitivity import spec as sensitivity_spec
from airtcp.papers.paper003_examples import worked_examples

__all__ = ["REPRODUCTION"]

SECTION_EXAMPLES = "§2.2-§3.5 examples"


def example_targets(quick: bool) -> list[Target]:
    """The worked examples' rows (`paper003_examples.worked_examples`) as table rows."""
    targets = []
    for row in worked_examples(quick):
        targets.append(Target(
            section=SECTION_EXAMPLES, what=f"{row['item']}: {row['quantity']}", published=row["published"],
            unit="", airtcp=row["airtcp"], tolerance=str(row.get("tolerance", "")), ok=row.get("ok"),
            note=str(row.get("note", "")),
        ))
    return targets


def _analyse(experiments: Mapping[str, Experiment], figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    figures, targets = fig4_targets(experiments["fig4"], figures_dir, quick)
    more_figures, more_targets = fig1_targets(experiments["fig1"], figures_dir, quick)
    set_figures, set_targets = random_set_targets(experiments["random"], figures_dir, quick)
    tuning_figures, tuning_targets = sensitivity_targets(experiments["sensitivity"], figures_dir, quick)
    return (figures + more_figures + set_figures + tuning_figures,
            example_targets(quick) + more_targets + targets + set_targets + tuning_targets)


REPRODUCTION = Reproduction(
    key="003",
    title="Horizon: multipath back-pressure for unmodified TCP (Radunović, Gkantsidis, Gunawardena & Key, "
          "MobiCom 2008): worked examples, Fig. 1 at packet level, Figs. 4-8",
    source="the paper's §2.2, §2.3, §3.5 and §6.3-6.4; tolerances and known differences: docs/horizon.md",
    sweeps=(
        SweepPlan("fig4", fig4_spec),
        SweepPlan("fig1", fig1_spec),
        SweepPlan("random", random_spec),
        SweepPlan("sensitivity", sensitivity_spec),
    ),
    analyse=_analyse,
    notes=(
        "The testbed is reconstructed (the paper's Fig. 3 is missing): two 80-m wings on two channels around a 12-m "
        "atrium, two bridge pairs on two more; docs/horizon.md.",
        "Single-path TCP takes the least-ETT path both ways (VRR's routes are symmetric); it is Horizon's first path.",
        "§3.5's \"y* = 8\" is read as 6 and its \"90\" packets as §2.3's 63 (docs/horizon.md).",
    ),
)
