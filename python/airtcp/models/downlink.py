"""Closed forms of the slotted base-station downlink (docs/downlink.md), and the fit of its one
calibrated number, the residual `rate_scale`.

The numbers come from the core (`airtcp._core.downlink_rates_json`): the frame efficiency of
the configured frame, the AMC table's bits per slot after the frame and the residual factor, and
each user's mean bits per slot under Rayleigh fading, so this module and the simulator share one
implementation of the frame arithmetic. On top of them:

- `saturated_round_robin`: with every queue backlogged, round-robin gives each of N users a slot
  in N, in which it receives its current rate, so its long-run rate is E[R_u] / N bits per slot,
  i.e. `E[R_u] / (N T 8 (packet + MAC overhead))` packets per second (the channel is blind to
  the schedule; the marginal of every Rayleigh process is the same, so the form holds for
  `rayleigh`, `gauss_markov` and, approximately, `clarke`);
- `fit_rate_scale`: the residual factor that makes the saturated round-robin total equal a
  published total. Bits per slot are `floor(e B T eta s)`, so the total is proportional to the
  residual s up to those floors; the fit scales once and corrects once for them.

Paper 002 (§V, Fig. 6): round-robin carries 2856.75 packets/s of 200-byte payload in total. With
the 802.16e PUSC frame (efficiency 0.3456 at 10 MHz) and 10 bytes of MAC overhead per 240-byte
IP packet the frame model alone gives 3983 packets/s; the residual that brings it to the
published total is 0.717 (`paper002_round_robin_fit()`). That residual is the one fitted number:
every other result of the paper is out of sample.

    from airtcp.models import downlink as dl
    fit = dl.paper002_round_robin_fit()
    fit.rate_scale, fit.frame_only_total  # 0.7172..., 3983.3...
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from airtcp import _core
from airtcp.errors import ScenarioError
from airtcp.scenario.schema import DownlinkConfig

__all__ = [
    "FrameRates",
    "ModeRate",
    "DownlinkRates",
    "RateFit",
    "rates",
    "saturated_round_robin",
    "fit_rate_scale",
    "PAPER_002_ROUND_ROBIN_TOTAL",
    "PAPER_002_PACKET_BYTES",
    "paper002_downlink",
    "paper002_round_robin_fit",
]

# Paper 002 Fig. 6 (middle): QUIC-TCP's total under round-robin, packets/s of 200-byte payload.
PAPER_002_ROUND_ROBIN_TOTAL = 2856.75
# Its packets in the base station's queues: 200 bytes of payload + 40 of TCP/IP headers.
PAPER_002_PACKET_BYTES = 240


@dataclass(frozen=True)
class FrameRates:
    """An OFDMA frame's arithmetic (`crates/airtcp/src/mac/downlink/frame.rs`)."""

    sampling_rate_hz: float
    subcarrier_spacing_hz: float
    symbol_time_s: float
    # Whole symbols per frame besides the transition gaps, and the downlink's data symbols.
    frame_symbols: int
    data_symbols: int
    data_tones_per_s: float


@dataclass(frozen=True)
class ModeRate:
    """An AMC mode: its threshold, its bits per data tone and its bits per slot."""

    min_snr_db: float
    efficiency: float
    bits_per_slot: int


@dataclass(frozen=True)
class DownlinkRates:
    """What a downlink configuration offers before any traffic."""

    slot_s: float
    bandwidth_hz: float
    # None for the ideal frame (efficiency 1).
    frame: FrameRates | None
    frame_efficiency: float
    rate_scale: float
    mac_overhead_bytes: int
    modes: tuple[ModeRate, ...]
    # Each user's mean SNR (dB) and mean bits per slot under Rayleigh fading.
    mean_snr_db: tuple[float, ...]
    mean_bits: tuple[float, ...]


@dataclass(frozen=True)
class RateFit:
    """A residual factor fitted to a saturated round-robin total (packets per second)."""

    # The fitted residual, and the total the downlink then gives (equal to the target up to
    # the floors of the bits per slot).
    rate_scale: float
    total: float
    # The total with residual 1: what the frame model and the MAC overhead alone give.
    frame_only_total: float
    target: float


def _normalised(downlink: Mapping[str, Any] | DownlinkConfig) -> dict[str, Any]:
    """The downlink section as the core's JSON (validated by the schema, errors from `downlink.`)."""
    if isinstance(downlink, DownlinkConfig):
        model = downlink
    else:
        try:
            model = DownlinkConfig.model_validate(dict(downlink))
        except ScenarioError as error:
            raise ScenarioError.from_list([(f"downlink.{path}", message) for path, message in error.errors]) from None
    data: dict[str, Any] = model.model_dump(mode="json", by_alias=True)
    return data


def rates(downlink: Mapping[str, Any] | DownlinkConfig) -> DownlinkRates:
    """The rates of a scenario's `downlink` section (the file's form, e.g. `mean_snr: 12dB`, or a
    `DownlinkConfig`). Raises `ScenarioError` naming the field for what a run would refuse."""
    return _core_rates(_normalised(downlink))


def _core_rates(section: Mapping[str, Any]) -> DownlinkRates:
    """`rates` of a section already in the core's form."""
    try:
        output = _core.downlink_rates_json(json.dumps(section))
    except ValueError as error:
        path, sep, message = str(error).partition(": ")
        raise (ScenarioError(path, message) if sep else ScenarioError("downlink", str(error))) from None
    data = json.loads(output)
    frame = data["frame"]
    return DownlinkRates(
        slot_s=data["slot_s"],
        bandwidth_hz=data["bandwidth_hz"],
        frame=None if frame is None else FrameRates(**frame),
        frame_efficiency=data["frame_efficiency"],
        rate_scale=data["rate_scale"],
        mac_overhead_bytes=data["mac_overhead_bytes"],
        modes=tuple(ModeRate(**mode) for mode in data["modes"]),
        mean_snr_db=tuple(user["mean_snr_db"] for user in data["users"]),
        mean_bits=tuple(user["mean_bits_rayleigh"] for user in data["users"]),
    )


def saturated_round_robin(downlink_rates: DownlinkRates, packet_bytes: int) -> list[float]:
    """Each user's long-run rate under round-robin with every queue backlogged by packets of
    `packet_bytes` (plus the MAC overhead on the air), packets per second: E[R_u] / N per slot."""
    if packet_bytes + downlink_rates.mac_overhead_bytes <= 0:
        raise ScenarioError("packet_bytes", "a packet must take at least one byte on the air")
    users = len(downlink_rates.mean_bits)
    air_bits = 8 * (packet_bytes + downlink_rates.mac_overhead_bytes)
    return [bits / users / downlink_rates.slot_s / air_bits for bits in downlink_rates.mean_bits]


def fit_rate_scale(downlink: Mapping[str, Any] | DownlinkConfig, packet_bytes: int, total: float) -> RateFit:
    """The residual `rate_scale` with which saturated round-robin on `downlink` (its frame and
    MAC overhead as configured, its own `rate_scale` ignored) carries `total` packets of
    `packet_bytes` per second, all users together."""
    if not total > 0:
        raise ScenarioError("total", "must be > 0")
    section = _normalised(downlink)

    def total_at(scale: float) -> float:
        return sum(saturated_round_robin(_core_rates({**section, "rate_scale": scale}), packet_bytes))

    frame_only = total_at(1.0)
    scale = total / frame_only
    if not scale <= 1.0:
        raise ScenarioError(
            "total",
            f"{total:g} packets/s is more than the frame model alone gives ({frame_only:.6g}); "
            "a residual factor is at most 1",
        )
    # One correction for the floors of the bits per slot (each at most one bit in tens of
    # thousands).
    scale = min(1.0, scale * total / total_at(scale))
    return RateFit(rate_scale=scale, total=total_at(scale), frame_only_total=frame_only, target=total)


def paper002_downlink(**changes: Any) -> dict[str, Any]:
    """Paper 002's ns-2 downlink (§V) as a scenario's `downlink` section: four users at 12, 19, 13
    and 16 dB, 10 MHz, 10 ms slots, the 802.16e AMC modes, Rayleigh fading at 128 Hz, the 802.16e
    PUSC frame and 10 bytes of MAC overhead per packet; `changes` replace fields (e.g.
    `scheduler`, `rate_scale`)."""
    section: dict[str, Any] = {
        "base_station": "BS",
        "users": [{"node": f"U{i}", "mean_snr": f"{snr}dB"} for i, snr in enumerate((12, 19, 13, 16))],
        "slot": "10ms",
        "bandwidth": "10MHz",
        "frame": {"kind": "ieee802_16e_pusc"},
        "mac_overhead_bytes": 10,
        "amc": {"kind": "ieee802_16e"},
        "fading": {"kind": "gauss_markov", "doppler": "128Hz"},
    }
    section.update(changes)
    return section


def paper002_round_robin_fit() -> RateFit:
    """The residual of paper 002: fitted to round-robin's published total (2856.75 packets/s of
    200-byte payload, 240-byte packets) and to nothing else."""
    return fit_rate_scale(paper002_downlink(), PAPER_002_PACKET_BYTES, PAPER_002_ROUND_ROBIN_TOTAL)
