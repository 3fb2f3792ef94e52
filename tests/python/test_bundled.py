"""The scenarios shipped inside the package (`airtcp.scenario.bundled`) and the commands that use
them: `airtcp scenarios list|copy`, and `airtcp run|validate NAME`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from airtcp.errors import ScenarioError
from airtcp.scenario import bundled
from airtcp.scenario.schema import load_scenario
from support import REPO, minimal_scenario, run_cli

UNKNOWN = "examples/p2p"


def test_names_are_the_files_of_the_repository_scenarios_folder() -> None:
    # `scenarios/` at the root links to the package's copy, so the two cannot drift apart.
    assert (REPO / "scenarios").is_symlink()
    assert (REPO / "scenarios").resolve() == REPO / "python" / "airtcp" / "data" / "scenarios"
    on_disk = sorted(f"{path.parent.name}/{path.stem}" for path in (REPO / "scenarios").glob("*/*.yaml"))
    assert bundled.names() == on_disk
    assert {"examples/p2p_lossy", "topologies/diamond", "000_tcp_aware_bp/grid", "validation/p2p_bench"} <= set(on_disk)


def test_the_benchmark_scenario_is_the_bundled_one() -> None:
    link = REPO / "bench" / "p2p_bench.yaml"
    assert link.is_symlink()
    assert link.read_text(encoding="utf-8") == bundled.read_text("validation/p2p_bench")


@pytest.mark.parametrize("name", bundled.names())
def test_every_bundled_scenario_reads_as_its_file(name: str) -> None:
    path = REPO / "scenarios" / f"{name}.yaml"
    assert bundled.read_text(name) == path.read_text(encoding="utf-8")
    assert load_scenario(bundled.read_data(name)) == load_scenario(path)
    described = bundled.description(name)
    assert "\n" not in described and len(described) <= 100


def test_read_data_is_a_fresh_copy() -> None:
    first = bundled.read_data("examples/p2p_lossy")
    first["duration"] = "1s"
    assert bundled.read_data("examples/p2p_lossy")["duration"] == "200s"


def test_descriptions_are_the_first_sentence_of_the_header_comment() -> None:
    assert bundled.description("examples/dumbbell") == (
        "Two TCP flows and a constant-rate UDP flow sharing a 1 Mbps bottleneck"
    )
    # "Fig. 8 (two-hop coding, BFLY): S1 = A1 sends ...": not cut at "Fig." nor inside brackets.
    assert bundled.description("topologies/butterfly").endswith("topology of Fig. 8 (two-hop coding, BFLY)")
    # A one-line title paragraph stands whole, colon and all.
    assert bundled.description("001_ncaqm/x_nonc") == "Paper 001's X (Fig. 1): two crossing flows with overhearing, no coding"
    long = bundled.description("examples/grid_aodv")
    assert long.endswith("...") and len(long) <= 100


def test_every_bundled_scenario_has_a_description_of_its_own() -> None:
    described = {name: bundled.description(name) for name in bundled.names()}
    assert not [name for name, text in described.items() if not text]
    shared = {text for text in described.values() if list(described.values()).count(text) > 1}
    assert not shared, shared


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (UNKNOWN, "unknown bundled scenario (did you mean examples/p2p_lossy?); see airtcp scenarios list"),
        ("tree", "unknown bundled scenario (did you mean 000_tcp_aware_bp/tree or topologies/tree?); see airtcp scenarios list"),
        ("no/such/thing", "unknown bundled scenario; see airtcp scenarios list"),
        ("../examples/p2p_lossy", "unknown bundled scenario (did you mean examples/p2p_lossy?); see airtcp scenarios list"),
    ],
)
def test_an_unknown_name_is_refused_with_the_closest_names(name: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        bundled.read_text(name)
    assert (caught.value.path, caught.value.message) == (name, expected)


def test_copy_to_a_file_or_into_a_directory(tmp_path: Path) -> None:
    text = bundled.read_text("examples/dumbbell")
    assert bundled.copy_to("examples/dumbbell", tmp_path / "mine.yaml") == tmp_path / "mine.yaml"
    assert bundled.copy_to("examples/dumbbell", tmp_path) == tmp_path / "dumbbell.yaml"
    assert (tmp_path / "mine.yaml").read_text(encoding="utf-8") == text
    assert (tmp_path / "dumbbell.yaml").read_text(encoding="utf-8") == text


def test_copy_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    target = tmp_path / "dumbbell.yaml"
    target.write_text("mine", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"dumbbell.yaml' exists \(--force replaces it\)"):
        bundled.copy_to("examples/dumbbell", tmp_path)
    assert target.read_text(encoding="utf-8") == "mine"
    bundled.copy_to("examples/dumbbell", tmp_path, force=True)
    assert target.read_text(encoding="utf-8") == bundled.read_text("examples/dumbbell")


def test_copy_into_a_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such directory"):
        bundled.copy_to("examples/dumbbell", tmp_path / "nowhere" / "x.yaml")
    assert list(tmp_path.iterdir()) == []


# The command line, from an empty working directory (nothing of the checkout in reach by a
# relative path).


def test_cli_lists_names_with_descriptions(tmp_path: Path) -> None:
    result = run_cli("scenarios", "list", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == bundled.names()
    assert any(line.startswith("examples/dumbbell ") and line.endswith("sharing a 1 Mbps bottleneck") for line in lines)
    assert not [line for line in lines if line != line.rstrip()]  # no trailing blanks


def test_cli_copies_then_runs_the_copy(tmp_path: Path) -> None:
    copied = run_cli("scenarios", "copy", "examples/p2p_lossy", ".", cwd=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.strip() == "wrote p2p_lossy.yaml"
    ran = run_cli("run", "p2p_lossy.yaml", "--out", "out", "--set", "duration=2s", "-q", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))["name"] == "p2p-lossy"


def test_cli_copy_of_an_unknown_name_writes_nothing(tmp_path: Path) -> None:
    result = run_cli("scenarios", "copy", UNKNOWN, "x.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {UNKNOWN}: unknown bundled scenario (did you mean examples/p2p_lossy?); see airtcp scenarios list\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_cli_copy_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    (tmp_path / "p2p_lossy.yaml").write_text("mine", encoding="utf-8")
    refused = run_cli("scenarios", "copy", "examples/p2p_lossy", ".", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == "error: .: 'p2p_lossy.yaml' exists (--force replaces it)\n"
    assert (tmp_path / "p2p_lossy.yaml").read_text(encoding="utf-8") == "mine"
    forced = run_cli("scenarios", "copy", "examples/p2p_lossy", "p2p_lossy.yaml", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "p2p_lossy.yaml").read_text(encoding="utf-8") == bundled.read_text("examples/p2p_lossy")


def test_cli_runs_a_bundled_scenario_by_name(tmp_path: Path) -> None:
    result = run_cli("run", "examples/p2p_lossy", "--out", "out", "--set", "duration=2s", "--seed", "3", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert (summary["name"], summary["seed"]) == ("p2p-lossy", 3)


def test_cli_validates_a_bundled_scenario_by_name(tmp_path: Path) -> None:
    result = run_cli("validate", "examples/dumbbell", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: examples/dumbbell: scenario 'dumbbell', 6 nodes")


def test_cli_a_file_of_the_same_name_wins(tmp_path: Path) -> None:
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "dumbbell").write_text(yaml.safe_dump(minimal_scenario()), encoding="utf-8")
    result = run_cli("validate", "examples/dumbbell", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok: examples/dumbbell: scenario 'small', 2 nodes")


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("examples/dumbell", "examples/dumbell: no such file or bundled scenario (did you mean examples/dumbbell?); see airtcp scenarios list"),
        # Spelt as a file: reported as a missing file, as before bundled scenarios existed.
        ("examples/dumbell.yaml", "examples/dumbell.yaml: no such file"),
        # The README's path of a checkout, run where there is none: the bundled name to use.
        (
            "scenarios/examples/p2p_lossy.yaml",
            "scenarios/examples/p2p_lossy.yaml: no such file; the bundled scenario examples/p2p_lossy "
            "has this name: give examples/p2p_lossy instead of the path",
        ),
    ],
)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_cli_unknown_name_or_missing_file(tmp_path: Path, command: str, argument: str, expected: str) -> None:
    extra = ["--out", "out"] if command == "run" else []
    result = run_cli(command, argument, *extra, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == f"error: {expected}\n"
    assert list(tmp_path.iterdir()) == []


def test_a_sweep_base_may_name_a_bundled_scenario(tmp_path: Path) -> None:
    spec = {"name": "bundled-base", "base": "examples/p2p_lossy", "grid": {"duration": ["1s", "2s"]}, "seeds": 1}
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    result = run_cli("sweep", "sweep.yaml", "--out", "exp", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(path.read_text(encoding="utf-8")) for path in (tmp_path / "exp" / "runs").glob("*.json")]
    ran = sorted((r["status"], r["results"]["name"], r["results"]["duration_s"]) for r in records)
    assert ran == [("done", "p2p-lossy", 1.0), ("done", "p2p-lossy", 2.0)]


def test_a_sweep_base_naming_neither_a_file_nor_a_bundled_scenario_is_refused(tmp_path: Path) -> None:
    spec = {"name": "bad-base", "base": "examples/p2p", "grid": {"duration": ["1s"]}, "seeds": 1}
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    result = run_cli("sweep", "sweep.yaml", "--out", "exp", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "error: sweep.base: no such scenario file 'examples/p2p' (nor a bundled scenario: see airtcp scenarios list)\n"
    )
    assert not (tmp_path / "exp").exists()


def test_cli_draws_a_bundled_scenario_into_the_working_directory(tmp_path: Path) -> None:
    result = run_cli("draw", "topologies/diamond", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["diamond-topology.png", "diamond-topology.svg"]
