"""Turning pydantic's validation errors into `ScenarioError`s that speak the file's language.

Pydantic reports locations as tuples such as `("links", 0, "loss", "bernoulli", "per")`, where
"bernoulli" is the `kind` tag of the union member it tried. Users never write that tag as a path
component, so it is dropped: the path becomes `links[0].loss.per`. Messages are reworded where
pydantic's wording would be confusing (unknown fields list the allowed ones, for instance).
"""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any, Literal, Union

from pydantic import BaseModel, ValidationError

from airtcp.errors import ScenarioError, format_path
from airtcp.scenario.units import brief_repr

__all__ = ["not_unicode_text", "translate_validation_error"]


def translate_validation_error(error: ValidationError, root: type[BaseModel]) -> ScenarioError:
    """All problems in `error`, located relative to the model `root`."""
    problems = []
    for detail in error.errors(include_url=False):
        parts, model = _resolve(root, detail["loc"])
        problems.append(_reword(detail, parts, model))
    return ScenarioError.from_list(problems)


def _resolve(root: type[BaseModel], loc: tuple[Any, ...]) -> tuple[list[str | int], type[BaseModel] | None]:
    """Walks `loc` through the schema: the user-facing path parts (tags removed) and the model
    that holds the last part (None when the walk leaves the schema)."""
    parts: list[str | int] = []
    current: Any = root
    holder: type[BaseModel] | None = root
    after_tag = False
    for part in loc:
        current = _unwrap(current)
        variants = _union_members(current)
        # A tag is never followed by another one, which matters when a variant has a field named
        # like its own tag (`propagation: {kind: range, range: 250m}`).
        if isinstance(part, str) and variants and part in variants and not after_tag:
            current = variants[part]  # a union tag: not part of the user's path
            after_tag = True
            continue
        after_tag = False
        parts.append(part)
        holder = current if _is_model(current) else None
        if isinstance(part, int):
            current = _list_item(current)
        elif holder is not None:
            current = _field_type(holder, part)
        else:
            current = None
    return parts, holder


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
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _union_members(annotation: Any) -> dict[str, type[BaseModel]]:
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


def _field_type(model: type[BaseModel], name: str) -> Any:
    for field_name, info in model.model_fields.items():
        if name in (field_name, info.alias):
            # Keep the discriminator/Annotated wrapper out of the way: only the type matters here.
            return info.annotation
    return None


def _field_names(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _reword(detail: Any, parts: list[str | int], model: type[BaseModel] | None) -> tuple[str, str]:
    """(path, message) for one pydantic error."""
    kind, ctx, value = detail["type"], detail.get("ctx") or {}, detail.get("input")
    if parts and parts[-1] == "[key]":
        # A mapping's key: pydantic adds "[key]" after a copy of the key that may be mangled
        # (lone surrogates become U+FFFD); the key itself is the input.
        parts = [*parts[:-2], value if isinstance(value, str) else str(parts[-2])]
    path = format_path(parts)
    if kind == "extra_forbidden":
        allowed = _field_names(model) if model is not None else []
        message = "unknown field"
        close = difflib.get_close_matches(str(parts[-1]), allowed, n=1)
        if close:
            message += f" (did you mean {close[0]!r}?)"
        if allowed:
            message += f"; allowed fields: {', '.join(allowed)}"
        return path, message
    if kind == "missing":
        return path, "required field is missing"
    if kind == "union_tag_not_found":
        return format_path([*parts, "kind"]), f"required field is missing (one of: {_expected_tags(parts, model)})"
    if kind == "union_tag_invalid":
        return (
            format_path([*parts, "kind"]),
            f"unknown kind {brief_repr(ctx.get('tag'))} (expected one of: {ctx.get('expected_tags')})",
        )
    if kind == "literal_error":
        return path, f"must be {ctx.get('expected')}, got {_describe(value)}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return path, f"expected a mapping, got {_describe(value)}"
    if kind == "list_type":
        return path, f"expected a list, got {_describe(value)}"
    if kind == "invalid_key":
        # The key is the last part of the location; the mapping holding it is the place to fix.
        return format_path(parts[:-1]), f"field names must be strings, got {_describe(value)}"
    if kind == "string_unicode" and isinstance(value, str):
        # A field name pydantic could not read (values go through our own check).
        return format_path([*parts, value]), f"a field name {not_unicode_text(value) or 'is not valid text'}"
    if kind == "value_error":
        # Our own validators raise ValueError; pydantic prefixes "Value error, ".
        cause = ctx.get("error")
        return path, str(cause) if cause is not None else detail["msg"]
    message = detail["msg"]
    return path, f"{message[:1].lower()}{message[1:]}, got {_describe(value)}"


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


def _expected_tags(parts: list[str | int], model: type[BaseModel] | None) -> str:
    if model is None or not parts or isinstance(parts[-1], int):
        return "?"
    members = _union_members(_unwrap(_field_type(model, parts[-1])))
    return ", ".join(repr(tag) for tag in members) or "?"


def _describe(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return f"a {type(value).__name__}"
    return brief_repr(value)
