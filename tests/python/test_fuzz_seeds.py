"""The core's fuzzer (crates/airtcp/tests/integration/fuzz_core.rs) mutates the normalised form of every
shipped scenario, kept in crates/airtcp/tests/fuzz_seeds/ so that the Rust tests need no YAML
reader. They must stay what `airtcp validate --json` gives today (`make fuzz-seeds` rewrites
them)."""

from __future__ import annotations

import json
from pathlib import Path

from airtcp.scenario.schema import load_scenario, to_core_dict

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "crates" / "airtcp" / "tests" / "fuzz_seeds"


def seed_name(scenario: Path) -> str:
    """scenarios/examples/p2p_lossy.yaml -> examples__p2p_lossy."""
    return f"{scenario.parent.name}__{scenario.stem}"


def test_every_shipped_scenario_is_a_seed_and_up_to_date() -> None:
    scenarios = sorted((ROOT / "scenarios").glob("*/*.yaml"))
    assert scenarios
    expected = {seed_name(s): to_core_dict(load_scenario(s)) for s in scenarios}
    present = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in SEEDS.glob("*.json")}
    assert sorted(present) == sorted(expected), "run `make fuzz-seeds`"
    for name, config in expected.items():
        assert present[name] == config, f"{name} is stale: run `make fuzz-seeds`"


def write_seeds() -> None:
    """Rewrites the seeds from the shipped scenarios (`make fuzz-seeds`)."""
    for old in SEEDS.glob("*.json"):
        old.unlink()
    for scenario in sorted((ROOT / "scenarios").glob("*/*.yaml")):
        text = json.dumps(to_core_dict(load_scenario(scenario)))
        (SEEDS / f"{seed_name(scenario)}.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_seeds()
