"""802.11n against ns-3 3.44 (bench/wifi/ht_reference.json) and the closed form: airtcp's side of
every case of `airtcp.bench.wifi.ht` (saturated UDP per HT MCS with and without A-MPDU
aggregation, bulk TCP over one hop and chains of 2-4 hops, bulk TCP under Minstrel-HT),
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
