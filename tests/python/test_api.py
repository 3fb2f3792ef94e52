"""The Python API surface and the `bench` command's hand-over (no engine needed)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

import airtcp
from airtcp import api
from support import P2P_LOSSY, invoke_cli, minimal_scenario


def test_public_names() -> None:
    assert isinstance(airtcp.__version__, str) and airtcp.__version__
    for name in airtcp.__all__:
        assert getattr(airtcp, name) is not None
    with pytest.raises(AttributeError):
        airtcp.no_such_thing  # noqa: B018


def test_core_errors_are_classified(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(message: str):  # type: ignore[no-untyped-def]
        def simulate_json(_: str) -> str:
            raise ValueError(message)

        return simulate_json

    monkeypatch.setattr(api._core, "simulate_json", fail("links[0].rate: must be greater than zero"))
    with pytest.raises(airtcp.ScenarioError) as caught:
        airtcp.run(minimal_scenario())
    assert caught.value.path == "links[0].rate"

    monkeypatch.setattr(api._core, "simulate_json", fail("<scenario>: unknown field `x`"))
    with pytest.raises(airtcp.SimulationError, match="unknown field"):
        airtcp.run(minimal_scenario())


def test_bad_input_reaches_the_caller_as_scenario_error() -> None:
    with pytest.raises(airtcp.ScenarioError, match=r"^flows\[0\]\.dst: no node named 'R9'"):
        airtcp.run(minimal_scenario(), overrides=["flows[0].dst=R9"])


def test_bench_hands_its_arguments_over(monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[list[str]] = []
    fake = types.ModuleType("airtcp.bench.wired")
    fake.main = lambda argv: received.append(argv) or 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "airtcp.bench.wired", fake)
    result = invoke_cli("bench", "--quick", "--out", "x", "--help")
    assert received == [["--quick", "--out", "x", "--help"]]
    assert result.exit_code == 3


def test_bench_without_its_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "airtcp.bench.wired", None)  # makes the import fail
    result = invoke_cli("bench")
    assert result.exit_code == 1
    assert "airtcp.bench.wired is not installed" in result.output


class _Panic(BaseException):
    """Stands in for the core's PanicException, which is not an Exception subclass."""


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (airtcp.SimulationError("the simulator core failed: boom"), "error: the simulator core failed: boom"),
        (_Panic("index out of bounds"), "error: the simulation failed"),
    ],
)
def test_internal_failures_exit_1_without_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException, expected: str
) -> None:
    def broken(_: object, progress: object = None, trace_dir: object = None) -> None:
        raise failure

    monkeypatch.setattr(api, "simulate", broken)
    out = tmp_path / "out"
    result = invoke_cli("run", P2P_LOSSY, "--out", out)
    assert result.exit_code == 1
    assert expected in result.output
    assert list(tmp_path.iterdir()) == []


def test_run_and_load_scenario_take_bundled_names_as_the_command_line_does(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no checkout in reach: names must come from the package
    assert airtcp.load_scenario("examples/p2p_lossy").name == "p2p-lossy"
    assert airtcp.load_scenario(Path("examples/p2p_lossy"), seed=4).seed == 4
    res = airtcp.run("examples/p2p_lossy", overrides=["duration=5s"])
    assert list(res.flows["id"]) == ["f1"]
    # A file of that name wins over the bundled scenario.
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "p2p_lossy").write_text(P2P_LOSSY.read_text(encoding="utf-8").replace(
        "name: p2p-lossy", "name: mine"), encoding="utf-8")
    assert airtcp.load_scenario("examples/p2p_lossy").name == "mine"


def test_a_checkout_path_outside_a_checkout_points_at_the_bundled_name(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(airtcp.ScenarioError) as error:
        airtcp.run("scenarios/examples/p2p_lossy.yaml")
    assert str(error.value) == ("scenarios/examples/p2p_lossy.yaml: no such file; the bundled scenario "
                                "examples/p2p_lossy has this name: give examples/p2p_lossy instead of the path")
    with pytest.raises(airtcp.ScenarioError, match=r"^examples/p2p_lossyy: no such file or bundled scenario "
                       r"\(did you mean examples/p2p_lossy\?\)"):
        airtcp.load_scenario("examples/p2p_lossyy")


def test_bench_outside_a_checkout_is_a_usage_error(tmp_path: Path) -> None:
    from support import run_cli

    result = run_cli("bench", "--quick", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().endswith("the benchmarks run from the root of an airtcp source checkout")
    assert not (tmp_path / "bench").exists()
