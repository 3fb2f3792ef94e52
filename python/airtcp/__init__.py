"""airtcp: a fast, deterministic packet-level simulator for TCP over wireless networks.

```python
import airtcp
results = airtcp.run("examples/p2p_lossy", seed=2)   # a bundled name, a file, YAML text or a mapping
print(results.flows[["id", "goodput_bps"]])
results.write("out/p2p_lossy")
```
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from airtcp import _core
from airtcp.errors import ScenarioError, SimulationError

if TYPE_CHECKING:
    from airtcp.api import run, simulate
    from airtcp.comparison import compare
    from airtcp.results import Results
    from airtcp.scenario.schema import Scenario, load_scenario, to_core_json

__version__ = _core.core_version()

__all__ = [
    "__version__",
    "run",
    "simulate",
    "compare",
    "load_scenario",
    "to_core_json",
    "Scenario",
    "Results",
    "ScenarioError",
    "SimulationError",
]

# Imported on first use, so that `import airtcp` (and with it every command of the command line,
# `airtcp --help` too) costs only what it uses: the schema builds its models on import (a few
# milliseconds) and reading a scenario needs the YAML parser (ten more).
_SCHEMA = "airtcp.scenario.schema"
_LAZY = {
    "run": "airtcp.api",
    "simulate": "airtcp.api",
    "compare": "airtcp.comparison",
    "Results": "airtcp.results",
    "Scenario": _SCHEMA,
    "load_scenario": _SCHEMA,
    "to_core_json": _SCHEMA,
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'airtcp' has no attribute {name!r}")
