"""A property-based fuzzer for airtcp's inputs: scenario documents and sweep specs.

`documents` generates scenarios (the shipped ones, shortened, and new ones composed from the
schema's building blocks), `abuse` damages them (missing keys, wrong types, extreme numbers,
garbled units, odd YAML), `sweep_specs` does the same for sweep specs, and `checks` holds one
invariant checker per entry point (the Python API, the command line, sweeps). `outcomes` counts
what happened by class for the long runs' report. `tests/python/test_fuzz.py` drives them.

The promise checked: every input gets an answer. Bad input is refused as
`<field path>: <message>` (`ScenarioError`, or `error: ...` and exit 2 with nothing written),
good input runs to the end with its packets accounted for, and nothing panics, hangs or aborts.
"""
