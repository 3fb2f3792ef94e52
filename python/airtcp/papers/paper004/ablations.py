"""Paper 004's ablations and sensitivities (spec §6(b) 4), on Fig. 4(a)'s one flow at C = 1 Mbps:
each variant changes one thing against the paper's set-up at the same p_min and seeds.

- `fifo-low`: the low queue served oldest first, drop-tail, instead of the LIFO that pushes out
  its oldest; stale coded packets of decoded blocks then fill the air (must lose >= 20 % at
  p_min = 0.5).
- `literal-dup`: the receiver answers packets of decoded blocks with duplicates too (the reading
  the spec's A3 rejects; must lose >= 50 %).
- `r+2`: two more coded packets per data packet (within 3 %); `r-rounded` (at p_min = 0.6, the
  one point where it differs): r = round(2 / p_min - 1) = 2 instead of ceil = 3 (within 3 %).
- `gf256`: GF(2^8) coefficients instead of GF(8191) (within 1 %); `exact`: Gauss-Jordan ranks
  instead of counting ones (within the 95 % confidence interval).
- `rtt150`: 75 ms one way instead of 150, buffers C x RTT likewise halved (within 5 %).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, mean_ci
from airtcp.papers import Target
from airtcp.papers.paper004.common import (
    FULL_SEEDS, MBPS, QUICK_SEEDS, band, finished_flows, packets_per_rtt, redundancy, scenario, shorten,
)

SECTION = "Ablations"
C_MBPS = 1.0


def _variant(name: str, p: float) -> dict[str, Any]:
    """The fields a variant sets (every row sets all of them)."""
    rtt = 0.15 if name == "rtt150" else 0.3
    buffer = packets_per_rtt(C_MBPS * MBPS, rtt)
    transport: dict[str, Any] = {"kind": "tcp_rlc", "redundancy": redundancy(p)}
    pairs: dict[str, Any] = {"buffers": {"high": buffer, "low": buffer}, "low_order": "lifo",
                             "low_policy": {"kind": "blind"}}
    if name == "fifo-low":
        pairs["low_order"] = "fifo"
    elif name == "literal-dup":
        transport["literal_dup"] = True
    elif name == "r+2":
        transport["redundancy"] += 2
    elif name == "r-rounded":
        transport["redundancy"] = round(2 / p - 1)
    elif name == "gf256":
        transport["field"] = "gf256"
    elif name == "exact":
        # The exact decoder keeps B^2 coefficients a block, so it caps W (C x RTT is 150 here).
        transport["decoder"], transport["max_cwnd"] = "exact", 2048
    return {"links[0].delay": f"{rtt * 500:g}ms", "routers[0].queue.packets": buffer,
            "routers[0].priority_pairs": pairs, "flows[0].transport": transport}


# (variant, p_min, what it must show against the paper's set-up at the same p_min)
CASES = (
    ("fifo-low", 0.5, "loses >= 20 %"),
    ("literal-dup", 0.5, "loses >= 50 %"),
    ("r+2", 0.5, "within 3 %"),
    ("r-rounded", 0.6, "within 3 %"),
    ("gf256", 0.5, "within 1 %"),
    ("exact", 0.5, "within the 95 % CI"),
    ("rtt150", 0.5, "within 5 %"),
)
P_MIN = (0.5, 0.6)


def spec(quick: bool) -> dict[str, Any]:
    points = [("paper", p) for p in P_MIN] + [(name, p) for name, p, _ in CASES]
    rows: dict[str, list[Any]] = {"name": [], "routers[0].users[0].channel.low": []}
    for name, p in points:
        rows["name"].append(f"{name}-p{p:g}")
        rows["routers[0].users[0].channel.low"].append(p)
        for field, value in _variant(name, p).items():
            rows.setdefault(field, []).append(value)
    base = shorten(scenario("single"), quick)
    base["routers"][0]["rate"] = f"{round(C_MBPS * MBPS)}bps"
    return {"name": "ablations", "base": base, "zip": rows, "seeds": QUICK_SEEDS if quick else FULL_SEEDS}


def _goodputs(exp: Experiment) -> pd.DataFrame:
    flows = finished_flows(exp)
    return pd.DataFrame({"name": flows["name"].astype(str), "goodput_bps": flows["goodput_bps"].astype(float)})


def ablation_targets(exp: Experiment, quick: bool) -> list[Target]:
    runs = _goodputs(exp)

    def mean(name: str) -> tuple[float, float, int]:
        return mean_ci(runs[runs["name"] == name]["goodput_bps"])

    targets = []
    for name, p, claim in CASES:
        ref, ref_half, _ = mean(f"paper-p{p:g}")
        got, half, n = mean(f"{name}-p{p:g}")
        ratio = got / ref if ref > 0 and n else float("nan")
        if claim.startswith("loses"):
            needed = float(claim.split(">= ")[1].rstrip(" %")) / 100
            ok = ratio <= 1 - needed
            tolerance = f"<= {1 - needed:.2g}"
        elif claim.startswith("within the"):
            ok = abs(got - ref) <= (half + ref_half) or abs(ratio - 1) <= 0.01
            tolerance = "CIs overlap"
        else:
            allowed = float(claim.split()[1].rstrip("%")) / 100
            low, high = band(1 - allowed, 1 + allowed, quick)
            ok = low <= ratio <= high
            tolerance = f"[{low:.3g}, {high:.3g}]"
        targets.append(Target(
            section=SECTION, what=f"{name} / the paper's set-up, C = 1 Mbps, p_min = {p:g}", published=claim,
            unit="", airtcp=ratio, tolerance=tolerance, ok=bool(ok),
            note=f"{got / 1e3:.1f} vs {ref / 1e3:.1f} kbit/s (mean of {n} seeds)",
        ))
    return targets
