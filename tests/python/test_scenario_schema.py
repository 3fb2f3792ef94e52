"""The scenario format's JSON Schema: the shipped file is the core's, the front end's models are
made from it, and they read files as the schema describes them.

The core generates the schema from its config types (`airtcp::scenario::schema`) and
`airtcp.scenario.model_gen` the models from the schema. Every model of `airtcp.scenario.models`
is compared, field by field, with the part of the schema it reads: the same fields in the same
order, the same required fields and defaults, the same `kind` tags and keywords, the same unit,
and the same ranges, tried at their bounds (which tests the generator and the readers).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest

from airtcp import _core
from airtcp.errors import ScenarioError
from airtcp.scenario import bundled, json_schema, model_gen, models, schema_docs, units
from airtcp.scenario import schema as scenario_schema
from airtcp.scenario.checks import Problems
from airtcp.scenario.messages import _union_members, _unwrap
from airtcp.scenario.model import BaseModel
from support import REPO, run_cli

SCHEMA = json_schema.scenario_schema()
DEFS = SCHEMA["$defs"]


def test_the_shipped_schema_is_the_cores() -> None:
    """`make schema` writes the core's schema into the package; run it after changing a config type."""
    assert json_schema.schema_text() == _core.scenario_schema_json()


def test_the_field_reference_is_made_from_the_schema() -> None:
    """docs/scenario-fields.md is what `make schema` makes of the shipped schema."""
    page = REPO / "docs" / "scenario-fields.md"
    assert page.read_text(encoding="utf-8") == schema_docs.render()
    assert schema_docs.main(["--check", str(page)]) == 0
    text = schema_docs.render()
    # Every part and every kind has its section; quantities read as a file writes them.
    for name in DEFS:
        assert f"\n## {name}\n" in text, name
    assert "| `delayed_ack_timeout` | [duration](scenario-schema.md#units) | `200ms` | ≥ 1ns |" in text
    assert "`{memory: 4GiB}`" in text


def test_the_models_are_made_from_the_schema() -> None:
    """airtcp/scenario/models.py is what `make schema` makes of the shipped schema."""
    path = Path(models.__file__)
    assert path.read_text(encoding="utf-8") == model_gen.render()
    assert model_gen.main(["--check", str(path)]) == 0


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_every_bundled_scenario_passes_the_schema_as_an_editor_checks_it() -> None:
    """An editor given the schema (docs/scenario-schema.md#editors) finds no fault in a bundled
    scenario, and flags what the front end refuses: an unknown field, a wrong tag, a number
    that needs a unit."""
    validator = jsonschema.Draft202012Validator(SCHEMA)
    names = bundled.names()
    assert len(names) > 20
    for name in names:
        data = bundled.read_data(name)
        problems = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(data)]
        assert problems == [], name
    good = bundled.read_data(names[0])
    for bad in ({**good, "durration": "1s"}, {**good, "duration": 5}, {**good, "routing": {"kind": "ospf"}}):
        assert list(validator.iter_errors(bad)), bad


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with a reference followed and a null alternative left out."""
    while True:
        if "$ref" in schema:
            schema = DEFS[schema["$ref"].rsplit("/", 1)[1]]
        elif "anyOf" in schema:
            (schema,) = [alternative for alternative in schema["anyOf"] if alternative.get("type") != "null"]
        else:
            return schema


def _element(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a list's items or a mapping's values, else `schema`."""
    schema = _resolve(schema)
    types = schema.get("type")
    if types == "array" or (isinstance(types, list) and "array" in types):
        return _element(schema["items"])
    if types == "object" and isinstance(schema.get("additionalProperties"), dict):
        return _element(schema["additionalProperties"])
    return schema


def _branch(schema: dict[str, Any], kind: str) -> dict[str, Any]:
    """The `oneOf` branch of a tagged union whose tag is `kind`."""
    for branch in _resolve(schema)["oneOf"]:
        if branch.get("properties", {}).get("kind", {}).get("const") == kind:
            return branch
    raise AssertionError(f"no branch tagged {kind!r}")


def _keywords(schema: dict[str, Any]) -> list[Any]:
    """The values of an enumeration (a `oneOf` of constants, or `enum`)."""
    schema = _resolve(schema)
    if "enum" in schema:
        return list(schema["enum"])
    return [branch["const"] for branch in schema["oneOf"] if "const" in branch]


def _model_types(annotation: Any) -> list[type[BaseModel]]:
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    members = _union_members(annotation)
    if members:
        return list(members.values())
    return [model for argument in typing.get_args(annotation) for model in _model_types(argument)]


def _literal(annotation: Any) -> list[Any] | None:
    """The values of the Literal a field takes, if it takes one."""
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) is Literal:
        return list(typing.get_args(annotation))
    for argument in typing.get_args(annotation):
        found = _literal(argument)
        if found is not None:
            return found
    return None


def _pairs() -> Iterator[tuple[str, type[BaseModel], dict[str, Any]]]:
    """Every model reachable from `Scenario`, with the schema object it reads and its path."""
    seen: set[tuple[type[BaseModel], int]] = set()
    stack: list[tuple[str, type[BaseModel], dict[str, Any]]] = [("scenario", models.Scenario, SCHEMA)]
    while stack:
        path, model, schema = stack.pop()
        if (model, id(schema)) in seen:
            continue
        seen.add((model, id(schema)))
        yield path, model, schema
        for name, info in model.model_fields.items():
            key = info.alias or name
            inner = _element(schema["properties"][key])
            for sub in _model_types(info.annotation):
                if "oneOf" in inner:
                    kind = typing.get_args(sub.model_fields["kind"].annotation)[0]
                    stack.append((f"{path}.{key}[{kind}]", sub, _branch(inner, kind)))
                else:
                    stack.append((f"{path}.{key}", sub, inner))


PAIRS = list(_pairs())


def test_every_model_is_compared() -> None:
    compared = {model for _, model, _ in PAIRS}
    declared = {value for value in vars(models).values()
                if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == models.__name__}
    assert declared == compared
    assert len(PAIRS) >= 70


@pytest.mark.parametrize(("path", "model", "schema"), PAIRS, ids=[path for path, _, _ in PAIRS])
def test_a_model_has_the_schemas_fields(path: str, model: type[BaseModel], schema: dict[str, Any]) -> None:
    keys = [info.alias or name for name, info in model.model_fields.items()]
    assert keys == list(schema["properties"]), path
    assert schema.get("additionalProperties") is False, path
    required = [info.alias or name for name, info in model.model_fields.items() if info.is_required()]
    assert required == schema.get("required", []), path


def _absent(info: Any, value: Any) -> bool:
    """Whether a field is an optional one left unset: the core does not write it, so a default
    holding the field's model (`control: {kind: periodic}`) has no key for it."""
    return value is None and info.exclude_if is not None and bool(info.exclude_if(None))


def _dumped(value: Any) -> Any:
    """`value` as plain data with every field, also those the normalised form leaves out at a
    default other than absent."""
    if isinstance(value, BaseModel):
        return {info.alias or name: _dumped(getattr(value, name)) for name, info in type(value).model_fields.items()
                if not _absent(info, getattr(value, name))}
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    if isinstance(value, dict):
        return {key: _dumped(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize(("path", "model", "schema"), PAIRS, ids=[path for path, _, _ in PAIRS])
def test_a_model_has_the_schemas_defaults_and_keywords(path: str, model: type[BaseModel], schema: dict[str, Any]) -> None:
    for name, info in model.model_fields.items():
        key = info.alias or name
        field = schema["properties"][key]
        if not info.is_required():
            # An optional field without a default in the schema is absent (null) by default.
            default = _dumped(info.get_default(call_default_factory=True))
            assert default == field.get("default"), f"{path}.{key}"
        keywords = _literal(info.annotation)
        if keywords is not None and key != "kind":
            assert keywords == _keywords(_element(field)), f"{path}.{key}"


# A value of each unit in text, and what it is in base units.
UNIT_TEXT = {
    "duration": ("3ms", 3_000_000),
    "rate": ("3kbps", 3_000),
    "size": ("3KB", 3_000),
    "distance": ("3km", 3_000.0),
    "frequency": ("3kHz", 3_000.0),
    "power": ("3dBm", 3.0),
    "ratio": ("3dB", 3.0),
    "probability": ("3%", 0.03),
}
# How a file writes an amount of base units of each quantity that needs text.
BASE_UNIT = {"duration": "ns", "rate": "bps", "distance": "m", "frequency": "Hz", "power": "dBm", "ratio": "dB"}


def _types(schema: dict[str, Any]) -> list[str]:
    kinds = schema.get("type", [])
    return kinds if isinstance(kinds, list) else [kinds]


def _scalar(field: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of a number or quantity field (possibly optional or in a list), else None."""
    inner = _element(field)
    return inner if {"integer", "number"} & set(_types(inner)) or "x-unit" in inner else None


def _wrapper(annotation: Any) -> Any:
    """How a value of a field's numbers sits in the field: itself, in a list, in a mapping."""
    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if origin is list:
        inner = _wrapper(typing.get_args(annotation)[0])
        return lambda value: [inner(value)]
    if origin is dict:
        inner = _wrapper(typing.get_args(annotation)[1])
        return lambda value: {"n0": inner(value)}
    return lambda value: value


class _Field:
    """A model's field, tried with values as a file writes them."""

    def __init__(self, model: type[BaseModel], name: str, schema: dict[str, Any]):
        self.slot = model._model_slot_by_name[name]
        self.wrap = _wrapper(model.model_fields[name].annotation)
        self.unit = schema.get("x-unit")
        self.whole = "integer" in _types(schema) or schema.get("format", "").startswith("uint")

    def read(self, value: Any) -> Any:
        """What the field makes of `value`, or the `Problems` it finds."""
        try:
            return self.slot.check(self.wrap(value))
        except (Problems, ScenarioError) as problems:
            return problems

    def refuses(self, amount: float) -> bool:
        return isinstance(self.read(self.written(amount)), Problems)

    def written(self, amount: float) -> Any:
        """`amount` base units as a file writes them."""
        if self.unit in BASE_UNIT and not (self.unit == "duration" and amount == 0):
            text = str(int(amount)) if self.whole else repr(float(amount))
            return f"{text}{BASE_UNIT[self.unit]}"
        return amount


def _fields() -> Iterator[tuple[str, _Field, dict[str, Any]]]:
    for path, model, schema in PAIRS:
        for name, info in model.model_fields.items():
            key = info.alias or name
            inner = _scalar(schema["properties"][key])
            if inner is not None:
                yield f"{path}.{key}", _Field(model, name, inner), inner


FIELDS = list(_fields())


@pytest.mark.parametrize(("where", "field", "schema"), FIELDS, ids=[where for where, _, _ in FIELDS])
def test_a_field_reads_the_schemas_unit_and_range(where: str, field: _Field, schema: dict[str, Any]) -> None:
    if field.unit is not None:
        text, value = UNIT_TEXT[field.unit]
        low = schema.get("minimum", schema.get("exclusiveMinimum", -math.inf))
        high = schema.get("maximum", schema.get("exclusiveMaximum", math.inf))
        if low < value < high:
            assert field.read(text) == field.wrap(value)
        if field.unit in BASE_UNIT and value != 0:
            assert isinstance(field.read(value), Problems), "a bare number leaves the unit to guess"
    step = 1 if field.whole else 1e-9
    if "minimum" in schema:
        assert not field.refuses(schema["minimum"])
        assert field.refuses(schema["minimum"] - step)
    if "exclusiveMinimum" in schema:
        assert field.refuses(schema["exclusiveMinimum"])
        assert not field.refuses(schema["exclusiveMinimum"] + step)
    if "maximum" in schema:
        assert not field.refuses(schema["maximum"])
        assert field.refuses(schema["maximum"] + step)
    if "exclusiveMaximum" in schema:
        assert field.refuses(schema["exclusiveMaximum"])
    if "multipleOf" in schema:
        assert field.refuses(schema.get("minimum", 0) + 1)
    width = {"uint32": 2**32 - 1, "uint64": 2**64 - 1}.get(schema.get("format", ""))
    if width is not None and "maximum" not in schema and "multipleOf" not in schema:
        # The schema gives an integer's width as its format; the models refuse one past it.
        assert not field.refuses(width)
        assert field.refuses(width + 1)


def test_a_bare_number_is_taken_where_the_reader_takes_it() -> None:
    """The schema lets a file write a bare number (or only 0) for a quantity exactly where the
    front end's reader of that unit takes one."""
    for unit in UNIT_TEXT:
        schemas = [schema for _, field, schema in FIELDS if field.unit == unit]
        read = getattr(units, f"parse_{unit}")
        for schema in schemas:
            numbers = {"integer", "number"} & set(_types(schema))
            zero_only = schema.get("then") == {"const": 0}
            assert bool(numbers) == _reads(read, 0), unit
            assert (bool(numbers) and not zero_only) == _reads(read, 1), unit


def _reads(read: Any, value: Any) -> bool:
    try:
        read(value)
    except ValueError:
        return False
    return True


def test_every_kind_of_field_is_tried() -> None:
    units = {field.unit for _, field, _ in FIELDS}
    assert units == {None, *UNIT_TEXT}
    assert sum("exclusiveMinimum" in schema for _, _, schema in FIELDS) > 20
    assert sum(schema.get("format") == "uint32" for _, _, schema in FIELDS) > 30


def test_the_standards_defaults_are_the_cores() -> None:
    assert scenario_schema.STANDARD_DEFAULTS == json_schema.standard_defaults()
    assert list(scenario_schema.STANDARD_DEFAULTS) == _keywords(DEFS["Standard"])


def test_a_unit_variant_is_only_its_kind() -> None:
    for union in ("FadingConfig", "RateControlConfig", "UtilityConfig"):
        bare = [branch for branch in DEFS[union]["oneOf"] if list(branch["properties"]) == ["kind"]]
        assert bare, union
    assert json.loads(json.dumps(DEFS["FadingConfig"]["oneOf"][0]["properties"]))["kind"]["const"] == "none"


def test_the_cli_prints_the_schema(tmp_path: Path) -> None:
    result = run_cli("scenarios", "schema", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == SCHEMA
    assert "schema" in run_cli("scenarios", "--help", cwd=tmp_path).stdout


def test_a_wired_scenario_is_read_without_the_schema_file() -> None:
    """The standards' tables are read from the schema when a radio first needs them: a wired
    scenario's start-up does not pay for parsing it (about 1 ms)."""
    code = (
        "from airtcp.scenario import json_schema\n"
        "from airtcp.scenario.schema import load_scenario\n"
        f"load_scenario({str(REPO / 'scenarios' / 'examples' / 'p2p_lossy.yaml')!r})\n"
        "assert json_schema.scenario_schema.cache_info().currsize == 0\n"
        f"load_scenario({str(REPO / 'scenarios' / 'examples' / 'chain3.yaml')!r})\n"
        "assert json_schema.scenario_schema.cache_info().currsize == 1\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
