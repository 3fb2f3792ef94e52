"""Running a sweep into a resumable experiment directory.

Layout of `OUT/`:

- `manifest.json`: the spec, the airtcp version, and one entry per run (parameters, seed,
  the hash of the normalised configuration the core receives);
- `runs/<key>.json`: one record per finished run, written atomically (a temporary file renamed
  into place): status `done` with its results, or `failed` with the error;
- `runs.parquet`, `flows.parquet`, `goodput.parquet`: the tables, rebuilt from the records at the
  end of every invocation (each written atomically).

Running the same sweep into the same folder again skips the runs recorded `done` with the same
configuration hash and retries the failed ones. An interrupt (Ctrl-C, SIGTERM) stops handing out
runs; records already written stay, nothing is left half-written, and the next invocation picks
up the rest. Runs execute in a local process pool (`workers`, default the number of cores) or on
a Dask distributed cluster (`cluster="tcp://host:port"`) through the same submit / as-completed
path.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from airtcp import __version__
from airtcp.atomic_dir import atomic_write_bytes
from airtcp.config import load_scenario, to_core_json
from airtcp.errors import ScenarioError
from airtcp.results import flow_row
from airtcp.sweep_spec import RunPoint, SweepSpec, base_source, expand, load_sweep_spec

__all__ = ["SweepOutcome", "run_sweep"]


@dataclass
class SweepOutcome:
    """What one invocation did."""

    out: Path
    total: int = 0
    executed: int = 0
    skipped: int = 0
    failed: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (key, error)

    @property
    def ok(self) -> bool:
        return self.failed == 0


def _execute(core_json: str) -> dict[str, Any]:
    """Runs one normalised configuration (in a worker); never raises for a simulation error."""
    from airtcp import _core

    started = time.perf_counter()
    try:
        raw = json.loads(_core.simulate_json(core_json))
    except (KeyboardInterrupt, SystemExit):
        raise  # Ctrl-C reaches the workers too: that is the sweep stopping, not this run failing
    except BaseException as error:  # noqa: BLE001 - a panic in the core is a BaseException
        return {"status": "failed", "error": f"{type(error).__name__}: {error}", "wall_s": time.perf_counter() - started}
    return {"status": "done", "raw": raw, "wall_s": time.perf_counter() - started}


class _Interrupted(Exception):
    """SIGTERM, turned into an exception so the sweep stops like on Ctrl-C."""


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def handler(signum: int, frame: Any) -> None:
        raise _Interrupted()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Progress:
    """One status line on stderr: done / total, failures, ETA. Redrawn in place on a terminal;
    elsewhere (a log, CI) a line at the start, at most every `LOG_EVERY_S`, and at the end."""

    LOG_EVERY_S = 5.0

    def __init__(self, total: int, quiet: bool):
        self.total, self.quiet = total, quiet
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last_line = -float("inf")

    def update(self, done: int, failed: int, executed: int, pending: int) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if not self.tty and pending and executed and now - self.last_line < self.LOG_EVERY_S:
            return
        self.last_line = now
        elapsed = now - self.started
        eta = f"{elapsed / executed * pending:.0f}s" if executed else "?"
        line = f"{self.bar(done + failed)} runs {done}/{self.total} done, {failed} failed, ETA {eta}"
        print(("\r" if self.tty else "") + line, end="" if self.tty else "\n", file=sys.stderr, flush=True)

    def bar(self, finished: int, width: int = 24) -> str:
        """`[#########---------------]`: the share of runs finished (done or failed)."""
        filled = width * finished // self.total if self.total else width
        return "[" + "#" * filled + "-" * (width - filled) + "]"

    def close(self) -> None:
        if not self.quiet and self.tty:
            print(file=sys.stderr)


def _record(point: RunPoint, config_hash: str | None, result: Mapping[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "key": point.key,
        "params": dict(point.params),
        "seed": point.seed,
        "config_hash": config_hash,
        "status": result["status"],
        "error": result.get("error"),
        "wall_s": result.get("wall_s"),
    }
    raw = result.get("raw")
    if raw is not None:
        record["results"] = {key: value for key, value in raw.items() if key != "timing"}
    return record


def _prepare(spec: SweepSpec, folder: Path | None) -> list[tuple[RunPoint, str | None, str | None, str | None]]:
    """Each run with its core JSON and config hash, or the scenario error that makes it fail."""
    base = base_source(spec, folder)
    prepared = []
    for point in expand(spec):
        try:
            scenario = load_scenario(base, seed=point.seed, overrides=point.overrides)
        except ScenarioError as error:
            prepared.append((point, None, None, "; ".join(error.lines())))
            continue
        core_json = to_core_json(scenario)
        prepared.append((point, core_json, hashlib.sha256(core_json.encode()).hexdigest(), None))
    return prepared


def _check_manifest(out: Path, spec: SweepSpec) -> None:
    path = out / "manifest.json"
    if not path.is_file():
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise ScenarioError("--out", f"{str(out)!r} holds an unreadable manifest.json") from None
    if old.get("spec") != spec.model_dump(mode="json"):
        raise ScenarioError("--out", f"{str(out)!r} holds a different sweep; use another folder")


def run_sweep(
    source: str | Path | Mapping[str, Any],
    out: str | Path,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    quiet: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> SweepOutcome:
    """Runs (or resumes) a sweep into `out`. Raises `ScenarioError` for a bad spec or folder
    (before anything is written); failed runs are recorded, not raised."""
    spec, folder = load_sweep_spec(source)
    if workers is not None and workers < 1:
        raise ScenarioError("--workers", f"must be at least 1, got {workers}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError("--out", f"{str(out)!r} exists and is not a directory")
    _check_manifest(out, spec)
    prepared = _prepare(spec, folder)
    # Connected before anything is written: an unreachable cluster leaves no folder behind.
    with _sigterm_interrupts(), _executor(workers, cluster) as (submit, completed):
        return _run(spec, out, prepared, submit, completed, quiet, on_record)


def _run(
    spec: SweepSpec,
    out: Path,
    prepared: list[tuple[RunPoint, str | None, str | None, str | None]],
    submit: Callable[..., Any],
    completed: Callable[..., Any],
    quiet: bool,
    on_record: Callable[[dict[str, Any]], None] | None,
) -> SweepOutcome:
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "spec": spec.model_dump(mode="json"),
        "airtcp_version": __version__,
        "runs": [
            {"key": p.key, "params": dict(p.params), "seed": p.seed, "config_hash": h}
            for p, _, h, _ in prepared
        ],
    }
    atomic_write_bytes(out / "manifest.json", (json.dumps(manifest, indent=1, default=str) + "\n").encode())

    outcome = SweepOutcome(out=out, total=len(prepared))
    todo: list[tuple[RunPoint, str, str]] = []
    done = 0
    for point, core_json, config_hash, error in prepared:
        existing = _read_record(runs_dir / f"{point.key}.json")
        if existing and existing["status"] == "done" and existing["config_hash"] == config_hash:
            outcome.skipped += 1
            done += 1
            continue
        if error is not None:
            record = _record(point, None, {"status": "failed", "error": error})
            atomic_write_bytes(runs_dir / f"{point.key}.json", json.dumps(record).encode())
            outcome.failed += 1
            outcome.failures.append((point.key, error))
            continue
        assert core_json is not None and config_hash is not None
        todo.append((point, core_json, config_hash))

    progress = _Progress(outcome.total, quiet)
    progress.update(done, outcome.failed, 0, len(todo))
    try:
        futures: dict[Any, tuple[RunPoint, str]] = {
            submit(_execute, core_json): (point, config_hash) for point, core_json, config_hash in todo
        }
        for future in completed(futures):
            point, config_hash = futures[future]
            try:
                result = future.result()
            except Exception as error:  # noqa: BLE001 - a worker process that died
                result = {"status": "failed", "error": f"{type(error).__name__}: {error}"}
            record = _record(point, config_hash, result)
            atomic_write_bytes(runs_dir / f"{point.key}.json", json.dumps(record).encode())
            outcome.executed += 1
            if record["status"] == "done":
                done += 1
            else:
                outcome.failed += 1
                outcome.failures.append((point.key, record["error"]))
            if on_record is not None:
                on_record(record)
            progress.update(done, outcome.failed, outcome.executed, len(todo) - outcome.executed)
    finally:
        progress.close()
        write_tables(out, [p for p, *_ in prepared])
    return outcome


@contextmanager
def _executor(workers: int | None, cluster: str | None) -> Iterator[tuple[Callable[..., Any], Callable[..., Any]]]:
    """`(submit, as_completed)` of a local process pool or of a Dask cluster: the sweep loop is
    the same for both."""
    if cluster is not None:
        try:
            from distributed import Client
            from distributed import as_completed as dask_as_completed
        except ImportError:
            raise ScenarioError("--cluster", "needs the 'distributed' package (pip install distributed)") from None
        try:
            client = Client(cluster, timeout="10s")
        except OSError as error:
            raise ScenarioError("--cluster", f"cannot reach {cluster}: {error}") from None
        try:
            # pure=False: two runs with equal arguments are still two runs (Dask would merge them).
            yield (lambda fn, *args: client.submit(fn, *args, pure=False)), dask_as_completed
        finally:
            client.close()
        return
    pool = ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)
    try:
        yield pool.submit, as_completed
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)


def _read_record(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def write_tables(out: Path, points: list[RunPoint]) -> None:
    """Rebuilds runs / flows / goodput Parquet tables from the run records, in spec order."""
    runs, flows, goodput = [], [], []
    for point in points:
        record = _read_record(out / "runs" / f"{point.key}.json")
        if record is None:
            continue
        results = record.get("results") or {}
        row = {"key": record["key"], "seed": record["seed"], "status": record["status"], "error": record["error"],
               "config_hash": record["config_hash"], "wall_s": record["wall_s"], "jain": results.get("jain")}
        row.update({f"param:{k}": json.dumps(v) for k, v in record["params"].items()})
        runs.append(row)
        for flow in results.get("flows", []):
            flows.append({"key": record["key"], "seed": record["seed"], **flow_row(flow)})
        series = (results.get("timeseries") or {}).get("goodput") or {}
        for flow, t, g in zip(series.get("flow", []), series.get("t_s", []), series.get("goodput_bps", [])):
            goodput.append({"key": record["key"], "seed": record["seed"], "flow": flow, "t_s": t, "goodput_bps": g})
    for name, rows in (("runs", runs), ("flows", flows), ("goodput", goodput)):
        table = pa.Table.from_pylist(rows) if rows else pa.table({"key": pa.array([], pa.string())})
        tmp = out / f".{name}.parquet.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, out / f"{name}.parquet")
