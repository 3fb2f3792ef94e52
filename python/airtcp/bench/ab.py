"""Benchmark: this checkout's simulation loop against another build's, in the same run.

`python -m airtcp.bench.ab --baseline REV` (`make bench-ab BASE=REV`) builds the core of git
revision REV beside this checkout (a detached worktree and its own cargo target folder under
`--out`, kept for the next run), then runs the same cases with both builds, alternating them
round by round so that other load on the machine falls on both alike. Each build runs with its
own Python front end and its own scenario files, so a change of the scenario schema between the
two does not matter.

It prints, per case, the median events per second of the simulation loop (`timing.json`) of each
build and their ratio (this checkout / baseline), and whether the two builds' results are the
same (`summary.json` without its echo of the scenario, which grows with the schema): a refactor
meant to keep behaviour must keep both the results and, within a few per cent, the speed. A benchmark, not a test: it fails only when a build or a run fails.

Cases: the wired benchmark's point-to-point link (bench/p2p_bench.yaml, PER 0 and 0.01), the
802.11b chains of the wifi benchmark (3 and 7 hops) and its 10,000-node mesh
(bench/wifi/airtcp_mesh.yaml), as the benchmarks run them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from airtcp.bench.tables import text_table


@dataclass(frozen=True)
class Case:
    """One scenario of a checkout, with `--set` overrides."""

    name: str
    scenario: str  # relative to the checkout's root
    sets: tuple[str, ...] = ()


CASES = (
    Case("p2p PER 0", "bench/p2p_bench.yaml", ("links[0].loss.per=0",)),
    Case("p2p PER 0.01", "bench/p2p_bench.yaml", ("links[0].loss.per=0.01",)),
    Case("chain 3 hops", "bench/wifi/airtcp_chain.yaml"),
    Case("chain 7 hops", "bench/wifi/airtcp_chain.yaml", ("topology.hops=7", "flows[0].dst=n7")),
    Case("mesh 10,000 nodes", "bench/wifi/airtcp_mesh.yaml"),
)


class AbError(RuntimeError):
    """A build or a run that failed."""


class BadOption(AbError):
    """An option that cannot work (exit code 2, nothing built)."""


@dataclass(frozen=True)
class Build:
    """A checkout whose `python/airtcp` holds its compiled core."""

    label: str
    root: Path

    def command(self) -> list[str]:
        """The command that runs this checkout's `airtcp` (its package on the path)."""
        return ["env", f"PYTHONPATH={self.root / 'python'}", sys.executable, "-m", "airtcp"]

    def run(self, case: Case, out: Path) -> tuple[float, str]:
        """Runs `case`; its loop's events per second and the digest of its summary.json."""
        command = [sys.executable, "-m", "airtcp", "run", str(self.root / case.scenario), "--out", str(out),
                   "--force", "--quiet"]
        for item in case.sets:
            command += ["--set", item]
        env = {**os.environ, "PYTHONPATH": str(self.root / "python")}
        proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=self.root)
        if proc.returncode != 0:
            raise AbError(f"{self.label}: {case.name}: airtcp run exited {proc.returncode}: {proc.stderr.strip()}")
        timing = json.loads((out / "timing.json").read_text(encoding="utf-8"))
        return float(timing["events_per_s"]), results_digest(out / "summary.json")


def results_digest(summary: Path) -> str:
    """The digest of a run's results: its summary.json without the echo of its scenario, which
    gains a field (null when unused) whenever the schema does, while the results stay the same."""
    data = json.loads(summary.read_text(encoding="utf-8"))
    data.pop("scenario", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AbError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def build_baseline(repo: Path, rev: str, out: Path) -> Build:
    """The core of `rev`, built in a worktree under `out` (reused when already built)."""
    try:
        commit = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except AbError:
        raise BadOption(f"--baseline: {rev!r} is no git revision of this repository") from None
    root = out / f"baseline-{commit[:12]}"
    core = root / "python" / "airtcp" / "_core.abi3.so"
    if not core.is_file():
        if root.exists():
            _git(repo, "worktree", "remove", "--force", str(root))
        _git(repo, "worktree", "add", "--detach", str(root), commit)
        print(f"building the core of {rev} ({commit[:12]}) in {root} ...", file=sys.stderr, flush=True)
        # As maturin builds it: the release profile, PyO3 as an extension module.
        proc = subprocess.run(
            ["cargo", "build", "--release", "-q", "-p", "airtcp-py", "--features", "pyo3/extension-module"],
            cwd=root, env={**os.environ, "CARGO_TARGET_DIR": str(root / "target")},
        )
        if proc.returncode != 0:
            raise AbError(f"building the core of {rev} failed (cargo exited {proc.returncode})")
        shutil.copyfile(root / "target" / "release" / "lib_core.so", core)
    return Build(f"{rev} ({commit[:12]})", root)


def compare(current: Build, baseline: Build, cases: Sequence[Case], rounds: int) -> list[dict[str, object]]:
    """Per case: both builds' median events/s over `rounds` alternating runs, and whether their
    results are the same (`results_digest`)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="airtcp-ab-") as tmp:
        for case in cases:
            speeds: dict[str, list[float]] = {current.label: [], baseline.label: []}
            digests: dict[str, set[str]] = {current.label: set(), baseline.label: set()}
            for n in range(rounds):
                # Alternate which build goes first, so that neither always runs on a warm cache.
                for build in (current, baseline) if n % 2 == 0 else (baseline, current):
                    print(f"{case.name}: round {n + 1}/{rounds}: {build.label} ...", file=sys.stderr, flush=True)
                    speed, digest = build.run(case, Path(tmp) / "run")
                    speeds[build.label].append(speed)
                    digests[build.label].add(digest)
            now, before = (statistics.median(speeds[b.label]) for b in (current, baseline))
            rows.append({
                "case": case.name,
                "events_per_s": now,
                "baseline_events_per_s": before,
                "ratio": now / before,
                "same_results": digests[current.label] == digests[baseline.label] and len(digests[current.label]) == 1,
            })
    return rows


def format_rows(rows: Sequence[dict[str, object]], baseline: str) -> str:
    headers = ["case", "events/s", f"events/s {baseline}", "ratio", "same results"]
    body = [[str(r["case"]), f"{r['events_per_s']:,.0f}", f"{r['baseline_events_per_s']:,.0f}", f"{r['ratio']:.3f}",
             "yes" if r["same_results"] else "NO"] for r in rows]
    return text_table(headers, body)


def case_names(text: str) -> list[str]:
    """The case names in a comma-separated list, where a name may hold a comma itself ("mesh
    10,000 nodes"): the longest run of pieces that makes a known name is taken as one."""
    known = {case.name for case in CASES}
    pieces = text.split(",")
    names: list[str] = []
    start = 0
    while start < len(pieces):
        end = next(
            (end for end in range(len(pieces), start, -1) if ",".join(pieces[start:end]).strip() in known),
            start + 1,
        )
        names.append(",".join(pieces[start:end]).strip())
        start = end
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m airtcp.bench.ab", description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="git revision to compare against (e.g. main~3)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each case per build (median kept)")
    parser.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    parser.add_argument("--out", type=Path, default=Path("bench/out/ab"), help="baseline builds and ab.json")
    args = parser.parse_args(argv)
    repo = Path.cwd()
    cases = list(CASES)
    if args.cases is not None:
        wanted = case_names(args.cases)
        unknown = [name for name in wanted if name not in {c.name for c in CASES}]
        if unknown:
            print(f"error: --cases: unknown {', '.join(unknown)}; known: {', '.join(c.name for c in CASES)}", file=sys.stderr)
            return 2
        cases = [c for c in CASES if c.name in wanted]
    if args.rounds < 1:
        print("error: --rounds: must be at least 1", file=sys.stderr)
        return 2
    if not (repo / "python" / "airtcp" / "_core.abi3.so").is_file():
        print("error: run from the root of an airtcp checkout built with `make build`", file=sys.stderr)
        return 2
    try:
        baseline = build_baseline(repo, args.baseline, args.out.resolve())
        rows = compare(Build("this checkout", repo), baseline, cases, args.rounds)
    except AbError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2 if isinstance(error, BadOption) else 1
    print(format_rows(rows, args.baseline))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ab.json").write_text(json.dumps({"baseline": baseline.label, "rounds": args.rounds, "cases": rows},
                                                 indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
