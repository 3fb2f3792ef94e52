"""The comparison's figure per scenario: each scheme's total goodput (mean over seeds, 95 %
confidence bar) with the optimum's largest total as a dashed line, and its Jain index beside."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from airtcp.experiments.figures import _pyplot, _save

__all__ = ["plot_scenario"]


def plot_scenario(table: Mapping[str, Any], out: Path) -> Path | None:
    """Draws `table` (one scenario of `scenario_table`) into `out` (.png and .svg); returns the
    PNG, or None when no scheme has a result."""
    rows = [row for row in table["rows"] if row.get("total_mbps")]
    if not rows:
        return None
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.45 * len(rows) + 1.6), sharey=True,
                                      gridspec_kw={"width_ratios": [3, 1]})
    try:
        labels = [row["label"] for row in rows]
        positions = range(len(rows))
        totals = [row["total_mbps"]["mean"] for row in rows]
        errors = [row["total_mbps"]["ci95"] or 0.0 for row in rows]
        left.barh(list(positions), totals, xerr=errors, color="#4c72b0", capsize=3)
        optimum = table.get("optimum_total_mbps")
        if optimum:
            left.axvline(optimum["mean"], color="#c44e52", linestyle="--", label="optimum (largest total)")
            left.legend(loc="lower right", fontsize=8)
        left.set_yticks(list(positions), labels)
        left.invert_yaxis()
        left.set_xlabel("total goodput (Mbit/s)")
        left.grid(alpha=0.3, axis="x")
        jains = [row["jain"]["mean"] if row.get("jain") else 0.0 for row in rows]
        right.barh(list(positions), jains, color="#55a868")
        right.set_xlim(0, 1)
        right.set_xlabel("Jain's index")
        right.grid(alpha=0.3, axis="x")
        fig.suptitle(f"{table['slug']} ({table['kind']}, seeds {', '.join(str(s) for s in table['seeds'])})")
        return _save(fig, out)[0]
    finally:
        plt.close(fig)
