"""Plots of a results directory written by `airtcp run`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from airtcp.errors import ScenarioError

__all__ = ["plot_goodput"]


def plot_goodput(directory: Path | str) -> Path:
    """Draws goodput over time per flow from `goodput.parquet` into `goodput.png`; returns its path.

    Raises `ScenarioError` (path: the directory or file) if the directory does not hold results.
    """
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory = Path(directory)
    source = directory / "goodput.parquet"
    if not directory.is_dir():
        raise ScenarioError(str(directory), "no such directory (write one with `airtcp run FILE --out DIR`)")
    if not source.is_file():
        if (directory / "summary.json").is_file():  # a run writes no file for an empty table
            raise ScenarioError(str(source), "the run recorded no goodput (it has no flows): nothing to draw")
        raise ScenarioError(str(source), "missing (write it with `airtcp run FILE --out DIR`)")
    try:
        table = pq.read_table(source)
    except (OSError, pa.ArrowException) as error:
        raise ScenarioError(str(source), f"cannot read: {error}") from None
    missing = {"flow", "t_s", "goodput_bps"} - set(table.column_names)
    if missing:
        raise ScenarioError(str(source), f"missing columns: {', '.join(sorted(missing))}")
    goodput = table.to_pandas()

    summary = _read_summary(directory)
    bin_s = _bin_width_s(summary)
    figure, axes = plt.subplots(figsize=(8, 4.5), layout="constrained")
    try:
        # Flows in order of first appearance (the core lists them in scenario order).
        for flow in dict.fromkeys(goodput["flow"]):
            rows = goodput[goodput["flow"] == flow].sort_values("t_s")
            times = list(rows["t_s"])
            kbps = list(rows["goodput_bps"] / 1000)
            if times and bin_s:
                # Each value is the mean over the bin starting at t_s: draw it as a step, and
                # close the last bin at its end rather than at its start.
                times.append(times[-1] + bin_s)
                kbps.append(kbps[-1])
            axes.step(times, kbps, where="post", label=str(flow))
        axes.set_xlabel("time (s)")
        axes.set_ylabel("goodput (kbit/s)")
        axes.set_title(f"Goodput per flow: {summary.get('name', directory.name)}")
        axes.set_ylim(bottom=0)
        axes.grid(True, alpha=0.3)
        if len(goodput):
            axes.legend(title="flow")
        target = directory / "goodput.png"
        partial = directory / ".goodput.png.partial"
        figure.savefig(partial, dpi=120, format="png")
        os.replace(partial, target)  # never leave a truncated image under the final name
    finally:
        plt.close(figure)
    return target


def _read_summary(directory: Path) -> dict[str, Any]:
    """summary.json of the directory, or {} if it is missing or unreadable (the plot can do without)."""
    try:
        summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return summary if isinstance(summary, dict) else {}


def _bin_width_s(summary: dict[str, Any]) -> float | None:
    """The goodput bin width from the normalised scenario in the summary, in seconds."""
    try:
        return float(summary["scenario"]["metrics"]["bin"]) / 1e9
    except (KeyError, TypeError, ValueError):
        return None
