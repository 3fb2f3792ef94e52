"""The results of a run: totals, tables, time series, and writing them to a directory.

The simulator core returns one JSON document (see the core's `RunResults`). This module splits it
into what is reproducible (`summary`: identical for identical inputs and seed), what is not
(`timing`: wall-clock figures) and tables (per-flow totals, drops, queues and the time series),
which are written as Parquet files.

A flow over paper 000's NC layer carries the layer's counters in the core's JSON as
`"nc": {"source": {...}, "sink": {...}}` (absent for other flows); the `flows` table has them as
flat `nc_<counter>` columns, null for flows without the layer (`flow_row`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from airtcp.arrow_arrays import arrow_array
from airtcp.atomic_dir import atomic_directory

if TYPE_CHECKING:
    # pandas is only needed once a table is asked for as a DataFrame (Arrow imports it then);
    # not importing it up front keeps the command line quick to start.
    import pandas as pd

__all__ = ["NC_COLUMNS", "Results", "TABLES", "conservation_problem", "flow_row"]

# Column types of the tables. Fixing them keeps the Parquet schema the same whether or not a table
# has rows or a column has nulls; columns the core adds later are written with inferred types.
_FLOW_COLUMNS: dict[str, pa.DataType] = {
    "id": pa.string(),
    "src": pa.string(),
    "dst": pa.string(),
    "transport": pa.string(),
    "cc": pa.string(),
    "sack": pa.bool_(),
    "start_s": pa.float64(),
    "stop_s": pa.float64(),
    "bytes_delivered": pa.uint64(),
    "goodput_bps": pa.float64(),
    "completion_s": pa.float64(),
    "packets_sent": pa.uint64(),
    "retransmissions": pa.uint64(),
    "recoveries": pa.uint64(),
    "timeouts": pa.uint64(),
    "mean_rtt_s": pa.float64(),
}
# The NC layer's counters (docs/nc_layer.md, "Counters in the results"), by side of the core's
# `nc` object; column `nc_<counter>`. The names do not repeat across the two sides.
_NC_COUNTERS = {
    "source": (
        "blocks",
        "coded_sent",
        "repairs_requested",
        "repairs_retransmitted",
        "absorbed",
        "requests_received",
        "acks_received",
        "tcp_acks",
        "edge_drops",
    ),
    "sink": (
        "coded_received",
        "innovative",
        "non_innovative",
        "late",
        "acks_sent",
        "requests_sent",
        "blocks_decoded",
        "segments_delivered",
    ),
}
NC_COLUMNS = tuple(f"nc_{name}" for side in _NC_COUNTERS.values() for name in side)
_FLOW_COLUMNS.update(dict.fromkeys(NC_COLUMNS, pa.uint64()))
_DROP_COLUMNS = {"queue": pa.string(), "reason": pa.string(), "packets": pa.uint64()}
_QUEUE_COLUMNS = {
    "queue": pa.string(),
    "enqueued": pa.uint64(),
    "transmitted": pa.uint64(),
    "max_backlog": pa.uint32(),
}
_BACKPRESSURE_COLUMNS = {"node": pa.string(), "overflow_drops": pa.uint64(), "control_sent": pa.uint64()}
_LINK_COLUMNS = {
    "from": pa.string(),
    "to": pa.string(),
    "attempts": pa.uint64(),
    "answered": pa.uint64(),
    "delivery_ratio": pa.float64(),
    "overheard": pa.uint64(),
}
_DOWNLINK_COLUMNS = {
    "user": pa.string(),
    "mean_snr_db": pa.float64(),
    "slots_scheduled": pa.uint64(),
    "outage_slots": pa.uint64(),
    "mean_rate_bps": pa.float64(),
    "packets_served": pa.uint64(),
    "bytes_served": pa.uint64(),
    "packets_erased": pa.uint64(),
    "packets_dropped": pa.uint64(),
    "unused_bytes": pa.uint64(),
}
_GOODPUT_COLUMNS = {"flow": pa.string(), "t_s": pa.float64(), "goodput_bps": pa.float64()}
_RTT_COLUMNS = {"flow": pa.string(), "t_s": pa.float64(), "rtt_s": pa.float64(), "srtt_s": pa.float64()}
_CWND_COLUMNS = {
    "flow": pa.string(),
    "t_s": pa.float64(),
    "cwnd": pa.float64(),
    "ssthresh": pa.float64(),
    "in_flight": pa.float64(),
}

# Table name -> file written by `Results.write`.
TABLES = ("flows", "drops", "queues", "links", "downlink", "backpressure", "goodput", "rtt", "cwnd")

# Keys of the core's results that are not part of the reproducible summary.
_NOT_IN_SUMMARY = ("timing", "timeseries")


class Results:
    """One run's results.

    `raw` is the core's parsed JSON; `scenario` the normalised configuration that produced it
    (included in the summary so a summary file says exactly what was simulated).
    """

    def __init__(self, raw: Mapping[str, Any], scenario: Mapping[str, Any] | None = None):
        self.raw = dict(raw)
        self.scenario = dict(scenario) if scenario is not None else None
        series = self.raw.get("timeseries") or {}
        self._tables: dict[str, pa.Table] = {
            "flows": _rows_table([flow_row(flow) for flow in self.raw.get("flows", [])], _FLOW_COLUMNS),
            "drops": _rows_table(self.raw.get("drops", []), _DROP_COLUMNS),
            "queues": _rows_table(self.raw.get("queues", []), _QUEUE_COLUMNS),
            "links": _rows_table(self.raw.get("links", []), _LINK_COLUMNS),
            "downlink": _rows_table(self.raw.get("downlink", []), _DOWNLINK_COLUMNS),
            "backpressure": _rows_table(self.raw.get("backpressure", []), _BACKPRESSURE_COLUMNS),
            "goodput": _columns_table(series.get("goodput", {}), _GOODPUT_COLUMNS),
            "rtt": _columns_table(series.get("rtt", {}), _RTT_COLUMNS),
            "cwnd": _columns_table(series.get("cwnd", {}), _CWND_COLUMNS),
        }

    @classmethod
    def from_json(cls, text: str, scenario: Mapping[str, Any] | None = None) -> Results:
        return cls(json.loads(text), scenario)

    # --- Totals -------------------------------------------------------------------------------

    @property
    def summary(self) -> dict[str, Any]:
        """Everything reproducible: the core's results without `timing` and `timeseries`, plus
        `valid` and the normalised scenario under "scenario"."""
        summary = {key: value for key, value in self.raw.items() if key not in _NOT_IN_SUMMARY}
        summary["valid"] = self.valid
        if self.scenario is not None:
            summary["scenario"] = self.scenario
        return summary

    @property
    def valid(self) -> bool:
        """Whether the numbers can be trusted: False when the run lost track of packets (its
        conservation check failed; `conservation_problem` says how)."""
        return self.conservation_problem is None

    @property
    def conservation_problem(self) -> str | None:
        """None when the packets add up, else the message: packet conservation violated: created X =
        delivered Y + dropped Z + in flight W."""
        return conservation_problem(self.raw)

    @property
    def timing(self) -> dict[str, Any]:
        """Wall-clock figures of the event loop: wall_s, events, events_per_s."""
        return dict(self.raw.get("timing") or {})

    @property
    def jain(self) -> float:
        """Jain's fairness index over the flows' goodputs."""
        return float(self.raw["jain"])

    @property
    def conservation(self) -> dict[str, Any]:
        """The packet conservation check (created = delivered + dropped + in_flight)."""
        return dict(self.raw["conservation"])

    # --- Tables -------------------------------------------------------------------------------

    def table(self, name: str) -> pa.Table:
        """One of `TABLES` as an Arrow table."""
        return self._tables[name]

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow totals, one row per flow in scenario order. The `nc_*` columns (`NC_COLUMNS`)
        hold the NC layer's counters, null (NaN) for flows without the layer."""
        return self._tables["flows"].to_pandas()

    @property
    def drops(self) -> pd.DataFrame:
        """Drops per queue and reason (non-zero rows only)."""
        return self._tables["drops"].to_pandas()

    @property
    def queues(self) -> pd.DataFrame:
        """Per-queue totals."""
        return self._tables["queues"].to_pandas()

    @property
    def links(self) -> pd.DataFrame:
        """Per directed wireless link: MAC attempts, answers, delivery ratio, overheard frames."""
        return self._tables["links"].to_pandas()

    @property
    def downlink(self) -> pd.DataFrame:
        """Per user of the base station's downlink (empty without one): scheduled and outage
        slots, mean offered rate, packets and bytes served, erased and dropped."""
        return self._tables["downlink"].to_pandas()

    @property
    def backpressure(self) -> pd.DataFrame:
        """Per node under backpressure routing (empty otherwise): node, overflow_drops (its shared
        buffer's overflows, also in `drops` as `queue_full` of "radio NODE"), control_sent."""
        return self._tables["backpressure"].to_pandas()

    @property
    def goodput(self) -> pd.DataFrame:
        """Goodput per flow per bin: flow, t_s (bin start), goodput_bps."""
        return self._tables["goodput"].to_pandas()

    @property
    def rtt(self) -> pd.DataFrame:
        """RTT samples (empty unless metrics.trace_rtt): flow, t_s, rtt_s, srtt_s."""
        return self._tables["rtt"].to_pandas()

    @property
    def cwnd(self) -> pd.DataFrame:
        """cwnd samples (empty unless metrics.trace_cwnd): flow, t_s, cwnd, ssthresh, in_flight."""
        return self._tables["cwnd"].to_pandas()

    # --- Files --------------------------------------------------------------------------------

    def summary_json(self) -> str:
        """`summary.json`'s text: sorted keys and fixed indentation, so equal runs give equal bytes."""
        return json.dumps(self.summary, sort_keys=True, indent=2) + "\n"

    def timing_json(self) -> str:
        timing = self.timing
        keys = ("wall_s", "events", "events_per_s")
        return json.dumps({key: timing.get(key) for key in keys}, indent=2) + "\n"

    def write(self, out_dir: Path | str, *, force: bool = False) -> Path:
        """Writes summary.json, timing.json and one Parquet file per table into `out_dir`.

        All or nothing: files go to a temporary sibling directory renamed into place at the end.
        An existing non-empty `out_dir` is an error (`OutputDirError`) unless `force`, which
        replaces it.
        """
        out = Path(out_dir)
        with atomic_directory(out, replace=force) as staging:
            (staging / "summary.json").write_text(self.summary_json(), encoding="utf-8")
            (staging / "timing.json").write_text(self.timing_json(), encoding="utf-8")
            for name in TABLES:
                pq.write_table(self._tables[name], staging / f"{name}.parquet")
        return out

    def __repr__(self) -> str:
        name = self.raw.get("name", "?")
        return f"<Results {name!r}: {len(self._tables['flows'])} flows>"


def conservation_problem(raw: Mapping[str, Any]) -> str | None:
    """What is wrong with the core results `raw` if their packets do not add up, else None."""
    check = raw.get("conservation") or {}
    if check.get("ok", True):
        return None
    return (
        f"packet conservation violated: created {check.get('created')} = delivered {check.get('delivered')}"
        f" + dropped {check.get('dropped')} + in flight {check.get('in_flight')}"
    )


def flow_row(flow: Mapping[str, Any]) -> dict[str, Any]:
    """A flow of the core's results as a table row: the `nc` object flattened into the
    `nc_<counter>` columns, every one present (None without the NC layer)."""
    row = {key: value for key, value in flow.items() if key != "nc"}
    nc = flow.get("nc") or {}
    for side, names in _NC_COUNTERS.items():
        counters = nc.get(side) or {}
        row.update({f"nc_{name}": counters.get(name) for name in names})
        row.update({f"nc_{name}": value for name, value in counters.items() if name not in names})
    return row


def _table(columns: Mapping[str, Sequence[Any]], types: Mapping[str, pa.DataType]) -> pa.Table:
    # `arrow_array` rather than `pa.array`, whose check for pandas objects imports pandas.
    arrays = {name: arrow_array(values, types.get(name)) for name, values in columns.items()}
    return pa.table(arrays)


def _rows_table(rows: Sequence[Mapping[str, Any]], types: Mapping[str, pa.DataType]) -> pa.Table:
    """A table from row records: known columns first, in the documented order."""
    names = list(types)
    for row in rows:
        names.extend(key for key in row if key not in names)
    return _table({name: [row.get(name) for row in rows] for name in names}, types)


def _columns_table(series: Mapping[str, Sequence[Any]], types: Mapping[str, pa.DataType]) -> pa.Table:
    """A table from columnar series (one list per column)."""
    names = list(types) + [name for name in series if name not in types]
    return _table({name: list(series.get(name, [])) for name in names}, types)
