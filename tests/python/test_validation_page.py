"""docs/validation.md's generator: its fast sections run and compare with their stored references,
the page in the repository has every section, and a bad section name is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from airtcp.bench import validation_page

ROOT = Path(__file__).resolve().parents[2]


def _ratios(text: str) -> dict[str, float]:
    # The last cell of every table row: airtcp / reference, bold when outside its target.
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"\*{0,2}\d+\.\d{3}\*{0,2}", cells[-1]):
            out[cells[0]] = float(cells[-1].strip("*"))
    return out


def test_the_wired_and_cc_sections_run_against_their_stored_references(tmp_path: Path) -> None:
    out = tmp_path / "validation.md"
    assert validation_page.main(["--sections", "wired,cc", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## 4. TCP NewReno on a lossy link against ns-3" in text
    assert "## 5. Congestion controls against ns-3's" in text
    ratios = _ratios(text)
    assert {"newreno", "linuxreno", "vegas", "cubic", "0.0", "0.01"} <= set(ratios)
    # The lossless link is the closed case: both simulators fill it.
    assert ratios["0.0"] == pytest.approx(1.0, abs=0.01)
    assert all(0.85 <= r <= 1.15 for r in ratios.values()), ratios
    assert not list(tmp_path.glob("*.partial"))


def test_the_page_in_the_repository_has_every_section() -> None:
    text = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE)
    assert headings == [str(k) for k in range(1, len(validation_page.SECTIONS) + 1)]


def test_an_unknown_section_is_refused_and_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "validation.md"
    with pytest.raises(SystemExit) as exit_info:
        validation_page.main(["--sections", "wired,nope", "--out", str(out)])
    assert exit_info.value.code == 2
    assert "--sections: unknown nope" in capsys.readouterr().err
    assert not out.exists()


def test_the_bench_readme_carries_the_same_matrix_table() -> None:
    readme = (ROOT / "bench" / "wifi" / "README.md").read_text(encoding="utf-8")
    block = readme.split(validation_page.BEGIN, 1)[1].split(validation_page.END, 1)[0].strip().splitlines()
    page = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8").splitlines()
    assert len(block) == 2 + 35
    start = page.index(block[0])
    assert page[start:start + len(block)] == block
