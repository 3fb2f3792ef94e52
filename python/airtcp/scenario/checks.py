"""How a model's fields are checked and dumped: each annotation compiled into two functions.

`compile_annotation(annotation, metadata)` returns `check(value)`, which gives the value to keep
or raises `Problems` (each a location in the value and a message of `airtcp.scenario.messages`),
and `dump(value, info)`, which gives the value as plain data (None where the value is plain data
already). The rules, pydantic 2's where the schema relies on them, are listed in
`airtcp.scenario.model` and pinned by `tests/python/test_scenario_model.py`.

A model class is recognised by its `_model_check` class method, which checks a value as that
model (this module cannot import the model module, which uses it).
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, Union

from airtcp.errors import ScenarioError, format_path
from airtcp.scenario import messages
from airtcp.scenario.fields import AfterValidator, BeforeValidator, FieldInfo, PlainSerializer, SerializationInfo

__all__ = ["Check", "Dump", "Location", "Problems", "compile_annotation", "problem"]

# A location inside the value being checked: field names (as spelled in files), list indices
# and mapping keys.
Location = tuple[Any, ...]


class Problems(Exception):
    """Raised by a check with every problem it found, located relative to the value it checked.
    The model module turns it into a `ScenarioError`."""

    def __init__(self, problems: list[tuple[Location, str]]):
        super().__init__(problems)
        self.problems = problems

    def within(self, *parts: Any) -> list[tuple[Location, str]]:
        return [((*parts, *where), message) for where, message in self.problems]

    def scenario_error(self, *parts: Any) -> ScenarioError:
        return ScenarioError.from_list([(format_path(where), message) for where, message in self.within(*parts)])


def problem(message: str, *where: Any) -> Problems:
    return Problems([(where, message)])


# Absent from a mapping or an object (None may be a value).
_ABSENT: Any = object()


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and hasattr(annotation, "_model_check")


Check = Callable[[Any], Any]
# Writes a value as plain data; None where the value is plain data already.
Dump = Callable[[Any, SerializationInfo], Any] | None


# Compiled checks and dumps, by the identity of the annotation and its metadata (the schema's 283
# fields have 160 different ones). Not by equality: Literal["a", "b"] == Literal["b", "a"], but
# their messages list the values in order. Each entry holds its annotation and metadata, so that
# their ids are not reused while it is cached.
_COMPILED: dict[tuple[int, ...], tuple[Any, tuple[Any, ...], Check, Dump]] = {}


def compile_annotation(annotation: Any, metadata: tuple[Any, ...] = ()) -> tuple[Check, Dump]:
    """The check and the dump of values of `annotation` with `Annotated` `metadata`, applied in
    order as pydantic does: a BeforeValidator wraps what precedes it (so the last one runs
    first), an AfterValidator likewise (the last one runs last)."""
    key = (id(annotation), *map(id, metadata))
    cached = _COMPILED.get(key)
    if cached is None:
        cached = _COMPILED[key] = (annotation, metadata, *_compile_new(annotation, metadata))
    return cached[2], cached[3]


def _as_it_is(value: Any) -> Any:
    return value


def _compile_new(annotation: Any, metadata: tuple[Any, ...]) -> tuple[Check, Dump]:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *inner = typing.get_args(annotation)
        metadata = (*inner, *metadata)
    constraints = FieldInfo()
    for item in metadata:
        if isinstance(item, FieldInfo):
            for name in FieldInfo.CONSTRAINTS:
                if getattr(item, name) is not None:
                    setattr(constraints, name, getattr(item, name))
    check, dump = _compile_type(annotation, constraints)
    for item in metadata:
        if isinstance(item, BeforeValidator):
            check = _before(item.func, check)
        elif isinstance(item, AfterValidator):
            check = _after(item.func, check)
        elif isinstance(item, PlainSerializer):
            dump = _serialized(item.func)
        elif not isinstance(item, FieldInfo):
            raise TypeError(f"unsupported Annotated metadata {item!r}")
    return check, dump


def _compile_type(annotation: Any, constraints: FieldInfo) -> tuple[Check, Dump]:
    origin = typing.get_origin(annotation)
    if annotation is Any:
        return _as_it_is, None  # a value checked elsewhere (a sweep's parameter values)
    if _is_model(annotation):
        if constraints.discriminator is not None:
            return _tagged_union((annotation,), constraints.discriminator), _dump_model
        return annotation._model_check, _dump_model
    if origin in (Union, types.UnionType):  # Union[X, Y] or X | Y
        members = typing.get_args(annotation)
        others = tuple(member for member in members if member is not type(None))
        if len(others) < len(members):  # Optional[...]
            inner = others[0] if len(others) == 1 else Union[others]  # noqa: UP007
            check, dump = compile_annotation(inner, (constraints,))
            return _optional(check), (None if dump is None else _optional_dump(dump))
        if constraints.discriminator is not None:
            return _tagged_union(others, constraints.discriminator), _dump_model
        compiled = [compile_annotation(member) for member in others]
        dumps = [dump for _, dump in compiled]
        lists = [dump for member, (_, dump) in zip(others, compiled) if _is_list(member)]
        if len(lists) == 1 and sum(dump is not None for dump in dumps) <= 1:
            # A keyword or a list (`NodeSet`): a list value is dumped as the list member dumps it.
            return _first_of([check for check, _ in compiled]), _list_or_as_it_is(lists[0])
        if any(dumps):
            raise TypeError(f"{annotation}: an untagged union dumps its values as they are")
        return _first_of([check for check, _ in compiled]), None
    if origin is Literal:
        values = typing.get_args(annotation)
        if not all(type(value) is str for value in values):
            raise TypeError(f"{annotation}: only Literal strings are supported")
        return _literal(values), None
    if origin is list:
        item_check, item_dump = compile_annotation(typing.get_args(annotation)[0])
        return _list(item_check, constraints.min_length or 0), _list_dump(item_dump)
    if origin is dict:
        key_type, value_type = typing.get_args(annotation)
        key_check, key_dump = compile_annotation(key_type)
        value_check, value_dump = compile_annotation(value_type)
        if key_dump is not None:
            raise TypeError(f"{annotation}: keys are dumped as they are")
        return _dict(key_check, value_check), _dict_dump(value_dump)
    if annotation is str:
        return _strict_str, None
    if annotation is bool:
        return (_strict_bool if constraints.strict else _lax_bool), None
    if annotation is int:
        return _int, None
    if annotation is float:
        return _float(constraints.allow_inf_nan is not False, constraints.ge), None
    raise TypeError(f"unsupported field type {annotation!r}")



def _before(func: Callable[[Any], Any], inner: Check) -> Check:
    def check(value: Any) -> Any:
        try:
            value = func(value)
        except ValueError as error:
            raise problem(str(error)) from None
        return inner(value)

    return check


def _after(func: Callable[[Any], Any], inner: Check) -> Check:
    def check(value: Any) -> Any:
        value = inner(value)
        try:
            return func(value)
        except ValueError as error:
            raise problem(str(error)) from None

    return check


def _optional(inner: Check) -> Check:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    return check


def _first_of(checks: list[Check]) -> Check:
    def check(value: Any) -> Any:
        for member in checks[:-1]:
            try:
                return member(value)
            except Problems:
                pass
        return checks[-1](value)

    return check


def _lookup(table: dict[str, Any], value: Any) -> Any:
    """`table[value]` for a string `value`; a subclass of str (a str Enum, whose hash is its
    name's) is compared by its text. None when absent."""
    if type(value) is str:
        return table.get(value)
    if isinstance(value, str):
        for key, item in table.items():
            if value == key:
                return item
    return None


def _literal(values: tuple[str, ...]) -> Check:
    table = {value: value for value in values}

    def check(value: Any) -> Any:
        found = _lookup(table, value)
        if found is None:
            raise problem(messages.one_of(values, value))
        return found

    return check


# Types whose objects a tagged union never reads attributes of (pydantic's list): text, numbers,
# containers, dates.
_NOT_OBJECTS = frozenset({"builtins", "datetime", "collections"})


def _tagged_union(members: tuple[Any, ...], discriminator: str) -> Check:
    table: dict[str, Check] = {}
    for member in members:
        if not _is_model(member):
            raise TypeError(f"a tagged union holds models, not {member!r}")
        tag_type = member.model_fields[discriminator].annotation
        for tag in typing.get_args(tag_type):
            table[tag] = member._model_check
    tags = tuple(table)

    def check(value: Any) -> Any:
        if type(value) is dict or isinstance(value, Mapping):
            tag = value.get(discriminator, _ABSENT)
        elif type(value).__module__ not in _NOT_OBJECTS:
            tag = getattr(value, discriminator, _ABSENT)
        else:
            raise problem(messages.expected_mapping(value))
        if tag is _ABSENT:
            raise problem(messages.missing_kind(tags), discriminator)
        member = _lookup(table, tag)
        if member is None:
            raise problem(messages.unknown_kind(tag, tags), discriminator)
        return member(value)

    return check


def _list(item: Check, min_length: int) -> Check:
    def check(value: Any) -> Any:
        if type(value) is list:
            items: Any = value
        elif isinstance(value, (str, bytes, bytearray, Mapping)):
            raise problem(messages.expected_list(value))
        else:
            try:
                items = iter(value)
            except TypeError:
                raise problem(messages.expected_list(value)) from None
        checked = []
        problems: list[tuple[Location, str]] = []
        for index, element in enumerate(items):
            try:
                checked.append(item(element))
            except Problems as bad:
                problems.extend(bad.within(index))
        if problems:
            raise Problems(problems)
        if len(checked) < min_length:
            raise problem(messages.too_short(min_length, value))
        return checked

    return check


def _dict(key_check: Check, value_check: Check) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not dict and not isinstance(value, Mapping):
            raise problem(messages.expected_mapping(value))
        checked = {}
        problems: list[tuple[Location, str]] = []
        for key, element in value.items():
            good = True
            try:
                new_key = key_check(key)
            except Problems as bad:
                # A key's own problem names the key as it is.
                problems.extend(bad.within(key if isinstance(key, str) else str(_location(key))))
                good = False
            try:
                new_value = value_check(element)
            except Problems as bad:
                problems.extend(bad.within(_location(key)))
                good = False
            if good:
                checked[new_key] = new_value
        if problems:
            raise Problems(problems)
        return checked

    return check


def _location(key: Any) -> Any:
    """A mapping key as a part of a problem's path, as pydantic writes it: text (lone surrogates
    replaced), a whole number (written `[5]`), or else the key's repr."""
    if isinstance(key, str):
        if messages.not_unicode_text(key) is None:
            return key
        return key.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(key, int) and -(2**63) <= key < 2**63:
        return int(key)
    return repr(key)


def _strict_str(value: Any) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a plain str of the same text
    raise problem(messages.invalid("a valid string", value))


def _strict_bool(value: Any) -> bool:
    if value is True or value is False:
        return value  # type: ignore[no-any-return]
    raise problem(messages.invalid("a valid boolean", value))


_TRUE_WORDS = frozenset({"t", "true", "y", "yes", "on"})
_FALSE_WORDS = frozenset({"f", "false", "n", "no", "off"})
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _lax_bool(value: Any) -> bool:
    """pydantic's lax boolean: the words above in any case, "0" and "1", 0 and 1, 0.0 and 1.0."""
    if value is True or value is False:
        return value  # type: ignore[no-any-return]
    text = value
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            raise problem(messages.invalid("a valid boolean, unable to interpret input", value)) from None
    if isinstance(text, str):
        if text == "1" or text.lower() in _TRUE_WORDS:
            return True
        if text == "0" or text.lower() in _FALSE_WORDS:
            return False
        raise problem(messages.invalid("a valid boolean, unable to interpret input", value))
    if isinstance(value, int) and _I64_MIN <= value <= _I64_MAX:
        number: float = value
    else:
        # Other numbers count if they are whole (and fit a 64-bit integer, as in pydantic).
        number = _as_float(value)  # type: ignore[assignment]
        if number is None or not (math.isfinite(number) and number.is_integer() and _I64_MIN <= number <= _I64_MAX):
            raise problem(messages.invalid("a valid boolean", value))
    if number == 0 or number == 1:
        return bool(number)
    raise problem(messages.invalid("a valid boolean, unable to interpret input", value))


def _as_float(value: Any) -> float | None:
    """`value` as a float if it is a number (has `__float__` or `__index__`), else None."""
    kind = type(value)
    if not (hasattr(kind, "__float__") or hasattr(kind, "__index__")):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):  # an int beyond floats, for one
        return None


def _int(value: Any) -> int:
    if type(value) is int:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise problem(messages.invalid("a valid integer", value))


# A number as Rust's (and so pydantic's) float parser reads it: ASCII digits, inf, infinity, nan.
_FLOAT_TEXT = re.compile(r"[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)", re.IGNORECASE)
# Unicode's White_Space characters, which Rust's str::trim removes (str.strip() removes more).
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _float_of_text(text: str) -> float | None:
    trimmed = text.strip(_WHITE_SPACE)
    if _FLOAT_TEXT.fullmatch(trimmed):
        return float(trimmed)
    # As pydantic: underscores anywhere but at either end, never two together, and no white space.
    if "_" in text and text[0] != "_" and text[-1] != "_" and "__" not in text:
        joined = text.replace("_", "")
        if _FLOAT_TEXT.fullmatch(joined):
            return float(joined)
    return None


def _lax_float(value: Any) -> float:
    """pydantic's lax float: numbers and booleans, text or bytes of a number."""
    if type(value) is float:
        return value
    if isinstance(value, (str, bytes)):
        try:
            text = value if isinstance(value, str) else value.decode("utf-8")
        except UnicodeDecodeError:
            text = ""
        number = _float_of_text(text) if text else None
        if number is None:
            raise problem(messages.invalid("a valid number, unable to parse string as a number", value))
        return number
    number = _as_float(value)
    if number is None:
        raise problem(messages.invalid("a valid number", value))
    return number


def _float(allow_inf_nan: bool, ge: float | None) -> Check:
    def check(value: Any) -> float:
        number = _lax_float(value)
        if not allow_inf_nan and not math.isfinite(number):
            raise problem(messages.invalid("a finite number", value))
        if ge is not None and not number >= ge:
            raise problem(messages.invalid(f"greater than or equal to {ge}", value))
        return number

    return check


# --- Dumping ---------------------------------------------------------------------------------


def _dump_model(value: Any, info: SerializationInfo) -> Any:
    return value._model_dump(info)


def _serialized(func: Callable[[Any, SerializationInfo], Any]) -> Dump:
    return func


def _optional_dump(inner: Callable[[Any, SerializationInfo], Any]) -> Dump:
    def dump(value: Any, info: SerializationInfo) -> Any:
        return None if value is None else inner(value, info)

    return dump


def _is_list(annotation: Any) -> bool:
    """Whether `annotation` is `list[X]` (or an `Annotated` one)."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return typing.get_origin(annotation) is list


def _list_or_as_it_is(dump: Dump) -> Dump:
    """A union member's list dump for list values, other values as they are."""
    if dump is None:
        return None
    return lambda value, info: dump(value, info) if isinstance(value, list) else value


def _list_dump(item: Dump) -> Dump:
    # Always a new list: changing the dump must not change the model.
    if item is None:
        return lambda value, info: list(value)
    return lambda value, info: [item(element, info) for element in value]


def _dict_dump(item: Dump) -> Dump:
    if item is None:
        return lambda value, info: dict(value)
    return lambda value, info: {key: item(element, info) for key, element in value.items()}
