"""The saturation case (ns-3 reference only): N = 1, 5, 10, 20 saturated UDP senders around one
receiver, at 2 and 11 Mbps, basic access and RTS/CTS (`bench/wifi/wifi_saturation.cc`), beside
Bianchi's model evaluated with the DCF parameters ns-3 reports; and its 802.11a form
`saturation11a`, basic access at 6, 24 and 54 Mbps (`wifi_saturation --standard=11a
--data-mode=OfdmRate<R>Mbps`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.wired import _mean

from .common import _kbps, _round, over_seeds
from .ns3 import _common_figures, _response_mode, program_runs

SAT_STATIONS = (1, 5, 10, 20)
QUICK_SAT_STATIONS = (1, 5)
SAT_MODES = ("DsssRate2Mbps", "DsssRate11Mbps")
QUICK_SAT_MODES = ("DsssRate2Mbps",)
SAT_WARMUP_S = 1.0
SAT_WINDOW_S = 20.0
QUICK_SAT_WINDOW_S = 5.0
SAT_PAYLOAD_BYTES = 1000
SAT_ACCESS = ("basic", "rtscts")

# 802.11a: data rates in Mbps, basic access only.
SAT11A_RATES = (6, 24, 54)
QUICK_SAT11A_RATES = (54,)
SAT11A_ACCESS = ("basic",)
# Bianchi's original model as often quoted for 802.11a (no retry limit, the backoff stage held at
# CWmax; a collision costs the frame, a propagation delay and EIFS; delay 1 us): with ns-3's
# slot, SIFS, DIFS, CW range and durations it gives the second Bianchi column of `saturation11a`.
ORIGINAL_PROP_DELAY_US = 1.0


def ofdm_mode(rate_mbps: float) -> str:
    """ns-3's name of an 802.11a data rate: "OfdmRate54Mbps"."""
    return f"OfdmRate{rate_mbps:g}Mbps"


def bianchi_throughput(
    n: int,
    *,
    slot_us: float,
    difs_us: float,
    sifs_us: float,
    cw_min: int,
    cw_max: int,
    retry_limit: int,
    data_us: float,
    ack_us: float,
    payload_bits: float,
    rts_us: float | None = None,
    cts_us: float | None = None,
    prop_delay_us: float = 0.0,
    collision_ifs_us: float | None = None,
) -> float:
    """Saturation throughput (payload bit/s) of n stations, Bianchi (2000) with a retry limit.

    A station's attempt probability tau follows from the renewal argument behind Bianchi's
    Markov chain: attempts per packet over attempts plus backoff slots, with stage i drawing
    uniformly from [0, CW_i], CW_i = min(2^i (cw_min + 1), cw_max + 1) - 1, and at most
    `retry_limit` attempts (ns-3's FrameRetryLimit counts attempts; 0 means no limit, the stage
    staying at CWmax: the paper's original chain). A collision costs the longest frame involved
    plus DIFS (basic) or the RTS plus DIFS (RTS/CTS), as in the paper, or plus
    `collision_ifs_us` if given (EIFS, for instance). Propagation delay is neglected unless
    `prop_delay_us` is given (the paper's delta: once after each frame).
    """

    def tau_of(p: float) -> float:
        if retry_limit == 0:
            if p >= 1.0:
                return 1.0 / (1.0 + cw_max / 2.0)  # every attempt collides: always at CWmax
            # No limit: stages 0..m double the window, every later one stays at CWmax.
            stages = 0
            while min((cw_min + 1) * 2**stages, cw_max + 1) < cw_max + 1:
                stages += 1
            attempts = 0.0
            backoff = 0.0
            for i in range(stages):
                cw = (cw_min + 1) * 2**i - 1
                attempts += p**i
                backoff += p**i * cw / 2.0
            tail = p**stages / (1.0 - p)
            attempts += tail
            backoff += tail * cw_max / 2.0
            return attempts / (attempts + backoff)
        attempts = 0.0
        backoff = 0.0
        for i in range(retry_limit):
            cw = min((cw_min + 1) * 2**i, cw_max + 1) - 1
            attempts += p**i
            backoff += p**i * cw / 2.0
        return attempts / (attempts + backoff)

    if n == 1:
        tau = tau_of(0.0)
    else:
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            p = 1.0 - (1.0 - mid) ** (n - 1)
            if mid - tau_of(p) < 0:
                lo = mid
            else:
                hi = mid
        tau = (lo + hi) / 2
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr
    d = prop_delay_us
    after_collision = difs_us if collision_ifs_us is None else collision_ifs_us
    if rts_us is None or cts_us is None:
        t_s = data_us + d + sifs_us + ack_us + d + difs_us
        t_c = data_us + d + after_collision
    else:
        t_s = (
            rts_us + d + sifs_us + cts_us + d + sifs_us + data_us + d + sifs_us + ack_us + d
            + difs_us
        )
        t_c = rts_us + d + after_collision
    mean_slot_us = (1 - p_tr) * slot_us + p_tr * p_s * t_s + p_tr * (1 - p_s) * t_c
    return p_s * p_tr * payload_bits / (mean_slot_us * 1e-6)


def _bianchi_for(
    params: dict[str, Any],
    mode: str,
    rtscts: bool,
    n: int,
    ack_mode: str,
    cts_mode: str | None,
    original: bool = False,
) -> float:
    """Bianchi's figure with the DCF parameters and frame durations ns-3 reported (`params`,
    802.11b's or 802.11a's); `original`: the paper's chain without a retry limit, EIFS after a
    collision and a 1 us propagation delay (802.11a's second column)."""
    dcf = params["dcf"]
    ofdm = "durations_ofdm" in dcf
    durations = dcf["durations_ofdm"] if ofdm else dcf["durations_long_preamble"]
    control = "OfdmRate6Mbps" if ofdm else "DsssRate1Mbps"
    rts = durations[control]["rts_20B_us"] if rtscts else None
    cts = durations[cts_mode or control]["cts_14B_us"] if rtscts else None
    extra: dict[str, Any] = {}
    if original:
        extra = {
            "prop_delay_us": ORIGINAL_PROP_DELAY_US,
            "collision_ifs_us": dcf.get(
                "eifs_us", dcf["sifs_us"] + dcf["ack_tx_time_us"] + dcf["difs_us"]
            ),
        }
    return bianchi_throughput(
        n,
        slot_us=dcf["slot_us"],
        difs_us=dcf["difs_us"],
        sifs_us=dcf["sifs_us"],
        cw_min=dcf["cw_min"],
        cw_max=dcf["cw_max"],
        retry_limit=0 if original else dcf["frame_retry_limit"],
        data_us=durations[mode]["udp_1000_1064B_us"],
        ack_us=durations[ack_mode]["ack_14B_us"],
        payload_bits=8.0 * SAT_PAYLOAD_BYTES,
        rts_us=rts,
        cts_us=cts,
        **extra,
    )


def run_saturation(
    binary: Path,
    *,
    stations: Sequence[int],
    modes: Sequence[str],
    seeds: int,
    window_s: float,
    params: dict[str, Any] | None,
    errors: list[str],
    standard: str = "11b",
    access_modes: Sequence[str] = SAT_ACCESS,
) -> dict[str, Any]:
    """ns-3 on every station count, data rate and access mode: a row each (throughput over seeds,
    Bianchi's figure with ns-3's parameters, MAC and cost figures), and every run. `standard`
    "11a" runs `wifi_saturation --standard=11a` with `modes` OfdmRate<R>Mbps (`params` then
    802.11a's), and its rows add Bianchi's original model (`bianchi_original_kbps`)."""
    runs: list[dict[str, Any]] = []
    rows = []
    label = "saturation" if standard == "11b" else f"saturation {standard}"
    for mode in modes:
        for access in access_modes:
            rtscts = access == "rtscts"
            for n in stations:
                group = program_runs(
                    binary,
                    f"{label} {mode} {access} N={n}",
                    seeds,
                    lambda seed, n=n, mode=mode, rtscts=rtscts: [
                        f"--stations={n}",
                        *([] if standard == "11b" else [f"--standard={standard}"]),
                        f"--data-mode={mode}",
                        f"--rtscts={int(rtscts)}",
                        f"--warmup={SAT_WARMUP_S!r}",
                        f"--duration={window_s!r}",
                        f"--payload={SAT_PAYLOAD_BYTES}",
                        f"--seed={seed}",
                    ],
                    errors,
                )
                runs += group
                throughputs = [_kbps(r["throughput_bps"]) for r in group]
                ack_mode = _response_mode(group, "CTL_ACK") or mode
                cts_mode = _response_mode(group, "CTL_CTS")
                bianchi = (
                    _bianchi_for(params, mode, rtscts, n, ack_mode, cts_mode) / 1e3
                    if params
                    else None
                )
                mean = _mean(throughputs)
                original: dict[str, Any] = {}
                if standard != "11b":
                    value = (
                        _bianchi_for(params, mode, rtscts, n, ack_mode, cts_mode, original=True)
                        / 1e3
                        if params
                        else None
                    )
                    original = {
                        "bianchi_original_kbps": _round(value, 2),
                        "ns3_over_bianchi_original": (
                            None if mean is None or not value else round(mean / value, 4)
                        ),
                    }
                rows.append(
                    {
                        "data_mode": mode,
                        "access": access,
                        "stations": n,
                        **over_seeds("throughput_kbps", throughputs),
                        "bianchi_kbps": _round(bianchi, 2),
                        "ns3_over_bianchi": (
                            None if mean is None or not bianchi else round(mean / bianchi, 4)
                        ),
                        **original,
                        "ack_mode": ack_mode,
                        "cts_mode": cts_mode,
                        **_common_figures(group),
                    }
                )
    settings: dict[str, Any] = {"program": "bench/wifi/wifi_saturation.cc"}
    if standard == "11a":
        settings.update(
            {
                "standard": "802.11a (WIFI_STANDARD_80211a, ns-3's default 5 GHz channel)",
                "phy": "YansWifiPhy, NistErrorRateModel (set explicitly)",
                "access": list(access_modes),
                "bianchi_original": "bianchi_throughput with retry_limit 0 (no limit), "
                "collision_ifs_us = ns-3's EIFS, prop_delay_us 1 (the model as usually quoted "
                "for 802.11a)",
            }
        )
    return {
        "settings": {
            **settings,
            "stations": list(stations),
            "data_modes": list(modes),
            "control_mode": "OfdmRate6Mbps" if standard == "11a" else "DsssRate1Mbps",
            "placement": "receiver at the origin, senders evenly on a circle of radius 10 m",
            "range_m": 250.0,
            "traffic": "OnOffApplication, always on, UDP, 1000-byte payload, 2 x the PHY data "
            "rate per sender",
            "warmup_s": SAT_WARMUP_S,
            "window_s": window_s,
            "throughput": "UDP payload bytes received in [warmup, warmup + window) x 8 / window",
            "queue_disc": "none (removed after address assignment)",
            "bianchi": "airtcp.bench.wifi.bianchi_throughput with ns-3's slot, SIFS, DIFS, CW, "
            "retry limit and frame durations (long preamble; ACK/CTS at the rates ns-3 used)",
            "seeds": list(range(1, seeds + 1)),
        },
        "rows": rows,
        "runs": runs,
    }
