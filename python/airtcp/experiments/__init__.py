"""Experiments: many runs and what is made of them.

- `spec`        — sweep specifications (a base scenario, a grid of values, seeds);
- `sweep`       — running a sweep into an experiment folder, locally or on a Dask cluster;
- `analysis`    — an experiment folder's tables, means with confidence intervals, fairness, CDFs;
- `figures`     — an experiment's figures (metric against parameter, goodput against time, CDFs);
- `plot`        — the figures of a single run's results directory (`airtcp plot`);
- `draw`        — a drawing of a scenario's topology (`airtcp draw`);
- `html_report` — one self-contained HTML page for an experiment or reproduction (`airtcp report`).
"""
