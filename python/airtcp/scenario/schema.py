"""The scenario format: load a file into its model, and write the model for the core.

The models (`Scenario` and its parts, `airtcp.scenario.models`) are generated from the core's
JSON Schema, so they read a file exactly as the core's config types describe it: same fields in
the same order, `kind` tags, defaults, units and ranges, unknown fields refused. Fields carrying
units accept the user's strings ("20ms", "2Mbps", "250m", "15dBm") and hold the normalised values
(integer nanoseconds, bits per second and bytes; float metres, hertz, dBm and dB), so
`to_core_json` emits exactly what the core expects. Rules across fields (node names, flow ids,
app/transport pairing, timing, radio rates) are in `airtcp.scenario.consistency` and reported
together with the fields' own problems, each as `error: <field path>: <message>`.

Entry points: `load_scenario` (file, bundled name, YAML text or dict -> `Scenario`),
`to_core_json`, `to_core_dict` and `to_user_dict`.
"""

import json
import operator
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from airtcp.errors import ScenarioError
from airtcp.scenario import consistency, units
from airtcp.scenario.models import *  # noqa: F403 - the models are this module's too
from airtcp.scenario.models import Scenario
from airtcp.scenario.models import __all__ as _MODELS
from airtcp.scenario.readers import USER_FORM as _USER_FORM
from airtcp.scenario.readers import Name, Text
from airtcp.scenario.units import U32_MAX, U64_MAX

__all__ = [
    *_MODELS,
    "Name",
    "Text",
    "U32_MAX",
    "U64_MAX",
    "placed_node_names",
    "ScenarioError",
    "load_scenario",
    "to_core_json",
    "to_core_dict",
    "to_user_dict",
]

placed_node_names = consistency.placed_node_names


def __getattr__(name: str) -> Any:
    """The standards' tables: `RATES_OF_STANDARD`, `DOT11B_RATES`, `DOT11A_RATES`, `SLOT_NS`,
    `STANDARD_DEFAULTS` (read from the schema when first asked for)."""
    try:
        return consistency.standard_table(name)
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


# --- Loading and emitting --------------------------------------------------------------------


def load_scenario(
    source: Scenario | Mapping[str, Any] | str | Path,
    seed: int | None = None,
    overrides: Iterable[str] = (),
) -> Scenario:
    """Reads and validates a scenario.

    `source` is a path to a YAML file, a bundled scenario's name (`"examples/p2p_lossy"`), YAML
    text, a mapping with the file's structure, or a `Scenario`. `overrides` are `"path=value"` strings (as given to `--set`), applied to the raw
    data before validation; `seed`, if given, replaces the scenario's seed after them.
    Raises `ScenarioError` for any problem, including arguments of the wrong type.
    """
    # Imported here: reading YAML is needed only now (`import airtcp.scenario.schema` alone
    # does not load the YAML parser).
    from airtcp.scenario.overrides import apply_overrides, parse_overrides
    from airtcp.scenario.source import read_source

    parsed_overrides = parse_overrides(overrides)
    if seed is not None:
        seed = _checked_seed(seed)
    if isinstance(source, Scenario) and not parsed_overrides:
        return source if seed is None else source.model_copy(update={"seed": seed})
    raw = to_user_dict(source) if isinstance(source, Scenario) else read_source(source)
    apply_overrides(raw, parsed_overrides, Scenario)
    if seed is not None:
        raw["seed"] = seed
    return Scenario.model_validate(raw)


def _checked_seed(seed: object) -> int:
    """`seed` as an int; NumPy's integers count, booleans do not."""
    try:
        number = operator.index(seed) if not isinstance(seed, bool) else None
    except TypeError:
        number = None
    if number is None or not 0 <= number <= U64_MAX:
        raise ScenarioError(
            "seed", f"must be a whole number between 0 and 2^64-1, got {units.brief_repr(seed)} ({type(seed).__name__})"
        )
    return number


def to_core_dict(scenario: Scenario) -> dict[str, Any]:
    """The normalised scenario as plain data: integers for units, every field present."""
    return scenario.model_dump(mode="json", by_alias=True)


def to_core_json(scenario: Scenario) -> str:
    """The normalised scenario as the JSON the simulator core accepts."""
    return json.dumps(to_core_dict(scenario))


def to_user_dict(scenario: Scenario) -> dict[str, Any]:
    """The scenario as a file would spell it ("200s", "2Mbps"); `load_scenario` accepts it."""
    return scenario.model_dump(mode="json", by_alias=True, context={_USER_FORM: True})
