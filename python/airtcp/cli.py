"""The `airtcp` command.

Exit codes: 0 success; 2 bad input (scenario, `--set`, `--out`, command-line usage), reported as
`error: <path>: <message>` on stderr with no output directory left behind; 1 a failure of the
simulator or of airtcp itself; 130 interrupted.

The command line is read by `airtcp.command_line` (argparse underneath, errors in the project's
form); this module holds the commands and what each takes.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from airtcp.command_line import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    HELP,
    Argument,
    Command,
    Group,
    Option,
    Param,
    UsageError,
    dispatch,
)
from airtcp.errors import ScenarioError, one_line

if TYPE_CHECKING:
    # Imported where a command needs them: the schema and the YAML parser take about 15 ms to
    # import, which `airtcp --help` and the commands that read no scenario should not wait for.
    from airtcp.scenario.schema import Scenario

__all__ = ["main"]

# --- What the commands take ----------------------------------------------------------------------


def _whole_number(text: str, minimum: int, maximum: int) -> int:
    """An integer option's value, with errors in the form of every other bad input."""
    from airtcp.scenario.units import brief_repr

    if not re.fullmatch(r"\s*[+-]?\d{1,40}\s*", text):
        raise ValueError(f"not a whole number: {brief_repr(text)}")
    number = int(text)
    if not minimum <= number <= maximum:
        raise ValueError(f"must be between {minimum} and {maximum}, got {number}")
    return number


def _seed(text: str) -> int:
    from airtcp.scenario.units import U64_MAX

    return _whole_number(text, 0, U64_MAX)


def _workers(text: str) -> int:
    return _whole_number(text, 1, 2**16)



_FILE = Argument(
    "FILE",
    "Scenario file (YAML), or the name of a bundled scenario (`airtcp scenarios list`); "
    "a file of that name always wins.",
)
_SEED = Option(("--seed",), "seed", "Master seed; replaces the file's `seed`.", metavar="INTEGER", convert=_seed)
_SET = Option(
    ("--set",),
    "overrides",
    "Override a field before validation, e.g. --set links[0].loss.per=0.02 (repeatable).",
    metavar="PATH=VALUE",
    repeatable=True,
)
_WORKERS = Option(
    ("-j", "--workers"), "workers", "Local worker processes (default: the cores).", metavar="INTEGER", convert=_workers
)
_CLUSTER = Option(("--cluster",), "cluster", "Dask scheduler address, e.g. tcp://host:8786.", metavar="ADDRESS")
_NO_PROGRESS = Option(("-q", "--quiet"), "quiet", "No progress output.")


_VERSION = Option(("--version",), "version", "Show the version and exit.")
_ROOT = Group("Packet-level simulator for TCP over wireless networks.", {}, (_VERSION, HELP))
_SCENARIOS = Group(
    "The scenarios shipped with airtcp: list them, copy one out to edit it, print their schema.", {}
)


def _command(
    group: Group, name: str, *params: Param, passthrough: bool = False
) -> Callable[[Callable[..., int | None]], Callable[..., int | None]]:
    """Registers the decorated function as the command NAME of GROUP."""

    def register(function: Callable[..., int | None]) -> Callable[..., int | None]:
        group.commands[name] = Command(function, params, passthrough)
        return function

    return register


# --- The commands --------------------------------------------------------------------------------


def _bad_input(error: ScenarioError) -> NoReturn:
    for line in error.lines():
        print(f"error: {line}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def _failure(message: str, *, with_traceback: bool = False) -> NoReturn:
    if with_traceback:
        import traceback

        traceback.print_exc(file=sys.stderr)
    print(f"error: {one_line(message)}", file=sys.stderr)
    sys.exit(EXIT_FAILURE)


def _interrupted(message: str) -> NoReturn:
    print(message, file=sys.stderr)
    sys.exit(EXIT_INTERRUPTED)


def _load(file: Path, seed: int | None, overrides: list[str]) -> Scenario:
    """The scenario FILE with --seed and --set applied; problems raise `ScenarioError`. A FILE that
    does not exist may name a bundled scenario instead (`load_scenario` reads both)."""
    from airtcp.scenario.overrides import parse_override
    from airtcp.scenario.schema import load_scenario

    return load_scenario(file, seed=seed, overrides=[parse_override(text, "--set") for text in overrides])


def _report_outcome(outcome: Any) -> None:
    """The end of `reproduce` and `compare`: what failed, where the report is, the exit code."""
    for key, problem in outcome.analysis_errors:
        print(f"failed: analysis of {key}: {problem}", file=sys.stderr)
    if outcome.failed_runs:
        print(f"failed: {outcome.failed_runs} runs (listed in the report)", file=sys.stderr)
    print(f"report: {outcome.report}")
    if not outcome.ok:
        sys.exit(EXIT_FAILURE)


def _out_folder(default: str) -> Option:
    return Option(("-o", "--out"), "out", f"Output folder (default {default}).", metavar="PATH", convert=Path)


@_command(
    _ROOT,
    "run",
    _FILE,
    Option(
        ("-o", "--out"),
        "out",
        "Directory to write the results to (must not exist or be empty).",
        metavar="PATH",
        convert=Path,
        required=True,
    ),
    _SEED,
    _SET,
    Option(("--force",), "force", "Replace --out if it exists and is not empty."),
    Option(("-q", "--quiet"), "quiet", "Print nothing on success."),
)
def run(file: Path, out: Path, seed: int | None, overrides: list[str], force: bool, quiet: bool) -> None:
    """Simulate a scenario, print per-flow results and write them to --out (with a `trace` block
    that names no folder, its pcap files too, in --out/pcap)."""
    import shutil

    from airtcp.atomic_dir import OutputDirError, check_output_dir, staging_sibling

    try:
        scenario = _load(file, seed, overrides)
        # Checked before simulating so a long run is not wasted on an unusable --out.
        check_output_dir(out, replace=force)
    except ScenarioError as error:
        _bad_input(error)
    except OutputDirError as error:
        _bad_input(ScenarioError("--out", str(error)))

    # Imported here: only needed once there is something to simulate.
    from airtcp.api import simulate
    from airtcp.errors import SimulationError
    from airtcp.report import format_report
    from airtcp.run_progress import ProgressLine

    # A trace without a folder of its own is written beside --out and moved into it with the
    # results (--out itself appears all at once, when the run is over).
    traces = None
    if scenario.trace is not None and scenario.trace.dir is None:
        traces = staging_sibling(out, "pcap")
    line = None if quiet else ProgressLine(scenario.duration / 1e9)
    finished = False
    try:
        results = simulate(scenario, progress=line, trace_dir=traces)
        finished = True
    except ScenarioError as error:  # a field the core rejected
        _bad_input(error)
    except SimulationError as error:
        _failure(str(error))
    except KeyboardInterrupt:
        _interrupted("\ninterrupted: the run was stopped and nothing was written")
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 - a panic in the core is a BaseException
        _failure(f"the simulation failed: {error!r}", with_traceback=True)
    finally:
        if line is not None:
            line.close()
        if traces is not None and not finished:
            shutil.rmtree(traces, ignore_errors=True)

    try:
        results.write(out, force=force, folders={} if traces is None else {"pcap": traces})
    except OutputDirError as error:  # --out was filled while the simulation ran
        _bad_input(ScenarioError("--out", str(error)))
    except OSError as error:
        _failure(f"--out: cannot write {str(out)!r}: {error}")
    finally:
        if traces is not None:
            shutil.rmtree(traces, ignore_errors=True)

    trace = results.trace
    if not quiet:
        print(format_report(results.summary, results.timing))
        print(f"results written to {out}")
        if trace is not None:
            where = out / "pcap" if traces is not None else Path(scenario.trace.dir)
            print(f"pcap traces ({len(trace['files'])} files) written to {where}")
    if trace is not None and trace.get("error"):
        # The results are whole and written; the captures stopped early.
        _failure(f"trace: writing the pcap files stopped: {trace['error']}")
    if results.conservation_problem is not None:
        # Written anyway (marked "valid": false) so the run can be examined, but not a success.
        _failure(results.conservation_problem)


@_command(
    _ROOT,
    "validate",
    _FILE,
    _SEED,
    _SET,
    Option(("--json",), "as_json", "Print the normalised scenario the simulator would receive."),
)
def validate(file: Path, seed: int | None, overrides: list[str], as_json: bool) -> None:
    """Check a scenario file without simulating it: every check a run makes before it starts."""
    import tempfile

    from airtcp.api import check
    from airtcp.errors import SimulationError

    try:
        scenario = _load(file, seed, overrides)
        # A trace without a folder would go into `run`'s output folder, which validation has
        # not: the system's temporary folder stands in for it (the check writes nothing there).
        check(scenario, trace_dir=tempfile.gettempdir())
    except ScenarioError as error:
        _bad_input(error)
    except SimulationError as error:
        _failure(str(error))
    if as_json:
        from airtcp.scenario.schema import to_core_json

        print(to_core_json(scenario))
        return
    from airtcp.scenario.units import format_duration

    print(
        f"ok: {file}: scenario {scenario.name!r}, {scenario.node_count} nodes, "
        f"{len(scenario.links)} links, {len(scenario.flows)} flows, "
        f"{format_duration(scenario.duration)}, seed {scenario.seed}"
    )


@_command(_SCENARIOS, "list")
def scenarios_list() -> None:
    """List the bundled scenarios by name, each with its description; `airtcp run NAME` runs one."""
    from airtcp.scenario import bundled

    names = bundled.names()
    width = max(map(len, names))
    for name in names:
        print(f"{name:<{width}}  {bundled.description(name)}".rstrip())


@_command(
    _SCENARIOS,
    "copy",
    Argument("NAME", "A bundled scenario (see `airtcp scenarios list`).", convert=str),
    Argument("DEST", "The file to write, or an existing directory (gets NAME's file name)."),
    Option(("--force",), "force", "Replace DEST's file if it exists."),
)
def scenarios_copy(name: str, dest: Path, force: bool) -> None:
    """Write a bundled scenario's YAML to DEST, to read or edit it."""
    from airtcp.scenario import bundled

    try:
        target = bundled.copy_to(name, dest, force=force)
    except ScenarioError as error:
        _bad_input(error)
    print(f"wrote {target}")


@_command(_SCENARIOS, "schema")
def scenarios_schema() -> None:
    """Print the JSON Schema of scenario files (draft 2020-12), for an editor's checks and
    completion of YAML scenarios (docs/scenario-schema.md#editors)."""
    from airtcp.scenario.json_schema import schema_text

    sys.stdout.write(schema_text())


@_command(_ROOT, "plot", Argument("DIRECTORY", "A directory written by `airtcp run`."))
def plot(directory: Path) -> None:
    """Draw every recorded time series of a run over time: goodput per flow (goodput.png), and
    with metrics.trace_cwnd / trace_rtt / trace_queues cwnd.png, rtt.png and queues.png."""
    from airtcp.experiments.plot import plot_run

    try:
        written = plot_run(directory)
    except ScenarioError as error:
        _bad_input(error)
    for target in written:
        print(f"wrote {target}")


@_command(
    _ROOT,
    "draw",
    _FILE,
    Option(
        ("-o", "--out"),
        "out",
        "Output file stem: writes STEM.png and STEM.svg (default: SCENARIO-topology next to the "
        "scenario file, or in the working directory for a bundled scenario).",
        metavar="STEM",
        convert=Path,
    ),
    Option(
        ("--run",),
        "run_dir",
        "A directory written by `airtcp run` of this scenario: draw how much each link was used.",
        metavar="PATH",
        convert=Path,
    ),
    _SEED,
    _SET,
)
def draw(file: Path, out: Path | None, run_dir: Path | None, seed: int | None, overrides: list[str]) -> None:
    """Draw a scenario's topology: positions, radio ranges, links, each flow's route (or link usage)."""
    from airtcp.experiments.draw import draw_scenario, load_layout, refused_flows

    try:
        scenario = _load(file, seed, overrides)
        # Beside a scenario file; a bundled scenario's drawing goes to the working directory.
        default = file.with_name(f"{file.stem}-topology") if file.exists() else Path(f"{file.name}-topology")
        layout = load_layout(scenario)
        paths = draw_scenario(scenario, out if out is not None else default, run_dir=run_dir, layout=layout)
    except ScenarioError as error:
        _bad_input(error)
    for path in paths:
        print(f"wrote {path}")
    # Drawn so that the reason can be seen, but `airtcp run` would stop here: say so.
    for reason in refused_flows(layout):
        print(f"warning: a run refuses {reason}", file=sys.stderr)


@_command(
    _ROOT,
    "sweep",
    Argument("SPEC", "Sweep spec (YAML)."),
    Option(
        ("-o", "--out"),
        "out",
        "Experiment directory (created, or resumed).",
        metavar="PATH",
        convert=Path,
        required=True,
    ),
    _WORKERS,
    _CLUSTER,
    _NO_PROGRESS,
)
def sweep(spec: Path, out: Path, workers: int | None, cluster: str | None, quiet: bool) -> None:
    """Run a parameter sweep into --out; run it again to finish or retry what is missing.

    Exit code 0 when every run succeeded, 1 when some failed (each is recorded with its error),
    2 for a bad spec or --out (nothing written)."""
    from airtcp.experiments.sweep import run_sweep

    try:
        outcome = run_sweep(spec, out, workers=workers, cluster=cluster, quiet=quiet)
    except ScenarioError as error:
        _bad_input(error)
    except KeyboardInterrupt:
        _interrupted("interrupted: finished runs are kept; run the same command to continue")
    if not quiet:
        from airtcp.experiments.html_report import sweep_summary

        print(sweep_summary(out))
        print(
            f"{outcome.total} runs: {outcome.executed} executed, {outcome.skipped} already done, "
            f"{outcome.failed} failed; results in {out} (airtcp report {out} draws them)"
        )
    for key, problem in outcome.failures:
        print(f"failed: run {key}: {problem}", file=sys.stderr)
    if not outcome.ok:
        sys.exit(EXIT_FAILURE)


@_command(_ROOT, "report", Argument("DIRECTORY", "A folder written by `airtcp reproduce` or `airtcp sweep`."))
def report(directory: Path) -> None:
    """Write DIRECTORY/report.html: one self-contained page with the figures and tables."""
    from airtcp.experiments.html_report import write_report

    try:
        target = write_report(directory)
    except ScenarioError as error:
        _bad_input(error)
    print(f"wrote {target}")


@_command(
    _ROOT,
    "reproduce",
    Argument("PAPER", "A reproduction's key (see --list) or 'all'.", convert=str, required=False, default="all"),
    Option(("--quick",), "quick", "The reduced form: fewer seeds, shorter runs, the same claims."),
    _out_folder("out/reproduce, or out/reproduce-quick with --quick"),
    _WORKERS,
    _CLUSTER,
    Option(("--list",), "list_", "List the reproductions and exit."),
    Option(("-v", "--verbose"), "verbose", "Print every published-vs-airtcp row with its verdict and note."),
    _NO_PROGRESS,
)
def reproduce(
    paper: str, quick: bool, out: Path | None, workers: int | None, cluster: str | None, list_: bool,
    verbose: bool, quiet: bool,
) -> None:
    """Reproduce a paper's results (its sweeps, figures and published-vs-airtcp table) and write
    the HTML report. Running it again resumes: finished runs are not recomputed.

    Exit code 0 when everything ran (targets missed are reported, not errors), 1 when runs or the
    analysis failed, 2 for an unknown paper or an unusable --out."""
    from airtcp.papers import registry
    from airtcp.papers.reproduce import reproduce as run_reproduction

    if list_:
        for key, item in registry().items():
            print(f"{key}: {item.title}")
        return
    try:
        outcome = run_reproduction(paper, out, quick=quick, workers=workers, cluster=cluster, quiet=quiet)
    except ScenarioError as error:
        _bad_input(error)
    except KeyboardInterrupt:
        _interrupted("interrupted: finished runs are kept; run the same command to continue")
    if not quiet:
        import json

        from airtcp.papers.reproduce import format_targets, summary_lines

        if verbose:
            for key in outcome.keys:
                record = json.loads((outcome.out / key / "reproduction.json").read_text(encoding="utf-8"))
                print(f"{key}: {record['title']}")
                print(format_targets(record["targets"]))
        print("published vs airtcp (ok: within tolerance; not judged: see each row's note, --verbose or the report):")
        for line in summary_lines(outcome.out, outcome.keys):
            print(f"  {line}")
    _report_outcome(outcome)


def _scheme_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


@_command(
    _ROOT,
    "compare",
    Argument(
        "SCENARIO",
        "Scenario files or bundled scenarios' names (one or more; default: the set of "
        "scenarios/compare/).",
        convert=str,
        required=False,
        default=None,
        many=True,
    ),
    Option(("--schemes",), "schemes", "Comma-separated scheme keys (default: every scheme; see --list).",
            metavar="KEYS", convert=_scheme_list),
    Option(("--seeds",), "seeds", "Seeds 1..N, the same for every scheme (default 3).", metavar="INTEGER",
            convert=lambda text: _whole_number(text, 1, 10_000)),
    Option(("--quick",), "quick", "A third of each scenario's duration (at least 20 s)."),
    _out_folder("out/compare, or out/compare-quick with --quick"),
    _WORKERS,
    _CLUSTER,
    Option(("--list",), "list_", "List the schemes with what each needs, and exit."),
    _NO_PROGRESS,
)
def compare(
    scenario: list[str] | None, schemes: list[str] | None, seeds: int | None, quick: bool, out: Path | None,
    workers: int | None, cluster: str | None, list_: bool, quiet: bool,
) -> None:
    """Run every scheme that applies to each scenario (paired seeds), beside the optimum where a
    model exists, and write the comparison's table and HTML report. Running it again resumes.

    Exit code 0 when every run succeeded, 1 when runs or the analysis failed, 2 for bad input
    (nothing written)."""
    from airtcp.comparison import DEFAULT_SCENARIOS, SCHEMES
    from airtcp.comparison import compare as run_comparison

    if list_:
        for item in SCHEMES:
            needs = ", ".join(need.value for need in item.needs)
            print(f"{item.key}: {item.label} (paper {item.paper}); needs {needs}")
        return
    try:
        outcome = run_comparison(scenario or list(DEFAULT_SCENARIOS), schemes=schemes, seeds=seeds or 3, quick=quick,
                                 out=out, workers=workers, cluster=cluster, quiet=quiet)
    except ScenarioError as error:
        _bad_input(error)
    except KeyboardInterrupt:
        _interrupted("interrupted: finished runs are kept; run the same command to continue")
    if not quiet:
        _print_comparison(outcome.out)
    _report_outcome(outcome)


def _print_comparison(folder: Path) -> None:
    import json

    path = folder / "compare.json"
    if not path.is_file():
        return
    for table in json.loads(path.read_text(encoding="utf-8"))["scenarios"]:
        print(f"{table['slug']} ({table['kind']}):")
        for row in table["rows"]:
            if row["status"] == "not applicable":
                continue
            if row["status"] == "failed":
                print(f"  {row['scheme']}: failed: {row.get('reason', '')}")
                continue
            fraction = row.get("total_fraction")
            share = f", {100 * fraction['mean']:.0f} % of the optimum total" if fraction else ""
            print(f"  {row['scheme']}: {row['total_mbps']['mean']:.3g} Mbit/s, Jain {row['jain']['mean']:.2f}{share}")


@_command(_ROOT, "bench", passthrough=True)
def bench(args: list[str]) -> int:
    """Run the benchmarks (arguments are passed on; see `airtcp bench --help`)."""
    import importlib

    try:
        module = importlib.import_module("airtcp.bench.wired")
    except ModuleNotFoundError as error:
        if error.name != "airtcp.bench.wired":
            raise
        _failure("bench: the benchmark module airtcp.bench.wired is not installed")
    code = module.main(args)
    return code if isinstance(code, int) else 0


# Listed after the commands, as in `airtcp --help`.
_ROOT.commands["scenarios"] = _SCENARIOS


# --- Reading the command line --------------------------------------------------------------------


def main(args: Sequence[str] | None = None) -> None:
    """Console-script entry point: runs the command ARGS (default: the process's arguments) and
    exits with its code. Usage errors (an unknown option, a missing argument, a value of the
    wrong type) are reported like bad input: `error: <option>: <message>`, exit code 2."""
    try:
        code = dispatch("airtcp", _ROOT, list(sys.argv[1:] if args is None else args))
    except UsageError as error:
        print(f"error: {one_line(f'{error.path}: {error.message}')}", file=sys.stderr)
        code = EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`airtcp scenarios list | head -1`): stop without a traceback, and
        # without another one when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_FAILURE
    sys.exit(code)

