"""Paper 003, Fig. 1 at packet level (spec 003 R-F1): six nodes, every link on a channel of its
own (independent, as in §2.2), n2-n4 at 6 Mbps and n3-n5 at 12 Mbps (the 2 : 4 of the figure),
the rest at 54 Mbps. One TCP flow f from n1 to n6 under Horizon should get about what the two
paths carry when each is used alone, a third of it via n2; with a second flow g from n2 to n4
(TCP), f should leave n2 to g (§3.5: "no packets of f on the unused path")."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.papers import Figure, Target
from airtcp.papers.paper003.common import (
    FULL_SEEDS, HORIZON, QUICK_SEEDS, SINGLE_ROUTING, done_runs, path_shares, run_results, scenario,
)

SECTION = "Fig. 1 (packet level)"
WARM_UP_S = 2.0
VIA_2 = ["n1", "n2", "n4", "n6"]
VIA_3 = ["n1", "n3", "n5", "n6"]


def _flow_g(base: dict[str, Any]) -> dict[str, Any]:
    g = dict(base["flows"][0])
    g.update({"id": "g", "src": "n2", "dst": "n4"})
    return g


def spec(quick: bool) -> dict[str, Any]:
    base = scenario("fig1_independent")
    base["duration"] = "20s" if quick else "60s"
    f = base["flows"][0]
    pinned = [{**f, "paths": {"kind": "explicit", "paths": [path]}} for path in (VIA_2, VIA_3)]
    return {
        "name": "fig1",
        "base": base,
        "zip": {
            "name": ["horizon", "via-n2", "via-n3", "horizon-with-g"],
            "routing": [HORIZON, SINGLE_ROUTING, SINGLE_ROUTING, HORIZON],
            "flows": [[f], [pinned[0]], [pinned[1]], [f, _flow_g(base)]],
        },
        "seeds": QUICK_SEEDS if quick else FULL_SEEDS,
    }


def _mean_custody(results: dict[str, Any], node: str, start: float) -> float:
    """Mean custody of f (n1 -> n6) at `node` over the samples from `start` on."""
    values = [r["custody"] for r in results.get("horizon_samples", [])
              if r["node"] == node and r["src"] == "n1" and r["dst"] == "n6" and r["t"] >= start]
    return sum(values) / len(values) if values else math.nan


def measurements(exp: Experiment) -> pd.DataFrame:
    """One row per finished run: case, seed, f's and g's goodput, f's share via n2 and n2's mean
    custody of f."""
    flows = exp.flows
    rows = []
    for run in done_runs(exp).itertuples():
        results = run_results(exp, run.key)
        part = flows[flows["key"] == run.key].set_index("id")["goodput_bps"]
        shares = path_shares(results, 0, WARM_UP_S, math.inf)
        paths = (results.get("flows") or [{}])[0].get("paths") or []
        via_2 = next((k for k, p in enumerate(paths) if p[1:2] == ["n2"]), None)
        rows.append({
            "case": run.name, "seed": run.seed,
            "f": float(part.get("f", math.nan)), "g": float(part.get("g", math.nan)),
            "share_n2": shares.get(via_2, 0.0) if shares and via_2 is not None else math.nan,
            "custody_n2": _mean_custody(results, "n2", WARM_UP_S),
        })
    return pd.DataFrame(rows)


def fig1_targets(exp: Experiment, figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    frame = measurements(exp)

    def of(case: str, column: str) -> tuple[float, float, int]:
        return mean_ci(frame[frame["case"] == case][column].dropna())

    f, f_half, n = of("horizon", "f")
    two, _, m = mean_ci(
        frame[frame["case"] == "via-n2"].set_index("seed")["f"]
        + frame[frame["case"] == "via-n3"].set_index("seed")["f"]
    )
    share, share_half, k = of("horizon", "share_n2")
    with_g, with_g_half, j = of("horizon-with-g", "share_n2")
    custody, custody_half, c = of("horizon-with-g", "custody_n2")
    g, _, gn = of("horizon-with-g", "g")
    f_with_g, _, fn = of("horizon-with-g", "f")
    targets = [
        Target(section=SECTION, what="f under Horizon / (f via n2 alone + f via n3 alone)", published=1.0,
               unit="ratio", airtcp=f / two if n and m else None, n=min(n, m), tolerance=">= 0.85",
               ok=bool(n and m) and f / two >= 0.85,
               note=f"Horizon {f / 1e6:.2f} Mbit/s (±{f_half / 1e6:.2f}); paths alone sum to {two / 1e6:.2f}"
               if n and m else ""),
        Target(section=SECTION, what="share of f via n2", published=round(1 / 3, 3), unit="fraction",
               airtcp=share if k else None, ci95=share_half if k > 1 else None, n=k, tolerance="0.33 ± 0.12",
               ok=bool(k) and abs(share - 1 / 3) <= 0.12, note="§3.5's x24 = 2 of y = 6"),
        Target(section=SECTION, what="with g (n2 -> n4): share of f via n2", published=0.0, unit="fraction",
               airtcp=with_g if j else None, ci95=with_g_half if j > 1 else None, n=j, tolerance="< 0.10",
               ok=bool(j) and with_g < 0.10, note="§3.5: no packets of f on the path g loads"),
        Target(section=SECTION, what="with g: mean custody of f at n2", published=0.0, unit="packets",
               airtcp=custody if c else None, ci95=custody_half if c > 1 else None, n=c, tolerance="< 1.5",
               ok=bool(c) and custody < 1.5),
        Target(section=SECTION, what="with g: both flows alive", published="yes", unit="",
               airtcp="yes" if gn and fn and g > 0 and f_with_g > 0 else "no", n=min(gn, fn),
               ok=bool(gn and fn) and g > 0 and f_with_g > 0,
               note=f"f {f_with_g / 1e6:.2f}, g {g / 1e6:.2f} Mbit/s" if gn and fn else ""),
    ]
    return [], targets
