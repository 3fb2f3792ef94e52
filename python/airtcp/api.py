"""The Python entry point: `airtcp.run(...)`; `check` for validation that asks the core too."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airtcp import _core
from airtcp.scenario.schema import Scenario, load_scenario, to_core_dict
from airtcp.errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    # Imported when a run returns: checking a scenario does not need it.
    from airtcp.results import Results

__all__ = ["check", "run", "simulate"]

# The core reports errors as "<path>: <message>"; "<scenario>" means it could not read the JSON we
# produced, which is our bug rather than the user's.
_CORE_ERROR = re.compile(
    rf"^(?P<path>(?:{'|'.join(Scenario.model_fields)})\b[\w.\[\]]*): (?P<message>.*)$",
    re.DOTALL,
)


def run(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    seed: int | None = None,
    overrides: Iterable[str] | None = None,
) -> Results:
    """Validates and simulates a scenario.

    `scenario` is a path to a YAML file, a bundled scenario's name (`"examples/p2p_lossy"`, as
    `airtcp scenarios list` shows them), YAML text, a mapping shaped like the file, or a
    `Scenario`. `seed` replaces the scenario's seed; `overrides` are `"path=value"` strings like
    the command line's `--set`. Raises `ScenarioError` for bad input and `SimulationError` if the
    core fails.
    """
    return simulate(load_scenario(scenario, seed=seed, overrides=() if overrides is None else overrides))


def simulate(
    scenario: Scenario,
    progress: Callable[[float], None] | None = None,
    *,
    trace_dir: Path | str | None = None,
) -> Results:
    """Runs an already validated scenario. With `progress`, the run goes on in a worker thread
    and `progress(simulated_s)` is called about every 0.1 s (see `airtcp.run_progress`).

    A scenario with a `trace` block writes its pcap files into `trace.dir` (relative to the
    current folder), or, when the block gives none, into `trace_dir` (`airtcp run` passes a
    folder that becomes `<out>/pcap`); with neither, the core refuses it (`ScenarioError` at
    `trace.dir`). The results' scenario keeps the block as it was written."""
    config = to_core_dict(_validated(scenario))
    core_config = _with_trace_dir(config, trace_dir)
    try:
        if progress is None:
            output = _core.simulate_json(json.dumps(core_config))
        else:
            from airtcp.run_progress import simulate_json_watched

            output = simulate_json_watched(json.dumps(core_config), progress)
    except ValueError as error:
        raise _core_error(str(error)) from None
    from airtcp.results import Results

    return Results.from_json(output, scenario=config)


def check(scenario: Scenario, *, trace_dir: Path | str | None = None) -> None:
    """Every check of a run that needs no simulation: the core builds the scenario's world
    (nodes, radios, routes) and drops it. Raises `ScenarioError` for what the core refuses, such
    as AODV in a scenario without radios, which validation of the fields alone cannot see.
    `trace_dir` is the folder a `trace` block without one would write to, as in `simulate` (the
    check creates it, writes a file there and removes it; it opens no capture file)."""
    config = _with_trace_dir(to_core_dict(_validated(scenario)), trace_dir)
    try:
        _core.check_json(json.dumps(config))
    except ValueError as error:
        raise _core_error(str(error)) from None


def _with_trace_dir(config: dict[str, Any], trace_dir: Path | str | None) -> dict[str, Any]:
    """`config` as the core runs it: a `trace` block without a folder gets `trace_dir` (without
    one, the core refuses the block)."""
    trace = config.get("trace")
    if trace is None or trace.get("dir") is not None or trace_dir is None:
        return config
    return {**config, "trace": {**trace, "dir": str(trace_dir)}}


def _validated(scenario: object) -> Scenario:
    if not isinstance(scenario, Scenario):
        raise ScenarioError(
            "scenario", f"expected a Scenario (see airtcp.load_scenario), got {type(scenario).__name__}"
        )
    return scenario


def _core_error(text: str) -> Exception:
    """A field-specific core error is bad input; anything else is a failure of the simulator."""
    match = _CORE_ERROR.match(text)
    if match is not None:
        return ScenarioError(match["path"], match["message"])
    return SimulationError(f"the simulator core failed: {text}")
