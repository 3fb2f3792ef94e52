"""The command line: `python -m airtcp.bench.wifi ARGS` (`make bench-wifi`), or `main([...])`."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airtcp.bench.harness import BenchError, log

from .benchmark import QUICK_BENCH_HOPS, QUICK_BENCH_HOPS_11A, run_benchmark
from .chain import DEFAULT_RECOVERY, QUICK_CHAIN_DURATION_S, RECOVERIES
from .common import DEFAULT_OUT, FULL_SEEDS, QUICK_SEEDS
from .ns3 import build_programs
from .reference import CASES, run_reference, update_reference_file
from .report import print_bench, print_report
from .scale import DEFAULT_SCALE_SIZES, QUICK_SCALE_DURATION_S, SCALE_SIZES
from .templates import BENCH_CASES


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


# 802.11a's data rates (Mbps).
OFDM_RATES = (6, 9, 12, 18, 24, 36, 48, 54)


def _rate_list(text: str) -> list[int]:
    rates = _int_list(text)
    wrong = [r for r in rates if r not in OFDM_RATES]
    if wrong or not rates:
        raise argparse.ArgumentTypeError(
            f"802.11a rates are {', '.join(map(str, OFDM_RATES))} (Mbps); got {text!r}"
        )
    return rates


def _name_list(text: str) -> list[str]:
    names = [c.strip() for c in text.split(",") if c.strip()]
    known = set(BENCH_CASES) | set(CASES)
    unknown = [c for c in names if c not in known]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown case(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi",
        description="airtcp against ns-3 3.44 on TCP over multi-hop 802.11b (chains, a 10x10 "
        "AODV grid) and 802.11a (chains at 54 and 24 Mbps), and airtcp alone on a 10,000-node "
        "mesh; with --ns3-only, the ns-3 reference runs alone (chain, grid, saturation, "
        "chain11a, saturation11a). See bench/wifi/README.md.",
    )
    parser.add_argument(
        "--cases",
        type=_name_list,
        help="comma-separated; benchmark: chain,chain11a,grid,scale (default all); with "
        "--ns3-only: chain,grid,saturation,chain11a,saturation11a (default all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run, one seed: benchmark chains N={','.join(map(str, QUICK_BENCH_HOPS))}, "
        f"802.11a chains N={','.join(map(str, QUICK_BENCH_HOPS_11A))} at 54 Mbps and the grid "
        f"for {QUICK_CHAIN_DURATION_S:g} s (100 s with --ns3-from-reference), the mesh for "
        f"{QUICK_SCALE_DURATION_S:g} s; --ns3-only: chain N=1,2,4 for 20 s, grid 20 s, "
        "saturation N=1,5 at 2 Mbps for 5 s, 802.11a chain N=1,2 at 54 Mbps for 20 s and "
        "saturation N=1,5 at 54 Mbps for 5 s",
    )
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument(
        "--seeds", type=int, help=f"seeds 1..N (default {FULL_SEEDS}, quick {QUICK_SEEDS})"
    )
    parser.add_argument(
        "--hops", type=_int_list, help="chain hop counts (802.11b and 802.11a chains), e.g. 3,6"
    )
    parser.add_argument(
        "--rates",
        type=_rate_list,
        help="802.11a data rates in Mbps (chain11a default 54,24; saturation11a 6,24,54)",
    )
    parser.add_argument(
        "--ns3-from-reference",
        action="store_true",
        help="do not run ns-3: compare with the figures stored in bench/wifi/ns3_reference.json",
    )
    parser.add_argument(
        "--recovery",
        choices=RECOVERIES,
        help="benchmark: TCP loss recovery in both simulators, prr (ns-3's default "
        "TcpPrrRecovery; the templates' recovery: prr; the default) or classic (ns-3's "
        "TcpClassicRecovery; airtcp's flows set to recovery: classic). With "
        "--ns3-from-reference, classic has stored ns-3 figures for the 802.11b chain only",
    )
    parser.add_argument(
        "--ns3-only",
        action="store_true",
        help="run only ns-3's reference cases and write ns3_wifi.json/md (no airtcp)",
    )
    parser.add_argument(
        "--stations", type=_int_list, help="saturation station counts (--ns3-only), e.g. 1,5"
    )
    parser.add_argument(
        "--update-reference",
        action="store_true",
        help="run ns-3's reference cases (implies --ns3-only) and rewrite "
        "bench/wifi/ns3_reference.json (full runs only)",
    )
    parser.add_argument(
        "--scale-sizes",
        type=_scale_sizes,
        help="the scale case's mesh sizes in nodes, comma-separated, of "
        f"{','.join(map(str, SCALE_SIZES))} (default {','.join(map(str, DEFAULT_SCALE_SIZES))}); "
        "100000 takes about 10 minutes and 4 GB, 1000000 much more",
    )
    parser.add_argument(
        "--scale-baseline",
        metavar="REV",
        help="the scale case also runs each mesh with the core of git revision REV (built once "
        "in a worktree under --out, as python -m airtcp.bench.ab does) and reports the ratios",
    )
    parser.add_argument("--build", action="store_true", help="only compile the programs, then exit")
    return parser


def _scale_sizes(text: str) -> list[int]:
    sizes = _int_list(text)
    wrong = [n for n in sizes if n not in SCALE_SIZES]
    if wrong or not sizes:
        raise argparse.ArgumentTypeError(
            f"scale sizes are {', '.join(map(str, SCALE_SIZES))} (nodes); got {text!r}"
        )
    return sizes


def _cases(args: argparse.Namespace, known: Sequence[str]) -> tuple[list[str], list[str]]:
    """The cases asked for (all of `known` by default) and those among them not in `known`."""
    cases = args.cases or list(known)
    return cases, [c for c in cases if c not in known]


def _run_options(args: argparse.Namespace, cases: list[str]) -> dict[str, Any]:
    """The options `run_reference` and `run_benchmark` both take."""
    return {
        "cases": cases,
        "quick": args.quick,
        "out": args.out,
        "seeds": args.seeds,
        "hops": args.hops,
        "rates": args.rates,
    }


def _main_reference(args: argparse.Namespace) -> int:
    """--ns3-only / --update-reference: the ns-3 reference runs alone."""
    cases, wrong = _cases(args, CASES)
    if wrong:
        log(f"error: --ns3-only runs {', '.join(CASES)}; not {', '.join(wrong)}")
        return 2
    if args.recovery:
        # The reference's runs are fixed: the chain with both recoveries, the rest with PRR.
        log("error: --recovery is the benchmark's; the reference runs set their own (chain: PRR "
            "and classic; grid, chain11a: PRR)")
        return 2
    reduced = (
        args.quick
        or args.hops
        or args.stations
        or args.rates
        or args.seeds not in (None, FULL_SEEDS)
    )
    if args.update_reference and reduced:
        # The committed reference is always the full set, so tests can rely on its shape.
        log(
            "error: --update-reference needs a full run (no --quick/--hops/--stations/--rates/"
            "--seeds)"
        )
        return 2
    report, all_ok = run_reference(**_run_options(args, cases), stations=args.stations)
    print_report(report)
    out = Path(args.out)
    written = [out / "ns3_wifi.json", out / "ns3_wifi.md"]
    if args.update_reference:
        if not all_ok:
            log("error: some runs failed; the reference file was left unchanged")
            return 1
        written.append(update_reference_file(report, cases))
    print("written: " + ", ".join(str(p) for p in written))
    return 0 if all_ok else 1


def _main_bench(args: argparse.Namespace) -> int:
    cases, wrong = _cases(args, BENCH_CASES)
    if wrong:
        log(
            f"error: the benchmark runs {', '.join(BENCH_CASES)}; {', '.join(wrong)} only with "
            "--ns3-only"
        )
        return 2
    if args.stations:
        log("error: --stations is for the saturation case, which only --ns3-only runs")
        return 2
    if (args.scale_sizes or args.scale_baseline) and "scale" not in cases:
        log("error: --scale-sizes and --scale-baseline are the scale case's; add it to --cases")
        return 2
    report, all_ok = run_benchmark(
        **_run_options(args, cases),
        ns3_from_reference=args.ns3_from_reference,
        recovery=args.recovery or DEFAULT_RECOVERY,
        scale_sizes=args.scale_sizes,
        scale_baseline=args.scale_baseline,
    )
    print_bench(report)
    out = Path(args.out)
    print(f"written: {out / 'bench_wifi.json'}, {out / 'bench_wifi.md'}")
    return 0 if all_ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m airtcp.bench.wifi ARGS`, or `main([...])` from Python.

    The exit code is non-zero only if a run failed or the options were wrong; missed targets are
    reported, not failures.
    """
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:  # --help, or a usage error already printed
        return stop.code if isinstance(stop.code, int) else 2
    if args.ns3_from_reference and (args.ns3_only or args.update_reference):
        log("error: --ns3-from-reference compares airtcp with stored figures; it runs no ns-3")
        return 2
    try:
        if args.build:
            for path in build_programs().values():
                print(path)
            return 0
        if args.ns3_only or args.update_reference:
            return _main_reference(args)
        return _main_bench(args)
    except (BenchError, subprocess.TimeoutExpired) as error:
        log(f"error: {error}")
        return 1
