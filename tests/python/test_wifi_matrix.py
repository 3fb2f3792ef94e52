"""The differential matrix against ns-3 (airtcp.bench.wifi.matrix): airtcp's goodput on every
case, as the mean over seeds 1-3, against ns-3's stored figures (bench/wifi/matrix_reference.json,
made by `python -m airtcp.bench.wifi.matrix --update-reference`), and the frame-trace reader.

The comparison runs airtcp for real (35 cases x 3 seeds, about 20 s); ns-3 does not run here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from airtcp.bench.wifi import frame_trace, matrix
from airtcp.bench.wifi.matrix_cases import all_cases, case_by_name
from airtcp.scenario.schema import load_scenario

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "bench" / "wifi" / matrix.REFERENCE_NAME


def _reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_every_case_is_a_valid_scenario_with_unique_names() -> None:
    cases = all_cases()
    assert len({c.name for c in cases}) == len(cases)
    for case in cases:
        load_scenario(case.scenario(1))
    # Each group the issue asks for is there.
    assert {c.group for c in cases} == {"one_hop", "star", "hidden", "chain", "cross", "udp"}


def test_the_reference_was_made_from_these_cases() -> None:
    ref = _reference()["cases"]
    assert set(ref) == {c.name for c in all_cases()}
    for case in all_cases():
        # The stored arguments are the program's arguments for this case (seed left out).
        assert ref[case.name]["args"] == case.ns3_args(0)[:-1], case.name
        assert sorted(ref[case.name]["runs"]) == ["1", "2", "3"], case.name


def test_airtcp_agrees_with_ns3_on_every_case() -> None:
    report = matrix.run_matrix(all_cases(), 3, ns3="reference", jobs=1, reference=_reference())
    assert not report["errors"]
    misses = [
        f"{row['case']}: airtcp {row['airtcp_bps'] / 1e6:.3f} vs ns-3 {row['ns3_bps'] / 1e6:.3f} Mbit/s "
        f"(ratio {row['ratio']:.3f}, tolerance {row['tolerance']:.2f})"
        for row in report["cases"]
        if not row["within"]
    ]
    assert not misses, "\n".join(misses)
    # The wider tolerance is kept for traced cases only.
    assert set(matrix.TRACED) <= {c.name for c in all_cases()}


def test_the_frame_trace_of_both_simulators_reads_alike(tmp_path: Path) -> None:
    case = case_by_name("hop1-a54-10m")
    trace = tmp_path / "air.trace"
    # The trace is switched on by the environment of the process that runs the core.
    code = (
        "import sys; from airtcp.bench.wifi.matrix import run_airtcp_case;"
        "from airtcp.bench.wifi.matrix_cases import case_by_name;"
        "run_airtcp_case(case_by_name('hop1-a54-10m'), 1, sys.argv[1])"
    )
    subprocess.run([sys.executable, "-c", code, str(trace)], check=True, timeout=300, env=dict(os.environ))
    stats = frame_trace.read_trace(trace, case.standard)
    assert stats.frames["data"] > 1000 and stats.frames["ack"] > 1000
    # Same-slot collisions exist (the 4-us detection time) and each loses both frames to TXING.
    assert stats.overlaps > 0
    assert stats.drops["TXING"] == 2 * stats.overlaps
    # The TCP receiver (node 1) mostly sends DIFS after the medium goes idle, without backoff.
    gaps = stats.gaps[1]
    assert gaps[0] / sum(gaps.values()) > 0.5


def test_trace_reader_counts_gaps_in_slots_after_difs(tmp_path: Path) -> None:
    path = tmp_path / "t.trace"
    path.write_text(
        "\n".join(
            [
                "0 0 tx data 1548 54000000 252000 1 0",
                # DIFS (34 us) + 3 slots after the first frame ends.
                f"{252000 + 34000 + 27000} 1 tx data 88 54000000 36000 0 0",
                # Starts while the previous one is on the air: a collision, gap below DIFS.
                f"{252000 + 34000 + 27000 + 1000} 0 tx data 1548 54000000 252000 1 1",
                "5 0 backoff 7",
                "6 1 rx_drop TXING",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    st = frame_trace.read_trace(path, "11a")
    assert st.gaps[1][3] == 1 and st.gaps[0]["<DIFS"] == 1 and sum(st.gaps[0].values()) == 1
    assert st.overlaps == 1 and st.retries["data"] == 1 and st.backoffs[0] == 1 and st.drops["TXING"] == 1


@pytest.mark.parametrize("argv", [["--seeds", "0"], ["--cases", "nope"], ["--groups", "nope"]])
def test_bad_options_are_refused(argv: list[str], tmp_path: Path) -> None:
    out = tmp_path / "never-written"
    with pytest.raises(SystemExit) as exc:
        matrix.main([*argv, "--ns3-from-reference", "--out", str(out)])
    assert exc.value.code not in (0, None)
    assert not out.exists()
