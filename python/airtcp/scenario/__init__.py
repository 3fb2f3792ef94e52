"""Scenarios: what a run simulates, read from YAML and checked before the core sees it.

- `schema`   — the pydantic models of a scenario file, `load_scenario` and `to_core_json`;
- `units`    — quantities with units (`10Mbps`, `2ms`, `1500B`) and their parsing;
- `overrides`— `--set key.path=value` edits applied to a scenario before validation;
- `messages` — pydantic's validation errors reworded as `error: <field path>: <message>`;
- `source`   — reading scenario files safely (size, nesting, encoding limits);
- `bundled`  — the scenarios shipped inside the package (`airtcp scenarios list`, `copy`).
"""
