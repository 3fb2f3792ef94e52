"""The core's Parquet writer (`_core.write_parquet`): pyarrow and pandas read its files back as
the tables the pyarrow writer made before, for every results table of every bundled scenario
and for random tables; what it cannot take it refuses without writing."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import airtcp
import airtcp.results
from airtcp import _core
from airtcp.arrow_arrays import ARROW_TYPES
from airtcp.results import TABLES, Results
from airtcp.scenario import bundled
from support import P2P_LOSSY, fake_core_output

VALUES = {
    "string": st.text(alphabet=st.characters(exclude_categories=["Cs"])),
    "bool": st.booleans(),
    "float64": st.floats(),  # NaN and the infinities too
    "uint64": st.integers(0, 2**64 - 1),
    "uint32": st.integers(0, 2**32 - 1),
    "int64": st.integers(-(2**63), 2**63 - 1),
    "text_lists": st.lists(st.lists(st.text(alphabet=st.characters(exclude_categories=["Cs"])), max_size=4), max_size=4),
    "null": st.none(),
}


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and (a == b or math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


def assert_same_table(read: pa.Table, expected: pa.Table) -> None:
    """Same schema (names, order, types, nullability, metadata) and the same values, NaN
    included."""
    read.validate(full=True)
    assert read.schema.equals(expected.schema, check_metadata=True), f"{read.schema}\n!=\n{expected.schema}"
    assert read.num_rows == expected.num_rows
    for name, column, other in zip(read.column_names, read.columns, expected.columns):
        values, expected_values = column.to_pylist(), other.to_pylist()
        assert all(map(same_value, values, expected_values)), (name, values, expected_values)


def written_by_pyarrow(table: pa.Table, path: Path) -> pa.Table:
    """`table` written as the results were before the core's writer, and read back."""
    pq.write_table(table, path)
    return pq.read_table(path)


def spy_on_the_core_writer(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the files the core's writer wrote (those it refused are not listed)."""
    written: list[str] = []
    real_write = _core.write_parquet

    def write(path: Path, columns: Any) -> None:
        real_write(path, columns)
        written.append(Path(path).name)

    monkeypatch.setattr(airtcp.results._core, "write_parquet", write)
    return written


@pytest.mark.parametrize(
    ("name", "overrides"),
    [(name, []) for name in bundled.names()]
    + [("examples/p2p_lossy", ["metrics.trace_rtt=true", "metrics.trace_cwnd=true"])],
    ids=[*bundled.names(), "p2p_lossy traced"],
)
def test_every_results_table_reads_back_as_pyarrow_wrote_it(
    name: str, overrides: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = spy_on_the_core_writer(monkeypatch)
    results = airtcp.run(bundled.read_data(name), overrides=overrides)
    out = results.write(tmp_path / "run")
    # Every table by the core's writer, a forwarding layer's own tables (Horizon's) and nested
    # values (a multipath flow's `paths`, lists of node names) included.
    recorded = results.recorded_tables()
    tables = [*TABLES, *results.layer_tables]
    assert recorded == [table for table in tables if results.table(table).num_rows > 0]
    assert sorted(p.name for p in out.glob("*.parquet")) == sorted(f"{table}.parquet" for table in recorded)
    assert written == [f"{table}.parquet" for table in recorded]
    for table in recorded:
        expected = written_by_pyarrow(results.table(table), tmp_path / f"{table}.pyarrow.parquet")
        assert_same_table(pq.read_table(out / f"{table}.parquet"), expected)


def test_the_tables_have_nulls_zero_rows_and_traces() -> None:
    # What the test above covers, so that a change of the scenarios does not quietly narrow it.
    plain = airtcp.run(P2P_LOSSY, overrides=["metrics.trace_rtt=true", "metrics.trace_cwnd=true"])
    assert plain.table("flows").column("nc_blocks").null_count == 1
    assert plain.table("downlink").num_rows == 0 and plain.table("rtt").num_rows > 0
    coded = airtcp.run(bundled.read_data("000_tcp_aware_bp/diamond"))
    assert coded.table("flows").column("nc_blocks").null_count == 0
    assert coded.table("backpressure").num_rows > 0


def test_pandas_reads_the_files_as_the_results_dataframes(tmp_path: Path) -> None:
    results = airtcp.run(bundled.read_data("000_tcp_aware_bp/diamond"))
    out = results.write(tmp_path / "run")
    for table in ("flows", "queues", "links", "backpressure", "goodput"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{table}.parquet"), getattr(results, table))
    # Empty tables have no file, and still their columns in Python.
    assert not (out / "downlink.parquet").exists() and list(results.downlink.columns)


def columns_table(columns: list[tuple[str, str, list[Any]]]) -> pa.Table:
    arrays = [pa.array(values, type=ARROW_TYPES[kind]) for _, kind, values in columns]
    return pa.table(arrays, names=[name for name, _, _ in columns])


def write_and_read(columns: list[tuple[str, str, list[Any]]], path: Path) -> pa.Table:
    _core.write_parquet(path, columns)
    return pq.read_table(path)


def test_edge_values(tmp_path: Path) -> None:
    columns = [
        ("text", "string", ["", "é", "名前", "🚀 emoji", None, "a\x00b", "x" * 10_000]),
        ("flag", "bool", [True, False, None, True, True, False, None]),
        ("x", "float64", [math.nan, math.inf, -math.inf, -0.0, None, 5e-324, 1.7976931348623157e308]),
        ("big", "uint64", [2**64 - 1, 0, None, 2**63, 1, 2, 3]),
        ("u32", "uint32", [2**32 - 1, 0, None, 2**31, 1, 2, 3]),
        ("i64", "int64", [-(2**63), 2**63 - 1, None, -1, 0, 1, 2]),
        ("nothing", "uint64", [None] * 7),
        ("nothing either", "string", [None] * 7),
        ("paths", "text_lists", [[["a", "b"], []], None, [], [["é"]], [[""], ["x"] * 300], [], None]),
        ("no type", "null", [None] * 7),
        ("ünïcode name", "float64", [0.5] * 7),
    ]
    assert_same_table(write_and_read(columns, tmp_path / "t.parquet"), columns_table(columns))


@pytest.mark.parametrize("rows", [0, 1, 8, 9, 1000])
def test_row_counts_around_byte_boundaries(rows: int, tmp_path: Path) -> None:
    columns = [
        ("flag", "bool", [i % 3 == 0 if i % 5 else None for i in range(rows)]),
        ("n", "uint32", [i if i % 7 else None for i in range(rows)]),
    ]
    assert_same_table(write_and_read(columns, tmp_path / "t.parquet"), columns_table(columns))


def test_a_table_without_rows_keeps_its_schema_for_pandas_too(tmp_path: Path) -> None:
    columns = [(kind, kind, []) for kind in ARROW_TYPES]
    read = write_and_read(columns, tmp_path / "t.parquet")
    assert_same_table(read, columns_table(columns))
    frame = pd.read_parquet(tmp_path / "t.parquet")
    assert frame.empty and list(frame.columns) == list(ARROW_TYPES)


@st.composite
def random_tables(draw: st.DrawFn) -> list[tuple[str, str, list[Any]]]:
    rows = draw(st.integers(0, 30))
    name = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=8)
    names = draw(st.lists(name, min_size=1, max_size=6, unique=True))
    columns = []
    for name in names:
        kind = draw(st.sampled_from(sorted(VALUES)))
        values = draw(st.lists(st.none() | VALUES[kind], min_size=rows, max_size=rows))
        columns.append((name, kind, values))
    return columns


@given(columns=random_tables())
# No deadline: the first Parquet read of the process loads pyarrow's Parquet module.
@settings(deadline=None, max_examples=150)
def test_random_tables_read_back_as_built(
    columns: list[tuple[str, str, list[Any]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("random") / "t.parquet"
    assert_same_table(write_and_read(columns, path), columns_table(columns))


@pytest.mark.parametrize(
    ("columns", "error", "message"),
    [
        ([("a", "decimal", [])], ValueError, r'column "a": unknown type "decimal"'),
        ([("a", "uint64", [1, -1])], ValueError, r'column "a" \(uint64\), item 1: out of range for uint64'),
        ([("a", "uint32", [2**32])], ValueError, "out of range for uint32"),
        ([("a", "int64", [2**63])], ValueError, "out of range for int64"),
        ([("a", "uint64", [True])], TypeError, "expected int or None, got bool"),
        ([("a", "uint64", [1.0])], TypeError, "expected int or None, got float"),
        ([("a", "float64", [None, 1])], TypeError, r"item 1: expected float or None, got int"),
        ([("a", "bool", [0])], TypeError, "expected bool or None, got int"),
        ([("a", "string", [b"x"])], TypeError, "expected str or None, got bytes"),
        ([("a", "string", ["\udc80"])], ValueError, "not encodable as UTF-8"),
        ([("a", "null", [None, 1])], TypeError, "item 1: expected nothing or None, got int"),
        ([("a", "text_lists", [["x"]])], TypeError, "expected list of lists or None, got list"),
        ([("a", "text_lists", [[[1]]])], TypeError, "expected list of lists of str or None, got list"),
        ([("a", "text_lists", ["x"])], TypeError, "expected list or None, got str"),
        ([("a", "text_lists", [[["\udc80"]]])], ValueError, "not encodable as UTF-8"),
        ([("a", "bool", [True]), ("b", "bool", [])], ValueError, 'column "b" has 0 values where column "a" has 1'),
        ([("a", "bool", (True,))], TypeError, "columns: expected a list of"),
        ([("a", "bool")], TypeError, "columns: expected a list of"),
        ("abc", TypeError, "columns: expected a list of"),
    ],
)
def test_bad_input_raises_and_writes_nothing(
    columns: Any, error: type[Exception], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "t.parquet"
    with pytest.raises(error, match=message):
        _core.write_parquet(path, columns)
    assert not path.exists()


def test_a_failed_write_is_an_oserror_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "t.parquet"
    with pytest.raises(FileNotFoundError) as raised:
        _core.write_parquet(path, [("a", "bool", [True])])
    assert raised.value.filename == str(path)


def test_extra_columns_get_the_types_pyarrow_infers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written = spy_on_the_core_writer(monkeypatch)
    raw = fake_core_output()
    raw["queues"][0].update(new_count=5, new_ratio=0.5, new_name="x", new_flag=True)
    raw["timeseries"]["goodput"]["new_series"] = [1, 2, None]
    results = Results(raw)
    out = results.write(tmp_path / "run")
    assert {"queues.parquet", "goodput.parquet"} <= set(written)
    for table in ("queues", "goodput"):
        expected = written_by_pyarrow(results.table(table), tmp_path / f"{table}.pyarrow.parquet")
        assert_same_table(pq.read_table(out / f"{table}.parquet"), expected)
    schema = pq.read_schema(out / "queues.parquet")
    types = {name: str(schema.field(name).type) for name in ("new_count", "new_ratio", "new_name", "new_flag")}
    assert types == {"new_count": "int64", "new_ratio": "double", "new_name": "string", "new_flag": "bool"}


@pytest.mark.parametrize(
    ("changes", "column", "kind"),
    [
        pytest.param([("queues", 0, "mixed", 1), ("queues", 1, "mixed", 2.5)], "mixed", "double", id="ints and floats"),
        pytest.param([("queues", 0, "gone", None)], "gone", "null", id="an extra column of nulls only"),
        pytest.param([("queues", 0, "nested", {"a": 1})], "nested", "string", id="a nested value"),
        pytest.param([("flows", 0, "goodput_bps", 1_600_000)], "goodput_bps", "double", id="an int in a float column"),
    ],
)
def test_what_the_core_writer_does_not_take_as_it_is_is_typed_first(
    changes: list[tuple[str, int, str, Any]], column: str, kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ints among floats become floats and nulls only the null type, as pyarrow inferred them; a
    # record the core may add one day is kept as its JSON text. The file and `Results.table` agree.
    written = spy_on_the_core_writer(monkeypatch)
    raw = fake_core_output()
    for table, row, name, value in changes:
        raw[table][row][name] = value
    results = Results(raw)
    out = results.write(tmp_path / "run")
    table = changes[0][0]
    assert f"{table}.parquet" in written
    read = pq.read_table(out / f"{table}.parquet")
    assert str(read.schema.field(column).type) == kind
    assert_same_table(read, results.table(table))
    if kind == "string":
        assert read.column(column).to_pylist()[0] == '{"a": 1}'
