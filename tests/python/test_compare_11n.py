"""`airtcp compare` on 802.11n: the optimum's HT airtime against the frames the core puts on the
air, the aggregated exchange against a hand-worked case, the 802.11n network of the default set
planned and run in quick form, and the schemes that run without aggregation (the single-frame
coding layers; backpressure and Horizon aggregate) or are refused reported in their rows."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

import airtcp
from airtcp.comparison import DEFAULT_SCENARIOS
from airtcp.comparison.airtime import aggregated_exchange_us, airtime_us, ampdu_bytes, largest_ampdu
from airtcp.comparison.needs import Need, layout_of
from airtcp.comparison.optimum import optimum_of
from airtcp.comparison.plan import UNAGGREGATED, plan_scenario
from airtcp.comparison.schemes import SCHEMES
from airtcp.scenario import bundled
from airtcp.scenario.schema import load_scenario

BY_KEY = {scheme.key: scheme for scheme in SCHEMES}
NAME = "compare/diamond_11n"


def _doc() -> dict[str, Any]:
    return copy.deepcopy(dict(bundled.read_data(NAME)))


# --- HT airtime against the core ---------------------------------------------------------------


@pytest.mark.parametrize(("rate", "ht"), [
    ("6.5Mbps", {"band": "5GHz", "channel_width": "20MHz", "guard_interval": "long"}),
    ("26Mbps", {"band": "5GHz", "channel_width": "20MHz", "guard_interval": "long"}),
    ("65Mbps", {"band": "5GHz", "channel_width": "20MHz", "guard_interval": "long"}),
    ("72.2Mbps", {"band": "5GHz", "channel_width": "20MHz", "guard_interval": "short"}),
    ("81Mbps", {"band": "5GHz", "channel_width": "40MHz", "guard_interval": "long"}),
    ("39Mbps", {"band": "2.4GHz", "channel_width": "20MHz", "guard_interval": "long"}),
])
def test_ht_airtime_is_the_core_s_for_every_frame_of_a_run(rate: str, ht: dict[str, str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A short run of the diamond at this MCS, its frames traced by the core: A-MPDUs of many
    # lengths, lone segments, TCP ACKs, Block Acks and ACKs at the control rate.
    doc = _doc()
    doc["radio"] = {**doc["radio"], "data_rate": rate, "ht": ht}
    doc["duration"] = "1.5s"
    doc["flows"] = [{**flow, "start_jitter": "0s"} for flow in doc["flows"]]
    # The layout first: building a world opens (and empties) the trace file.
    timing = layout_of(load_scenario(doc))["timing"]
    trace = tmp_path / "frames.txt"
    monkeypatch.setenv("AIRTCP_FRAME_TRACE", str(trace))
    airtcp.run(doc)
    seen: dict[tuple[str, int, int], int] = {}
    for line in trace.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if fields[2] == "tx":
            seen[(fields[3], int(fields[4]), int(fields[5]))] = int(fields[6])
    data = {key for key in seen if key[0] == "data"}
    assert len({size for _, size, _ in data}) >= 5, sorted(data)  # several sizes: the check is not one case
    assert {kind for kind, _, _ in seen} >= {"data", "block_ack"}
    for (kind, size, bps), airtime_ns in seen.items():
        assert airtime_us(timing, size, bps) * 1000 == airtime_ns, (kind, size, bps)


# --- The aggregated exchange by hand ----------------------------------------------------------


def test_the_aggregated_exchange_of_the_diamond_by_hand() -> None:
    scenario = load_scenario(bundled.read_data(NAME))
    layout = layout_of(scenario)
    timing = layout["timing"]
    link = next(link for link in layout["links"] if (link["from"], link["to"]) == ("n0", "n1"))
    assert (link["rate_bps"], link["ack_us"], link["ba_us"]) == (65_000_000, 28.0, 32.0)
    # A 1448-byte segment with 40 bytes of TCP/IP and 38 of QoS MAC: a 1526-byte MPDU, a
    # 1530-byte subframe padded to 1532. 28 of them: 27 x 1532 + 1530 = 42,894 bytes,
    # ceil((16 + 8 x 42,894 + 6) / 260) = 1320 symbols, 36 + 5280 = 5316 us <= 5484; 29 would
    # need 44,426 bytes, 1368 symbols, 5508 us.
    assert ampdu_bytes(1526, 28) == 42_894
    assert airtime_us(timing, 42_894, 65_000_000) == 5316.0
    assert airtime_us(timing, ampdu_bytes(1526, 29), 65_000_000) == 5508.0
    assert largest_ampdu(timing, 1526, 65_000_000) == 28
    # AIFS 43 us, 7.5 slots of 9 us, the A-MPDU, SIFS 16 us, the Block Ack (32 us at 24 Mbit/s).
    access = 43 + 7.5 * 9
    assert aggregated_exchange_us(timing, 1488, 65_000_000, 28.0, 32.0) == (access + 5316 + 16 + 32, 28)
    # TCP ACKs: 78-byte MPDUs, 64 of them (the window) in 63 x 84 + 82 = 5374 bytes, 166 symbols.
    assert aggregated_exchange_us(timing, 40, 65_000_000, 28.0, 32.0) == (access + 36 + 664 + 16 + 32, 64)
    # The optimum: one collision domain for the conflict graph (every pair of links within the
    # busy range), so a segment's two hops share the air: 2 x (data + half an ACK's share).
    delivery = link["delivery"]
    per_hop = (access + 5316 + 16 + 32) / (28 * delivery) + (access + 700 + 16 + 32) / (64 * delivery) / 2
    opt = optimum_of(scenario, layout, "mesh")
    assert opt.total_bps == pytest.approx(1e6 / (2 * per_hop) * 8 * 1448, rel=1e-6)
    assert any("full A-MPDU" in note and "upper bound" in note for note in opt.notes)


def test_without_aggregation_the_optimum_counts_one_exchange_per_frame() -> None:
    doc = _doc()
    doc["radio"] = {**doc["radio"], "aggregation": {"max_ampdu_bytes": 0}}
    scenario = load_scenario(doc)
    layout = layout_of(scenario)
    assert "aggregation" not in layout["timing"] and "ba_us" not in layout["links"][0]
    aggregated = optimum_of(load_scenario(_doc()), layout_of(load_scenario(_doc())), "mesh")
    single = optimum_of(scenario, layout, "mesh")
    # A lone 1526-byte MPDU: 36 + 4 x 48 symbols (12,230 bits); ACK 28 us; a 78-byte TCP ACK
    # MPDU: 36 + 4 x 3.
    access = 43 + 7.5 * 9
    delivery = layout["links"][0]["delivery"]
    per_hop = (access + 36 + 192 + 16 + 28) / delivery + (access + 36 + 12 + 16 + 28) / delivery / 2
    assert single.total_bps == pytest.approx(1e6 / (2 * per_hop) * 8 * 1448, rel=1e-6)
    assert aggregated.total_bps > 2 * single.total_bps  # what aggregation is worth at MCS 7 (2.4x)
    assert not any("A-MPDU" in note for note in single.notes)


# --- The 802.11n network of the default set ----------------------------------------------------


def test_the_11n_network_is_in_the_default_set_and_plans_with_notes() -> None:
    assert NAME in DEFAULT_SCENARIOS
    plan = plan_scenario(NAME, SCHEMES, "SCENARIO[0]", set())
    keys = [s.key for s in plan.schemes]
    assert keys == ["tcp_aodv", "tcp_static", "tcp_vegas", "tcp_bbr", "tcp_linux", "bp_classical", "bp_tcp_aware",
                    "bp_tcp_aware_nc", "cope", "bfly", "ncaqm", "horizon"]
    # The coding layers send each frame they pick alone, and their rows say so; AODV and static
    # routes forward from the aggregating queue, and backpressure and Horizon, which pick frames
    # too, fill A-MPDUs through the seam (`pull_more`).
    notes = dict(plan.notes)
    assert set(notes) == {"cope", "bfly", "ncaqm"}
    assert all(note == UNAGGREGATED for note in notes.values())
    # The same from the layout of each scheme's scenario, as the plan reads it.
    def single_frames(row: dict[str, Any]) -> bool:
        doc = {**_doc(), **{section: value for section, value in row.items() if value is not None}}
        return bool(layout_of(load_scenario(doc))["timing"]["aggregation"]["single_frames"])

    assert {key for key, row in zip(keys, plan.rows, strict=True) if single_frames(row)} == {"cope", "bfly", "ncaqm"}
    assert plan.facts.longest_route_hops == 2 and plan.facts.multipath_flows == 2


def test_the_11n_comparison_runs_in_quick_form_with_its_notes(tmp_path: Path) -> None:
    keys = ("tcp_static", "bp_tcp_aware", "horizon", "cope")
    outcome = airtcp.compare([NAME], schemes=list(keys), seeds=1, quick=True, out=tmp_path / "cmp", quiet=True)
    assert outcome.ok, (outcome.analysis_errors, outcome.failed_runs)
    import json

    record = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    (table,) = record["scenarios"]
    rows = {row["scheme"]: row for row in table["rows"]}
    assert all(rows[key]["status"] == "ok" for key in keys)
    # Only the single-frame layer's row carries the note; backpressure and Horizon aggregate.
    assert {key for key in keys if "note" in rows[key]} == {"cope"} and rows["cope"]["note"] == UNAGGREGATED
    # The bound holds (the model counts full A-MPDUs), and TCP over the aggregating queue gets
    # more of it than a layer that sends each frame alone.
    for key in keys:
        assert 0 < rows[key]["total_fraction"]["mean"] <= 1.0, key
    assert rows["tcp_static"]["total_mbps"]["mean"] > rows["cope"]["total_mbps"]["mean"]
    page = (tmp_path / "cmp" / "report.html").read_text(encoding="utf-8")
    assert "runs without A-MPDU aggregation" in page


def test_a_scheme_the_simulator_refuses_on_11n_is_not_applicable_with_its_message() -> None:
    # Two radios per node on two channels; COPE declared as needing only a mesh passes the needs,
    # and the core's refusal (coding runs on one radio per node) becomes the reason.
    doc = _doc()
    doc["radio"] = {**doc["radio"], "node_channels": {node: [36, 52] for node in ("n0", "n1", "n2", "n3")}}
    careless = dataclasses.replace(BY_KEY["cope"], key="careless_cope", needs=(Need.MESH,))
    plan = plan_scenario(copy.deepcopy(doc), [BY_KEY["tcp_static"], careless], "SCENARIO[0]", set())
    assert [s.key for s in plan.schemes] == ["tcp_static"]
    assert dict(plan.not_applicable)["careless_cope"].startswith("the simulator refuses it: ")
