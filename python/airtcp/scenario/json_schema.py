"""The scenario format's JSON Schema, as the package ships it.

The core's config types are the one description of the scenario format: the core generates the
JSON Schema from them (`airtcp::scenario::schema`), and the package ships it as
`airtcp/data/scenario.schema.json` (`make schema` regenerates it; a test compares it with the
core's). Editors check and complete scenario files with it (`airtcp schema` prints it); the front
end reads from it what depends on the core's choices, such as each standard's radio defaults,
and docs/scenario-schema.md's field tables are made from it.

Besides JSON Schema's keywords: `x-unit` on a field holding a quantity (`duration`, `rate`,
`size`, `distance`, `frequency`, `power`, `ratio`, `probability`), whose value is a number in
base units or text with a unit; `x-standard-defaults` on the radio and `x-standards` (rates,
slot time) on the standard.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

__all__ = ["SCHEMA_FILE", "scenario_schema", "schema_text", "definition", "standard_defaults", "standards"]

# Inside the package: `airtcp/data/scenario.schema.json`.
SCHEMA_FILE = "scenario.schema.json"


def schema_text() -> str:
    """The shipped schema's text."""
    return resources.files("airtcp").joinpath("data", SCHEMA_FILE).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def scenario_schema() -> dict[str, Any]:
    """The shipped schema (read once; do not modify it)."""
    return json.loads(schema_text())  # type: ignore[no-any-return]


def definition(name: str) -> dict[str, Any]:
    """The schema of the core's config type `name` (`RadioConfig`, `TcpConfig`, ...)."""
    return scenario_schema()["$defs"][name]  # type: ignore[no-any-return]


def standard_defaults() -> dict[str, dict[str, Any]]:
    """Per radio standard, the value of each radio field that defaults by standard (None: the
    standard has no such choice)."""
    return definition("RadioConfig")["x-standard-defaults"]  # type: ignore[no-any-return]


def standards() -> dict[str, dict[str, Any]]:
    """Per radio standard, in the core's order: its `rates` (bit/s, lowest first) and `slot`
    time (ns)."""
    return definition("Standard")["x-standards"]  # type: ignore[no-any-return]
