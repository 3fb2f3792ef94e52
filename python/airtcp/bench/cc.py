"""Benchmark: airtcp's TCP variants against ns-3 3.44's on the wired point-to-point case.

One bulk flow over 2 Mbps / 20 ms with a 1 % packet error rate on the data direction for 200 s
(bench/p2p_bench.yaml and bench/ns3/p2p_tcp.cc, as in `airtcp.bench.wired`), once per congestion
control that both simulators have, seeds 1..N each, both run in this benchmark run, with the same
loss recovery on both sides (PRR, ns-3's default, unless `--recovery classic`). It prints
each variant's mean goodput in both and their ratio against the ±15 % target, and the speed
ratio. A missed target is reported, not an error; the exit code is non-zero only if a run failed
or an option was wrong.

Each row pairs an airtcp `cc` with an ns-3 socket type and sets their parameters alike
(`VARIANTS`). ns-3's TcpVegas defaults to alpha 2, beta 4 (ns-2 and airtcp: 1 and 3), and its
TcpCubic runs HyStart by default, which RFC 9438 leaves optional and airtcp's `cubic` runs only
when asked (`cubic: {hystart: ...}`): both are set to airtcp's defaults on the ns-3 command line
(HyStart has its own comparison, `--linux`). ns-3's TcpLinuxReno and TcpCubic take
ssthresh from cwnd, as Linux does, so airtcp runs them with `ssthresh_basis: cwnd` (NewReno and
Vegas keep the benchmark's `pipe`). Variants airtcp does not have yet are skipped with a note.

`--linux` runs the comparison of the Linux TCP pieces instead (BBR v1, PRR, Cubic's HyStart;
`airtcp.bench.linux_tcp`, which takes the other options).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from airtcp.bench import wired as bench


@dataclass(frozen=True)
class Variant:
    """One congestion control in both simulators."""

    name: str
    airtcp_cc: str
    ns3_cc: str
    ns3_args: tuple[str, ...] = ()
    airtcp_sets: tuple[str, ...] = ()


# ns-3's TcpLinuxReno and TcpCubic compute ssthresh from cwnd (max(cwnd / 2, 2 segments) and
# max(cwnd x beta, 2 segments), as Linux does), not from the bytes in flight TcpNewReno halves:
# airtcp's `ssthresh_basis: cwnd` is that rule (the benchmark's default, `pipe`, is NewReno's).
CWND_BASIS = ("flows[0].transport.ssthresh_basis=cwnd",)

VARIANTS = (
    Variant("newreno", "newreno", "newreno"),
    Variant("linuxreno", "linux_reno", "linuxreno", airtcp_sets=CWND_BASIS),
    Variant(
        "vegas",
        "vegas",
        "vegas",
        ("--ns3::TcpVegas::Alpha=1", "--ns3::TcpVegas::Beta=3", "--ns3::TcpVegas::Gamma=1"),
    ),
    Variant("cubic", "cubic", "cubic", ("--ns3::TcpCubic::HyStart=false",), CWND_BASIS),
)

TARGET = 0.15
PER = 0.01

# ns-3 3.44's mean goodputs (kbit/s) for VARIANTS on this case with its default PRR recovery, seeds
# 1-5 x 200 s, as measured by this benchmark on 2026-11-29 (bench/README.md): the stored reference
# of docs/validation.md. With classic recovery (2026-11-22): 1115.6, 1738.4, 959.9 and 1684.7.
REFERENCE_NS3_KBPS = {"newreno": 1153.2, "linuxreno": 1782.0, "vegas": 959.4, "cubic": 1706.0}


def _airtcp_ccs() -> set[str]:
    """The `cc` values this airtcp accepts."""
    from airtcp.scenario import schema as config

    annotation = config.TcpTransport.model_fields["cc"].annotation
    return set(getattr(annotation, "__args__", ()))


def _mean(values: Sequence[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return statistics.fmean(xs) if xs else None


def run(
    out: Path,
    seeds: int,
    duration_s: float,
    names: Sequence[str] | None,
    recovery: str = bench.DEFAULT_RECOVERY,
) -> dict[str, Any]:
    """Runs the comparison with `recovery` (`prr` or `classic`) in both simulators; returns the
    report (also written to OUT/bench_cc.json)."""
    bench_dir = bench.find_bench_dir()
    binary = bench.build_ns3(bench_dir)
    scenario = bench_dir / "p2p_bench.yaml"
    command = bench.airtcp_command()
    available = _airtcp_ccs()
    rows: list[dict[str, Any]] = []
    for variant in VARIANTS:
        if names is not None and variant.name not in names:
            continue
        if variant.airtcp_cc not in available:
            rows.append({"variant": variant.name, "skipped": f"airtcp has no cc {variant.airtcp_cc!r} yet"})
            print(f"{variant.name}: skipped (airtcp has no cc {variant.airtcp_cc!r} yet)", file=sys.stderr)
            continue
        ns3_runs, airtcp_runs = [], []
        for seed in range(1, seeds + 1):
            print(f"{variant.name} seed {seed} ...", file=sys.stderr)
            ns3_runs.append(
                bench.run_ns3(
                    binary, PER, duration_s, seed, recovery, extra=[f"--cc={variant.ns3_cc}", *variant.ns3_args]
                )
            )
            airtcp_runs.append(
                bench.run_airtcp(
                    command,
                    scenario,
                    out / "runs" / variant.name / f"seed-{seed}",
                    PER,
                    duration_s,
                    seed,
                    sets=[f"flows[0].transport.cc={variant.airtcp_cc}", *variant.airtcp_sets],
                    recovery=recovery,
                )
            )
        a = _mean([r["goodput_bps"] for r in airtcp_runs])
        n = _mean([r["goodput_bps"] for r in ns3_runs])
        ratio = a / n if a is not None and n else None
        a_wall = _mean([r.get("sim_wall_s") for r in airtcp_runs])
        n_wall = _mean([r.get("sim_wall_s") for r in ns3_runs])
        rows.append(
            {
                "variant": variant.name,
                "airtcp_cc": variant.airtcp_cc,
                "ns3_cc": variant.ns3_cc,
                "ns3_args": list(variant.ns3_args),
                "airtcp_kbps": a / 1e3 if a is not None else None,
                "ns3_kbps": n / 1e3 if n is not None else None,
                "ratio": ratio,
                "goodput_ok": ratio is not None and abs(ratio - 1) <= TARGET,
                "airtcp_sim_s": a_wall,
                "ns3_sim_s": n_wall,
                "speed": n_wall / a_wall if a_wall and n_wall else None,
                "runs": {"airtcp": airtcp_runs, "ns3": ns3_runs},
            }
        )
    report = {
        "case": f"p2p 2 Mbps / 20 ms, PER {PER}, {duration_s:g} s, seeds 1..{seeds}, {recovery} recovery in both",
        "recovery": recovery,
        "target": f"goodput ratio within 1 ± {TARGET}",
        "rows": rows,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_cc.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (out / "bench_cc.md").write_text(format_table(report) + "\n", encoding="utf-8")
    return report


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def format_table(report: dict[str, Any]) -> str:
    """The report as a markdown table."""
    lines = [
        f"airtcp vs ns-3 3.44, TCP variants: {report['case']}; target: {report['target']}",
        "",
        "| variant | airtcp kbps | ns-3 kbps | ratio | target | sim airtcp s | sim ns-3 s | speed x |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for row in report["rows"]:
        if "skipped" in row:
            lines.append(f"| {row['variant']} | - | - | - | {row['skipped']} | - | - | - |")
            continue
        lines.append(
            f"| {row['variant']} | {_fmt(row['airtcp_kbps'], '.1f')} | {_fmt(row['ns3_kbps'], '.1f')} | "
            f"{_fmt(row['ratio'], '.3f')} | {'ok' if row['goodput_ok'] else 'MISS'} | "
            f"{_fmt(row['airtcp_sim_s'], '.3f')} | {_fmt(row['ns3_sim_s'], '.2f')} | {_fmt(row['speed'], '.0f')} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if "--linux" in args_in:
        # BBR v1, PRR and Cubic's HyStart against ns-3 (airtcp.bench.linux_tcp), with its options.
        from airtcp.bench import linux_tcp

        return linux_tcp.main([a for a in args_in if a != "--linux"])
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.cc", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--linux",
        action="store_true",
        help="compare BBR v1, PRR and Cubic's HyStart instead (airtcp.bench.linux_tcp; the other "
        "options are then its own: --linux --help lists them)",
    )
    parser.add_argument("--out", default="bench/out/cc", help="output folder (default bench/out/cc)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per variant (default 5)")
    parser.add_argument("--duration", type=float, default=200.0, help="simulated seconds (default 200)")
    parser.add_argument("--variants", help="comma-separated subset of " + ",".join(v.name for v in VARIANTS))
    parser.add_argument("--quick", action="store_true", help="20 s, one seed: a smoke run")
    parser.add_argument(
        "--recovery",
        choices=bench.RECOVERIES,
        default=bench.DEFAULT_RECOVERY,
        help="loss recovery in both simulators: prr (ns-3's default TcpPrrRecovery, airtcp "
        "recovery=prr; the default) or classic (TcpClassicRecovery, airtcp recovery=classic)",
    )
    args = parser.parse_args(args_in)
    names = None
    if args.variants:
        names = [n.strip() for n in args.variants.split(",") if n.strip()]
        unknown = sorted(set(names) - {v.name for v in VARIANTS})
        if unknown:
            parser.error(f"--variants: unknown {', '.join(unknown)}")
    if args.seeds < 1 or args.duration <= 0:
        parser.error("--seeds must be >= 1 and --duration > 0")
    seeds, duration = (1, 20.0) if args.quick else (args.seeds, args.duration)
    try:
        report = run(Path(args.out), seeds, duration, names, args.recovery)
    except bench.BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
