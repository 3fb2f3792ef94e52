"""The results of a run: totals, tables, time series, and writing them to a directory.

The simulator core returns one JSON document (see the core's `RunResults`). This module splits it
into what is reproducible (`summary`: identical for identical inputs and seed), what is not
(`timing`: wall-clock figures) and tables (per-flow totals, drops, queues and the time series),
which are written as Parquet files by the core (`_core.write_parquet`), so that a run that only
writes its results does not import pyarrow and NumPy, which took a third of `airtcp run`. The
tables are Arrow tables, built when first asked for (`Results.table`, the DataFrame properties).

A flow over paper 000's NC layer carries the layer's counters in the core's JSON as
`"nc": {"source": {...}, "sink": {...}}` (absent for other flows); the `flows` table has them as
flat `nc_<counter>` columns, null for flows without the layer (`flow_row`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import methodcaller
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airtcp import _core
from airtcp.atomic_dir import atomic_directory

if TYPE_CHECKING:
    # Arrow, and pandas for DataFrames, are imported once a table is asked for: not importing
    # them up front keeps the command line quick to start.
    import pandas as pd
    import pyarrow as pa

__all__ = ["NC_COLUMNS", "Results", "TABLES", "conservation_problem", "flow_row", "write_columns"]

# Column types of the tables, by the names both `_core.write_parquet` and
# `airtcp.arrow_arrays.ARROW_TYPES` know. Fixing them keeps the Parquet schema the same whether or
# not a table has rows or a column has nulls; columns the core adds later get pyarrow's inferred
# types (`_inferred_type`).
_FLOW_COLUMNS: dict[str, str] = {
    "id": "string",
    "src": "string",
    "dst": "string",
    "transport": "string",
    "cc": "string",
    "sack": "bool",
    "start_s": "float64",
    "stop_s": "float64",
    "bytes_delivered": "uint64",
    "goodput_bps": "float64",
    "completion_s": "float64",
    "packets_sent": "uint64",
    "retransmissions": "uint64",
    "recoveries": "uint64",
    "timeouts": "uint64",
    "mean_rtt_s": "float64",
}
# Columns a flow has only in some scenarios (docs/results.md), typed whenever they are there.
_FLOW_OPTIONAL_COLUMNS = {
    "mean_window": "float64",
    "decode_delay_mean_s": "float64",
    "decode_delay_p95_s": "float64",
    "decode_delay_p99_s": "float64",
    "paths": "text_lists",
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
        "ece_received",
        "congestion_signals",
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
        "marks_received",
        "ece_sent",
    ),
}
NC_COLUMNS = tuple(f"nc_{name}" for side in _NC_COUNTERS.values() for name in side)
_FLOW_COLUMNS.update(dict.fromkeys(NC_COLUMNS, "uint64"))
_DROP_COLUMNS = {"queue": "string", "reason": "string", "packets": "uint64"}
_QUEUE_COLUMNS = {
    "queue": "string",
    "enqueued": "uint64",
    "transmitted": "uint64",
    "max_backlog": "uint32",
}
_BACKPRESSURE_COLUMNS = {"node": "string", "overflow_drops": "uint64", "control_sent": "uint64"}
_ROUTER_COLUMNS = {
    "router": "string",
    "user": "string",
    "sent": "uint64",
    "received": "uint64",
    "erased": "uint64",
    "sent_in_low_state": "uint64",
}
_CODING_COLUMNS = {
    "node": "string",
    "frames": "uint64",
    "frames_1": "uint64",
    "frames_2": "uint64",
    "frames_3": "uint64",
    "frames_4": "uint64",
    "frames_5": "uint64",
    "frames_6": "uint64",
    "frames_7": "uint64",
    "frames_8": "uint64",
    "natives_sent": "uint64",
    "natives_coded": "uint64",
    "decode_failures": "uint64",
    "duplicates": "uint64",
    "retransmissions": "uint64",
    "retry_drops": "uint64",
    "control_packets": "uint64",
    "control_bytes": "uint64",
    "control_airtime_s": "float64",
    "header_bytes": "uint64",
    "natives_reported": "uint64",
    "ack_blocks": "uint64",
    "two_flows_s": "float64",
}

_PRIORITY_PAIR_COLUMNS = {
    "router": "string",
    "flow": "uint64",
    "user": "string",
    "high_queued": "uint64",
    "high_dropped": "uint64",
    "high_sent": "uint64",
    "low_queued": "uint64",
    "low_pushed_out": "uint64",
    "low_dropped": "uint64",
    "low_sent": "uint64",
    "low_sent_owed": "uint64",
    "max_high": "uint64",
    "max_low": "uint64",
}
_LINK_COLUMNS = {
    "from": "string",
    "to": "string",
    "attempts": "uint64",
    "answered": "uint64",
    "delivery_ratio": "float64",
    "overheard": "uint64",
    "rate_mbps": "float64",
}
_DOWNLINK_COLUMNS = {
    "user": "string",
    "mean_snr_db": "float64",
    "slots_scheduled": "uint64",
    "outage_slots": "uint64",
    "mean_rate_bps": "float64",
    "packets_served": "uint64",
    "bytes_served": "uint64",
    "packets_erased": "uint64",
    "packets_dropped": "uint64",
    "unused_bytes": "uint64",
}
_GOODPUT_COLUMNS = {"flow": "string", "t_s": "float64", "goodput_bps": "float64"}
_RTT_COLUMNS = {"flow": "string", "t_s": "float64", "rtt_s": "float64", "srtt_s": "float64"}
_QUEUE_TRACE_COLUMNS = {"queue": "string", "t_s": "float64", "packets": "uint64"}
_RATE_TRACE_COLUMNS = {"from": "string", "to": "string", "t_s": "float64", "rate_mbps": "float64"}
_CWND_COLUMNS = {
    "flow": "string",
    "t_s": "float64",
    "cwnd": "float64",
    "ssthresh": "float64",
    "in_flight": "float64",
}

# A column of a table: name, type (None for a column the core added that has none here), values.
Column = tuple[str, str | None, list[Any]]

# The type of a column the core added that has none here, by the one Python type of its values
# (pyarrow's inference for them). A column of nulls only is typed null; one mixing ints and floats
# float64; anything else (nested records a future report may add) is written as its JSON text.
_INFERRED_TYPES = {bool: "bool", int: "int64", float: "float64", str: "string"}

# Table name -> file written by `Results.write`.
TABLES = (
    "flows",
    "drops",
    "queues",
    "links",
    "downlink",
    "backpressure",
    "routers",
    "priority_pairs",
    "coding",
    "goodput",
    "rtt",
    "cwnd",
    "queue_trace",
    "rate_trace",
)

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
        self._columns: dict[str, list[Column]] = {
            "flows": _row_columns(
                [flow_row(flow) for flow in self.raw.get("flows", [])], _FLOW_COLUMNS, _FLOW_OPTIONAL_COLUMNS
            ),
            "drops": _row_columns(self.raw.get("drops", []), _DROP_COLUMNS),
            "queues": _row_columns(self.raw.get("queues", []), _QUEUE_COLUMNS),
            "links": _row_columns(self.raw.get("links", []), _LINK_COLUMNS),
            "downlink": _row_columns(self.raw.get("downlink", []), _DOWNLINK_COLUMNS),
            "backpressure": _row_columns(self.raw.get("backpressure", []), _BACKPRESSURE_COLUMNS),
            "routers": _row_columns(self.raw.get("routers", []), _ROUTER_COLUMNS),
            "priority_pairs": _row_columns(self.raw.get("priority_pairs", []), _PRIORITY_PAIR_COLUMNS),
            "coding": _row_columns(self.raw.get("coding", []), _CODING_COLUMNS),
            "goodput": _series_columns(series.get("goodput", {}), _GOODPUT_COLUMNS),
            "rtt": _series_columns(series.get("rtt", {}), _RTT_COLUMNS),
            "cwnd": _series_columns(series.get("cwnd", {}), _CWND_COLUMNS),
            "queue_trace": _series_columns(series.get("queue", {}), _QUEUE_TRACE_COLUMNS),
            "rate_trace": _series_columns(series.get("rates", {}), _RATE_TRACE_COLUMNS),
        }
        # A forwarding layer's own tables beyond `TABLES` (Horizon's `horizon`, `horizon_paths`,
        # `horizon_samples`): every list of records the core reports is a table.
        for key, value in self.raw.items():
            if key not in self._columns and isinstance(value, list) and all(isinstance(row, Mapping) for row in value):
                self._columns[key] = _row_columns(value, {})
        self._tables: dict[str, pa.Table] = {}

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
    def trace(self) -> dict[str, Any] | None:
        """The pcap files the run wrote (a `trace` block): `files`, a row per file (`file`,
        `node`, `interface`, `records`), and `error`, why writing stopped early if it did (the
        results are whole either way); None without the block."""
        trace = self.raw.get("trace")
        return None if trace is None else dict(trace)

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
        """Wall-clock figures of the run: the event loop's wall_s, events and events_per_s, and the
        core's setup_s (building the world) and results_s (gathering the results)."""
        return dict(self.raw.get("timing") or {})

    @property
    def jain(self) -> float:
        """Jain's fairness index over the flows' goodputs."""
        return float(self.raw["jain"])

    @property
    def conservation(self) -> dict[str, Any]:
        """The packet conservation check (created = delivered + dropped + retired + in_flight;
        `retired`, the packets a forwarding layer freed because a copy carries on, is written
        only when there are some)."""
        return dict(self.raw["conservation"])

    # --- Tables -------------------------------------------------------------------------------

    def table(self, name: str) -> pa.Table:
        """One of `TABLES`, or a forwarding layer's own table (`layer_tables`), as an Arrow table
        (built on first use)."""
        if name not in self._tables:
            self._tables[name] = _arrow_table(self._columns[name])
        return self._tables[name]

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow totals, one row per flow in scenario order. The `nc_*` columns (`NC_COLUMNS`)
        hold the NC layer's counters, null (NaN) for flows without the layer."""
        return self.table("flows").to_pandas()

    @property
    def drops(self) -> pd.DataFrame:
        """Drops per queue and reason (non-zero rows only)."""
        return self.table("drops").to_pandas()

    @property
    def queues(self) -> pd.DataFrame:
        """Per-queue totals."""
        return self.table("queues").to_pandas()

    @property
    def links(self) -> pd.DataFrame:
        """Per directed wireless link: MAC attempts, answers, delivery ratio, overheard frames,
        data rate."""
        return self.table("links").to_pandas()

    @property
    def downlink(self) -> pd.DataFrame:
        """Per user of the base station's downlink (empty without one): scheduled and outage
        slots, mean offered rate, packets and bytes served, erased and dropped."""
        return self.table("downlink").to_pandas()

    @property
    def backpressure(self) -> pd.DataFrame:
        """Per node under backpressure routing (empty otherwise): node, overflow_drops (its shared
        buffer's overflows, also in `drops` as `queue_full` of "radio NODE"), control_sent."""
        return self.table("backpressure").to_pandas()

    @property
    def routers(self) -> pd.DataFrame:
        """Per user of each wireless router (empty without routers): router, user, sent,
        received, erased, sent_in_low_state (docs/tcp_rlc.md)."""
        return self.table("routers").to_pandas()

    @property
    def priority_pairs(self) -> pd.DataFrame:
        """Per flow at each router with priority queue pairs (empty otherwise): queued, dropped,
        pushed out and sent packets of each class (docs/tcp_rlc.md)."""
        return self.table("priority_pairs").to_pandas()

    @property
    def coding(self) -> pd.DataFrame:
        """Per node under a `coding:` block (empty otherwise): frames sent by natives carried,
        natives sent and coded, decode failures, duplicates, COPE retransmissions and drops,
        control packets and header bytes (docs/cope.md)."""
        return self.table("coding").to_pandas()

    @property
    def goodput(self) -> pd.DataFrame:
        """Goodput per flow per bin: flow, t_s (bin start), goodput_bps."""
        return self.table("goodput").to_pandas()

    @property
    def rtt(self) -> pd.DataFrame:
        """RTT samples (empty unless metrics.trace_rtt): flow, t_s, rtt_s, srtt_s."""
        return self.table("rtt").to_pandas()

    @property
    def cwnd(self) -> pd.DataFrame:
        """cwnd samples (empty unless metrics.trace_cwnd): flow, t_s, cwnd, ssthresh, in_flight."""
        return self.table("cwnd").to_pandas()

    @property
    def queue_trace(self) -> pd.DataFrame:
        """Queue occupancy samples (empty unless metrics.trace_queues): queue, t_s, packets."""
        return self.table("queue_trace").to_pandas()

    # --- Files --------------------------------------------------------------------------------

    def summary_json(self) -> str:
        """`summary.json`'s text: sorted keys and fixed indentation, so equal runs give equal bytes."""
        return indented_json(self.summary) + "\n"

    def timing_json(self) -> str:
        timing = self.timing
        keys = ("wall_s", "events", "events_per_s", "setup_s", "results_s")
        return json.dumps({key: timing.get(key) for key in keys}, indent=2) + "\n"

    def write(
        self, out_dir: Path | str, *, force: bool = False, folders: Mapping[str, Path] | None = None
    ) -> Path:
        """Writes summary.json, timing.json and one Parquet file per table that has rows
        (`recorded_tables`) into `out_dir`, and moves each of `folders` in under its name (the
        pcap traces `airtcp run` collected beside it, `pcap`).

        All or nothing: files go to a temporary sibling directory renamed into place at the end.
        An existing non-empty `out_dir` is an error (`OutputDirError`) unless `force`, which
        replaces it.
        """
        out = Path(out_dir)
        with atomic_directory(out, replace=force) as staging:
            (staging / "summary.json").write_text(self.summary_json(), encoding="utf-8")
            (staging / "timing.json").write_text(self.timing_json(), encoding="utf-8")
            for name in self.recorded_tables():
                self._write_table(name, staging / f"{name}.parquet")
            for name, folder in (folders or {}).items():
                os.replace(folder, staging / name)
        return out

    def recorded_tables(self) -> list[str]:
        """The tables with at least one row, in `TABLES` order, then the forwarding layer's own
        (`layer_tables`): those `write` writes. An empty table (no downlink in a mesh, no RTT
        trace unless asked for) gets no file; from Python it is still there, with its columns and
        no rows."""
        return [name for name, columns in self._columns.items() if any(values for _, _, values in columns[:1])]

    @property
    def layer_tables(self) -> list[str]:
        """The tables a forwarding layer reports besides `TABLES` (Horizon's three), by name."""
        return [name for name in self._columns if name not in TABLES]

    def _write_table(self, name: str, path: Path) -> None:
        """One table as a Parquet file."""
        write_columns(self._columns[name], path)

    def __repr__(self) -> str:
        name = self.raw.get("name", "?")
        return f"<Results {name!r}: {len(self.raw.get('flows', []))} flows>"


def conservation_problem(raw: Mapping[str, Any]) -> str | None:
    """What is wrong with the core results `raw` if their packets do not add up, else None."""
    check = raw.get("conservation") or {}
    if check.get("ok", True):
        return None
    retired = f" + retired {check['retired']}" if check.get("retired") else ""
    return (
        f"packet conservation violated: created {check.get('created')} = delivered {check.get('delivered')}"
        f" + dropped {check.get('dropped')}{retired} + in flight {check.get('in_flight')}"
    )


def flow_row(flow: Mapping[str, Any]) -> dict[str, Any]:
    """A flow of the core's results as a table row: the `nc` object flattened into the
    `nc_<counter>` columns, every one present (None without the NC layer), and any other object
    a shim reports (Horizon's `horizon`: `reorder` and `signal`) into `<key>_<part>_<counter>`
    columns, present in the flows that have it."""
    row: dict[str, Any] = {}
    for key, value in flow.items():
        if key == "nc":
            continue
        if isinstance(value, Mapping):
            row.update(_flattened(key, value))
        else:
            row[key] = value
    nc = flow.get("nc") or {}
    for side, names in _NC_COUNTERS.items():
        counters = nc.get(side) or {}
        row.update({f"nc_{name}": counters.get(name) for name in names})
        row.update({f"nc_{name}": value for name, value in counters.items() if name not in names})
    return row


def _flattened(prefix: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """`record`'s values as `<prefix>_<key>` columns, nested records joined the same way."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, Mapping):
            flat.update(_flattened(f"{prefix}_{key}", value))
        else:
            flat[f"{prefix}_{key}"] = value
    return flat


def indented_json(value: Any) -> str:
    """`json.dumps(value, sort_keys=True, indent=2)`, byte for byte, several times faster on
    results' long lists of flat records.

    The json module encodes in C only without `indent`; with it, every value of a 100,000-node
    summary (17 million, 95 MB) went through its Python encoder, 4 to 5 s. Here a container
    whose values are all scalars, such as a link's record, is encoded in one C call whose item
    separator carries the newline and the indentation of its depth (`_flat_encoder`); only
    containers holding containers are walked in Python. Data of other types (tuples, subclasses,
    keys that are not strings) takes the json module's own way.
    """
    chunks: list[str] = []
    try:
        _indent_into(value, 0, chunks)
    except _Unusual:
        return json.dumps(value, sort_keys=True, indent=2)
    return "".join(chunks)


_SCALARS = frozenset({str, int, float, bool, type(None)})
_INDENT = "  "
# Deeper than this, the json module's own encoder says what it says (results nest a few levels).
_DEEPEST = 100


class _Unusual(Exception):
    """Raised by `_indent_into` at data it leaves to the json module."""


def _indent_into(value: Any, depth: int, chunks: list[str]) -> None:
    """Appends `value` as json.dumps(..., sort_keys=True, indent=2) writes it at `depth`."""
    kind = type(value)
    if kind in _SCALARS:
        chunks.append(_flat_encoder(0).encode(value))
        return
    if (kind is not dict and kind is not list) or depth > _DEEPEST:
        raise _Unusual
    if not value:
        chunks.append("{}" if kind is dict else "[]")
        return
    inner = "\n" + _INDENT * (depth + 1)
    values = value.values() if kind is dict else value
    if kind is dict and not all(type(key) is str for key in value):
        raise _Unusual
    if _SCALARS.issuperset(map(type, values)):
        # "[a,\n    b]" from C: the brackets' own newlines added around.
        flat = _flat_encoder(depth + 1).encode(value)
        chunks.extend((flat[0], inner, flat[1:-1], "\n", _INDENT * depth, flat[-1]))
        return
    if kind is list and _is_table(value):
        # A list of flat records (links, queues, nodes) in one C call too, its records' items
        # at depth + 2: '[{"a": 1,\n      "b": 2},\n      {"a": 3, ...}]'. Every newline is a
        # separator (strings are escaped), and one between records is the only one followed by
        # "{" (one inside a record is followed by a key's quote): those get the records'
        # indentation and the braces' own newlines.
        outer, record = _INDENT * (depth + 1), _INDENT * (depth + 2)
        text = _flat_encoder(depth + 2).encode(value)
        body = text[2:-2].replace("},\n" + record + "{", f"\n{outer}}},\n{outer}{{\n{record}")
        chunks.extend(("[\n", outer, "{\n", record, body, "\n", outer, "}\n", _INDENT * depth, "]"))
        return
    if kind is dict:
        chunks.append("{")
        separator = inner
        for key, item in sorted(value.items()):
            chunks.extend((separator, json.encoder.encode_basestring_ascii(key), ": "))
            _indent_into(item, depth + 1, chunks)
            separator = "," + inner
        chunks.extend(("\n", _INDENT * depth, "}"))
    else:
        chunks.append("[")
        separator = inner
        for item in value:
            chunks.append(separator)
            _indent_into(item, depth + 1, chunks)
            separator = "," + inner
        chunks.extend(("\n", _INDENT * depth, "]"))


def _is_table(rows: list[Any]) -> bool:
    """Whether `rows` are all non-empty dicts of scalars under string keys (checked in C, not
    record by record)."""
    if set(map(type, rows)) != {dict} or not all(rows):
        return False
    return set(map(type, chain.from_iterable(rows))) == {str} and _SCALARS.issuperset(
        map(type, chain.from_iterable(map(dict.values, rows)))
    )


_FLAT_ENCODERS: dict[int, json.JSONEncoder] = {}


def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The C encoder of a container of scalars whose items are at `depth` (and of scalars)."""
    encoder = _FLAT_ENCODERS.get(depth)
    if encoder is None:
        encoder = _FLAT_ENCODERS[depth] = json.JSONEncoder(
            sort_keys=True, separators=("," + "\n" + _INDENT * depth, ": ")
        )
    return encoder


def write_columns(columns: Sequence[Column], path: Path) -> None:
    """A table as the Parquet file `path`, by the core's writer, every column typed (`_typed`)."""
    _core.write_parquet(path, [_typed(column) for column in columns])


def _typed(column: Column) -> tuple[str, str, list[Any]]:
    """`column` with a type the core's writer takes: its own, or the one its values have
    (`_INFERRED_TYPES`); values of no one type are converted to fit one."""
    name, kind, values = column
    if kind == "float64" and any(type(value) is int for value in values):
        # A whole number in JSON (`2` rather than `2.0`), as pyarrow would take it.
        return name, kind, [float(value) if type(value) is int else value for value in values]
    if kind is not None:
        return name, kind, values
    found = {type(value) for value in values if value is not None}
    if not found:
        return name, "null", values
    if len(found) == 1 and (inferred := _INFERRED_TYPES.get(next(iter(found)))) is not None:
        return name, inferred, values
    if found == {int, float}:
        return name, "float64", [None if value is None else float(value) for value in values]
    if found == {list} and all(_text_lists(value) for value in values if value is not None):
        return name, "text_lists", values
    return name, "string", [None if value is None else json.dumps(value, sort_keys=True) for value in values]


def _text_lists(value: list[Any]) -> bool:
    return all(isinstance(inner, list) and all(isinstance(text, str) for text in inner) for inner in value)


def _arrow_table(columns: Sequence[Column]) -> pa.Table:
    """The Arrow table of `columns`, typed as the Parquet file has them (`_typed`)."""
    import pyarrow as pa

    from airtcp.arrow_arrays import ARROW_TYPES, arrow_array

    # `arrow_array` rather than `pa.array`, whose check for pandas objects imports pandas.
    arrays = {name: arrow_array(values, ARROW_TYPES[kind]) for name, kind, values in map(_typed, columns)}
    return pa.table(arrays)


def _row_columns(
    rows: Sequence[Mapping[str, Any]], types: Mapping[str, str], optional: Mapping[str, str] | None = None
) -> list[Column]:
    """The columns of row records: known columns first, in the documented order, then those
    the rows add, in the order they appear (typed by `optional` if it knows them)."""
    # In C: the key lists of 300,000 link records, searched name by name in a list, took a second.
    names = dict.fromkeys(chain(types, chain.from_iterable(rows)))
    optional = optional or {}
    return [(name, types.get(name) or optional.get(name), list(map(methodcaller("get", name), rows))) for name in names]


def _series_columns(series: Mapping[str, Sequence[Any]], types: Mapping[str, str]) -> list[Column]:
    """The columns of columnar series (one list per column)."""
    names = list(types) + [name for name in series if name not in types]
    return [(name, types.get(name), list(series.get(name, []))) for name in names]
