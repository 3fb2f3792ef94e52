"""`airtcp report`: the self-contained HTML page of a sweep folder and of a reproduction."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from airtcp.papers.reproduce import reproduce
from airtcp.experiments.sweep import run_sweep
from browser_check import check_page, chromium  # noqa: F401 - chromium is a fixture
from support import EXAMPLES, run_cli


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "sweep"
    spec = {
        "name": "report-demo",
        "base": str(EXAMPLES / "p2p_lossy.yaml"),
        "grid": {"links[0].loss.per": [0, 0.02], "flows[0].transport.cc": ["reno", "cubic"]},
        # A third parameter whose values are strings: a table column, but no axis to plot against.
        "zip": {"duration": ["10s", "20s"]},
        "seeds": 2,
    }
    outcome = run_sweep(spec, out, workers=2, quiet=True)
    assert outcome.ok, outcome.failures
    return out


def test_a_sweep_report_has_its_tables_and_embedded_figures(sweep_folder: Path) -> None:
    result = run_cli("report", sweep_folder)
    assert result.returncode == 0, result.stderr
    page = (sweep_folder / "report.html").read_text(encoding="utf-8")
    assert "<h1>Sweep report-demo</h1>" in page
    assert "16 runs in the spec: 16 done, 0 failed" in page
    # One row per parameter point and flow: 2 x 2 x 2 points, one flow each.
    table = page.split("<h2>Goodput per flow</h2>", 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 8
    # Goodput over time for the first 6 points, goodput against the (numeric) loss rate, a CDF.
    assert page.count("data:image/png;base64,") == 6 + 1 + 1
    assert "Goodput over time is drawn for the first 6 of 8 parameter points" in page
    assert "not an airtcp" not in page
    # Against the loss rate: one line per flow and per value of every other parameter that
    # varies, never NewReno and Cubic pooled into one mean.
    svg = (sweep_folder / "figures" / "goodput_vs_links_0__loss_per.svg").read_text(encoding="utf-8")
    for cc in ("reno", "cubic"):
        for duration in ("10s", "20s"):
            assert f"flows[0].transport.cc = {cc}, duration = {duration}" in svg
    assert "one line per flow and value of flows[0].transport.cc, duration" in page
    # Nothing fetched from elsewhere: the page works offline.
    assert not re.search(r"(src|href)=\"(https?:|//)", page)


def test_a_sweep_ends_with_its_table_on_the_terminal(sweep_folder: Path, tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(json.loads((sweep_folder / "manifest.json").read_text(encoding="utf-8"))["spec"]),
                    encoding="utf-8")
    result = run_cli("sweep", spec, "--out", sweep_folder)  # resumed: nothing runs again
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "goodput kb/s (mean ± 95 % CI)" in line)
    assert lines[header].split()[:3] == ["links[0].loss.per", "flows[0].transport.cc", "duration"]
    rows = lines[header + 2: header + 2 + 8]
    assert len(rows) == 8 and all(row.split()[-1] == "2" for row in rows)  # two seeds each
    assert lines[-1].startswith("16 runs: 0 executed, 16 already done, 0 failed")


def test_a_failed_run_is_listed_in_the_report(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    spec = {
        "name": "with-failure",
        "base": str(EXAMPLES / "p2p_lossy.yaml"),
        "grid": {"links[0].loss.per": [0, 2.0]},
        "seeds": 1,
        "zip": {"duration": ["5s"]},
    }
    assert not run_sweep(spec, out, workers=1, quiet=True).ok
    result = run_cli("report", out)
    assert result.returncode == 0, result.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h2>Failed runs</h2>" in page
    failed = page.split("<h2>Failed runs</h2>", 1)[1].split("</table>", 1)[0]
    # The failing point's parameter values, and its error from the scenario check.
    assert "links[0].loss.per = 2.0" in failed and "duration = 5s" in failed
    assert "links[0].loss.per" in failed.split("class=\"error\">", 1)[1]


def test_the_sweep_report_renders_in_chromium(sweep_folder: Path, chromium: str) -> None:
    run_cli("report", sweep_folder).check_returncode()
    check = check_page(sweep_folder / "report.html", screenshot=sweep_folder / "report.png")
    assert check.ok, check.problems()
    assert check.console_errors == []
    figures = [image for image in check.images if image["kind"] == "img"]
    assert len(figures) == 8 and not check.broken_images
    assert check.title == "Sweep report-demo"


def test_the_reproduction_report_renders_in_chromium(tmp_path: Path, chromium: str) -> None:
    out = tmp_path / "repro"
    assert reproduce("validation", out, quick=True, quiet=True).ok
    for page in (out / "report.html", out / "validation" / "report.html"):
        check = check_page(page, screenshot=page.with_suffix(".png"))
        assert check.ok, check.problems()
        assert len([image for image in check.images if image["kind"] == "img"]) == 3
        assert page.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"
