"""Type stubs of the compiled simulator core (the `airtcp-py` crate)."""

import os
from typing import Any

def simulate_json(config_json: str) -> str:
    """Runs a scenario given as normalised JSON and returns the results as JSON.

    The JSON is what `airtcp.scenario.schema.to_core_json` produces. Raises `ValueError` whose message is
    `"<path>: <message>"` if the scenario is rejected; `<path>` is `<scenario>` when the JSON itself
    could not be read. The GIL is released while the simulation runs.
    """

def write_parquet(path: str | os.PathLike[str], columns: list[tuple[str, str, list[Any]]]) -> None:
    """Writes a table as the Parquet file `path` (one row group, one uncompressed page per column,
    every column nullable; `crates/airtcp/src/metrics/parquet.rs`).

    `columns` are `(name, type, values)` in table order, all with as many values: type one of
    "string", "bool", "float64", "uint64", "uint32", "int64" (read back by pyarrow as string,
    bool, double, uint64, uint32, int64), values items of the matching Python type (str, bool,
    float, int) or None. Raises `TypeError` for an item of another type (an int in a float64
    column too, a bool in an int column) and `ValueError` for an unknown type, an int out of the
    type's range, a str that is not encodable as UTF-8 or columns of different lengths, in which
    cases nothing is written; `OSError` if the file cannot be written.
    """

def core_version() -> str:
    """The version of the simulator core."""

class Progress:
    """A handle on a running simulation: how far it has got, and a way to stop it."""

    def __init__(self) -> None: ...
    def simulated_s(self) -> float:
        """Simulated time reached, in seconds (updated every few thousand events)."""
    def request_stop(self) -> None:
        """Asks the run to stop soon; `simulate_json_with_progress` then returns None."""

def simulate_json_with_progress(config_json: str, progress: Progress) -> str | None:
    """Like `simulate_json`, publishing progress to `progress`; None if a stop was requested."""

def check_json(config_json: str) -> None:
    """Checks a scenario without simulating it: builds the world with every check a run makes and
    drops it; raises `ValueError("<path>: <message>")` like `simulate_json`."""

def layout_json(config_json: str) -> str:
    """The layout of a scenario (nodes and positions, radio ranges, the DCF's timing, links with,
    for radio links, their data rate, delivery per attempt and MAC ACK air time, static routes) as
    JSON (`crates/airtcp/src/scenario/layout.rs`).

    Builds the scenario with every check a run makes; raises `ValueError` like `simulate_json`.
    """

def downlink_rates_json(config_json: str) -> str:
    """What a scenario's `downlink` section (alone, as normalised JSON) offers before any traffic:
    `DownlinkRates` of `crates/airtcp/src/mac/downlink/mod.rs` as JSON (slot, bandwidth, the OFDMA
    frame's arithmetic or null, frame efficiency, rate_scale, MAC overhead, the AMC modes with
    their bits per slot, each user's mean bits per slot under Rayleigh fading).

    Raises `ValueError("<path>: <message>")` with paths from `downlink.` on, as a run would.
    """

def rlc_slotted_json(config_json: str) -> str:
    """Runs TCP-RLC's RTT-slotted model of paper 004 §II (`RlcSlottedConfig` as JSON, the serde
    schema of `crates/airtcp/src/transport/tcp_rlc/slotted.rs`); returns its results as JSON:
    per flow `mean_window`, `throughput`, `success_rate`, `path_windows`, and `mean_p`.

    Raises `ValueError("<path>: <message>")`; `<path>` is `<rlc_slotted>` when the JSON itself
    could not be read. The GIL is released while the model runs.
    """

def slotted_json(config_json: str) -> str:
    """Runs the idealised slotted model of paper 000 §2-3 (`SlottedConfig` as JSON, the serde
    schema of `crates/airtcp/src/mac/conflict_graph/slotted.rs`); returns `SlottedResults` as JSON.

    Raises `ValueError` whose message is `"<path>: <message>"` (e.g. `links[1].p_on: ...`);
    `<path>` is `<slotted>` when the JSON itself could not be read. The GIL is released while the
    model runs.
    """
