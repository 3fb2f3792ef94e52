"""Models declared like pydantic's, checked by a small engine of our own.

The scenario schema (`airtcp.scenario.schema`) was written with pydantic. Importing pydantic
took about 65 ms (with the look-up of its plugins through `importlib.metadata`) and building the
schema's 66 models 40 to 70 ms more: over half of `airtcp run` for a small scenario. This module
keeps the schema's declarations as they were (a class per model, a field per annotation,
`Annotated` metadata for the unit parsers) and builds all 66 models in about 5 ms: each
annotation is compiled once into a plain function that checks a value and one that dumps it.
Checking a file's data then costs what the unit parsers cost, which pydantic called too.

Why not something else: pydantic's deferred building (`defer_build`) only moves the build to
the first validation, which every run does, and leaves pydantic's own import; another library
(msgspec, attrs with cattrs) would be a new dependency with its own coercions and error words,
which the schema's users and tests know as pydantic's, reworded. The schema needs a small part
of pydantic, and owning it lets the problems be worded at the source instead of translated.

Only what the schema uses is supported, with pydantic's names and meaning:

- `class M(BaseModel)` with annotated fields in order (the normalised JSON keeps it), defaults,
  `Field(default=..., default_factory=..., alias=...)`, and `model_validator(mode="after")`
  methods, which run once every field is valid. Unknown fields are always errors and assignment
  is always checked (pydantic's `extra="forbid"`, `validate_assignment=True`).
- Field types: `str`, `bool`, `int`, `float`, `Literal` of strings, `Optional[X]`, `list[X]`,
  `dict[K, V]`, models, unions of models tagged by a field (`Field(discriminator="kind")`),
  other unions (the first member that accepts the value wins), and `Annotated[X, ...]` with
  `BeforeValidator`, `AfterValidator`, `PlainSerializer` and `Field(strict=..., ge=...,
  allow_inf_nan=..., min_length=..., discriminator=...)`. Validators raise `ValueError`, whose
  text becomes the problem's message; any other exception goes through (the scenario's own
  cross-field check raises `ScenarioError` with its paths).
- `model_fields` (name -> `FieldInfo` with `annotation`, `alias`, `default`, `default_factory`,
  `metadata`, `is_required()`, `get_default()`), `model_validate`, keyword construction,
  `model_dump(mode=..., by_alias=..., context=...)`, `model_copy(update=..., deep=...)`, `==`,
  `repr`, copying and pickling.

Values are read as pydantic 2 reads them where the schema relies on it: `str` fields take
strings only (`Field(strict=True)` everywhere, the schema's `Text`); `StrictBool` takes `True`
and `False` only, a plain `bool` also 0 and 1, 0.0 and 1.0, and the strings 0, 1, f, false, n,
no, off, on, t, true, y, yes in any case; a `float` takes numbers, booleans, and text or bytes
of a number (with surrounding white space, or underscores inside it); an `int` takes integers
only, because every whole-number field of the schema reads its input with a `BeforeValidator`;
a list takes any iterable but text and mappings; a model takes a mapping or an instance of the
model (taken as it is); a tagged union reads the tag of a mapping, or the attribute of an
object that is not of a built-in type, as pydantic does. `tests/python/test_scenario_model.py`
pins these rules.

Problems are collected, not only the first: each is a path in the file's terms
(`links[0].loss.per`, aliases such as `from`, no union tags) and a message from
`airtcp.scenario.messages`, and `model_validate` raises them together as one `ScenarioError`.

Where this parts from pydantic: text that is not Unicode (lone surrogates) in a value or a tag is
reported like any other wrong value, and a field name that is not Unicode as one problem among
the others (pydantic reported it alone, as a field name even when it was a value); a refused
assignment leaves the model unchanged; construction, `model_validate` and assignment raise
`ScenarioError`, not pydantic's `ValidationError`; assigning to a name that is no field raises
`AttributeError`.

Annotations must be objects, not strings: a module declaring models must not use
`from __future__ import annotations` (this one declares none). Evaluating annotations at class
creation is also what keeps building a model cheap.
"""

from __future__ import annotations

import copy
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar, Union

from airtcp.errors import ScenarioError, format_path
from airtcp.scenario import messages

__all__ = [
    "AfterValidator",
    "BaseModel",
    "BeforeValidator",
    "Field",
    "FieldInfo",
    "PlainSerializer",
    "SerializationInfo",
    "StrictBool",
    "model_validator",
]


class _Unset:
    """The default of a field that has none."""

    def __repr__(self) -> str:
        return "<required>"


_UNSET: Any = _Unset()

# A location inside the value being checked: field names (as spelled in files), list indices
# and mapping keys.
Location = tuple[Any, ...]


class _Problems(Exception):
    """Raised by a check with every problem it found, located relative to the value it checked.
    Never escapes this module: `model_validate` turns it into a `ScenarioError`."""

    def __init__(self, problems: list[tuple[Location, str]]):
        super().__init__(problems)
        self.problems = problems

    def within(self, *parts: Any) -> list[tuple[Location, str]]:
        return [((*parts, *where), message) for where, message in self.problems]

    def scenario_error(self, *parts: Any) -> ScenarioError:
        return ScenarioError.from_list([(format_path(where), message) for where, message in self.within(*parts)])


def _problem(message: str, *where: Any) -> _Problems:
    return _Problems([(where, message)])


# --- Declarations ----------------------------------------------------------------------------


class BeforeValidator:
    """`Annotated` metadata: `func(value)` turns the raw input into what the type checks."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func


class AfterValidator:
    """`Annotated` metadata: `func(value)` checks (and may change) the value the type accepted."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func


class PlainSerializer:
    """`Annotated` metadata: `func(value, info)` is what `model_dump` writes for the value;
    `info.context` is the dump's `context`."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any, SerializationInfo], Any]):
        self.func = func


class SerializationInfo:
    """What a `PlainSerializer` is told about the dump in progress."""

    __slots__ = ("by_alias", "context")

    def __init__(self, context: Any, by_alias: bool):
        self.context = context
        self.by_alias = by_alias


class FieldInfo:
    """A field: its type (`annotation`, outer `Annotated` removed into `metadata`), default and
    alias, and the constraints given with `Field(...)`."""

    __slots__ = ("alias", "allow_inf_nan", "annotation", "default", "default_factory", "discriminator",
                 "ge", "metadata", "min_length", "strict")

    def __init__(
        self,
        default: Any = _UNSET,
        *,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        discriminator: str | None = None,
        strict: bool | None = None,
        min_length: int | None = None,
        ge: float | None = None,
        allow_inf_nan: bool | None = None,
    ):
        if default is not _UNSET and default_factory is not None:
            raise TypeError("a field takes a default or a default_factory, not both")
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.discriminator = discriminator
        self.strict = strict
        self.min_length = min_length
        self.ge = ge
        self.allow_inf_nan = allow_inf_nan
        self.annotation: Any = None
        self.metadata: list[Any] = []

    def is_required(self) -> bool:
        return self.default is _UNSET and self.default_factory is None

    def get_default(self, *, call_default_factory: bool = False) -> Any:
        """The default; with a factory, what it makes if `call_default_factory` (else None)."""
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else None
        return self.default

    def __repr__(self) -> str:
        shown = {name: getattr(self, name) for name in ("annotation", "default", "alias", "discriminator")}
        return f"FieldInfo({', '.join(f'{k}={v!r}' for k, v in shown.items() if v is not None)})"


def Field(  # noqa: N802 - named like pydantic's
    default: Any = _UNSET,
    *,
    default_factory: Callable[[], Any] | None = None,
    alias: str | None = None,
    discriminator: str | None = None,
    strict: bool | None = None,
    min_length: int | None = None,
    ge: float | None = None,
    allow_inf_nan: bool | None = None,
) -> Any:
    """A field's default and alias (as a class attribute), or constraints (in `Annotated`)."""
    return FieldInfo(
        default,
        default_factory=default_factory,
        alias=alias,
        discriminator=discriminator,
        strict=strict,
        min_length=min_length,
        ge=ge,
        allow_inf_nan=allow_inf_nan,
    )


StrictBool = typing.Annotated[bool, Field(strict=True)]

_F = TypeVar("_F", bound=Callable[..., Any])


def model_validator(*, mode: Literal["after"]) -> Callable[[_F], _F]:
    """Marks a method `check(self) -> self` to run once every field of the model is valid; a
    `ValueError` it raises is a problem located at the model."""
    if mode != "after":
        raise ValueError("only model_validator(mode='after') is supported")

    def mark(method: _F) -> _F:
        method.__model_validator__ = mode  # type: ignore[attr-defined]
        return method

    return mark


# --- Models ----------------------------------------------------------------------------------


class _Slot:
    """How a model reads, writes and dumps one field."""

    __slots__ = ("check", "default", "dump", "factory", "key", "name")

    def __init__(self, name: str, info: FieldInfo):
        self.name = name
        self.key = info.alias or name  # as a file spells it
        self.default = info.default
        self.factory = info.default_factory
        extra = [info] if _has_constraints(info) else []
        self.check, self.dump = _compile(info.annotation, (*info.metadata, *extra))


class BaseModel:
    """A model of part of a scenario; subclasses declare fields as annotations."""

    model_fields: ClassVar[dict[str, FieldInfo]] = {}
    # Built per subclass by __init_subclass__.
    _model_slots: ClassVar[tuple[_Slot, ...]] = ()
    _model_slot_by_name: ClassVar[dict[str, _Slot]] = {}
    _model_keys: ClassVar[frozenset[str]] = frozenset()
    _model_after: ClassVar[tuple[Callable[[Any], Any], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.model_fields)  # inherited ones first
        for name, annotation in cls.__annotations__.items():
            if isinstance(annotation, str):
                raise TypeError(
                    f"{cls.__name__}.{name}: the annotation is the string {annotation!r}; a module "
                    "declaring models must not use `from __future__ import annotations`"
                )
            if typing.get_origin(annotation) is ClassVar:
                continue
            if name.startswith("_"):
                raise TypeError(f"{cls.__name__}.{name}: field names must not start with an underscore")
            default = cls.__dict__.get(name, _UNSET)
            info = default if isinstance(default, FieldInfo) else FieldInfo(default)
            if typing.get_origin(annotation) is typing.Annotated:
                annotation, *metadata = typing.get_args(annotation)
                info.metadata = metadata
            info.annotation = annotation
            if name in cls.__dict__:
                delattr(cls, name)  # instances hold their values; a class attribute would hide a missing one
            fields[name] = info
        cls.model_fields = fields
        cls._model_slots = tuple(_Slot(name, info) for name, info in fields.items())
        cls._model_slot_by_name = {slot.name: slot for slot in cls._model_slots}
        cls._model_keys = frozenset(slot.key for slot in cls._model_slots)
        own = [m for m in cls.__dict__.values() if getattr(m, "__model_validator__", None) == "after"]
        cls._model_after = (*super(cls, cls)._model_after, *own)

    def __init__(self, **data: Any):
        """Checks `data` (fields by the names files use: `from`, not `from_`)."""
        try:
            self.__dict__.update(type(self)._model_fields_of(data))
            type(self)._model_finish(self)
        except _Problems as found:
            raise found.scenario_error() from None

    @classmethod
    def model_validate(cls: type[_M], obj: Any) -> _M:
        """`obj` (a mapping shaped like the file, or an instance) as a checked model; raises
        `ScenarioError` with every problem."""
        try:
            return cls._model_check(obj)
        except _Problems as found:
            raise found.scenario_error() from None

    def model_dump(self, *, mode: str = "python", by_alias: bool = False, context: Any = None) -> dict[str, Any]:
        """The model as plain data, fields in order, every field present. Values are already
        JSON's types, so `mode` ("python" or "json") makes no difference."""
        if mode not in ("python", "json"):
            raise ValueError(f"mode must be 'python' or 'json', got {mode!r}")
        return self._model_dump(SerializationInfo(context, by_alias))

    def model_copy(self: _M, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> _M:
        """A copy, with the fields in `update` replaced (not checked, as in pydantic)."""
        copied = copy.deepcopy(self) if deep else copy.copy(self)
        if update:
            copied.__dict__.update(update)
        return copied

    def __setattr__(self, name: str, value: Any) -> None:
        slot = self._model_slot_by_name.get(name)
        if slot is None:
            raise AttributeError(f"{type(self).__name__!r} object has no field {name!r}")
        try:
            value = slot.check(value)
        except _Problems as found:
            raise found.scenario_error(slot.key) from None
        values = self.__dict__
        old = values.get(name, _UNSET)
        values[name] = value
        try:
            for check in self._model_after:
                try:
                    check(self)
                except ValueError as error:
                    raise ScenarioError(slot.key, str(error)) from None
        except BaseException:
            # Unlike pydantic, a refused assignment leaves the model as it was.
            if old is _UNSET:
                del values[name]
            else:
                values[name] = old
            raise

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment] - mutable, like pydantic's models

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({fields})"

    # --- The engine's side ---

    @classmethod
    def _model_check(cls: type[_M], value: Any) -> _M:
        if isinstance(value, cls):
            return value  # an instance is taken as it is (pydantic's revalidate_instances="never")
        model = cls.__new__(cls)
        model.__dict__.update(cls._model_fields_of(value))
        return cls._model_finish(model)

    @classmethod
    def _model_fields_of(cls, data: Any) -> dict[str, Any]:
        """The checked value of every field of `data`, a mapping."""
        if type(data) is not dict and not isinstance(data, Mapping):  # the exact type first: faster
            raise _problem(messages.expected_mapping(data))
        values: dict[str, Any] = {}
        problems: list[tuple[Location, str]] = []
        found = 0
        for slot in cls._model_slots:
            key = slot.key
            if key in data:
                found += 1
                try:
                    values[slot.name] = slot.check(data[key])
                except _Problems as bad:
                    problems.extend(bad.within(key))
            elif slot.factory is not None:
                values[slot.name] = slot.factory()
            elif slot.default is not _UNSET:
                values[slot.name] = slot.default
            else:
                problems.append(((key,), messages.missing()))
        if found != len(data):
            problems.extend(cls._model_unknown_keys(data))
        if problems:
            raise _Problems(problems)
        return values

    @classmethod
    def _model_unknown_keys(cls, data: Mapping[Any, Any]) -> list[tuple[Location, str]]:
        """A problem for each key of `data` that is not a field, after the fields' problems."""
        problems: list[tuple[Location, str]] = []
        allowed = [slot.key for slot in cls._model_slots]
        for key in data:
            if not isinstance(key, str):
                problems.append(((), messages.field_name_not_text(key)))  # located at the mapping
            elif key not in cls._model_keys:
                if messages.not_unicode_text(key) is not None:
                    problems.append(((key,), messages.field_name_not_unicode(key)))
                else:
                    problems.append(((key,), messages.unknown_field(key, allowed)))
        return problems

    @classmethod
    def _model_finish(cls, model: _M) -> _M:
        for check in cls._model_after:
            try:
                model = check(model)
            except ValueError as error:
                raise _problem(str(error)) from None
        return model

    def _model_dump(self, info: SerializationInfo) -> dict[str, Any]:
        values = self.__dict__
        by_alias = info.by_alias
        dumped = {}
        for slot in self._model_slots:
            value = values[slot.name]
            dumped[slot.key if by_alias else slot.name] = value if slot.dump is None else slot.dump(value, info)
        return dumped


_M = TypeVar("_M", bound=BaseModel)


# --- Compiling annotations -------------------------------------------------------------------

Check = Callable[[Any], Any]
# Writes a value as plain data; None where the value is plain data already.
Dump = Callable[[Any, SerializationInfo], Any] | None


def _has_constraints(info: FieldInfo) -> bool:
    return any(
        value is not None
        for value in (info.discriminator, info.strict, info.min_length, info.ge, info.allow_inf_nan)
    )


# Compiled checks and dumps, by the identity of the annotation and its metadata (the schema's 283
# fields have 160 different ones). Not by equality: Literal["a", "b"] == Literal["b", "a"], but
# their messages list the values in order. Each entry holds its annotation and metadata, so that
# their ids are not reused while it is cached.
_COMPILED: dict[tuple[int, ...], tuple[Any, tuple[Any, ...], Check, Dump]] = {}


def _compile(annotation: Any, metadata: tuple[Any, ...] = ()) -> tuple[Check, Dump]:
    """The check and the dump of values of `annotation` with `Annotated` `metadata`, applied in
    order as pydantic does: a BeforeValidator wraps what precedes it (so the last one runs
    first), an AfterValidator likewise (the last one runs last)."""
    key = (id(annotation), *map(id, metadata))
    cached = _COMPILED.get(key)
    if cached is None:
        cached = _COMPILED[key] = (annotation, metadata, *_compile_new(annotation, metadata))
    return cached[2], cached[3]


def _compile_new(annotation: Any, metadata: tuple[Any, ...]) -> tuple[Check, Dump]:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *inner = typing.get_args(annotation)
        metadata = (*inner, *metadata)
    constraints = FieldInfo()
    for item in metadata:
        if isinstance(item, FieldInfo):
            for name in ("discriminator", "strict", "min_length", "ge", "allow_inf_nan"):
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
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if constraints.discriminator is not None:
            return _tagged_union((annotation,), constraints.discriminator), _dump_model
        return annotation._model_check, _dump_model
    if origin in (Union, types.UnionType):  # Union[X, Y] or X | Y
        members = typing.get_args(annotation)
        others = tuple(member for member in members if member is not type(None))
        if len(others) < len(members):  # Optional[...]
            inner = others[0] if len(others) == 1 else Union[others]  # noqa: UP007
            check, dump = _compile(inner, (constraints,))
            return _optional(check), (None if dump is None else _optional_dump(dump))
        if constraints.discriminator is not None:
            return _tagged_union(others, constraints.discriminator), _dump_model
        compiled = [_compile(member) for member in others]
        dumps = [dump for _, dump in compiled]
        if any(dumps):
            raise TypeError(f"{annotation}: an untagged union dumps its values as they are")
        return _first_of([check for check, _ in compiled]), None
    if origin is Literal:
        values = typing.get_args(annotation)
        if not all(type(value) is str for value in values):
            raise TypeError(f"{annotation}: only Literal strings are supported")
        return _literal(values), None
    if origin is list:
        item_check, item_dump = _compile(typing.get_args(annotation)[0])
        return _list(item_check, constraints.min_length or 0), _list_dump(item_dump)
    if origin is dict:
        key_type, value_type = typing.get_args(annotation)
        key_check, key_dump = _compile(key_type)
        value_check, value_dump = _compile(value_type)
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
            raise _problem(str(error)) from None
        return inner(value)

    return check


def _after(func: Callable[[Any], Any], inner: Check) -> Check:
    def check(value: Any) -> Any:
        value = inner(value)
        try:
            return func(value)
        except ValueError as error:
            raise _problem(str(error)) from None

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
            except _Problems:
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
            raise _problem(messages.one_of(values, value))
        return found

    return check


# Types whose objects a tagged union never reads attributes of (pydantic's list): text, numbers,
# containers, dates.
_NOT_OBJECTS = frozenset({"builtins", "datetime", "collections"})


def _tagged_union(members: tuple[Any, ...], discriminator: str) -> Check:
    table: dict[str, Check] = {}
    for member in members:
        if not (isinstance(member, type) and issubclass(member, BaseModel)):
            raise TypeError(f"a tagged union holds models, not {member!r}")
        tag_type = member.model_fields[discriminator].annotation
        for tag in typing.get_args(tag_type):
            table[tag] = member._model_check
    tags = tuple(table)

    def check(value: Any) -> Any:
        if type(value) is dict or isinstance(value, Mapping):
            tag = value.get(discriminator, _UNSET)
        elif type(value).__module__ not in _NOT_OBJECTS:
            tag = getattr(value, discriminator, _UNSET)
        else:
            raise _problem(messages.expected_mapping(value))
        if tag is _UNSET:
            raise _problem(messages.missing_kind(tags), discriminator)
        member = _lookup(table, tag)
        if member is None:
            raise _problem(messages.unknown_kind(tag, tags), discriminator)
        return member(value)

    return check


def _list(item: Check, min_length: int) -> Check:
    def check(value: Any) -> Any:
        if type(value) is list:
            items: Any = value
        elif isinstance(value, (str, bytes, bytearray, Mapping)):
            raise _problem(messages.expected_list(value))
        else:
            try:
                items = iter(value)
            except TypeError:
                raise _problem(messages.expected_list(value)) from None
        checked = []
        problems: list[tuple[Location, str]] = []
        for index, element in enumerate(items):
            try:
                checked.append(item(element))
            except _Problems as bad:
                problems.extend(bad.within(index))
        if problems:
            raise _Problems(problems)
        if len(checked) < min_length:
            raise _problem(messages.too_short(min_length, value))
        return checked

    return check


def _dict(key_check: Check, value_check: Check) -> Check:
    def check(value: Any) -> Any:
        if type(value) is not dict and not isinstance(value, Mapping):
            raise _problem(messages.expected_mapping(value))
        checked = {}
        problems: list[tuple[Location, str]] = []
        for key, element in value.items():
            good = True
            try:
                new_key = key_check(key)
            except _Problems as bad:
                # A key's own problem names the key as it is.
                problems.extend(bad.within(key if isinstance(key, str) else str(_location(key))))
                good = False
            try:
                new_value = value_check(element)
            except _Problems as bad:
                problems.extend(bad.within(_location(key)))
                good = False
            if good:
                checked[new_key] = new_value
        if problems:
            raise _Problems(problems)
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
    raise _problem(messages.invalid("a valid string", value))


def _strict_bool(value: Any) -> bool:
    if value is True or value is False:
        return value  # type: ignore[no-any-return]
    raise _problem(messages.invalid("a valid boolean", value))


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
            raise _problem(messages.invalid("a valid boolean, unable to interpret input", value)) from None
    if isinstance(text, str):
        if text == "1" or text.lower() in _TRUE_WORDS:
            return True
        if text == "0" or text.lower() in _FALSE_WORDS:
            return False
        raise _problem(messages.invalid("a valid boolean, unable to interpret input", value))
    if isinstance(value, int) and _I64_MIN <= value <= _I64_MAX:
        number: float = value
    else:
        # Other numbers count if they are whole (and fit a 64-bit integer, as in pydantic).
        number = _as_float(value)  # type: ignore[assignment]
        if number is None or not (math.isfinite(number) and number.is_integer() and _I64_MIN <= number <= _I64_MAX):
            raise _problem(messages.invalid("a valid boolean", value))
    if number == 0 or number == 1:
        return bool(number)
    raise _problem(messages.invalid("a valid boolean, unable to interpret input", value))


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
    raise _problem(messages.invalid("a valid integer", value))


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
            raise _problem(messages.invalid("a valid number, unable to parse string as a number", value))
        return number
    number = _as_float(value)
    if number is None:
        raise _problem(messages.invalid("a valid number", value))
    return number


def _float(allow_inf_nan: bool, ge: float | None) -> Check:
    def check(value: Any) -> float:
        number = _lax_float(value)
        if not allow_inf_nan and not math.isfinite(number):
            raise _problem(messages.invalid("a finite number", value))
        if ge is not None and not number >= ge:
            raise _problem(messages.invalid(f"greater than or equal to {ge}", value))
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


def _list_dump(item: Dump) -> Dump:
    # Always a new list: changing the dump must not change the model.
    if item is None:
        return lambda value, info: list(value)
    return lambda value, info: [item(element, info) for element in value]


def _dict_dump(item: Dump) -> Dump:
    if item is None:
        return lambda value, info: dict(value)
    return lambda value, info: {key: item(element, info) for key, element in value.items()}
