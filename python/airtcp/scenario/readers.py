"""How the scenario models read a field, from what the core's JSON Schema says about it.

The models (`airtcp.scenario.models`) are generated from the schema; each field's annotation is
one of the readers below, named by the schema's keywords: the unit (`x-unit`), the integer's
width (`format`), its range (`minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`,
`multipleOf`), a node name (`minLength`), a keyword or a count (`NcBlock`), a keyword or a list
(`NodeSet`: `all` or node names). A reader takes the
user's text with a unit ("20ms", "2Mbps", "250m", "-82dBm") and keeps the value in base units
(integer nanoseconds, bits per second and bytes; float metres, hertz, dBm and dB), which the core
receives; dumped in the user's form (`USER_FORM` in the dump's context) it writes the text back.

A range's message follows its shape: `must not be negative`, `must be greater than 0`, `must be
at least N` for a lower bound alone; `is too large (at most N)` past an integer's width; `must be
between A and B` for integers and `must be within [A, B)` for numbers bounded on both sides.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from airtcp.scenario import units
from airtcp.scenario.fields import AfterValidator, BeforeValidator, Field, PlainSerializer, SerializationInfo
from airtcp.scenario.messages import not_unicode_text
from airtcp.scenario.model import BaseModel

__all__ = [
    "UNIT_WRITERS",
    "USER_FORM",
    "Model",
    "Name",
    "Text",
    "at_default",
    "count_or_keyword",
    "integer",
    "keyword_or_list",
    "entries",
    "real",
]

# Serialisation context key: dump unit fields back as strings ("200s") instead of integers, so a
# model can be turned back into input for `load_scenario` (used to apply overrides to a model).
USER_FORM = "user_form"

# Each unit's reader and writer (None: a plain number, written as it is).
_PARSE: dict[str | None, Callable[[object], Any]] = {
    None: units.parse_number,
    "duration": units.parse_duration,
    "rate": units.parse_rate,
    "size": units.parse_size,
    "distance": units.parse_distance,
    "frequency": units.parse_frequency,
    "power": units.parse_power,
    "ratio": units.parse_ratio,
    "probability": units.parse_probability,
}
# How the user's form writes each quantity that needs its unit (also the generated models'
# defaults that are parts, `airtcp.scenario.model_gen`).
UNIT_WRITERS: dict[str | None, Callable[[Any], str]] = {
    "duration": units.format_duration,
    "rate": units.format_rate,
    "distance": units.format_distance,
    "frequency": units.format_frequency,
    "power": units.format_power,
    "ratio": units.format_ratio,
}


class Model(BaseModel):
    """A part of a scenario. Unknown fields are errors, like the core's `deny_unknown_fields`,
    and assigning to a field checks the value (and the whole scenario, for a `Scenario`)."""


def _serializer(unit: str | None) -> PlainSerializer:
    fmt = UNIT_WRITERS.get(unit)

    def serialize(value: Any, info: SerializationInfo) -> Any:
        if fmt is not None and info.context and info.context.get(USER_FORM):
            return fmt(value)
        return value

    return PlainSerializer(serialize)


def _number_text(number: float) -> str:
    return str(int(number)) if float(number).is_integer() and abs(number) < 2**53 else f"{number:g}"


@functools.cache
def integer(unit: str | None, *, minimum: int, maximum: int, bounded: bool = False, multiple_of: int = 1) -> Any:
    """A whole number (`unit` None: a plain count) from `minimum` to `maximum`; `bounded`: the
    schema gives the maximum itself (not only the integer's width)."""
    parse = units.parse_count if unit is None else _PARSE[unit]
    fmt = UNIT_WRITERS.get(unit)

    def validate(value: object) -> int:
        number = parse(value)
        if bounded and not minimum <= number <= maximum:
            raise ValueError(f"must be between {minimum} and {maximum}, got {units.brief_repr(value)}")
        if number < minimum:
            rule = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
            if minimum == 1 and fmt is not None:
                rule = "must be greater than 0"
            raise ValueError(f"{rule}, got {units.brief_repr(value)}")
        if number > maximum:
            most = fmt(maximum) if fmt else maximum
            raise ValueError(f"is too large (at most {most}), got {units.brief_repr(value)}")
        if number % multiple_of:
            rule = "must be even" if multiple_of == 2 else f"must be a multiple of {multiple_of}"
            raise ValueError(f"{rule}, got {units.brief_repr(value)}")
        return number

    return Annotated[int, BeforeValidator(validate), _serializer(unit)]


@functools.cache
def real(
    unit: str | None,
    *,
    minimum: float | None = None,
    exclusive_minimum: float | None = None,
    maximum: float | None = None,
    exclusive_maximum: float | None = None,
) -> Any:
    """A number (`unit` None: plain) within the bounds given (none: any finite number)."""
    parse = _PARSE[unit]
    low = minimum if exclusive_minimum is None else exclusive_minimum
    high = maximum if exclusive_maximum is None else exclusive_maximum

    def inside(number: float) -> bool:
        if low is not None and (number <= low if exclusive_minimum is not None else number < low):
            return False
        return high is None or not (number >= high if exclusive_maximum is not None else number > high)

    def rule() -> str:
        if low is not None and high is not None:
            left = "(" if exclusive_minimum is not None else "["
            right = ")" if exclusive_maximum is not None else "]"
            return f"must be within {left}{_number_text(low)}, {_number_text(high)}{right}"
        if low is not None:
            if low == 0:
                return "must be greater than 0" if exclusive_minimum is not None else "must not be negative"
            less = "must be greater than" if exclusive_minimum is not None else "must be at least"
            return f"{less} {_number_text(low)}"
        assert high is not None
        more = "must be less than" if exclusive_maximum is not None else "must be at most"
        return f"{more} {_number_text(high)}"

    def validate(value: object) -> float:
        number = parse(value)
        if not inside(number) or math.isnan(number):
            raise ValueError(f"{rule()}, got {units.brief_repr(value)}")
        return number

    checked = low is not None or high is not None
    return Annotated[float, BeforeValidator(validate if checked else parse), _serializer(unit)]


@functools.cache
def count_or_keyword(keywords: tuple[str, ...], minimum: int, maximum: int) -> Any:
    """One of `keywords`, or a whole number from `minimum` to `maximum`."""
    spelled = " or ".join(repr(keyword) for keyword in keywords)

    def validate(value: object) -> object:
        if value in keywords:
            return value
        try:
            number = units.parse_count(value)
        except units.UnitError:
            raise ValueError(f"must be {spelled} or a number, got {units.brief_repr(value)}") from None
        if not minimum <= number <= maximum:
            raise ValueError(f"must be {spelled} or between {minimum} and {maximum}, got {units.brief_repr(value)}")
        return number

    return Annotated[Union[Literal[keywords], int], BeforeValidator(validate)]  # type: ignore[valid-type]


@functools.cache
def keyword_or_list(keywords: tuple[str, ...], items: Any) -> Any:
    """One of `keywords`, or a list read by `items` (a list annotation: each item read by its
    reader, problems at their index)."""
    spelled = " or ".join(repr(keyword) for keyword in keywords)

    def validate(value: object) -> object:
        if isinstance(value, str):
            if value in keywords:
                return value
            raise ValueError(f"must be {spelled} or a list, got {units.brief_repr(value)}")
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"must be {spelled} or a list, got {units.brief_repr(value)}")
        return value

    return Annotated[Union[Literal[keywords], items], BeforeValidator(validate)]  # type: ignore[valid-type]


@functools.cache
def entries(minimum: int = 0, maximum: int | None = None) -> AfterValidator:
    """A list's length limits (`minItems`, `maxItems`)."""

    def check(items: list[Any]) -> list[Any]:
        if len(items) < minimum:
            got = "none" if not items else len(items)
            raise ValueError(f"needs at least {minimum} {'entry' if minimum == 1 else 'entries'}, got {got}")
        if maximum is not None and len(items) > maximum:
            raise ValueError(f"at most {maximum} entries, got {len(items)}")
        return items

    return AfterValidator(check)


def at_default(default: Any) -> Callable[[Any], bool]:
    """Whether a value is `default` (as plain data): such a field is left out of the normalised
    form (`x-omit-default`), so that the results of scenarios written before it keep their bytes."""
    if default is None or isinstance(default, (bool, int, float, str)):
        return lambda value: value == default and type(value) is type(default)
    if default == []:
        return lambda value: value == []

    def same(value: Any) -> bool:
        plain = value.model_dump(by_alias=True) if isinstance(value, BaseModel) else value
        return bool(plain == default)

    return same


def _unicode_text(value: str) -> str:
    problem = not_unicode_text(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _not_empty(value: str) -> str:
    if not value:
        raise ValueError("must not be empty")
    return value


# Text the core receives: a Python string may hold lone surrogates ("\udc80", from a YAML escape or
# an undecodable file name), which are not Unicode and which the core's UTF-8 JSON cannot carry.
Text = Annotated[str, Field(strict=True), AfterValidator(_unicode_text)]
# A node's name or a flow's id (`minLength: 1`).
Name = Annotated[Text, AfterValidator(_not_empty)]
