"""Analytical models beside the simulator: the optimum a scheme is measured against.

- `slotted`         — paper 000's idealised slotted model (ON/OFF links, a conflict graph,
  backpressure scheduling) run by the core, configured and read from Python;
- `capacity_region` — the stability region and the utility optimum of small slotted networks, by
  linear programming.
"""
