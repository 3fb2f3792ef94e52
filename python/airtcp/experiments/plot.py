"""Plots of a results directory written by `airtcp run`: one figure per recorded time series.

- `goodput.png` from `goodput.parquet`: goodput per flow per bin (always recorded);
- `cwnd.png` from `cwnd.parquet` (`metrics.trace_cwnd`): cwnd per flow, ssthresh dotted where
  it is finite;
- `rtt.png` from `rtt.parquet` (`metrics.trace_rtt`): every RTT sample per flow, the smoothed RTT
  as a line;
- `queues.png` from `queue_trace.parquet` (`metrics.trace_queues`): packets waiting per queue
  (queues that never held a packet are left out, and said so in the legend's title).

A run writes no file for an empty table (docs/results.md), so a trace that was not asked for
draws nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airtcp.errors import ScenarioError

__all__ = ["PLOTS", "plot_goodput", "plot_run"]


@dataclass(frozen=True)
class _Plot:
    """One figure: the table it reads, the columns it needs, how it draws."""

    table: str
    columns: tuple[str, ...]
    draw: Callable[[Any, Any, dict[str, Any]], None]  # (axes, frame, summary)
    title: str


def _draw_goodput(axes: Any, frame: Any, summary: dict[str, Any]) -> None:
    bin_s = _bin_width_s(summary)
    # Flows in order of first appearance (the core lists them in scenario order).
    for flow in dict.fromkeys(frame["flow"]):
        rows = frame[frame["flow"] == flow].sort_values("t_s")
        times = list(rows["t_s"])
        kbps = list(rows["goodput_bps"] / 1000)
        if times and bin_s:
            # Each value is the mean over the bin starting at t_s: draw it as a step, and close
            # the last bin at its end rather than at its start.
            times.append(times[-1] + bin_s)
            kbps.append(kbps[-1])
        axes.step(times, kbps, where="post", label=str(flow))
    axes.set_ylabel("goodput (kbit/s)")
    axes.legend(title="flow")


def _draw_cwnd(axes: Any, frame: Any, summary: dict[str, Any]) -> None:
    for flow in dict.fromkeys(frame["flow"]):
        rows = frame[frame["flow"] == flow].sort_values("t_s")
        (line,) = axes.step(rows["t_s"], rows["cwnd"], where="post", label=f"{flow} cwnd")
        finite = rows[rows["ssthresh"] < 1e9]  # the core caps an unbounded ssthresh at 1e9
        if len(finite):
            axes.step(finite["t_s"], finite["ssthresh"], where="post", linestyle=":", color=line.get_color(),
                      label=f"{flow} ssthresh")
    axes.set_ylabel("segments")
    axes.legend(title="flow")


def _draw_rtt(axes: Any, frame: Any, summary: dict[str, Any]) -> None:
    for flow in dict.fromkeys(frame["flow"]):
        rows = frame[frame["flow"] == flow].sort_values("t_s")
        points = axes.plot(rows["t_s"], rows["rtt_s"] * 1000, ".", markersize=2, alpha=0.4)[0]
        axes.plot(rows["t_s"], rows["srtt_s"] * 1000, color=points.get_color(), label=f"{flow} (dots: samples, "
                  "line: smoothed)")
    axes.set_ylabel("RTT (ms)")
    axes.legend(title="flow")


def _draw_queues(axes: Any, frame: Any, summary: dict[str, Any]) -> None:
    queues = list(dict.fromkeys(frame["queue"]))
    used = [q for q in queues if frame.loc[frame["queue"] == q, "packets"].max() > 0]
    for queue in used:
        rows = frame[frame["queue"] == queue].sort_values("t_s")
        axes.step(rows["t_s"], rows["packets"], where="post", label=str(queue))
    axes.set_ylabel("packets waiting")
    idle = len(queues) - len(used)
    if used:
        axes.legend(title="queue" + (f" ({idle} never used, not drawn)" if idle else ""))


#: Every figure `plot_run` can draw, by output file stem.
PLOTS = {
    "goodput": _Plot("goodput", ("flow", "t_s", "goodput_bps"), _draw_goodput, "Goodput per flow"),
    "cwnd": _Plot("cwnd", ("flow", "t_s", "cwnd", "ssthresh"), _draw_cwnd, "Congestion window per flow"),
    "rtt": _Plot("rtt", ("flow", "t_s", "rtt_s", "srtt_s"), _draw_rtt, "RTT per flow"),
    "queues": _Plot("queue_trace", ("queue", "t_s", "packets"), _draw_queues, "Queue occupancy"),
}


def plot_run(directory: Path | str) -> list[Path]:
    """Draws every recorded time series of a run directory (`PLOTS`) into DIRECTORY/STEM.png;
    returns the paths written, goodput first.

    Raises `ScenarioError` (path: the directory or file) if the directory does not hold results,
    or if a table is damaged."""
    directory = Path(directory)
    written = [plot_goodput(directory)]
    for stem, plot in PLOTS.items():
        frame = _read(directory / f"{plot.table}.parquet", plot.columns) if stem != "goodput" else None
        if frame is not None:  # None: not recorded (a run writes no file for an empty table)
            written.append(_draw(directory, stem, plot, frame))
    return written


def plot_goodput(directory: Path | str) -> Path:
    """Draws goodput over time per flow from `goodput.parquet` into `goodput.png`; returns its path
    (the first figure of `plot_run`, alone)."""
    directory = Path(directory)
    goodput = directory / "goodput.parquet"
    if not directory.is_dir():
        raise ScenarioError(str(directory), "no such directory (write one with `airtcp run FILE --out DIR`)")
    frame = _read(goodput, PLOTS["goodput"].columns)
    if frame is None:
        if (directory / "summary.json").is_file():  # a run writes no file for an empty table
            raise ScenarioError(str(goodput), "the run recorded no goodput (it has no flows): nothing to draw")
        raise ScenarioError(str(goodput), "missing (write it with `airtcp run FILE --out DIR`)")
    return _draw(directory, "goodput", PLOTS["goodput"], frame)


def _read(source: Path, columns: tuple[str, ...]) -> Any:
    """The table as a DataFrame, or None if the run has no such file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not source.is_file():
        return None
    try:
        table = pq.read_table(source)
    except (OSError, pa.ArrowException) as error:
        raise ScenarioError(str(source), f"cannot read: {error}") from None
    missing = set(columns) - set(table.column_names)
    if missing:
        raise ScenarioError(str(source), f"missing columns: {', '.join(sorted(missing))}")
    return table.to_pandas()


def _draw(directory: Path, stem: str, plot: _Plot, frame: Any) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt

    summary = _read_summary(directory)
    figure, axes = plt.subplots(figsize=(8, 4.5), layout="constrained")
    try:
        if len(frame):
            plot.draw(axes, frame, summary)
        axes.set_xlabel("time (s)")
        axes.set_title(f"{plot.title}: {summary.get('name', directory.name)}")
        axes.set_ylim(bottom=0)
        axes.grid(True, alpha=0.3)
        target = directory / f"{stem}.png"
        partial = directory / f".{stem}.png.partial"
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
