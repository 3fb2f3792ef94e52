"""What a scenario problem says, and where the schema leads a path.

The checks of `airtcp.scenario.model` report each problem as a path (`links[0].loss.per`) and
a message in the words of this module: unknown fields list the allowed ones with a guess at the
one meant, a missing or unknown `kind` lists the expected tags, and a value of the wrong type is
shown briefly (`got a list`, `got 'yes'`). Values too large to show are abbreviated by
`units.brief_repr`.

The helpers at the end walk the schema's annotations (`Optional[...]`, `list[...]`, tagged
unions of models); `airtcp.scenario.overrides` uses them to find the model a `--set` path leads
to.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any, Literal, Union

from airtcp.scenario.units import brief_repr

__all__ = ["describe", "not_unicode_text"]


# --- Wording ---------------------------------------------------------------------------------


def describe(value: Any) -> str:
    """A rejected value as a message shows it: "a dict", "a list", or its brief repr."""
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__}"
    return brief_repr(value)


def missing() -> str:
    return "required field is missing"


def expected_mapping(value: Any) -> str:
    return f"expected a mapping, got {describe(value)}"


def expected_list(value: Any) -> str:
    return f"expected a list, got {describe(value)}"


def invalid(what: str, value: Any) -> str:
    """A value of the wrong type for a plain field: "input should be a valid boolean, got 'yes'"."""
    return f"input should be {what}, got {describe(value)}"


def too_short(minimum: int, value: Any) -> str:
    items = "item" if minimum == 1 else "items"
    return f"list should have at least {minimum} {items} after validation, not 0, got {describe(value)}"


def one_of(values: Sequence[str], value: Any) -> str:
    """A Literal field's value is none of `values`: "must be 'a', 'b' or 'c', got 'x'"."""
    shown = [repr(v) for v in values]
    listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return f"must be {listed}, got {describe(value)}"


def missing_kind(tags: Iterable[str]) -> str:
    return f"required field is missing (one of: {_tags(tags)})"


def unknown_kind(tag: Any, tags: Iterable[str]) -> str:
    # The tag is shown as text, quoted: `kind: 5` reads "unknown kind '5'".
    return f"unknown kind {brief_repr(_text(tag))} (expected one of: {_tags(tags)})"


def unknown_field(name: str, allowed: Sequence[str]) -> str:
    """An unknown field of a model whose fields are `allowed`, with the closest one if any."""
    import difflib  # here: a millisecond of import that only a mistake needs

    message = "unknown field"
    close = difflib.get_close_matches(name, allowed, n=1)
    if close:
        message += f" (did you mean {close[0]!r}?)"
    if allowed:
        message += f"; allowed fields: {', '.join(allowed)}"
    return message


def field_name_not_text(key: Any) -> str:
    return f"field names must be strings, got {describe(key)}"


def field_name_not_unicode(key: str) -> str:
    return f"a field name {not_unicode_text(key) or 'is not valid text'}"


def not_unicode_text(text: str) -> str | None:
    """Why `text` is not Unicode text (it holds a lone surrogate), or None if it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return (
            f"must be Unicode text, got {brief_repr(text)} "
            f"(U+{ord(text[error.start]):04X} at position {error.start} is a lone surrogate)"
        )
    return None


def _tags(tags: Iterable[str]) -> str:
    return ", ".join(repr(tag) for tag in tags)


def _text(value: Any) -> str:
    try:
        return str(value)  # as pydantic showed a tag: a str Enum member as str() writes it
    except Exception:  # noqa: BLE001 - str() of an int of more than 4300 digits raises, for one
        return f"<unprintable {type(value).__name__} object>"


# --- Walking the schema ----------------------------------------------------------------------


def _unwrap(annotation: Any) -> Any:
    """Strips Annotated[...] and Optional[...] down to the interesting type."""
    while True:
        if typing.get_origin(annotation) is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
            continue
        if _is_union(annotation):
            members = [m for m in typing.get_args(annotation) if m is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def _is_model(annotation: Any) -> bool:
    # Any class with `model_fields` (this module cannot import the model module, which uses it).
    return isinstance(annotation, type) and isinstance(getattr(annotation, "model_fields", None), dict)


def _union_members(annotation: Any) -> dict[str, type]:
    """`kind` tag -> model for a tagged union (a single model counts as a union of one)."""
    members = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    tagged = {}
    for member in members:
        member = _unwrap(member)
        if _is_model(member) and "kind" in member.model_fields:
            kind = member.model_fields["kind"].annotation
            if typing.get_origin(kind) is Literal:
                for tag in typing.get_args(kind):
                    tagged[tag] = member
    return tagged


def _list_item(annotation: Any) -> Any:
    if typing.get_origin(annotation) is list:
        return typing.get_args(annotation)[0]
    return None


def _field_type(model: type, name: str) -> Any:
    """The annotation of `model`'s field named `name` (by its name or its alias), or None."""
    for field_name, info in model.model_fields.items():
        if name in (field_name, info.alias):
            return info.annotation
    return None


def _field_names(model: type) -> list[str]:
    """The fields of `model` as a file spells them (by alias)."""
    return [info.alias or name for name, info in model.model_fields.items()]
