"""Analysis helpers: confidence intervals, Jain's index, CDFs, improvements, loading a sweep."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from airtcp.experiments.analysis import cdf, improvement, jain, load_experiment, mean_ci, summarize, t_quantile_975
from airtcp.experiments.sweep import run_sweep
from support import EXAMPLES


def test_t_quantiles_match_the_tables_and_tend_to_the_normal() -> None:
    # The printed tables' three decimals; dof 1 in closed form, tan(0.475 pi).
    assert t_quantile_975(1) == pytest.approx(math.tan(0.475 * math.pi), rel=1e-12)
    for dof, printed in ((2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042), (60, 2.000), (120, 1.980)):
        assert t_quantile_975(dof) == pytest.approx(printed, abs=5e-4)
    # dof 2 in closed form: t = q / sqrt((1 - q^2) / 2) with q = 2 p - 1 = 0.95.
    assert t_quantile_975(2) == pytest.approx(0.95 / math.sqrt((1 - 0.95**2) / 2), rel=1e-12)
    assert 1.960 < t_quantile_975(10_000) < 1.961
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_mean_and_confidence_interval() -> None:
    mean, half, n = mean_ci([1.0, 2.0, 3.0])
    # sd 1, n 3: t(2) / sqrt(3), t(2) = 4.3027.
    assert (mean, n) == (2.0, 3) and half == pytest.approx(4.3027 / math.sqrt(3), abs=1e-4)
    assert math.isnan(mean_ci([5.0])[1])
    assert mean_ci([])[2] == 0


def test_jain_and_cdf() -> None:
    assert jain([1, 1, 1, 1]) == 1.0
    assert jain([1, 0, 0, 0]) == 0.25
    x, f = cdf([3, 1, 2, 2])
    assert list(x) == [1, 2, 2, 3] and list(f) == [0.25, 0.5, 0.75, 1.0]


def test_improvement_over_a_baseline_per_group() -> None:
    table = pd.DataFrame({"per": [0, 0, 0.01, 0.01], "cc": ["reno", "cubic"] * 2, "mean": [100.0, 120.0, 50.0, 75.0],
                          "ci95": [1.0] * 4, "n": [3] * 4})
    gain = improvement(table, scheme="cc", baseline="reno")
    assert list(gain["improvement_pct"]) == pytest.approx([0, 20, 0, 50])
    with pytest.raises(ValueError, match="no rows with cc = 'bbr'"):
        improvement(table, scheme="cc", baseline="bbr")


def test_a_sweep_loads_with_parameters_as_columns(tmp_path: Path) -> None:
    spec = {"base": str(EXAMPLES / "p2p_lossy.yaml"), "seeds": 3,
            "grid": {"links[0].loss.per": [0.0, 0.02], "flows[0].transport.cc": ["reno", "cubic"]},
            "zip": {"duration": ["20s"]}}
    run_sweep(spec, tmp_path / "exp", workers=2, quiet=True)
    exp = load_experiment(tmp_path / "exp")
    assert exp.params == ["links[0].loss.per", "flows[0].transport.cc", "duration"]
    assert set(exp.flows["flows[0].transport.cc"]) == {"reno", "cubic"}
    table = summarize(exp.flows, by=["links[0].loss.per", "flows[0].transport.cc"], metric="goodput_bps")
    assert len(table) == 4 and set(table["n"]) == {3}
    lossless = table[table["links[0].loss.per"] == 0.0]
    lossy = table[table["links[0].loss.per"] == 0.02]
    assert (lossy["mean"].to_numpy() < lossless["mean"].to_numpy()).all()
    assert (table["ci95"] >= 0).all()
    assert set(exp.goodput["status"]) == {"done"}


def test_experiment_figures_are_written_as_png_and_svg(tmp_path: Path) -> None:
    from airtcp.experiments.figures import plot_cdf, plot_metric_vs_parameter

    frame = pd.DataFrame({
        "per": [0.0, 0.0, 0.01, 0.01] * 2,
        "cc": ["reno"] * 4 + ["cubic"] * 4,
        "goodput_bps": [1.9e6, 1.8e6, 1.1e6, 1.0e6, 1.95e6, 1.9e6, 1.4e6, 1.3e6],
    })
    paths = plot_metric_vs_parameter(frame, "per", "goodput_bps", tmp_path / "fig" / "goodput_vs_per",
                                     scheme="cc", parameter_label="packet error rate")
    assert [p.suffix for p in paths] == [".png", ".svg"]
    assert all(p.stat().st_size > 1000 for p in paths)
    svg = paths[1].read_text(encoding="utf-8")
    assert "goodput (kb/s), mean and 95 % CI" in svg and "packet error rate" in svg and "cubic" in svg
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    cdf_paths = plot_cdf({"reno": frame["goodput_bps"][:4], "cubic": frame["goodput_bps"][4:]}, "goodput_bps",
                         tmp_path / "cdf")
    assert "CDF" in cdf_paths[1].read_text(encoding="utf-8")
    assert not list(tmp_path.rglob(".*tmp*"))
