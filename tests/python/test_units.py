"""Parsing of durations, rates, sizes, probabilities and counts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from airtcp.units import (
    DURATION_UNITS,
    RATE_UNITS,
    UnitError,
    format_duration,
    format_rate,
    parse_count,
    parse_duration,
    parse_probability,
    parse_rate,
    parse_size,
)


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("200s", 200_000_000_000),
        ("20ms", 20_000_000),
        ("1.5us", 1_500),
        ("100ns", 100),
        ("0.1s", 100_000_000),  # exact decimal arithmetic, no float rounding
        ("2.5 ms", 2_500_000),
        ("1e-3s", 1_000_000),
        ("0s", 0),
        (0, 0),
        ("-5ms", -5_000_000),  # the sign is kept; fields decide whether negatives are allowed
    ],
)
def test_durations(text: object, nanoseconds: int) -> None:
    assert parse_duration(text) == nanoseconds


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (20, "needs a unit"),
        ("20", "needs a unit"),
        (1.5, "needs a unit"),
        ("20 sec", "unknown duration unit 'sec'"),
        ("2min", "unknown duration unit 'min'"),
        ("20MS", "did you mean 'ms'"),
        ("1.5ns", "not a whole number of nanoseconds"),
        ("ms", "cannot read"),
        ("", "cannot read"),
        ("1..2s", "cannot read"),
        (True, "expected a duration"),
        (None, "expected a duration"),
        ([1], "expected a duration"),
        ("1e999999s", "out of range"),
    ],
)
def test_bad_durations(text: object, fragment: str) -> None:
    with pytest.raises(UnitError, match=fragment.replace(".", r"\.").replace("(", r"\(")):
        parse_duration(text)


@pytest.mark.parametrize(
    ("text", "bits_per_second"),
    [
        ("2Mbps", 2_000_000),
        ("500kbps", 500_000),
        ("11Mbps", 11_000_000),
        ("1Gbps", 1_000_000_000),
        ("64000bps", 64_000),
        ("5.5Mbps", 5_500_000),
        ("2 Mbps", 2_000_000),
    ],
)
def test_rates(text: str, bits_per_second: int) -> None:
    assert parse_rate(text) == bits_per_second


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2 Mbs", "unknown rate unit 'Mbs'"),
        ("2mbps", "did you mean 'Mbps'"),
        ("2MBps", "did you mean 'Mbps'"),
        ("2Mb/s", "cannot read"),
        (2_000_000, "needs a unit"),
        ("0.5bps", "not a whole number of bits per second"),
    ],
)
def test_bad_rates(text: object, fragment: str) -> None:
    with pytest.raises(UnitError, match=fragment):
        parse_rate(text)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        (1000, 1000),
        ("1000", 1000),
        ("1000B", 1000),
        ("64KB", 64_000),
        ("64KiB", 65_536),
        ("1.5MB", 1_500_000),
        ("1MiB", 1_048_576),
        ("2GB", 2_000_000_000),
        ("1GiB", 2**30),
        (1000.0, 1000),
    ],
)
def test_sizes(text: object, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("64kB", "did you mean 'KB'"),
        ("64kb", "did you mean 'KB'"),
        ("1.5B", "not a whole number of bytes"),
        (10.5, "not a whole number of bytes"),
        (False, "expected a size"),
        ("10 bytes", "unknown size unit 'bytes'"),
    ],
)
def test_bad_sizes(text: object, fragment: str) -> None:
    with pytest.raises(UnitError, match=fragment):
        parse_size(text)


@pytest.mark.parametrize(
    ("value", "probability"),
    [(0, 0.0), (1, 1.0), (0.01, 0.01), ("0.25", 0.25), ("1%", 0.01), ("12.5 %", 0.125)],
)
def test_probabilities(value: object, probability: float) -> None:
    assert parse_probability(value) == pytest.approx(probability)


@pytest.mark.parametrize("value", [-0.1, 1.01, "150%", float("nan"), True, "often", "0.1s", None])
def test_bad_probabilities(value: object) -> None:
    with pytest.raises(UnitError):
        parse_probability(value)


def test_counts() -> None:
    assert parse_count(3) == 3
    assert parse_count(3.0) == 3
    assert parse_count("12") == 12
    for bad in (True, 2.5, "three", None):
        with pytest.raises(UnitError, match="whole number"):
            parse_count(bad)


def test_formatting_picks_the_largest_exact_unit() -> None:
    assert format_duration(200_000_000_000) == "200s"
    assert format_duration(1_500) == "1500ns"
    assert format_duration(0) == "0s"
    assert format_rate(2_000_000) == "2Mbps"
    assert format_rate(1_500) == "1500bps"


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_duration_format_round_trips(nanoseconds: int) -> None:
    assert parse_duration(format_duration(nanoseconds)) == nanoseconds


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_rate_format_round_trips(bits_per_second: int) -> None:
    assert parse_rate(format_rate(bits_per_second)) == bits_per_second


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(sorted(DURATION_UNITS)))
def test_whole_durations_scale_exactly(amount: int, unit: str) -> None:
    assert parse_duration(f"{amount}{unit}") == amount * DURATION_UNITS[unit]


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(sorted(RATE_UNITS)))
def test_whole_rates_scale_exactly(amount: int, unit: str) -> None:
    assert parse_rate(f"{amount}{unit}") == amount * RATE_UNITS[unit]
