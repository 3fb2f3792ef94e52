"""The `airtcp` command.

Exit codes: 0 success; 2 bad input (scenario, `--set`, `--out`, command-line usage), reported as
`error: <path>: <message>` on stderr with no output directory left behind; 1 a failure of the
simulator or of airtcp itself.
"""

# No `from __future__ import annotations`: typer reads the annotations at run time.

import importlib
import json
import os
import re
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, List, NoReturn, Optional

import typer

from airtcp import _core
from airtcp.atomic_dir import OutputDirError, check_output_dir
from airtcp.errors import ScenarioError
from airtcp.scenario.units import U64_MAX, brief_repr, format_duration

if TYPE_CHECKING:
    # Imported where a command needs them: the schema's pydantic models take about 0.1 s to build,
    # which `airtcp --help` and the commands that read no scenario should not wait for.
    from airtcp.scenario.schema import Scenario

__all__ = ["app", "main"]

EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2

app = typer.Typer(
    name="airtcp",
    help="Packet-level simulator for TCP over wireless networks.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Plain help text: rich's boxes would import rich, markdown-it and pygments, which take longer
    # than all the rest of `airtcp --help`.
    rich_markup_mode=None,
)


def _whole_number(minimum: int, maximum: int) -> Callable[[str], int]:
    """Reads an integer option, with errors in the form of every other bad input
    (`error: --seed: not a whole number: 'abc'`) rather than click's."""

    def parse(text: str) -> int:
        if not re.fullmatch(r"\s*[+-]?\d{1,40}\s*", text):
            raise typer.BadParameter(f"not a whole number: {brief_repr(text)}")
        number = int(text)
        if not minimum <= number <= maximum:
            raise typer.BadParameter(f"must be between {minimum} and {maximum}, got {number}")
        return number

    return parse


# `run`, `validate` and `draw` also take a bundled scenario's name.
ScenarioFileOrName = Annotated[
    Path,
    typer.Argument(
        help="Scenario file (YAML), or the name of a bundled scenario (`airtcp scenarios list`); "
        "a file of that name always wins.",
        show_default=False,
    ),
]
SeedOption = Annotated[
    Optional[int],
    typer.Option(
        "--seed",
        help="Master seed; replaces the file's `seed`.",
        show_default=False,
        parser=_whole_number(0, U64_MAX),
        metavar="INTEGER",
    ),
]
SetOption = Annotated[
    Optional[List[str]],
    typer.Option(
        "--set",
        metavar="PATH=VALUE",
        help="Override a field before validation, e.g. --set links[0].loss.per=0.02 (repeatable).",
        show_default=False,
    ),
]

WorkersOption = Annotated[
    Optional[int],
    typer.Option(
        "--workers",
        "-j",
        help="Local worker processes (default: the cores).",
        parser=_whole_number(1, 2**16),
        metavar="INTEGER",
    ),
]
ClusterOption = Annotated[Optional[str], typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786.")]


def _bad_input(error: ScenarioError) -> NoReturn:
    for line in error.lines():
        typer.echo(f"error: {line}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def _load(
    file: Path, seed: Optional[int], overrides: Optional[List[str]], *, bundled_names: bool = False
) -> "Scenario":
    """The scenario FILE with --seed and --set applied; problems raise `ScenarioError`. With
    `bundled_names`, a FILE that does not exist may name a bundled scenario instead."""
    from airtcp.scenario import bundled
    from airtcp.scenario.overrides import parse_override
    from airtcp.scenario.schema import load_scenario

    source = bundled.file_or_bundled(file) if bundled_names else file
    return load_scenario(source, seed=seed, overrides=[parse_override(text, "--set") for text in overrides or []])


def _failure(message: str, *, with_traceback: bool = False) -> NoReturn:
    if with_traceback:
        traceback.print_exc(file=sys.stderr)
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_FAILURE)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"airtcp {_core.core_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", help="Show the version and exit.", callback=_version, is_eager=True),
    ] = False,
) -> None:
    """Packet-level simulator for TCP over wireless networks."""


@app.command()
def run(
    file: ScenarioFileOrName,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Directory to write the results to (must not exist or be empty).")
    ],
    seed: SeedOption = None,
    set_: SetOption = None,
    force: Annotated[bool, typer.Option("--force", help="Replace --out if it exists and is not empty.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
) -> None:
    """Simulate a scenario, print per-flow results and write them to --out."""
    try:
        scenario = _load(file, seed, set_, bundled_names=True)
        # Checked before simulating so a long run is not wasted on an unusable --out.
        check_output_dir(out, replace=force)
    except ScenarioError as error:
        _bad_input(error)
    except OutputDirError as error:
        _bad_input(ScenarioError("--out", str(error)))

    # Arrow imports NumPy, whose OpenBLAS starts a thread per core as it loads; a run does no
    # linear algebra, and on a busy machine those threads cost a fifth of its start-up. A value
    # the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Imported here: Arrow is only needed once there is something to simulate.
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
        typer.echo("\ninterrupted: the run was stopped and nothing was written", err=True)
        raise typer.Exit(130) from None
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
        typer.echo(format_report(results.summary, results.timing))
        typer.echo(f"results written to {out}")
    if results.conservation_problem is not None:
        # Written anyway (marked "valid": false) so the run can be examined, but not a success.
        _failure(results.conservation_problem)


@app.command()
def validate(
    file: ScenarioFileOrName,
    seed: SeedOption = None,
    set_: SetOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the normalised scenario the simulator would receive.")
    ] = False,
) -> None:
    """Check a scenario file without simulating it: every check a run makes before it starts."""
    from airtcp.api import check
    from airtcp.errors import SimulationError

    try:
        scenario = _load(file, seed, set_, bundled_names=True)
        check(scenario)
    except ScenarioError as error:
        _bad_input(error)
    except SimulationError as error:
        _failure(str(error))
    if as_json:
        from airtcp.scenario.schema import to_core_json

        typer.echo(to_core_json(scenario))
        return
    typer.echo(
        f"ok: {file}: scenario {scenario.name!r}, {scenario.node_count} nodes, "
        f"{len(scenario.links)} links, {len(scenario.flows)} flows, "
        f"{format_duration(scenario.duration)}, seed {scenario.seed}"
    )


scenarios_app = typer.Typer(
    name="scenarios",
    help="The scenarios shipped with airtcp: list them, copy one out to edit it.",
    no_args_is_help=True,
)
app.add_typer(scenarios_app)


@scenarios_app.command("list")
def scenarios_list() -> None:
    """List the bundled scenarios by name, each with its description; `airtcp run NAME` runs one."""
    from airtcp.scenario import bundled

    names = bundled.names()
    width = max(map(len, names))
    for name in names:
        typer.echo(f"{name:<{width}}  {bundled.description(name)}".rstrip())


@scenarios_app.command("copy")
def scenarios_copy(
    name: Annotated[str, typer.Argument(help="A bundled scenario (see `airtcp scenarios list`).", show_default=False)],
    dest: Annotated[
        Path, typer.Argument(help="The file to write, or an existing directory (gets NAME's file name).", show_default=False)
    ],
    force: Annotated[bool, typer.Option("--force", help="Replace DEST's file if it exists.")] = False,
) -> None:
    """Write a bundled scenario's YAML to DEST, to read or edit it."""
    from airtcp.scenario import bundled

    try:
        target = bundled.copy_to(name, dest, force=force)
    except ScenarioError as error:
        _bad_input(error)
    typer.echo(f"wrote {target}")


@app.command()
def plot(
    directory: Annotated[Path, typer.Argument(help="A directory written by `airtcp run`.", show_default=False)],
) -> None:
    """Draw goodput over time per flow into DIRECTORY/goodput.png."""
    from airtcp.experiments.plot import plot_goodput

    try:
        target = plot_goodput(directory)
    except ScenarioError as error:
        _bad_input(error)
    typer.echo(f"wrote {target}")


@app.command()
def draw(
    file: ScenarioFileOrName,
    out: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="Output file stem: writes STEM.png and STEM.svg (default: SCENARIO-topology next to the "
            "scenario file, or in the working directory for a bundled scenario).",
        ),
    ] = None,
    run_dir: Annotated[
        Optional[Path],
        typer.Option("--run", help="A directory written by `airtcp run` of this scenario: draw how much each link was used."),
    ] = None,
    seed: SeedOption = None,
    set_: SetOption = None,
) -> None:
    """Draw a scenario's topology: positions, radio ranges, links, each flow's route (or link usage)."""
    from airtcp.experiments.draw import draw_scenario

    try:
        scenario = _load(file, seed, set_, bundled_names=True)
        # Beside a scenario file; a bundled scenario's drawing goes to the working directory.
        default = file.with_name(f"{file.stem}-topology") if file.exists() else Path(f"{file.name}-topology")
        paths = draw_scenario(scenario, out if out is not None else default, run_dir=run_dir)
    except ScenarioError as error:
        _bad_input(error)
    for path in paths:
        typer.echo(f"wrote {path}")


@app.command()
def sweep(
    spec: Annotated[Path, typer.Argument(help="Sweep spec (YAML).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Experiment directory (created, or resumed).")],
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Run a parameter sweep into --out; run it again to finish or retry what is missing.

    Exit code 0 when every run succeeded, 1 when some failed (each is recorded with its error),
    2 for a bad spec or --out (nothing written)."""
    from airtcp.experiments.sweep import run_sweep

    try:
        outcome = run_sweep(spec, out, workers=workers, cluster=cluster, quiet=quiet)
    except ScenarioError as error:
        _bad_input(error)
    except KeyboardInterrupt:
        typer.echo("interrupted: finished runs are kept; run the same command to continue", err=True)
        raise typer.Exit(130) from None
    if not quiet:
        typer.echo(
            f"{outcome.total} runs: {outcome.executed} executed, {outcome.skipped} already done, "
            f"{outcome.failed} failed; results in {out}"
        )
    for key, error in outcome.failures:
        typer.echo(f"failed: run {key}: {error}", err=True)
    if not outcome.ok:
        raise typer.Exit(EXIT_FAILURE)


@app.command()
def report(
    directory: Annotated[
        Path, typer.Argument(help="A folder written by `airtcp reproduce` or `airtcp sweep`.", show_default=False)
    ],
) -> None:
    """Write DIRECTORY/report.html: one self-contained page with the figures and tables."""
    from airtcp.experiments.html_report import write_report

    try:
        target = write_report(directory)
    except ScenarioError as error:
        _bad_input(error)
    typer.echo(f"wrote {target}")


@app.command()
def reproduce(
    paper: Annotated[str, typer.Argument(help="A reproduction's key (see --list) or 'all'.", show_default=False)] = "all",
    quick: Annotated[
        bool, typer.Option("--quick", help="The reduced form: fewer seeds, shorter runs, the same claims.")
    ] = False,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", help="Output folder (default out/reproduce, or out/reproduce-quick with --quick)."),
    ] = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    list_: Annotated[bool, typer.Option("--list", help="List the reproductions and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Reproduce a paper's results (its sweeps, figures and published-vs-airtcp table) and write
    the HTML report. Running it again resumes: finished runs are not recomputed.

    Exit code 0 when everything ran (targets missed are reported, not errors), 1 when runs or the
    analysis failed, 2 for an unknown paper or an unusable --out."""
    from airtcp.papers import registry
    from airtcp.papers.reproduce import reproduce as run_reproduction

    if list_:
        for key, item in registry().items():
            typer.echo(f"{key}: {item.title}")
        return
    try:
        outcome = run_reproduction(paper, out, quick=quick, workers=workers, cluster=cluster, quiet=quiet)
    except ScenarioError as error:
        _bad_input(error)
    except KeyboardInterrupt:
        typer.echo("interrupted: finished runs are kept; run the same command to continue", err=True)
        raise typer.Exit(130) from None
    if not quiet:
        from airtcp.papers.reproduce import format_targets

        for key in outcome.keys:
            record = json.loads((outcome.out / key / "reproduction.json").read_text(encoding="utf-8"))
            typer.echo(f"{key}: {record['title']}")
            typer.echo(format_targets(record["targets"]))
    for key, error in outcome.analysis_errors:
        typer.echo(f"failed: analysis of {key}: {error}", err=True)
    if outcome.failed_runs:
        typer.echo(f"failed: {outcome.failed_runs} runs (listed in the report)", err=True)
    typer.echo(f"report: {outcome.report}")
    if not outcome.ok:
        raise typer.Exit(EXIT_FAILURE)


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def bench(ctx: typer.Context) -> None:
    """Run the benchmarks (arguments are passed on; see `airtcp bench --help`)."""
    try:
        module = importlib.import_module("airtcp.bench.wired")
    except ModuleNotFoundError as error:
        if error.name != "airtcp.bench.wired":
            raise
        _failure("bench: the benchmark module airtcp.bench.wired is not installed")
    code = module.main(list(ctx.args))
    raise typer.Exit(code if isinstance(code, int) else 0)


def main(args: Optional[List[str]] = None) -> None:
    """Console-script entry point. Usage errors (an unknown option, a missing argument, a value
    of the wrong type) are reported like bad input: `error: <option>: <message>`, exit code 2."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=args, prog_name="airtcp", standalone_mode=False)
    except _UsageError as error:
        if _is_a(error, "NoArgsIsHelpError"):
            # `airtcp` alone: the help (typer may have printed it already, leaving no message).
            if error.format_message().strip():
                typer.echo(error.format_message())
        else:
            path, message = _usage_problem(error)
            typer.echo(f"error: {path}: {message}", err=True)
        code = EXIT_BAD_INPUT
    except typer.Abort:
        code = EXIT_FAILURE
    sys.exit(code if isinstance(code, int) else 0)


# Typer raises click's exceptions (from click itself or, in newer versions, from its own copy of
# click), so they are found through the one class typer exports.
_UsageError: Any = next(cls for cls in typer.BadParameter.__mro__ if cls.__name__ == "UsageError")


def _is_a(error: BaseException, class_name: str) -> bool:
    return any(cls.__name__ == class_name for cls in type(error).__mro__)


def _usage_problem(error: Any) -> tuple[str, str]:
    """(path, message) of a usage error: the option or argument at fault, else the command."""
    context = getattr(error, "ctx", None)
    command = context.command_path if context is not None else "airtcp"
    see_help = f"(see '{command} --help')"
    param = getattr(error, "param", None)
    if param is not None:
        name = _param_name(param)
        if _is_a(error, "MissingParameter"):
            return name, f"required {param.param_type_name} is missing {see_help}"
        return name, error.message
    option = getattr(error, "option_name", None)
    if option:
        if _is_a(error, "NoSuchOption"):
            close = sorted(getattr(error, "possibilities", None) or [])
            guess = f" (did you mean {' or '.join(close)}?)" if close else ""
            return option, f"no such option{guess} {see_help}"
        # "Option '--seed' requires an argument." -> "requires an argument"
        return option, _sentence_part(error.message.replace(f"Option {option!r} ", ""))
    return command, f"{_sentence_part(error.format_message())} {see_help}"


def _param_name(param: Any) -> str:
    """The name a user knows a parameter by: an option's long name (--workers), an argument's
    name in capitals (FILE)."""
    long_names = [name for name in getattr(param, "opts", []) if name.startswith("--")]
    return long_names[0] if long_names else str(param.name).upper()


def _sentence_part(text: str) -> str:
    """Click's sentence ("No such command 'x'.") as a part of ours ("no such command 'x'")."""
    text = text.strip().rstrip(".")
    return text[:1].lower() + text[1:]
