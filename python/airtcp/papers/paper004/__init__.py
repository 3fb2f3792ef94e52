"""Paper 004: Ryu, Bhadra & Shakkottai, "TCP with random linear coding over wireless", Allerton
2009 — TCP-RLC with priority FIFO/LIFO queues at the wireless router: the reproduction of §IV's
Fig. 4 and the theorems of §II.

Scenarios: `scenarios/004_tcp_rlc/` (single.yaml for Fig. 4(a), multipath.yaml for 4(b),
multiflow.yaml for 4(c); every inferred value commented there and in docs/tcp_rlc.md).

- Fig. 4(a) (`fig4a`): one flow, throughput against p_min for C = 0.5-2 Mbps, held against the
  AIMD mean 0.75 p_min C; plain TCP (NewReno + SACK) on the same channel; Theorem 1 in the
  RTT-slotted model.
- Fig. 4(b) (`fig4b`): one flow coded across M = 1..8 paths of C/M, p_1 = 0.1-0.5 a tenth of the
  time, against the published 700-730 kbps (0.75 E[P] C), beside M separate single-path flows.
- Fig. 4(c) (`fig4c`): 30 flows through one router, channel-aware and blind, per-flow goodput
  against E[1/P]^-1 C (the published 70-80 %), at C = 1 Mbps (and 0.5 Mbps in the full form).

- Theorems 1-3 (`theorems`): E[W] measured in the RTT-slotted model and, time-averaged, in the
  packet simulator's runs of Fig. 4(a-c), against the bounds.
- Ablations (`ablations`): FIFO low queue, literal duplicates, r, the field, the decoder, the
  round trip, on Fig. 4(a)'s flow at C = 1 Mbps.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from airtcp.experiments.analysis import Experiment
from airtcp.papers import Figure, Reproduction, SweepPlan, Target
from airtcp.papers.paper004 import theorems
from airtcp.papers.paper004.ablations import ablation_targets
from airtcp.papers.paper004.ablations import spec as ablation_spec
from airtcp.papers.paper004.fig4a import fig4a_targets, rlc_spec, tcp_spec
from airtcp.papers.paper004.fig4b import LOW_SHARE as fig4b_low_share
from airtcp.papers.paper004.fig4b import fig4b_targets
from airtcp.papers.paper004.fig4b import spec as fig4b_spec
from airtcp.papers.paper004.fig4c import LOW_SHARE as fig4c_low_share
from airtcp.papers.paper004.fig4c import fig4c_targets
from airtcp.papers.paper004.fig4c import spec as fig4c_spec

__all__ = ["REPRODUCTION"]


def _analyse(experiments: Mapping[str, Experiment], figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    figures, targets = fig4a_targets(experiments["fig4a"], experiments["fig4a-tcp"], figures_dir, quick)
    more_figures, more_targets = fig4b_targets(experiments["fig4b"], experiments["fig4b-separate"], figures_dir, quick)
    figures, targets = figures + more_figures, targets + more_targets
    more_figures, more_targets = fig4c_targets(experiments["fig4c"], figures_dir, quick)
    figures, targets = figures + more_figures, targets + more_targets
    targets += theorems.slotted_targets(quick)
    targets += theorems.des_theorem1_targets(experiments["fig4a"], quick)
    targets += theorems.des_theorem2_targets(experiments["fig4b"], fig4b_low_share, quick)
    targets += theorems.des_theorem3_targets(experiments["fig4c"], fig4c_low_share, quick)
    return figures, targets + ablation_targets(experiments["ablations"], quick)


REPRODUCTION = Reproduction(
    key="004",
    title="TCP-RLC: TCP with random linear coding and priority queues at the wireless router (Ryu, Bhadra & "
          "Shakkottai, Allerton 2009): Fig. 4, Theorems 1-3, ablations",
    source="the paper's §II and §IV; tolerances and known differences: docs/tcp_rlc.md",
    sweeps=(
        SweepPlan("fig4a", rlc_spec),
        SweepPlan("fig4a-tcp", tcp_spec),
        SweepPlan("fig4b", fig4b_spec(separate=False)),
        SweepPlan("fig4b-separate", fig4b_spec(separate=True)),
        SweepPlan("fig4c", fig4c_spec),
        SweepPlan("ablations", ablation_spec),
    ),
    analyse=_analyse,
    notes=(
        "The figure prints no numbers: each point is held against the AIMD mean 0.75 p_min C, C in Mbps of 1024 kbit/s "
        "(500 packets of 256 bytes per second).",
        "Throughput is the whole run's decoded data (W starts at 1 and grows by one per round trip).",
    ),
)
