"""The sweep spec's pydantic validation errors as `ScenarioError`s in the scenario's words.

The sweep spec (`airtcp.experiments.spec`) is a pydantic model; the scenario schema is not (see
`airtcp.scenario.model`), so this translation serves the spec alone, with the scenario's wording
(`airtcp.scenario.messages`) so that both read alike. Pydantic is imported by the spec, which only
`airtcp sweep` and `airtcp reproduce` load.

Pydantic reports locations as tuples such as `("links", 0, "loss", "bernoulli", "per")`, where
"bernoulli" is the `kind` tag of the union member it tried. Users never write that tag as a path
component, so it is dropped: the path becomes `links[0].loss.per`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from airtcp.errors import ScenarioError, format_path
from airtcp.scenario import messages
from airtcp.scenario.messages import _field_names, _field_type, _is_model, _list_item, _union_members, _unwrap
from airtcp.scenario.units import brief_repr

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

__all__ = ["translate_validation_error"]


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


def _reword(detail: Any, parts: list[str | int], model: type[BaseModel] | None) -> tuple[str, str]:
    """(path, message) for one pydantic error."""
    kind, ctx, value = detail["type"], detail.get("ctx") or {}, detail.get("input")
    if parts and parts[-1] == "[key]":
        # A mapping's key: pydantic adds "[key]" after a copy of the key that may be mangled
        # (lone surrogates become U+FFFD); the key itself is the input.
        parts = [*parts[:-2], value if isinstance(value, str) else str(parts[-2])]
    path = format_path(parts)
    if kind == "extra_forbidden":
        return path, messages.unknown_field(str(parts[-1]), _field_names(model) if model is not None else [])
    if kind == "missing":
        return path, messages.missing()
    if kind == "union_tag_not_found":
        return format_path([*parts, "kind"]), f"required field is missing (one of: {_expected_tags(parts, model)})"
    if kind == "union_tag_invalid":
        return (
            format_path([*parts, "kind"]),
            f"unknown kind {brief_repr(ctx.get('tag'))} (expected one of: {ctx.get('expected_tags')})",
        )
    if kind == "literal_error":
        return path, f"must be {ctx.get('expected')}, got {messages.describe(value)}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return path, messages.expected_mapping(value)
    if kind == "list_type":
        return path, messages.expected_list(value)
    if kind == "invalid_key":
        # The key is the last part of the location; the mapping holding it is the place to fix.
        return format_path(parts[:-1]), messages.field_name_not_text(value)
    if kind == "string_unicode" and isinstance(value, str):
        # A field name pydantic could not read (values go through our own check).
        return format_path([*parts, value]), messages.field_name_not_unicode(value)
    if kind == "value_error":
        # Our own validators raise ValueError; pydantic prefixes "Value error, ".
        cause = ctx.get("error")
        return path, str(cause) if cause is not None else detail["msg"]
    message = detail["msg"]
    return path, f"{message[:1].lower()}{message[1:]}, got {messages.describe(value)}"


def _expected_tags(parts: list[str | int], model: type[BaseModel] | None) -> str:
    if model is None or not parts or isinstance(parts[-1], int):
        return "?"
    members = _union_members(_unwrap(_field_type(model, parts[-1])))
    return ", ".join(repr(tag) for tag in members) or "?"
