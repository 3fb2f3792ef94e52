"""Paper 003, §6.3 Fig. 4 on the testbed as reconstructed: S1-D1 (n0 to s10, both ends bridges)
for 40 s, S2-D2 (s3 to s7) on the wing single-path TCP's S1-D1 path crosses for the first 20 s;
Horizon against single-path TCP (spec 003 R-E8). The paper's figure is missing from the text;
its caption and §6.3 give single-path 600 and 190 kB/s (340 alone), Horizon 1.4 MB/s and
330 kB/s (620 alone), and Horizon moving "almost all" of S1-D1 to the free path, then balancing."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.experiments.figures import plot_goodput_vs_time, plot_lines
from airtcp.papers import Figure, Target
from airtcp.papers.paper003.common import (
    FULL_SEEDS, HORIZON, KBPS, QUICK_SEEDS, SINGLE_ROUTING, done_runs, paired_ratio, path_shares,
    run_results, scenario, single_path_flows, window_goodput,
)

SECTION = "Fig. 4"
SHARED = (2.0, 20.0)  # both flows on (the first 2 s are start-up)
ALONE = (22.0, 40.0)  # S1-D1 alone
# Horizon's first path is single-path TCP's: the one S2-D2 shares; the second is free.
FREE_PATH = 1


def spec(quick: bool) -> dict[str, Any]:
    base = scenario("fig4")
    return {
        "name": "fig4",
        "base": base,
        "zip": {
            "name": ["horizon", "single"],
            "routing": [HORIZON, SINGLE_ROUTING],
            "flows": [base["flows"], single_path_flows(base["flows"])],
        },
        "seeds": QUICK_SEEDS if quick else FULL_SEEDS,
    }


def measurements(exp: Experiment) -> pd.DataFrame:
    """One row per finished run: scheme, seed, S1 and S2 goodput in both windows (bit/s), S1's
    share on the free path in both windows (Horizon runs)."""
    rows = []
    for run in done_runs(exp).itertuples():
        key, scheme = run.key, run.name
        results = run_results(exp, key)
        shared, alone = path_shares(results, 0, *SHARED), path_shares(results, 0, *ALONE)
        rows.append({
            "scheme": scheme, "seed": run.seed,
            "s1_shared": window_goodput(exp, key, "S1-D1", *SHARED),
            "s2_shared": window_goodput(exp, key, "S2-D2", *SHARED),
            "s1_alone": window_goodput(exp, key, "S1-D1", *ALONE),
            "free_shared": shared.get(FREE_PATH, math.nan) if shared else math.nan,
            "free_alone": alone.get(FREE_PATH, math.nan) if alone else math.nan,
        })
    return pd.DataFrame(rows)


def _by_seed(frame: pd.DataFrame, scheme: str, column: str) -> dict[int, float]:
    part = frame[frame["scheme"] == scheme]
    return dict(zip(part["seed"], part[column]))


def _ratio_target(frame: pd.DataFrame, what: str, column: str, published: float, floor: float,
                  denominator: tuple[str, str] | None = None) -> Target:
    """Horizon over single-path (or the baseline's own ratio of two columns) with paired seeds."""
    if denominator is None:
        num, den = _by_seed(frame, "horizon", column), _by_seed(frame, "single", column)
    else:
        num, den = _by_seed(frame, denominator[0], column), _by_seed(frame, denominator[0], denominator[1])
    mean, half, n = paired_ratio(num, den)
    return Target(section=SECTION, what=what, published=published, unit="ratio", airtcp=mean if n else None,
                  ci95=half if n > 1 else None, n=n, tolerance=f">= {floor:g}", ok=bool(n) and mean >= floor,
                  note="per-seed ratios, paired seeds")


def _absolute(frame: pd.DataFrame, scheme: str, column: str, what: str, published: float) -> Target:
    mean, half, n = mean_ci(frame[frame["scheme"] == scheme][column] / KBPS)
    return Target(section=SECTION, what=what, published=published, unit="kB/s", airtcp=mean if n else None,
                  ci95=half if n > 1 else None, n=n, tolerance="reported",
                  note="the reconstruction's absolute rates are not the testbed's")


def _figures(exp: Experiment, frame: pd.DataFrame, figures_dir: Path) -> list[Figure]:
    figures = []
    names = dict(zip(exp.runs["key"], exp.runs["name"]))
    goodput = exp.goodput.assign(scheme=exp.goodput["key"].map(names))
    for scheme in ("single", "horizon"):
        part = goodput[goodput["scheme"] == scheme]
        out = plot_goodput_vs_time(part, figures_dir / f"fig4_{scheme}", title=f"Fig. 4, {scheme}")
        figures.append(Figure(out[0], f"Fig. 4: per-flow goodput over time, {scheme} (S2-D2 stops at 20 s)"))
    shares: dict[float, list[float]] = {}
    for run in done_runs(exp).itertuples():
        if run.name != "horizon":
            continue
        results = run_results(exp, run.key)
        for t in range(0, 40):
            s = path_shares(results, 0, t, t + 1)
            if s:
                shares.setdefault(float(t), []).append(s.get(FREE_PATH, 0.0))
    xs = sorted(shares)
    out = plot_lines({"S1-D1 on the north wing + E (the path S2-D2 does not use)": (xs, [sum(shares[x]) / len(shares[x]) for x in xs])},
                     figures_dir / "fig4_split", x_label="time (s)", y_label="share of S1-D1's packets",
                     references={"all": 1.0, "half": 0.5})
    figures.append(Figure(out[0], "Fig. 4: Horizon's share of S1-D1 on the path S2-D2 does not use, per second"))
    return figures


def fig4_targets(exp: Experiment, figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    frame = measurements(exp)
    horizon = frame[frame["scheme"] == "horizon"]
    free, half, n = mean_ci(horizon["free_shared"].dropna())
    alone_free, alone_half, m = mean_ci(horizon["free_alone"].dropna())
    targets = [
        Target(section=SECTION, what="(i) Horizon: S1-D1's share on the free path, 2-20 s", published="almost all",
               unit="fraction", airtcp=free if n else None, ci95=half if n > 1 else None, n=n, tolerance=">= 0.9",
               ok=bool(n) and free >= 0.9),
        _ratio_target(frame, "(ii) S2-D2, 2-20 s: Horizon / single-path", "s2_shared", 2.33, 1.5),
        _ratio_target(frame, "(iii) S1-D1, 2-20 s: Horizon / single-path", "s1_shared", 1.74, 1.3),
        _ratio_target(frame, "(iv) S1-D1 alone, 22-40 s: Horizon / single-path", "s1_alone", 1.82, 1.4),
        Target(section=SECTION, what="(iv) Horizon: S1-D1 alone balanced, free path's share 22-40 s",
               published="about half", unit="fraction", airtcp=alone_free if m else None,
               ci95=alone_half if m > 1 else None, n=m, tolerance="0.25-0.75",
               ok=bool(m) and 0.25 <= alone_free <= 0.75),
        _ratio_target(frame, "(v) single-path: S1-D1 alone / shared", "s1_alone", 1.79, 1.3,
                      denominator=("single", "s1_shared")),
        _absolute(frame, "single", "s2_shared", "single-path S2-D2, 2-20 s", 600),
        _absolute(frame, "single", "s1_shared", "single-path S1-D1, 2-20 s", 190),
        _absolute(frame, "single", "s1_alone", "single-path S1-D1 alone", 340),
        _absolute(frame, "horizon", "s2_shared", "Horizon S2-D2, 2-20 s", 1400),
        _absolute(frame, "horizon", "s1_shared", "Horizon S1-D1, 2-20 s", 330),
        _absolute(frame, "horizon", "s1_alone", "Horizon S1-D1 alone", 620),
    ]
    return _figures(exp, frame, figures_dir), targets
