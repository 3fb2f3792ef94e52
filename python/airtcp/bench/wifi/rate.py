"""Rate control, the ns-3 side: ns-3 3.44's ARF, AARF, Ideal and Minstrel (non-HT) managers and a
constant 54 Mbps control (`bench/wifi/wifi_rate.cc`) on 802.11a links and a chain under
log-distance path loss and per-frame Rayleigh fading, and the stored figures
(`bench/wifi/rate_reference.json`) that an airtcp comparison reads without running ns-3.

    python -m airtcp.bench.wifi.rate --update-reference     # every case and manager, seeds 1-3
    python -m airtcp.bench.wifi.rate --update-reference --cases link-30m --managers arf,minstrel
    python -m airtcp.bench.wifi.rate --show                 # the stored goodputs and rate mix
    python -m airtcp.bench.wifi.rate --compare              # airtcp against the stored figures
    python -m airtcp.bench.wifi.rate --cases link-15m --seeds 1 --out DIR   # ns-3 live, not stored

Runs go one at a time (`--jobs`), as every ns-3 run is a full CPU. `reference_for(case, manager)`
returns one stored entry: mean and per-seed goodput, per link and data rate the attempts and the
frames the addressee decoded (summed over seeds), and the attribute values the manager ran with.
bench/wifi/README.md ("Rate control (ns-3 side)") describes the cases and what each count means.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import chain_overrides

PROGRAM = "wifi_rate"
REFERENCE_NAME = "rate_reference.json"
DEFAULT_OUT = "bench/out/wifi-rate"
MANAGERS = ("arf", "aarf", "ideal", "minstrel", "constant")
DEFAULT_SEEDS = 3
DURATION_S = 20.0
START_S = 1.0

# The channel every case shares (the differential matrix's 802.11a, bench/wifi/matrix_cases.py).
TX_POWER_DBM = 16.0206
LOG_EXPONENT = 3.0
LOG_REFERENCE_LOSS_DB = 46.6777
# Thermal noise in 20 MHz at 290 K (ns-3's Boltzmann constant, 1.3803e-23) plus ns-3's 7 dB
# RxNoiseFigure: what its InterferenceHelper adds to every signal.
NOISE_DBM = 10 * math.log10(1.3803e-23 * 290 * 20e6) + 30 + 7.0


def mean_rx_dbm(distance_m: float) -> float:
    """Mean received power at `distance_m` (the Rayleigh draw has mean 1 in linear power)."""
    return TX_POWER_DBM - LOG_REFERENCE_LOSS_DB - 10 * LOG_EXPONENT * math.log10(distance_m)


def mean_snr_db(distance_m: float) -> float:
    return mean_rx_dbm(distance_m) - NOISE_DBM


@dataclass(frozen=True)
class RateCase:
    """One placement: a link (two nodes) or a chain, its spacing and its fading."""

    name: str
    what: str
    topology: str  # "link" or "chain"
    distance_m: float
    hops: int = 1
    fading: str = "rayleigh"
    duration_s: float = DURATION_S

    def ns3_args(self, manager: str, seed: int, duration_s: float | None = None) -> list[str]:
        """The arguments of `wifi_rate` for this case, manager and seed."""
        args = [
            f"--manager={manager}",
            f"--topology={self.topology}",
            f"--distance={self.distance_m:g}",
            f"--hops={self.hops}",
            f"--fading={self.fading}",
            f"--exponent={LOG_EXPONENT:g}",
            f"--refloss={LOG_REFERENCE_LOSS_DB:g}",
            f"--txpower={TX_POWER_DBM:g}",
            "--segment=1460",
            f"--start={START_S:g}",
            f"--duration={duration_s if duration_s is not None else self.duration_s:g}",
            f"--seed={seed}",
        ]
        return args


def _link(d: float, region: str) -> RateCase:
    return RateCase(
        name=f"link-{d:g}m",
        what=f"one hop, {d:g} m: mean SNR {mean_snr_db(d):.1f} dB ({region}), Rayleigh",
        topology="link",
        distance_m=d,
    )


# Mean SNRs against the BER-1e-6 thresholds of ns-3's NIST model (IdealWifiManager's table:
# 6 Mbps 4.5 dB, 9 7.5, 12 7.6, 18 10.5, 24 14.1, 36 17.3, 48 22.0, 54 23.3). The 6-12 Mbps band
# (4.5-10.5 dB) lies below the -82 dBm preamble-detection floor, which is a mean SNR of 12.0 dB;
# 45 m (13.7 dB) is the farthest spacing tried at which the TCP flow still runs (README).
CASES: tuple[RateCase, ...] = (
    _link(15.0, "54 Mbps region"),
    _link(20.0, "48-54 Mbps region, the chain's hop"),
    _link(30.0, "36 Mbps region, in the 24-36 band"),
    _link(45.0, "18 Mbps region, 1.7 dB above the detection floor"),
    RateCase(
        name="chain3-20m",
        what=f"chain of 3 hops, 20 m apart: mean SNR {mean_snr_db(20):.1f} dB per hop, "
        f"{mean_snr_db(40):.1f} dB two hops away, Rayleigh",
        topology="chain",
        distance_m=20.0,
        hops=3,
    ),
)


# airtcp's side: the template and, per ns-3 manager, the `radio.rate_control` kind that models it.
AIRTCP_TEMPLATE = "airtcp_rate.yaml"
AIRTCP_KIND = {
    "arf": "arf",
    "aarf": "aarf",
    "minstrel": "minstrel",
    "ideal": "snr_threshold",
    "constant": "constant",
}


def airtcp_overrides(case: RateCase, manager: str) -> list[str]:
    """The `--set` overrides that turn `bench/wifi/airtcp_rate.yaml` (link-15m, ARF) into `case`
    under the airtcp counterpart of `manager`."""
    sets = [f"topology.spacing={case.distance_m:g}m", f"radio.rate_control={{kind: {AIRTCP_KIND[manager]}}}"]
    if case.hops != 1:
        sets += chain_overrides(case.hops)
    if case.fading != "rayleigh":
        sets.append(f"radio.fading={{kind: {case.fading}}}")
    if case.duration_s != DURATION_S:
        sets.append(f"duration={case.duration_s:g}s")
    return sets


def case_by_name(name: str) -> RateCase:
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# --------------------------------------------------------------------------------------------
# The ns-3 program


def build(force: bool = False) -> Path:
    """Compiles `wifi_rate.cc` once (idempotent) into `bench/ns3/build/wifi/`."""
    from .ns3 import build_program

    return build_program(PROGRAM, force=force)


def run_ns3(case: RateCase, manager: str, seed: int, duration_s: float | None = None) -> dict[str, Any]:
    """One run of ns-3: its JSON line plus the whole command's wall and CPU time."""
    from .ns3 import run_program

    return run_program(build(), case.ns3_args(manager, seed, duration_s))


# --------------------------------------------------------------------------------------------
# Summaries over seeds


def _add_counts(total: dict[str, Any], part: dict[str, Any]) -> None:
    """Adds `part`'s integer counts into `total`, nested mappings key by key."""
    for key, value in part.items():
        if isinstance(value, dict):
            _add_counts(total.setdefault(key, {}), value)
        elif isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One case and manager over its seeds: goodput (mean and per seed, Mbit/s), per link and rate
    the counts summed over seeds (`decoded_snr_db` as the mean over the decoded frames of all
    seeds), and what the manager ran with (the same in every seed)."""
    runs = sorted(runs, key=lambda r: r["seed"])
    per_seed = [r["goodput_bps"] / 1e6 for r in runs]
    links: dict[str, Any] = {}
    for run in runs:
        for key, link in run["links"].items():
            total = links.setdefault(key, {"from": link["from"], "to": link["to"]})
            _add_counts(total, {k: v for k, v in link.items() if k not in ("from", "to")})
            for rate, counts in link["rates"].items():
                snr = counts.get("decoded_snr_db")
                if snr is not None and counts["decoded"]:
                    acc = total["rates"][rate]
                    acc["_snr_sum"] = acc.get("_snr_sum", 0.0) + snr * counts["decoded"]
    for link in links.values():
        link["rates"] = dict(sorted(link["rates"].items(), key=lambda kv: float(kv[0])))
        for counts in link["rates"].values():
            snr_sum = counts.pop("_snr_sum", None)
            counts["decoded_snr_db"] = (
                round(snr_sum / counts["decoded"], 2) if snr_sum is not None else None
            )
        link["attempts_per_mpdu"] = dict(
            sorted(link.get("attempts_per_mpdu", {}).items(), key=lambda kv: int(kv[0]))
        )
    first = runs[0]
    out: dict[str, Any] = {
        "goodput_mbps": round(sum(per_seed) / len(per_seed), 4),
        "goodput_mbps_per_seed": [round(g, 4) for g in per_seed],
        "seeds": [r["seed"] for r in runs],
        "links": dict(sorted(links.items())),
        "manager_type": first["manager_type"],
        "manager_attributes": first["manager_attributes"],
        "basic_modes": first["basic_modes"],
        "sim_wall_s_per_seed": [round(r["sim_wall_s"], 3) for r in runs],
        "cmd_wall_s_per_seed": [round(r["cmd_wall_s"], 3) for r in runs],
        "cmd_cpu_s_per_seed": [round(r["cmd_cpu_s"], 3) for r in runs],
    }
    if first["manager"] == "ideal":
        out["snr_threshold_ber"] = first["snr_threshold_ber"]
        out["snr_thresholds_db"] = first["snr_thresholds_db"]
    if "minstrel_times" in first:
        out["minstrel_times"] = first["minstrel_times"]
    return out


def rate_mix(entry: dict[str, Any], link: str | None = None) -> dict[str, dict[str, float]]:
    """Per data rate, the share of all attempts (%) and the share of them decoded (%), over the
    links of `entry` (a `reference_for` result) or over one link ("0->1")."""
    attempts: dict[str, int] = {}
    decoded: dict[str, int] = {}
    for key, counts in entry["links"].items():
        if link is not None and key != link:
            continue
        for rate, c in counts["rates"].items():
            attempts[rate] = attempts.get(rate, 0) + c["attempts"]
            decoded[rate] = decoded.get(rate, 0) + c["decoded"]
    total = sum(attempts.values()) or 1
    return {
        rate: {
            "attempt_share": 100.0 * n / total,
            "decoded_share": 100.0 * decoded[rate] / n if n else 0.0,
        }
        for rate, n in sorted(attempts.items(), key=lambda kv: float(kv[0]))
    }


# --------------------------------------------------------------------------------------------
# The reference file


def reference_path() -> Path:
    """`bench/wifi/rate_reference.json` of the checkout the command runs in."""
    from .ns3 import find_wifi_dir

    return find_wifi_dir() / REFERENCE_NAME


def load_reference(path: Path | None = None) -> dict[str, Any]:
    """The stored figures: `{"cases": {case: {..., "managers": {manager: {...}}}}}`."""
    return json.loads((path or reference_path()).read_text(encoding="utf-8"))


def reference_for(case: str, manager: str, reference: dict[str, Any] | None = None) -> dict[str, Any]:
    """The stored ns-3 entry of one case and manager (`summarise`'s fields); KeyError if absent."""
    ref = reference if reference is not None else load_reference()
    return ref["cases"][case]["managers"][manager]


def write_reference(
    results: dict[str, dict[str, dict[str, Any]]],
    seeds: int,
    wall_s: float,
    path: Path,
) -> None:
    """Stores `results` ({case: {manager: summary}}) in `path`; cases and managers already there
    and not run again are kept."""
    from airtcp.bench.harness import NS3_REQUIREMENT
    from airtcp.bench.wired import _environment

    existing: dict[str, Any] = {}
    if path.is_file():
        existing = json.loads(path.read_text(encoding="utf-8"))
    cases = existing.get("cases", {})
    for name, managers in results.items():
        case = case_by_name(name)
        entry = cases.setdefault(name, {})
        entry.update(
            {
                "what": case.what,
                "topology": case.topology,
                "hops": case.hops,
                "distance_m": case.distance_m,
                "fading": case.fading,
                "duration_s": case.duration_s,
                # The program's arguments, manager and seed left out.
                "args": case.ns3_args("MANAGER", 0)[1:-1],
                "mean_rx_dbm_one_hop": round(mean_rx_dbm(case.distance_m), 2),
                "mean_snr_db_one_hop": round(mean_snr_db(case.distance_m), 2),
                "mean_snr_db_two_hops": round(mean_snr_db(2 * case.distance_m), 2),
            }
        )
        stored = entry.setdefault("managers", {})
        stored.update(managers)
        entry["managers"] = {m: stored[m] for m in MANAGERS if m in stored}
    env = _environment()
    out = {
        "about": "ns-3 3.44 rate-control reference for airtcp (bench/wifi/README.md, 'Rate control "
        "(ns-3 side)'); regenerate with `python -m airtcp.bench.wifi.rate --update-reference`",
        "simulator": f"ns-3.44 ({NS3_REQUIREMENT}), bench/wifi/wifi_rate.cc",
        "date": datetime.date.today().isoformat(),
        "machine": {"cpu": env.get("cpu"), "cores": env.get("cores")},
        "seeds": seeds,
        "noise_dbm": round(NOISE_DBM, 2),
        "wall_s_last_update": round(wall_s, 1),
        "cases": {c.name: cases[c.name] for c in CASES if c.name in cases},
    }
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Tables


def goodput_table(reference: dict[str, Any]) -> str:
    """Markdown: mean goodput (Mbit/s) per case and manager, the seeds' range beside it."""
    names = list(MANAGERS)
    lines = [
        "| case | mean SNR per hop | " + " | ".join(names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for name, case in reference["cases"].items():
        cells = []
        for m in names:
            e = case["managers"].get(m)
            if e is None:
                cells.append("n/a")
                continue
            lo, hi = min(e["goodput_mbps_per_seed"]), max(e["goodput_mbps_per_seed"])
            cells.append(f"{e['goodput_mbps']:.2f} ({lo:.2f}-{hi:.2f})")
        lines.append(f"| `{name}` | {case['mean_snr_db_one_hop']:.1f} dB | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def mix_table(reference: dict[str, Any], min_share: float = 5.0) -> str:
    """Markdown: per case and manager, the rates that carried at least `min_share` % of the data
    attempts on all links, each as `rate: share of attempts / share decoded`."""
    lines = ["| case | manager | rates used (Mbit/s: % of attempts / % decoded) |", "|---|---|---|"]
    for name, case in reference["cases"].items():
        for m, e in case["managers"].items():
            mix = rate_mix(e)
            parts = [
                f"{rate}: {v['attempt_share']:.0f} / {v['decoded_share']:.0f}"
                for rate, v in mix.items()
                if v["attempt_share"] >= min_share
            ]
            lines.append(f"| `{name}` | {m} | {', '.join(parts)} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Command line


def _run_all(
    cases: Sequence[RateCase],
    managers: Sequence[str],
    seeds: int,
    jobs: int,
    duration_s: float | None,
) -> tuple[dict[str, dict[str, list[dict[str, Any]]]], list[str]]:
    calls = [(c, m, s) for c in cases for m in managers for s in range(1, seeds + 1)]
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {}
    errors: list[str] = []

    def record(call: tuple[RateCase, str, int], result: Any) -> None:
        case, manager, seed = call
        if isinstance(result, Exception):
            errors.append(f"{case.name} {manager} seed {seed}: {result}")
            print(f"failed: {errors[-1]}", file=sys.stderr, flush=True)
            return
        runs.setdefault(case.name, {}).setdefault(manager, []).append(result)
        print(
            f"{case.name:<12} {manager:<9} seed {seed}: {result['goodput_bps'] / 1e6:7.3f} Mbit/s "
            f"({result['cmd_wall_s']:.1f} s)",
            flush=True,
        )

    build()
    if jobs <= 1:
        for call in calls:
            try:
                result: Any = run_ns3(*call, duration_s)
            except Exception as error:  # noqa: BLE001 - one failed run does not end the others
                result = error
            record(call, result)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_ns3, *call, duration_s) for call in calls]
            for call, fut in zip(calls, futures):
                try:
                    result = fut.result()
                except Exception as error:  # noqa: BLE001
                    result = error
                record(call, result)
    return runs, errors


# Goodput, airtcp / ns-3: the target.
TARGET = 0.15


def airtcp_goodput(case: RateCase, manager: str, seeds: int = DEFAULT_SEEDS) -> dict[str, Any]:
    """airtcp's side of one case and manager, seeds 1..`seeds`: mean goodput (Mbit/s) and the
    data link n0 -> n1's attempts per rate (Mbit/s as in the reference's keys, summed)."""
    from airtcp.api import run

    from .ns3 import find_wifi_dir

    template = find_wifi_dir() / AIRTCP_TEMPLATE
    goodputs, attempts = [], {}
    for seed in range(1, seeds + 1):
        result = run(template, seed=seed, overrides=airtcp_overrides(case, manager))
        goodputs.append(result.raw["flows"][0]["goodput_bps"] / 1e6)
        for row in result.raw.get("link_rates", []):
            if (row["from"], row["to"]) == ("n0", "n1"):
                key = f"{row['rate_mbps']:g}"
                attempts[key] = attempts.get(key, 0) + row["attempts"]
    return {"goodput_mbps": sum(goodputs) / len(goodputs), "attempts": attempts}


def compare(cases: Sequence[RateCase], managers: Sequence[str], seeds: int) -> list[dict[str, Any]]:
    """airtcp against the stored ns-3 reference: a row per case and manager airtcp has."""
    ref = load_reference()
    rows = []
    for case in cases:
        for manager in managers:
            ours = airtcp_goodput(case, manager, seeds)
            theirs = reference_for(case.name, manager, ref)["goodput_mbps"]
            rows.append({
                "case": case.name, "manager": manager, "airtcp_mbps": ours["goodput_mbps"],
                "ns3_mbps": theirs, "ratio": ours["goodput_mbps"] / theirs if theirs > 0 else None,
                "attempts": ours["attempts"],
            })
    return rows


def compare_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| case | manager | airtcp Mbit/s | ns-3 Mbit/s | airtcp / ns-3 |", "|---|---|---:|---:|---:|"]
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        lines.append(f"| {r['case']} | {r['manager']} | {r['airtcp_mbps']:.3f} | {r['ns3_mbps']:.3f} | {ratio} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m airtcp.bench.wifi.rate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--managers", help=f"comma-separated managers (default: {','.join(MANAGERS)})")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeds 1..N (default 3)")
    parser.add_argument("--jobs", type=int, default=1, help="ns-3 runs at a time (default 1)")
    parser.add_argument("--duration", type=float, help="simulated seconds (default: the case's, 20)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--update-reference", action="store_true", help="store the runs in the reference")
    parser.add_argument("--show", action="store_true", help="print the stored reference's tables")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--compare", action="store_true",
                        help="run airtcp's side and compare it with the stored reference (no ns-3)")
    args = parser.parse_args(argv)
    if args.list:
        for case in CASES:
            print(f"{case.name:<12} {case.what}")
        return 0
    if args.show:
        ref = load_reference()
        print(goodput_table(ref))
        print(mix_table(ref))
        return 0
    if args.seeds < 1:
        parser.error("--seeds: must be at least 1")
    try:
        cases = [case_by_name(n) for n in args.cases.split(",")] if args.cases else list(CASES)
    except KeyError as error:
        parser.error(f"--cases: unknown case {error}")
    managers = args.managers.split(",") if args.managers else list(MANAGERS)
    unknown = [m for m in managers if m not in MANAGERS]
    if unknown:
        parser.error(f"--managers: unknown {', '.join(unknown)}")
    if args.compare:
        t0 = time.monotonic()
        rows = compare(cases, managers, args.seeds)
        print(compare_table(rows))
        print(f"airtcp's side: {len(rows) * args.seeds} runs in {time.monotonic() - t0:.1f} s")
        return 0
    if args.update_reference and args.duration is not None:
        parser.error("--update-reference stores the cases' own duration; leave --duration out")

    t0 = time.monotonic()
    runs, errors = _run_all(cases, managers, args.seeds, args.jobs, args.duration)
    wall = time.monotonic() - t0
    summaries = {c: {m: summarise(r) for m, r in ms.items()} for c, ms in runs.items()}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rate.json").write_text(
        json.dumps({"wall_s": wall, "errors": errors, "runs": runs}, indent=1) + "\n", encoding="utf-8"
    )
    view = {
        "cases": {
            c: {
                "mean_snr_db_one_hop": mean_snr_db(case_by_name(c).distance_m),
                "managers": {m: summaries[c][m] for m in MANAGERS if m in summaries[c]},
            }
            for c in summaries
        }
    }
    (out / "rate.md").write_text(goodput_table(view) + "\n" + mix_table(view), encoding="utf-8")
    print(goodput_table(view))
    print(f"{sum(len(r) for ms in runs.values() for r in ms.values())} runs in {wall:.0f} s")
    if args.update_reference:
        if errors:
            print("reference not written: some runs failed", file=sys.stderr)
        else:
            write_reference(summaries, args.seeds, wall, reference_path())
            print(f"reference written: {reference_path()}")
    for error in errors:
        print(f"failed: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
