"""Benchmarks against ns-3 on the same scenarios (they need a prebuilt ns-3; see bench/README.md).

- `wired` — point-to-point links (`make bench`), and the helpers the others share;
- `wifi`  — 802.11b chains and an AODV grid (`make bench-wifi`);
- `cc`    — TCP congestion-control variants (`make bench-cc`);
- `linux_tcp` — BBR v1, PRR and Cubic's HyStart against ns-3 (`make bench-cc BENCH_ARGS=--linux`);
- `startup` — the whole-command start-up table of the wired benchmark;
- `tables` — the plain-text and markdown tables of the reports;
- `ab`    — this checkout's simulation loop against another git revision's build (`make bench-ab`).
"""
