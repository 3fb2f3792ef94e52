"""Paper 002, Fig. 7: the step-size sweeps of FAST (gamma) and QUIC-TCP (kappa, rho 0.5) with
synchronous and staggered starts and with every link delay scaled, each against the scalar
bound read from the window trace, and QUIC-TCP's range of good kappa against rho (Fig. 7(b)).
A run is steady when it keeps >= 99 % of the reference step's total and every window's
coefficient of variation over [T/2, T] is at most 0.1."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from airtcp.experiments.analysis import Experiment
from airtcp.experiments.figures import plot_metric_vs_parameter
from airtcp.papers import Figure, Target
from airtcp.papers.paper002.common import (
    SHARED_LINK, per_run, rates_table, scenario, shorten, slug, with_controller,
)
from airtcp.scenario import units

def _traced(base: dict[str, Any]) -> dict[str, Any]:
    """With the window trace (Fig. 7's steadiness is read from it), every 100 ms."""
    base.setdefault("metrics", {}).update({"trace_cwnd": True, "trace_interval": "100ms"})
    return base


def _every_flow(path: str, values: list[Any]) -> dict[str, list[Any]]:
    """Zip rows setting `flows[i].<path>` of all four flows to each value in turn."""
    return {f"flows[{i}].{path}": values for i in range(4)}


# The staggered schedule's last flow starts at 150 s; its quick step sweeps run 600 s so that the
# steadiness window [T/2, T] starts 150 s after it.
STAGGERED_QUICK_DURATION = "600s"


# Fig. 7's step sizes (per window update) and rhos.
FAST_GAMMAS = (0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)


QUICK_FAST_GAMMAS = (0.01, 0.5, 1.5, 2.0, 2.5, 4.0)


QUIC_KAPPAS = (0.001, 0.01, 0.1, 0.5, 1.5, 3.3, 5.0, 10.0, 40.0, 100.0, 1000.0)


QUICK_QUIC_KAPPAS = (0.01, 0.5, 1.5, 5.0, 10.0, 40.0)


RHOS = (0.0, 0.25, 0.5, 0.55, 0.75, 1.0)


RHO_KAPPAS = (0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)


STEADY_CV = 0.1  # largest coefficient of variation of a window over [T/2, T] that counts as steady


# Fig. 7(a)'s delay sensitivity: every link delay of fig3.yaml times these factors (the delays are
# a reconstruction), with steps bracketing each controller's scalar bound at every factor.
DELAY_SCALES = (0.5, 1.0, 2.0)


DELAY_STEPS = {"FAST": (1.5, 2.0, 2.5, 3.0, 4.0, 5.0), "QUIC-TCP": (1.5, 3.3, 5.0, 7.0, 10.0, 15.0, 20.0)}


STEP_PATH = {"FAST": "transport.fast.gamma", "QUIC-TCP": "transport.quic_tcp.kappa"}


def fig7a_spec(controller: str, schedule: str = "fig3") -> Any:
    def spec(quick: bool) -> dict[str, Any]:
        if controller == "FAST":
            path, values = "transport.fast.gamma", QUICK_FAST_GAMMAS if quick else FAST_GAMMAS
        else:  # a QUIC-TCP variant: its cadence, the kappas of the sweep
            path, values = "transport.quic_tcp.kappa", QUICK_QUIC_KAPPAS if quick else QUIC_KAPPAS
        base = _traced(shorten(with_controller(scenario(schedule), controller), quick))
        if quick and schedule != "fig3":
            base["duration"] = STAGGERED_QUICK_DURATION
        return {
            "name": f"{schedule.replace('fig3', 'fig7a')}-{slug(controller)}",
            "base": base,
            "zip": _every_flow(path, list(values)),
            "seeds": 1 if quick else 3,
        }

    return spec


def delays_spec(controller: str) -> Any:
    """Fig. 7(a)'s step sweep for `controller` with every link delay scaled by each DELAY_SCALES
    factor: zip rows of (factor, step), all six links' delays and all four flows' step together."""

    def spec(quick: bool) -> dict[str, Any]:
        base = _traced(shorten(with_controller(scenario("fig3"), controller), quick))
        delays = [units.parse_duration(link["delay"]) for link in base["links"]]
        steps = DELAY_STEPS[controller]
        rows = [(factor, step) for factor in DELAY_SCALES for step in steps]
        zipped = {f"links[{i}].delay": [f"{ns * factor / 1e6:g}ms" for factor, _ in rows] for i, ns in enumerate(delays)}
        zipped.update(_every_flow(STEP_PATH[controller], [step for _, step in rows]))
        return {"name": f"delays-{slug(controller)}", "base": base, "zip": zipped, "seeds": 1}

    return spec


def fig7b_spec(quick: bool) -> dict[str, Any]:
    return {
        "name": "fig7b",
        "base": _traced(shorten(with_controller(scenario("fig3"), "QUIC-TCP"), quick)),
        "zip": {**_every_flow("transport.quic_tcp.rho", [r for r in RHOS for _ in RHO_KAPPAS]),
                **_every_flow("transport.quic_tcp.kappa", [k for _ in RHOS for k in RHO_KAPPAS])},
        "seeds": 1,
    }


def _window_cv(exp: Experiment, key: str) -> float:
    """The largest coefficient of variation, over the flows, of a flow's window over the second
    half of run `key` (from its record's cwnd trace)."""
    record = json.loads((exp.folder / "runs" / f"{key}.json").read_text(encoding="utf-8"))
    trace = record["results"]["timeseries"]["cwnd"]
    half = record["results"]["duration_s"] / 2
    frame = pd.DataFrame({"flow": trace["flow"], "t_s": trace["t_s"], "cwnd": trace["cwnd"]})
    frame = frame[frame["t_s"] >= half]
    stats = frame.groupby("flow")["cwnd"].agg(["mean", "std"])
    return float((stats["std"] / stats["mean"]).max())


def _step_table(exp: Experiment, parameters: dict[str, str]) -> pd.DataFrame:
    """Per run: the step-size parameters (renamed by `parameters`), total rate, utility and the
    windows' largest coefficient of variation over [T/2, T]."""
    rates = rates_table(exp)
    params = exp.flows[["key", *parameters]].drop_duplicates("key")
    runs = per_run(rates, []).merge(params, on="key").rename(columns=parameters)
    runs["cv"] = [_window_cv(exp, key) for key in runs["key"]]
    return runs


def _steady(runs: pd.DataFrame, reference_total: float) -> pd.Series:
    return (runs["total"] >= 0.99 * reference_total) & (runs["cv"] <= STEADY_CV)


# Fig. 7(a)'s sweeps per start schedule: FAST's, then QUIC-TCP's as (sweep, label); kappa is per
# window computation. The paper's Fig. 7(a) is of the staggered ("asynchronous") flows.
FIG7A = {
    "synchronous": ("fig7a-fast", (("fig7a-quictcp", "QUIC-TCP rho 0.5 (kappa, FAST's cadence)"),
                                   ("fig7a-quictcp-20ms", "QUIC-TCP rho 0.5 (kappa, every 20 ms)"))),
    "staggered": ("fig7a_staggered-fast", (("fig7a_staggered-quictcp", "QUIC-TCP rho 0.5 (kappa, FAST's cadence)"),)),
}


def fig7a_targets(experiments: Mapping[str, Experiment], figures_dir: Path, schedule: str) -> tuple[list[Figure], list[Target]]:
    fast_name, quic_sweeps = FIG7A[schedule]
    fast = _step_table(experiments[fast_name], {"flows[0].transport.fast.gamma": "step"})
    quics = {label: _step_table(experiments[name], {"flows[0].transport.quic_tcp.kappa": "step"})
             for name, label in quic_sweeps}
    table = pd.concat([fast.assign(controller="FAST (gamma, every other RTT)"),
                       *(quic.assign(controller=label) for label, quic in quics.items())], ignore_index=True)
    section = "Fig. 7(a)" if schedule == "synchronous" else "Fig. 7(a) staggered"
    tag = "" if schedule == "synchronous" else f"{schedule} starts: "
    suffix = "" if schedule == "synchronous" else f"_{schedule}"
    figures = []
    for metric, what in (("total", "aggregate rate (packets/s)"), ("cv", "largest window CV over [T/2, T]")):
        png = plot_metric_vs_parameter(table, "step", metric, figures_dir / f"fig7a_{metric}{suffix}",
                                       scheme="controller", parameter_label="step size",
                                       title=f"Fig. 7(a), {schedule} starts: {what}", log_x=True)[0]
        figures.append(Figure(png, f"Fig. 7(a), {schedule} starts: {what} against the step size (per window "
                                   "computation)."))
    reference = fast.loc[fast["step"] == 1.5, "total"].mean()
    steady_fast = fast.assign(steady=_steady(fast, reference)).groupby("step")["steady"].all()
    low = steady_fast[steady_fast.index <= 2.0]
    high = steady_fast[(steady_fast.index >= 2.5) & (steady_fast.index <= 4.0)]
    rows = [
        Target(section=section, what=f"{tag}FAST: steady and full (>= 99 % of gamma 1.5's total, window CV <= 0.1) "
                                     "for every gamma in [0.01, 2.0]",
               published="unchanged for gamma in [0.01, 2.5]", unit="",
               airtcp=", ".join(f"{g:g}: {'yes' if ok else 'no'}" for g, ok in low.items()), n=len(fast),
               ok=bool(low.all())),
        Target(section=section, what=f"{tag}FAST: degrades for some gamma in [2.5, 4]", published="yes", unit="",
               airtcp=", ".join(f"{g:g}: {'steady' if ok else 'degraded'}" for g, ok in high.items()), n=len(fast),
               ok=bool(len(high) and not high.all())),
    ]
    fast_upper = _largest_steady(steady_fast)
    for (name, label), quic in zip(quic_sweeps, quics.values()):
        steady_quic = quic.assign(steady=_steady(quic, reference)).groupby("step")["steady"].all()
        quic_upper = _largest_steady(steady_quic)
        first_unsteady = steady_quic[steady_quic.index > quic_upper].index.min()
        rows.append(Target(
            section=section, what=f"{tag}largest steady step: {label} against FAST (every other RTT)",
            published="QUIC-TCP 3.3 > FAST 2.5", unit="", airtcp=f"QUIC-TCP {quic_upper:g}, FAST {fast_upper:g}",
            n=len(quic), ok=bool(quic_upper > fast_upper),
            note="the published 3.3 is at the ns-2 module's cadence, which the paper does not state",
        ))
        limit = _predicted_kappa_limit(experiments[name], quic.loc[quic["step"] == 1.5, "key"].iloc[0])
        rows.append(Target(
            section=section, what=f"{tag}{label}: largest stable kappa of the scalar bound, from the kappa 1.5 run",
            published="3.3 (largest steady kappa)", unit="", airtcp=limit, n=1, ok=None,
            note=f"kappa r (1 - r) w^(1 - 2 rho) < 2 with r = BaseRTT/AvgRTT and w over [T/2, T] of the trace; the "
                 f"grid's steady kappas end at {quic_upper:g}, the next is {first_unsteady:g}",
        ))
    return figures, rows


def _predicted_kappa_limit(exp: Experiment, key: str, rho: float = 0.5) -> float:
    """The largest kappa the linearised law allows (docs/quic_tcp.md), the smallest over the flows
    of 2 / (r (1 - r) w^(1 - 2 rho)), from run `key`'s window trace over [T/2, T]: its AvgRTT and
    BaseRTT columns give r, its cwnd column w."""
    return _predicted_step_limit(exp, key, lambda r, w: 2.0 / (r * (1.0 - r) * w ** (1.0 - 2.0 * rho)))


def _predicted_gamma_limit(exp: Experiment, key: str) -> float:
    """FAST's counterpart (docs/fast.md): with r held, w <- w - gamma ((1 - r) w - alpha) is stable
    while gamma (1 - r) < 2; the smallest 2 / (1 - r) over the flows."""
    return _predicted_step_limit(exp, key, lambda r, w: 2.0 / (1.0 - r))


def _predicted_step_limit(exp: Experiment, key: str, bound: Any) -> float:
    """The smallest `bound(r, w)` over the flows of run `key`, with r = BaseRTT/AvgRTT and w the
    window, each the mean of its trace over [T/2, T]."""
    record = json.loads((exp.folder / "runs" / f"{key}.json").read_text(encoding="utf-8"))
    trace = record["results"]["timeseries"]["cwnd"]
    frame = pd.DataFrame({k: trace[k] for k in ("flow", "t_s", "cwnd", "avg_rtt_s", "base_rtt_s")})
    frame = frame[frame["t_s"] >= record["results"]["duration_s"] / 2].dropna()
    limits = [float(bound(float((flow["base_rtt_s"] / flow["avg_rtt_s"]).mean()), float(flow["cwnd"].mean())))
              for _, flow in frame.groupby("flow")]
    return min(limits) if limits else float("nan")


def _largest_steady(steady: pd.Series, reference: float = 1.5) -> float:
    """The largest step of the run of steady steps that starts at the reference step (the paper's
    1.5) and goes up; NaN if the reference itself is not steady. Small steps are left out: below
    the reference a step is unsteady only because it has not converged by T/2, a matter of the
    run's length, not of stability."""
    largest = float("nan")
    for step, ok in steady[steady.index >= reference].sort_index().items():
        if not ok:
            break
        largest = float(step)
    return largest


def delay_sensitivity(experiments: Mapping[str, Experiment], figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    """Fig. 7(a)'s step limits against the link delays, measured and as the scalar bounds predict:
    with delays scaled by f the equilibrium r = BaseRTT/AvgRTT grows with f, so FAST's bound
    2/(1 - r) rises and QUIC-TCP's 2/(r (1 - r)) (rho 0.5) falls while r < 1/2."""
    predictors = {"FAST": _predicted_gamma_limit, "QUIC-TCP": _predicted_kappa_limit}
    measured: dict[str, dict[float, float]] = {}
    brackets: list[tuple[str, float, float, float]] = []  # (label, largest steady, bound, next step)
    points, rows = [], []
    for controller, predict in predictors.items():
        exp = experiments[f"delays-{slug(controller)}"]
        runs = _step_table(exp, {f"flows[0].{STEP_PATH[controller]}": "step", "links[4].delay": "core"})
        base_core = units.parse_duration(scenario("fig3")["links"][4]["delay"])
        runs["scale"] = runs["core"].map(lambda v: round(units.parse_duration(v) / base_core, 6))
        measured[controller] = {}
        for scale, part in runs.groupby("scale"):
            reference = part.loc[part["step"] == 1.5, "total"].mean()
            steady = part.assign(steady=_steady(part, reference)).groupby("step")["steady"].all()
            largest = _largest_steady(steady)
            unsteady = steady[steady.index > largest].index.min() if largest == largest else float("nan")
            bound = predict(exp, part.loc[part["step"] == 1.5, "key"].iloc[0])
            measured[controller][float(scale)] = largest
            brackets.append((f"{controller} x{scale:g}", largest, bound, unsteady))
            points += [{"scale": scale, "series": f"{controller}: largest steady step", "step": largest},
                       {"scale": scale, "series": f"{controller}: scalar bound", "step": bound}]
            rows.append(Target(
                section="Fig. 7(a) delays", what=f"{controller}, every delay x{scale:g}: largest steady step",
                published="(sensitivity; the paper's delays are lost)", unit="",
                airtcp=f"{largest:g} (next {unsteady:g}); scalar bound {bound:.3g}", n=len(part), ok=None,
                note="steady: >= 99 % of the step-1.5 run's total and window CV <= 0.1 over [T/2, T]; the bound is read "
                     "from the step-1.5 run's trace"))
    frame = pd.DataFrame(points).dropna()
    png = plot_metric_vs_parameter(frame, "scale", "step", figures_dir / "fig7a_delays", scheme="series",
                                   parameter_label="every link delay x", title="Fig. 7(a): step limits against the delays")[0]
    figures = [Figure(png, "Fig. 7(a) delay sensitivity: the largest steady step of FAST (gamma) and QUIC-TCP rho 0.5 "
                           "(kappa, FAST's cadence) with every link delay scaled, beside the scalar bounds read from "
                           "the traces.")]

    def trend(values: dict[float, float], rising: bool) -> bool:
        ordered = [values[k] for k in sorted(values)]
        return all((b >= a) if rising else (b <= a) for a, b in zip(ordered, ordered[1:]))

    def listed(values: dict[float, float]) -> str:
        return ", ".join(f"x{k:g}: {v:g}" for k, v in sorted(values.items()))

    fast, quic = measured["FAST"], measured["QUIC-TCP"]
    rows += [
        Target(section="Fig. 7(a) delays", what="FAST's largest steady gamma does not fall as the delays grow",
               published="gamma limit 2.5 at the lost delays", unit="", airtcp=listed(fast), n=len(fast),
               ok=trend(fast, rising=True), note="the bound 2/(1 - r) rises with r = BaseRTT/AvgRTT"),
        Target(section="Fig. 7(a) delays", what="QUIC-TCP's largest steady kappa does not rise as the delays grow",
               published="kappa limit 3.3 at the lost delays", unit="", airtcp=listed(quic), n=len(quic),
               ok=trend(quic, rising=False), note="the bound 2/(r (1 - r)) falls with r while r < 1/2"),
        Target(section="Fig. 7(a) delays", what="QUIC-TCP's largest steady step above FAST's at every delay scale",
               published="QUIC-TCP 3.3 > FAST 2.5", unit="",
               airtcp=", ".join(f"x{k:g}: {quic[k]:g} > {fast[k]:g}" for k in sorted(fast) if k in quic),
               n=len(fast), ok=all(quic.get(k, float("nan")) > v for k, v in fast.items())),
        Target(section="Fig. 7(a) delays", what="the scalar bound lies between the largest steady step and the next one",
               published="(the mechanism of Fig. 7(a)'s limits)", unit="",
               airtcp=", ".join(f"{label}: {low:g} <= {bound:.3g} < {high:g}" for label, low, bound, high in brackets),
               n=len(brackets), ok=all(low <= bound < high for _, low, bound, high in brackets),
               note="held r, one flow: FAST gamma (1 - r) < 2, QUIC-TCP kappa r (1 - r) w^(1 - 2 rho) < 2"),
    ]
    return figures, rows


def fig7b_targets(exp: Experiment, reference_utility: float, figures_dir: Path) -> tuple[list[Figure], list[Target]]:
    runs = _step_table(exp, {"flows[0].transport.quic_tcp.rho": "rho", "flows[0].transport.quic_tcp.kappa": "kappa"})
    runs["good"] = _steady(runs, SHARED_LINK) & (runs["utility"] >= reference_utility - 0.001 * abs(reference_utility))
    bounds = []
    for rho, part in runs.groupby("rho"):
        good = part.loc[part["good"], "kappa"]
        bounds.append({"rho": float(rho), "lower": float(good.min()) if len(good) else float("nan"),
                       "upper": float(good.max()) if len(good) else float("nan")})
    frame = pd.DataFrame(bounds)
    figures = []
    long = pd.concat([frame.assign(bound="upper", kappa=frame["upper"]), frame.assign(bound="lower", kappa=frame["lower"])])
    png = plot_metric_vs_parameter(long.dropna(subset=["kappa"]), "rho", "kappa", figures_dir / "fig7b_bounds",
                                   scheme="bound", parameter_label="rho", title="Fig. 7(b): good kappa (FAST's cadence)")[0]
    figures.append(Figure(png, "Fig. 7(b): the smallest and largest good kappa against rho (QUIC-TCP at FAST's cadence; a "
                               "good run fills the link, keeps its windows steady and its utility within 0.1 %)."))
    fit = frame.dropna(subset=["upper"])
    slope = float("nan")
    if len(fit) >= 2:
        x, y = fit["rho"].to_numpy(), fit["upper"].map(math.log10).to_numpy()
        slope = float(((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum())
    rows = [
        Target(section="Fig. 7(b)", what="slope of log10(largest good kappa) against rho", published=4.9, unit="per unit rho",
               airtcp=slope, n=len(runs), tolerance="±30 %", ok=bool(abs(slope / 4.9 - 1) <= 0.3),
               note="published as a plot; 4.9 = 2 log10 w* of the scalar bound kappa_max ~ w^(2 rho - 1). Grid steps are "
                    "decades, so the bounds are coarse"),
    ]
    one = frame[frame["rho"] == 1.0]
    if len(one):
        span = math.log10(one["upper"].iloc[0] / one["lower"].iloc[0]) if one["lower"].iloc[0] > 0 else float("nan")
        rows.append(Target(section="Fig. 7(b)", what="rho 1: decades of good kappa", published=">= 2 (\"three orders\")",
                           unit="decades", airtcp=span, n=len(runs), tolerance=">= 2", ok=bool(span >= 2)))
    return figures, rows
