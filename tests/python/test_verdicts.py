"""The published-vs-airtcp rows: each is ok, missed or not judged; the headlines of the HTML report
and of the terminal count exactly those; a row that is not judged, or has no published number,
carries its note; float noise is not shown as an interval."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from airtcp.comparison.report import _ci
from airtcp.experiments.html_report import _with_ci, write_report
from airtcp.papers import VERDICTS, Target, count_verdicts, verdict_line
from airtcp.papers.reproduce import format_targets, summary_lines
from support import table_cells

# A fixture table: two ok, one missed, two not judged (one of them without a published number).
ROWS = [
    Target(section="Fig. 6 tree", what="flow 1 goodput", published=205.0, unit="kb/s", airtcp=201.5, ci95=3.1,
           n=5, tolerance="± 5 %", ok=True),
    Target(section="Fig. 7 diamond", what="flow 1 goodput", published=205.0, unit="kb/s", airtcp=150.0, ci95=2.0,
           n=5, tolerance="± 5 %", ok=False, note="the diamond's relay drops more"),
    Target(section="Fig. 8 grid", what="runs where a flow starves", published="one or more", unit="runs",
           airtcp="3 of 10", n=10, note="reported, not judged: the paper gives no count"),
    Target(section="Fig. 8 grid", what="blind router ratio", published=None, unit="", airtcp=0.61, n=3,
           note="the paper gives no band for it: shown for comparison"),
    Target(section="Fig. 9", what="optimum", published=0.481, unit="Mbit/s", airtcp=0.481,
           ci95=1.7e-16, n=2, tolerance="± 1 %", ok=True),
]


def _fixture_folder(root: Path) -> Path:
    folder = root / "fix"
    folder.mkdir(parents=True)
    record = {"key": "fix", "title": "A fixture", "source": "the paper's §5", "notes": [], "quick": True,
              "airtcp_version": "0", "sweeps": [], "figures": [], "analysis_error": None,
              "targets": [t.to_json() for t in ROWS]}
    (folder / "reproduction.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def test_every_row_has_exactly_one_of_three_verdicts() -> None:
    assert [t.verdict for t in ROWS] == ["ok", "missed", "not judged", "not judged", "ok"]
    assert count_verdicts([t.to_json() for t in ROWS]) == {"ok": 2, "missed": 1, "not judged": 2}
    assert verdict_line([t.to_json() for t in ROWS]) == "5 rows: 2 ok, 1 missed, 2 not judged"
    assert tuple(count_verdicts([])) == VERDICTS


def test_a_row_not_judged_or_without_a_published_number_needs_its_note() -> None:
    with pytest.raises(ValueError, match="not judged needs a note"):
        Target(section="s", what="w", published=1.0, unit="", airtcp=1.0)
    with pytest.raises(ValueError, match="without a published number needs a note"):
        Target(section="s", what="w", published="  ", unit="", airtcp=1.0, ok=True)
    # An empty published text is stored as none, never as an empty cell.
    row = Target(section="s", what="w", published="", unit="", airtcp=1.0, ok=True, note="no number given")
    assert row.published is None
    # So is a dash, which the report would print as a bare "-".
    for dash in ("-", " \u2014 ", "\u2013"):
        assert Target(section="s", what="w", published=dash, unit="", airtcp=1.0, note="none given").published is None


def test_the_html_headline_counts_the_rows_the_table_shows(tmp_path: Path) -> None:
    _fixture_folder(tmp_path)
    page = write_report(tmp_path).read_text(encoding="utf-8")
    assert "5 rows: 2 ok, 1 missed, 2 not judged" in page
    verdict_cells = re.findall(r'<td class="verdict">([^<]*)</td>', page)
    assert sorted(verdict_cells) == sorted(t.verdict for t in ROWS)
    assert "see note" not in page and "rows within tolerance" not in page
    # Every cell says something: a number, a word for what is absent, or the row's note.
    assert [cell for cell in table_cells(page) if not cell.strip() or cell.strip() == "-"] == []
    # The row without a published number says "none"; its note is in the row.
    assert "<td class=\"num\">none</td>" in page and "shown for comparison" in page
    # Float noise around an exact optimum is not an interval.
    assert "1.7e-16" not in page and "e-16" not in page


def test_the_terminal_summary_matches_the_report(tmp_path: Path) -> None:
    _fixture_folder(tmp_path)
    assert summary_lines(tmp_path, ["fix"]) == ["fix: 5 rows: 2 ok, 1 missed, 2 not judged"]
    text = format_targets([t.to_json() for t in ROWS])
    lines = text.splitlines()
    # Each row names its section and verdict; missed and not judged rows carry their note.
    assert lines[0] == "  [ok] Fig. 6 tree: flow 1 goodput: published 205 kb/s, airtcp 201.5 ± 3.1 kb/s"
    assert lines[1].startswith("  [missed] Fig. 7 diamond: flow 1 goodput")
    assert lines[2] == "      note: the diamond's relay drops more"
    assert sum(1 for line in lines if line.startswith("      note: ")) == 3
    assert "published none" in text and "published ," not in text
    assert "e-16" not in text


def test_float_noise_is_not_an_interval() -> None:
    assert _with_ci(0.481, 1.7e-16) == "0.481"
    assert _with_ci(0.481, 0.012) == "0.481 ± 0.012"
    assert _with_ci(3.0, 0.0) == "3 ± 0"
    assert _ci({"mean": 0.481, "ci95": 1.7e-16}) == "0.481"
    assert _ci({"mean": 0.481, "ci95": 0.02}) == "0.481 ± 0.02"
