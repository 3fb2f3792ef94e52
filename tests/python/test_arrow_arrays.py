"""Arrays assembled from buffers (airtcp.arrow_arrays) equal what `pa.array` makes of the same lists."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from airtcp.arrow_arrays import arrow_array

VALUES = {
    pa.float64(): st.floats(allow_nan=False),
    pa.uint64(): st.integers(0, 2**64 - 1),
    pa.uint32(): st.integers(0, 2**32 - 1),
    pa.bool_(): st.booleans(),
    pa.string(): st.text(alphabet=st.characters(exclude_categories=["Cs"])),
}


def assert_like_pyarrow(values: list[Any], arrow_type: pa.DataType) -> None:
    built, expected = arrow_array(values, arrow_type), pa.array(values, type=arrow_type)
    built.validate(full=True)
    assert built.type == expected.type and built.null_count == expected.null_count
    assert built.equals(expected)


@pytest.mark.parametrize("arrow_type", list(VALUES), ids=str)
@given(data=st.data())
# No deadline: the first `pa.array` of the process imports pandas.
@settings(deadline=None)
def test_assembled_arrays_equal_pyarrows(arrow_type: pa.DataType, data: st.DataObject) -> None:
    values = data.draw(st.lists(st.none() | VALUES[arrow_type], max_size=40))
    assert_like_pyarrow(values, arrow_type)


@pytest.mark.parametrize(
    ("values", "arrow_type"),
    [([], pa.string()), ([None] * 9, pa.bool_()), ([True] * 17, pa.bool_()), ([None, None], pa.uint64())],
)
def test_edge_cases(values: list[Any], arrow_type: pa.DataType) -> None:
    assert_like_pyarrow(values, arrow_type)


def test_nan_stays_a_value() -> None:
    built = arrow_array([math.nan, None], pa.float64())
    assert built.null_count == 1 and math.isnan(built[0].as_py())


@pytest.mark.parametrize(
    ("values", "arrow_type"),
    [([1, 2], pa.float64()), ([1.5], pa.uint64()), ([0, "a"], pa.string()), ([1, 0], pa.bool_()), ([1, 2], None)],
)
def test_other_values_are_pyarrows_to_convert(values: list[Any], arrow_type: pa.DataType | None) -> None:
    try:
        expected = pa.array(values, type=arrow_type)
    except (pa.ArrowException, TypeError, ValueError, OverflowError) as error:
        with pytest.raises(type(error)):
            arrow_array(values, arrow_type)
    else:
        assert arrow_array(values, arrow_type).equals(expected)


@pytest.mark.parametrize(
    ("values", "arrow_type"), [([-1], pa.uint64()), ([2**64], pa.uint64()), ([2**32], pa.uint32())]
)
def test_out_of_range_integers_fail_as_in_pyarrow(values: list[int], arrow_type: pa.DataType) -> None:
    with pytest.raises((OverflowError, pa.ArrowInvalid)):
        pa.array(values, type=arrow_type)
    with pytest.raises((OverflowError, pa.ArrowInvalid)):
        arrow_array(values, arrow_type)
