"""Analysis of an experiment folder (docs/sweeps.md): tables as DataFrames, means with 95 %
confidence intervals over seeds, Jain's fairness index, CDFs, improvement over a baseline.

```python
from airtcp.experiments.analysis import load_experiment, summarize, improvement
exp = load_experiment("out/sweep")
table = summarize(exp.flows, by=["links[0].loss.per", "flows[0].transport.cc"], metric="goodput_bps")
gain = improvement(table, scheme="flows[0].transport.cc", baseline="reno")
```

Parameter columns carry their `--set` path as name (`links[0].loss.per`) and their decoded value.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["Experiment", "load_experiment", "t_quantile_975", "mean_ci", "summarize", "jain", "cdf", "improvement"]

_PARAM = "param:"

@functools.lru_cache(maxsize=256)
def t_quantile_975(dof: int) -> float:
    """The 0.975 quantile of Student's t with `dof` degrees of freedom (the two-sided 95 %
    critical value), from SciPy's inverse of the t distribution (`scipy.special.stdtrit`; the
    special functions only, not `scipy.stats`, which takes a second to import)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {dof}")
    from scipy.special import stdtrit  # imported on the first interval: a quarter of a second

    return float(stdtrit(dof, 0.975))


def mean_ci(values: Iterable[float]) -> tuple[float, float, int]:
    """Mean, half-width of its 95 % confidence interval (t-based; NaN for one value), count."""
    xs = np.asarray([v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))], dtype=float)
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, 0
    if n == 1:
        return float(xs[0]), math.nan, 1
    half = t_quantile_975(n - 1) * float(xs.std(ddof=1)) / math.sqrt(n)
    return float(xs.mean()), half, n


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 for equal shares, 1/n for one taker."""
    xs = np.asarray(list(values), dtype=float)
    if len(xs) == 0 or not np.any(xs):
        return math.nan
    return float(xs.sum() ** 2 / (len(xs) * (xs**2).sum()))


def cdf(values: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """The empirical CDF: sorted values and the fraction of values at or below each."""
    xs = np.sort(np.asarray(list(values), dtype=float))
    return xs, np.arange(1, len(xs) + 1) / len(xs)


@dataclass
class Experiment:
    """An experiment folder's tables, with parameters as columns."""

    folder: Path
    runs: pd.DataFrame
    flows: pd.DataFrame
    goodput: pd.DataFrame
    params: list[str]


def load_experiment(folder: str | Path) -> Experiment:
    """Reads `runs`, `flows` and `goodput` of a sweep's folder; flows and goodput rows get their
    run's parameters and status."""
    folder = Path(folder)
    if not (folder / "runs.parquet").is_file():
        raise FileNotFoundError(f"{str(folder)!r} holds no runs.parquet (not a sweep folder?)")
    runs = pd.read_parquet(folder / "runs.parquet")
    params = [c[len(_PARAM):] for c in runs.columns if c.startswith(_PARAM)]
    for name in params:
        runs[name] = runs.pop(_PARAM + name).map(json.loads)
    keys = runs[["key", "status", *params]]
    flows = pd.read_parquet(folder / "flows.parquet")
    goodput = pd.read_parquet(folder / "goodput.parquet")
    if len(flows):
        flows = flows.merge(keys, on="key", how="left")
    if len(goodput):
        goodput = goodput.merge(keys, on="key", how="left")
    return Experiment(folder, runs, flows, goodput, params)


def summarize(frame: pd.DataFrame, by: Sequence[str], metric: str) -> pd.DataFrame:
    """Mean of `metric` over the rows of each `by` group (e.g. seeds) with its 95 % confidence
    half-width: columns `by..., mean, ci95, n`."""
    rows = []
    for group, part in frame.groupby(list(by), sort=False, dropna=False):
        mean, half, n = mean_ci(part[metric])
        values = group if isinstance(group, tuple) else (group,)
        rows.append({**dict(zip(by, values)), "mean": mean, "ci95": half, "n": n})
    return pd.DataFrame(rows)


def improvement(summary: pd.DataFrame, scheme: str, baseline: object, value: str = "mean") -> pd.DataFrame:
    """Percent improvement of every scheme's `value` over the baseline's in the same group (the
    other columns of `summary` except `value`, `ci95` and `n`): 100 (x / x_baseline - 1)."""
    keys = [c for c in summary.columns if c not in (scheme, value, "ci95", "n")]
    base = summary.loc[summary[scheme] == baseline, [*keys, value]].rename(columns={value: "_baseline"})
    if base.empty:
        raise ValueError(f"no rows with {scheme} = {baseline!r}")
    merged = summary.merge(base, on=keys, how="left") if keys else summary.assign(_baseline=base["_baseline"].iloc[0])
    merged["improvement_pct"] = 100.0 * (merged[value] / merged["_baseline"] - 1.0)
    return merged.drop(columns=["_baseline"])
