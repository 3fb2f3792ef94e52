"""Figures of an experiment (a sweep folder): a metric against a parameter with 95 % confidence
bars, one line per scheme, optionally beside reference values (a paper's or a model's); goodput
against time per flow; and CDFs. Each figure is written as PNG and SVG.

Axis labels carry units: known metrics (`goodput_bps` is shown in kb/s, `mean_rtt_s` in ms) are
scaled and labelled from `METRICS`; anything else is plotted as stored, labelled by its name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from airtcp.experiments.analysis import cdf, summarize

__all__ = ["METRICS", "plot_metric_vs_parameter", "plot_goodput_vs_time", "plot_cdf"]

# metric column -> (axis label, factor applied to the stored values)
METRICS = {
    "goodput_bps": ("goodput (kb/s)", 1e-3),
    "throughput_bps": ("throughput (kb/s)", 1e-3),
    "mean_rtt_s": ("mean RTT (ms)", 1e3),
    "retransmissions": ("retransmissions (segments)", 1.0),
    "timeouts": ("timeouts (count)", 1.0),
    "jain": ("Jain's fairness index", 1.0),
}


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out: Path) -> list[Path]:  # type: ignore[no-untyped-def]
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = [out.with_suffix(".png"), out.with_suffix(".svg")]
    for path in paths:
        tmp = path.with_name(f".{path.name}.tmp{path.suffix}")
        fig.savefig(tmp, dpi=120, bbox_inches="tight")
        tmp.replace(path)
    return paths


def _finish(plt, fig, ax, title: str | None, out: str | Path) -> list[Path]:  # type: ignore[no-untyped-def]
    """Title, grid, PNG + SVG, and the figure closed whatever happens."""
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    try:
        return _save(fig, Path(out))
    finally:
        plt.close(fig)


def _label(name: str) -> tuple[str, float]:
    return METRICS.get(name, (name, 1.0))


def plot_metric_vs_parameter(
    frame: pd.DataFrame,
    parameter: str,
    metric: str,
    out: str | Path,
    *,
    scheme: str | None = None,
    parameter_label: str | None = None,
    title: str | None = None,
    references: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    log_x: bool = False,
) -> list[Path]:
    """Mean of `metric` over the rows at each value of `parameter` (e.g. over seeds), with 95 %
    confidence bars, one line per value of `scheme`; `references` adds named (x, y) series in
    the metric's stored unit (published or model values), drawn dashed. Writes OUT.png and
    OUT.svg."""
    plt = _pyplot()
    by = [parameter] if scheme is None else [scheme, parameter]
    table = summarize(frame, by=by, metric=metric)
    label, factor = _label(metric)
    fig, ax = plt.subplots(figsize=(6, 4))
    groups = [(None, table)] if scheme is None else list(table.groupby(scheme, sort=False))
    for name, part in groups:
        part = part.sort_values(parameter)
        errors = np.nan_to_num(part["ci95"].to_numpy(dtype=float)) * factor
        ax.errorbar(part[parameter], part["mean"] * factor, yerr=errors, marker="o", capsize=3,
                    label="airtcp" if name is None else str(name))
    for name, (xs, ys) in (references or {}).items():
        ax.plot(list(xs), [y * factor for y in ys], linestyle="--", marker="x", color="0.35", label=name)
    ax.set_xlabel(parameter_label or parameter)
    ax.set_ylabel(f"{label}, mean and 95 % CI")
    if log_x:
        ax.set_xscale("symlog", linthresh=min((x for x in table[parameter] if x > 0), default=1.0))
    if scheme is not None or references:
        ax.legend(title=scheme)
    return _finish(plt, fig, ax, title, out)


def plot_goodput_vs_time(goodput: pd.DataFrame, out: str | Path, *, title: str | None = None) -> list[Path]:
    """Goodput against time, one line per flow, each bin averaged over the rows (seeds) that have
    it; `goodput` has the columns flow, t_s, goodput_bps (a run's or a sweep's goodput table).
    Writes OUT.png and OUT.svg."""
    plt = _pyplot()
    label, factor = _label("goodput_bps")
    fig, ax = plt.subplots(figsize=(7, 4))
    if len(goodput):
        mean = goodput.groupby(["flow", "t_s"], sort=False)["goodput_bps"].mean().reset_index()
        for flow, part in mean.groupby("flow", sort=False):
            part = part.sort_values("t_s")
            ax.step(part["t_s"], part["goodput_bps"] * factor, where="post", label=str(flow))
        ax.legend(title="flow")
    ax.set_xlabel("time (s)")
    seeds = goodput["seed"].nunique() if "seed" in goodput.columns and len(goodput) else 1
    ax.set_ylabel(label if seeds <= 1 else f"{label}, mean of {seeds} seeds")
    return _finish(plt, fig, ax, title, out)


def plot_lines(
    lines: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    out: str | Path,
    *,
    x_label: str,
    y_label: str,
    references: Mapping[str, float] | None = None,
    title: str | None = None,
) -> list[Path]:
    """One line per entry of `lines` (label -> (x, y)), and a dashed horizontal line per
    `references` entry (label -> y); e.g. an iteration's traces against the optimum. Writes
    OUT.png and OUT.svg."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, (x, y) in lines.items():
        ax.plot(x, y, label=label, linewidth=1.0)
    for label, y in (references or {}).items():
        ax.axhline(y, linestyle="--", color="0.4", linewidth=0.8, label=label)
    if lines or references:
        ax.legend()
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    return _finish(plt, fig, ax, title, out)


def plot_cdf(
    samples: dict[str, Sequence[float]], metric: str, out: str | Path, *, title: str | None = None
) -> list[Path]:
    """Empirical CDFs of `metric`, one line per named sample. Writes OUT.png and OUT.svg."""
    plt = _pyplot()
    label, factor = _label(metric)
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in samples.items():
        x, f = cdf(values)
        ax.step(x * factor, f, where="post", label=name)
    ax.set_xlabel(label)
    ax.set_ylabel("fraction of samples at or below (CDF)")
    ax.set_ylim(0, 1.02)
    ax.legend()
    return _finish(plt, fig, ax, title, out)
