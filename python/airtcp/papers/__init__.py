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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from airtcp.experiments.analysis import Experiment

__all__ = ["VERDICTS", "Figure", "Reproduction", "SweepPlan", "Target", "count_verdicts", "registry", "verdict_line",
           "verdict_of"]

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


#: A row's verdict: it meets its tolerance, it does not, or the claim is not one airtcp judges
#: (qualitative, or shown for comparison); the row's note then says why.
VERDICTS = ("ok", "missed", "not judged")


@dataclass(frozen=True)
class Target:
    """One row of the published-vs-airtcp table.

    `published` is the paper's number (or the model's, for a closed-form reference; None where the
    paper gives none, the note saying why the row is shown); `airtcp` the mean over seeds with the
    half-width `ci95` of its 95 % confidence interval over `n` runs; `ok` whether the row meets
    `tolerance` (None: not judged, and `note` says why). A row that is not judged or has no
    published number without a note is refused (ValueError), so that no cell of the report is
    empty without a reason."""

    section: str
    what: str
    published: float | str | None
    unit: str
    airtcp: float | str | None
    ci95: float | None = None
    n: int = 0
    tolerance: str = ""
    ok: bool | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.published, str) and not self.published.strip(" -\u2013\u2014"):
            object.__setattr__(self, "published", None)  # empty or a dash: the paper gives none
        if not self.note.strip():
            if self.ok is None:
                raise ValueError(f"{self.section}: {self.what}: a row that is not judged needs a note saying why")
            if self.published is None:
                raise ValueError(f"{self.section}: {self.what}: a row without a published number needs a note")

    @property
    def verdict(self) -> str:
        return verdict_of(self.to_json())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def verdict_of(row: Mapping[str, Any]) -> str:
    """The verdict (one of `VERDICTS`) of a target row as `reproduction.json` stores it."""
    return {True: "ok", False: "missed"}.get(row.get("ok"), "not judged")  # type: ignore[arg-type]


def count_verdicts(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many rows have each verdict, in `VERDICTS` order (every verdict present, zero or not)."""
    counts = dict.fromkeys(VERDICTS, 0)
    for row in rows:
        counts[verdict_of(row)] += 1
    return counts


def verdict_line(rows: Sequence[Mapping[str, Any]]) -> str:
    """'40 rows: 15 ok, 9 missed, 16 not judged' (the headline of a reproduction's table)."""
    counts = count_verdicts(rows)
    parts = ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
    return f"{len(rows)} row{'s' if len(rows) != 1 else ''}: {parts}"


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
