"""Parsing of durations, rates, sizes, probabilities and counts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from airtcp.scenario.units import (
    DISTANCE_UNITS,
    DURATION_UNITS,
    FREQUENCY_UNITS,
    RATE_UNITS,
    UnitError,
    format_distance,
    format_duration,
    format_frequency,
    format_power,
    format_rate,
    format_ratio,
    parse_count,
    parse_distance,
    parse_duration,
    parse_frequency,
    parse_number,
    parse_power,
    parse_probability,
    parse_rate,
    parse_ratio,
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


# --- The physical quantities of radios: floats in metres, hertz, dBm and dB ------------------------


@pytest.mark.parametrize(
    ("text", "metres"),
    [
        ("250m", 250.0),
        ("1.5km", 1500.0),
        ("0.1km", 100.0),  # decimal arithmetic: exactly the float nearest to 100
        ("200 m", 200.0),
        ("-20m", -20.0),  # coordinates may be negative; lengths are checked by their fields
        ("12.5m", 12.5),
        ("1e3m", 1000.0),
        ("0m", 0.0),
        (0, 0.0),
        (0.0, 0.0),
    ],
)
def test_distances(text: object, metres: float) -> None:
    result = parse_distance(text)
    assert isinstance(result, float) and result == metres


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (250, "a distance needs a unit (m or km), e.g. '250m'; got 250 (int)"),
        ("250", "a distance needs a unit (m or km)"),
        (2.5, "a distance needs a unit"),
        ("250M", "unknown distance unit 'M' in '250M' (did you mean 'm'? units are case-sensitive); use one of m, km"),
        ("1.5Km", "did you mean 'km'"),
        ("250 meters", "unknown distance unit 'meters'"),
        ("3ft", "unknown distance unit 'ft'"),
        ("m", "cannot read 'm' as a distance"),
        (True, "expected a distance such as '250m', got True (bool)"),
        (None, "expected a distance"),
        ("1e999m", "out of range"),
        ("1e308km", "out of range"),  # no float that large
    ],
)
def test_bad_distances(text: object, fragment: str) -> None:
    with pytest.raises(UnitError) as caught:
        parse_distance(text)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("text", "hertz"),
    [("914MHz", 914e6), ("2.4GHz", 2.4e9), ("2412 MHz", 2.412e9), ("10Hz", 10.0), ("0.5Hz", 0.5), ("5kHz", 5e3),
     (0, 0.0)],
)
def test_frequencies(text: object, hertz: float) -> None:
    assert parse_frequency(text) == hertz


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (914e6, "a frequency needs a unit (Hz, kHz, MHz or GHz)"),
        ("914", "a frequency needs a unit"),
        ("914mhz", "unknown frequency unit 'mhz' in '914mhz' (did you mean 'MHz'? units are case-sensitive); "
                   "use one of Hz, kHz, MHz, GHz"),
        ("2.4 Ghz", "did you mean 'GHz'"),
        ("5KHz", "did you mean 'kHz'"),
        ("10rpm", "unknown frequency unit 'rpm'"),
        (False, "expected a frequency"),
    ],
)
def test_bad_frequencies(text: object, fragment: str) -> None:
    with pytest.raises(UnitError) as caught:
        parse_frequency(text)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(
    ("text", "dbm"),
    [
        ("15dBm", 15.0),
        ("-64.3748dBm", -64.3748),
        ("0dBm", 0.0),
        ("1mW", 0.0),
        ("100mW", 20.0),
        ("1W", 30.0),
        ("0.1 W", 20.0),
        ("281.83815mW", 10 * math.log10(281.83815)),  # ns-2's transmit power
        ("3.652e-10W", 10 * math.log10(3.652e-7)),  # ns-2's receive threshold
    ],
)
def test_powers(text: str, dbm: float) -> None:
    assert parse_power(text) == pytest.approx(dbm, abs=1e-12)


def test_powers_in_watts_are_converted_exactly() -> None:
    # Decimal logarithms: whole decades come out as exact dBm values, not 19.999999999999996.
    assert parse_power("100mW") == 20.0
    assert parse_power("1e-9mW") == -90.0
    assert parse_power("10W") == 40.0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (15, "a power needs a unit (dBm, mW or W), e.g. '15dBm' or '15mW'; got 15 (int)"),
        (0, "a power needs a unit"),  # 0 dBm is 1 mW: a bare 0 is not obvious either
        ("15", "a power needs a unit"),
        ("15dB", "unknown power unit 'dB' in '15dB' (dB is a ratio; a power level is in dBm, mW or W); "
                 "use one of dBm, mW, W"),
        ("15dbm", "did you mean 'dBm'"),
        ("15DBM", "did you mean 'dBm'"),
        ("100mw", "did you mean 'mW'"),
        ("1kW", "unknown power unit 'kW'"),
        ("0mW", "a power in mW must be greater than 0, got '0mW'"),
        ("-1W", "a power in W must be greater than 0, got '-1W'"),
        ([15], "expected a power such as '15dBm', got [15] (list)"),
    ],
)
def test_bad_powers(text: object, fragment: str) -> None:
    with pytest.raises(UnitError) as caught:
        parse_power(text)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(("text", "decibels"), [("10dB", 10.0), ("-3 dB", -3.0), ("46.6777dB", 46.6777), ("0dB", 0.0)])
def test_ratios(text: str, decibels: float) -> None:
    assert parse_ratio(text) == decibels


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (10, "a ratio needs its unit dB, e.g. '10dB'; got 10 (int)"),
        (0, "a ratio needs its unit dB"),
        ("10dBm", "unknown ratio unit 'dBm' in '10dBm' (dBm is a power level; a ratio is in dB); use dB"),
        ("10mW", "(mW is a power level; a ratio is in dB)"),
        ("10db", "did you mean 'dB'"),
        ("10x", "unknown ratio unit 'x'"),
        (None, "expected a ratio"),
    ],
)
def test_bad_ratios(text: object, fragment: str) -> None:
    with pytest.raises(UnitError) as caught:
        parse_ratio(text)
    assert fragment in str(caught.value)


def test_plain_numbers() -> None:
    assert parse_number(3) == 3.0
    assert parse_number(2.7) == 2.7
    assert parse_number("3.5") == 3.5
    for bad, fragment in [("3dB", "without unit"), ("three", "expected a number"), (True, "expected a number"),
                          (None, "expected a number"), (float("nan"), "not a finite number")]:
        with pytest.raises(UnitError, match=fragment):
            parse_number(bad)


def test_physical_formatting_is_readable() -> None:
    assert format_distance(250.0) == "250m"
    assert format_distance(1500.0) == "1.5km"
    assert format_distance(0.25) == "0.25m"
    assert format_distance(-1500.0) == "-1.5km"
    assert format_distance(0.0) == "0m"
    assert format_frequency(914e6) == "914MHz"
    assert format_frequency(2.4e9) == "2.4GHz"
    assert format_frequency(0.5) == "0.5Hz"
    assert format_power(24.4999) == "24.4999dBm"
    assert format_power(-93.58) == "-93.58dBm"
    assert format_ratio(10.0) == "10dB"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_distance_and_frequency_format_round_trip(value: float) -> None:
    assert parse_distance(format_distance(value)) == value
    assert parse_frequency(format_frequency(value)) == value


_AMOUNTS = {"min_value": -(10**15), "max_value": 10**15, "allow_nan": False, "allow_infinity": False}


@given(st.decimals(places=6, **_AMOUNTS), st.sampled_from(sorted(DISTANCE_UNITS)))
def test_distances_scale_by_their_unit(amount: object, unit: str) -> None:
    assert parse_distance(f"{amount}{unit}") == float(amount * DISTANCE_UNITS[unit])  # type: ignore[operator]


@given(st.decimals(places=3, **_AMOUNTS), st.sampled_from(sorted(FREQUENCY_UNITS)))
def test_frequencies_scale_by_their_unit(amount: object, unit: str) -> None:
    assert parse_frequency(f"{amount}{unit}") == float(amount * FREQUENCY_UNITS[unit])  # type: ignore[operator]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_power_and_ratio_format_round_trip(value: float) -> None:
    assert parse_power(format_power(value)) == value
    assert parse_ratio(format_ratio(value)) == value


@given(st.floats(min_value=1e-30, max_value=1e30, allow_nan=False))
def test_milliwatts_and_watts_agree(milliwatts: float) -> None:
    assert parse_power(f"{milliwatts!r}mW") == pytest.approx(10 * math.log10(milliwatts), abs=1e-9)
    assert parse_power(f"{milliwatts!r}mW") == pytest.approx(parse_power(f"{milliwatts / 1000!r}W"), abs=1e-9)


@given(st.from_regex(r"-?\d{1,12}(\.\d{0,8})?m", fullmatch=True))
def test_plain_metres_read_as_the_general_reader_reads_them(text: str) -> None:
    # parse_distance's shortcut for positions ("1881.099m") gives the float the Decimal path gives,
    # sign of zero included; texts beyond its 15 digits take the general path.
    from airtcp.scenario import units

    assert repr(parse_distance(text)) == repr(units._linear(text, "distance", "250m", DISTANCE_UNITS))
