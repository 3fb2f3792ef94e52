"""Paper 003's shared pieces: the bundled scenarios, the single-path baseline made from a Horizon
scenario, the per-run tables Horizon reports (read from the sweep's run records), goodput over a
window, and paired ratios over seeds (docs/horizon.md)."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.scenario import bundled

FOLDER = "003_horizon"
QUICK_SEEDS = 2
FULL_SEEDS = 5
# The paper's "kB/s": 1000 bytes per second (spec A18).
KBPS = 8_000.0
HORIZON: dict[str, Any] = {"kind": "horizon"}
SINGLE_ROUTING: dict[str, Any] = {"kind": "static", "metric": "ett"}
# Single-path TCP: the least-ETT path, both ways on it (the testbed's VRR routes are symmetric);
# Horizon's first path is the same one (spec 003 §6.3's premise, tested in tests/integration/horizon.rs).
SINGLE_PATH: dict[str, Any] = {"kind": "disjoint", "k": 1, "metric": "ett"}


def scenario(name: str) -> dict[str, Any]:
    """A bundled paper-003 scenario as a mutable mapping."""
    return bundled.read_data(f"{FOLDER}/{name}")


def single_path_flows(flows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`flows` for the single-path baseline: each on its least-ETT path, both ways."""
    out = []
    for flow in flows:
        flow = copy.deepcopy(dict(flow))
        flow.setdefault("paths", SINGLE_PATH)
        out.append(flow)
    return out


def run_results(exp: Experiment, key: str) -> dict[str, Any]:
    """The results of finished run `key` (its record in the sweep folder)."""
    record = json.loads((exp.folder / "runs" / f"{key}.json").read_text(encoding="utf-8"))
    return record.get("results") or {}


def done_runs(exp: Experiment) -> pd.DataFrame:
    """The finished runs' rows (key, seed, parameters)."""
    return exp.runs[exp.runs["status"] == "done"]


def window_goodput(exp: Experiment, key: str, flow: str, start: float, end: float) -> float:
    """Mean goodput of `flow` in run `key` over the bins starting in [start, end), bit/s."""
    g = exp.goodput
    part = g[(g["key"] == key) & (g["flow"] == flow) & (g["t_s"] >= start) & (g["t_s"] < end)]
    return float(part["goodput_bps"].mean()) if len(part) else math.nan


def path_shares(results: Mapping[str, Any], flow: int, start: float, end: float) -> dict[int, float]:
    """Share of transport flow `flow`'s data delivered on each path over the bins starting in
    [start, end) (Horizon's `horizon_paths` table); empty if none arrived."""
    counts: dict[int, int] = {}
    for row in results.get("horizon_paths", []):
        if row["flow"] == flow and row["direction"] == "data" and start <= row["t"] < end:
            counts[row["path"]] = counts.get(row["path"], 0) + row["delivered"]
    total = sum(counts.values())
    return {p: c / total for p, c in counts.items()} if total else {}


def paired_ratio(numerators: Mapping[int, float], denominators: Mapping[int, float]) -> tuple[float, float, int]:
    """Mean and 95 % half-width of the per-seed ratios of two schemes' values (paired seeds)."""
    ratios = [numerators[s] / denominators[s] for s in numerators
              if s in denominators and denominators[s] > 0 and not math.isnan(numerators[s])]
    return mean_ci(ratios)
