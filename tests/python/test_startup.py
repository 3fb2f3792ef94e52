"""What starting airtcp imports: `import airtcp` and the short commands stay clear of the heavy
libraries that only plotting, reports, sweep analysis and tables as Arrow or pandas use, and of
command-line frameworks.

A run of a few milliseconds of simulation is dominated by imports (pandas alone took longer than
the rest of `airtcp run`), so this checks the modules loaded, not times: each case runs in a fresh
interpreter that lists `sys.modules` as it exits.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import P2P_LOSSY

# Never needed to import airtcp, run a scenario, check one or print help.
HEAVY = ("pandas", "matplotlib", "scipy", "dask", "distributed", "pyarrow.pandas_compat")
# Arrow and NumPy, which Arrow imports: the core writes the Parquet files of a run.
ARROW = ("pyarrow", "numpy")
# The scenario schema's models and the YAML reader.
SCHEMA = ("pydantic", "yaml", "airtcp.scenario.schema")
# The scenario check is airtcp's own (airtcp.scenario.model): pydantic and its plugin look-up took
# over half of `airtcp run` for a small scenario; the sweep spec's models are airtcp's own too, and
# pydantic is no longer a dependency.
PYDANTIC = ("pydantic", "pydantic_core", "importlib.metadata")
# The command line is built on argparse: typer and click (and pydantic, which typer converts
# parameters with) took longer to import than the rest of `airtcp --help`. Still installed as
# other packages' dependencies, so nothing should bring them back by accident.
CLI_FRAMEWORKS = ("typer", "click")

# Runs CODE, then writes the names in sys.modules to the file named by the first argument, even
# when CODE ends in sys.exit as the command line does.
PROBE = """
import atexit, json, sys
target = sys.argv.pop(1)
atexit.register(lambda: open(target, "w").write(json.dumps(sorted(sys.modules))))
"""


def loaded_modules(tmp_path: Path, code: str, *args: str) -> set[str]:
    listing = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", PROBE + code, str(listing), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(listing.read_text()))


def cli_modules(tmp_path: Path, *args: str) -> set[str]:
    """The modules `airtcp ARGS` has loaded when it exits."""
    return loaded_modules(tmp_path, "from airtcp.cli import main\nmain(sys.argv[1:])", *args)


def assert_none_of(names: tuple[str, ...], modules: set[str]) -> None:
    assert sorted(set(names) & modules) == []


def test_import_airtcp(tmp_path: Path) -> None:
    modules = loaded_modules(tmp_path, "import airtcp")
    assert_none_of(HEAVY + ARROW + SCHEMA + CLI_FRAMEWORKS, modules)


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["run", "--help"]], ids=" ".join)
def test_help_and_version(tmp_path: Path, args: list[str]) -> None:
    modules = cli_modules(tmp_path, *args)
    assert_none_of(HEAVY + ARROW + SCHEMA + CLI_FRAMEWORKS, modules)


def test_scenarios_list(tmp_path: Path) -> None:
    # Reads the bundled files' comments (with the YAML reader's module), never the schema.
    modules = cli_modules(tmp_path, "scenarios", "list")
    assert_none_of(HEAVY + ARROW + ("pydantic", "airtcp.scenario.schema") + CLI_FRAMEWORKS, modules)


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["summary", "json"])
def test_validate(tmp_path: Path, json_flag: list[str]) -> None:
    modules = cli_modules(tmp_path, "validate", str(P2P_LOSSY), *json_flag)
    assert_none_of(HEAVY + ARROW + PYDANTIC + CLI_FRAMEWORKS, modules)
    assert "airtcp.scenario.schema" in modules  # the probe saw a real validation


@pytest.mark.parametrize("quiet", [[], ["--quiet"]], ids=["report", "quiet"])
def test_run(tmp_path: Path, quiet: list[str]) -> None:
    out = tmp_path / "out"
    modules = cli_modules(tmp_path, "run", str(P2P_LOSSY), "--out", str(out), *quiet)
    assert_none_of(HEAVY + ARROW + PYDANTIC + CLI_FRAMEWORKS, modules)
    assert (out / "flows.parquet").is_file()  # ... and the run wrote its tables


def test_loading_a_scenario_imports_no_pydantic(tmp_path: Path) -> None:
    code = f"""
from airtcp.scenario.schema import load_scenario, to_core_json
to_core_json(load_scenario({str(P2P_LOSSY)!r}, overrides=["links[0].loss.per=0.02"]))
"""
    assert_none_of(HEAVY + ARROW + PYDANTIC + CLI_FRAMEWORKS, loaded_modules(tmp_path, code))


def test_the_results_api_imports_pandas_when_asked_for_a_dataframe(tmp_path: Path) -> None:
    code = f"""
import airtcp
results = airtcp.run({str(P2P_LOSSY)!r})
results.write({str(tmp_path / "out")!r})
assert "pyarrow" not in sys.modules, "imported before a table was asked for"
assert "pandas" not in sys.modules, "imported before a DataFrame was asked for"
assert results.flows.shape[0] == 1
"""
    assert "pandas" in loaded_modules(tmp_path, code)
