"""The scale case (airtcp only): connected random meshes at the density of
`bench/wifi/airtcp_mesh.yaml` (10,000 nodes in 14 km x 14 km, about 10 neighbours each): 10,000
nodes with 100 TCP flows for 60 s (the template), 100,000 nodes with 1,000 flows for 60 s and
1,000,000 nodes with 1,000 flows for 10 s (`SCALE_SIZES`). For each size: placing the mesh,
checking its connectivity, writing its scenario, and one measured run (set-up, loop, events/s,
peak memory and memory per node) against the targets, and optionally against another build of
airtcp on the same scenario."""

from __future__ import annotations

import copy
import json
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from airtcp.bench.harness import BenchError, log
from airtcp.bench.wired import _format_seconds, _mean, _ratio

from .airtcp_run import run_airtcp
from .common import NS_PER_S, _attempt, _round
from .grid import draw_pairs

SCALE_TEMPLATE = "airtcp_mesh.yaml"
# The mesh, with flows between pairs drawn from these seeds.
SCALE_PLACEMENT_SEED = 1
# Not the placement seed: the pairs would otherwise come from the same stream as the positions.
SCALE_PAIR_SEED = 2
SCALE_RUN_SEED = 1
# Flow i starts 10 ms after flow i - 1, so that 100 handshakes do not leave in the same instant.
SCALE_STAGGER_NS = 10_000_000
QUICK_SCALE_DURATION_S = 10.0
SCALE_WALL_TARGET_S = 600.0
SCALE_RSS_TARGET_BYTES = 4 * 10**9
# Gives up placing the mesh if this many rounds of re-placing stray nodes do not connect it.
SCALE_PLACEMENT_ROUNDS = 1000
# The sizes the case knows: nodes -> (flows, simulated seconds). The template's own mesh is the
# first; the others keep its density (the square's side grows with the root of the node count).
SCALE_SIZES: dict[int, tuple[int, float]] = {
    10_000: (100, 60.0),
    100_000: (1_000, 60.0),
    1_000_000: (1_000, 10.0),
}
DEFAULT_SCALE_SIZES = (10_000,)
# Targets of the larger sizes on a quiet 2-core machine: (whole command, seconds; peak RSS, bytes).
SCALE_SIZE_TARGETS: dict[int, tuple[float, float]] = {
    10_000: (SCALE_WALL_TARGET_S, SCALE_RSS_TARGET_BYTES),
    100_000: (300.0, 4e9),
    1_000_000: (float("inf"), 20e9),
}

Position = tuple[float, float]


def unit_disk_neighbours(positions: Sequence[Position], range_m: float) -> list[list[int]]:
    """For every node, the nodes within `range_m` of it (the unit-disk graph of the positions).

    Nodes are bucketed into range-sized cells, so only the 3 x 3 cells around a node are searched.
    The range is inclusive, as airtcp's range propagation is.
    """
    cells: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in enumerate(positions):
        cells.setdefault((math.floor(x / range_m), math.floor(y / range_m)), []).append(i)
    limit = range_m * range_m
    neighbours: list[list[int]] = [[] for _ in positions]
    for (cx, cy), members in cells.items():
        nearby = [
            j for dx in (-1, 0, 1) for dy in (-1, 0, 1) for j in cells.get((cx + dx, cy + dy), ())
        ]
        for i in members:
            xi, yi = positions[i]
            neighbours[i] = [
                j
                for j in nearby
                if j != i and (positions[j][0] - xi) ** 2 + (positions[j][1] - yi) ** 2 <= limit
            ]
    return neighbours


def components(neighbours: Sequence[Sequence[int]]) -> list[int]:
    """Connected-component label of every node, labels numbered from 0 in order of discovery."""
    label = [-1] * len(neighbours)
    count = 0
    for start in range(len(neighbours)):
        if label[start] >= 0:
            continue
        label[start] = count
        stack = [start]
        while stack:
            i = stack.pop()
            for j in neighbours[i]:
                if label[j] < 0:
                    label[j] = count
                    stack.append(j)
        count += 1
    return label


def hop_count(neighbours: Sequence[Sequence[int]], src: int, dst: int) -> int | None:
    """Fewest hops from src to dst in the graph (breadth-first search), None if unreachable."""
    if src == dst:
        return 0
    depth = {src: 0}
    frontier = [src]
    while frontier:
        following = []
        for i in frontier:
            for j in neighbours[i]:
                if j not in depth:
                    if j == dst:
                        return depth[i] + 1
                    depth[j] = depth[i] + 1
                    following.append(j)
        frontier = following
    return None


def _place(rng: random.Random, width: float, height: float) -> Position:
    # Millimetres: the scenario file holds exactly these values, so the connectivity checked here
    # is the one airtcp sees.
    return (round(rng.uniform(0.0, width), 3), round(rng.uniform(0.0, height), 3))


def place_connected_mesh(
    n: int,
    width: float,
    height: float,
    range_m: float,
    seed: int = SCALE_PLACEMENT_SEED,
    *,
    max_rounds: int = SCALE_PLACEMENT_ROUNDS,
) -> tuple[list[Position], int]:
    """n positions uniform in width x height whose unit-disk graph is connected.

    Placed uniformly with `random.Random(seed)`; the nodes outside the largest connected component
    are then placed again (uniformly, same stream) until every node is in one component, so the
    mesh keeps its n nodes and flows between any two of them have a route. Returns the positions
    and how many placements were redone (a handful at ten neighbours per node).
    """
    rng = random.Random(seed)
    positions = [_place(rng, width, height) for _ in range(n)]
    redone = 0
    for _ in range(max_rounds):
        label = components(unit_disk_neighbours(positions, range_m))
        sizes: dict[int, int] = {}
        for c in label:
            sizes[c] = sizes.get(c, 0) + 1
        largest = max(sizes, key=lambda c: (sizes[c], -c))
        strays = [i for i, c in enumerate(label) if c != largest]
        if not strays:
            return positions, redone
        for i in strays:
            positions[i] = _place(rng, width, height)
        redone += len(strays)
    raise BenchError(
        f"{n} nodes in {width:g} m x {height:g} m with a {range_m:g} m range did not form a "
        f"connected mesh after {max_rounds} rounds of placing stray nodes again"
    )


def mesh_scenario(
    template: dict[str, Any],
    positions: Sequence[Position],
    pairs: Sequence[tuple[int, int]],
    *,
    stagger_ns: int = SCALE_STAGGER_NS,
    duration: str | None = None,
) -> dict[str, Any]:
    """The scale template with the given node positions and flows between the given pairs.

    The topology becomes `explicit` with nodes named n0..n{N-1} (the names the template's `random`
    topology would give them), and the flows are copies of the template's flows[0] with flow i
    from pairs[i] starting at flows[0].start + i x stagger.
    """
    from airtcp.scenario.units import format_duration, parse_duration

    scenario = copy.deepcopy(template)
    scenario["topology"] = {
        "kind": "explicit",
        "nodes": [
            {"name": f"n{i}", "x": f"{x:.3f}m", "y": f"{y:.3f}m"}
            for i, (x, y) in enumerate(positions)
        ],
    }
    model = template["flows"][0]
    start_ns = parse_duration(model.get("start", "0s"))
    flows = []
    for i, (src, dst) in enumerate(pairs):
        flow = copy.deepcopy(model)
        flow.update(
            id=f"f{i}",
            src=f"n{src}",
            dst=f"n{dst}",
            start=format_duration(start_ns + i * stagger_ns),
        )
        flows.append(flow)
    scenario["flows"] = flows
    if duration is not None:
        scenario["duration"] = duration
    return scenario


def size_area(template: dict[str, Any], nodes: int) -> tuple[float, float]:
    """The width and height (m) of a mesh of `nodes` at the template's density."""
    from airtcp.scenario.units import parse_distance

    topology = template["topology"]
    grow = math.sqrt(nodes / int(topology["n"]))
    return parse_distance(topology["width"]) * grow, parse_distance(topology["height"]) * grow


def scale_label(nodes: int) -> str:
    """`mesh` for the template's 10,000 nodes (its files keep their names), else `mesh-<n>`."""
    return "mesh" if nodes == DEFAULT_SCALE_SIZES[0] else f"mesh-{nodes}"


def run_scale(
    command: Sequence[str],
    wifi_dir: Path,
    out_dir: Path,
    *,
    duration_s: float | None,
    errors: list[str],
    nodes: int = DEFAULT_SCALE_SIZES[0],
    baseline: tuple[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """Places a mesh of `nodes` (one of `SCALE_SIZES`), writes its scenario, runs airtcp once; the
    cost against the targets. `duration_s` overrides the size's simulated time. With `baseline`
    (a label and the command of another build), that build runs the same scenario too and the
    report gains its figures and the ratios."""
    from airtcp.scenario.units import parse_distance, parse_duration

    if nodes not in SCALE_SIZES:
        raise BenchError(f"scale: no size of {nodes} nodes; known: {', '.join(map(str, SCALE_SIZES))}")
    flow_count, size_duration_s = SCALE_SIZES[nodes]
    template_path = wifi_dir / SCALE_TEMPLATE
    template = yaml.safe_load(template_path.read_text(encoding="utf-8"))
    n = nodes
    width, height = size_area(template, n)
    range_m = parse_distance(template["radio"]["propagation"]["range"])
    label = scale_label(n)

    log(f"scale: placing {n} nodes ...")
    started = time.perf_counter()
    positions, redone = place_connected_mesh(n, width, height, range_m, SCALE_PLACEMENT_SEED)
    neighbours = unit_disk_neighbours(positions, range_m)
    pairs = draw_pairs(n, flow_count, SCALE_PAIR_SEED)
    hops = [hop_count(neighbours, s, d) for s, d in pairs]
    if duration_s is None and n != DEFAULT_SCALE_SIZES[0]:
        duration_s = size_duration_s
    duration = None if duration_s is None else _format_seconds(duration_s)
    scenario = mesh_scenario(template, positions, pairs, duration=duration)
    scenario_path = out_dir / "scale" / f"{label}.json"
    scenario_path.parent.mkdir(parents=True, exist_ok=True)
    # JSON is YAML, and writes and reads 10,000 nodes faster.
    scenario_path.write_text(json.dumps(scenario) + "\n", encoding="utf-8")
    prepare_s = time.perf_counter() - started

    sim_duration_s = parse_duration(scenario["duration"]) / NS_PER_S
    found = [h for h in hops if h is not None]
    wall_target, rss_target = SCALE_SIZE_TARGETS[n]
    report: dict[str, Any] = {
        "template": f"bench/wifi/{template_path.name}",
        "scenario": str(scenario_path),
        "nodes": n,
        "width_m": width,
        "height_m": height,
        "range_m": range_m,
        "placement": f"uniform, random.Random({SCALE_PLACEMENT_SEED}); nodes outside the largest "
        "connected component placed again until connected",
        "placements_redone": redone,
        "mean_degree": round(sum(len(nb) for nb in neighbours) / n, 2),
        "flows": len(pairs),
        "pairs": [list(p) for p in pairs],
        "pair_draw": f"airtcp.bench.wifi.draw_pairs({n}, {flow_count}, seed={SCALE_PAIR_SEED})",
        "hops_mean": _round(_mean(found), 1),
        "hops_min": min(found, default=None),
        "hops_max": max(found, default=None),
        "duration_s": sim_duration_s,
        "seed": SCALE_RUN_SEED,
        "prepare_s": round(prepare_s, 2),
        "targets": {"wall_s": wall_target, "peak_rss_bytes": rss_target},
    }
    log(f"airtcp scale: {n} nodes, {len(pairs)} flows, {sim_duration_s:g} s ...")
    run = _attempt(
        errors,
        f"airtcp scale {n}",
        lambda: run_airtcp(
            command, scenario_path, out_dir / "runs" / "scale" / label, seed=SCALE_RUN_SEED
        ),
    )
    if run is None:
        report["run"] = None
        report["wall_ok"] = report["rss_ok"] = None
        return report
    report.update(run_figures(run, n, len(pairs)))
    report["wall_ok"] = run["cmd_wall_s"] < wall_target
    rss_bytes = None if run["peak_rss_kib"] is None else run["peak_rss_kib"] * 1024
    report["rss_ok"] = None if rss_bytes is None else rss_bytes < rss_target
    report["run"] = run
    if baseline is not None:
        name, baseline_command = baseline
        log(f"airtcp scale: {n} nodes with {name} ...")
        other = _attempt(
            errors,
            f"airtcp scale {n} ({name})",
            lambda: run_airtcp(
                baseline_command,
                scenario_path,
                out_dir / "runs" / "scale" / f"{label}-baseline",
                seed=SCALE_RUN_SEED,
            ),
        )
        if other is not None:
            figures = run_figures(other, n, len(pairs))
            report["baseline"] = {"label": name, **figures}
            report["against_baseline"] = {
                key: _ratio(report[key], figures[key])
                for key in ("cmd_wall_s", "setup_s", "sim_wall_s", "events_per_s", "peak_rss_kib")
            }
            report["same_results"] = other["results_digest"] == run["results_digest"]
    return report


def run_figures(run: dict[str, Any], nodes: int, flows: int) -> dict[str, Any]:
    """What a scale report keeps of one run: the whole command's time, the time outside the
    loop (start-up, set-up, results), the loop's, events/s, peak memory and its share per node."""
    goodputs = [f["goodput_bps"] or 0.0 for f in run["flows"]]
    rss_kib = run["peak_rss_kib"]
    outside = None
    if run["cmd_wall_s"] is not None and run["sim_wall_s"] is not None:
        outside = run["cmd_wall_s"] - run["sim_wall_s"]
    events_per_s = None
    if run["events"] and run["sim_wall_s"]:
        events_per_s = run["events"] / run["sim_wall_s"]
    return {
        "sim_wall_s": _round(run["sim_wall_s"], 3),
        "cmd_wall_s": _round(run["cmd_wall_s"], 3),
        "cmd_cpu_s": _round(run["cmd_cpu_s"], 3),
        # Everything a user waits for outside the loop: interpreter, scenario, set-up, results.
        "setup_s": _round(outside, 3),
        # Of which the core's building of the world, and its gathering of the results.
        "core_setup_s": _round(run.get("core_setup_s"), 3),
        "core_results_s": _round(run.get("core_results_s"), 3),
        "events": run["events"],
        "events_per_s": _round(events_per_s, 0),
        "peak_rss_kib": rss_kib,
        "rss_per_node_kib": None if rss_kib is None else _round(rss_kib / nodes, 2),
        "rss_per_flow_kib": None if rss_kib is None else _round(rss_kib / flows, 1),
        "total_goodput_kbps": _round(sum(goodputs) / 1e3, 1),
        "flows_delivering": sum(1 for g in goodputs if g > 0),
        "jain": run["jain"],
    }
