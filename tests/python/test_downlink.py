"""The base-station downlink from scenario files: the example runs, its results carry a
downlink table, and bad downlinks are refused with the field's path and exit code 2."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from airtcp import simulate
from airtcp.scenario.schema import load_scenario
from support import EXAMPLES, assert_run_refused, run_cli

CELL = EXAMPLES / "cell_downlink.yaml"


def test_the_example_serves_every_user_and_writes_a_downlink_table(tmp_path: Path) -> None:
    out = tmp_path / "cell"
    result = run_cli("run", CELL, "--out", out, "--set", "duration=5s", "--quiet")
    assert result.returncode == 0, result.stderr
    table = pq.read_table(out / "downlink.parquet").to_pylist()
    assert [row["user"] for row in table] == ["U0", "U1", "U2", "U3"]
    assert [row["mean_snr_db"] for row in table] == [12.0, 19.0, 13.0, 16.0]
    assert all(row["packets_served"] > 0 and row["slots_scheduled"] > 0 for row in table)
    # The 19 dB user's channel offers the most.
    rates = [row["mean_rate_bps"] for row in table]
    assert max(rates) == rates[1]
    queues = {row["queue"] for row in pq.read_table(out / "queues.parquet").to_pylist()}
    assert {"downlink BS->U0", "uplink U0->BS"} <= queues


def test_defaults_are_paper_002s_setup() -> None:
    downlink = load_scenario(CELL).downlink
    assert downlink is not None
    assert downlink.slot == 10_000_000 and downlink.bandwidth == 10e6
    assert (downlink.amc.kind, downlink.fading.kind, downlink.scheduler.kind) == (
        "ieee802_16e",
        "gauss_markov",
        "delay_max_weight",
    )
    assert downlink.fading.doppler == 128.0  # type: ignore[union-attr]
    assert downlink.queue_packets == 2000 and downlink.average_window == 256


def test_schedulers_are_selectable_from_the_api() -> None:
    totals = {}
    for kind in ("round_robin", "max_snr"):
        scenario = load_scenario(
            CELL,
            overrides=[f"downlink.scheduler.kind={kind}", "duration=5s"]
            + [f"flows[{i}].app={{kind: cbr, rate: 20Mbps, packet_size: 1000}}" for i in range(4)]
            + [f"flows[{i}].transport={{kind: udp}}" for i in range(4)],
        )
        totals[kind] = float(simulate(scenario).flows["goodput_bps"].sum())
    assert totals["max_snr"] > 1.1 * totals["round_robin"], totals


BAD = [
    ("downlink.base_station=Nowhere", "downlink.base_station: no node named 'Nowhere'"),
    ("downlink.users[2].node=BS", "downlink.users[2].node: the base station cannot be one of its own users"),
    ("downlink.users[2].node=U0", "downlink.users[2].node: 'U0' is already downlink.users[0]"),
    ("downlink.users=[]", "downlink.users: "),
    ("downlink.slot=0s", "downlink.slot: must be greater than 0"),
    ("downlink.rate_scale=1.5", "downlink.rate_scale: must be within (0, 1]"),
    ("downlink.scheduler.kind=max_sinr", "downlink.scheduler.kind: "),
    ("downlink.amc={kind: liu2004, count: 7}", "downlink.amc.count: must be between 1 and 6"),
    (
        "downlink.amc={kind: custom, modes: [{min_snr: 9dB, efficiency: 1}, {min_snr: 3dB, efficiency: 2}]}",
        "downlink.amc.modes[1].min_snr: thresholds must increase",
    ),
    ("downlink.fading={kind: clarke, doppler: -1Hz}", "downlink.fading.doppler: must not be negative"),
    (
        "downlink.erasure={kind: bimodal, low: 0.5, high: 1, low_probability: 0.1, hold_min: 200ms, hold_max: 100ms}",
        "downlink.erasure.hold_max: must not be smaller than hold_min (200ms)",
    ),
    ("downlink.uplink_rate=0bps", "downlink.uplink_rate: must be greater than 0"),
    ("downlink.mac_overhead_bytes=-10", "downlink.mac_overhead_bytes: must not be negative"),
    ("downlink.frame={kind: ieee802_16e_pusc, cyclic_prefix: 1.5}", "downlink.frame.cyclic_prefix: must be within [0, 1)"),
    # Refused by the core, which does the frame's arithmetic: 29 + 19 symbols of 102.857 us and
    # the transition gaps exceed a 5 ms frame.
    (
        "downlink.frame={kind: ieee802_16e_pusc, ul_symbols: 19}",
        "downlink.frame.ul_symbols: the frame holds 47 symbols of 102.857 us (5 ms less ttg and rtg), not 48",
    ),
    ("routing={kind: aodv}", "routing.kind: aodv routes over radios only; this scenario has a downlink"),
]


@pytest.mark.parametrize(("override", "expected"), BAD, ids=[case[0] for case in BAD])
def test_bad_downlinks_exit_2(tmp_path: Path, override: str, expected: str) -> None:
    assert_run_refused(CELL, override, expected, tmp_path / "out")
