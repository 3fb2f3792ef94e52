"""802.11 air time as the simulator counts it, for the optimum's exchange model
(`airtcp.comparison.optimum`): a frame's airtime, one DCF exchange of one frame, and on an
aggregating 802.11n radio the exchange of the largest A-MPDU the Block Ack agreement allows.

Every constant comes from the core's layout (`_core.layout_json`: `timing`, and per radio link
`rate_bps`, `ack_us`, `ba_us`), so the formulas here are the only part written twice; they are
checked against the frames of a run (tests/python/test_compare_11n.py).

- 802.11b: the PLCP preamble and header, then the bytes in whole microseconds.
- 802.11a (and the non-HT frames of an 802.11n radio): 20 us of preamble and SIGNAL, then
  ceil((16 + 8 bytes + 6) / N_DBPS) symbols of 4 us (IEEE 802.11-2016 §17.4.3, eq. 17-29), and at
  2.4 GHz an 802.11n radio's 6-us signal extension.
- 802.11n HT-mixed PPDU (§19.4.3, eq. 19-89 and 19-90): the legacy and HT preambles (36 us for
  one stream), then N_SYM = ceil((16 + 8 bytes + 6) / N_DBPS) data symbols of 4 us; with the short
  guard interval 3.6 us each, counted in whole 4-us symbols (eq. 19-90); the signal extension at
  2.4 GHz.

The aggregated exchange (§10.12, §10.24.7; the core's `mac/dcf/aggregate.rs`): AIFS[AC_BE] (the
layout's `difs_us` on an 802.11n radio: SIFS + 3 slots), the mean first backoff (CWmin / 2 slots),
RTS/CTS if used, one A-MPDU of n subframes (a 4-byte delimiter and the MPDU, each subframe but
the last padded to 4 bytes: §9.7.1), SIFS and the compressed Block Ack at the control-response
rate. n is the largest the agreement allows: at most `max_mpdus` (64, the Block Ack window),
`max_ampdu_bytes` (65,535) and a PPDU of at most aPPDUMaxTime (5.484 ms, Table 19-25); a lone
MPDU goes as a plain data frame answered by an ACK, as the MAC sends it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["airtime_us", "exchange_us", "ampdu_bytes", "largest_ampdu", "aggregated_exchange_us"]

# SERVICE field and tail bits around an OFDM PSDU (one BCC encoder).
_SERVICE_BITS = 16
_TAIL_BITS = 6


def _symbols(frame_bytes: int, bits_per_symbol: int) -> int:
    return -(-(_SERVICE_BITS + 8 * frame_bytes + _TAIL_BITS) // max(bits_per_symbol, 1))


def airtime_us(timing: Mapping[str, Any], frame_bytes: int, rate_bps: float) -> float:
    """Air time of a frame of `frame_bytes` at `rate_bps`, preamble included, as the core's
    `Timing::airtime`: whole microseconds (DSSS), whole 4-us OFDM symbols, or an HT-mixed PPDU
    when `rate_bps` is one of the 802.11n radio's MCS rates."""
    ht = timing.get("ht")
    if ht is not None:
        extension = float(ht["signal_extension_us"])
        mode = next((m for m in ht["mcs"] if m["rate_bps"] == int(rate_bps)), None)
        if mode is None:  # a non-HT frame of an 802.11n radio (control responses, broadcasts)
            return float(timing["plcp_us"]) + 4.0 * _symbols(frame_bytes, int(rate_bps * 4 // 1_000_000)) + extension
        symbols = _symbols(frame_bytes, int(mode["n_dbps"]))
        # Short guard interval: 3.6 us a symbol, the data field rounded up to whole 4-us symbols.
        data = 4 * (-(-symbols * 36 // 40) if ht["short_guard_interval"] else symbols)
        return float(ht["preamble_us"]) + float(data) + extension
    if timing["ofdm"]:
        return float(timing["plcp_us"]) + 4.0 * _symbols(frame_bytes, int(rate_bps * 4 // 1_000_000))
    return float(timing["plcp_us"]) + float(-(-(frame_bytes * 8 * 1_000_000) // int(rate_bps)))


def _access_us(timing: Mapping[str, Any]) -> float:
    """What an exchange costs before its data frame: DIFS (AIFS on 802.11n), the mean first
    backoff, and RTS + SIFS + CTS + SIFS if used."""
    t = float(timing["difs_us"]) + float(timing["cw_min"]) / 2.0 * float(timing["slot_us"])
    if timing["rts_cts"]:
        t += float(timing["rts_us"]) + float(timing["cts_us"]) + 2.0 * float(timing["sifs_us"])
    return t


def exchange_us(timing: Mapping[str, Any], packet_bytes: int, rate_bps: float, ack_us: float) -> float:
    """One DCF attempt of a `packet_bytes` packet: DIFS, the mean first backoff, RTS/CTS if used,
    the data frame (packet + MAC overhead), SIFS and the MAC ACK."""
    frame = packet_bytes + int(timing["mac_overhead_bytes"])
    return _access_us(timing) + airtime_us(timing, frame, rate_bps) + float(timing["sifs_us"]) + ack_us


def ampdu_bytes(mpdu_bytes: int, count: int, delimiter_bytes: int = 4) -> int:
    """Length of an A-MPDU of `count` MPDUs of `mpdu_bytes`: each subframe a delimiter and the
    MPDU, padded to 4 bytes but for the last."""
    subframe = delimiter_bytes + mpdu_bytes
    return (count - 1) * (-(-subframe // 4) * 4) + subframe


def largest_ampdu(timing: Mapping[str, Any], mpdu_bytes: int, rate_bps: float) -> int:
    """The most MPDUs of `mpdu_bytes` one A-MPDU at `rate_bps` may carry (at least 1: a lone MPDU
    always goes)."""
    limits = timing["aggregation"]
    count = 1
    while count < int(limits["max_mpdus"]):
        grown = ampdu_bytes(mpdu_bytes, count + 1, int(limits["delimiter_bytes"]))
        if grown > int(limits["max_ampdu_bytes"]) or airtime_us(timing, grown, rate_bps) > float(limits["ppdu_max_us"]):
            break
        count += 1
    return count


def aggregated_exchange_us(timing: Mapping[str, Any], packet_bytes: int, rate_bps: float, ack_us: float,
                           ba_us: float) -> tuple[float, int]:
    """The exchange of the largest A-MPDU of `packet_bytes` packets at `rate_bps` on an
    aggregating radio, and how many MPDUs it carries: AIFS, the mean backoff, RTS/CTS if used,
    the A-MPDU, SIFS and the Block Ack (`ba_us`); a plain exchange (`exchange_us`) when only one
    MPDU fits."""
    mpdu = packet_bytes + int(timing["mac_overhead_bytes"])
    count = largest_ampdu(timing, mpdu, rate_bps)
    if count == 1:
        return exchange_us(timing, packet_bytes, rate_bps, ack_us), 1
    frame = ampdu_bytes(mpdu, count, int(timing["aggregation"]["delimiter_bytes"]))
    return _access_us(timing) + airtime_us(timing, frame, rate_bps) + float(timing["sifs_us"]) + ba_us, count
