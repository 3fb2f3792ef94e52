"""What the comparisons with ns-3 share: finding the `bench/` folder of the source checkout,
ns-3 3.44 from PyPI's prebuilt `ns3` wheel (its C++ headers and shared libraries unpacked under
`bench/ns3/build/`, a scenario program compiled against them once), and running a command with
its wall and CPU time."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BenchError",
    "NotACheckout",
    "build_ns3",
    "compile_ns3_program",
    "ensure_ns3_dist",
    "find_bench_dir",
    "json_result",
    "log",
    "tail",
    "timed",
]

NS3_VERSION = "3.44"
NS3_REQUIREMENT = "ns3==3.44.post0"
# The wheel is only published for CPython on manylinux x86_64; the C++ parts inside do not depend
# on the Python version, so any interpreter can fetch and unpack the cp311 build.
NS3_WHEEL_TAGS = ("--python-version", "3.11", "--platform", "manylinux_2_28_x86_64")
NS3_LIBS = ("applications", "internet", "traffic-control", "point-to-point", "network", "core")
# The wheel's libraries were built with these definitions (its CMake package exports them); the
# headers' inline code must be compiled the same way.
NS3_DEFINES = ("NS3_BUILD_PROFILE_RELEASE", "NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE")

# Included by p2p_tcp.cc and bench/wifi/wifi_chain.cc (congestion-control choice, the sender's
# trace, the attribute record); under bench/ns3/.
TCP_HEADER = "tcp_trace.h"

RUN_TIMEOUT_S = 1800.0
BUILD_TIMEOUT_S = 900.0


class BenchError(RuntimeError):
    """A step of the benchmark could not be carried out."""


class NotACheckout(BenchError):
    """The benchmark's files are not in reach: it was started outside a source checkout (an
    installed wheel has no `bench/`). A usage problem, so exit code 2."""


# --------------------------------------------------------------------------------------------
# Locating the benchmark files


def find_bench_dir() -> Path:
    """The `bench/` folder of the airtcp source checkout the command runs in.

    The benchmarks are developer tools and not part of the installed package: they compile the
    ns-3 programs of `bench/` into `bench/ns3/build/`, and `bench/wifi/ns3_reference.json` (which
    the Rust tests read) is rewritten in place. Only their airtcp scenario ships, as the bundled
    `validation/p2p_bench` (`bench/p2p_bench.yaml` links to it) that the validation reproduction
    reads."""
    candidate = Path.cwd() / "bench"
    if (candidate / "p2p_bench.yaml").is_file() and (candidate / "ns3" / "p2p_tcp.cc").is_file():
        return candidate
    raise NotACheckout(
        "cannot find bench/p2p_bench.yaml and bench/ns3/p2p_tcp.cc; the benchmarks run from the "
        "root of an airtcp source checkout"
    )


# --------------------------------------------------------------------------------------------
# ns-3: fetch the wheel, unpack headers and libraries, compile the scenario program


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _ns3_dist_ready(root: Path) -> bool:
    return (root / "include" / "ns3" / "core-module.h").is_file() and all(
        (root / "lib64" / f"libns{NS3_VERSION}-{lib}.so").is_file() for lib in NS3_LIBS
    )


def _pip_command() -> list[str]:
    # The running interpreter's pip first (the project venv has one); python3's otherwise.
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "--version"], capture_output=True, text=True, check=False
    )
    if probe.returncode == 0:
        return [sys.executable, "-m", "pip"]
    python3 = shutil.which("python3")
    if python3:
        return [python3, "-m", "pip"]
    raise BenchError("pip is needed to fetch the ns3 wheel and none was found")


def ensure_ns3_dist(build_dir: Path) -> Path:
    """Unpacks the ns3 wheel's headers and libraries under `build_dir` once; returns their root."""
    dist = build_dir / f"ns3-{NS3_VERSION}"
    root = dist / "ns3"
    if _ns3_dist_ready(root):
        return root
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise BenchError(f"the ns3 wheel exists for Linux x86_64 only, not {platform.machine()}")
    build_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=build_dir, prefix=".fetch-") as tmp:
        tmp_path = Path(tmp)
        log(f"fetching {NS3_REQUIREMENT} (prebuilt ns-3 headers and libraries) ...")
        cmd = [
            *_pip_command(),
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            *NS3_WHEEL_TAGS,
            "--dest",
            str(tmp_path / "wheel"),
            NS3_REQUIREMENT,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise BenchError(f"pip download {NS3_REQUIREMENT} failed:\n{proc.stderr.strip()}")
        wheels = sorted((tmp_path / "wheel").glob("ns3-*.whl"))
        if not wheels:
            raise BenchError(f"pip download {NS3_REQUIREMENT} produced no wheel")
        staged = tmp_path / "dist"
        with zipfile.ZipFile(wheels[0]) as wheel:
            for member in wheel.infolist():
                name = member.filename
                # Only what compiling and running a C++ program needs: headers and shared objects.
                wanted = name.startswith("ns3/include/") or (
                    name.startswith("ns3/lib64/") and ".so" in Path(name).name
                )
                if wanted and not member.is_dir():
                    wheel.extract(member, staged)
        for so in (staged / "ns3" / "lib64").glob("*.so*"):
            so.chmod(0o755)
        if not _ns3_dist_ready(staged / "ns3"):
            raise BenchError(f"{wheels[0].name} does not hold the expected headers and libraries")
        if dist.exists():
            shutil.rmtree(dist)
        # Renamed into place last, so an interrupted fetch never looks complete.
        staged.rename(dist)
    return root


def _compile_command(
    source: Path, binary: Path, root: Path, libs: Sequence[str] = NS3_LIBS
) -> list[str]:
    cxx = os.environ.get("CXX", "g++")
    rel_lib = os.path.relpath(root / "lib64", binary.parent)
    return [
        cxx,
        "-std=c++20",
        "-O2",
        *(f"-D{d}" for d in NS3_DEFINES),
        "-I",
        str(root / "include"),
        str(source),
        "-o",
        str(binary),
        "-L",
        str(root / "lib64"),
        *(f"-lns{NS3_VERSION}-{lib}" for lib in libs),
        # Relative to the binary, so it runs without LD_LIBRARY_PATH and survives moving the tree;
        # the ns-3 libraries find each other through their own $ORIGIN run paths.
        f"-Wl,-rpath,$ORIGIN/{rel_lib}",
    ]


def compile_ns3_program(
    source: Path,
    binary: Path,
    build_dir: Path,
    *,
    libs: Sequence[str] = NS3_LIBS,
    depends: Sequence[Path] = (),
    force: bool = False,
) -> Path:
    """Compiles one C++ program against the ns-3 unpacked under `build_dir`; returns the binary.

    Idempotent: the binary is rebuilt only when the source, a file in `depends` (headers it
    includes), the compile command or the compiler changed (a stamp file beside the binary
    records their hash), or when `force` is set. `libs` names ns-3 modules (`wifi` links
    `libns3.44-wifi.so`).
    """
    root = ensure_ns3_dist(build_dir)
    lib64 = root / "lib64"
    missing = [lib for lib in libs if not (lib64 / f"libns{NS3_VERSION}-{lib}.so").is_file()]
    if missing:
        raise BenchError(f"the ns-3 wheel has no module(s) {', '.join(missing)}")
    stamp = binary.with_name(binary.name + ".stamp")
    cmd = _compile_command(source, binary, root, libs)
    compiler = shutil.which(cmd[0])
    if compiler is None:
        raise BenchError(f"C++ compiler {cmd[0]!r} not found (set CXX or install g++)")
    version = subprocess.run(
        [compiler, "--version"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[:1]
    digest = hashlib.sha256()
    digest.update(source.read_bytes())
    # Only hashed when present, so a program without dependencies keeps the key it always had.
    for dep in depends:
        digest.update(dep.read_bytes())
    digest.update("\0".join(cmd + version).encode())
    key = digest.hexdigest()
    if not force and binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        return binary

    try:
        shown = source.resolve().relative_to(Path.cwd())
    except ValueError:
        shown = source
    log(f"compiling {shown} against ns-{NS3_VERSION} ...")
    binary.parent.mkdir(parents=True, exist_ok=True)
    tmp_binary = binary.with_name(binary.name + ".tmp")
    tmp_cmd = _compile_command(source, tmp_binary, root, libs)
    proc = subprocess.run(
        tmp_cmd, capture_output=True, text=True, check=False, timeout=BUILD_TIMEOUT_S
    )
    if proc.returncode != 0:
        raise BenchError(f"compiling {source.name} failed:\n{' '.join(tmp_cmd)}\n{proc.stderr}")
    tmp_binary.replace(binary)
    stamp.write_text(key + "\n")
    return binary


def build_ns3(bench_dir: Path | None = None, *, force: bool = False) -> Path:
    """Compiles bench/ns3/p2p_tcp.cc into bench/ns3/build/p2p_tcp once; returns the binary.

    Idempotent: the binary is rebuilt only when the source, the compile command or the compiler
    changed (a stamp file records their hash), or when `force` is set.
    """
    bench_dir = bench_dir or find_bench_dir()
    ns3_dir = bench_dir / "ns3"
    build_dir = ns3_dir / "build"
    return compile_ns3_program(
        ns3_dir / "p2p_tcp.cc",
        build_dir / "p2p_tcp",
        build_dir,
        depends=(ns3_dir / TCP_HEADER,),
        force=force,
    )


# --------------------------------------------------------------------------------------------
# Running one case in each simulator


def tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def timed(cmd: Sequence[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Runs `cmd`; returns it with its wall time and its CPU time (user + system).

    The CPU time is recorded beside the wall time because it is far less disturbed when other
    work shares the machine; runs are sequential, so the children's usage delta is this child's.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=RUN_TIMEOUT_S)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, wall, cpu


def json_result(stdout: str, program: str) -> dict[str, Any]:
    """The last line of `stdout` that is a JSON object: what a benchmark program prints."""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise BenchError(f"{program} printed no result: {tail(stdout)}")
    return json.loads(lines[-1])
