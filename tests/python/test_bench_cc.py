"""The TCP-variant comparison's plumbing (running it needs ns-3: `python -m airtcp.bench.cc`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from airtcp.bench import cc as bench_cc


def test_variants_are_distinct_and_pinned_to_airtcp_values() -> None:
    names = [v.name for v in bench_cc.VARIANTS]
    assert len(names) == len(set(names)) == 4
    vegas = next(v for v in bench_cc.VARIANTS if v.name == "vegas")
    assert vegas.ns3_args == ("--ns3::TcpVegas::Alpha=1", "--ns3::TcpVegas::Beta=3", "--ns3::TcpVegas::Gamma=1")


def test_the_table_marks_misses_and_skips() -> None:
    report = {
        "case": "p2p",
        "target": "within 15 %",
        "rows": [
            {"variant": "newreno", "airtcp_kbps": 1000.0, "ns3_kbps": 1010.0, "ratio": 0.990, "goodput_ok": True,
             "airtcp_sim_s": 0.01, "ns3_sim_s": 1.0, "speed": 100.0},
            {"variant": "cubic", "airtcp_kbps": 1500.0, "ns3_kbps": 1000.0, "ratio": 1.5, "goodput_ok": False,
             "airtcp_sim_s": None, "ns3_sim_s": 1.0, "speed": None},
            {"variant": "vegas", "skipped": "airtcp has no cc 'vegas' yet"},
        ],
    }
    table = bench_cc.format_table(report)
    assert "| newreno | 1000.0 | 1010.0 | 0.990 | ok |" in table
    assert "| cubic | 1500.0 | 1000.0 | 1.500 | MISS | - |" in table
    assert "| vegas | - | - | - | airtcp has no cc 'vegas' yet |" in table


def test_unknown_variants_are_refused() -> None:
    with pytest.raises(SystemExit) as exit_info:
        bench_cc.main(["--variants", "newreno,bbr"])
    assert exit_info.value.code == 2


def test_both_simulators_run_prr_unless_classic_is_asked_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[tuple] = []

    def fake_run(out: Path, seeds: int, duration_s: float, names: object, recovery: str = "?") -> dict:
        seen.append((seeds, duration_s, recovery))
        return {"case": "p2p", "target": "within 15 %", "rows": []}

    monkeypatch.setattr(bench_cc, "run", fake_run)
    assert bench_cc.main(["--quick", "--out", str(tmp_path)]) == 0
    assert bench_cc.main(["--quick", "--recovery", "classic", "--out", str(tmp_path)]) == 0
    assert seen == [(1, 20.0, "prr"), (1, 20.0, "classic")]
    with pytest.raises(SystemExit) as exit_info:
        bench_cc.main(["--recovery", "rfc6937"])
    assert exit_info.value.code == 2


def test_the_stored_ns3_figures_name_every_variant() -> None:
    assert set(bench_cc.REFERENCE_NS3_KBPS) == {v.name for v in bench_cc.VARIANTS}


def test_linux_reno_and_cubic_take_ssthresh_from_cwnd_as_ns3_does() -> None:
    by_name = {v.name: v for v in bench_cc.VARIANTS}
    for name in ("linuxreno", "cubic"):
        assert "flows[0].transport.ssthresh_basis=cwnd" in by_name[name].airtcp_sets, name
    for name in ("newreno", "vegas"):
        # NewReno halves the pipe in ns-3 (the benchmark's ssthresh_basis: pipe); Vegas has its own rule.
        assert not any("ssthresh_basis" in s for s in by_name[name].airtcp_sets), name
