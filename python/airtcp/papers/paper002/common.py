"""Paper 002's shared pieces: the controllers and schedulers compared, the published numbers,
the scenario edits every sweep makes, and the per-run rates, Jain's index and utility the
analyses read (docs/quic_tcp_reproduction.md)."""

from __future__ import annotations

import copy
import math
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment, jain, mean_ci
from airtcp.papers import Target
from airtcp.scenario import bundled

FOLDER = "002_quic_tcp"


PAYLOAD_BITS = 200 * 8


SHARED_LINK = 3125.0  # packets/s of the reconstruction's shared wired link (N4 -> N5)


P_S = 200.0  # the utility weight of every flow (p_s, eq. 1)


WARM_UP_S = 100.0


QUICK_DURATION = "300s"


QUIC_20MS = "QUIC-TCP 20ms"  # QUIC-TCP at the Matlab cadence of Fig. 4


# QUIC-TCP's two readings: the ns-2 module's (FAST's cadence, kappa 1.5) and the Matlab runs'.
QUIC_VARIANTS = ("QUIC-TCP", QUIC_20MS)


# The transport blocks of the controllers compared (ns-2-like details where the paper gives
# none: see fig3.yaml's header). Every one replaces the base scenario's QUIC-TCP block.
CONTROLLERS: dict[str, dict[str, Any]] = {
    "QUIC-TCP": {"cc": "quic_tcp", "sack": False,
                 "quic_tcp": {"kappa": 1.5, "rho": 0.5, "p_s": 200, "cadence": {"kind": "fast_rounds"}}},
    QUIC_20MS: {"cc": "quic_tcp", "sack": False,
                "quic_tcp": {"kappa": 0.05, "rho": 0.5, "p_s": 200, "cadence": {"kind": "interval", "every": "20ms"}}},
    "FAST": {"cc": "fast", "sack": False, "fast": {"alpha": 200, "gamma": 1.5}},
    "Compound": {"cc": "compound", "sack": True},
    "Cubic": {"cc": "cubic", "sack": True},
    "Vegas": {"cc": "vegas", "sack": False, "vegas": {"alpha": 200, "beta": 203}},
    "Reno": {"cc": "reno", "sack": False},
}


SCHEDULERS = {
    "eq. (10)": "delay_max_weight",
    "round-robin": "round_robin",
    "max-SNR": "max_snr",
    "QL-MaxWeight": "max_weight",
}


_SCHEDULER_NAME = {kind: name for name, kind in SCHEDULERS.items()}


# Fig. 5 as printed (packets/s, flows f0..f3 = users of 12, 19, 13, 16 dB).
PUBLISHED_RATES = {
    "QUIC-TCP": (780.75, 781.46, 781.11, 781.36),
    QUIC_20MS: (780.75, 781.46, 781.11, 781.36),
    "FAST": (780.86, 781.26, 781.06, 781.46),
    "Compound": (1216.97, 184.54, 1186.04, 357.48),
    "Cubic": (1008.06, 177.17, 1045.91, 742.42),
    "Vegas": (436.48, 1453.28, 351.09, 589.47),
    "Reno": (356.78, 345.91, 265.31, 1718.54),
}


# Fig. 6 with QUIC-TCP, as printed: total rate and Jain's index per scheduler.
PUBLISHED_QUIC_TOTAL = {"eq. (10)": 3124.68, "round-robin": 2856.75, "max-SNR": 3313.89, "QL-MaxWeight": 3215.84}


PUBLISHED_QUIC_JAIN = {"eq. (10)": 0.999, "round-robin": 0.938, "max-SNR": 0.749, "QL-MaxWeight": 0.745}


# Fig. 6 under eq. (10) for the other controllers. Compound's is printed 0.771, but its printed
# rates give 0.711 and its printed drop "0.288" from 0.999 is 0.711 too: 0.711 is the number.
PUBLISHED_JAIN_EQ10 = {"Cubic": 0.820, "Compound": 0.711, "Vegas": 0.722, "Reno": 0.551}


def scenario(name: str) -> dict[str, Any]:
    return bundled.read_data(f"{FOLDER}/{name}")


def with_controller(base: dict[str, Any], controller: str) -> dict[str, Any]:
    """Every flow on `controller` (its CONTROLLERS block in place of the base's QUIC-TCP one)."""
    out = copy.deepcopy(base)
    for flow in out["flows"]:
        transport = flow["transport"]
        transport.pop("quic_tcp", None)
        transport.update(copy.deepcopy(CONTROLLERS[controller]))
    return out


def shorten(base: dict[str, Any], quick: bool) -> dict[str, Any]:
    if quick:
        base["duration"] = QUICK_DURATION
    return base


def slug(controller: str) -> str:
    return controller.lower().replace("-", "").replace(" ", "-")






def done_runs(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["status"] == "done"] if len(frame) else frame


def rates_table(exp: Experiment, *, warm_up_s: float = WARM_UP_S) -> pd.DataFrame:
    """Per run and flow: the scheduler, the flow's rate in packets/s averaged over [warm_up_s, end]
    (`rate`, from the goodput bins) and over the whole run (`rate_all`, from the totals)."""
    flows = done_runs(exp.flows)
    bins = done_runs(exp.goodput)
    bins = bins[bins["t_s"] >= warm_up_s]
    late = bins.groupby(["key", "flow"])["goodput_bps"].mean().rename("late_bps").reset_index()
    table = flows.merge(late, left_on=["key", "id"], right_on=["key", "flow"], how="left")
    extra = [p for p in ("downlink.scheduler.kind", "downlink.rate_scale", "downlink.slot") if p in table.columns]
    out = table[["key", "seed", "id", *extra]].copy() if "seed" in table.columns else table[["key", "id", *extra]].copy()
    out["rate"] = table["late_bps"] / PAYLOAD_BITS
    out["rate_all"] = table["goodput_bps"] / PAYLOAD_BITS
    if "downlink.scheduler.kind" in out.columns:
        out["scheduler"] = out.pop("downlink.scheduler.kind").map(_SCHEDULER_NAME)
    return out


def per_run(rates: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per run: total rate, Jain's index and the utility sum p_s ln x_s over the flows."""
    rows = []
    for key, run in rates.groupby("key"):
        x = run.sort_values("id")["rate"].to_numpy(dtype=float)
        rows.append({
            "key": key, **{b: run[b].iloc[0] for b in by},
            "total": float(x.sum()), "jain": jain(x),
            "utility": float(sum(P_S * math.log(v) for v in x)) if (x > 0).all() else float("-inf"),
            **{f"x:{flow}": float(v) for flow, v in zip(sorted(run["id"]), x)},
        })
    return pd.DataFrame(rows)


def printed_sum(values: tuple[float, ...]) -> float:
    """A sum of printed numbers, to their precision (0.01)."""
    return round(sum(values), 2)


def target_row(section: str, what: str, published: float | str, unit: str, values: pd.Series, *,
               tolerance: str = "", ok: bool | None = None, note: str = "") -> Target:
    mean, half, n = mean_ci(values)
    return Target(section=section, what=what, published=published, unit=unit, airtcp=mean,
                  ci95=half if n > 1 else None, n=n, tolerance=tolerance, ok=ok, note=note)
