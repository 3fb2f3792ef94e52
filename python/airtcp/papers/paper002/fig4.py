"""Paper 002, Fig. 4: the fluid model's eq. (9) iteration on the Matlab setting for each rho,
against the certified optimum (airtcp.models, docs/models_002.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from airtcp.papers import Figure, Target

# The fluid model's figures on the Matlab instance, computed independently for the engineering
# spec (time to stay within 1 % of x*, spectral radius at kappa 0.05, largest stable kappa).
FIG4_REFERENCE = {
    0.0: (0.24, 0.806, 0.0554),
    0.25: (1.18, 0.940, 0.857),
    0.5: (16.0, 0.996, 13.3),
    1.0: (2859.0, 0.99998, 3178.0),
}


def fig4_targets(figures_dir: Path, quick: bool) -> tuple[list[Figure], list[Target]]:
    from airtcp.models import paper002_fluid as fluid

    data = fluid.fig4_data(quick=quick)
    png = fluid.plot_fig4(data, figures_dir / "fig4")[0]
    figures = [Figure(png, "Fig. 4: source rates of the fluid model, eq. (9) every 20 ms with kappa 0.05, for each rho "
                           "(dashed: the optimum of eq. (1), certified)." + (" Quick form: rho 1 to 300 s only." if quick else ""))]
    rows = []
    x_star = data.optimum.rates
    for rho, curve in data.curves.items():
        final = curve.trajectory.x[-1]
        error = float(abs(final / x_star - 1).max())
        limit = 0.06 if (quick and rho == 1.0) else 0.01
        rows.append(Target(section="Fig. 4", what=f"rho {rho:g}: largest |x_s / x*_s - 1| at the end ({curve.trajectory.t[-1]:g} s)",
                           published="converges to the optimum", unit="", airtcp=error, n=1,
                           tolerance=f"<= {limit:g}", ok=bool(error <= limit and not curve.trajectory.diverged)))
        time_ref, radius_ref, kappa_ref = FIG4_REFERENCE[rho]
        if np.isfinite(curve.convergence_time):
            rows.append(Target(section="Fig. 4", what=f"rho {rho:g}: time to stay within 1 % of x*", published=time_ref,
                               unit="s", airtcp=curve.convergence_time, n=1, tolerance="±20 % (model reference)",
                               ok=bool(abs(curve.convergence_time / time_ref - 1) <= 0.2)))
        rows.append(Target(section="Fig. 4", what=f"rho {rho:g}: largest stable kappa of the 20 ms map at w*",
                           published=kappa_ref, unit="", airtcp=curve.stability.largest_stable_kappa, n=1,
                           tolerance="±2 % (model reference)",
                           ok=bool(abs(curve.stability.largest_stable_kappa / kappa_ref - 1) <= 0.02)))
    times = [c.convergence_time for c in data.curves.values()]
    increasing = all(a < b for a, b in zip(times, times[1:]))
    rows.append(Target(section="Fig. 4", what="time to converge increases with rho", published="smaller rho converges quicker",
                       unit="", airtcp=", ".join(f"{t:.3g} s" for t in times), n=1, ok=increasing))
    doubled = fluid.fig4_data(rhos=(0.0,), durations={0.0: 5.0}, delays=tuple(2 * d for d in fluid.MATLAB_DELAYS_S))
    diverged = doubled.curves[0.0].trajectory.diverged
    rows.append(Target(section="Fig. 4", what="rho 0, kappa 0.05, every delay doubled: the iteration diverges",
                       published="yes (implied: per-flow BDP of a few tens of packets)", unit="",
                       airtcp="diverges" if diverged else "converges", n=1, ok=bool(diverged),
                       note=f"largest stable kappa there {doubled.curves[0.0].stability.largest_stable_kappa:.4f}"))
    return figures, rows
