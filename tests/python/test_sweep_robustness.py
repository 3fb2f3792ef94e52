"""Sweep specs answer every input: bad values, repeated grid values and zip rows, too many runs,
seeds beyond 64 bits, and unusable spec files are refused before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from airtcp.sweep_spec import MAX_RUNS
from support import EXAMPLES, run_cli

P2P = str(EXAMPLES / "p2p_lossy.yaml")


def write_spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Specs refused before anything runs

NESTED = "base: " + P2P + "\ngrid: {duration: " + "[" * 500 + "]" * 500 + "}\n"
REFUSED_SPECS = [
    ("grid:\n  links[0].loss.per: [0.01, 0.02, 0.01]", "sweep.grid.links[0].loss.per[2]: duplicate value 0.01 (already at [0])"),
    ("grid:\n  links[0].queue.packets: [20, 20.0]", "sweep.grid.links[0].queue.packets[1]: duplicate value 20.0 (already at [0])"),
    ("zip: {duration: [1s, 2s, 1s], seed: [1, 2, 1]}", "sweep.zip: row 2 repeats row 0"),
    ("grid: {duration: [2024-01-01]}", "sweep.grid.duration[0]: a date or time (2024-01-01) is not a value a field takes"),
    ("grid: {duration: [!!binary aGVsbG8=]}", "sweep.grid.duration[0]: binary data (!!binary) is not a value a field takes"),
    ("grid:\n  links[0].loss.per: [.nan]", "sweep.grid.links[0].loss.per[0]: nan is not a finite number"),
    ("grid:\n  links[0].loss: [{per: 0.1, 3: x}]", "sweep.grid.links[0].loss[0]: field names must be text, got 3"),
    ("grid: !!set {duration}", "sweep.grid: a set is not a value a field takes"),
    ("grid: {duration: {a: 1}}", "sweep.grid.duration: expected a list"),
    ("seeds: 1000000000", f"sweep: expands to 1,000,000,000 runs (grid x zip rows x seeds); a sweep has at most {MAX_RUNS:,}"),
    ("grid: {duration: [1s, 2s]}\nseeds: 600000", "sweep: expands to 1,200,000 runs"),
    (f"seeds: [1, {2**64}]", "sweep.seeds: seeds must be between 0 and 2^64-1"),
]


@pytest.mark.parametrize(("text", "expected"), REFUSED_SPECS, ids=[e[:48] for _, e in REFUSED_SPECS])
def test_bad_spec_values_exit_2_and_write_nothing(tmp_path: Path, text: str, expected: str) -> None:
    out = tmp_path / "out"
    result = run_cli("sweep", write_spec(tmp_path, f"base: {P2P}\n{text}\n"), "--out", out, "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"\xff\xfe\x00binary", "is not a text file (expected YAML in UTF-8)"),
        (NESTED.encode(), "nested too deeply"),
        (b"x" * (16 * 2**20 + 1), "larger than 16 MiB"),
        (None, "is a directory, not a sweep file"),
    ],
    ids=["binary", "nested", "huge", "directory"],
)
def test_unusable_spec_files_exit_2(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "sweep.yaml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    result = run_cli("sweep", path, "--out", tmp_path / "out", "--quiet")
    assert result.returncode == 2, result.stderr
    assert f"error: {path}: {expected}" in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_dev_zero_as_the_spec_is_refused(tmp_path: Path) -> None:
    result = run_cli("sweep", "/dev/zero", "--out", tmp_path / "out", "--quiet")
    assert result.returncode == 2, result.stderr
    assert "error: /dev/zero: is not a regular file (a device, pipe or socket)" in result.stderr
