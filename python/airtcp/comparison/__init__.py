"""`airtcp compare`: every scheme of the five papers that applies, on the same networks, with the
optimum beside the measurements (docs/compare.md).

    import airtcp
    outcome = airtcp.compare(["compare/diamond_lossy", "my_mesh.yaml"], seeds=3, out="out/cmp")
    outcome.report            # out/cmp/report.html

A comparison is a reproduction like the papers' (`airtcp.papers`): one sweep per scenario
(`airtcp.comparison.plan`), an analysis that writes `compare.json` (`airtcp.comparison.table`) and a
figure per scenario, and the HTML report. `airtcp reproduce compare` runs the default set of
`scenarios/compare/`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from airtcp.comparison.plan import ScenarioPlan, Source, plan_scenario
from airtcp.comparison.schemes import SCHEMES, Scheme, schemes_named
from airtcp.errors import ScenarioError

__all__ = ["compare", "comparison", "DEFAULT_SCENARIOS", "SCHEMES", "COMPARE_JSON"]

COMPARE_JSON = "compare.json"
# The default set (scenarios/compare/): chosen so that each scheme has a network on which it
# should matter, and each family its own networks.
DEFAULT_SCENARIOS = (
    "compare/diamond_lossy", "compare/x", "compare/cross", "compare/grid4x4", "compare/random30",
    "compare/testbed22", "compare/diamond_11n", "compare/cell4", "compare/router_bimodal",
)
# The largest fraction of the model's total a scheme may reach before the row is flagged: the
# model counts every frame's backoff in full (see `airtcp.comparison.optimum`), so a busy network
# can pass 1 by a little, never by much.
BOUND_SLACK = 1.1


def comparison(
    scenarios: Sequence[Source],
    *,
    schemes: Sequence[str] | None = None,
    seeds: int = 3,
    quick_seeds: int | None = None,
    key: str = "compare",
    title: str = "Every scheme on the same networks",
) -> Any:
    """The comparison as a `airtcp.papers.Reproduction` (its sweeps, one per scenario, and its
    analysis). Raises `ScenarioError` for bad input, naming it (`SCENARIO[1]: ...`,
    `--schemes[0]`, `--seeds`)."""
    from airtcp.papers import Reproduction, SweepPlan

    if isinstance(scenarios, (str, Path, Mapping)) or not scenarios:
        raise ScenarioError("SCENARIO", "give at least one scenario (a file or a bundled name)")
    for name, value in (("--seeds", seeds), ("--seeds", quick_seeds)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ScenarioError(name, f"must be a whole number of at least 1, got {value!r}")
    chosen = schemes_named(list(schemes) if schemes is not None else None)
    taken: set[str] = set()
    plans = []
    problems = []
    for i, source in enumerate(scenarios):
        try:
            plans.append(plan_scenario(source, chosen, f"SCENARIO[{i}]", taken))
        except ScenarioError as error:
            problems.extend(error.errors)
    if problems:
        raise ScenarioError.from_list(problems)
    full, quick_n = seeds, quick_seeds if quick_seeds is not None else seeds
    sweeps = tuple(SweepPlan(plan.slug, _spec_of(plan, full, quick_n)) for plan in plans)

    def analyse(experiments: Mapping[str, Any], figures_dir: Path, quick: bool) -> tuple[list[Any], list[Any]]:
        return _analyse(plans, chosen, experiments, figures_dir, quick)

    return Reproduction(key=key, title=title, source="airtcp's own comparison (no published numbers): "
                        "measurements against each network's optimum", sweeps=sweeps, analyse=analyse,
                        notes=("Fractions of the optimum are of the model's largest total and of its "
                               "proportionally fair rates (docs/compare.md).",))


def _spec_of(plan: ScenarioPlan, seeds: int, quick_seeds: int) -> Any:
    return lambda quick: plan.spec(quick_seeds if quick else seeds, quick)


def _analyse(plans: Sequence[ScenarioPlan], schemes: Sequence[Scheme], experiments: Mapping[str, Any],
             figures_dir: Path, quick: bool) -> tuple[list[Any], list[Any]]:
    from airtcp.atomic_dir import atomic_write_bytes
    from airtcp.comparison.figures import plot_scenario
    from airtcp.comparison.table import scenario_table
    from airtcp.papers import Figure

    tables = [scenario_table(plan, experiments[plan.slug], schemes) for plan in plans]
    record = {
        "quick": quick,
        "schemes": [{"key": s.key, "label": s.label, "paper": s.paper, "family": s.family,
                     "needs": [need.value for need in s.needs], "settings": dict(s.settings)} for s in schemes],
        "scenarios": tables,
    }
    folder = figures_dir.parent
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / COMPARE_JSON, (json.dumps(record, indent=1) + "\n").encode())
    figures = []
    for table in tables:
        png = plot_scenario(table, figures_dir / f"compare_{table['slug']}")
        if png is not None:
            figures.append(Figure(png, f"{table['slug']}: total goodput per scheme (95 % CI over seeds) against "
                                       f"the optimum's largest total, and Jain's index."))
    return figures, _targets(tables)


def _targets(tables: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The comparison's checks: every cell filled (a result or a reason), and no scheme beyond
    the model's bound (which would mean the model, not the scheme, is wrong)."""
    from airtcp.papers import Target

    targets = []
    for table in tables:
        rows = table["rows"]
        empty = [row["scheme"] for row in rows if row["status"] in ("failed", "partial")]
        targets.append(Target(table["slug"], f"{table['slug']}: schemes with a result or a reason", "all", "",
                              f"{len(rows) - len(empty)} of {len(rows)}", ok=not empty,
                              note=("failed: " + ", ".join(empty)) if empty else ""))
        fractions = [(row["total_fraction"]["mean"], row["scheme"]) for row in rows if row.get("total_fraction")]
        if fractions:
            best, who = max(fractions)
            targets.append(Target(table["slug"], f"{table['slug']}: largest fraction of the optimum total", f"<= {BOUND_SLACK} (the model bounds it)",
                                  "", best, ok=best <= BOUND_SLACK, tolerance=f"<= {BOUND_SLACK}", note=f"by {who}"))
    return targets


def compare(
    scenarios: Sequence[Source],
    *,
    schemes: Sequence[str] | None = None,
    seeds: int = 3,
    quick: bool = False,
    out: str | Path | None = None,
    workers: int | None = None,
    cluster: str | None = None,
    quiet: bool = False,
) -> Any:
    """Runs (or resumes) the comparison of `scenarios` into `out` (default `out/compare`, or
    `out/compare-quick` with `quick`) and writes `compare.json`, the figures and `report.html`.
    Returns the `airtcp.papers.reproduce.ReproduceOutcome`. Raises `ScenarioError` for bad
    input before anything is written."""
    from airtcp.experiments.html_report import write_report
    from airtcp.papers.reproduce import ReproduceOutcome, _reproduce_one, check_folders

    reproduction = comparison(scenarios, schemes=schemes, seeds=seeds)
    folder = Path(out) if out is not None else Path("out") / ("compare-quick" if quick else "compare")
    if folder.exists() and not folder.is_dir():
        raise ScenarioError("--out", f"{str(folder)!r} exists and is not a directory")
    check_folders([(reproduction, folder)], quick)
    outcome = ReproduceOutcome(out=folder, keys=[reproduction.key])
    _reproduce_one(reproduction, folder, quick, workers, cluster, quiet, outcome)
    outcome.report = write_report(folder)
    return outcome
