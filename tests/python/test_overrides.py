"""`--set path=value` overrides."""

from __future__ import annotations

import pytest

from airtcp.scenario.schema import load_scenario, to_core_dict
from airtcp.errors import ScenarioError
from airtcp.scenario.overrides import apply_overrides, parse_override
from support import P2P_LOSSY, minimal_scenario


def test_parse_paths_and_yaml_values() -> None:
    override = parse_override("links[0].loss.per=0.02")
    assert override.parts == ("links", 0, "loss", "per")
    assert override.value == 0.02
    assert override.path == "links[0].loss.per"
    assert parse_override("flows[0].transport.cc=reno").value == "reno"
    assert parse_override("duration=50s").value == "50s"
    assert parse_override("seed=3").value == 3
    assert parse_override("metrics.trace_rtt=true").value is True
    assert parse_override("flows[0].stop=").value is None
    assert parse_override("links[0].loss={kind: bernoulli, per: 0.1}").value == {"kind": "bernoulli", "per": 0.1}
    assert parse_override("name=a=b").value == "a=b"  # only the first '=' separates


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("duration", "expected PATH=VALUE"),
        ("=3", "bad path ''"),
        ("links[x].rate=1Mbps", "bad path 'links[x].rate'"),
        ("links[-1].rate=1Mbps", "bad path"),
        ("links..rate=1Mbps", "bad path"),
        ("links[0]rate=1Mbps", "bad path"),
        ("seed=[1,", "bad value"),
    ],
)
def test_bad_syntax(text: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_override(text)
    assert caught.value.path == "--set"
    assert fragment in caught.value.message


def test_overrides_apply_before_validation() -> None:
    scenario = load_scenario(
        P2P_LOSSY,
        overrides=["links[0].loss.per=0.02", "flows[0].transport.cc=reno", "duration=50s", "seed=3"],
    )
    config = to_core_dict(scenario)
    assert config["links"][0]["loss"]["per"] == 0.02
    assert config["flows"][0]["transport"]["cc"] == "reno"
    assert config["duration"] == 50_000_000_000
    assert config["seed"] == 3


def test_absent_fields_and_mappings_are_created() -> None:
    scenario = load_scenario(
        P2P_LOSSY, overrides=["flows[0].stop=100s", "metrics.trace_cwnd=true", "flows[0].app.bytes=1MB"]
    )
    assert scenario.flows[0].stop == 100_000_000_000
    assert scenario.metrics.trace_cwnd is True
    assert scenario.flows[0].app.bytes == 1_000_000
    no_metrics = minimal_scenario()
    apply_overrides(no_metrics, [parse_override("metrics.bin=500ms")])
    assert no_metrics["metrics"] == {"bin": "500ms"}


def test_later_overrides_win_and_seed_argument_wins_over_all() -> None:
    scenario = load_scenario(P2P_LOSSY, seed=11, overrides=["seed=3", "duration=5s", "duration=6s"])
    assert (scenario.seed, scenario.duration) == (11, 6_000_000_000)


def test_a_whole_subtree_can_be_replaced() -> None:
    scenario = load_scenario(P2P_LOSSY, overrides=["links[0].loss={kind: segments, seqs: [3, 3]}"])
    assert scenario.links[0].loss is not None
    assert scenario.links[0].loss.kind == "segments"


def test_unsetting_an_optional_field() -> None:
    scenario = load_scenario(P2P_LOSSY, overrides=["links[0].loss="])
    assert scenario.links[0].loss is None


@pytest.mark.parametrize(
    ("override", "path", "fragment"),
    [
        ("links[1].rate=1Mbps", "links[1]", "index 1 out of range: links has 1 entry"),
        ("flows[5].stop=1s", "flows[5]", "index 5 out of range"),
        ("nodes[2]=C", "nodes[2]", "index 2 out of range: nodes has 2 entries"),
        ("duration.unit=s", "duration.unit", "cannot set a field inside the value '200s'"),
        ("links.rate=1Mbps", "links.rate", "cannot set a field inside a list"),
        ("name[0]=x", "name[0]", "cannot index the value 'p2p-lossy'"),
        ("metrics.extra[0]=1", "metrics.extra[0]", "the scenario has no metrics.extra list"),
    ],
)
def test_bad_targets_name_the_path(override: str, path: str, fragment: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(P2P_LOSSY, overrides=[override])
    assert caught.value.path == path
    assert fragment in caught.value.message
    assert override in caught.value.message


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("links[0].lossy=1", "links[0].lossy: unknown field"),
        ("links[0].rate=2 Mbs", "links[0].rate: unknown rate unit 'Mbs'"),
        ("flows[0].transport.cc=westwood", "flows[0].transport.cc: must be 'reno', 'newreno', "),
        ("flows[0].dst=R9", "flows[0].dst: no node named 'R9'"),
    ],
)
def test_overridden_values_are_validated(override: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(P2P_LOSSY, overrides=[override])
    assert str(caught.value).startswith(expected)


def test_overrides_apply_to_a_model_too() -> None:
    base = load_scenario(P2P_LOSSY)
    changed = load_scenario(base, overrides=["links[0].rate=11Mbps", "flows[0].transport.sack=false"])
    assert changed.links[0].rate == 11_000_000
    assert changed.flows[0].transport.sack is False  # type: ignore[union-attr]
    assert base.links[0].rate == 2_000_000
