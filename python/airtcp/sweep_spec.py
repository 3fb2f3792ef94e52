"""Sweep specifications: a base scenario, the parameters to vary, and the seeds.

```yaml
name: loss-sweep
base: scenarios/examples/p2p_lossy.yaml     # a path (relative to this file) or an inline scenario
grid:                                       # every combination of these ...
  links[0].loss.per: [0, 0.01, 0.02]
  flows[0].transport.cc: [reno, newreno]
zip:                                        # ... times these, taken in step (equal lengths)
  links[0].queue.packets: [20, 50]
  name: [small-buffer, large-buffer]
seeds: 3                                    # seeds 1..3, or a list: [1, 7, 42]
```

Parameters use the `--set` addressing of `airtcp run` (`links[0].loss.per`). The runs are the
cartesian product of the grid, times the zipped rows, times the seeds; with neither grid nor zip
there is one parameter point. A point whose values make an invalid scenario is not a spec error:
it becomes a failed run with the scenario error, and the other runs go ahead.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, ValidationInfo, field_validator

from airtcp.errors import ScenarioError
from airtcp.overrides import parse_override
from airtcp.scenario_source import parse_yaml
from airtcp.validation_messages import translate_validation_error

__all__ = ["SweepSpec", "RunPoint", "load_sweep_spec"]


class SweepSpec(BaseModel):
    """A sweep: see the module docs."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="sweep", min_length=1)
    base: Union[str, dict[str, Any]]
    grid: dict[str, list[Any]] = Field(default_factory=dict)
    zip: dict[str, list[Any]] = Field(default_factory=dict)
    seeds: Union[StrictInt, list[StrictInt]] = 1

    @field_validator("grid", "zip")
    @classmethod
    def _paths_and_values(cls, value: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for path, values in value.items():
            try:
                parse_override(f"{path}=0")
            except ScenarioError as error:
                raise ValueError(f"{path!r} is not a field path like links[0].loss.per ({error.message})") from None
            if not values:
                raise ValueError(f"{path}: needs at least one value")
        return value

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, value: int | list[int]) -> int | list[int]:
        if isinstance(value, int):
            if value < 1:
                raise ValueError(f"a count must be at least 1, got {value}")
        else:
            if not value:
                raise ValueError("needs at least one seed")
            if any(seed < 0 for seed in value):
                raise ValueError("seeds must not be negative")
            if len(set(value)) != len(value):
                raise ValueError("seeds must be distinct")
        return value

    @field_validator("zip")
    @classmethod
    def _zip_lengths(cls, value: dict[str, list[Any]], info: ValidationInfo) -> dict[str, list[Any]]:
        lengths = {path: len(values) for path, values in value.items()}
        if len(set(lengths.values())) > 1:
            described = ", ".join(f"{path}: {n}" for path, n in lengths.items())
            raise ValueError(f"every list needs the same length ({described})")
        both = sorted(set(info.data.get("grid") or {}) & set(value))
        if both:
            raise ValueError(f"{both[0]} is in both grid and zip")
        return value

    def seed_list(self) -> list[int]:
        return list(range(1, self.seeds + 1)) if isinstance(self.seeds, int) else list(self.seeds)


@dataclass(frozen=True)
class RunPoint:
    """One run of a sweep: parameter values and a seed."""

    params: tuple[tuple[str, Any], ...]
    seed: int

    @property
    def overrides(self) -> list[str]:
        """The `--set` strings (values written as JSON, which YAML reads back unchanged)."""
        return [f"{path}={json.dumps(value)}" for path, value in self.params]

    @property
    def key(self) -> str:
        """A stable id of the point (its parameters and seed), used for file names."""
        text = json.dumps([list(self.params), self.seed], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand(spec: SweepSpec) -> list[RunPoint]:
    """Every run of the sweep, grid-major (the last grid parameter varies fastest), then zip
    rows, then seeds."""
    grid = [[(path, value) for value in values] for path, values in spec.grid.items()]
    rows: list[tuple[tuple[str, Any], ...]] = [()]
    if spec.zip:
        paths = list(spec.zip)
        length = len(spec.zip[paths[0]])
        rows = [tuple((path, spec.zip[path][i]) for path in paths) for i in range(length)]
    points = []
    for combination in itertools.product(*grid):
        for row in rows:
            for seed in spec.seed_list():
                points.append(RunPoint(tuple(combination) + row, seed))
    return points


def load_sweep_spec(source: str | Path | Mapping[str, Any]) -> tuple[SweepSpec, Path | None]:
    """Reads and checks a spec (a YAML file path or a mapping); returns it and the folder relative
    paths are resolved against. Raises `ScenarioError` naming the field, prefixed `sweep.`."""
    folder: Path | None = None
    if isinstance(source, Mapping):
        raw: Any = dict(source)
    else:
        path = Path(source)
        if not path.is_file():
            raise ScenarioError(str(source), "no such sweep file")
        folder = path.resolve().parent
        raw = parse_yaml(path.read_text(encoding="utf-8"), str(source))
    if not isinstance(raw, dict):
        raise ScenarioError("sweep", f"expected a mapping, got {type(raw).__name__}")
    try:
        spec = SweepSpec.model_validate(raw)
    except ValidationError as error:
        translated = translate_validation_error(error, SweepSpec)
        problems = [(f"sweep.{path}" if path else "sweep", message) for path, message in translated.errors]
        raise ScenarioError.from_list(problems) from None
    if isinstance(spec.base, str):
        base_path = Path(spec.base)
        if not base_path.is_absolute() and folder is not None:
            base_path = folder / base_path
        if not base_path.is_file():
            raise ScenarioError("sweep.base", f"no such scenario file {spec.base!r}")
    return spec, folder


def base_source(spec: SweepSpec, folder: Path | None) -> str | Path | dict[str, Any]:
    """The base scenario as `load_scenario` takes it."""
    if isinstance(spec.base, dict):
        return spec.base
    path = Path(spec.base)
    return path if path.is_absolute() or folder is None else folder / path
