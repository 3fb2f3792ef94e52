"""`airtcp reproduce KEY|all [--quick]`: runs a reproduction's sweeps, draws its figures, writes
its table of published vs airtcp numbers and the HTML report.

Layout of the output folder (default `out/reproduce`, or `out/reproduce-quick` with `--quick`, so
that the two forms never share a sweep folder):

```
OUT/report.html                 every reproduction run into OUT, one page
OUT/<key>/reproduction.json     title, source, figures, targets, per-sweep run counts
OUT/<key>/report.html           this reproduction alone
OUT/<key>/figures/*.png|svg
OUT/<key>/<sweep>/              an ordinary sweep folder (resumable: see docs/sweeps.md)
```

Sweeps resume like `airtcp sweep`: running the command again skips finished runs. A sweep with
failed runs is analysed from the runs that finished; the failures are listed in the report and
the command exits 1.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from airtcp import __version__
from airtcp.experiments.analysis import load_experiment
from airtcp.errors import ScenarioError
from airtcp.experiments.html_report import has_interval, published_text
from airtcp.papers import Reproduction, registry, verdict_line, verdict_of
from airtcp.atomic_dir import atomic_write_bytes
from airtcp.experiments.sweep import check_sweep_folder, run_sweep

__all__ = ["ReproduceOutcome", "check_folders", "default_out", "format_targets", "reproduce", "resolve_keys",
           "summary_lines"]


@dataclass
class ReproduceOutcome:
    """What one invocation did."""

    out: Path
    keys: list[str] = field(default_factory=list)
    executed_runs: int = 0
    skipped_runs: int = 0
    failed_runs: int = 0
    analysis_errors: list[tuple[str, str]] = field(default_factory=list)  # (key, error)
    targets_missed: int = 0
    report: Path | None = None

    @property
    def ok(self) -> bool:
        return self.failed_runs == 0 and not self.analysis_errors


def default_out(quick: bool) -> Path:
    return Path("out") / ("reproduce-quick" if quick else "reproduce")


def resolve_keys(which: str) -> list[str]:
    """`all` or one registered key; anything else is bad input naming the valid keys."""
    known = registry()
    if which == "all":
        return list(known)
    if which not in known:
        raise ScenarioError("PAPER", f"no reproduction {which!r}; known: {', '.join(known)} or all")
    return [which]


def reproduce(
    which: str,
    out: str | Path | None = None,
    *,
    quick: bool = False,
    workers: int | None = None,
    cluster: str | None = None,
    quiet: bool = False,
) -> ReproduceOutcome:
    """Runs (or resumes) the reproductions `which` (a key or `all`) into `out` and writes the
    report. Raises `ScenarioError` for an unknown key or an unusable folder."""
    from airtcp.experiments.html_report import write_report

    keys = resolve_keys(which)
    out = Path(out) if out is not None else default_out(quick)
    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", f"{str(out)!r} exists and is not a directory")
    outcome = ReproduceOutcome(out=out, keys=keys)
    reproductions = registry()
    check_folders([(reproductions[key], out / key) for key in keys], quick)
    for key in keys:
        _reproduce_one(reproductions[key], out / key, quick, workers, cluster, quiet, outcome)
    outcome.report = write_report(out)
    return outcome


def check_folders(pairs: Sequence[tuple[Reproduction, Path]], quick: bool) -> None:
    """Refuses (`ScenarioError`) before anything runs if a sweep's folder holds another sweep
    (another form, other seeds or schemes), rather than after the sweeps before it have run."""
    for reproduction, folder in pairs:
        for plan in reproduction.sweeps:
            check_sweep_folder(plan.spec(quick), folder / plan.name)


def _reproduce_one(
    reproduction: Reproduction,
    folder: Path,
    quick: bool,
    workers: int | None,
    cluster: str | None,
    quiet: bool,
    outcome: ReproduceOutcome,
) -> None:
    sweeps = []
    for plan in reproduction.sweeps:
        if not quiet:
            print(f"== {reproduction.key}: sweep {plan.name}{' (quick)' if quick else ''}", flush=True)
        result = run_sweep(plan.spec(quick), folder / plan.name, workers=workers, cluster=cluster, quiet=quiet)
        outcome.failed_runs += result.failed
        outcome.executed_runs += result.executed
        outcome.skipped_runs += result.skipped
        sweeps.append({
            "name": plan.name, "folder": plan.name, "total": result.total, "failed": result.failed,
            "failures": [{"key": key, "error": error} for key, error in result.failures],
        })
    record: dict[str, object] = {
        "key": reproduction.key, "title": reproduction.title, "source": reproduction.source,
        "notes": list(reproduction.notes), "quick": quick, "airtcp_version": __version__,
        "sweeps": sweeps, "figures": [], "targets": [], "analysis_error": None,
    }
    try:
        experiments = {plan.name: load_experiment(folder / plan.name) for plan in reproduction.sweeps}
        figures, targets = reproduction.analyse(experiments, folder / "figures", quick)
    except Exception as error:  # noqa: BLE001 - reported in the page and the exit code
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        record["analysis_error"] = detail
        outcome.analysis_errors.append((reproduction.key, detail))
    else:
        record["figures"] = [{"png": str(f.png.relative_to(folder)), "caption": f.caption} for f in figures]
        record["targets"] = [t.to_json() for t in targets]
        outcome.targets_missed += sum(1 for t in targets if t.ok is False)
    atomic_write_bytes(folder / "reproduction.json", (json.dumps(record, indent=1) + "\n").encode())


def format_targets(rows: Sequence[dict[str, object]]) -> str:
    """The targets as a plain-text table, for the terminal (`reproduce --verbose`): each row names
    its section (the figure and topology) and verdict; a row that is missed or not judged carries
    its note on the next line."""
    lines = []
    for row in rows:
        airtcp = row.get("airtcp")
        ci = row.get("ci95")
        value = "none" if airtcp is None else (f"{airtcp:.4g}" if isinstance(airtcp, float) else str(airtcp))
        if isinstance(airtcp, (int, float)) and has_interval(airtcp, ci):
            value += f" ± {float(f'{ci:.2g}'):g}"
        verdict = verdict_of(row)
        published = row["published"]
        unit = f" {row['unit']}" if row["unit"] and isinstance(published, (int, float)) else ""
        if isinstance(airtcp, (int, float)):
            value += f" {row['unit']}" if row["unit"] else ""
        lines.append(f"  [{verdict}] {row['section']}: {row['what']}: published {published_text(published)}{unit}, "
                     f"airtcp {value}")
        if verdict != "ok" and row.get("note"):
            lines.append(f"      note: {row['note']}")
    return "\n".join(lines)


def summary_lines(out: Path, keys: Sequence[str]) -> list[str]:
    """One verdict line per reproduction run into `out` ('000: 40 rows: 15 ok, 9 missed, 16 not
    judged'), read from its `reproduction.json` (the numbers the HTML report shows)."""
    lines = []
    for key in keys:
        path = out / key / "reproduction.json"
        if not path.is_file():
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("analysis_error"):
            lines.append(f"{key}: analysis failed (see the report)")
        elif record["targets"]:
            lines.append(f"{key}: {verdict_line(record['targets'])}")
        else:
            lines.append(f"{key}: no published rows")
    return lines
