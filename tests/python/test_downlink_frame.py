"""The downlink's absolute rate as a frame model, a per-packet MAC overhead and one residual factor
(docs/downlink.md#frame): the schema's new fields and their defaults, the core's frame arithmetic
through `airtcp.models.downlink`, paper 002's fitted residual, and the saturated round-robin
closed form against a run of the simulator."""

from __future__ import annotations

import pytest

from airtcp import simulate
from airtcp.errors import ScenarioError
from airtcp.models import downlink as dl
from airtcp.scenario.schema import load_scenario, to_core_dict
from support import EXAMPLES

CELL = EXAMPLES / "cell_downlink.yaml"


def _downlink(*overrides: str) -> dict:
    return to_core_dict(load_scenario(CELL, overrides=overrides))["downlink"]  # type: ignore[no-any-return]


def test_the_defaults_leave_the_normalised_form_as_it_was() -> None:
    # No frame and no overhead given, or given at their defaults: neither appears, so the
    # summaries (and golden digests) of earlier scenarios keep their bytes.
    for overrides in [(), ("downlink.frame={kind: ideal}", "downlink.mac_overhead_bytes=0B")]:
        section = _downlink(*overrides)
        assert "frame" not in section and "mac_overhead_bytes" not in section
        assert section["rate_scale"] == 1.0
    section = _downlink("downlink.frame={kind: ieee802_16e_pusc, map_symbols: 6}", "downlink.mac_overhead_bytes=10")
    assert section["mac_overhead_bytes"] == 10
    assert section["frame"] == {
        "kind": "ieee802_16e_pusc",
        "sampling_factor": 1.12,
        "fft_size": 1024,
        "cyclic_prefix": 0.125,
        "duration": 5_000_000,
        "ttg": 105_714,
        "rtg": 60_000,
        "dl_symbols": 29,
        "ul_symbols": 18,
        "preamble_symbols": 1,
        "map_symbols": 6,
        "data_subcarriers": 720,
    }


def test_the_10_mhz_pusc_frame_by_hand() -> None:
    rates = dl.rates(dl.paper002_downlink(rate_scale=1))
    frame = rates.frame
    assert frame is not None
    # Fs = floor(28/25 x 10 MHz / 8 kHz) x 8 kHz; T_s = (1 + 1/8) x 1024 / Fs.
    assert frame.sampling_rate_hz == 11.2e6 and frame.subcarrier_spacing_hz == 10_937.5
    assert frame.symbol_time_s == pytest.approx(102.857142857e-6, rel=1e-9)
    # floor((5 ms - 105.714 us - 60 us) / T_s) = 47 = 29 DL + 18 UL; 29 - 1 - 4 = 24 data symbols.
    assert (frame.frame_symbols, frame.data_symbols) == (47, 24)
    # 24 x 720 data tones per 5 ms = 3.456 M tones/s = 0.3456 x 10 MHz.
    assert frame.data_tones_per_s == pytest.approx(3.456e6, rel=1e-12)
    assert rates.frame_efficiency == pytest.approx(0.3456, rel=1e-12)
    # e x 3.456 M tones/s x 10 ms, floored: QPSK 1/2 ... 64-QAM 5/6.
    assert [mode.bits_per_slot for mode in rates.modes] == [34_560, 51_840, 69_120, 103_680, 103_680, 138_240, 155_520, 172_800]
    assert rates.mac_overhead_bytes == 10 and rates.mean_snr_db == (12.0, 19.0, 13.0, 16.0)
    ideal = dl.rates(dl.paper002_downlink(frame={"kind": "ideal"}))
    assert ideal.frame is None and ideal.frame_efficiency == 1.0
    assert ideal.modes[0].bits_per_slot == 100_000


def test_paper_002s_residual_is_fitted_to_round_robins_total_only() -> None:
    fit = dl.paper002_round_robin_fit()
    # The frame model and the 10-byte overhead alone: 3983 packets/s, 1.39 x the paper's 2856.75.
    assert fit.frame_only_total == pytest.approx(3983.3, abs=0.1)
    assert fit.frame_only_total / dl.PAPER_002_ROUND_ROBIN_TOTAL == pytest.approx(1.394, abs=0.001)
    assert fit.rate_scale == pytest.approx(0.7172, abs=5e-5)
    assert fit.total == pytest.approx(dl.PAPER_002_ROUND_ROBIN_TOTAL, rel=1e-5)
    # The same routine recovers the bare calibrations of before: ideal frame, no overhead.
    bare = dl.paper002_downlink(frame={"kind": "ideal"}, mac_overhead_bytes=0)
    assert dl.fit_rate_scale(bare, 240, 2856.75).rate_scale == pytest.approx(0.2379, abs=5e-5)
    assert dl.fit_rate_scale(bare, 200, 2856.75).rate_scale == pytest.approx(0.1983, abs=5e-5)
    # Frame x overhead x residual is the bare scale at 240 bytes: 0.3456 x 240/250 x 0.7172.
    assert 0.3456 * 240 / 250 * fit.rate_scale == pytest.approx(0.2379, abs=5e-5)
    with pytest.raises(ScenarioError, match=r"^total: .*more than the frame model alone"):
        dl.fit_rate_scale(dl.paper002_downlink(), 240, 5000)


def test_bad_frames_name_the_field() -> None:
    cases = [
        ({"bandwidth": "5MHz"}, "downlink.frame.dl_symbols: the frame holds 23 symbols of 205.714 us"),
        ({"frame": {"kind": "ieee802_16e_pusc", "ul_symbols": 19}}, "downlink.frame.ul_symbols: the frame holds 47"),
        ({"frame": {"kind": "ieee802_16e_pusc", "map_symbols": 28}}, "downlink.frame.dl_symbols: must exceed"),
        ({"frame": {"kind": "ieee802_16e_pusc", "data_subcarriers": 1025}}, "downlink.frame.data_subcarriers: "),
        ({"frame": {"kind": "ieee802_16e_pusc", "cyclic_prefix": 1}}, "downlink.frame.cyclic_prefix: must be within [0, 1)"),
        ({"mac_overhead_bytes": -1}, "downlink.mac_overhead_bytes: must not be negative"),
    ]
    for changes, expected in cases:
        with pytest.raises(ScenarioError) as error:
            dl.rates(dl.paper002_downlink(**changes))
        assert str(error.value).startswith(expected), (changes, str(error.value))


def test_saturated_round_robin_closed_form_against_a_run() -> None:
    """Paper 002's downlink with the frame, the overhead and the fitted residual under
    round-robin, every user's queue overloaded by 200-byte UDP payloads in 240-byte packets: each
    user receives E[R_u] / 4 per slot in packets of 250 air bytes."""
    scale = round(dl.paper002_round_robin_fit().rate_scale, 4)
    seconds = 300
    overrides = [
        f"duration={seconds}s",
        "downlink.scheduler.kind=round_robin",
        "downlink.fading={kind: rayleigh}",
        "downlink.frame={kind: ieee802_16e_pusc}",
        "downlink.mac_overhead_bytes=10",
        f"downlink.rate_scale={scale}",
        *[f"flows[{i}].app={{kind: cbr, rate: 4Mbps, packet_size: 200}}" for i in range(4)],
        *[f"flows[{i}].transport={{kind: udp, header_bytes: 40}}" for i in range(4)],
    ]
    scenario = load_scenario(CELL, overrides=overrides)
    assert scenario.downlink is not None
    closed = dl.saturated_round_robin(dl.rates(scenario.downlink), 240)
    measured = [row / 200 / seconds for row in simulate(scenario).flows["bytes_delivered"]]
    # 7500 slots per user: a relative standard error of about 1 % per user (0.3 % per user at
    # 200 000 slots in the core's tests); the total averages over all four.
    for user, (got, expected) in enumerate(zip(measured, closed)):
        assert got == pytest.approx(expected, rel=0.03), (user, measured, closed)
    assert sum(measured) == pytest.approx(sum(closed), rel=0.015)
    # With the residual rounded to four digits the closed form still gives the paper's total.
    assert sum(closed) == pytest.approx(dl.PAPER_002_ROUND_ROBIN_TOTAL, rel=1e-4)
