"""Sweep specifications: a base scenario, the parameters to vary, and the seeds.

```yaml
name: loss-sweep
base: scenarios/examples/p2p_lossy.yaml     # a path (relative to this file), a bundled scenario's
                                            # name (examples/p2p_lossy) or an inline scenario
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

What is checked before anything runs: every value is one a scenario field can take (a number,
text, a boolean, null, or lists and mappings of those: a YAML date or `!!binary` is not), no
grid list repeats a value and no zip row repeats another (either would run the same point
twice), seeds are distinct and fit in 64 bits, and the sweep has at most `MAX_RUNS` runs. The
file itself must be a regular file of UTF-8 YAML of at most `MAX_SOURCE_BYTES`, nested at most
`MAX_NESTING` levels, like a scenario file, and so must a base given as a file, holding a mapping.
"""

import datetime
import hashlib
import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from airtcp.scenario import bundled
from airtcp.scenario.model import AfterValidator, BaseModel, BeforeValidator, Field, model_validator
from airtcp.scenario.messages import not_unicode_text
from airtcp.scenario.schema import U64_MAX, Name, Text
from airtcp.errors import ScenarioError
from airtcp.scenario.overrides import parse_override
from airtcp.scenario.source import MAX_NESTING, MAX_SOURCE_BYTES, check_nesting, parse_yaml, read_source
from airtcp.scenario.units import brief_repr

__all__ = ["SweepSpec", "RunPoint", "load_sweep_spec", "MAX_RUNS"]

# Every run gets a record file and a row in each table, all prepared up front: beyond this a
# sweep would exhaust memory and disk long before it finished. Larger studies are several sweeps.
MAX_RUNS = 1_000_000
# Values visited in a spec at most: YAML aliases can repeat a list exponentially often.
MAX_SPEC_VALUES = 4 * MAX_RUNS
# Integers beyond a float's range are beyond every field's (counts and sizes stop at 2^64); the
# longest ones cannot even be written as JSON, the form of the run records.
_LONGEST_FIELD_BITS = 1024


def _paths_and_values(value: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Each parameter a field path with at least one value."""
    for path, values in value.items():
        try:
            parse_override(f"{path}=0")
        except ScenarioError as error:
            raise ValueError(f"{path!r} is not a field path like links[0].loss.per ({error.message})") from None
        if not values:
            raise ValueError(f"{path}: needs at least one value")
    return value


def _zip_lengths(value: dict[str, list[Any]]) -> dict[str, list[Any]]:
    lengths = {path: len(values) for path, values in value.items()}
    if len(set(lengths.values())) > 1:
        described = ", ".join(f"{path}: {n}" for path, n in lengths.items())
        raise ValueError(f"every list needs the same length ({described})")
    return value


def _seeds(value: object) -> int | list[int]:
    """A count of seeds (1..n) or distinct seeds, each in 64 bits."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ValueError(f"a count must be at least 1, got {value}")
        return value
    if not isinstance(value, list) or any(isinstance(seed, bool) or not isinstance(seed, int) for seed in value):
        raise ValueError(f"expected a count or a list of whole numbers, got {brief_repr(value)}")
    if not value:
        raise ValueError("needs at least one seed")
    if any(not 0 <= seed <= U64_MAX for seed in value):
        raise ValueError("seeds must be between 0 and 2^64-1")
    if len(set(value)) != len(value):
        raise ValueError("seeds must be distinct")
    return value


def _base(value: object) -> str | dict[str, Any]:
    if isinstance(value, str):
        problem = not_unicode_text(value)
        if problem is not None:
            raise ValueError(problem)
        return value
    if isinstance(value, Mapping):
        return dict(value)
    raise ValueError(f"expected a scenario file's path, a bundled scenario's name or a scenario, got {brief_repr(value)}")


# The parameters of a grid or zip: field paths to lists of values (each value checked by
# `_ValueCheck` before, and by the scenario when its run is built).
_Parameters = Annotated[dict[Text, list[Any]], AfterValidator(_paths_and_values)]


class SweepSpec(BaseModel):
    """A sweep: see the module docs. Read by the same model engine as scenarios
    (`airtcp.scenario.model`): unknown fields refused, every problem reported at once."""

    name: Name = "sweep"
    # A scenario file's path or bundled name, or a scenario (its fields checked when it is read).
    base: Annotated[Any, BeforeValidator(_base)]
    grid: _Parameters = Field(default_factory=dict)
    zip: Annotated[_Parameters, AfterValidator(_zip_lengths)] = Field(default_factory=dict)
    seeds: Annotated[Any, BeforeValidator(_seeds)] = 1  # int | list[int]

    @model_validator(mode="after")
    def _grid_or_zip(self) -> "SweepSpec":
        both = sorted(set(self.grid) & set(self.zip))
        if both:
            raise ScenarioError("zip", f"{both[0]} is in both grid and zip")
        return self

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
        check_nesting(source, "sweep")  # before anything recursive walks it (parse_yaml checks files)
        raw: Any = dict(source)
    else:
        path = Path(source)
        raw = parse_yaml(_read_spec_file(path), str(source))
        folder = path.resolve().parent
    if not isinstance(raw, dict):
        raise ScenarioError("sweep", f"expected a mapping, got {type(raw).__name__}")
    _raise_if_any(_ValueCheck().problems_in(raw))
    try:
        spec = SweepSpec.model_validate(raw)
    except ScenarioError as error:
        problems = [(f"sweep.{path}" if path else "sweep", message) for path, message in error.errors]
        raise ScenarioError.from_list(problems) from None
    _raise_if_any(_repeated_points(spec) or _too_many_runs(spec))
    if isinstance(spec.base, str):
        base_path = _base_path(spec.base, folder)
        if not base_path.is_file():
            if bundled.is_bundled(spec.base):
                return spec, folder
            raise ScenarioError(
                "sweep.base",
                f"no such scenario file {spec.base!r} (nor a bundled scenario: see airtcp scenarios list)",
            )
        # A base that is no scenario file at all (not YAML, not a mapping, binary, too large or
        # too deep) would fail every run alike: refused now, naming the file, like a scenario
        # file given to `airtcp run`.
        read_source(base_path)
    return spec, folder


def _read_spec_file(path: Path) -> str:
    """The text of a regular file (a FIFO would block, /dev/zero never ends) of at most
    `MAX_SOURCE_BYTES`."""
    if path.is_dir():
        raise ScenarioError(str(path), "is a directory, not a sweep file")
    if not path.exists():
        raise ScenarioError(str(path), "no such sweep file")
    if not path.is_file():
        raise ScenarioError(str(path), "is not a regular file (a device, pipe or socket); give a sweep file")
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SOURCE_BYTES + 1)
    except OSError as error:
        raise ScenarioError(str(path), f"cannot read: {error.strerror or error}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise ScenarioError(str(path), f"larger than {MAX_SOURCE_BYTES // 2**20} MiB; a sweep spec is a short YAML file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(str(path), "is not a text file (expected YAML in UTF-8)") from None


def _raise_if_any(problems: list[tuple[str, str]]) -> None:
    if problems:
        raise ScenarioError.from_list(problems)


class _ValueCheck:
    """Walks a raw spec (nested at most `MAX_NESTING` levels): every value must be one a scenario
    field can take, because each is handed to the scenario as JSON text and stored in JSON
    records."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []
        self.visited = 0

    def problems_in(self, raw: dict[str, Any]) -> list[tuple[str, str]]:
        self._walk(raw, "sweep")
        return self.problems

    def _walk(self, value: Any, path: str) -> None:
        self.visited += 1
        if self.visited > MAX_SPEC_VALUES:
            if self.visited == MAX_SPEC_VALUES + 1:
                self.problems.append(("sweep", f"holds more than {MAX_SPEC_VALUES:,} values (YAML aliases repeating a list?)"))
            return
        if isinstance(value, dict):
            self._walk_mapping(value, path)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                self._walk(item, f"{path}[{i}]")
        elif (problem := _unusable_scalar(value)) is not None:
            self.problems.append((path, problem))

    def _walk_mapping(self, value: dict[Any, Any], path: str) -> None:
        for key, item in value.items():
            if not isinstance(key, str):
                self.problems.append((path, f"field names must be text, got {key!r}"))
            else:
                self._walk(item, f"{path}.{key}")


def _unusable_scalar(value: Any) -> str | None:
    """Why `value` cannot be a scenario value, or None if it can."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _LONGEST_FIELD_BITS:
        return f"{brief_repr(value)} is beyond the range of every field"
    if value is None or isinstance(value, (bool, int, str)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if isinstance(value, (datetime.date, datetime.time)):
        return f"a date or time ({value.isoformat()}) is not a value a field takes; quote it for text"
    if isinstance(value, (bytes, bytearray)):
        return "binary data (!!binary) is not a value a field takes"
    return f"a {type(value).__name__} is not a value a field takes"


def _same_run_value(value: Any) -> Any:
    """Equal for two values that make the same run: 1 and 1.0 alike (Python compares and hashes
    numbers by their exact value, so 2^53 and 2^53 + 1 stay apart), booleans apart from numbers,
    mappings in any key order."""
    if isinstance(value, dict):
        return ("mapping", frozenset((key, _same_run_value(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_same_run_value(item) for item in value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", value)
    return (type(value).__name__, value)


def _shown(value: Any) -> str:
    """A value in a message, as JSON (the form of the records) unless that is long."""
    text = json.dumps(value)
    return text if len(text) <= 80 else brief_repr(value)


def _repeated_points(spec: SweepSpec) -> list[tuple[str, str]]:
    """A repeated grid value or zip row would run the same point twice and count it twice."""
    problems = []
    for param, values in spec.grid.items():
        first: dict[Any, int] = {}
        for i, value in enumerate(values):
            j = first.setdefault(_same_run_value(value), i)
            if j != i:
                problems.append((f"sweep.grid.{param}[{i}]", f"duplicate value {_shown(value)} (already at [{j}])"))
    first_row: dict[Any, int] = {}
    for i, row in enumerate(zip(*spec.zip.values())):
        j = first_row.setdefault(tuple(_same_run_value(v) for v in row), i)
        if j != i:
            problems.append(("sweep.zip", f"row {i} repeats row {j}"))
    return problems


def _too_many_runs(spec: SweepSpec) -> list[tuple[str, str]]:
    grid = math.prod(len(values) for values in spec.grid.values())
    rows = len(next(iter(spec.zip.values()))) if spec.zip else 1
    seeds = spec.seeds if isinstance(spec.seeds, int) else len(spec.seeds)
    runs = grid * rows * seeds
    if runs <= MAX_RUNS:
        return []
    return [("sweep", f"expands to {runs:,} runs (grid x zip rows x seeds); a sweep has at most {MAX_RUNS:,}: "
                      "split it into several")]


def base_source(spec: SweepSpec, folder: Path | None) -> str | Path | dict[str, Any]:
    """The base scenario as `load_scenario` takes it."""
    if isinstance(spec.base, dict):
        return spec.base
    path = _base_path(spec.base, folder)
    if not path.is_file() and bundled.is_bundled(spec.base):
        return bundled.read_data(spec.base)
    return path


def _base_path(base: str, folder: Path | None) -> Path:
    """A base given as a path: relative to the spec's folder (if it came from a file)."""
    path = Path(base)
    return path if path.is_absolute() or folder is None else folder / path
