"""The `airtcp` command.

Exit codes: 0 success; 2 bad input (scenario, `--set`, `--out`, command-line usage), reported as
`error: <path>: <message>` on stderr with no output directory left behind; 1 a failure of the
simulator or of airtcp itself; 130 interrupted.

Built on the standard library's argparse rather than typer and click: importing those two (and
pydantic, through which typer converts parameters) took longer than all the rest of
`airtcp --help`, and a check or a short run is mostly start-up. argparse reads the options;
choosing the command, placing the positional arguments and wording every usage error are done
here, so that errors keep the project's form (`error: --seed: not a whole number: 'abc'`) whatever
argparse's wording in a given Python version.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from airtcp import _core
from airtcp.errors import ScenarioError

if TYPE_CHECKING:
    # Imported where a command needs them: the schema and the YAML parser take about 15 ms to
    # import, which `airtcp --help` and the commands that read no scenario should not wait for.
    from airtcp.scenario.schema import Scenario

__all__ = ["main"]

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class _UsageError(Exception):
    """A command line that cannot be run: `error: PATH: MESSAGE` on stderr, exit code 2."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


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


class _Argument(NamedTuple):
    """A positional argument, NAME in the help; the command's parameter is `name.lower()`."""

    name: str
    help: str
    convert: Callable[[str], object] = Path
    required: bool = True
    default: object = None
    many: bool = False  # every remaining positional, in a list (the last argument only)

    @property
    def dest(self) -> str:
        return self.name.lower()


class _Option(NamedTuple):
    """An option, the long form last (`-o, --out`); the command's parameter is `dest`. Without a
    `metavar` it is a flag, True when given."""

    flags: tuple[str, ...]
    dest: str
    help: str
    metavar: str | None = None
    convert: Callable[[str], object] = str
    required: bool = False
    repeatable: bool = False  # every value, in a list

    @property
    def name(self) -> str:
        """What errors call it: the long form."""
        return self.flags[-1]


_Param = _Argument | _Option
_HELP = _Option(("--help",), "help", "Show this message and exit.")

_FILE = _Argument(
    "FILE",
    "Scenario file (YAML), or the name of a bundled scenario (`airtcp scenarios list`); "
    "a file of that name always wins.",
)
_SEED = _Option(("--seed",), "seed", "Master seed; replaces the file's `seed`.", metavar="INTEGER", convert=_seed)
_SET = _Option(
    ("--set",),
    "overrides",
    "Override a field before validation, e.g. --set links[0].loss.per=0.02 (repeatable).",
    metavar="PATH=VALUE",
    repeatable=True,
)
_WORKERS = _Option(
    ("-j", "--workers"), "workers", "Local worker processes (default: the cores).", metavar="INTEGER", convert=_workers
)
_CLUSTER = _Option(("--cluster",), "cluster", "Dask scheduler address, e.g. tcp://host:8786.", metavar="ADDRESS")
_NO_PROGRESS = _Option(("-q", "--quiet"), "quiet", "No progress output.")


class _Command(NamedTuple):
    """A command: `function`, whose docstring is its help, called with every parameter by name;
    a `passthrough` command gets its arguments as they are instead."""

    function: Callable[..., int | None]
    params: tuple[_Param, ...] = ()
    passthrough: bool = False


class _Group(NamedTuple):
    """Commands under one name (`airtcp`, `airtcp scenarios`), and the options before them."""

    help: str
    commands: dict[str, _Command | _Group]
    options: tuple[_Option, ...] = (_HELP,)


_VERSION = _Option(("--version",), "version", "Show the version and exit.")
_ROOT = _Group("Packet-level simulator for TCP over wireless networks.", {}, (_VERSION, _HELP))
_SCENARIOS = _Group(
    "The scenarios shipped with airtcp: list them, copy one out to edit it, print their schema.", {}
)


def _command(
    group: _Group, name: str, *params: _Param, passthrough: bool = False
) -> Callable[[Callable[..., int | None]], Callable[..., int | None]]:
    """Registers the decorated function as the command NAME of GROUP."""

    def register(function: Callable[..., int | None]) -> Callable[..., int | None]:
        group.commands[name] = _Command(function, params, passthrough)
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
    print(f"error: {message}", file=sys.stderr)
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


def _out_folder(default: str) -> _Option:
    return _Option(("-o", "--out"), "out", f"Output folder (default {default}).", metavar="PATH", convert=Path)


@_command(
    _ROOT,
    "run",
    _FILE,
    _Option(
        ("-o", "--out"),
        "out",
        "Directory to write the results to (must not exist or be empty).",
        metavar="PATH",
        convert=Path,
        required=True,
    ),
    _SEED,
    _SET,
    _Option(("--force",), "force", "Replace --out if it exists and is not empty."),
    _Option(("-q", "--quiet"), "quiet", "Print nothing on success."),
)
def run(file: Path, out: Path, seed: int | None, overrides: list[str], force: bool, quiet: bool) -> None:
    """Simulate a scenario, print per-flow results and write them to --out."""
    from airtcp.atomic_dir import OutputDirError, check_output_dir

    try:
        scenario = _load(file, seed, overrides)
        # Checked before simulating so a long run is not wasted on an unusable --out.
        check_output_dir(out, replace=force)
    except ScenarioError as error:
        _bad_input(error)
    except OutputDirError as error:
        _bad_input(ScenarioError("--out", str(error)))

    # The core writes the Parquet files, but a table it cannot write goes to pyarrow, which
    # imports NumPy, whose OpenBLAS starts a thread per core as it loads; a run does no linear
    # algebra, and on a busy machine those threads cost a fifth of its start-up. A value the
    # user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Imported here: only needed once there is something to simulate.
    from airtcp.api import simulate
    from airtcp.errors import SimulationError
    from airtcp.report import format_report
    from airtcp.run_progress import ProgressLine

    line = None if quiet else ProgressLine(scenario.duration / 1e9)
    try:
        results = simulate(scenario, progress=line)
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

    try:
        results.write(out, force=force)
    except OutputDirError as error:  # --out was filled while the simulation ran
        _bad_input(ScenarioError("--out", str(error)))
    except OSError as error:
        _failure(f"--out: cannot write {str(out)!r}: {error}")

    if not quiet:
        print(format_report(results.summary, results.timing))
        print(f"results written to {out}")
    if results.conservation_problem is not None:
        # Written anyway (marked "valid": false) so the run can be examined, but not a success.
        _failure(results.conservation_problem)


@_command(
    _ROOT,
    "validate",
    _FILE,
    _SEED,
    _SET,
    _Option(("--json",), "as_json", "Print the normalised scenario the simulator would receive."),
)
def validate(file: Path, seed: int | None, overrides: list[str], as_json: bool) -> None:
    """Check a scenario file without simulating it: every check a run makes before it starts."""
    from airtcp.api import check
    from airtcp.errors import SimulationError

    try:
        scenario = _load(file, seed, overrides)
        check(scenario)
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
    _Argument("NAME", "A bundled scenario (see `airtcp scenarios list`).", convert=str),
    _Argument("DEST", "The file to write, or an existing directory (gets NAME's file name)."),
    _Option(("--force",), "force", "Replace DEST's file if it exists."),
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


@_command(_ROOT, "plot", _Argument("DIRECTORY", "A directory written by `airtcp run`."))
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
    _Option(
        ("-o", "--out"),
        "out",
        "Output file stem: writes STEM.png and STEM.svg (default: SCENARIO-topology next to the "
        "scenario file, or in the working directory for a bundled scenario).",
        metavar="STEM",
        convert=Path,
    ),
    _Option(
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
    _Argument("SPEC", "Sweep spec (YAML)."),
    _Option(
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


@_command(_ROOT, "report", _Argument("DIRECTORY", "A folder written by `airtcp reproduce` or `airtcp sweep`."))
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
    _Argument("PAPER", "A reproduction's key (see --list) or 'all'.", convert=str, required=False, default="all"),
    _Option(("--quick",), "quick", "The reduced form: fewer seeds, shorter runs, the same claims."),
    _out_folder("out/reproduce, or out/reproduce-quick with --quick"),
    _WORKERS,
    _CLUSTER,
    _Option(("--list",), "list_", "List the reproductions and exit."),
    _Option(("-v", "--verbose"), "verbose", "Print every published-vs-airtcp row with its verdict and note."),
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
    _Argument(
        "SCENARIO",
        "Scenario files or bundled scenarios' names (one or more; default: the set of "
        "scenarios/compare/).",
        convert=str,
        required=False,
        default=None,
        many=True,
    ),
    _Option(("--schemes",), "schemes", "Comma-separated scheme keys (default: every scheme; see --list).",
            metavar="KEYS", convert=_scheme_list),
    _Option(("--seeds",), "seeds", "Seeds 1..N, the same for every scheme (default 3).", metavar="INTEGER",
            convert=lambda text: _whole_number(text, 1, 10_000)),
    _Option(("--quick",), "quick", "A third of each scenario's duration (at least 20 s)."),
    _out_folder("out/compare, or out/compare-quick with --quick"),
    _WORKERS,
    _CLUSTER,
    _Option(("--list",), "list_", "List the schemes with what each needs, and exit."),
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
    # Pydantic (the sweep spec's models, for `sweep` and `reproduce`) looks for plugins among the
    # installed packages' entry points the first time it builds a validator (importlib.metadata
    # reads every distribution's metadata: 10-20 ms). The command line uses none; a value the user
    # set is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        code = _dispatch("airtcp", _ROOT, list(sys.argv[1:] if args is None else args))
    except _UsageError as error:
        print(f"error: {error.path}: {error.message}", file=sys.stderr)
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


def _dispatch(prog: str, group: _Group, args: list[str]) -> int:
    """Runs the command of GROUP that ARGS name: the group's own options (`--help`, `--version`)
    come first, then the command's name and its arguments."""
    if not args:  # `airtcp` alone: the help, as for a usage error
        sys.stdout.write(_group_help(prog, group))
        return EXIT_BAD_INPUT
    known = {flag for option in group.options for flag in option.flags}
    given: set[str] = set()
    index = 0
    while index < len(args) and args[index].startswith("-"):
        token = args[index]
        index += 1
        if token == "--":
            break
        name, equals, _ = token.partition("=")
        if name not in known:
            raise _UsageError(name, f"no such option{_option_guess(name, group.options)} (see '{prog} --help')")
        if equals:
            raise _UsageError(name, "does not take a value")
        given.add(name)
    if "--help" in given:
        sys.stdout.write(_group_help(prog, group))
        return 0
    if "--version" in given:
        print(f"airtcp {_core.core_version()}")
        return 0
    if index == len(args):
        raise _UsageError(prog, f"missing command (see '{prog} --help')")
    name = args[index]
    command = group.commands.get(name)
    if command is None:
        close = _close(name, group.commands)
        guess = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise _UsageError(prog, f"no such command {name!r}{guess} (see '{prog} --help')")
    if isinstance(command, _Group):
        return _dispatch(f"{prog} {name}", command, args[index + 1 :])
    if command.passthrough:
        return command.function(args[index + 1 :]) or 0
    values = _parse(f"{prog} {name}", command, args[index + 1 :])
    if values is None:  # the help was asked for
        return 0
    return command.function(**values) or 0


def _parse(prog: str, command: _Command, args: list[str]) -> dict[str, object] | None:
    """COMMAND's parameters from ARGS, checked and converted; None when ARGS ask for the help
    (which is then printed). Problems are reported in the order click reported them, as the
    command line did: what cannot be read (an unknown option, an option without its value), then
    the help, then the values given (`--seed abc`), then what is missing, then arguments left
    over."""
    options = [param for param in command.params if isinstance(param, _Option)] + [_HELP]
    parser = _parser(prog, command, options)
    try:
        namespace, rest = parser.parse_known_args(args)
    except argparse.ArgumentError as error:
        # argparse's wording varies; what went wrong does not: an option without its value, or
        # a flag given one (`--quiet=yes`).
        option = next((o for o in options if "/".join(o.flags) == error.argument_name), None)
        if option is None:
            raise _UsageError(prog, f"{error.message} (see '{prog} --help')") from None
        raise _UsageError(option.name, "requires an argument" if option.metavar else "does not take a value") from None

    # Positional arguments are placed here, not by argparse: argparse words a missing one its own
    # way, which changes between Python versions, and declared optional to avoid that, one after
    # an option is lost (`scenarios copy NAME --force DEST`). Taken from what argparse did not
    # read, they keep the rules the command line had: options and arguments in any order, `--`
    # ends the options.
    positionals = []
    options_end = False
    for token in rest:
        if token == "--" and not options_end:
            options_end = True
        elif token.startswith("-") and token != "-" and not options_end:
            name = token.partition("=")[0]
            raise _UsageError(name, f"no such option{_option_guess(name, options)} (see '{prog} --help')")
        else:
            positionals.append(token)
    if namespace.help:
        sys.stdout.write(_parser(prog, command, options, with_arguments=True).format_help())
        return None

    given: list[tuple[_Param, Any]] = []
    for param in command.params:
        if isinstance(param, _Argument) and param.many:
            given.append((param, positionals[:] or None))
            positionals.clear()
        elif isinstance(param, _Argument):
            given.append((param, positionals.pop(0) if positionals else None))
        else:
            given.append((param, getattr(namespace, param.dest)))
    values: dict[str, object] = {}
    for param, value in sorted(given, key=lambda pair: pair[1] is None):
        values[param.dest] = _value(prog, param, value)
    if positionals:
        plural = "s" if len(positionals) > 1 else ""
        raise _UsageError(
            prog, f"got unexpected extra argument{plural} ({' '.join(positionals)}) (see '{prog} --help')"
        )
    return values


def _value(prog: str, param: _Param, given: str | list[str] | None) -> object:
    """PARAM's value, converted from what was GIVEN (None: nothing)."""
    if isinstance(param, _Option) and param.metavar is None:
        return given  # a flag: True or False
    if given is None:
        if param.required:
            what = "argument" if isinstance(param, _Argument) else "option"
            raise _UsageError(param.name, f"required {what} is missing (see '{prog} --help')")
        if isinstance(param, _Argument):
            return param.default
        return [] if param.repeatable else None
    try:
        return [param.convert(text) for text in given] if isinstance(given, list) else param.convert(given)
    except ValueError as error:
        raise _UsageError(param.name, str(error)) from None


def _option_guess(name: str, options: Sequence[_Option]) -> str:
    """` (did you mean --seed or --set?)` for an unknown long option close to known ones."""
    if not name.startswith("--"):
        return ""
    close = _close(name, [flag for option in options for flag in option.flags if flag.startswith("--")])
    return f" (did you mean {' or '.join(sorted(close))}?)" if close else ""


def _close(name: str, known: Iterable[str]) -> list[str]:
    import difflib

    return difflib.get_close_matches(name, list(known))


# --- Help ----------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # Not reached with this module's parsers (every check argparse would report is made by
        # `_parse`); should a Python version call it anyway, it is still a usage error.
        raise _UsageError(self.prog, f"{message} (see '{self.prog} --help')")


class _HelpFormatter(argparse.HelpFormatter):
    """The help's layout, as the command line had it: `Usage: ...`, an option as `-o, --out PATH`,
    at most 80 columns, the docstrings' paragraphs re-wrapped one by one."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=min(_terminal_columns(), 80) - 2)

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if action.option_strings and action.nargs != 0:
            return f"{', '.join(action.option_strings)} {action.metavar}"
        return super()._format_action_invocation(action)

    # Lines are broken at spaces only: `--out` and `published-vs-airtcp` stay whole.
    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return "\n\n".join(
            textwrap.fill(paragraph, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)
            for paragraph in text.split("\n\n")
        )


def _terminal_columns() -> int:
    """COLUMNS, else the terminal's width, else 80, as `shutil.get_terminal_size` reads them:
    importing shutil (and the compression modules it loads) took 2 ms of `airtcp --help`."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _parser(
    prog: str, command: _Command, options: Sequence[_Option], *, with_arguments: bool = False
) -> argparse.ArgumentParser:
    """A parser of COMMAND's OPTIONS; its positional arguments are there only `with_arguments`,
    for the help (`_parse` places them)."""
    parser = _new_parser(prog, _usage(prog, command.params), _doc(command.function))
    arguments = parser.add_argument_group("Arguments")
    if with_arguments:
        for param in command.params:
            if isinstance(param, _Argument):
                nargs = ("+" if param.required else "*") if param.many else (None if param.required else "?")
                arguments.add_argument(param.name, nargs=nargs, help=_help_text(param.help, param.required))
    group = parser.add_argument_group("Options")
    for option in options:
        if option.metavar is None:
            group.add_argument(*option.flags, dest=option.dest, action="store_true", help=_help_text(option.help))
        else:
            action = "append" if option.repeatable else "store"
            group.add_argument(
                *option.flags,
                dest=option.dest,
                action=action,
                metavar=option.metavar,
                help=_help_text(option.help, option.required),
            )
    return parser


def _new_parser(prog: str, usage: str, description: str) -> argparse.ArgumentParser:
    # argparse's errors are raised, not printed, to be worded here. No abbreviations (`--qu` for
    # `--quiet`), as before: a new option could make one ambiguous. No -h, which it never had.
    return _Parser(
        prog=prog,
        usage=usage,
        description=description,
        add_help=False,
        allow_abbrev=False,
        exit_on_error=False,
        formatter_class=_HelpFormatter,
    )


def _group_help(prog: str, group: _Group) -> str:
    """GROUP's help: its options, then its commands, each with the first sentence of its help."""
    parser = _new_parser(prog, f"{prog} [OPTIONS] COMMAND [ARGS]...", group.help)
    options = parser.add_argument_group("Options")
    for option in group.options:
        options.add_argument(*option.flags, action="store_true", help=_help_text(option.help))
    commands = parser.add_argument_group("Commands")
    for name, command in group.commands.items():
        commands.add_argument(name, help=_help_text(_summary(command)))
    return parser.format_help()


def _usage(prog: str, params: Sequence[_Param]) -> str:
    arguments = [
        (param.name if param.required else f"[{param.name}]") + ("..." if param.many else "")
        for param in params
        if isinstance(param, _Argument)
    ]
    return " ".join([prog, "[OPTIONS]", *arguments])


def _help_text(text: str, required: bool = False) -> str:
    # argparse fills in `%(default)s` and the like, so a literal % is doubled.
    return text.replace("%", "%%") + ("  [required]" if required else "")


def _doc(function: Callable[..., object]) -> str:
    """A command's docstring, each paragraph on one line (the help re-wraps them)."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in (function.__doc__ or "").strip().split("\n\n"))


def _summary(command: _Command | _Group) -> str:
    """The first sentence of a command's help."""
    text = command.help if isinstance(command, _Group) else _doc(command.function).split("\n\n")[0]
    return text.split(". ")[0].rstrip(".") + "."
