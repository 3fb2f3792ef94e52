"""airtcp: a fast, deterministic packet-level simulator for TCP over wireless networks.

    import airtcp
    results = airtcp.run("scenarios/examples/p2p_lossy.yaml", seed=2)
    print(results.flows[["id", "goodput_bps"]])
    results.write("out/p2p_lossy")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from airtcp import _core
from airtcp.scenario.schema import Scenario, load_scenario, to_core_json
from airtcp.errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    from airtcp.api import run, simulate
    from airtcp.results import Results

__version__ = _core.core_version()

__all__ = [
    "__version__",
    "run",
    "simulate",
    "load_scenario",
    "to_core_json",
    "Scenario",
    "Results",
    "ScenarioError",
    "SimulationError",
]

# Imported on first use: they pull in Arrow, which `airtcp validate` and error reporting do not
# need, and a quick start matters for a command-line tool.
_LAZY = {"run": "airtcp.api", "simulate": "airtcp.api", "Results": "airtcp.results"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'airtcp' has no attribute {name!r}")
