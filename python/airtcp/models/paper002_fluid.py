"""Paper 002's fluid instances and its Fig. 4: the data (computed by `airtcp.models.quic_fluid`)
and, separately, the figure.

Instances (spec 002 §2.6; `docs/models_002.md`):
- `matlab_downlink()` — §V-A's Matlab set-up: a 5 MHz downlink, five AMC modes "following [41]"
  (taken as Liu, Zhou & Giannakis 2004, modes 1-5 at PER 1 %), independent Rayleigh fading, mean
  SNRs 11/17/12/15 dB, 200-byte packets. The paper gives no slot length; with i.i.d. slots the
  region in packets per second does not depend on it (10 ms here) and, the model being a fluid
  one, bits are not floored to bytes (`whole_bytes=False`). The Doppler spread (20 Hz) does not
  enter the ergodic region.
- `MATLAB_DELAYS_S` — Fig. 3's delays are lost; the spec chooses round-trip propagation delays
  of 10/12/14/16 ms (per-flow bandwidth-delay products of 20-40 packets), for which ρ = 0 at
  κ = 0.05 is stable (the paper shows it converging) — twice those delays and it is not.
- `ns2_downlink(rate_scale)` / `ns2_network(rate_scale)` — §V-B's downlink (802.16e modes,
  10 MHz, 10 ms, mean SNRs 12/19/13/16 dB) and the spec's reconstruction of Fig. 3 (§3.1): one
  wired link of 3125 pkt/s shared by the four flows.

Fig. 4 (§V-A): eq. (9) every 20 ms with κ = 0.05, p_s = 200 (not given; the spec's choice),
w_s(0) = 10, for ρ = 0, 0.25, 0.5, 1, against the optimum of eq. (1) (the paper's "standard
sub-gradient iteration"; here the certified optimum of `num_optimum`). `fig4_data` computes the
trajectories, the optimum, the times to stay within 1 % and the linear stability at the
equilibrium; `plot_fig4` draws them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from airtcp.errors import ScenarioError
from airtcp.models.downlink_region import IEEE_802_16E, Downlink, liu2004
from airtcp.models.num_optimum import Network, NumOptimum, num_optimum
from airtcp.models.quic_fluid import FluidMap, Stability, Trajectory, convergence_time, iterate, linear_stability

__all__ = [
    "MATLAB_SNR_DB",
    "NS2_SNR_DB",
    "MATLAB_DELAYS_S",
    "P_S",
    "KAPPA",
    "INTERVAL_S",
    "W0",
    "RHOS",
    "FULL_DURATIONS_S",
    "QUICK_DURATIONS_S",
    "matlab_downlink",
    "matlab_network",
    "ns2_downlink",
    "ns2_network",
    "Fig4Curve",
    "Fig4Data",
    "fig4_data",
    "plot_fig4",
]

MATLAB_SNR_DB = (11.0, 17.0, 12.0, 15.0)
NS2_SNR_DB = (12.0, 19.0, 13.0, 16.0)
MATLAB_DELAYS_S = (0.010, 0.012, 0.014, 0.016)
P_S = 200.0
KAPPA = 0.05
INTERVAL_S = 0.02
W0 = 10.0
RHOS = (0.0, 0.25, 0.5, 1.0)
# How long each ρ runs: past its time to stay within 1 % (0.24, 1.18, 16.0, 2859 s) with margin.
FULL_DURATIONS_S = {0.0: 10.0, 0.25: 20.0, 0.5: 100.0, 1.0: 3600.0}
# The quick form for CI: ρ = 1 only to 300 s (within about 6 % by then, not yet converged).
QUICK_DURATIONS_S = {0.0: 5.0, 0.25: 10.0, 0.5: 40.0, 1.0: 300.0}


def matlab_downlink() -> Downlink:
    """§V-A's downlink (module header)."""
    return Downlink(MATLAB_SNR_DB, liu2004(5, 0.01), bandwidth_hz=5e6, slot_s=0.01, whole_bytes=False)


def matlab_network() -> Network:
    """§V-A's network: four flows, flow `s` to user `s`, no wired bottleneck."""
    return Network.wireless_only(matlab_downlink().region())


def ns2_downlink(rate_scale: float = 1.0, packet_bytes: float = 200.0) -> Downlink:
    """§V-B's downlink at `rate_scale` (the scenario's `downlink.rate_scale`); `packet_bytes` on
    the air (200 for the paper's 200-byte packets, 240 for 200-byte segments under 40 bytes of
    TCP/IP headers)."""
    return Downlink(NS2_SNR_DB, IEEE_802_16E, bandwidth_hz=10e6, slot_s=0.01, rate_scale=rate_scale,
                    packet_bytes=packet_bytes)


def ns2_network(rate_scale: float = 1.0, wired_capacity: float | None = 3125.0, packet_bytes: float = 200.0) -> Network:
    """The spec's reconstruction of Fig. 3: flows N_s -> U_s share one wired link of
    `wired_capacity` pkt/s (None: wireless only) before the downlink."""
    region = ns2_downlink(rate_scale, packet_bytes).region()
    if wired_capacity is None:
        return Network.wireless_only(region)
    return Network(flow_users=(0, 1, 2, 3), region=region, wired_capacities=(wired_capacity,),
                   flow_wired_links=((0,),) * 4)


@dataclass(frozen=True)
class Fig4Curve:
    """One ρ of Fig. 4: the `trajectory` of eq. (9), `convergence_time` (s, to stay within 1 %
    of `x*`; `inf` if not by the end) and the `stability` of the map at `w*`."""

    rho: float
    trajectory: Trajectory
    convergence_time: float
    stability: Stability


@dataclass(frozen=True)
class Fig4Data:
    """Fig. 4: the `optimum` of eq. (1) (`x*` = `optimum.rates`, `q*` = `optimum.flow_delay`),
    `w_star` (`p + x* d`), one `Fig4Curve` per ρ, and the wall-clock `seconds` it took."""

    optimum: NumOptimum
    w_star: np.ndarray
    delays: np.ndarray
    kappa: float
    curves: Mapping[float, Fig4Curve]
    seconds: float


def fig4_data(
    *,
    quick: bool = False,
    rhos: Sequence[float] = RHOS,
    durations: Mapping[float, float] | None = None,
    kappa: float = KAPPA,
    delays: Sequence[float] = MATLAB_DELAYS_S,
    network: Network | None = None,
) -> Fig4Data:
    """Fig. 4's data on `network` (default `matlab_network()`): per ρ the trajectory of eq. (9)
    (`QUICK_DURATIONS_S` with `quick`, else `FULL_DURATIONS_S`, or `durations`), its time to stay
    within 1 % of `x*` and the linear stability at `w*`."""
    started = time.perf_counter()
    net = matlab_network() if network is None else network
    d = np.asarray(delays, dtype=float)
    p = np.full(net.num_flows, P_S)
    optimum = num_optimum(net, p)
    w_star = p + optimum.rates * d
    table = durations if durations is not None else (QUICK_DURATIONS_S if quick else FULL_DURATIONS_S)
    missing = [rho for rho in rhos if rho not in table]
    if missing:
        raise ScenarioError("durations", f"no duration for rho = {missing} (give `durations`)")
    curves = {}
    for rho in rhos:
        fmap = FluidMap(net, d)
        trajectory = iterate(fmap, p, kappa=kappa, rho=rho, w0=np.full(net.num_flows, W0), duration=table[rho])
        curves[rho] = Fig4Curve(
            rho,
            trajectory,
            convergence_time(trajectory.t, trajectory.x, optimum.rates),
            linear_stability(fmap, w_star, rho=rho, kappa=kappa),
        )
    return Fig4Data(optimum, w_star, d, kappa, curves, time.perf_counter() - started)


def plot_fig4(data: Fig4Data, out: str | Path) -> list[Path]:
    """Fig. 4 as OUT.png and OUT.svg: one panel per ρ, each flow's `x_s(t)` (time on a log axis,
    so that ρ = 1's thousands of seconds and ρ = 0's first steps both show) and `x*` dashed."""
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt

    curves = list(data.curves.values())
    fig, axes = plt.subplots(len(curves), 1, figsize=(7, 2.4 * len(curves)), sharex=True, layout="constrained")
    axes = np.atleast_1d(axes)
    try:
        for ax, curve in zip(axes, curves):
            traj = curve.trajectory
            for s in range(traj.x.shape[1]):
                line = ax.plot(traj.t[1:], traj.x[1:, s], lw=1.2, label=f"flow {s}")[0]
                ax.axhline(data.optimum.rates[s], color=line.get_color(), ls="--", lw=0.8)
            when = "not within 1 %" if not np.isfinite(curve.convergence_time) else f"within 1 % from {curve.convergence_time:g} s"
            ax.set_title(f"ρ = {curve.rho:g} (κ = {data.kappa:g}): {when}", fontsize=9)
            ax.set_xscale("log")
            ax.set_ylabel("x_s (pkt/s)")
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8, ncol=4, loc="lower right")
        axes[-1].set_xlabel("time (s); dashed: optimum of eq. (1)")
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        paths = [out.with_suffix(".png"), out.with_suffix(".svg")]
        for path in paths:
            fig.savefig(path, dpi=120)
        return paths
    finally:
        plt.close(fig)
