"""The wheel as users get it: pip-installed into a fresh virtual environment, with its
dependencies from PyPI, and run from an empty folder that has nothing of the checkout in reach
(no `python/`, no `scenarios/`, no PYTHONPATH).

`make test` builds the wheel once (`make wheel`) and names it in AIRTCP_WHEEL; without the
variable (a plain `pytest`) these tests are skipped, and with it set to a missing file they fail.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

WHEEL = os.environ.get("AIRTCP_WHEEL", "")

pytestmark = pytest.mark.skipif(
    not WHEEL, reason="AIRTCP_WHEEL is not set: `make test` builds the wheel (`make wheel`) and sets it"
)

# pip downloads the dependencies (pandas, pyarrow, matplotlib, scipy ...) on a cold cache.
INSTALL_TIMEOUT_S = 900
COMMAND_TIMEOUT_S = 600


@dataclass(frozen=True)
class Installed:
    """A virtual environment holding only the wheel and its dependencies, and an empty folder to
    run its commands in."""

    venv: Path
    work: Path
    env: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`airtcp ARGS` from the venv, in the empty folder; fails the test unless it exits 0."""
        result = self.command("airtcp", *args)
        assert result.returncode == 0, f"airtcp {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        return result

    def command(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / program), *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )


def _isolated_env(venv_dir: Path) -> dict[str, str]:
    """The environment of a user who activated the venv: nothing that would import the checkout
    (PYTHONPATH, the project's own venv) or user-wide packages."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        VIRTUAL_ENV=str(venv_dir),
        PATH=f"{venv_dir / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONNOUSERSITE="1",
        MPLBACKEND="Agg",
        COLUMNS="200",
        NO_COLOR="1",
    )
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    wheel = Path(WHEEL).resolve()
    assert wheel.is_file(), f"AIRTCP_WHEEL={WHEEL}: no such file (run `make wheel`)"
    root = tmp_path_factory.mktemp("wheel")
    venv_dir, work = root / "venv", root / "work"
    work.mkdir()
    venv.create(venv_dir, with_pip=True)
    env = _isolated_env(venv_dir)
    pip = subprocess.run(
        [str(venv_dir / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q", str(wheel)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    assert pip.returncode == 0, f"pip install {wheel.name} failed:\n{pip.stderr}"
    # The venv (some 600 MB) is left to pytest, which keeps the temporary folders of the last
    # three sessions only: deleting it here would slow every run down to save nothing in CI.
    return Installed(venv_dir, work, env)


def test_the_package_comes_from_the_venv_not_the_checkout(installed: Installed) -> None:
    probe = installed.command("python", "-c", "import airtcp; print(airtcp.__file__)")
    assert probe.returncode == 0, probe.stderr
    assert Path(probe.stdout.strip()).is_relative_to(installed.venv)
    assert not (installed.work / "python").exists() and not (installed.work / "scenarios").exists()


def test_version(installed: Installed) -> None:
    assert installed.run("--version").stdout.startswith("airtcp ")


def test_bundled_scenarios_validate_run_and_copy(installed: Installed) -> None:
    assert "examples/p2p_lossy" in installed.run("scenarios", "list").stdout.split()
    assert installed.run("validate", "examples/dumbbell").stdout.startswith("ok: examples/dumbbell:")

    installed.run("run", "examples/p2p_lossy", "--out", "by-name", "-q")
    summary = json.loads((installed.work / "by-name" / "summary.json").read_text(encoding="utf-8"))
    assert summary["name"] == "p2p-lossy"

    installed.run("scenarios", "copy", "examples/dumbbell", "dumbbell.yaml")
    installed.run("run", "dumbbell.yaml", "--out", "copied", "--set", "duration=10s", "-q")
    assert (installed.work / "copied" / "flows.parquet").is_file()


def test_a_short_sweep(installed: Installed) -> None:
    installed.run("scenarios", "copy", "examples/p2p_lossy", "sweep-base.yaml")
    spec = {
        "name": "wheel-sweep",
        "base": "sweep-base.yaml",
        "grid": {"links[0].loss.per": [0.0, 0.02], "duration": ["5s"]},
        "seeds": 2,
    }
    (installed.work / "sweep.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    output = installed.run("sweep", "sweep.yaml", "--out", "sweep", "--workers", "2", "--quiet").stdout
    assert output == ""
    records = [json.loads(path.read_text(encoding="utf-8")) for path in (installed.work / "sweep" / "runs").glob("*.json")]
    assert sorted(record["status"] for record in records) == ["done"] * 4
    assert (installed.work / "sweep" / "flows.parquet").is_file()


def test_reproduce_validation_then_report(installed: Installed) -> None:
    """The validation reproduction reads its scenarios from the package (`validation/p2p_bench`,
    `validation/saturation`), which a source checkout used to provide."""
    reproduced = installed.run("reproduce", "validation", "--quick", "--out", "reproduce", "--workers", "2")
    assert "report: " in reproduced.stdout
    record = json.loads((installed.work / "reproduce" / "validation" / "reproduction.json").read_text(encoding="utf-8"))
    assert record["targets"]
    report = installed.run("report", "reproduce").stdout.strip()
    assert report == f"wrote {Path('reproduce') / 'report.html'}"
    assert "<html" in (installed.work / "reproduce" / "report.html").read_text(encoding="utf-8").lower()


def _readme_block(marker: str) -> str:
    """The fenced code block that follows `<!-- marker -->` in the README."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->\n```\w+\n(.*?)\n```", readme, re.S)
    assert match, f"README.md: no code block after <!-- {marker} -->"
    return match.group(1)


def test_the_readme_works_as_written_from_the_wheel(installed: Installed) -> None:
    """Every command of the README's "From the wheel" section, then its Python snippet, run as
    written in an empty folder with nothing but the wheel installed."""
    folder = installed.work / "readme"
    folder.mkdir()
    for line in _readme_block("wheel-commands").splitlines():
        command = shlex.split(line, comments=True)
        assert command[0] == "airtcp", line
        result = subprocess.run([str(installed.venv / "bin" / "airtcp"), *command[1:]], cwd=folder,
                                env=installed.env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
        assert result.returncode == 0, f"{line}: exited {result.returncode}:\n{result.stderr}"
    assert (folder / "p2p" / "goodput.png").is_file()
    assert (folder / "out" / "reproduce-quick" / "report.html").is_file()
    snippet = subprocess.run([str(installed.venv / "bin" / "python"), "-c", _readme_block("wheel-python")],
                             cwd=folder, env=installed.env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    assert snippet.returncode == 0, snippet.stderr
    assert "goodput_bps" in snippet.stdout
