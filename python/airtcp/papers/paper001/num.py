"""Paper 001's Appendix A (Figs. 10-15): the distributed solution of the NUM with coding
(`airtcp.models.coding_num_iteration`) on the paper's six instances, its rates and h-queue prices
against the iteration, beside the exact optimum (`airtcp.models.coding_num`) and the optimum
without coding. The paper prints the totals truncated ("0.88" for 8/9, "1.3" for 4/3, "1.14"
for 8/7); Fig. 13 is built with uplinks 4 and downlinks 1, the one labelling that gives its
numbers (docs/ncaqm.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from airtcp.experiments.figures import plot_lines
from airtcp.models import coding_num, coding_num_iteration

__all__ = ["Convergence", "PUBLISHED", "TABLE_I_OPTIMAL", "convergence", "optimal_improvements"]

# Total rate with coding / without, as the paper prints them (truncated).
PUBLISHED = {
    "Fig. 10": (0.66, 0.50),
    "Fig. 11": (0.88, 0.80),
    "Fig. 12": (0.66, 0.50),
    "Fig. 13": (1.3, 0.80),
    "Fig. 14": (0.50, 0.33),
    "Fig. 15": (1.14, 0.66),
}


# Table I's "Optimal" column: the improvement of the log-utility optimum with coding over the
# same without (the grid's is not given).
TABLE_I_OPTIMAL = {"Alice and Bob": 0.33, "X": 0.33, "cross": 0.60, "butterfly": 0.50}


def optimal_improvements() -> dict[str, float]:
    """Table I's "Optimal" column from the solver: total rate with coding over without, minus 1,
    all capacities 1 (the cross is the wheel of four)."""
    instances = {
        "Alice and Bob": coding_num.alice_bob(1, 1),
        "X": coding_num.x_topology(1, 1, 1, 1),
        "cross": coding_num.wheel(4),
        "butterfly": coding_num.butterfly(1, 1, 1, 1, 1),
    }
    return {name: coding_num.optimum(spec).total / coding_num.optimum({**spec, "codes": "none"}).total - 1
            for name, spec in instances.items()}


@dataclass(frozen=True)
class Convergence:
    """One figure: the exact optima with and without coding, the iteration's trace, the
    figure files."""

    figure: str
    optimum: float
    optimum_without: float
    trace: coding_num_iteration.IterationTrace
    paths: tuple[Path, ...]


def convergence(figures_dir: Path, *, iterations: int = 5000) -> list[Convergence]:
    """Runs the iteration on each instance and draws its rates and prices (PNG and SVG)."""
    found = []
    for figure, spec in coding_num.appendix_a().items():
        exact = coding_num.optimum(spec).total
        without = coding_num.optimum({**spec, "codes": "none"}).total
        trace = coding_num_iteration.iterate(spec, iterations=iterations)
        steps = np.arange(1, iterations + 1)
        stem = figure.lower().replace(". ", "").replace(" ", "")
        rates = {f"x{fid}": (steps, trace.rates[:, s]) for s, fid in enumerate(trace.flow_ids)}
        rates["total"] = (steps, trace.total)
        paths = plot_lines(
            rates, figures_dir / f"{stem}_rates", x_label="iteration", y_label="rate",
            references={f"optimum with coding {exact:.4f}": exact, f"without {without:.4f}": without},
            title=f"{figure}: rates",
        )
        prices = {f"q {name}": (steps, trace.prices[:, h]) for h, name in enumerate(trace.hyperarcs)}
        paths += plot_lines(prices, figures_dir / f"{stem}_prices", x_label="iteration", y_label="h-queue price",
                            title=f"{figure}: prices")
        found.append(Convergence(figure, exact, without, trace, tuple(paths)))
    return found
