"""airtcp/scenario/models.py: the scenario format's models, written from the core's JSON Schema.

The core's config types are the one description of the format; the core generates the JSON
Schema from them and `make schema` writes this module's output beside it, so the front end reads
files exactly as the schema describes them (a test compares the module with what this one makes
of the shipped schema). Each of the schema's parts becomes a model, field for field in the same
order, with the schema's defaults, `kind` tags, keywords, units and ranges
(`airtcp.scenario.readers`); a field the schema marks `x-omit-default` is left out of the
normalised form at its default.

Names: a part keeps the core's name (`LinkConfig`, `RadioConfig`); the kinds of a part with kinds
are named by their tag and the part (`QueueConfig`'s `droptail` is `DroptailQueue`, a tag `none`
reads `No`: `NoFading`); a part whose kinds carry no fields is one model whose `kind` takes any of
them; the whole file is `Scenario`.

What the schema cannot say (rules across fields, the radio's defaults by standard) is written by
hand in `airtcp.scenario.rules`: a class `<Model>Rules` there is a base of the model of that name.

    python -m airtcp.scenario.model_gen [--check] PATH
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import textwrap
from typing import Any

from airtcp.scenario import rules
from airtcp.scenario.json_schema import made_file_main, scenario_schema
from airtcp.scenario.readers import UNIT_WRITERS

__all__ = ["render", "main"]

_HEADER = '''\
"""The scenario format's models, one per part of a scenario file.

Written by `make schema` (`airtcp.scenario.model_gen`) from the core's JSON Schema
(airtcp/data/scenario.schema.json), itself made from the core's config types: edit those (or the
rules across fields in `airtcp.scenario.rules`), not this file.
"""

# No `from __future__ import annotations`: the model engine reads each annotation as an object.

from typing import Annotated, Literal, Optional, Union

from airtcp.scenario import rules
from airtcp.scenario.fields import Field, StrictBool
from airtcp.scenario.readers import (
    Model,
    Name,
    Text,
    at_default,
    count_or_keyword,
    entries,
    integer,
    keyword_or_list,
    real,
)
'''

_WIDTH = {"uint32": 2**32 - 1, "uint64": 2**64 - 1}
_LINE = 100


def _camel(tag: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_.\-]", tag) if part)


def _short(part: str) -> str:
    return part[: -len("Config")] if part.endswith("Config") and part != "Config" else part


class _Writer:
    """Emits each model and alias once, after everything it refers to."""

    def __init__(self, schema: dict[str, Any]):
        self.defs: dict[str, Any] = schema["$defs"]
        self.done: set[str] = set()
        self.blocks: list[str] = []
        self.names: list[str] = []

    # --- Parts ---

    def part(self, name: str) -> str:
        """The Python name of the part `name` of `$defs`, emitted first if need be."""
        if name not in self.done:
            self.done.add(name)
            self._emit_part(name, self.defs[name])
        return name

    def _emit_part(self, name: str, schema: dict[str, Any]) -> None:
        if "properties" in schema:
            self.model(name, schema)
            return
        branches = schema.get("oneOf", [])
        if all("const" in branch for branch in branches) or "enum" in schema:
            values = schema.get("enum") or [branch["const"] for branch in branches]
            self._alias(name, schema, f"Literal[{', '.join(_py(v) for v in values)}]")
        elif all("properties" in branch for branch in branches):
            self._union(name, schema, branches)
        elif any(branch.get("type") == "array" for branch in branches):
            self._alias(name, schema, self._keyword_or_list(branches))
        else:
            self._alias(name, schema, self._keyword_or_count(branches))

    def _keyword_or_list(self, branches: list[dict[str, Any]]) -> str:
        keywords = tuple(branch["const"] for branch in branches if "const" in branch)
        (array,) = [branch for branch in branches if branch.get("type") == "array"]
        return f"keyword_or_list({keywords!r}, {self.annotation(array)})"

    def _keyword_or_count(self, branches: list[dict[str, Any]]) -> str:
        keywords = tuple(branch["const"] for branch in branches if "const" in branch)
        (number,) = [branch for branch in branches if branch.get("type") == "integer"]
        return f"count_or_keyword({keywords!r}, {number['minimum']}, {number['maximum']})"

    def _union(self, name: str, schema: dict[str, Any], branches: list[dict[str, Any]]) -> None:
        tags = [branch["properties"]["kind"]["const"] for branch in branches]
        if all(list(branch["properties"]) == ["kind"] for branch in branches):
            # Kinds without fields: one model whose `kind` names the kind.
            merged = {
                "description": schema.get("description", ""),
                "properties": {"kind": {"enum": tags}},
                "required": ["kind"],
            }
            self.model(name, merged)
            return
        members = []
        for tag, branch in zip(tags, branches):
            member = ("No" if tag == "none" else _camel(tag)) + _short(name)
            self.model(member, branch)
            members.append(member)
        self._alias(name, schema, f'Annotated[Union[{", ".join(members)}], Field(discriminator="kind")]')

    def _alias(self, name: str, schema: dict[str, Any], value: str) -> None:
        lines = _comment(schema.get("description", ""), "")
        self.blocks.append("\n".join([*lines, f"{name} = {value}"]))
        self.names.append(name)

    def model(self, name: str, schema: dict[str, Any]) -> None:
        """A model class for an object schema."""
        required = set(schema.get("required", []))
        fields = []
        for key, field in schema["properties"].items():
            fields.append(self._field(name, key, field, key in required))
        bases = f"rules.{name}Rules, Model" if hasattr(rules, f"{name}Rules") else "Model"
        lines = [f"class {name}({bases}):", *_docstring(schema.get("description", "")), ""]
        for field_lines in fields:
            lines.extend(field_lines)
        self.blocks.append("\n".join(lines).rstrip() + "\n")
        self.names.append(name)

    # --- Fields ---

    def _field(self, model: str, key: str, field: dict[str, Any], required: bool) -> list[str]:
        if key == "kind" and "const" in field:
            annotation = f"Literal[{json.dumps(field['const'])}]"
        elif key == "kind" and "enum" in field:
            annotation = f"Literal[{', '.join(_py(v) for v in field['enum'])}]"
        else:
            annotation = self.annotation(field)
        name = f"{key}_" if keyword.iskeyword(key) else key
        options: list[str] = []
        if name != key:
            options.append(f"alias={key!r}")
        default = ""
        if not required and "default" in field:
            value = field["default"]
            if isinstance(value, dict) and value:
                written = _py(self._user_form(value, field))
                options.append(f"default_factory=lambda: {self._model_of(field, value)}.model_validate({written})")
            elif value == [] or value == {}:
                options.append(f"default_factory={'list' if value == [] else 'dict'}")
            else:
                default = _py(value)
            if field.get("x-omit-default"):
                options.append(f"exclude_if=at_default({_py(value)})")
        elif not required:
            default = "None"
            if field.get("x-omit-default"):
                options.append("exclude_if=at_default(None)")
        if options:
            if default:
                options.insert(0, f"default={default}")
            value_text = f" = Field({', '.join(options)})"
        else:
            value_text = f" = {default}" if default else ""
        lines = _comment(field.get("description", ""), "    ")
        line = f"    {name}: {annotation}{value_text}"
        if len(line) > _LINE and options:
            inner = "".join(f"        {option},\n" for option in options)
            line = f"    {name}: {annotation} = Field(\n{inner}    )"
        return [*lines, line]

    def _model_of(self, field: dict[str, Any], value: dict[str, Any]) -> str:
        """The model class that reads `value`, the default of `field`."""
        target = _ref(field)
        assert target is not None, field
        schema = self.defs[target]
        if "properties" in schema:
            return target
        branches = schema["oneOf"]
        if all(list(branch["properties"]) == ["kind"] for branch in branches):
            return target
        tag = value["kind"]
        return ("No" if tag == "none" else _camel(tag)) + _short(target)

    def _object_schema(self, field: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
        """The object schema (a struct's, or a kind's) that reads `value` in `field`."""
        target = _ref(field)
        schema = self.defs[target] if target is not None else field
        if "properties" in schema:
            return schema
        for branch in schema["oneOf"]:
            if branch["properties"]["kind"].get("const") == value.get("kind"):
                return dict(branch)
        return {"properties": {}}

    def _user_form(self, value: Any, field: dict[str, Any]) -> Any:
        """A default as a file writes it: quantities as text with their unit (`1s`, `128Hz`),
        which is how the models read a mapping."""
        if isinstance(value, dict):
            properties = self._object_schema(field, value).get("properties", {})
            return {key: self._user_form(item, properties.get(key, {})) for key, item in value.items()}
        if isinstance(value, list):
            return [self._user_form(item, field.get("items", {})) for item in value]
        writer = UNIT_WRITERS.get(field.get("x-unit"))
        if writer is not None and value is not None and not isinstance(value, bool):
            return writer(value)
        return value

    def annotation(self, field: dict[str, Any]) -> str:
        """The annotation of a field (or a list's item, a mapping's value) holding `field`."""
        ref = field.get("$ref")
        if ref is not None:
            return self.part(ref.rsplit("/", 1)[1])
        if "anyOf" in field:
            (inner,) = [option for option in field["anyOf"] if option.get("type") != "null"]
            return f"Optional[{self.annotation(inner)}]"
        types = field.get("type")
        if isinstance(types, list) and "null" in types:
            rest = [kind for kind in types if kind != "null"]
            return f"Optional[{self.annotation({**field, 'type': rest[0] if len(rest) == 1 else rest})}]"
        kinds = set(types) if isinstance(types, list) else {types}
        if "x-unit" in field or kinds & {"integer", "number"}:
            return _number(field)
        if kinds == {"boolean"}:
            return "StrictBool"
        if kinds == {"string"}:
            return "Name" if field.get("minLength") == 1 else "Text"
        if kinds == {"array"}:
            text = f"list[{self.annotation(field['items'])}]"
            if "minItems" in field or "maxItems" in field:
                limits = [f"{field.get('minItems', 0)}"] + ([str(field["maxItems"])] if "maxItems" in field else [])
                return f"Annotated[{text}, entries({', '.join(limits)})]"
            return text
        if kinds == {"object"}:
            keys = "Name" if field.get("propertyNames", {}).get("minLength") == 1 else "Text"
            return f"dict[{keys}, {self.annotation(field['additionalProperties'])}]"
        raise ValueError(f"the schema has a field this generator cannot read: {field}")


def _py(value: Any) -> str:
    """`value` (JSON data) as Python source, strings in double quotes."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {_py(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_py(item) for item in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _number(field: dict[str, Any]) -> str:
    """The reader of a number or a quantity."""
    unit = field.get("x-unit")
    whole = str(field.get("format", "")).startswith("uint") or field.get("type") == "integer"
    if whole:
        width = _WIDTH[field["format"]]
        bounded = "maximum" in field
        arguments = [repr(unit), f"minimum={field.get('minimum', 0)}"]
        arguments.append(f"maximum={field['maximum'] if bounded else ('U64_MAX' if width > 2**32 else 'U32_MAX')}")
        if bounded:
            arguments.append("bounded=True")
        if "multipleOf" in field:
            arguments.append(f"multiple_of={field['multipleOf']}")
        return f"integer({', '.join(arguments)})"
    bounds = {
        "minimum": field.get("minimum"),
        "exclusive_minimum": field.get("exclusiveMinimum"),
        "maximum": field.get("maximum"),
        "exclusive_maximum": field.get("exclusiveMaximum"),
    }
    if unit == "probability" and bounds["minimum"] == 0 and bounds["maximum"] == 1:
        bounds = {}  # the probability reader's own interval
    arguments = [repr(unit)] + [f"{key}={value!r}" for key, value in bounds.items() if value is not None]
    return f"real({', '.join(arguments)})"


def _ref(field: dict[str, Any]) -> str | None:
    if "$ref" in field:
        return str(field["$ref"]).rsplit("/", 1)[1]
    for option in field.get("anyOf", []):
        if "$ref" in option:
            return str(option["$ref"]).rsplit("/", 1)[1]
    return None


def _docstring(text: str) -> list[str]:
    text = text.strip().replace('"""', "'''").replace("\\", "\\\\")
    if not text:
        return []
    paragraphs = [textwrap.fill(" ".join(p.split()), _LINE - 4) for p in text.split("\n\n")]
    body = "\n\n".join(paragraphs)
    lines = f'"""{body}"""'.split("\n")
    return [f"    {line}" if line else "" for line in lines]


def _comment(text: str, indent: str) -> list[str]:
    text = " ".join(text.split())
    if not text:
        return []
    return [f"{indent}# {line}" for line in textwrap.wrap(text, _LINE - len(indent) - 2)]


def render(schema: dict[str, Any] | None = None) -> str:
    """The models module for `schema` (the shipped one by default)."""
    schema = schema or scenario_schema()
    writer = _Writer(schema)
    writer.model("Scenario", schema)
    body = "\n\n".join(writer.blocks)
    names = "".join(f'    "{name}",\n' for name in writer.names)
    uses_width = "U64_MAX" in body or "U32_MAX" in body
    header = _HEADER + ("from airtcp.scenario.units import U32_MAX, U64_MAX\n" if uses_width else "")
    return f"{header}\n__all__ = [\n{names}]\n\n\n{body}"


def main(argv: list[str] | None = None) -> int:
    return made_file_main(argv, prog="python -m airtcp.scenario.model_gen", doc=__doc__ or "", what="module (python/airtcp/scenario/models.py)", render=render)


if __name__ == "__main__":
    sys.exit(main())
