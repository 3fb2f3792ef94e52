"""Arrow arrays assembled from Python lists, without pyarrow's pandas shim.

Every conversion pyarrow offers from Python objects (`pa.array`, `pa.table` of lists,
`Table.from_pydict`, even `pa.scalar`) first asks whether the object is a pandas one, and asking
imports pandas (and `pyarrow.pandas_compat`) when it is installed: a quarter of a second, most of
the start-up of `airtcp run`, for a command that never makes a DataFrame. The result tables hold
strings, booleans, float64 and unsigned integers, whose Arrow layout (validity bitmap, offsets,
values) is simple enough to lay out here from the standard library's `array`.

Anything else (another type, a value of an unexpected Python type, an integer out of range) goes
to `pa.array` as before, so the outcome, an array or pyarrow's error, is what it always was.
"""

from __future__ import annotations

import array
import itertools
import sys
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

__all__ = ["ARROW_TYPES", "arrow_array"]

# The column types of `airtcp.results` by name (the names the core's Parquet writer takes).
ARROW_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "bool": pa.bool_(),
    "float64": pa.float64(),
    "uint64": pa.uint64(),
    "uint32": pa.uint32(),
    "int64": pa.int64(),
    # As Parquet's LIST layout names the items (and the core's writer writes them).
    "text_lists": pa.list_(pa.field("element", pa.list_(pa.field("element", pa.string())))),
    "null": pa.null(),
}

# Arrow type -> (Python type of its values, `array` type code of its values). Only codes with the
# width Arrow uses on this machine are listed; Arrow buffers are little-endian.
_LAYOUTS: dict[pa.DataType, tuple[type, str]] = (
    {
        arrow_type: (python_type, code)
        for arrow_type, python_type, code, width in (
            (pa.float64(), float, "d", 8),
            (pa.uint64(), int, "Q", 8),
            (pa.uint32(), int, "I", 4),
        )
        if array.array(code).itemsize == width
    }
    if sys.byteorder == "little"
    else {}
)
_OFFSET_CODE = "i" if array.array("i").itemsize == 4 else None


def arrow_array(values: Sequence[Any], arrow_type: pa.DataType | None) -> pa.Array:
    """`pa.array(values, type=arrow_type)`, assembled from buffers when the type allows."""
    if arrow_type is not None:
        try:
            built = _assembled(values, arrow_type)
        except (TypeError, ValueError, OverflowError):
            built = None  # pyarrow decides: it converts differently or raises its own error
        if built is not None:
            return built
    return pa.array(values, type=arrow_type)


def _assembled(values: Sequence[Any], arrow_type: pa.DataType) -> pa.Array | None:
    """The array laid out from `values`, or None when this module does not know the layout or
    a value is not of the plain Python type it expects."""
    found = set(map(type, values))
    nulls = type(None) in found
    found.discard(type(None))
    validity = _bitmap([value is not None for value in values]) if nulls else None
    null_count = sum(value is None for value in values) if nulls else 0
    if arrow_type == pa.string() and found <= {str} and _OFFSET_CODE is not None:
        encoded = [b"" if value is None else value.encode("utf-8") for value in values]
        offsets = array.array(_OFFSET_CODE, itertools.accumulate(map(len, encoded), initial=0))
        buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    elif arrow_type == pa.bool_() and found <= {bool}:
        buffers = [validity, _bitmap([value is True for value in values])]
    elif arrow_type in _LAYOUTS and found <= {_LAYOUTS[arrow_type][0]}:
        python_type, code = _LAYOUTS[arrow_type]
        filled = [python_type() if v is None else v for v in values] if nulls else values
        buffers = [validity, pa.py_buffer(array.array(code, filled))]
    else:
        return None
    return pa.Array.from_buffers(arrow_type, len(values), buffers, null_count=null_count)


def _bitmap(bits: Sequence[bool]) -> pa.Buffer:
    """Arrow's bitmap: bit i (least significant first within each byte) set when bits[i]."""
    number = int("".join("1" if bit else "0" for bit in reversed(bits)) or "0", 2)
    return pa.py_buffer(number.to_bytes((len(bits) + 7) // 8, "little"))
