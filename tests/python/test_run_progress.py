"""Simulated-time progress of a single run, and stopping a run from another thread."""

from __future__ import annotations

import io
import json
import threading

import pytest

from airtcp import _core, run_progress
from airtcp.api import simulate
from airtcp.scenario.schema import load_scenario, to_core_json
from support import EXAMPLES


def _grid(duration: str) -> str:
    return to_core_json(load_scenario(EXAMPLES / "grid_aodv.yaml", overrides=[f"duration={duration}"]))


def _many_flows() -> str:
    """A connected 3,000-node mesh at the scale benchmark's density with 400 flows, for 1 s: a
    set-up of 800 route searches."""
    import yaml

    from airtcp.bench.wifi.grid import draw_pairs
    from airtcp.bench.wifi.scale import mesh_scenario, place_connected_mesh, size_area
    from support import REPO

    template = yaml.safe_load((REPO / "bench" / "wifi" / "airtcp_mesh.yaml").read_text(encoding="utf-8"))
    width, height = size_area(template, 3000)
    positions, _ = place_connected_mesh(3000, width, height, 250.0, 1)
    scenario = mesh_scenario(template, positions, draw_pairs(3000, 400, 2), stagger_ns=1_000_000,
                             duration="2s")
    return to_core_json(load_scenario(scenario))


def _without_timing(text: str) -> dict[str, object]:
    data = json.loads(text)
    data.pop("timing")
    return data


def _simulation_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "airtcp-simulation"]


def test_a_watched_run_gives_the_same_results_as_an_unwatched_one() -> None:
    config = _grid("30s")
    progress = _core.Progress()
    watched = _core.simulate_json_with_progress(config, progress)
    assert watched is not None
    assert _without_timing(watched) == _without_timing(_core.simulate_json(config))
    assert progress.simulated_s() == pytest.approx(30.0)


def test_a_stop_request_ends_the_run_without_results() -> None:
    progress = _core.Progress()
    progress.request_stop()
    assert _core.simulate_json_with_progress(_grid("30s"), progress) is None
    # Stopped at the first check, after a few thousand events: far from the end.
    assert progress.simulated_s() < 30.0


def test_progress_is_reported_while_the_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "POLL_S", 0.002)
    seen: list[float] = []
    scenario = load_scenario(EXAMPLES / "grid_aodv.yaml", overrides=["duration=300s"])
    results = simulate(scenario, progress=seen.append)
    assert results.summary["duration_s"] == 300.0
    assert seen, "the run finished before the first poll"
    assert seen == sorted(seen) and 0.0 <= seen[0] and seen[-1] <= 300.0
    assert not _simulation_threads()  # the worker thread is gone


def test_an_interrupt_stops_the_core_and_is_raised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "POLL_S", 0.001)

    def interrupt(simulated_s: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_progress.simulate_json_watched(_grid("3000s"), interrupt)
    assert not _simulation_threads()


def test_the_progress_line() -> None:
    stream = io.StringIO()
    line = run_progress.ProgressLine(200.0, stream)
    assert line.text(50.0, 10.0) == "simulated 50.0 / 200 s (25 %), ETA 30 s"
    assert line.text(0.0, 1.0).endswith("ETA ?")
    line.started -= 5  # pretend the run has been going for 5 s
    line(100.0)
    line(120.0)  # not a terminal: no second line within LOG_EVERY_S
    assert stream.getvalue().splitlines() == ["simulated 100.0 / 200 s (50 %), ETA 5 s"]


def test_the_set_up_line() -> None:
    stream = io.StringIO()
    line = run_progress.ProgressLine(60.0, stream)
    line.started -= 5
    line.setup(1200, 2000)
    assert stream.getvalue().splitlines() == ["setting up: routes 1200 / 2000"]


def test_the_set_up_s_route_searches_are_reported_and_an_interrupt_stops_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_progress, "POLL_S", 0.001)
    # Many flows on a grid: a set-up with many route searches, watched, then interrupted.
    seen: list[tuple[int, int]] = []

    class Report:
        def __call__(self, simulated_s: float) -> None:
            pass

        def setup(self, done: int, total: int) -> None:
            seen.append((done, total))
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_progress.simulate_json_watched(_many_flows(), Report())
    assert not _simulation_threads()
    if seen:  # a fast machine may finish the searches before the first poll
        assert all(0 <= done < total for done, total in seen)
