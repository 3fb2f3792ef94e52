"""The registry of reproductions: each module here declares one paper's (or one reference's)
sweeps, figures and published targets, and `airtcp reproduce KEY|all [--quick]` runs them.

A reproduction is a `Reproduction`:

- `sweeps`: named sweep specs (the same mappings `airtcp sweep` reads), built for the full or the
  `--quick` form. Quick is the reduced version CI runs: fewer seeds and shorter runs, the same
  claims checked;
- `analyse(experiments, figures_dir, quick)`: from the finished sweeps (loaded as
  `airtcp.experiments.analysis.Experiment`s, by sweep name) draws the figures into `figures_dir` and
  returns them with the table of published vs airtcp numbers (`Target` rows).

Adding a paper: write `papers/<name>.py` exposing `REPRODUCTION`, and list the module in
`_MODULES` below (in the order `all` runs them). Its scenario files go in the package
(`python/airtcp/data/scenarios/<folder>/`, read with `airtcp.scenario.bundled.read_data`), so an
installed wheel reproduces it without a source checkout.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from airtcp.experiments.analysis import Experiment

__all__ = ["Figure", "Reproduction", "SweepPlan", "Target", "registry"]

_MODULES = ("validation", "paper000", "paper001", "paper002", "paper003", "paper004", "compare")


@dataclass(frozen=True)
class SweepPlan:
    """One sweep of a reproduction: `spec(quick)` gives the sweep spec mapping."""

    name: str
    spec: Callable[[bool], Mapping[str, Any]]


@dataclass(frozen=True)
class Figure:
    """A drawn figure: its PNG, with the SVG beside it, and what it shows."""

    png: Path
    caption: str


@dataclass(frozen=True)
class Target:
    """One row of the published-vs-airtcp table.

    `published` is the paper's number (or the model's, for a closed-form reference); `airtcp` the
    mean over seeds with the half-width `ci95` of its 95 % confidence interval over `n` runs;
    `ok` whether the row meets `tolerance` (None where the claim is qualitative and stated in
    `note`)."""

    section: str
    what: str
    published: float | str
    unit: str
    airtcp: float | str | None
    ci95: float | None = None
    n: int = 0
    tolerance: str = ""
    ok: bool | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Reproduction:
    """A paper's reproduction."""

    key: str
    title: str
    source: str  # where the published numbers come from
    sweeps: tuple[SweepPlan, ...]
    analyse: Callable[[Mapping[str, Experiment], Path, bool], tuple[list[Figure], list[Target]]]
    notes: tuple[str, ...] = field(default_factory=tuple)


def registry() -> dict[str, Reproduction]:
    """Every reproduction by key, in the order `all` runs them."""
    found: dict[str, Reproduction] = {}
    for name in _MODULES:
        module = importlib.import_module(f"airtcp.papers.{name}")
        reproduction: Reproduction = module.REPRODUCTION
        found[reproduction.key] = reproduction
    return found
