"""Every input gets an answer: odd, huge, deep or malformed input is refused as bad input
(`error: <path>: <message>`, exit 2, nothing written; `ScenarioError` in Python), never with a
traceback, a hang or a failure of the core."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import airtcp
from airtcp import api
from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.results import Results
from airtcp.scenario.source import MAX_NESTING, MAX_SOURCE_BYTES, MAX_VALUES
from fuzzing.api_check import ApiCase, check_api
from support import P2P_LOSSY, fake_core_output, invoke_cli, minimal_scenario, run_cli

TOO_DEEP = f"nested too deeply (more than {MAX_NESTING} levels)"
DEPTH = 500  # far beyond the limit, and beyond what recursive code survives


def write(directory: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def p2p_with(extra: str) -> str:
    """The p2p_lossy example with `extra` appended (top-level YAML)."""
    return P2P_LOSSY.read_text(encoding="utf-8") + extra


def assert_refused(result: subprocess.CompletedProcess[str], expected: str) -> None:
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def refused(source: Any, **kwargs: Any) -> airtcp.ScenarioError:
    """The ScenarioError `load_scenario(source, ...)` raises (and nothing else)."""
    with pytest.raises(airtcp.ScenarioError) as caught:
        load_scenario(source, **kwargs)
    return caught.value


def nested_dict(depth: int) -> dict[str, Any]:
    """{"a": {"a": ... {}}} `depth` levels deep, built without recursion."""
    top: dict[str, Any] = {}
    inner = top
    for _ in range(depth - 1):
        inner["a"] = {}
        inner = inner["a"]
    return top


# --- 1. Nesting --------------------------------------------------------------------------------


@pytest.mark.parametrize("opening", ["[", "{a: "], ids=["lists", "mappings"])
def test_deeply_nested_file_is_refused(tmp_path: Path, opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    text = p2p_with(f"extra: {opening * DEPTH}1{closing * DEPTH}\n")
    path = write(tmp_path, text)
    line = 1 + next(i for i, row in enumerate(text.splitlines()) if row.startswith("extra:"))
    assert_refused(run_cli("validate", path), f"{path}: {TOO_DEEP} at line {line}")
    out = tmp_path / "out"
    assert_refused(run_cli("run", path, "--out", out), f"{path}: {TOO_DEEP}")
    assert not out.exists()


def test_nesting_through_aliases_is_refused(tmp_path: Path) -> None:
    # Each alias nests one level without nesting the text.
    chain = "".join(f"x{i}: &a{i} [*a{i - 1}]\n" for i in range(1, DEPTH))
    path = write(tmp_path, "x0: &a0 [1]\n" + chain + P2P_LOSSY.read_text().replace("seed: 1", f"seed: *a{DEPTH - 1}"))
    assert_refused(run_cli("validate", path), f"{path}: {TOO_DEEP}")


def test_data_that_contains_itself_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, p2p_with("metrics: &m {bin: *m}\n").replace("seed: 1\n", ""))
    assert refused(path).errors == [(str(path), TOO_DEEP)]
    cyclic: dict[str, Any] = minimal_scenario()
    cyclic["metrics"] = {"bin": cyclic}
    assert refused(cyclic).errors == [("<scenario>", TOO_DEEP)]


def test_deeply_nested_set_value_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_cli("run", P2P_LOSSY, "--out", out, "--set", "duration=" + "[" * DEPTH + "]" * DEPTH)
    assert_refused(result, "--set: bad value in 'duration=[[[")
    assert TOO_DEEP in result.stderr and not out.exists()


def test_deeply_nested_python_input_is_refused() -> None:
    assert refused(minimal_scenario() | {"extra": nested_dict(DEPTH)}).errors == [("<scenario>", TOO_DEEP)]
    assert refused("extra: " + "[" * DEPTH + "]" * DEPTH).path == "<scenario>"
    error = refused(minimal_scenario(), overrides=["duration=" + "{a: " * DEPTH + "1" + "}" * DEPTH])
    assert error.path == "overrides[0]" and TOO_DEEP in error.message
    error = refused(minimal_scenario(), overrides=["a" + ".a" * DEPTH + "=1"])
    assert error.path == "overrides[0]" and TOO_DEEP in error.message
    with pytest.raises(airtcp.ScenarioError, match=re.escape(TOO_DEEP)):
        airtcp.run(minimal_scenario() | {"extra": nested_dict(DEPTH)})


def test_nesting_up_to_the_limit_is_fine() -> None:
    # Deep but legal data reaches validation, which names the unknown field.
    error = refused(minimal_scenario() | {"extra": nested_dict(MAX_NESTING - 1)})
    assert error.path == "extra" and error.message.startswith("unknown field")


# --- 2. Text that is not Unicode -----------------------------------------------------------------


RADIO = {
    "standard": "802.11b",
    "data_rate": "2Mbps",
    "basic_rate": "1Mbps",
    "propagation": {"kind": "range", "range": "250m"},
}
CHAIN = {"kind": "chain", "hops": 1, "spacing": "100m"}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"name": "\udc80"}, "name"),
        ({"nodes": ["A", "B\ud800"]}, "nodes[1]"),
        ({"flows": [{**minimal_scenario()["flows"][0], "id": "f\udc80"}]}, "flows[0].id"),
        ({"links": [{**minimal_scenario()["links"][0], "from": "\udc80"}]}, "links[0].from"),
        (
            {"topology": CHAIN, "radio": {**RADIO, "node_channels": {"\udc80": [1]}}},
            "radio.node_channels.\\udc80",
        ),
        ({"metrics": {"\udc80": 1}}, "metrics.\\udc80"),
    ],
    ids=["name", "node", "flow id", "link end", "node_channels key", "field name"],
)
def test_lone_surrogates_are_refused_with_the_field_path(change: dict[str, Any], path: str) -> None:
    # A name that is not Unicode is in the path escaped, as `str(error)` shows it.
    error = refused(minimal_scenario(**change))
    assert error.path == path
    assert str(error) == f"{error.path}: {error.message}"
    assert "must be Unicode text" in error.message and "is a lone surrogate" in error.message


def test_a_blank_field_name_is_quoted_in_the_path() -> None:
    # Found by the fuzzer: a field named " " gave the path " ", a blank `error:  : ...` line.
    error = refused(minimal_scenario(**{" ": 1}))
    assert (error.path, str(error).split(":")[0]) == ("' '", "' '")
    assert error.message.startswith("unknown field")


def test_lone_surrogate_from_a_yaml_escape_never_reaches_the_core(tmp_path: Path) -> None:
    path = write(tmp_path, P2P_LOSSY.read_text().replace("name: p2p-lossy", 'name: "\\udc80"'))
    assert_refused(run_cli("validate", path), "name: must be Unicode text, got '\\udc80'")
    with pytest.raises(airtcp.ScenarioError, match="^name: must be Unicode text"):
        airtcp.run(minimal_scenario(name="\udc80", duration="1s"))


def test_a_file_name_that_is_not_utf8_still_names_the_scenario(tmp_path: Path) -> None:
    text = P2P_LOSSY.read_text().replace("name: p2p-lossy\n", "")
    raw_name = os.fsencode(tmp_path) + b"/x\xff.yaml"
    with open(raw_name, "w", encoding="utf-8") as file:
        file.write(text)
    assert load_scenario(Path(os.fsdecode(raw_name))).name == "x\ufffd"


# --- 3. Files that are not scenario files --------------------------------------------------------


def run_cli_quickly(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    """`python -m airtcp ARGS`, failing the test instead of waiting when it hangs."""
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def test_a_device_is_not_read(tmp_path: Path) -> None:
    assert_refused(run_cli_quickly("validate", "/dev/zero"), "/dev/zero: is not a regular file")
    out = tmp_path / "out"
    assert_refused(run_cli_quickly("run", "/dev/zero", "--out", out), "/dev/zero: is not a regular file")
    assert not out.exists()
    assert refused("/dev/zero").errors == [
        ("/dev/zero", "is not a regular file (a device, pipe or socket); give a scenario file")
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "scenario.yaml"
    os.mkfifo(fifo)
    assert_refused(run_cli_quickly("validate", fifo), f"{fifo}: is not a regular file")


def test_a_directory_is_not_a_scenario(tmp_path: Path) -> None:
    assert_refused(run_cli_quickly("validate", tmp_path), f"{tmp_path}: is a directory")
    assert refused(str(tmp_path)).errors == [(str(tmp_path), "is a directory, not a scenario file")]


def test_scenario_size_is_limited(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as file:
        file.truncate(MAX_SOURCE_BYTES + 1)  # sparse: no time or disk spent
    assert_refused(run_cli_quickly("validate", big), f"{big}: is larger than 16 MiB")
    assert refused("#" * (MAX_SOURCE_BYTES + 1)).path == "<scenario>"


def test_odd_single_line_strings_are_yaml_text_not_crashes() -> None:
    # Too long for a file name: read as YAML text (a string, not a mapping).
    assert "expected a mapping" in refused("a" * 5000).message
    assert refused("a\0.yaml").path == "a\0.yaml"


# --- 4. Arguments of airtcp.run / load_scenario ---------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "path", "words"),
    [
        ("duration=5s", "overrides", "expected a list of PATH=VALUE strings, got 'duration=5s' (str)"),
        (b"duration=5s", "overrides", "expected a list of PATH=VALUE strings"),
        (3, "overrides", "expected a list of PATH=VALUE strings, got 3 (int)"),
        ({"duration": "5s"}, "overrides", "expected a list of PATH=VALUE strings"),
        ([3], "overrides[0]", "expected a PATH=VALUE string, got 3 (int)"),
        (["duration=5s", None], "overrides[1]", "expected a PATH=VALUE string, got None"),
        ([b"duration=5s"], "overrides[0]", "expected a PATH=VALUE string, got b'duration=5s' (bytes)"),
        (["duration"], "overrides[0]", "expected PATH=VALUE"),
        (
            ["links[9].rate=1Mbps"],
            "links[9]",
            "index 9 out of range: links has 1 entry (from overrides[0] 'links[9].rate=1Mbps')",
        ),
    ],
)
def test_bad_overrides_argument(overrides: Any, path: str, words: str) -> None:
    with pytest.raises(airtcp.ScenarioError) as caught:
        airtcp.run(minimal_scenario(), overrides=overrides)
    assert caught.value.path == path and words in caught.value.message


@pytest.mark.parametrize("seed", ["3", 3.0, True, -1, 2**64, object()])
def test_bad_seed_argument(seed: Any) -> None:
    with pytest.raises(airtcp.ScenarioError) as caught:
        airtcp.run(minimal_scenario(), seed=seed)
    assert caught.value.path == "seed" and "must be a whole number between 0 and 2^64-1" in caught.value.message


def test_numpy_integers_are_seeds() -> None:
    numpy = pytest.importorskip("numpy")
    assert load_scenario(minimal_scenario(), seed=numpy.uint64(2**64 - 1)).seed == 2**64 - 1


@pytest.mark.parametrize("scenario", [3, None, b"name: x", ["a"]])
def test_bad_scenario_argument(scenario: Any) -> None:
    with pytest.raises(airtcp.ScenarioError) as caught:
        airtcp.run(scenario)
    assert caught.value.path == "scenario" and "expected a file name, YAML text or a mapping" in caught.value.message
    with pytest.raises(airtcp.ScenarioError) as caught:
        airtcp.simulate(scenario)
    assert caught.value.path == "scenario" and "expected a Scenario" in caught.value.message


# --- 5. Command-line usage ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", P2P_LOSSY, "--out", "x", "--seed", "abc"], "--seed: not a whole number: 'abc'"),
        (["validate", P2P_LOSSY, "--seed", "1e3"], "--seed: not a whole number: '1e3'"),
        (["validate", P2P_LOSSY, "--seed", "-1"], "--seed: must be between 0 and 18446744073709551615, got -1"),
        (["validate", P2P_LOSSY, "--seed"], "--seed: requires an argument"),
        (["run", P2P_LOSSY, "--out", "x", "--bogus"], "--bogus: no such option"),
        (["run", P2P_LOSSY, "--out", "x", "--sed", "3"], "--sed: no such option (did you mean --seed or --set?)"),
        (["run", P2P_LOSSY], "--out: required option is missing (see 'airtcp run --help')"),
        (["run", "--out", "x"], "FILE: required argument is missing"),
        (["validate", P2P_LOSSY, "extra"], "airtcp validate: got unexpected extra argument"),
        (["sweep", "spec.yaml", "--out", "x", "-j", "many"], "--workers: not a whole number: 'many'"),
        (["sweep", "spec.yaml", "--out", "x", "--workers", "0"], "--workers: must be between 1 and"),
        (["run", P2P_LOSSY, "--out", "x", "--quiet=yes"], "--quiet: does not take a value"),
        (["frobnicate"], "airtcp: no such command 'frobnicate'"),
    ],
    ids=lambda value: " ".join(map(str, value)) if isinstance(value, list) else None,
)
def test_usage_errors_use_the_error_form(tmp_path: Path, args: list[Any], expected: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "airtcp", *map(str, args)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert_refused(result, expected)
    assert result.stderr.count("\n") == 1 and "Usage" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_help_still_works() -> None:
    result = run_cli("run", "--help")
    assert result.returncode == 0 and "--seed" in result.stdout and "--out" in result.stdout
    result = run_cli()
    assert "Usage" in result.stdout + result.stderr and "Traceback" not in result.stderr


# --- 6. Runs whose packets do not add up ----------------------------------------------------------


def broken_conservation_results() -> Results:
    raw = fake_core_output()
    raw["conservation"] = {"created": 3150, "delivered": 3000, "dropped": 12, "in_flight": 8, "ok": False}
    return Results(raw, scenario=to_core_dict(load_scenario(minimal_scenario())))


def test_results_say_whether_they_are_valid() -> None:
    results = broken_conservation_results()
    assert results.valid is False and results.summary["valid"] is False
    assert json.loads(results.summary_json())["valid"] is False
    good = Results(fake_core_output())
    assert good.valid is True and good.summary["valid"] is True


def test_run_with_broken_conservation_writes_results_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api, "simulate", lambda scenario, progress=None, trace_dir=None: broken_conservation_results())
    out = tmp_path / "out"
    result = invoke_cli("run", P2P_LOSSY, "--out", out)
    assert result.exit_code == 1
    error = "error: packet conservation violated: created 3150 = delivered 3000 + dropped 12 + in flight 8"
    assert error in result.output
    assert result.output.index("results written to") < result.output.index(error)
    assert json.loads((out / "summary.json").read_text())["valid"] is False


# --- 7. validate asks the core ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "overrides", "expected"),
    [
        (P2P_LOSSY, ["routing.kind=aodv"], "routing.kind: aodv routes over radios only"),
        (P2P_LOSSY, ["routing.kind=backpressure"], "routing.kind: backpressure forwards over radios only"),
    ],
    ids=["aodv without radios", "backpressure without radios"],
)
def test_validate_makes_the_checks_of_a_run(scenario: Path, overrides: list[str], expected: str) -> None:
    sets = [item for override in overrides for item in ("--set", override)]
    assert_refused(run_cli("validate", scenario, *sets), expected)
    with pytest.raises(airtcp.ScenarioError, match=f"^{re.escape(expected)}"):
        api.check(load_scenario(scenario, overrides=overrides))


# --- 8. Other odd input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42\n", "expected a mapping of scenario fields at the top level, got an int"),
        ("name: a\x01b\n", "not valid YAML at line 1, column 8: character U+0001 is not allowed"),
        ("!!python/object:os.system {}\n", "not valid YAML at line 1, column 1: could not determine a constructor"),
        ("name: x\nname: y\n", "not valid YAML at line 2, column 1: duplicate key 'name'"),
    ],
    ids=["scalar", "control character", "python tag", "duplicate key"],
)
def test_odd_files_are_refused_in_one_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    result = run_cli("validate", path)
    assert_refused(result, f"{path}: {expected}")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        ({"links": [{**minimal_scenario()["links"][0], "loss": {"kind": "bernoulli", "per": 10**400}}]},
         "links[0].loss.per", "must be between 0 and 1"),
        ({"seed": 10**5000}, "seed", "is too large (at most 18446744073709551615), got a whole number of 5001 digits"),
        ({"seed": "1" * 5000}, "seed", "is out of range"),
        ({"duration": 10**5000}, "duration", "is out of range"),
        ({"duration": float("nan")}, "duration", "is not a finite number"),
        ({"duration": "1e400s"}, "duration", "is out of range"),
        ({"metrics": {1: 2}}, "metrics", "field names must be strings, got 1"),
    ],
    ids=["huge probability", "huge seed", "huge seed text", "huge duration", "nan duration", "1e400s", "int key"],
)
def test_odd_values_are_refused_in_words(change: dict[str, Any], path: str, words: str) -> None:
    error = refused(minimal_scenario(**change))
    assert error.path == path and words in error.message
    assert len(error.message) < 300 and "set_int_max_str_digits" not in error.message


def alias_levels(levels: int, leaf: str = "lol") -> list[str]:
    """YAML lines x0 .. x{levels-1}; x{i} (anchor a{i}) expands to 10^(i+1) copies of `leaf`."""
    lines = [f"x0: &a0 [{', '.join([leaf] * 10)}]"]
    lines += [f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return lines


@pytest.mark.parametrize("field", ["seed", "nodes", "flows[0].transport.kind"])
def test_aliases_that_expand_exponentially_are_refused_at_once(tmp_path: Path, field: str) -> None:
    # Nine levels of ten aliases each: 10^9 strings if written out. Validating them one by one
    # (nodes) or describing them (a variant's kind) took hours and all memory.
    text = P2P_LOSSY.read_text()
    if field == "seed":
        text = text.replace("seed: 1", "seed: *a8")
    elif field == "nodes":
        text = text.replace("nodes: [A, B]", "nodes: *a8")
    else:
        text = text.replace("transport: {kind: tcp,", "transport: {kind: *a8,")
    assert "*a8" in text
    path = write(tmp_path, "\n".join(alias_levels(9)) + "\n" + text)
    started = time.monotonic()
    result = run_cli("validate", path)
    assert time.monotonic() - started < 20
    assert_refused(result, f"{path}: holds more than {MAX_VALUES:,} values once its YAML aliases are expanded")
    assert result.stderr.count("\n") == 1


def test_an_aliased_kind_is_described_briefly() -> None:
    # 10^6 values, within the limit: a kind that is no text is shown in part.
    text = "\n".join(alias_levels(6)) + "\n" + P2P_LOSSY.read_text().replace("transport: {kind: tcp,", "transport: {kind: *a5,")
    error = refused(text)
    kind = [(p, m) for p, m in error.errors if p == "flows[0].transport.kind"]
    assert kind and kind[0][1].startswith("unknown kind ") and len(kind[0][1]) < 300, error.errors


def test_integers_too_long_for_python_are_refused_with_their_place(tmp_path: Path) -> None:
    digits = "1" + "0" * 5000  # Python reads at most 4300 digits as an integer
    text = P2P_LOSSY.read_text().replace("seed: 1", f"seed: {digits}")
    path = write(tmp_path, text)
    line = 1 + next(i for i, row in enumerate(text.splitlines()) if row.startswith("seed:"))
    assert_refused(run_cli("validate", path),
                   f"{path}: a whole number of 5001 digits at line {line}, column 7, beyond the range of any field")
    error = refused(P2P_LOSSY, overrides=[f"links[0].loss.per={digits}"])
    assert error.path == "overrides[0]" and "a whole number of 5001 digits" in error.message


def test_negative_zero_is_zero() -> None:
    scenario = load_scenario(minimal_scenario(flows=[{**minimal_scenario()["flows"][0], "start": "-0s"}]))
    assert scenario.flows[0].start == 0
    assert refused(minimal_scenario(duration="-0s")).message.startswith("must be greater than 0")


# --- 9. Found by the fuzzer in the core (tests/python/test_fuzz.py) ------------------------------


def test_a_poisson_source_faster_than_the_clock_does_not_stop_time() -> None:
    # Gaps far below 1 ns were each rounded to 0 ns, so simulated time stood still while packets
    # were created and dropped forever; the fractions now add up.
    flow = {**minimal_scenario()["flows"][0], "app": {"kind": "poisson", "rate": "1000Gbps", "packet_size": 1},
            "transport": {"kind": "udp"}}
    outcome = check_api(ApiCase(minimal_scenario(duration="1s", flows=[flow])), 3.0)
    assert outcome.kind in ("ok", "slow", "refused"), outcome

