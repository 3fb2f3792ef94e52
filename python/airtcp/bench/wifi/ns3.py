"""The ns-3 side: finding and compiling the programs of `bench/wifi/`, running one, the figures
of its runs, and the stored reference file."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.harness import (
    TCP_HEADER,
    BenchError,
    compile_ns3_program,
    json_result,
    tail,
    timed,
)
from airtcp.bench.wired import _mean

from .common import _round, seed_runs

PROGRAMS = ("wifi_chain", "wifi_grid", "wifi_saturation", "wifi_matrix")
WIFI_LIBS = (
    "aodv",
    "wifi",
    "mobility",
    "propagation",
    "applications",
    "internet",
    "traffic-control",
    "network",
    "core",
)
REFERENCE_FILE = "ns3_reference.json"


def find_wifi_dir() -> Path:
    """The `bench/wifi/` folder of the airtcp source checkout the command runs in (a developer
    tool, not in the installed package: see `airtcp.bench.wired.find_bench_dir`)."""
    candidate = Path.cwd() / "bench" / "wifi"
    if all((candidate / f"{name}.cc").is_file() for name in PROGRAMS):
        return candidate
    raise BenchError(
        "cannot find bench/wifi/*.cc; the benchmarks run from the root of an airtcp source checkout"
    )


def build_programs(wifi_dir: Path | None = None, *, force: bool = False) -> dict[str, Path]:
    """Compiles the programs once (idempotent); returns their binaries by name.

    They share the ns-3 unpacked for the wired benchmark under `bench/ns3/build/` and are
    compiled into `bench/ns3/build/wifi/`, so one `rm -rf bench/ns3/build` removes everything.
    """
    wifi_dir = wifi_dir or find_wifi_dir()
    return {name: build_program(name, wifi_dir, force=force) for name in PROGRAMS}


def build_program(name: str, wifi_dir: Path | None = None, *, force: bool = False) -> Path:
    """Compiles one of `PROGRAMS` once (idempotent, as `build_programs`); returns its binary."""
    wifi_dir = wifi_dir or find_wifi_dir()
    build_dir = wifi_dir.parent / "ns3" / "build"
    depends = [wifi_dir / "wifi_common.h"]
    if name == "wifi_chain":
        # wifi_chain.cc also includes the TCP pieces it shares with the wired program.
        depends.append(wifi_dir.parent / "ns3" / TCP_HEADER)
    return compile_ns3_program(
        wifi_dir / f"{name}.cc",
        build_dir / "wifi" / name,
        build_dir,
        libs=WIFI_LIBS,
        depends=depends,
        force=force,
    )


def run_program(binary: Path, args: Sequence[str]) -> dict[str, Any]:
    """One run; its JSON line plus the whole command's wall and CPU time."""
    cmd = [str(binary), *args]
    proc, wall, cpu = timed(cmd)
    if proc.returncode != 0:
        raise BenchError(
            f"{binary.name} {' '.join(args)} exited with {proc.returncode}: "
            f"{tail(proc.stderr or proc.stdout)}"
        )
    result = json_result(proc.stdout, binary.name)
    result["cmd_wall_s"] = wall
    result["cmd_cpu_s"] = cpu
    result["args"] = list(args)
    return result


def program_runs(
    binary: Path,
    what: str,
    seeds: int,
    args: Callable[[int], list[str]],
    errors: list[str],
) -> list[dict[str, Any]]:
    """`binary` with `args(seed)` for seeds 1..seeds; the runs that succeeded."""
    return seed_runs(what, seeds, lambda seed: run_program(binary, args(seed)), errors)


def collect_params(binary: Path, standard: str = "11b") -> dict[str, Any]:
    """The attribute values ns-3 runs with, from a short one-hop chain run (node 0's device);
    `standard` "11a" for 802.11a's (at 54 Mbps)."""
    args = ["--hops=1", "--duration=2", "--params=1"]
    if standard != "11b":
        args.append(f"--standard={standard}")
    result = run_program(binary, args)
    return result["params"]


def load_reference(wifi_dir: Path) -> dict[str, Any]:
    path = wifi_dir / REFERENCE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BenchError(f"cannot read {path}: {error}") from error


# --------------------------------------------------------------------------------------------
# Figures of the runs


def _wifi(run: dict[str, Any], key: str) -> Any:
    return (run.get("wifi") or {}).get(key)


def _mac_drops(run: dict[str, Any], reason: str) -> int:
    return int(((run.get("wifi") or {}).get("mac_drops") or {}).get(reason, 0))


def _common_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """MAC and cost figures, means over seeds."""
    return {
        "frames_tx": _round(_mean(_wifi(r, "frames_tx") for r in runs)),
        # Every unacknowledged data frame; those not followed by a drop were retransmitted.
        "mac_data_failed": _round(_mean(_wifi(r, "mac_data_failed") for r in runs)),
        "mac_rts_failed": _round(_mean(_wifi(r, "mac_rts_failed") for r in runs)),
        "mac_retry_drops": _round(_mean(_mac_drops(r, "reached_retry_limit") for r in runs)),
        "mac_expired_drops": _round(_mean(_mac_drops(r, "expired_lifetime") for r in runs)),
        "mac_enqueue_drops": _round(
            _mean(_mac_drops(r, "failed_enqueue") + int(_wifi(r, "tc_drops") or 0) for r in runs)
        ),
        "mac_queue_peak": max((int(_wifi(r, "mac_queue_peak") or 0) for r in runs), default=None),
        "events": _round(_mean(r.get("events") for r in runs), 0),
        "sim_wall_s": _round(_mean(r.get("sim_wall_s") for r in runs), 3),
        "cmd_wall_s": _round(_mean(r.get("cmd_wall_s") for r in runs), 3),
        # Far less disturbed than wall time when other work shares the machine.
        "cmd_cpu_s": _round(_mean(r.get("cmd_cpu_s") for r in runs), 3),
        "peak_rss_kib": max((int(r.get("peak_rss_kib") or 0) for r in runs), default=None),
    }


def _ns3_figures(
    summary: dict[str, Any], per_seed: list[float | None], seeds: int
) -> dict[str, Any]:
    """ns-3's goodput over seeds 1..seeds and its cost (means over the seeds it was run with)."""
    chosen = per_seed[:seeds]
    return {
        "goodput_kbps": _mean(chosen),
        "goodput_kbps_per_seed": chosen,
        "sim_wall_s": summary.get("sim_wall_s"),
        "cmd_wall_s": summary.get("cmd_wall_s"),
        "cmd_cpu_s": summary.get("cmd_cpu_s"),
        "events": summary.get("events"),
        "peak_rss_kib": summary.get("peak_rss_kib"),
    }


def _response_mode(runs: Iterable[dict[str, Any]], frame: str) -> str | None:
    """The rate ns-3 actually used for a control frame (`CTL_ACK`, `CTL_CTS`) in these runs."""
    for run in runs:
        for key in (run.get("wifi") or {}).get("frame_kinds", {}):
            parts = key.split()
            if parts and parts[0] == frame:
                return parts[2]
    return None
