"""Type stubs of the compiled simulator core (the `airtcp-py` crate)."""

def simulate_json(config_json: str) -> str:
    """Runs a scenario given as normalised JSON and returns the results as JSON.

    The JSON is what `airtcp.config.to_core_json` produces. Raises `ValueError` whose message is
    `"<path>: <message>"` if the scenario is rejected; `<path>` is `<scenario>` when the JSON itself
    could not be read. The GIL is released while the simulation runs.
    """

def core_version() -> str:
    """The version of the simulator core."""
