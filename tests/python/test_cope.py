"""TCP over COPE and NCAQM end to end (docs/cope.md): the shipped paper-001 scenarios with a `coding:`
block run, conserve packets, report their coding counters per node, and write them as a table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import airtcp
from airtcp.scenario import bundled
from support import run_cli

COPE = {name: f"001_ncaqm/{name}_cope" for name in ("x", "alice_bob", "cross")}
NCAQM = {name: f"001_ncaqm/{name}_ncaqm" for name in ("x", "alice_bob", "cross")}


@pytest.mark.parametrize("name", [*COPE.values(), *NCAQM.values()])
def test_the_relay_codes_and_every_node_reports(name: str) -> None:
    results = airtcp.run(bundled.read_data(name), overrides=["duration=15s"])
    assert results.raw["conservation"]["ok"]
    coding = results.coding
    assert list(coding["node"]) == [f"n{i}" for i in range(len(coding))]
    relay = coding.iloc[0]
    # The relay sends coded frames; the end nodes only their own natives, alone.
    assert relay["natives_coded"] > 0 and relay["frames_2"] > 0
    assert (coding["natives_coded"].iloc[1:] == 0).all()
    assert (coding["header_bytes"] > 0).all()
    assert relay["frames"] == sum(relay[f"frames_{k}"] for k in range(1, 9))
    # Without coding the table is empty.
    plain = airtcp.run(bundled.read_data(name.rsplit("_", 1)[0] + "_nonc"), overrides=["duration=5s"])
    assert plain.coding.empty


def test_the_cli_writes_the_coding_table(tmp_path: Path) -> None:
    out = tmp_path / "x"
    path = Path(__file__).parents[2] / "scenarios" / f"{COPE['x']}.yaml"
    result = run_cli("run", path, "--set", "duration=5s", "--out", out)
    assert result.returncode == 0, result.stderr
    assert (out / "coding.parquet").stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["coding"][0]["node"] == "n0"
    assert summary["conservation"]["ok"] is True
