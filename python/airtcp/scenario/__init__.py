"""Scenarios: what a run simulates, read from YAML and checked before the core sees it.

- `schema`   — the models of a scenario file, `load_scenario` and `to_core_json`;
- `model`    — what the models are built on: pydantic's way of declaring them, checked by a
  small engine of airtcp's own that costs milliseconds where pydantic took a tenth of a second
  (`fields`: the parts of a declaration; `checks`: each field's type compiled into a check);
- `units`    — quantities with units (`10Mbps`, `2ms`, `1500B`) and their parsing;
- `overrides`— `--set key.path=value` edits applied to a scenario before validation;
- `messages` — the words of every problem validation reports (`<field path>: <message>`);
- `source`   — reading scenario files safely (size, nesting, encoding limits);
- `bundled`  — the scenarios shipped inside the package (`airtcp scenarios list`, `copy`).
"""
