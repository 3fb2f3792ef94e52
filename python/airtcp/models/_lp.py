"""Sparse-matrix helpers the models' linear programs share."""

from __future__ import annotations

from collections.abc import Sequence

from scipy import sparse


def sparse_rows(entries: Sequence[tuple[int, int, float]], shape: tuple[int, int]) -> sparse.csr_array:
    """A CSR matrix from `(row, column, value)` triples (repeated positions add up)."""
    rows = [e[0] for e in entries]
    cols = [e[1] for e in entries]
    vals = [e[2] for e in entries]
    return sparse.coo_array((vals, (rows, cols)), shape=shape).tocsr()


def widen(matrix: sparse.csr_array, columns: int) -> sparse.csr_array:
    """`matrix` with empty columns appended up to `columns` (for a solver's extra variables)."""
    extra = sparse.csr_array((matrix.shape[0], columns - matrix.shape[1]))
    return sparse.hstack([matrix, extra]).tocsr()
