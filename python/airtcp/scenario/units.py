"""Parsing of the unit-carrying values a scenario file contains.

The simulator core works in integers for time and data (nanoseconds, bits per second, bytes) and
in floats for the physical quantities of radios (metres, dBm, dB, hertz). Scenario files use
human units ("20ms", "2Mbps", "64KiB", "250m", "15dBm"); this module turns them into those
numbers: the integers exactly, the floats rounded once from the exact decimal value.

Rules (also in docs/scenario-schema.md):

* A value is a number immediately followed by a unit, optionally separated by spaces: "20ms",
  "1.5 us", "2Mbps". Units are case-sensitive and must be spelled exactly as listed below, because
  "mb" vs "Mb" (bytes vs bits) is a classic source of silent factor-8 mistakes.
* Durations: ns, us, ms, s. A bare number is an error (is 20 seconds or milliseconds?), except 0.
* Rates: bps, kbps, Mbps, Gbps (decimal, bits per second). A bare number is an error.
* Sizes: B, KB, MB, GB (powers of 1000) and KiB, MiB, GiB (powers of 1024). A bare integer means
  bytes.
* Distances: m, km (-> float metres). A bare number is an error, except 0.
* Frequencies: Hz, kHz, MHz, GHz (-> float hertz). A bare number is an error, except 0.
* Power levels: dBm, mW, W (-> float dBm; mW and W are converted with 10 log10 and must be > 0).
  A bare number is always an error, even 0: 0 dBm is 1 mW, not nothing.
* Ratios: dB (-> float dB). A bare number is always an error: 10 could be a linear ratio or dB.
* Probabilities: a number in [0, 1] or a percentage string such as "1%".
* Plain numbers (a path-loss exponent): no unit.
* Durations, rates and sizes must be a whole number of the base unit: "1.5ns" is an error,
  "1.5us" is 1500 ns. Arithmetic is decimal, so "0.1s" is exactly 100000000 ns and "0.1km" is
  the float nearest to 100 m.

Every parser raises `UnitError` (a `ValueError`) with a message that says what was expected.
"""

from __future__ import annotations

import math
import re
import reprlib
from decimal import Decimal, InvalidOperation

__all__ = [
    "UnitError",
    "brief_repr",
    "parse_duration",
    "parse_rate",
    "parse_size",
    "parse_probability",
    "parse_count",
    "parse_number",
    "parse_distance",
    "parse_frequency",
    "parse_power",
    "parse_ratio",
    "format_duration",
    "format_rate",
    "format_distance",
    "format_frequency",
    "format_power",
    "format_ratio",
    "DURATION_UNITS",
    "RATE_UNITS",
    "SIZE_UNITS",
    "DISTANCE_UNITS",
    "FREQUENCY_UNITS",
    "POWER_UNITS",
    "RATIO_UNITS",
    "U32_MAX",
    "U64_MAX",
]

# The largest values of the core's unsigned integer fields. Here rather than in the schema so the
# command line can check a --seed without importing the schema.
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1


class UnitError(ValueError):
    """A value could not be read as the expected kind of quantity."""


# Multipliers to the base unit, largest first so the formatters pick the most readable unit.
DURATION_UNITS: dict[str, int] = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
RATE_UNITS: dict[str, int] = {"Gbps": 10**9, "Mbps": 10**6, "kbps": 10**3, "bps": 1}
SIZE_UNITS: dict[str, int] = {
    "GiB": 2**30,
    "GB": 10**9,
    "MiB": 2**20,
    "MB": 10**6,
    "KiB": 2**10,
    "KB": 10**3,
    "B": 1,
}
DISTANCE_UNITS: dict[str, int] = {"km": 1000, "m": 1}
FREQUENCY_UNITS: dict[str, int] = {"GHz": 10**9, "MHz": 10**6, "kHz": 10**3, "Hz": 1}
# Logarithmic and linear spellings of a power level; not multiples of one another.
POWER_UNITS: tuple[str, ...] = ("dBm", "mW", "W")
RATIO_UNITS: tuple[str, ...] = ("dB",)

# A decimal number (optional sign, optional fraction, optional exponent), then an optional unit.
_QUANTITY = re.compile(
    r"""^\s*
    (?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
    \s*
    (?P<unit>[A-Za-z%]*)
    \s*$""",
    re.VERBOSE,
)

# Refuse absurd exponents before turning them into integers ("1e999999999s").
_MAX_DIGITS = 40
# Float quantities only need to cover the range of a float (about 1e-324 to 1e308), so that every
# float written out by the formatters below reads back.
_FLOAT_DIGITS = 400


# Shows a rejected value in a message. A value may be megabytes long, hold YAML aliases that
# expand exponentially, or contain itself; a plain repr would take the time and memory of all that.
_BRIEF = reprlib.Repr()
_BRIEF.maxlevel = 2
_BRIEF.maxstring = _BRIEF.maxother = 80
_BRIEF.maxlong = 60
_BRIEF.maxlist = _BRIEF.maxtuple = _BRIEF.maxdict = _BRIEF.maxset = _BRIEF.maxfrozenset = 4
_BRIEF_LENGTH = 160
# Python refuses to turn integers of more than 4300 digits into text; this size is far below that.
_LONGEST_INT_BITS = 1000


def brief_repr(value: object) -> str:
    """`repr(value)`, shortened to part of a line: "'abcd...wxyz'", "[[...], [...], ...]"."""
    if isinstance(value, int) and value.bit_length() > _LONGEST_INT_BITS:
        return f"a whole number of {int(value.bit_length() * math.log10(2)) + 1} digits or so"
    text = _BRIEF.repr(value)
    return text if len(text) <= _BRIEF_LENGTH else f"{text[:_BRIEF_LENGTH - 3]}..."


def _describe(value: object) -> str:
    """How to show a rejected value in a message."""
    if isinstance(value, str):
        return brief_repr(value)
    return f"{brief_repr(value)} ({type(value).__name__})"


def _split(value: object, what: str, example: str, limit: int = _MAX_DIGITS) -> tuple[Decimal, str]:
    """Splits a string like "2.5 Mbps" into its number and unit."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UnitError(f"expected {what} such as {example!r}, got {_describe(value)}")
    if isinstance(value, (int, float)):
        return _to_decimal(value, value, limit), ""
    match = _QUANTITY.match(value)
    if match is None:
        raise UnitError(f"cannot read {value!r} as {what}; write a number and a unit, e.g. {example!r}")
    return _to_decimal(match["number"], value, limit), match["unit"]


def _to_decimal(number_or_text: str | int | float, original: object, limit: int = _MAX_DIGITS) -> Decimal:
    # An int directly: Python does not write ints of more than 4300 digits as text. A float by its
    # shortest text, so that 0.1 is 0.1 and not its binary expansion.
    source = number_or_text if isinstance(number_or_text, int) else str(number_or_text)
    try:
        number = Decimal(source)
    except InvalidOperation:
        raise UnitError(f"{_describe(original)} is not a number") from None
    if not number.is_finite():
        raise UnitError(f"{_describe(original)} is not a finite number")
    if number != 0 and abs(number.adjusted()) > limit:
        raise UnitError(f"{_describe(original)} is out of range")
    return number


def _unknown_unit(unit: str, value: object, what: str, units: dict[str, int] | tuple[str, ...]) -> UnitError:
    names = ", ".join(sorted(units, key=units.__getitem__) if isinstance(units, dict) else units)
    hint = ""
    for known in units:
        if known.lower() == unit.lower():
            hint = f" (did you mean {known!r}? units are case-sensitive)"
            break
    else:
        # dB and dBm are easily swapped; say which one the field wants and why.
        if unit == "dB" and "dBm" in units:
            hint = " (dB is a ratio; a power level is in dBm, mW or W)"
        elif unit in POWER_UNITS and "dB" in units:
            hint = f" ({unit} is a power level; a ratio is in dB)"
    advice = f"use one of {names}" if len(units) > 1 else f"use {names}"
    return UnitError(f"unknown {what} unit {unit!r} in {_describe(value)}{hint}; {advice}")


def _whole(number: Decimal, value: object, base: str) -> int:
    if number != number.to_integral_value():
        raise UnitError(f"{_describe(value)} is not a whole number of {base}")
    return int(number)


def parse_duration(value: object) -> int:
    """A duration in integer nanoseconds: "200s", "20ms", "1.5us", "100ns" (bare 0 allowed)."""
    number, unit = _split(value, "a duration", "20ms")
    if unit == "":
        if number == 0:
            return 0
        raise UnitError(
            f"a duration needs a unit (ns, us, ms or s), e.g. '{value}ms' or '{value}s'; "
            f"got {_describe(value)}"
        )
    if unit not in DURATION_UNITS:
        raise _unknown_unit(unit, value, "duration", DURATION_UNITS)
    return _whole(number * DURATION_UNITS[unit], value, "nanoseconds")


def parse_rate(value: object) -> int:
    """A bit rate in integer bits per second: "2Mbps", "500kbps", "1Gbps", "64000bps"."""
    number, unit = _split(value, "a rate", "2Mbps")
    if unit == "":
        raise UnitError(
            f"a rate needs a unit (bps, kbps, Mbps or Gbps), e.g. '{value}Mbps'; got {_describe(value)}"
        )
    if unit not in RATE_UNITS:
        raise _unknown_unit(unit, value, "rate", RATE_UNITS)
    return _whole(number * RATE_UNITS[unit], value, "bits per second")


def parse_size(value: object) -> int:
    """A size in integer bytes: 1000, "1000B", "64KB" (64000), "64KiB" (65536)."""
    if isinstance(value, float):
        # YAML turns "1000.0" into a float; a size is a count of bytes, so insist on a whole one.
        if not value.is_integer():
            raise UnitError(f"{_describe(value)} is not a whole number of bytes")
        return int(value)
    number, unit = _split(value, "a size", "1000B")
    if unit == "":
        return _whole(number, value, "bytes")
    if unit not in SIZE_UNITS:
        raise _unknown_unit(unit, value, "size", SIZE_UNITS)
    return _whole(number * SIZE_UNITS[unit], value, "bytes")


def parse_probability(value: object) -> float:
    """A probability in [0, 1]: 0.01, "0.01" or "1%"."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UnitError(f"expected a probability between 0 and 1, got {_describe(value)}")
    if isinstance(value, str):
        text = value.strip()
        scale = Decimal(1)
        if text.endswith("%"):
            text, scale = text[:-1].strip(), Decimal(100)
        number, unit = _split(text, "a probability", "0.01")
        if unit:
            raise UnitError(f"cannot read {brief_repr(value)} as a probability; write e.g. 0.01 or '1%'")
        result: float = float(number / scale)
    else:
        result = value  # compared before float(), which overflows for a huge int
    if not 0 <= result <= 1:  # also false for NaN
        raise UnitError(f"must be between 0 and 1, got {_describe(value)}")
    return float(result)


def parse_count(value: object) -> int:
    """A whole number without unit (packets, segments, seeds). Booleans and fractions are errors."""
    if isinstance(value, bool):
        raise UnitError(f"expected a whole number, got {_describe(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        if len(value.strip().lstrip("+-")) > _MAX_DIGITS:
            raise UnitError(f"{_describe(value)} is out of range")
        return int(value)
    raise UnitError(f"expected a whole number, got {_describe(value)}")


def _finite(number: Decimal, value: object) -> float:
    """`number` rounded to the nearest float, which must exist ("1e400m" has none)."""
    result = float(number)
    if math.isinf(result):
        raise UnitError(f"{_describe(value)} is out of range")
    return result


def parse_number(value: object) -> float:
    """A plain real number without unit (e.g. a path-loss exponent): 3, 2.7, "3.5"."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UnitError(f"expected a number, got {_describe(value)}")
    if not isinstance(value, str):
        return _finite(_to_decimal(value, value, _FLOAT_DIGITS), value)
    match = _QUANTITY.match(value)
    if match is None:
        raise UnitError(f"expected a number, got {_describe(value)}")
    if match["unit"]:
        raise UnitError(f"expected a number without unit, got {_describe(value)}")
    return _finite(_to_decimal(match["number"], value, _FLOAT_DIGITS), value)


def _linear(value: object, what: str, example: str, units: dict[str, int]) -> float:
    """A float in the base unit of `units`; a bare number is an error unless it is 0."""
    number, unit = _split(value, f"a {what}", example, _FLOAT_DIGITS)
    if unit == "":
        if number == 0:
            return 0.0
        names = sorted(units, key=units.__getitem__)
        listed = f"{', '.join(names[:-1])} or {names[-1]}"
        raise UnitError(
            f"a {what} needs a unit ({listed}), e.g. '{value}{names[0]}'; got {_describe(value)}"
        )
    if unit not in units:
        raise _unknown_unit(unit, value, what, units)
    return _finite(number * units[unit], value)


def parse_distance(value: object) -> float:
    """A distance in metres: "250m", "1.5km" (1500.0), "-20m" (bare 0 allowed)."""
    if type(value) is str and _PLAIN_METRES.match(value):
        # A node's position as programs write it ("1881.099m"), 100,000 of them in a city-scale
        # mesh: the same float as below (both round the decimal once, correctly; a number this
        # short is exact in the Decimal arithmetic), without its regular expression and Decimal.
        return float(value[:-1])
    return _linear(value, "distance", "250m", DISTANCE_UNITS)


# At most 15 significant digits in all.
_PLAIN_METRES = re.compile(r"-?\d{1,9}(?:\.\d{1,6})?m\Z")


def parse_frequency(value: object) -> float:
    """A frequency in hertz: "914MHz", "2.4GHz", "10Hz" (bare 0 allowed)."""
    return _linear(value, "frequency", "914MHz", FREQUENCY_UNITS)


def parse_power(value: object) -> float:
    """A power level in dBm: "15dBm", "281.8mW" (24.4999...), "0.1W" (20.0)."""
    number, unit = _split(value, "a power", "15dBm", _FLOAT_DIGITS)
    if unit == "":
        raise UnitError(
            f"a power needs a unit (dBm, mW or W), e.g. '{value}dBm' or '{value}mW'; got {_describe(value)}"
        )
    if unit not in POWER_UNITS:
        raise _unknown_unit(unit, value, "power", POWER_UNITS)
    if unit == "dBm":
        return _finite(number, value)
    if number <= 0:
        raise UnitError(f"a power in {unit} must be greater than 0, got {_describe(value)}")
    milliwatts = number * 1000 if unit == "W" else number
    # Decimal's log10 is correctly rounded to 28 digits, so "100mW" is exactly 20 dBm.
    return float(10 * milliwatts.log10())


def parse_ratio(value: object) -> float:
    """A power ratio in dB: "10dB", "-3 dB"."""
    number, unit = _split(value, "a ratio", "10dB", _FLOAT_DIGITS)
    if unit == "":
        raise UnitError(f"a ratio needs its unit dB, e.g. '{value}dB'; got {_describe(value)}")
    if unit not in RATIO_UNITS:
        raise _unknown_unit(unit, value, "ratio", RATIO_UNITS)
    return _finite(number, value)


def _format(amount: int, units: dict[str, int]) -> str:
    """Writes `amount` with the largest unit that divides it exactly (units sorted large first)."""
    if amount == 0:
        return f"0{next(iter(units))}"
    for unit, factor in units.items():
        if amount % factor == 0:
            return f"{amount // factor}{unit}"
    return f"{amount}{list(units)[-1]}"


def format_duration(nanoseconds: int) -> str:
    """Inverse of `parse_duration`: 200_000_000_000 -> "200s", 1500 -> "1500ns"."""
    return _format(nanoseconds, DURATION_UNITS)


def format_rate(bits_per_second: int) -> str:
    """Inverse of `parse_rate`: 2_000_000 -> "2Mbps"."""
    return _format(bits_per_second, RATE_UNITS)


def _float_text(value: float | Decimal) -> str:
    """Shortest text that reads back as the same float: 250.0 -> "250", 0.1 -> "0.1"."""
    text = str(value) if isinstance(value, Decimal) else repr(value)
    return text[:-2] if text.endswith(".0") else text


def _format_linear(value: float, units: dict[str, int]) -> str:
    """`value` in the largest unit in which it is at least 1 (the base unit if none is).

    Dividing by a power of ten is exact in decimal, so the text reads back as the same float.
    """
    exact = Decimal(repr(value))
    for unit, factor in units.items():
        scaled = exact / factor
        if abs(scaled) >= 1 or factor == 1:
            if scaled == scaled.to_integral_value() and abs(scaled) < 10**21:
                return f"{int(scaled)}{unit}"
            return f"{scaled}{unit}"
    raise AssertionError("unreachable: the base unit has factor 1")


def format_distance(metres: float) -> str:
    """Inverse of `parse_distance`: 250.0 -> "250m", 1500.0 -> "1.5km"."""
    return _format_linear(metres, DISTANCE_UNITS)


def format_frequency(hertz: float) -> str:
    """Inverse of `parse_frequency`: 914e6 -> "914MHz", 2.4e9 -> "2.4GHz"."""
    return _format_linear(hertz, FREQUENCY_UNITS)


def format_power(dbm: float) -> str:
    """Inverse of `parse_power`: 24.4999 -> "24.4999dBm"."""
    return f"{_float_text(dbm)}dBm"


def format_ratio(decibels: float) -> str:
    """Inverse of `parse_ratio`: 10.0 -> "10dB"."""
    return f"{_float_text(decibels)}dB"
