"""The JSON fast path of reading a scenario (`airtcp.scenario.source`): text that is a JSON object
is read by the `json` module when that gives exactly what the YAML loader gives, and by the
loader otherwise, so no value and no error message depends on which one read it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import airtcp
from airtcp.scenario import source
from airtcp.scenario.schema import load_scenario, to_core_json
from airtcp.scenario.source import MAX_NESTING, parse_yaml
from support import REPO, run_cli

TOO_DEEP = f"nested too deeply (more than {MAX_NESTING} levels)"


def by_loader(text: str) -> tuple[str, Any]:
    """What the pure-Python YAML loader alone makes of `text`: ("ok", data) or ("error", message)."""
    try:
        data = source._load_yaml(text, "x")
        source.check_nesting(data, "x")
        source.check_expanded_size(data, "x")
    except airtcp.ScenarioError as error:
        return "error", str(error)
    return "ok", data


def by_parse_yaml(text: str) -> tuple[str, Any]:
    try:
        return "ok", parse_yaml(text, "x")
    except airtcp.ScenarioError as error:
        return "error", str(error)


def identical(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (1 == 1.0 == True would hide a difference),
    NaN equal to itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(identical(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(identical, a, b))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b)) and math.copysign(1, a) == math.copysign(1, b)
    return bool(a == b)


def assert_same_as_loader(text: str) -> None:
    expected, got = by_loader(text), by_parse_yaml(text)
    assert expected[0] == got[0], (text[:200], expected, got)
    if expected[0] == "ok":
        assert identical(expected[1], got[1]), (text[:200], expected, got)
    else:
        assert expected[1] == got[1]


def took_json(text: str) -> bool:
    return source._json_as_yaml(text) is not source._NOT_JSON


# --- The choice -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "json_path"),
    [
        ('{"a": 1, "b": [1, 2.5, "x", true, null]}', True),
        ('  \n{\n  "a": {\n    "b": []\n  }\n}\n', True),  # json.dump(indent=2)
        ('{"a": 1,\r\n "b": 2}', True),
        ('{"a": 1e5, "b": 1.5e+5, "c": NaN}', True),  # YAML 1.1's reading, by the hooks
        ("a: 1\n", False),  # YAML
        ("[1, 2]", False),  # not an object: not a scenario, the loader says so
        ('{"a": 1,}', False),  # not JSON (YAML takes the trailing comma)
        ('{\n\t"a": 1\n}', False),  # a tab: YAML refuses it between tokens
        ('{"a": 1, "a": 2}', False),  # a key twice
        ('{"a": "\\ud83d\\ude00"}', False),  # an escaped surrogate pair: JSON joins, YAML does not
        ('{"a": "\x85"}', False),  # NEL: a line break to YAML, folded in a quoted string
        ('{"a": "\x7f"}', False),  # a character YAML's reader refuses
        ('{"a"\n: 1}', False),  # a key's colon on the next line
        ('{"' + "k" * 200 + '": 1}', False),  # a key near YAML's 1024-character limit
        ("\ufeff{}", False),  # a byte order mark, which YAML skips and JSON refuses
        ('{"a": ' + "[" * (MAX_NESTING - 2) + "]" * (MAX_NESTING - 2) + "}", True),
        ('{"a": ' + "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + "}", False),
        ('{"seed": 1' + "0" * 5000 + "}", False),  # more digits than Python reads
    ],
)
def test_which_reader_reads_the_text(text: str, json_path: bool) -> None:
    assert took_json(text) is json_path
    assert_same_as_loader(text)


def test_yaml_1_1_numbers_are_kept_in_json() -> None:
    # `1e5`, `1e-05` (json.dump's 0.00001) and `1.5e5` are strings to YAML 1.1: a JSON file
    # reads as it always did, whichever reader reads it.
    data = parse_yaml('{"a": 1e5, "b": 1e-05, "c": 1.5e5, "d": 1.5e+5, "e": -0.0, "f": -0, "g": Infinity}', "x")
    assert data == {"a": "1e5", "b": "1e-05", "c": "1.5e5", "d": 150000.0, "e": -0.0, "f": 0, "g": "Infinity"}
    assert math.copysign(1, data["e"]) == -1 and type(data["f"]) is int


# --- Refusals: same words, same place ---------------------------------------------------------


def test_a_duplicate_key_in_a_json_file_is_refused_with_its_position(tmp_path: Path) -> None:
    scenario = json.loads(json.dumps(yaml.safe_load((REPO / "scenarios/examples/p2p_lossy.yaml").read_text())))
    text = json.dumps(scenario, indent=2).replace('  "seed": 1,\n', '  "seed": 1,\n  "seed": 2,\n')
    assert text.count('"seed"') == 2
    path = tmp_path / "scenario.json"
    path.write_text(text, encoding="utf-8")
    line = 1 + [i for i, row in enumerate(text.splitlines()) if '"seed"' in row][1]
    result = run_cli("validate", path)
    assert result.returncode == 2
    assert result.stderr == f"error: {path}: not valid YAML at line {line}, column 3: duplicate key 'seed'\n"


@pytest.mark.parametrize("opening", ["[", '{"a": '])
@pytest.mark.parametrize("depth", [MAX_NESTING, 500, 100_000])
def test_deeply_nested_json_is_refused_with_its_position(tmp_path: Path, opening: str, depth: int) -> None:
    # 100,000 levels: beyond the C decoder's recursion limit, and beyond the C stack of a
    # recursive reader without one; the process must answer, not crash.
    closing = "]" if opening == "[" else "}"
    text = '{\n"extra": ' + opening * depth + "1" + closing * depth + "\n}\n"
    with pytest.raises(airtcp.ScenarioError) as caught:
        load_scenario(text)
    assert str(caught.value).startswith(f"<scenario>: {TOO_DEEP} at line 2, column ")
    assert_same_as_loader(text)


def test_nesting_at_the_limit_is_the_loaders_call() -> None:
    for depth in range(MAX_NESTING - 3, MAX_NESTING + 2):
        for inner in ("1", "[]", "{}"):
            assert_same_as_loader('{"a": ' + "[" * depth + inner + "]" * depth + "}")
            assert_same_as_loader('{"a": ' + '{"a": ' * depth + inner + "}" * depth + "}")


# --- Same scenario ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["p2p_lossy", "chain3", "grid_aodv", "mesh_11n", "manet_rwp"])
def test_a_json_file_reads_as_the_same_yaml(tmp_path: Path, name: str) -> None:
    yaml_path = REPO / f"scenarios/examples/{name}.yaml"
    raw = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    for indent in (None, 2):
        json_path = tmp_path / f"{name}.json"
        json_path.write_text(json.dumps(raw, indent=indent), encoding="utf-8")
        assert took_json(json_path.read_text(encoding="utf-8"))
        # Named after its file like the YAML one, and movement files relative to each's folder.
        from_yaml = load_scenario(yaml_path)
        from_json = load_scenario(json_path)
        assert to_core_json(from_json).replace(str(tmp_path), str(yaml_path.parent)) == to_core_json(from_yaml)


# --- Any JSON ----------------------------------------------------------------------------------

# Characters of every kind, with those where JSON and YAML part weighted in.
_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(["\t", "\x85", "\u2028", "\x7f", "\ufeff", "\ufffe", "#", ":", "-", " ", "'", '"', "\\"]),
    max_size=12,
)
_NUMBER = st.integers(-(10**30), 10**30) | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([1e-05, 1e22, -0.0, 5e-324])
_JSON = st.recursive(
    st.none() | st.booleans() | _NUMBER | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_TEXT, _JSON, max_size=5),
    st.sampled_from([None, 0, 1, 2]),
    st.booleans(),
    st.sampled_from([None, (",", ":"), (", ", " : ")]),
)
def test_any_json_object_reads_as_the_loader_reads_it(data: dict[str, Any], indent: int | None, ascii_only: bool, separators: Any) -> None:
    assert_same_as_loader(json.dumps(data, indent=indent, ensure_ascii=ascii_only, separators=separators))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]":,0123456789.eE+-ntrufalse \n\\u', max_size=40))
def test_any_json_like_text_reads_as_the_loader_reads_it(text: str) -> None:
    assert_same_as_loader("{" + text)
