"""`--set path=value` overrides, applied to a scenario's raw data before validation.

A path is field names separated by dots, with `[i]` list indices: `links[0].loss.per`,
`flows[1].transport.cc`, `duration`. The value is read as a YAML scalar (or flow collection), so
`0.02` is a number, `true` a boolean, `reno` a string and `{kind: bernoulli, per: 0.1}` a mapping.

Missing mappings along the path are created (setting `flows[0].stop` works when the file has no
`stop`); list indices must exist. Given the schema, a created mapping for a field whose default is
a variant starts with that variant's `kind`, so `routing.metric=etx` or `radio.queue.packets=20`
work in a file that relies on the default routing or queue. Whether the field itself exists in the
schema is left to validation, which reports unknown fields with the same path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from airtcp.errors import ScenarioError, format_path
from airtcp.scenario.model import BaseModel
from airtcp.scenario.source import MAX_NESTING, parse_yaml
from airtcp.scenario.units import brief_repr
from airtcp.scenario.messages import _field_type, _is_model, _list_item, _union_members, _unwrap

__all__ = ["Override", "parse_override", "parse_overrides", "apply_overrides"]

_PATH = re.compile(r"[A-Za-z_]\w*(\[\d+\])*(\.[A-Za-z_]\w*(\[\d+\])*)*")
_PART = re.compile(r"([A-Za-z_]\w*)|\[(\d+)\]")


class Override(NamedTuple):
    """One parsed `--set`: where, and the new value. `origin` names where it was given (`--set`,
    `overrides[2]`) for messages."""

    # A named tuple rather than a frozen dataclass: `dataclasses` imports `inspect`, several
    # milliseconds of every command that reads a scenario.

    parts: tuple[str | int, ...]
    value: Any
    text: str
    origin: str = "--set"

    @property
    def path(self) -> str:
        return format_path(self.parts)

    def source(self) -> str:
        """Where the override came from, for messages: from --set 'links[0].rate=1Mbps'."""
        return f"from {self.origin} {brief_repr(self.text)}"


def parse_override(text: object, origin: str = "--set") -> Override:
    """Parses `"links[0].loss.per=0.02"`; bad syntax raises `ScenarioError(origin, ...)`."""
    if not isinstance(text, str):
        raise ScenarioError(origin, f"expected a PATH=VALUE string, got {brief_repr(text)} ({type(text).__name__})")
    path, sep, value_text = text.partition("=")
    path = path.strip()
    if not sep:
        raise ScenarioError(origin, f"expected PATH=VALUE (e.g. links[0].rate=2Mbps), got {brief_repr(text)}")
    if not _PATH.fullmatch(path):
        raise ScenarioError(
            origin,
            f"bad path {brief_repr(path)} in {brief_repr(text)}; write field names and [index], e.g. links[0].loss.per",
        )
    parts = tuple(name if name else int(index) for name, index in _PART.findall(path))
    if len(parts) > MAX_NESTING:
        raise ScenarioError(
            origin, f"the path in {brief_repr(text)} is nested too deeply (more than {MAX_NESTING} levels)"
        )
    try:
        value = parse_yaml(value_text, origin)
    except ScenarioError as error:
        raise ScenarioError(origin, f"bad value in {brief_repr(text)}: {error.message}") from None
    return Override(parts, value, text, origin)


def parse_overrides(overrides: object, name: str = "overrides") -> list[Override]:
    """Parses a list of `"PATH=VALUE"` strings (or already parsed `Override`s) given in Python.
    Problems name `name[i]`, or `name` when it is not a list, such as a single string."""
    if isinstance(overrides, (str, bytes, Mapping)) or not isinstance(overrides, Iterable):
        raise ScenarioError(
            name, f"expected a list of PATH=VALUE strings, got {brief_repr(overrides)} ({type(overrides).__name__})"
        )
    return [
        item if isinstance(item, Override) else parse_override(item, f"{name}[{i}]")
        for i, item in enumerate(overrides)
    ]


def apply_overrides(
    raw: dict[str, Any], overrides: Iterable[Override], schema: type[BaseModel] | None = None
) -> None:
    """Applies the overrides to `raw` in order (later ones win). `schema` is the model `raw` will
    be validated as; without it, created mappings start empty."""
    for override in overrides:
        _apply(raw, override, schema)


def _apply(raw: dict[str, Any], override: Override, schema: type[BaseModel] | None) -> None:
    container: Any = raw
    annotation: Any = schema  # the schema type of `container`, None once the walk leaves it
    parts = override.parts
    for depth, part in enumerate(parts):
        here = format_path(parts[: depth + 1])
        is_last = depth == len(parts) - 1
        if isinstance(part, int):
            if not isinstance(container, list):
                raise ScenarioError(
                    here, f"cannot index {_kind(container)} with [{part}] ({override.source()})"
                )
            if part >= len(container):
                count = len(container)
                raise ScenarioError(
                    here,
                    f"index {part} out of range: {format_path(parts[:depth])} has {count} "
                    f"entr{'y' if count == 1 else 'ies'} ({override.source()})",
                )
        elif not isinstance(container, dict):
            raise ScenarioError(
                here, f"cannot set a field inside {_kind(container)} ({override.source()})"
            )
        if is_last:
            container[part] = override.value
            return
        child = container[part] if isinstance(part, int) else container.get(part)
        seed: dict[str, Any] = {}  # what a missing mapping starts as
        if isinstance(part, int):
            field_type = _list_item(_unwrap(annotation)) if annotation is not None else None
        else:
            model = _model_of(annotation, container)
            field_type = _field_type(model, part) if model is not None else None
            if model is not None:
                seed = _default_variant(model, part)
        if child is None:
            if isinstance(parts[depth + 1], int):
                raise ScenarioError(
                    format_path(parts[: depth + 2]),
                    f"index {parts[depth + 1]} out of range: the scenario has no {here} list "
                    f"({override.source()})",
                )
            child = container[part] = seed
        container, annotation = child, field_type


def _model_of(annotation: Any, value: Any) -> type[BaseModel] | None:
    """The model `value` will be validated as: the annotation's, or the union member its `kind`
    selects."""
    if annotation is None:
        return None
    annotation = _unwrap(annotation)
    if _is_model(annotation) and "kind" not in annotation.model_fields:
        return annotation  # type: ignore[no-any-return]
    kind = value.get("kind") if isinstance(value, dict) else None
    return _union_members(annotation).get(kind) if isinstance(kind, str) else None


def _default_variant(model: type[BaseModel], name: str) -> dict[str, Any]:
    """`{"kind": ...}` of the field's default when that is a variant, else an empty mapping."""
    info = next((i for n, i in model.model_fields.items() if name in (n, i.alias)), None)
    if info is None or info.is_required():
        return {}
    default = info.get_default(call_default_factory=True)
    kind = getattr(default, "kind", None) if isinstance(default, BaseModel) else None
    return {"kind": kind} if isinstance(kind, str) else {}


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"the value {brief_repr(value)}"
