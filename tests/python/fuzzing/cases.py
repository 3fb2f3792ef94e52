"""Inputs for the API and the command line: a scenario, often damaged, as YAML text, a mapping
or a file's bytes, and now and then odd `seed` and `overrides` arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from airtcp.errors import format_path
from fuzzing.abuse import GARBLED_QUANTITIES, mutated, odd_values, places, stretched, yaml_texts
from fuzzing.api_check import ApiCase
from fuzzing.documents import scenario_documents

# Beyond the 16 MiB a scenario file may have.
OVERSIZED = 16 * 2**20 + 1

ODD_SEEDS: list[Any] = [0, 1, 2**64 - 1, 2**64, -1, True, 1.5, "3", [1], np.int64(5), np.uint64(2**64 - 1), np.float64(1.0)]
ODD_OVERRIDES: list[Any] = [
    "duration=1s", [b"duration=1s"], [5], ["duration"], ["=1"], ["a" * 100_000 + "=1"], [".".join(["a"] * 100) + "=1"],
    {"duration": "1s"}, ("duration=1s",), [f"flows[{2**64}].id=x"], ["flows[-1].id=x"], ["links[0]..rate=1"],
    ["duration=1s", None], ["duration=\udc80"], ["\udc80=1"], ["duration=[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]"],
    ["duration=&a [*a]"], ["duration=!!binary AAEC"], ["topology.hops=1000000000"],
]


@st.composite
def damaged_documents(draw: st.DrawFn) -> Any:
    """A scenario document: as it is, with extreme but well-formed values (for the core), or
    damaged (for validation), a third of the time each."""
    doc = draw(scenario_documents())
    how = draw(st.sampled_from(["as it is", "stretched", "damaged"]))
    if how == "stretched":
        return draw(stretched(doc))
    if how == "damaged":
        return draw(mutated(doc))
    return doc


@st.composite
def overrides_for(draw: st.DrawFn, doc: Any) -> list[str]:
    """`PATH=VALUE` strings for places of `doc`, with odd values."""
    made = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(places(doc) or [()]))
        value = draw(st.one_of(st.sampled_from(GARBLED_QUANTITIES), odd_values().map(repr)))
        made.append(f"{format_path([part if isinstance(part, (str, int)) else str(part) for part in path])}={value}")
    return made


@st.composite
def api_cases(draw: st.DrawFn) -> ApiCase:
    doc = draw(damaged_documents())
    source = draw(yaml_texts(doc)) if draw(st.integers(1, 4)) > 1 else doc
    seed = draw(st.sampled_from(ODD_SEEDS)) if draw(st.integers(1, 10)) == 1 else None
    overrides = draw(st.one_of(overrides_for(doc), st.sampled_from(ODD_OVERRIDES))) if draw(st.integers(1, 8)) == 1 else None
    return ApiCase(source, seed, overrides)


@st.composite
def scenario_files(draw: st.DrawFn) -> bytes:
    """A scenario file's bytes: YAML text (lone surrogates written as the bytes Python would),
    now and then binary junk or more than 16 MiB."""
    text = draw(yaml_texts(draw(damaged_documents())))
    content = text.encode("utf-8", "surrogatepass")
    rare = draw(st.integers(1, 60))
    if rare == 1:
        return content + b"\n#" + b"x" * OVERSIZED
    if rare == 2:
        return b"\xff\xfe\x00binary\x80" + content
    return content
