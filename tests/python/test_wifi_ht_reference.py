"""The stored ns-3 802.11n reference (bench/wifi/ht_reference.json, made by
`python -m airtcp.bench.wifi.ht --update-reference`) and its traces: every case is there, from
the arguments the module gives, and its figures are sane (ns-3 does not run here)."""

from __future__ import annotations

import gzip
from pathlib import Path

from airtcp.bench.wifi import ht

REPO = Path(__file__).resolve().parents[2]
WIFI = REPO / "bench" / "wifi"
REFERENCE = WIFI / ht.REFERENCE_NAME


def test_the_reference_holds_every_case_from_these_arguments() -> None:
    ref = ht.load_reference(REFERENCE)
    assert list(ref["cases"]) == [c.name for c in ht.CASES]
    for case in ht.CASES:
        entry = ht.reference_for(case.name, ref)
        assert entry["args"] == case.ns3_args(0)[:-1], case.name
        assert entry.get("amsdu", 0) == case.amsdu, case.name
        assert entry["seeds"] == [1, 2, 3], case.name
        assert len(entry["throughput_mbps_per_seed"]) == 3
        assert len(entry["cmd_wall_s_per_seed"]) == 3


def test_throughput_stays_below_the_phy_rate_and_aggregation_helps() -> None:
    ref = ht.load_reference(REFERENCE)
    per_mcs = ref["params"]["ht"]["per_mcs"]
    for case in ht.CASES:
        entry = ht.reference_for(case.name, ref)
        rate = per_mcs[f"HtMcs{case.mcs}{'_sgi' if case.sgi else ''}"]["data_rate_mbps"]
        assert 0 < entry["throughput_mbps"] < rate, case.name
    for mcs in range(8):
        no = ht.reference_for(f"sat-mcs{mcs}-noagg", ref)["throughput_mbps"]
        agg = ht.reference_for(f"sat-mcs{mcs}-agg", ref)["throughput_mbps"]
        assert agg > no, mcs
    assert ht.reference_for("tcp-hop1-mcs7-agg", ref)["throughput_mbps"] > ht.reference_for(
        "tcp-hop1-mcs7-noagg", ref
    )["throughput_mbps"]
    # A-MSDUs save a little (headers, delimiters, padding), more with larger ones.
    for mcs in (3, 7):
        agg = ht.reference_for(f"sat-mcs{mcs}-agg", ref)["throughput_mbps"]
        small = ht.reference_for(f"sat-mcs{mcs}-agg-amsdu3839", ref)["throughput_mbps"]
        large = ht.reference_for(f"sat-mcs{mcs}-agg-amsdu7935", ref)["throughput_mbps"]
        assert agg < small < large < 1.01 * agg, mcs


def test_aggregates_respect_the_limits_and_the_counts_add_up() -> None:
    ref = ht.load_reference(REFERENCE)
    params = ref["params"]["ht"]
    assert params["ba_buffer_size"] == 64
    assert params["ppdu_max_time_us"] == 5484
    for case in ht.CASES:
        entry = ht.reference_for(case.name, ref)
        for key, link in entry["links"].items():
            hist = {int(n): c for n, c in link["mpdus_per_ppdu"].items()}
            assert sum(hist.values()) == link["ppdus"], (case.name, key)
            assert sum(n * c for n, c in hist.items()) == link["mpdus"], (case.name, key)
            assert 0 <= link["mpdus_retry"] <= link["mpdus"]
            if not case.agg:
                assert set(hist) == {1}, (case.name, key)
                assert link["ampdus"] == 0
            else:
                assert max(hist) <= 64, (case.name, key)
        for key, link in entry["links"].items():
            # Only the A-MSDU cases count A-MSDUs; every MPDU of the saturated ones holds 1-5
            # packets.
            assert ("amsdus" in link) == bool(case.amsdu), (case.name, key)
            if case.amsdu and case.traffic == "udp":
                assert link["amsdus"] <= link["mpdus"]
                assert 2 <= link["mean_msdus_per_amsdu"] <= 5, case.name
        if case.traffic == "udp" and case.agg and not case.amsdu:
            # The saturated hop always fills the 5.484 ms PPDU: the most MPDUs the time allows.
            limit = params["per_mcs"][f"HtMcs{case.mcs}{'_sgi' if case.sgi else ''}"]
            link = entry["links"]["0->1"]
            assert max(int(n) for n in link["mpdus_per_ppdu"]) == limit["max_mpdus_per_ampdu"]
            assert link["mean_mpdus_per_ampdu"] > 0.9 * limit["max_mpdus_per_ampdu"], case.name
        if case.traffic == "udp" and case.amsdu:
            # With A-MSDUs the time limit still binds on the packets: an A-MPDU of A-MSDUs holds
            # as many as an A-MPDU of single packets (28 at MCS 7, 11 at MCS 3), in fewer bytes.
            limit = params["per_mcs"][f"HtMcs{case.mcs}"]
            link = entry["links"]["0->1"]
            packets = link["amsdu_msdus"] + link["mpdus"] - link["amsdus"]
            assert packets == limit["max_mpdus_per_ampdu"] * link["ppdus"], case.name
        if case.agg:
            assert any(k.startswith("BA ") for k in entry["control_frames"]), case.name
            assert len(entry["ba_agreements_seed1"]) == 2 * case.hops if case.traffic == "tcp" else 1
        else:
            assert not any(k.startswith(("BA ", "BAR ", "ADDBA")) for k in entry["control_frames"])
            assert entry["ba_agreements_seed1"] == []


def test_control_responses_go_at_the_basic_rate_below_the_data_rate() -> None:
    ref = ht.load_reference(REFERENCE)
    per_mcs = ref["params"]["ht"]["per_mcs"]
    expected = {0: 6, 1: 12, 2: 12, 3: 24, 4: 24, 5: 24, 6: 24, 7: 24}
    for mcs, mbps in expected.items():
        for gi in ("", "_sgi"):
            assert per_mcs[f"HtMcs{mcs}{gi}"]["ack_mode"] == f"OfdmRate{mbps}Mbps"
            assert per_mcs[f"HtMcs{mcs}{gi}"]["block_ack_mode"] == f"OfdmRate{mbps}Mbps"
        entry = ht.reference_for(f"sat-mcs{mcs}-agg", ref)
        assert f"BA 32 OfdmRate{mbps}Mbps" in entry["control_frames"]


def test_the_traces_are_small_and_show_a_retransmission() -> None:
    for name in ht.TRACES:
        path = WIFI / ht.TRACE_DIR / f"{name}.txt.gz"
        assert path.stat().st_size < 100_000
        text = gzip.decompress(path.read_bytes()).decode()
        assert text.startswith("# ns-3.44 wifi_ht")
        assert " tx BA " in text and " tx AMPDU " in text
        # A retransmitted MPDU (Retry bit) leads an A-MPDU of new ones.
        assert any("seq=" in line and "R," in line for line in text.splitlines())


def test_minstrel_ht_cases_count_every_mpdu_at_some_ht_rate() -> None:
    ref = ht.load_reference(REFERENCE)
    rates = {f"{r:g}" for r in (6.5, 13, 19.5, 26, 39, 52, 58.5, 65)}
    minstrel = [c for c in ht.CASES if c.manager == "minstrelht"]
    assert minstrel
    for case in ht.CASES:
        entry = ht.reference_for(case.name, ref)
        assert entry.get("manager", "constant") == case.manager, case.name
        for key, link in entry["links"].items():
            mix = link.get("mpdus_by_rate_mbps")
            if case.manager == "constant":
                assert mix is None, (case.name, key)
                continue
            assert set(mix) <= rates, (case.name, key)
            assert sum(mix.values()) == link["mpdus"], (case.name, key)
    # Farther apart, the data direction's most used rate does not rise.
    top = []
    for d in ht.MINSTREL_HT_DISTANCES_M:
        mix = ht.reference_for(f"tcp-hop1-minstrelht-{d:g}m", ref)["links"]["0->1"]
        top.append(max(mix["mpdus_by_rate_mbps"].items(), key=lambda kv: kv[1])[0])
    assert [float(r) for r in top] == sorted((float(r) for r in top), reverse=True)
