"""The differential matrix: airtcp against ns-3 3.44 on ordinary 802.11 cases
(`matrix_cases`), goodput per case as the mean over seeds, and the stored ns-3 figures
(`bench/wifi/matrix_reference.json`) that tests and docs compare against without ns-3.

    python -m airtcp.bench.wifi.matrix                       # every case, ns-3 live, seeds 1-3
    python -m airtcp.bench.wifi.matrix --ns3-from-reference  # ns-3's stored figures (no ns-3)
    python -m airtcp.bench.wifi.matrix --cases hop1-a54-10m,star4-a54 --seeds 5
    python -m airtcp.bench.wifi.matrix --groups hidden,chain
    python -m airtcp.bench.wifi.matrix --update-reference    # ns-3 only, rewrite the reference
    python -m airtcp.bench.wifi.matrix --trace hop1-a54-10m --seed 2 --out DIR

`--trace` runs one case once in each simulator with the per-frame trace on (ns-3's `--trace`,
airtcp's `AIRTCP_FRAME_TRACE`) and prints their comparison (`frame_trace.compare_text`): frames
by kind, drops by reason, backoff draws, collisions and the distribution of channel-access gaps.

airtcp runs in this process (`airtcp.run`), ns-3 as `bench/ns3/build/wifi/wifi_matrix`; runs go
two at a time (`--jobs`). Outputs: `OUT/matrix.json` (every run) and `OUT/matrix.md` (the table).
A case is within target when airtcp's mean is within 10 % of ns-3's (`TOLERANCE`); the table says
which are not, the exit code only whether runs failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .matrix_cases import Case, all_cases

TOLERANCE = 0.10
# Cases outside TOLERANCE whose remaining gap has been traced in both simulators: within 15 %,
# with the mechanism as far as it is known (docs/validation.md).
TRACED_TOLERANCE = 0.15
TRACED = {
    "hidden-b11": (
        "the two hidden 802.11b senders overlap in 12 % of their frames in airtcp against 18 % in "
        "ns-3 (starting times spread alike over the other's frame); both simulators alternate which "
        "flow dominates, airtcp's phases last longer"
    ),
}
DEFAULT_SEEDS = 3
REFERENCE_NAME = "matrix_reference.json"
DEFAULT_OUT = "bench/out/wifi-matrix"


def reference_path() -> Path:
    """`bench/wifi/matrix_reference.json` of the checkout the command runs in."""
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / REFERENCE_NAME


def load_reference(path: Path | None = None) -> dict[str, Any]:
    """The stored ns-3 figures: `{"cases": {name: {"args": [...], "runs": {seed: {...}}}}}`."""
    return json.loads((path or reference_path()).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------------------------
# One run of each simulator


def run_airtcp_case(case: Case, seed: int, trace: str | None = None) -> dict[str, Any]:
    """airtcp on `case` with `seed`: total and per-flow goodput (bit/s) and the drops."""
    import airtcp

    previous = os.environ.get("AIRTCP_FRAME_TRACE")
    if trace:
        os.environ["AIRTCP_FRAME_TRACE"] = trace
    try:
        results = airtcp.run(case.scenario(seed))
    finally:
        if trace:
            if previous is None:
                os.environ.pop("AIRTCP_FRAME_TRACE", None)
            else:
                os.environ["AIRTCP_FRAME_TRACE"] = previous
    summary = results.summary
    flows = [float(f["goodput_bps"] or 0.0) for f in summary["flows"]]
    drops: dict[str, int] = {}
    for row in summary.get("drops") or []:
        drops[row["reason"]] = drops.get(row["reason"], 0) + int(row.get("packets", 0))
    return {
        "seed": seed,
        "goodput_bps": sum(flows),
        "flows_bps": flows,
        "drops": drops,
        "sim_wall_s": results.timing.get("wall_s"),
    }


def run_ns3_case(case: Case, seed: int, trace: str | None = None) -> dict[str, Any]:
    """ns-3 on `case` with `seed` (compiles the program once)."""
    from .ns3 import build_programs, run_program

    binary = build_programs()["wifi_matrix"]
    raw = run_program(binary, case.ns3_args(seed, trace))
    wifi = raw.get("wifi") or {}
    return {
        "seed": seed,
        "goodput_bps": raw["goodput_bps"],
        "flows_bps": [f["goodput_bps"] for f in raw["flows"]],
        "mac_drops": wifi.get("mac_drops", {}),
        "phy_rx_drops": wifi.get("phy_rx_drops", {}),
        "mac_data_failed": wifi.get("mac_data_failed"),
        "tc_drops": wifi.get("tc_drops"),
        "sim_wall_s": raw.get("sim_wall_s"),
    }


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


# --------------------------------------------------------------------------------------------
# The matrix


def _select(names: str | None, groups: str | None) -> list[Case]:
    cases = all_cases()
    if groups:
        wanted = set(groups.split(","))
        unknown = wanted - {c.group for c in cases}
        if unknown:
            raise SystemExit(f"error: --groups: unknown group(s) {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.group in wanted]
    if names:
        wanted = names.split(",")
        known = {c.name: c for c in all_cases()}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise SystemExit(f"error: --cases: unknown case(s) {', '.join(unknown)}")
        cases = [known[n] for n in wanted]
    return cases


def _pool_map(jobs: int, calls: list[tuple[Any, ...]]) -> list[Any]:
    """Runs `fn(*args)` for each `(fn, *args)`, `jobs` at a time in worker processes; an
    exception is returned in place of the result."""
    if jobs <= 1:
        out = []
        for fn, *args in calls:
            try:
                out.append(fn(*args))
            except Exception as error:  # noqa: BLE001 - one failed run does not end the others
                out.append(error)
        return out
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(fn, *args) for fn, *args in calls]
        out = []
        for fut in futures:
            try:
                out.append(fut.result())
            except Exception as error:  # noqa: BLE001
                out.append(error)
        return out


def run_matrix(
    cases: Iterable[Case],
    seeds: int,
    *,
    ns3: str = "live",
    jobs: int = 2,
    reference: dict[str, Any] | None = None,
    log: Any = None,
) -> dict[str, Any]:
    """Both simulators on `cases` for seeds 1..`seeds`. `ns3` is `live`, `reference` (the stored
    figures) or `none` (airtcp alone)."""
    cases = list(cases)
    calls: list[tuple[Any, ...]] = []
    for case in cases:
        for seed in range(1, seeds + 1):
            calls.append((run_airtcp_case, case, seed))
            if ns3 == "live":
                calls.append((run_ns3_case, case, seed))
    results = iter(_pool_map(jobs, calls))
    rows = []
    errors = []
    for case in cases:
        air, ns = [], []
        for seed in range(1, seeds + 1):
            r = next(results)
            (errors.append(f"{case.name} airtcp seed {seed}: {r}") if isinstance(r, Exception) else air.append(r))
            if ns3 == "live":
                r = next(results)
                (errors.append(f"{case.name} ns-3 seed {seed}: {r}") if isinstance(r, Exception) else ns.append(r))
            elif ns3 == "reference":
                stored = ((reference or {}).get("cases", {}).get(case.name, {}).get("runs", {})).get(str(seed))
                if stored is not None:
                    ns.append(stored)
        row = summarise(case, air, ns)
        rows.append(row)
        if log:
            log(row_text(row))
    return {"cases": rows, "errors": errors, "seeds": seeds, "ns3": ns3}


def summarise(case: Case, air: list[dict[str, Any]], ns: list[dict[str, Any]]) -> dict[str, Any]:
    """One case's row: means over seeds and their ratio."""
    a = _mean([r["goodput_bps"] for r in air])
    n = _mean([r["goodput_bps"] for r in ns])
    ratio = a / n if a is not None and n else None
    tolerance = TRACED_TOLERANCE if case.name in TRACED else TOLERANCE
    return {
        "case": case.name,
        "group": case.group,
        "what": case.what,
        "airtcp_bps": a,
        "ns3_bps": n,
        "ratio": ratio,
        "tolerance": tolerance,
        "within": None if ratio is None else abs(ratio - 1.0) <= tolerance,
        "airtcp_runs": air,
        "ns3_runs": ns,
    }


def row_text(row: dict[str, Any]) -> str:
    def mbps(v: float | None) -> str:
        return "n/a" if v is None else f"{v / 1e6:7.3f}"

    ratio = "n/a" if row["ratio"] is None else f"{row['ratio']:.3f}"
    flag = "" if row["within"] in (None, True) else "  MISS"
    return f"{row['case']:<22} airtcp {mbps(row['airtcp_bps'])}  ns-3 {mbps(row['ns3_bps'])}  ratio {ratio}{flag}"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| case | what | airtcp Mbit/s | ns-3 Mbit/s | airtcp / ns-3 |",
        "|---|---|---:|---:|---:|",
    ]
    for row in report["cases"]:
        a = "n/a" if row["airtcp_bps"] is None else f"{row['airtcp_bps'] / 1e6:.3f}"
        n = "n/a" if row["ns3_bps"] is None else f"{row['ns3_bps'] / 1e6:.3f}"
        r = "n/a" if row["ratio"] is None else f"{row['ratio']:.3f}"
        if row["within"] is False:
            r = f"**{r}**"
        lines.append(f"| `{row['case']}` | {row['what']} | {a} | {n} | {r} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# The reference file


def write_reference(report: dict[str, Any], cases: Sequence[Case], path: Path) -> None:
    """Stores ns-3's runs of `cases` in `path` (other cases already there are kept)."""
    existing: dict[str, Any] = {}
    if path.is_file():
        existing = json.loads(path.read_text(encoding="utf-8"))
    stored = existing.get("cases", {})
    by_name = {c.name: c for c in cases}
    for row in report["cases"]:
        case = by_name[row["case"]]
        stored[case.name] = {
            "args": case.ns3_args(0)[:-1],
            "goodput_bps": row["ns3_bps"],
            "runs": {
                str(r["seed"]): {k: v for k, v in r.items() if k != "sim_wall_s"} for r in row["ns3_runs"]
            },
        }
    out = {
        "simulator": "ns-3.44 (PyPI wheel ns3==3.44.post0), bench/wifi/wifi_matrix.cc",
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "seeds": report["seeds"],
        "cases": dict(sorted(stored.items())),
    }
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Command line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.wifi.matrix", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--groups", help="comma-separated groups: one_hop,star,hidden,chain,cross,udp")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds 1..N (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--ns3-from-reference", action="store_true", help="ns-3's stored figures instead of running it")
    parser.add_argument("--update-reference", action="store_true", help="run ns-3 only and rewrite the reference")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--trace", metavar="CASE", help="trace one case in both simulators and compare")
    parser.add_argument("--seed", type=int, default=1, help="the seed of --trace (default 1)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds: must be at least 1")
    if args.list:
        for case in all_cases():
            print(f"{case.name:<22} {case.group:<8} {case.what}")
        return 0
    out = Path(args.out)
    if args.trace:
        from .frame_trace import compare_text

        case = _select(args.trace, None)[0]
        out.mkdir(parents=True, exist_ok=True)
        ns_path, air_path = out / f"{case.name}.ns3.trace", out / f"{case.name}.airtcp.trace"
        ns = run_ns3_case(case, args.seed, str(ns_path))
        air = run_airtcp_case(case, args.seed, str(air_path))
        print(f"{case.name} seed {args.seed}: airtcp {air['goodput_bps'] / 1e6:.3f} Mbit/s, "
              f"ns-3 {ns['goodput_bps'] / 1e6:.3f} Mbit/s")
        print(compare_text(ns_path, air_path, case))
        return 0
    cases = _select(args.cases, args.groups)
    out.mkdir(parents=True, exist_ok=True)

    def log(text: str) -> None:
        print(text, flush=True)

    if args.update_reference:
        from .ns3 import build_programs

        build_programs()
        calls = [(run_ns3_case, c, s) for c in cases for s in range(1, args.seeds + 1)]
        results = iter(_pool_map(args.jobs, calls))
        rows, errors = [], []
        for case in cases:
            ns = []
            for seed in range(1, args.seeds + 1):
                r = next(results)
                (errors.append(f"{case.name} seed {seed}: {r}") if isinstance(r, Exception) else ns.append(r))
            row = summarise(case, [], ns)
            rows.append(row)
            log(row_text(row))
        report = {"cases": rows, "errors": errors, "seeds": args.seeds, "ns3": "live"}
        if not errors:
            write_reference(report, cases, reference_path())
            print(f"reference written: {reference_path()}")
    else:
        mode = "reference" if args.ns3_from_reference else "live"
        if mode == "live":
            from .ns3 import build_programs

            build_programs()
        reference = load_reference() if mode == "reference" else None
        report = run_matrix(cases, args.seeds, ns3=mode, jobs=args.jobs, reference=reference, log=log)
    (out / "matrix.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (out / "matrix.md").write_text(markdown(report), encoding="utf-8")
    for error in report["errors"]:
        print(f"failed: {error}", file=sys.stderr)
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
