"""Benchmark: paper 002's fluid model (`airtcp.models`), timed: one evaluation of the mapping F
of eq. (19) from scratch (the whole smoothing ladder) and warm (one step of the eq. (9)
iteration), and Fig. 4's quick and full forms. The issue's budget is 10 ms for one evaluation;
the figures are printed with that target beside them, never asserted (a timing is a measurement
of the machine as much as of the code).

    python -m airtcp.bench.fluid [--full]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from typing import Sequence

__all__ = ["main", "time_f"]


def time_f(evaluations: int = 15, warm_steps: int = 50) -> tuple[float, float, float]:
    """(median cold, largest cold, median warm) seconds of one F evaluation on the Matlab
    instance, at the equilibrium window and at random windows."""
    import numpy as np

    from airtcp.models import num_optimum as no
    from airtcp.models import paper002_fluid as pf
    from airtcp.models import quic_fluid as qf

    network, delays = pf.matlab_network(), np.array(pf.MATLAB_DELAYS_S)
    weights = np.full(4, 200.0)
    optimum = no.num_optimum(network, weights).rates
    rng = np.random.default_rng(4)
    windows = [weights + optimum * delays] + [rng.uniform(20, 400, 4) for _ in range(evaluations - 1)]
    cold = []
    for w in windows:
        start = time.perf_counter()
        no.solve(network, w, delays)
        cold.append(time.perf_counter() - start)
    fmap = qf.FluidMap(network, delays)
    fmap(windows[0])
    warm = []
    for k in range(warm_steps):
        start = time.perf_counter()
        fmap(windows[0] * (1 + 1e-3 * math.sin(k)))
        warm.append(time.perf_counter() - start)
    return statistics.median(cold), max(cold), statistics.median(warm)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.fluid", description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="also time the full Fig. 4 (rho 1 to 3600 s)")
    args = parser.parse_args(argv)
    from airtcp.models import paper002_fluid as pf

    cold, worst, warm = time_f()
    print(f"F, cold: median {cold * 1e3:.2f} ms, largest {worst * 1e3:.2f} ms (target < 10 ms); "
          f"warm: median {warm * 1e3:.3f} ms")
    for quick in (True, False) if args.full else (True,):
        start = time.perf_counter()
        pf.fig4_data(quick=quick)
        print(f"Fig. 4, {'quick' if quick else 'full'} form: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
