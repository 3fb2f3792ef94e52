"""Type stubs of the compiled simulator core (the `airtcp-py` crate)."""

def simulate_json(config_json: str) -> str:
    """Runs a scenario given as normalised JSON and returns the results as JSON.

    The JSON is what `airtcp.scenario.schema.to_core_json` produces. Raises `ValueError` whose message is
    `"<path>: <message>"` if the scenario is rejected; `<path>` is `<scenario>` when the JSON itself
    could not be read. The GIL is released while the simulation runs.
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
    """The layout of a scenario (nodes and positions, radio ranges, links, static routes) as JSON.

    Builds the scenario with every check a run makes; raises `ValueError` like `simulate_json`.
    """

def slotted_json(config_json: str) -> str:
    """Runs the idealised slotted model of paper 000 §2-3 (`SlottedConfig` as JSON, the serde
    schema of `crates/airtcp/src/mac/conflict_graph/slotted.rs`); returns `SlottedResults` as JSON.

    Raises `ValueError` whose message is `"<path>: <message>"` (e.g. `links[1].p_on: ...`);
    `<path>` is `<slotted>` when the JSON itself could not be read. The GIL is released while the
    model runs.
    """
