"""Sweep specs (docs/sweeps.md): a short base scenario, inline or in a file beside the spec, a
few grid and zip parameters its fields take, and seeds, kept to a handful of runs; then damaged
like scenarios, plus the spec's own abuse: paths that are no field, values no field takes,
repeated values and rows, lists of different lengths, seeds out of range or far too many."""

from __future__ import annotations

import datetime
from typing import Any

from hypothesis import strategies as st

from fuzzing.abuse import mutated, render, yaml_texts
from fuzzing.command_line import SweepCase
from fuzzing.documents import CCS, RADIO_RATES, composed_scenarios, shipped_shortened

Doc = dict[str, Any]

ALWAYS: dict[str, list[Any]] = {
    "duration": ["100ms", "300ms", "1s"],
    "seed": [1, 2, 2**64 - 1],
    "metrics.bin": ["100ms", "1s"],
    "name": ["a", "b", "\u00e9t\u00e9"],
}

ODD_PARAMETERS = [
    "links[x].rate", "", "a..b", "flows[99].id", "links[0]", "nodes", ".".join(["a"] * 100), "x" * 1000, "duration ",
    "\udc80", "links[0].rate=1", "flows[0].transport.cc[0]", "flows[-1].id", "[0]", "duration.", "1abc", "routing.kind",
]
ODD_VALUES: list[Any] = [
    datetime.date(2024, 1, 1), b"\x00bin", {1, 2}, float("nan"), float("inf"), {1: "x"}, [], {}, None, "", 10**4000,
]
ODD_SEEDS: list[Any] = [0, -1, 2**64, [1, 1], 10**9, 1_000_001, [], "3", 1.5, True, [2**64 - 1, 0], [-1], 100_000]
ODD_BASES = ["nope.yaml", "/dev/zero", "/", "", ".", "..", "\x00", "base.yaml\n", "spec.yaml", 5, None, []]


def parameters_of(doc: Doc) -> dict[str, list[Any]]:
    """Parameters that `doc` has, each with values its field takes."""
    found = dict(ALWAYS)
    flows = doc.get("flows") or []
    if flows and isinstance(flows[0], dict) and (flows[0].get("transport") or {}).get("kind") == "tcp":
        found["flows[0].transport.cc"] = CCS
        found["flows[0].transport.sack"] = [True, False]
        found["flows[0].transport.mss"] = [500, 1000]
    if doc.get("links"):
        found["links[0].delay"] = ["1ms", "20ms"]
        found["links[0].rate"] = ["1Mbps", "10Mbps"]
        found["links[0].queue.packets"] = [10, 50]
        found["links[0].loss"] = [None, {"kind": "bernoulli", "per": 0.1}]
    if doc.get("radio"):
        found["radio.rts_cts"] = [True, False]
        found["radio.data_rate"] = RADIO_RATES
    if isinstance(doc.get("topology"), dict) and "spacing" in doc["topology"]:
        found["topology.spacing"] = ["150m", "200m"]
    return found


@st.composite
def values_of(draw: st.DrawFn, choices: list[Any], count: int | None = None) -> list[Any]:
    if count is None:
        return draw(st.lists(st.sampled_from(choices), min_size=1, max_size=min(3, len(choices)), unique_by=repr))
    return [draw(st.sampled_from(choices)) for _ in range(count)]


@st.composite
def sweep_documents(draw: st.DrawFn) -> tuple[Doc, Doc]:
    """(spec, base scenario): a spec of at most a dozen runs over a short base."""
    base = draw(st.one_of(composed_scenarios(), shipped_shortened()))
    parameters = parameters_of(base)
    names = draw(st.lists(st.sampled_from(sorted(parameters)), max_size=4, unique=True))
    split = draw(st.integers(0, len(names)))
    spec: Doc = {"name": draw(st.sampled_from(["fuzz-sweep", "s", "\u00e9t\u00e9"])), "base": base}
    if names[:split]:
        spec["grid"] = {name: draw(values_of(parameters[name])) for name in names[:split]}
    if names[split:]:
        rows = draw(st.integers(1, 2))
        spec["zip"] = {name: draw(values_of(parameters[name], rows)) for name in names[split:]}
    spec["seeds"] = draw(st.one_of(st.integers(1, 2), st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=2, unique=True)))
    return spec, base


@st.composite
def spec_abuse(draw: st.DrawFn, spec: Doc) -> Doc:
    """One of the ways a spec itself goes wrong."""
    how = draw(st.sampled_from(["parameter", "value", "repeat", "lengths", "seeds", "base", "mutate"]))
    table = spec.setdefault(draw(st.sampled_from(["grid", "zip"])), {})
    if how == "parameter":
        table[draw(st.sampled_from(ODD_PARAMETERS))] = [1]
    elif how == "value":
        table["duration"] = [draw(st.sampled_from(ODD_VALUES))]
    elif how == "repeat":
        table["seed"] = [1, 1.0] if draw(st.booleans()) else [{"a": 1, "b": 2}, {"b": 2, "a": 1}]
    elif how == "lengths":
        spec["zip"] = {"duration": ["100ms", "200ms"], "seed": [1]}
    elif how == "seeds":
        spec["seeds"] = draw(st.sampled_from(ODD_SEEDS))
    elif how == "base":
        spec["base"] = draw(st.sampled_from(ODD_BASES))
    else:
        return draw(mutated(spec, most=2))  # type: ignore[no-any-return]
    return spec


@st.composite
def sweep_cases(draw: st.DrawFn) -> SweepCase:
    """A spec file, the base inline or in `base.yaml` beside it, damaged half the time."""
    spec, base = draw(sweep_documents())
    beside = {}
    if draw(st.booleans()):
        spec["base"] = "base.yaml"
        beside["base.yaml"] = draw(yaml_texts(base)) if draw(st.integers(1, 6)) == 1 else render(base)
    if draw(st.booleans()):
        spec = draw(spec_abuse(spec))
    text = draw(yaml_texts(spec)) if draw(st.integers(1, 4)) == 1 else render(spec)
    return SweepCase(text.encode("utf-8", "surrogatepass"), {name: content.encode("utf-8", "surrogatepass") for name, content in beside.items()})

