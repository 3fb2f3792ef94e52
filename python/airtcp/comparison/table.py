"""The comparison's table: per scenario and scheme, the total goodput, Jain's index, the utility
and the fractions of the optimum, each a mean over the seeds with its 95 % confidence interval,
and the sentence the row supports.

Per run, a flow's goodput is its mean over the goodput bins after the first 20 % of the run
(slow start and route discovery left out). With `x_s` the flows' goodputs (bit/s) and `x*` the
optimum's (`airtcp.comparison.optimum`, for the same seed: a random topology is placed per seed):

- total `Σ x_s`, and its fraction of the largest total the model carries;
- Jain's index `(Σ x)^2 / (n Σ x^2)`;
- utility `Σ log x_s`, and its fraction as `exp((Σ log x_s - Σ log x*_s) / n)`, the geometric
  mean of `x_s / x*_s`: 1 at the proportionally fair optimum, below it elsewhere in the region
  (a flow starved to 0 makes it 0);
- against the family's baseline (`schemes.BASELINES`), the ratio of totals per seed (paired).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from airtcp.comparison.optimum import Optimum, optimum_of
from airtcp.comparison.plan import ScenarioPlan
from airtcp.comparison.schemes import BASELINES, SCHEMES, Scheme
from airtcp.experiments.analysis import Experiment, mean_ci

__all__ = ["scenario_table", "WARM_UP_FRACTION"]

WARM_UP_FRACTION = 0.2


def _steady_goodput(exp: Experiment, key: str) -> dict[str, float]:
    """Per flow of run `key`, its mean goodput (bit/s) after the warm-up."""
    series = exp.goodput[exp.goodput["key"] == key] if len(exp.goodput) else exp.goodput
    flows = exp.flows[exp.flows["key"] == key]
    found: dict[str, float] = {}
    late = series.iloc[0:0]
    if len(series):
        warm = WARM_UP_FRACTION * float(series["t_s"].max())
        late = series[series["t_s"] > warm]
        for flow, part in late.groupby("flow", sort=False):
            found[str(flow)] = float(part["goodput_bps"].mean())
    for _, row in flows.iterrows():
        # A flow absent from bins after the warm-up carried nothing then; without such bins at all
        # (bins as long as the run) the whole run's goodput stands in.
        found.setdefault(str(row["id"]), 0.0 if len(late) else float(row["goodput_bps"]))
    return found


def _jain(values: Sequence[float]) -> float:
    xs = np.asarray(values, dtype=float)
    return float(xs.sum() ** 2 / (len(xs) * (xs**2).sum())) if len(xs) and np.any(xs) else 0.0


def _run_metrics(goodput: Mapping[str, float], opt: Optimum) -> dict[str, float]:
    xs = list(goodput.values())
    total = float(sum(xs))
    metrics = {"total_mbps": total / 1e6, "jain": _jain(xs)}
    utility = sum(math.log(x) for x in xs) if xs and min(xs) > 0 else -math.inf
    metrics["utility"] = utility
    if opt.total_bps:
        metrics["total_fraction"] = total / opt.total_bps
    if opt.utility is not None and xs:
        metrics["utility_fraction"] = 0.0 if utility == -math.inf else math.exp((utility - opt.utility) / len(xs))
    return metrics


def _summary(values: Sequence[float]) -> dict[str, Any] | None:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return None
    mean, half, n = mean_ci(finite)
    return {"mean": mean, "ci95": None if math.isnan(half) else half, "n": n}


def _optima(plan: ScenarioPlan, seeds: Sequence[int]) -> dict[int, Optimum]:
    """The optimum per seed (computed once per distinct layout)."""
    from airtcp.comparison.needs import layout_of
    from airtcp.comparison.plan import _base_of
    from airtcp.scenario.schema import load_scenario

    _, base, _ = _base_of(plan.base)
    cache: dict[str, Optimum] = {}
    found = {}
    for seed in seeds:
        scenario = load_scenario(base, seed=seed)
        layout = layout_of(scenario)
        text = json.dumps(layout, sort_keys=True)
        if text not in cache:
            cache[text] = optimum_of(scenario, layout, plan.facts.kind)
        found[seed] = cache[text]
    return found


def scenario_table(plan: ScenarioPlan, exp: Experiment, schemes: Sequence[Scheme]) -> dict[str, Any]:
    """The comparison of one scenario from its finished sweep: every scheme of `schemes` a row,
    measured, failed or not applicable (with the reason)."""
    runs = exp.runs
    seeds = sorted({int(s) for s in runs["seed"]}) if len(runs) else []
    optima = _optima(plan, seeds)
    per_run: dict[tuple[str, int], dict[str, float]] = {}
    errors: dict[str, str] = {}
    for _, run in runs.iterrows():
        scheme, seed = str(run["name"]), int(run["seed"])
        if run["status"] != "done":
            errors.setdefault(scheme, str(run.get("error") or "failed"))
            continue
        per_run[(scheme, seed)] = _run_metrics(_steady_goodput(exp, str(run["key"])), optima[seed])
    reasons = dict(plan.not_applicable)
    notes = dict(plan.notes)
    applicable = {scheme.key for scheme in plan.schemes}
    rows = []
    for scheme in schemes:
        row: dict[str, Any] = {"scheme": scheme.key, "label": scheme.label, "paper": scheme.paper}
        if scheme.key not in applicable:
            row.update(status="not applicable", reason=reasons.get(scheme.key, "not selected"))
            rows.append(row)
            continue
        measured = {seed: m for (key, seed), m in per_run.items() if key == scheme.key}
        if not measured:
            row.update(status="failed", reason=errors.get(scheme.key, "no finished run"))
            rows.append(row)
            continue
        row["status"] = "ok" if scheme.key not in errors else "partial"
        if scheme.key in errors:
            row["reason"] = errors[scheme.key]
        if scheme.key in notes:
            row["note"] = notes[scheme.key]
        for metric in ("total_mbps", "jain", "utility", "total_fraction", "utility_fraction"):
            row[metric] = _summary([m.get(metric, math.nan) for m in measured.values()])
        baseline = BASELINES.get(scheme.family)
        # Named on every measured row, so a report can say why a ratio is missing (the row is
        # the baseline, or the baseline has no finished run with traffic on these seeds).
        row["baseline"] = baseline
        if baseline is not None and baseline != scheme.key:
            ratios = [m["total_mbps"] / per_run[(baseline, seed)]["total_mbps"]
                      for seed, m in measured.items()
                      if (baseline, seed) in per_run and per_run[(baseline, seed)]["total_mbps"] > 0]
            if ratios:
                row["vs_baseline"] = _summary(ratios)
        row["sentence"] = _sentence(plan.slug, scheme, row)
        rows.append(row)
    first = optima[seeds[0]] if seeds else Optimum("none", unavailable="no run finished")
    return {
        "slug": plan.slug, "title": plan.title, "kind": plan.facts.kind, "facts": plan.facts.__dict__,
        "seeds": seeds, "optimum": first.to_json(),
        "optimum_total_mbps": _summary([o.total_bps / 1e6 for o in optima.values() if o.total_bps]),
        "rows": rows,
    }


def _label(key: str) -> str:
    return next((scheme.label for scheme in SCHEMES if scheme.key == key), key)


def _sentence(title: str, scheme: Scheme, row: Mapping[str, Any]) -> str:
    """What the row supports, in one sentence, e.g. "On diamond_lossy, TCP-aware backpressure
    carries 1.40x TCP over AODV's total at Jain 0.97 (62 % of the optimum total)"."""
    total, jain = row["total_mbps"], row["jain"]
    parts = []
    vs = row.get("vs_baseline")
    if vs is not None:
        ci = f" ± {vs['ci95']:.2f}" if vs.get("ci95") is not None else ""
        parts.append(f"On {title}, {scheme.label} carries {vs['mean']:.2f}x{ci} {_label(row['baseline'])}'s total")
    else:
        parts.append(f"On {title}, {scheme.label} carries {total['mean']:.3g} Mbit/s in total")
    text = parts[0] + (f" at Jain {jain['mean']:.2f}" if jain else "")
    extras = []
    if row.get("total_fraction"):
        extras.append(f"{100 * row['total_fraction']['mean']:.0f} % of the optimum total")
    if row.get("utility_fraction"):
        extras.append(f"{100 * row['utility_fraction']['mean']:.0f} % of the fair optimum's per-flow rates (geometric mean)")
    return text + (f" ({'; '.join(extras)})" if extras else "") + "."


def frame_of(tables: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """All scenarios' rows as one flat table (means only), for printing and tests."""
    records = []
    for table in tables:
        for row in table["rows"]:
            flat = {"scenario": table["slug"], "scheme": row["scheme"], "status": row["status"]}
            for metric in ("total_mbps", "jain", "total_fraction", "utility_fraction", "vs_baseline"):
                value = row.get(metric)
                flat[metric] = value["mean"] if isinstance(value, Mapping) else None
            records.append(flat)
    return pd.DataFrame(records)
