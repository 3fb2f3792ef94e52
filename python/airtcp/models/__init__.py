"""Analytical models beside the simulator: the optimum a scheme is measured against.

- `slotted`         — paper 000's idealised slotted model (ON/OFF links, a conflict graph,
  backpressure scheduling) run by the core, configured and read from Python;
- `capacity_region` — the stability region and the utility optimum of small slotted networks, by
  linear programming;
- `downlink`        — closed forms of the slotted base-station downlink from the core's frame and
  AMC arithmetic, and the fit of its residual `rate_scale` to a published round-robin total.
"""
