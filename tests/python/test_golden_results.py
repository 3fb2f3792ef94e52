"""Every bundled scenario's `summary.json`, byte for byte, against its golden digest
(`golden_digests.py`): results are a function of the scenario and the seed, and a change that
is meant to keep behaviour must keep every byte."""

from __future__ import annotations

from pathlib import Path

import pytest

import airtcp
import golden_digests
from airtcp.scenario import bundled


@pytest.mark.parametrize("name", bundled.names())
def test_summary_of_every_bundled_scenario_is_golden(name: str, tmp_path: Path) -> None:
    results = airtcp.run(bundled.read_data(name))
    out = results.write(tmp_path / "run")
    golden_digests.check(f"summary/{name}", (out / "summary.json").read_bytes())


def test_the_check_records_then_holds_then_fails_on_other_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(golden_digests, "DIGESTS", tmp_path / "digests.json")
    monkeypatch.setenv(golden_digests.BLESS_VARIABLE, "1")
    golden_digests.check("k", b"one")
    monkeypatch.delenv(golden_digests.BLESS_VARIABLE)
    golden_digests.check("k", b"one")
    with pytest.raises(AssertionError, match="differ from the golden digest"):
        golden_digests.check("k", b"two")
    with pytest.raises(AssertionError, match="no golden digest yet"):
        golden_digests.check("other", b"one")


def test_summaries_tell_seeds_apart() -> None:
    # What the digests guard is in the summary's bytes: another seed gives other bytes.
    data = bundled.read_data("examples/p2p_lossy")
    assert airtcp.run(data, seed=1).summary_json() != airtcp.run(data, seed=2).summary_json()
