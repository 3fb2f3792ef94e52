"""The command line, run in a subprocess: bad input exits 2 and leaves no output behind. Its
parsing and help, run in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.results import Results
from support import P2P_LOSSY, fake_core_output, invoke_cli, minimal_scenario, run_cli


def write_scenario(directory: Path, scenario: dict[str, Any], name: str = "scenario.yaml") -> Path:
    path = directory / name
    path.write_text(yaml.safe_dump(scenario, sort_keys=False), encoding="utf-8")
    return path


def assert_bad_input(result: Any, out: Path, expected: str) -> None:
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()
    assert not any(p.name.startswith(f".{out.name}.") for p in out.parent.iterdir())


LINK = {"from": "A", "to": "B", "rate": "2Mbps", "delay": "20ms"}
FLOW = {"id": "f1", "src": "A", "dst": "B", "app": {"kind": "bulk"}, "transport": {"kind": "tcp"}}

BAD_FILES: list[tuple[str, dict[str, Any], str]] = [
    ("unknown top-level key", {"lossy": 0.1}, "lossy: unknown field"),
    ("unknown nested key", {"links": [{**LINK, "lossy": 0.1}]}, "links[0].lossy: unknown field"),
    ("malformed rate", {"links": [{**LINK, "rate": "2 Mbs"}]}, "links[0].rate: unknown rate unit 'Mbs'"),
    ("zero rate", {"links": [{**LINK, "rate": "0bps"}]}, "links[0].rate: must be greater than 0"),
    ("negative rate", {"links": [{**LINK, "rate": "-2Mbps"}]}, "links[0].rate: must be greater than 0"),
    ("zero duration", {"duration": "0s"}, "duration: must be greater than 0"),
    ("negative duration", {"duration": "-10s"}, "duration: must be greater than 0"),
    ("negative delay", {"links": [{**LINK, "delay": "-1ms"}]}, "links[0].delay: must not be negative"),
    ("unknown node", {"flows": [{**FLOW, "dst": "R9"}]}, "flows[0].dst: no node named 'R9'"),
    ("bad cc", {"flows": [{**FLOW, "transport": {"kind": "tcp", "cc": "westwood"}}]}, "flows[0].transport.cc: must be"),
    ("per out of range", {"links": [{**LINK, "loss": {"kind": "bernoulli", "per": 2}}]}, "links[0].loss.per: must be between 0 and 1"),
    ("cbr over tcp", {"flows": [{**FLOW, "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": 500}}]},
     "flows[0].transport.kind: a cbr application needs a udp transport"),
    ("start after end", {"flows": [{**FLOW, "start": "20s"}]}, "flows[0].start: must be before the end of the run"),
]


@pytest.mark.parametrize(("change", "expected"), [case[1:] for case in BAD_FILES], ids=[case[0] for case in BAD_FILES])
def test_bad_scenarios_exit_2(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    path = write_scenario(tmp_path, minimal_scenario(**change))
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", path, "--out", out), out, expected)
    result = run_cli("validate", path)
    assert result.returncode == 2 and f"error: {expected}" in result.stderr


def test_a_field_name_with_a_newline_is_one_error_line(tmp_path: Path) -> None:
    # Found by the long fuzz run: the name was printed raw, splitting `error: <path>: <message>`
    # over two lines. Unprintable characters are escaped.
    path = tmp_path / "key.yaml"
    path.write_text('name: x\nduration: 1s\n"l\\ninks\\e": []\n', encoding="utf-8")
    result = run_cli("validate", path)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: l\\ninks\\x1b: unknown field (did you mean 'links'?); allowed fields: name, duration, seed, "
        "nodes, topology, radio, mobility, link_errors, routing, coding, failures, links, downlink, routers, flows, "
        "metrics, trace, limits"
    ]


def test_not_yaml(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nnodes: [A, B\nflows: {\n", encoding="utf-8")
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", path, "--out", out), out, f"{path}: not valid YAML at line")


def test_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", path, "--out", out), out, f"{path}: expected a mapping")


def test_missing_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", tmp_path / "nope.yaml", "--out", out), out, f"{tmp_path / 'nope.yaml'}: no such file")


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("links[3].rate=1Mbps", "links[3]: index 3 out of range"),
        ("links[x].rate=1Mbps", "--set: bad path 'links[x].rate'"),
        ("links[0].rate", "--set: expected PATH=VALUE"),
        ("links[0].rate=2 Mbs", "links[0].rate: unknown rate unit 'Mbs'"),
        ("links[0].lossy=0.1", "links[0].lossy: unknown field"),
        ("flows[0].dst=R9", "flows[0].dst: no node named 'R9'"),
    ],
)
def test_bad_overrides_exit_2(tmp_path: Path, override: str, expected: str) -> None:
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", P2P_LOSSY, "--out", out, "--set", override), out, expected)


def test_non_empty_out_is_refused_and_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run_cli("run", P2P_LOSSY, "--out", out)
    assert result.returncode == 2
    assert "error: --out: " in result.stderr and "not empty" in result.stderr and "--force" in result.stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("x")
    result = run_cli("run", P2P_LOSSY, "--out", out, "--force")
    assert result.returncode == 2 and "error: --out: " in result.stderr


def test_bad_input_with_force_keeps_the_old_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = run_cli("run", P2P_LOSSY, "--out", out, "--force", "--set", "duration=0s")
    assert result.returncode == 2 and "error: duration: " in result.stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


@pytest.mark.parametrize(
    "args",
    [
        ["run", str(P2P_LOSSY)],  # --out missing
        ["run", "--out", "x"],  # FILE missing
        ["run", str(P2P_LOSSY), "--out", "x", "--seed", "abc"],
        ["run", str(P2P_LOSSY), "--out", "x", "--bogus"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert not (tmp_path / "x").exists()


def test_negative_seed_is_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert_bad_input(run_cli("run", P2P_LOSSY, "--out", out, "--seed", "-1"), out, "--seed: must be between 0 and")


def test_validate_ok() -> None:
    result = run_cli("validate", P2P_LOSSY)
    assert result.returncode == 0, result.stderr
    assert "ok: " in result.stdout and "'p2p-lossy'" in result.stdout and "200s" in result.stdout


def test_validate_json_prints_the_normalised_scenario() -> None:
    result = run_cli("validate", P2P_LOSSY, "--json", "--seed", "5", "--set", "duration=1s")
    assert result.returncode == 0, result.stderr
    import json

    config = json.loads(result.stdout)
    assert config["seed"] == 5 and config["duration"] == 1_000_000_000


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.startswith("airtcp ")


def fake_results_dir(tmp_path: Path) -> Path:
    raw = fake_core_output()
    raw["timeseries"]["goodput"] = {
        "flow": ["f1", "f1", "f2", "f2"],
        "t_s": [0.0, 1.0, 0.0, 1.0],
        "goodput_bps": [1e6, 1.2e6, 5e5, 6e5],
    }
    results = Results(raw, scenario=to_core_dict(load_scenario(minimal_scenario())))
    return results.write(tmp_path / "results")


def test_plot_writes_a_png(tmp_path: Path) -> None:
    directory = fake_results_dir(tmp_path)
    result = run_cli("plot", directory)
    assert result.returncode == 0, result.stderr
    image = directory / "goodput.png"
    assert image.read_bytes().startswith(b"\x89PNG")
    assert not (directory / ".goodput.png.partial").exists()


def test_plot_draws_every_recorded_trace(tmp_path: Path) -> None:
    out = tmp_path / "traced"
    ran = run_cli("run", "examples/dumbbell", "--out", out, "-q", "--set", "duration=10s",
                  "--set", "metrics.trace_cwnd=true", "--set", "metrics.trace_rtt=true",
                  "--set", "metrics.trace_queues=true")
    assert ran.returncode == 0, ran.stderr
    result = run_cli("plot", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"wrote {out / stem}.png" for stem in ("goodput", "cwnd", "rtt", "queues")]
    for stem in ("goodput", "cwnd", "rtt", "queues"):
        assert (out / f"{stem}.png").read_bytes().startswith(b"\x89PNG")
    # Without the traces, goodput alone (their tables were empty, so not written).
    plain = tmp_path / "plain"
    assert run_cli("run", "examples/dumbbell", "--out", plain, "-q", "--set", "duration=5s").returncode == 0
    assert run_cli("plot", plain).stdout.splitlines() == [f"wrote {plain / 'goodput.png'}"]


def test_plot_needs_a_results_directory(tmp_path: Path) -> None:
    result = run_cli("plot", tmp_path / "absent")
    assert result.returncode == 2 and f"error: {tmp_path / 'absent'}: no such directory" in result.stderr
    result = run_cli("plot", tmp_path)
    assert result.returncode == 2 and "goodput.parquet: missing" in result.stderr


# --- Parsing and help --------------------------------------------------------------------------

HELP = {
    "run": [
        "Usage: airtcp run [OPTIONS] FILE",
        "FILE Scenario file (YAML)",
        "-o, --out PATH Directory to write",
        "--seed INTEGER Master seed",
        "--set PATH=VALUE Override a field",
        "--force Replace --out",
        "-q, --quiet Print nothing",
        "--help Show this message",
    ],
    "sweep": [
        "Usage: airtcp sweep [OPTIONS] SPEC",
        "Exit code 0 when every run succeeded",
        "-j, --workers INTEGER Local worker",
        "--cluster ADDRESS Dask scheduler",
    ],
    "reproduce": ["Usage: airtcp reproduce [OPTIONS] [PAPER]", "--quick The reduced form", "--list List the"],
    "scenarios copy": ["Usage: airtcp scenarios copy [OPTIONS] NAME DEST", "DEST The file to write", "--force"],
}


@pytest.mark.parametrize(("command", "expected"), HELP.items(), ids=list(HELP))
def test_help_lists_arguments_and_options(command: str, expected: list[str]) -> None:
    result = invoke_cli(*command.split(), "--help")
    assert result.exit_code == 0 and result.stderr == ""
    text = " ".join(result.stdout.split())  # as if unwrapped
    for words in expected:
        assert words in text


def test_no_command_prints_the_help_as_a_usage_error() -> None:
    result = invoke_cli()
    assert result.exit_code == 2
    assert result.stdout.startswith("Usage: airtcp [OPTIONS] COMMAND")
    for name in ["run", "validate", "plot", "draw", "sweep", "report", "reproduce", "bench", "scenarios"]:
        assert f"\n  {name} " in result.stdout
    assert invoke_cli("--help").exit_code == 0


def test_options_and_arguments_in_any_order(tmp_path: Path) -> None:
    result = invoke_cli("scenarios", "copy", "examples/p2p_lossy", "--force", tmp_path / "copy.yaml")
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "copy.yaml").is_file()
    result = invoke_cli("validate", "--seed", "4", "--", P2P_LOSSY)
    assert result.exit_code == 0 and result.stdout.endswith("seed 4\n")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["validate", "--seed", "x"], "--seed: not a whole number: 'x'"),  # before FILE is missing
        (["validate", P2P_LOSSY, "--", "--json"], "airtcp validate: got unexpected extra argument (--json)"),
        (["scenarios"], None),  # the group's help
        (["scenarios", "lst"], "airtcp scenarios: no such command 'lst' (did you mean list?)"),
        (["--version=1"], "--version: does not take a value"),
    ],
)
def test_usage_error_details(args: list[Any], expected: str | None) -> None:
    result = invoke_cli(*args)
    assert result.exit_code == 2
    if expected is None:
        assert result.stdout.startswith("Usage: airtcp scenarios [OPTIONS] COMMAND") and result.stderr == ""
    else:
        assert result.stderr.startswith(f"error: {expected}")


def test_interrupted_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    from airtcp.scenario import bundled

    def interrupted() -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(bundled, "names", interrupted)
    result = invoke_cli("scenarios", "list")
    assert result.exit_code == 130 and "interrupted" in result.stderr
