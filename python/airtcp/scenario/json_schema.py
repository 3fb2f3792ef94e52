"""The scenario format's JSON Schema, as the package ships it.

The core's config types are the one description of the scenario format: the core generates the
JSON Schema from them (`airtcp::scenario::schema`), and the package ships it as
`airtcp/data/scenario.schema.json` (`make schema` regenerates it; a test compares it with the
core's). Editors check and complete scenario files with it (`airtcp scenarios schema` prints it);
the front end's models are made from it (`airtcp.scenario.model_gen`), and so is the field
reference docs/scenario-fields.md (`airtcp.scenario.schema_docs`); the front end reads each
standard's radio defaults, rates and slot time from it.

Besides JSON Schema's keywords: `x-unit` on a field holding a quantity (`duration`, `rate`,
`size`, `distance`, `frequency`, `power`, `ratio`, `probability`), whose value is a number in
base units or text with a unit; `x-omit-default` on a field left out of the normalised form at
its default; `x-standard-defaults` on the radio and `x-standards` (rates, slot time) on the
standard. A node's name is text with `minLength: 1`.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from importlib import resources
from typing import Any

__all__ = [
    "SCHEMA_FILE",
    "scenario_schema",
    "schema_text",
    "definition",
    "standard_defaults",
    "standards",
    "made_file_main",
]

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


def made_file_main(argv: list[str] | None, *, prog: str, doc: str, what: str, render: Callable[[], str]) -> int:
    """The command line of a file made from the schema (`make schema` writes it, tests compare
    it): `prog [--check] PATH` writes `render()` to PATH, or only says whether PATH holds it."""
    parser = argparse.ArgumentParser(prog=prog, description=doc.splitlines()[0])
    parser.add_argument("path", type=Path, help=f"the {what} to write")
    parser.add_argument("--check", action="store_true", help=f"only say whether the {what} is current")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = args.path.is_file() and args.path.read_text(encoding="utf-8") == text
        if not current:
            print(f"error: {args.path}: not made from the current schema; run `make schema`", file=sys.stderr)
        return 0 if current else 1
    args.path.write_text(text, encoding="utf-8")
    return 0
