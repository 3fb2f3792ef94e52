"""airtcp against ns-3 3.44 on TCP over multi-hop 802.11b and 802.11a, and ns-3's reference
figures.

The benchmark (`python -m airtcp.bench.wifi`, `make bench-wifi`) runs both simulators in the same
run, each as a separate command, on the cases of `bench/wifi/` (C++ programs for ns-3, compiled
against the same prebuilt ns-3 as the wired benchmark `airtcp.bench.wired`; YAML templates for
airtcp, varied with `--set`):

- `chain`: N = 1..8 hops on a line, 200 m apart, range 250 m, static routes, one bulk TCP NewReno
  flow from the first node to the last for 100 s;
- `chain11a`: the same chain in 802.11a, N = 1..4 at 54 and at 24 Mbps;
- `grid`: 10 x 10 nodes 200 m apart, AODV, 10 bulk TCP flows between node pairs drawn with a
  fixed seed, for 100 s;
- `scale` (airtcp only): a connected 10,000-node random mesh with 100 TCP flows for 60 s.

TCP runs with the same loss recovery in both: PRR, ns-3's default (the templates' `recovery:
prr`), or with `--recovery classic` ns-3's TcpClassicRecovery and airtcp's `recovery: classic`.
It prints, per case, the goodput of each (mean over seeds), their ratio, the wall time of each
simulation loop and of each whole command with their ratios, and for the scale case its wall time
and peak memory, each beside its target. `--ns3-from-reference` takes ns-3's figures from
`bench/wifi/ns3_reference.json` instead of running it.

    python -m airtcp.bench.wifi [--cases chain,chain11a,grid,scale] [--quick] [--out DIR]
                                [--seeds N] [--hops 3,6] [--rates 54,24] [--ns3-from-reference]
                                [--recovery prr|classic]

Writes `OUT/bench_wifi.json` (every run of both) and `OUT/bench_wifi.md`.

The ns-3 reference runs alone (`--ns3-only`, or `--update-reference` to rewrite
`bench/wifi/ns3_reference.json`, the figures airtcp's tests compare against) cover `chain` (basic
access with PRR and with classic recovery, and RTS/CTS with PRR), `grid` (PRR), and `saturation`
(N = 1, 5, 10, 20 saturated UDP senders around one receiver, 2 and 11 Mbps, basic access and
RTS/CTS, beside Bianchi's model evaluated with the DCF parameters ns-3 reports), and for 802.11a
`chain11a` (N = 1..4 at 54 and 24 Mbps, PRR) and `saturation11a` (6, 24 and 54 Mbps, basic
access); they write
`OUT/ns3_wifi.json` and `OUT/ns3_wifi.md`. `bench/wifi/README.md` documents the configuration and
the parameters.

The modules, one per case and one per part of a run:

- `chain`, `grid`, `saturation`: each case's settings (802.11a's forms included), its ns-3 runs
  and their figures, and (chain, grid) what airtcp's runs of it set;
- `scale`: the 10,000-node mesh: placing it, checking its connectivity, its scenario, its run;
- `ns3`: compiling and running the ns-3 programs, the figures of their runs, the reference file;
- `airtcp_run`: one measured `airtcp run`;
- `templates`: what the ns-3 programs compile in, and the check of airtcp's templates against it;
- `benchmark`: both simulators in one run, compared row by row (`run_benchmark`);
- `reference`: the ns-3 reference runs alone (`run_reference`) and the reference file;
- `report`: the tables and text of both, for the terminal and as Markdown;
- `common`: seeds, targets, the loop over seeds, statistics, tables and output files;
- `cli`: the command line (`main`).
"""

from airtcp.bench.harness import BenchError

from .benchmark import compare, run_benchmark
from .chain import ns3_chain_figures
from .cli import main
from .grid import draw_pairs, ns3_grid_figures
from .ns3 import build_programs
from .reference import run_reference
from .report import bench_table
from .saturation import bianchi_throughput
from .scale import (
    components,
    hop_count,
    mesh_scenario,
    place_connected_mesh,
    unit_disk_neighbours,
)
from .templates import check_templates, template_problems

__all__ = [
    "BenchError",
    "bench_table",
    "bianchi_throughput",
    "build_programs",
    "check_templates",
    "compare",
    "components",
    "draw_pairs",
    "hop_count",
    "main",
    "mesh_scenario",
    "ns3_chain_figures",
    "ns3_grid_figures",
    "place_connected_mesh",
    "run_benchmark",
    "run_reference",
    "template_problems",
    "unit_disk_neighbours",
]
