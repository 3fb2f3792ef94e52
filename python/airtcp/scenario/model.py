"""Models declared like pydantic's, checked by a small engine of our own.

The scenario models (`airtcp.scenario.models`, generated from the core's JSON Schema) were first
written with pydantic. Importing pydantic took about 65 ms (with the look-up of its plugins
through `importlib.metadata`) and building the models 40 to 70 ms more: over half of `airtcp run`
for a small scenario. This module keeps pydantic's way of declaring them (a class per model, a
field per annotation, `Annotated` metadata for the readers of units and ranges) and builds all of
them in a few milliseconds: each annotation is compiled once into a plain function that checks a
value and one that dumps it (`airtcp.scenario.checks`; the declarations' parts are in
`airtcp.scenario.fields`). Checking a file's data then costs what the unit parsers cost, which
pydantic called too.

Why not something else: pydantic's deferred building (`defer_build`) only moves the build to
the first validation, which every run does, and leaves pydantic's own import; another library
(msgspec, attrs with cattrs) would be a new dependency with its own coercions and error words,
which the schema's users and tests know as pydantic's, reworded. The schema needs a small part
of pydantic, and owning it lets the problems be worded at the source instead of translated.

Only what the schema uses is supported, with pydantic's names and meaning:

- `class M(BaseModel)` with annotated fields in order (the normalised JSON keeps it), defaults,
  `Field(default=..., default_factory=..., alias=..., exclude_if=...)` (`exclude_if(value)` true:
  the field is left out of `model_dump`, as in pydantic 2.11), and `model_validator(mode="after")`
  methods (the model's, or a base's that is no model: a mixin), which run once every field is
  valid. Unknown fields are always errors and assignment
  is always checked (pydantic's `extra="forbid"`, `validate_assignment=True`).
- Field types: `str`, `bool`, `int`, `float`, `Literal` of strings, `Optional[X]`, `list[X]`,
  `dict[K, V]`, models, unions of models tagged by a field (`Field(discriminator="kind")`),
  other unions (the first member that accepts the value wins; dumped as they are, or, with one
  list member, a list as that member dumps it), and `Annotated[X, ...]` with
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
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from airtcp.errors import ScenarioError
from airtcp.scenario import messages
from airtcp.scenario.checks import Location, Problems, compile_annotation, problem
from airtcp.scenario.fields import (
    NO_DEFAULT,
    AfterValidator,
    BeforeValidator,
    Field,
    FieldInfo,
    PlainSerializer,
    SerializationInfo,
    StrictBool,
    model_validator,
)

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

# Absent from a model's values.
_ABSENT: Any = object()


class _Slot:
    """How a model reads, writes and dumps one field."""

    __slots__ = ("check", "default", "dump", "exclude_if", "factory", "key", "name")

    def __init__(self, name: str, info: FieldInfo):
        self.name = name
        self.key = info.alias or name  # as a file spells it
        self.default = info.default
        self.factory = info.default_factory
        self.exclude_if = info.exclude_if
        extra = [info] if info.has_constraints() else []
        self.check, self.dump = compile_annotation(info.annotation, (*info.metadata, *extra))


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
            default = cls.__dict__.get(name, NO_DEFAULT)
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
        # A model's own checks, and those of a base that is not a model (a mixin of rules).
        owners = [base for base in reversed(cls.__bases__) if not issubclass(base, BaseModel)] + [cls]
        own = [m for owner in owners for m in vars(owner).values() if getattr(m, "__model_validator__", None) == "after"]
        cls._model_after = (*super(cls, cls)._model_after, *own)

    def __init__(self, **data: Any):
        """Checks `data` (fields by the names files use: `from`, not `from_`)."""
        try:
            self.__dict__.update(type(self)._model_fields_of(data))
            type(self)._model_finish(self)
        except Problems as found:
            raise found.scenario_error() from None

    @classmethod
    def model_validate(cls: type[_M], obj: Any) -> _M:
        """`obj` (a mapping shaped like the file, or an instance) as a checked model; raises
        `ScenarioError` with every problem."""
        try:
            return cls._model_check(obj)
        except Problems as found:
            raise found.scenario_error() from None

    def model_dump(self, *, mode: str = "python", by_alias: bool = False, context: Any = None) -> dict[str, Any]:
        """The model as plain data, fields in order, every field present but those a field's
        `exclude_if` leaves out. Values are already JSON's types, so `mode` ("python" or "json")
        makes no difference."""
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
        except Problems as found:
            raise found.scenario_error(slot.key) from None
        values = self.__dict__
        old = values.get(name, _ABSENT)
        values[name] = value
        try:
            for check in self._model_after:
                try:
                    check(self)
                except ValueError as error:
                    raise ScenarioError(slot.key, str(error)) from None
        except BaseException:
            # Unlike pydantic, a refused assignment leaves the model as it was.
            if old is _ABSENT:
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
    def _model_input(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """`data` as the fields will read it: a part whose fields default from another field's
        value (a TCP block's `profile`) fills them in here, under the ones `data` gives."""
        return data

    @classmethod
    def _model_fields_of(cls, data: Any) -> dict[str, Any]:
        """The checked value of every field of `data`, a mapping."""
        if type(data) is not dict and not isinstance(data, Mapping):  # the exact type first: faster
            raise problem(messages.expected_mapping(data))
        data = cls._model_input(data)
        values: dict[str, Any] = {}
        problems: list[tuple[Location, str]] = []
        found = 0
        for slot in cls._model_slots:
            key = slot.key
            if key in data:
                found += 1
                try:
                    values[slot.name] = slot.check(data[key])
                except Problems as bad:
                    problems.extend(bad.within(key))
            elif slot.factory is not None:
                values[slot.name] = slot.factory()
            elif slot.default is not NO_DEFAULT:
                values[slot.name] = slot.default
            else:
                problems.append(((key,), messages.missing()))
        if found != len(data):
            problems.extend(cls._model_unknown_keys(data))
        if problems:
            raise Problems(problems)
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
                raise problem(str(error)) from None
        return model

    def _model_dump(self, info: SerializationInfo) -> dict[str, Any]:
        values = self.__dict__
        by_alias = info.by_alias
        dumped = {}
        for slot in self._model_slots:
            value = values[slot.name]
            if slot.exclude_if is not None and slot.exclude_if(value):
                continue
            dumped[slot.key if by_alias else slot.name] = value if slot.dump is None else slot.dump(value, info)
        return dumped


_M = TypeVar("_M", bound=BaseModel)
