"""802.11n against ns-3 3.44 (bench/wifi/ht_reference.json) and the closed form: airtcp's side of
every case of `airtcp.bench.wifi.ht` (saturated UDP per HT MCS with and without A-MPDU
aggregation, bulk TCP over one hop and chains of 2-4 hops, bulk TCP under Minstrel-HT, A-MPDUs of
A-MSDUs),
seeds 1-3."""

from __future__ import annotations

from typing import Any

import pytest

from airtcp.bench.wifi import ht, ht_compare


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    return {r["case"]: r for r in ht_compare.compare(ht.CASES, ht.DEFAULT_SEEDS)}


@pytest.mark.parametrize("case", [c.name for c in ht.CASES])
def test_goodput_is_within_ten_percent_of_ns3(rows: dict[str, dict[str, Any]], case: str) -> None:
    row = rows[case]
    assert abs(row["ratio"] - 1) <= ht_compare.TARGET, row


@pytest.mark.parametrize("case", [c.name for c in ht.CASES if c.traffic == "udp" and not c.sgi])
def test_a_lone_saturated_station_meets_the_closed_form(rows: dict[str, dict[str, Any]], case: str) -> None:
    row = rows[case]
    # MCS 0 loses MPDUs to the 500-ms lifetime at the head of a full queue, as ns-3 does.
    tolerance = 0.02 if case.startswith("sat-mcs0") else 0.002
    assert row["airtcp_mbps"] == pytest.approx(row["closed_form_mbps"], rel=tolerance)


@pytest.mark.parametrize("case", [c.name for c in ht.CASES if c.traffic == "udp" and c.agg])
def test_a_saturated_a_mpdu_holds_what_ns3_s_holds(rows: dict[str, dict[str, Any]], case: str) -> None:
    # The 5.484-ms PPDU limit binds at every MCS with 1538-byte MPDUs.
    row = rows[case]
    assert row["airtcp_mpdus_per_ampdu"] == pytest.approx(row["ns3_mpdus_per_ampdu"], abs=0.05)


def test_the_closed_form_is_ns3_s_for_a_lone_station() -> None:
    ref = ht.load_reference()["cases"]
    for mcs in range(8):
        for agg in (False, True):
            name = f"sat-mcs{mcs}-{'agg' if agg else 'noagg'}"
            if mcs == 0:
                continue
            assert ht_compare.closed_form_mbps(mcs, agg) == pytest.approx(ref[name]["throughput_mbps"], rel=0.002)
    for case in ht.CASES:
        if case.amsdu and case.traffic == "udp":
            closed = ht_compare.closed_form_mbps(case.mcs, case.agg, case.amsdu)
            assert closed == pytest.approx(ref[case.name]["throughput_mbps"], rel=0.002), case.name


def test_the_closed_form_builds_ns3_s_a_msdus() -> None:
    # ns-3's sizes (`--params=1`: MsduAggregator::GetSizeIfAggregated for 1508-byte MSDUs, the
    # 1500-byte IP packet and LLC/SNAP), and per saturated A-MSDU case the A-MPDU ns-3 sent every
    # time: its MPDUs, the packets in each, their bytes and the PPDU's airtime (MCS 7, 7935: five
    # A-MSDUs of five packets and one of three, 28 packets in 42864 bytes, 5312 us).
    assert [ht_compare.amsdu_bytes(k, 1508) for k in range(1, 7)] == [1522, 3046, 4570, 6094, 7618, 9142]
    assert ht_compare.aggregate(7, True, 7935) == [5, 5, 5, 5, 5, 3]
    assert ht_compare.aggregate(7, True, 3839) == [2] * 14
    assert ht_compare.aggregate(3, True, 7935) == [5, 5, 1]
    assert ht_compare.aggregate(7, True) == [1] * 28
    ref = ht.load_reference()["cases"]
    for case in ht.CASES:
        if not (case.amsdu and case.traffic == "udp"):
            continue
        mpdus = ht_compare.aggregate(case.mcs, case.agg, case.amsdu)
        link = ref[case.name]["links"]["0->1"]
        assert link["mpdus_per_ppdu"] == {str(len(mpdus)): link["ppdus"]}, case.name
        amsdus = [k for k in mpdus if k > 1]
        assert link["amsdus"] == len(amsdus) * link["ppdus"], case.name
        assert link["amsdu_msdus"] == sum(amsdus) * link["ppdus"], case.name
        sizes = [30 + (ht_compare.amsdu_bytes(k, 1508) if k > 1 else 1508) for k in mpdus]
        assert link["mpdu_bytes"] == sum(sizes) * link["ppdus"], case.name
        airtime_us = ht_compare._ht_us(ht_compare.psdu_bytes(mpdus), case.mcs)
        assert link["airtime_s"] == pytest.approx(airtime_us * 1e-6 * link["ppdus"], rel=1e-6)


AMSDU_CASES = [c.name for c in ht.CASES if c.amsdu]


@pytest.mark.parametrize("case", AMSDU_CASES)
def test_an_a_msdu_holds_what_ns3_s_holds(rows: dict[str, dict[str, Any]], case: str) -> None:
    # Saturated: the same A-MSDUs exactly (4.67 packets each at MCS 7 with 7935 bytes); the TCP
    # hop's segments: 6.66 against 6.67.
    row = rows[case]
    assert row["airtcp_msdus_per_amsdu"] == pytest.approx(row["ns3_msdus_per_amsdu"], abs=0.05)


def test_retransmissions_on_the_four_hop_chain_follow_ns3(rows: dict[str, dict[str, Any]]) -> None:
    # Node 4's A-MPDUs, below node 0's detection threshold, overlap node 0's at node 1: only the
    # MPDUs they overlap are lost (each MPDU judged over its own stretch of the PPDU).
    row = rows["tcp-chain4-mcs7-agg"]
    assert row["airtcp_retry_share"] == pytest.approx(row["ns3_retry_share"], abs=0.1)


MINSTREL_HT_HOPS = [c.name for c in ht.CASES if c.manager == "minstrelht" and c.hops == 1]


@pytest.mark.parametrize("case", MINSTREL_HT_HOPS)
def test_minstrel_ht_sends_its_mpdus_at_ns3_s_rates(
    rows: dict[str, dict[str, Any]], case: str
) -> None:
    # Measured (seeds 1-3): the first hop's MPDU rate mix against ns-3's, total variation distance
    # 0.045 at 30 m, 0.046 at 33 m, 0.139 at 36 m (airtcp sends 17 % of its MPDUs at MCS 4 where
    # ns-3 sends 4 %); goodput airtcp / ns-3 1.006, 1.013, 0.967.
    row = rows[case]
    assert row["rate_mix_tvd"] < 0.15, row


def test_minstrel_ht_on_the_three_hop_chain_stays_near_ns3(
    rows: dict[str, dict[str, Any]],
) -> None:
    # Measured: goodput 1.038 x ns-3's (in the goodput test), rate mix distance 0.189: nodes 0 and
    # 2 are 60 m apart, below each other's detection threshold, and airtcp's first hop loses more
    # of its MPDUs (46 % retransmitted against ns-3's 24 %) yet sends 24 % of them at MCS 7
    # against ns-3's 7 %, and 4 % at MCS 4 against 20 %. A guard until that is understood.
    row = rows["tcp-chain3-minstrelht-30m"]
    assert row["rate_mix_tvd"] < 0.25, row
