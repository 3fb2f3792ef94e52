"""The stored ns-3 rate-control reference (bench/wifi/rate_reference.json, made by
`python -m airtcp.bench.wifi.rate --update-reference`) and the draft airtcp template beside it.
ns-3 does not run here; airtcp's adaptive kinds do not exist yet, so the template is checked with
`rate_control: constant`, the one kind that does."""

from __future__ import annotations

from pathlib import Path

from airtcp.bench.wifi import rate
from airtcp.scenario.overrides import parse_override
from airtcp.scenario.schema import load_scenario

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "bench" / "wifi" / rate.REFERENCE_NAME
TEMPLATE = REPO / "bench" / "wifi" / rate.AIRTCP_TEMPLATE


def test_the_reference_holds_every_case_and_manager_from_these_arguments() -> None:
    ref = rate.load_reference(REFERENCE)
    assert list(ref["cases"]) == [c.name for c in rate.CASES]
    for case in rate.CASES:
        stored = ref["cases"][case.name]
        # The program's arguments, manager and seed left out.
        assert stored["args"] == case.ns3_args("arf", 0)[1:-1], case.name
        assert list(stored["managers"]) == list(rate.MANAGERS), case.name
        for manager in rate.MANAGERS:
            entry = rate.reference_for(case.name, manager, ref)
            assert entry["seeds"] == [1, 2, 3]
            assert len(entry["goodput_mbps_per_seed"]) == 3
            assert entry["manager_type"].startswith("ns3::")


def test_the_counts_add_up() -> None:
    ref = rate.load_reference(REFERENCE)
    for case in rate.CASES:
        for manager in rate.MANAGERS:
            entry = rate.reference_for(case.name, manager, ref)
            for key, link in entry["links"].items():
                for rate_mbps, c in link["rates"].items():
                    seen = c["decoded"] + c["payload_errors"] + sum(c["rx_drops"].values())
                    assert seen <= c["attempts"], (case.name, manager, key, rate_mbps)
                    # At most one frame per link and seed is still in flight at the end.
                    assert c["attempts"] - 3 <= c["acked"] + c["failed"] <= c["attempts"] + 3
                # Every attempt belongs to one MPDU of the histogram.
                attempts = sum(c["attempts"] for c in link["rates"].values())
                assert sum(int(n) * k for n, k in link["attempts_per_mpdu"].items()) == attempts
            mix = rate.rate_mix(entry)
            assert abs(sum(v["attempt_share"] for v in mix.values()) - 100.0) < 1e-6


def test_the_constant_control_sends_every_data_frame_at_54_mbps() -> None:
    ref = rate.load_reference(REFERENCE)
    for case in rate.CASES:
        mix = rate.rate_mix(rate.reference_for(case.name, "constant", ref))
        assert list(mix) == ["54"], case.name


def test_the_template_describes_every_case() -> None:
    for case in rate.CASES:
        sets = [parse_override(t) for t in rate.airtcp_overrides(case, "constant")]
        data = load_scenario(TEMPLATE, overrides=sets).model_dump()
        assert data["topology"]["hops"] == case.hops
        assert data["topology"]["spacing"] == case.distance_m
        assert data["radio"]["fading"]["kind"] == "rayleigh"
    # Every ns-3 manager has its airtcp counterpart named.
    assert set(rate.AIRTCP_KIND) == set(rate.MANAGERS)
