"""The stored ns-3 rate-control reference (bench/wifi/rate_reference.json, made by
`python -m airtcp.bench.wifi.rate --update-reference`), the airtcp template beside it, and
airtcp's managers against the reference (ns-3 does not run here)."""

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


def _shares(attempts: dict[str, int]) -> dict[str, float]:
    total = sum(attempts.values())
    return {k: v / total for k, v in attempts.items()}


def test_airtcp_matches_the_ns3_managers_goodput_and_rate_mix() -> None:
    # Every case under ARF, AARF, Minstrel and the SNR-threshold manager (ns-3's Ideal), seeds 1-3 as
    # stored: goodput within the 15 % target and the data link's rate mix alike (total variation
    # distance between the two distributions of attempts over rates below 0.1; measured at most
    # 0.066).
    ref = rate.load_reference(REFERENCE)
    for case in rate.CASES:
        for manager in ("arf", "aarf", "ideal", "minstrel"):
            entry = rate.reference_for(case.name, manager, ref)
            ours = rate.airtcp_goodput(case, manager)
            ratio = ours["goodput_mbps"] / entry["goodput_mbps"]
            assert abs(ratio - 1) <= rate.TARGET, (case.name, manager, ratio)
            theirs = {k: v["attempt_share"] / 100 for k, v in rate.rate_mix(entry, "0->1").items()}
            mine = _shares(ours["attempts"])
            distance = 0.5 * sum(abs(mine.get(k, 0) - theirs.get(k, 0)) for k in set(mine) | set(theirs))
            assert distance < 0.1, (case.name, manager, mine, theirs)
