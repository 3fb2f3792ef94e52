"""Analytical models beside the simulator: the optimum a scheme is measured against.

- `slotted`         — paper 000's idealised slotted model (ON/OFF links, a conflict graph,
  backpressure scheduling) run by the core, configured and read from Python;
- `capacity_region` — the stability region and the utility optimum of small slotted networks, by
  linear programming;
- `downlink_region` — paper 002's ergodic TDMA downlink region (AMC modes, Rayleigh fading) and
  the rates of saturated schedulers (round-robin, max-SNR, max-rate, proportional fair);
- `num_optimum`     — paper 002's weighted proportionally-fair NUM (eq. (1)) and problem (19) over
  wired links and a wireless region, by Newton on the smoothed dual, with a duality-gap
  certificate;
- `quic_fluid`      — QUIC-TCP in paper 002's fluid model: the mapping F, the 20 ms window
  iteration (9), its linear stability, the Lyapunov function (26);
- `paper002_fluid`  — paper 002's fluid instances and the data and figure of its Fig. 4;
- `downlink`        — closed forms of the slotted base-station downlink from the core's frame and
  AMC arithmetic, and the fit of its residual `rate_scale` to a published round-robin total;
- `rlc_slotted`     — paper 004's RTT-slotted model of TCP-RLC (one flow, multipath, many flows
  through a router that knows or ignores the channel), the model of its Theorems 1-3;
- `coding_num`      — paper 001's NUM with one- and two-hop inter-session XOR codes (eqs. 1, 8) on
  any small instance, solved exactly with a certified gap; Appendix A's instances and the wheel;
- `coding_num_iteration` — the paper's distributed solution of it (rate control, splitting,
  dominance, scheduling, h-queue prices), with the iteration traces of Figs. 10-15.
"""
