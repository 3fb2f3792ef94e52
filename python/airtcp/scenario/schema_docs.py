"""docs/scenario-fields.md: every field of a scenario file, made from the core's JSON Schema.

The page lists each part of a scenario (the core's config types, in the order a file meets
them) with a table of its fields: type, default, range and meaning, the meaning being the field's
doc comment in the core. Nothing in it is written by hand: `make schema` writes it with the
schema, and a test compares it with what this module makes of the shipped schema.

    python -m airtcp.scenario.schema_docs [--check] PATH
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from airtcp.scenario import units
from airtcp.scenario.json_schema import made_file_main, scenario_schema

__all__ = ["render", "main"]

_HEADER = """\
# Scenario fields

<!-- Made by `make schema` from the core's JSON Schema (python/airtcp/data/scenario.schema.json),
     itself made from the core's config types and their doc comments: edit those, not this page. -->

Every field a scenario file may hold, part by part, as the simulator's core defines it. How to
write a scenario, with examples and the rules that tie fields together, is in
[Scenario files](scenario-schema.md); how to write quantities (`20ms`, `2Mbps`) is in its
[Units](scenario-schema.md#units) section. The same description, as a JSON Schema an editor can
check and complete YAML files with, is printed by `airtcp scenarios schema`.

A part with kinds (`kind: ...`) lists each kind's fields; "required" marks a field without a
default. Ranges are in base units (nanoseconds, bits per second, bytes, metres, hertz, dBm, dB).
"""

# How a default of each quantity reads in the page.
_FORMAT: dict[str, Callable[[Any], str]] = {
    "duration": lambda v: units.format_duration(int(v)),
    "rate": lambda v: units.format_rate(int(v)),
    "size": lambda v: _bytes(int(v)),
    "distance": units.format_distance,
    "frequency": units.format_frequency,
    "power": units.format_power,
    "ratio": units.format_ratio,
    "probability": lambda v: _number(v),
}


def _bytes(amount: int) -> str:
    """Bytes in the largest binary unit that holds them whole (`4GiB`), else plain."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if amount >= size and amount % size == 0:
            return f"{amount // size}{unit}"
    return str(amount)


def _amount(value: Any, unit: str | None) -> str:
    """A number of base units of `unit` as a file writes it (`200ms`, `4GiB`, `0`)."""
    if value == 0 and unit in ("duration", "distance", "frequency"):
        return "0"
    return _FORMAT.get(unit or "", _number)(value)


def _number(value: Any) -> str:
    return str(value) if isinstance(value, int) or not float(value).is_integer() else str(int(value))


def _flow(value: Any) -> str:
    """`value` in YAML's flow style, as a file would write it."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_flow(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _number(value)
    return str(value)


def _ref_name(schema: dict[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[1] if isinstance(ref, str) else None


def _anchor(name: str) -> str:
    return name.lower()


def _is_enumeration(schema: dict[str, Any]) -> bool:
    return "enum" in schema or ("oneOf" in schema and all("const" in branch for branch in schema["oneOf"]))


def _keywords(schema: dict[str, Any]) -> list[Any]:
    if "enum" in schema:
        return list(schema["enum"])
    return [branch["const"] for branch in schema["oneOf"]]


def _is_tagged_union(schema: dict[str, Any]) -> bool:
    return "oneOf" in schema and all("kind" in branch.get("properties", {}) for branch in schema["oneOf"])


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    if "anyOf" in schema:
        rest = [alternative for alternative in schema["anyOf"] if alternative.get("type") != "null"]
        if len(rest) == 1:
            return rest[0]
    return schema


def _type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """How a field's type reads: a quantity, a link to a part, a list of them, keywords."""
    schema = _without_null(schema)
    name = _ref_name(schema)
    if name is not None:
        target = defs[name]
        if _is_enumeration(target):
            keywords = " \\| ".join(f"`{keyword}`" for keyword in _keywords(target))
            return f"{keywords} ([{name}](#{_anchor(name)}))"
        return f"[{name}](#{_anchor(name)})"
    if "x-unit" in schema:
        return f"[{schema['x-unit']}](scenario-schema.md#units)"
    kinds = schema.get("type")
    kinds = [kind for kind in (kinds if isinstance(kinds, list) else [kinds]) if kind != "null"]
    if "oneOf" in schema:
        return " or ".join(_type(branch, defs) for branch in schema["oneOf"])
    if "const" in schema:
        return f"`{schema['const']}`"
    if kinds == ["array"]:
        return f"list of {_type(schema['items'], defs)}"
    if kinds == ["object"]:
        keys = "node name" if schema.get("propertyNames", {}).get("minLength") == 1 else "name"
        return f"mapping of {keys} to {_type(schema['additionalProperties'], defs)}"
    if kinds == ["string"] and schema.get("minLength") == 1:
        return "node name"
    return {"integer": "whole number", "number": "number", "string": "text", "boolean": "boolean"}.get(
        kinds[0] if kinds else "", "value"
    )


def _length(schema: dict[str, Any]) -> str:
    """A list's length limits, as `at least 1 item` or `1 … 255 items`."""
    low, high = schema.get("minItems"), schema.get("maxItems")
    if high is not None:
        return f"{low or 0} … {high} items"
    if low is not None:
        return f"at least {low} item{'s' if low != 1 else ''}"
    return ""


def _range(schema: dict[str, Any]) -> str:
    """A field's range, as `≥ 1`, `> 0`, `0 … 1`, in its base unit."""
    schema = _without_null(schema)
    if schema.get("type") == "array" or (isinstance(schema.get("type"), list) and "array" in schema["type"]):
        inner = _range(schema["items"])
        length = _length(schema)
        return "; ".join(part for part in (length, f"each {inner}" if inner else "") if part)
    unit = schema.get("x-unit")

    def show(value: Any) -> str:
        return _amount(value, unit)

    low = ("≥", schema["minimum"]) if "minimum" in schema else (">", schema["exclusiveMinimum"]) if "exclusiveMinimum" in schema else None
    high = ("≤", schema["maximum"]) if "maximum" in schema else ("<", schema["exclusiveMaximum"]) if "exclusiveMaximum" in schema else None
    parts = []
    if low is not None and high is not None and low[0] == "≥" and high[0] == "≤":
        parts.append(f"{show(low[1])} … {show(high[1])}")
    else:
        # An unsigned number's own floor says nothing a reader needs.
        if low is not None and not (low == ("≥", 0) and str(schema.get("format", "")).startswith("uint")):
            parts.append(f"{low[0]} {show(low[1])}")
        if high is not None:
            parts.append(f"{high[0]} {show(high[1])}")
    if "multipleOf" in schema:
        parts.append(f"a multiple of {schema['multipleOf']}")
    return ", ".join(parts)


def _written(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """`value` (of a field described by `schema`) with its quantities as a file writes them."""
    schema = _without_null(schema)
    name = _ref_name(schema)
    if name is not None:
        schema = defs[name]
    unit = schema.get("x-unit")
    if unit in _FORMAT and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _amount(value, unit)
    if isinstance(value, list) and "items" in schema:
        return [_written(item, schema["items"], defs) for item in value]
    if isinstance(value, dict):
        if "oneOf" in schema and "kind" in value:
            (schema,) = [b for b in schema["oneOf"] if b.get("properties", {}).get("kind", {}).get("const") == value["kind"]]
        fields = schema.get("properties", {})
        return {key: _written(item, fields.get(key, {}), defs) for key, item in value.items()}
    return value


def _default(name: str, schema: dict[str, Any], required: list[str], defs: dict[str, Any]) -> str:
    if name in required:
        return "required"
    if "default" not in schema or schema["default"] is None:
        return "none"
    return f"`{_flow(_written(schema['default'], schema, defs))}`"


def _text(description: str | None) -> str:
    """A doc comment as one table cell: lines joined, rustdoc links to plain code."""
    if not description:
        return ""
    text = " ".join(line.strip() for line in description.splitlines())
    text = re.sub(r"\[`([^`]+)`\](?:\([^)]*\))?", r"`\1`", text)
    return text.replace("|", "\\|")


def _table(schema: dict[str, Any], defs: dict[str, Any], *, skip: tuple[str, ...] = ()) -> list[str]:
    properties = {key: value for key, value in schema.get("properties", {}).items() if key not in skip}
    if not properties:
        return ["No fields besides `kind`." if skip else "No fields."]
    required = schema.get("required", [])
    by_standard = schema.get("x-standard-defaults", {})
    rows = ["| Field | Type | Default | Range | Meaning |", "|---|---|---|---|---|"]
    for key, field in properties.items():
        default = _default(key, field, required, defs)
        meaning = _text(field.get("description"))
        if any(values.get(key) is not None for values in by_standard.values()):
            default = _by_standard(key, field, by_standard, defs)
            meaning += " The normalised form holds the value used."
        elif field.get("x-omit-default"):
            meaning += " Left out of the normalised form at its default."
        rows.append(f"| `{key}` | {_type(field, defs)} | {default} | {_range(field)} | {meaning.strip()} |")
    return rows


def _by_standard(key: str, field: dict[str, Any], by_standard: dict[str, Any], defs: dict[str, Any]) -> str:
    """A radio field's default under each standard (`x-standard-defaults`)."""
    shown = []
    for standard, values in by_standard.items():
        value = values.get(key)
        written = "none" if value is None else f"`{_flow(_written(value, field, defs))}`"
        shown.append(f"{written} ({standard})")
    return "by standard: " + ", ".join(shown)


def _referenced(schema: dict[str, Any]) -> Iterator[str]:
    """The definitions `schema` refers to, in the order it names them."""
    if isinstance(schema, dict):
        name = _ref_name(schema)
        if name is not None:
            yield name
        for value in schema.values():
            yield from _referenced(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _referenced(item)


def _parts(schema: dict[str, Any]) -> list[str]:
    """Every definition with fields or kinds, in the order a file meets them (depth first)."""
    defs = schema["$defs"]
    order: list[str] = []

    def visit(node: dict[str, Any]) -> None:
        for name in _referenced(node):
            if name not in order:
                order.append(name)
                visit(defs[name])

    visit({key: value for key, value in schema.items() if key != "$defs"})
    return order


def render(schema: dict[str, Any] | None = None) -> str:
    """The page, from `schema` (the shipped one if None)."""
    schema = scenario_schema() if schema is None else schema
    defs = schema["$defs"]
    lines = [_HEADER, "## Scenario", "", _text(schema.get("description")), "", *_table(schema, defs)]
    for name in _parts(schema):
        part = defs[name]
        lines += ["", f"## {name}", ""]
        if part.get("description"):
            lines += [_text(part["description"]), ""]
        if _is_enumeration(part):
            for branch in part.get("oneOf", []):
                meaning = _text(branch.get("description"))
                lines.append(f"- `{branch['const']}`" + (f": {meaning}" if meaning else ""))
            if "enum" in part:
                lines.append("One of " + ", ".join(f"`{keyword}`" for keyword in part["enum"]) + ".")
        elif _is_tagged_union(part):
            lines.append("Kinds: " + ", ".join(f"`{branch['properties']['kind']['const']}`" for branch in part["oneOf"]) + ".")
            for branch in part["oneOf"]:
                kind = branch["properties"]["kind"]["const"]
                lines += ["", f"### {name}: `{kind}`", ""]
                if branch.get("description"):
                    lines += [_text(branch["description"]), ""]
                # A variant holding a struct of its own is inlined by the generator; a reference
                # beside the tag alone points to it.
                target = _ref_name(branch)
                if target is not None and list(branch.get("properties", {})) == ["kind"]:
                    lines.append(f"The fields of [{target}](#{_anchor(target)}).")
                else:
                    lines += _table(branch, defs, skip=("kind",))
        elif "oneOf" in part or "anyOf" in part:
            lines.append(f"One of: {_type(part, defs)}.")
        else:
            lines += _table(part, defs)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    return made_file_main(argv, prog="python -m airtcp.scenario.schema_docs", doc=__doc__ or "", what="page (docs/scenario-fields.md)", render=render)


if __name__ == "__main__":
    sys.exit(main())
