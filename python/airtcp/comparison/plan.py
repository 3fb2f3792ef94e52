"""Planning a comparison: for each scenario, which schemes apply (and why the others do not), and
the sweep that runs them.

A scenario's comparison is one ordinary sweep (docs/sweeps.md) over the scenario as its base:
one zip row per applicable scheme, setting the scenario's `name` to the scheme's key and every
top-level section any of the schemes rewrites (`routing`, `coding`, `flows`, `downlink`,
`routers`) to that scheme's value, times the seeds. Every scheme therefore runs with the same
seeds (paired: one seed places the same random topology and draws the same start times for every
scheme), and the comparison resumes, retries, runs on a local pool or a Dask cluster exactly as a
sweep does. The quick form runs a third of each scenario's duration (at least 20 s).

On a network whose 802.11n radios aggregate, a scheme whose forwarding layer pulls each frame at
the transmit opportunity and does not let it aggregate (COPE, BFLY, NCAQM: the layout's
`single_frames`) sends its data frames one at a time outside the Block Ack agreement
(docs/dot11n.md): it runs, and its row says so (`notes`), since the optimum it is measured
against counts full A-MPDUs. Backpressure and Horizon also pull, but fill A-MPDUs.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airtcp.comparison.needs import Facts, facts_of, layout_of
from airtcp.comparison.schemes import Scheme
from airtcp.errors import ScenarioError

__all__ = ["ScenarioPlan", "plan_scenario", "Source", "QUICK_MIN_S"]

Source = str | Path | Mapping[str, Any]
# The sections a scheme may rewrite; a scenario's sweep sets those any of its schemes changes.
_SECTIONS = ("routing", "coding", "flows", "downlink", "routers")
UNAGGREGATED = ("runs without A-MPDU aggregation: its forwarding layer sends each packet it picks as a single "
                "frame outside the Block Ack agreement (docs/dot11n.md)")
# The quick form's floor: TCP (and TCP-RLC, which ramps up for 15-20 s) past its start.
QUICK_MIN_S = 20.0
QUICK_FRACTION = 1.0 / 3.0


@dataclass(frozen=True)
class ScenarioPlan:
    """One scenario of a comparison."""

    slug: str  # its folder and sweep name
    title: str  # the scenario's own name
    base: str | dict[str, Any]  # the sweep's base (a file path, a bundled name or a mapping)
    facts: Facts
    duration_s: float
    schemes: tuple[Scheme, ...]  # those that apply, in the order given
    not_applicable: tuple[tuple[str, str], ...]  # (scheme key, reason)
    rows: tuple[dict[str, Any], ...]  # per applicable scheme, every section after its rewrite
    base_sections: dict[str, Any]  # the sections as the scenario has them
    # (scheme key, note) for schemes that run, but not as the network could carry them: on an
    # aggregating 802.11n network, those whose forwarding layer sends single frames.
    notes: tuple[tuple[str, str], ...] = ()

    def spec(self, seeds: int, quick: bool) -> dict[str, Any]:
        """The sweep spec of this scenario (None-free; a mapping `run_sweep` takes)."""
        zipped: dict[str, list[Any]] = {"name": [scheme.key for scheme in self.schemes]}
        for section in _SECTIONS:
            if any(row[section] != self.base_sections[section] for row in self.rows):
                zipped[section] = [row[section] for row in self.rows]
        if quick:
            seconds = max(min(QUICK_MIN_S, self.duration_s), self.duration_s * QUICK_FRACTION)
            zipped["duration"] = [f"{seconds:g}s"] * len(self.rows)
        return {"name": f"compare-{self.slug}", "base": self.base, "zip": zipped, "seeds": seeds}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "scenario"


def _base_of(source: Source) -> tuple[str | dict[str, Any], Any, str | None]:
    """The sweep base of a source, its validated scenario and its short name (a file's stem, a
    bundled scenario's last part; None for a mapping): an existing file (absolute path), a
    bundled scenario's name, or a mapping."""
    from airtcp.scenario import bundled
    from airtcp.scenario.schema import load_scenario

    if isinstance(source, Mapping):
        return dict(source), load_scenario(source), None
    path = Path(source)
    if path.is_file() or not bundled.is_bundled(str(source)):
        return str(path.resolve()), load_scenario(path), path.stem
    return str(source), load_scenario(bundled.read_data(str(source))), str(source).rsplit("/", 1)[-1]


def plan_scenario(source: Source, schemes: Sequence[Scheme], where: str, taken: set[str]) -> ScenarioPlan:
    """The plan of one scenario (`where` names it in errors: `SCENARIO[0]`); `taken` holds the
    slugs already used, so that two scenarios of one name get two folders."""
    from airtcp import _core
    from airtcp.scenario.schema import load_scenario, to_core_json, to_user_dict

    try:
        base, scenario, short = _base_of(source)
    except ScenarioError as error:
        raise ScenarioError.from_list([(f"{where}: {path}" if path else where, message)
                                       for path, message in error.errors]) from None
    if not scenario.flows:
        raise ScenarioError(f"{where}: flows", "a comparison needs at least one flow")
    try:
        layout = layout_of(scenario)
    except ValueError as error:  # what only the core checks, as `airtcp run` would report it
        path, sep, message = str(error).partition(": ")
        raise ScenarioError(f"{where}: {path}" if sep else where, message if sep else str(error)) from None
    facts = facts_of(scenario, layout)
    doc = to_user_dict(scenario)
    applicable: list[Scheme] = []
    rows: list[dict[str, Any]] = []
    skipped: list[tuple[str, str]] = []
    notes: list[tuple[str, str]] = []
    aggregating = (layout.get("timing") or {}).get("aggregation") is not None
    for scheme in schemes:
        reason = next((text for need in scheme.needs if (text := need.unmet(facts)) is not None), None)
        if reason is None:
            rewritten = scheme.apply(copy.deepcopy(doc))
            try:
                checked = load_scenario(rewritten)
                _core.check_json(to_core_json(checked))
                if aggregating and layout_of(checked)["timing"]["aggregation"]["single_frames"]:
                    notes.append((scheme.key, UNAGGREGATED))
            except ScenarioError as error:
                reason = "the simulator refuses it: " + "; ".join(error.lines())
            except ValueError as error:
                reason = f"the simulator refuses it: {error}"
        if reason is not None:
            skipped.append((scheme.key, reason))
            continue
        applicable.append(scheme)
        rows.append({section: rewritten.get(section) for section in _SECTIONS})
    if not applicable:
        reasons = "; ".join(f"{key}: {reason}" for key, reason in skipped[:3])
        raise ScenarioError(where, f"no selected scheme applies to it ({reasons}{'; ...' if len(skipped) > 3 else ''})")
    slug = _slug(short or scenario.name)
    while slug in taken:
        slug += "_"
    taken.add(slug)
    return ScenarioPlan(slug, scenario.name, base, facts, scenario.duration / 1e9, tuple(applicable),
                        tuple(skipped), tuple(rows), {section: doc.get(section) for section in _SECTIONS}, tuple(notes))
