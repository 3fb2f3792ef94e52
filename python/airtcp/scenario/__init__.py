"""Scenarios: what a run simulates, read from YAML and checked before the core sees it.

- `schema`   — `load_scenario`, `to_core_json` and the models of a scenario file;
- `json_schema` — the format's JSON Schema, which the core generates from its config types: the
  one description of the format;
- `models`   — the models, generated from the schema by `model_gen` (`make schema`): each field
  read by one of `readers` (units, ranges, names); `rules`, the few rules of a part that the
  schema cannot say, and `consistency`, the rules across the whole file, written by hand;
- `schema_docs` — docs/scenario-fields.md, made from the schema;
- `model`    — what the models are built on: pydantic's way of declaring them, checked by a
  small engine of airtcp's own that costs milliseconds where pydantic took a tenth of a second
  (`fields`: the parts of a declaration; `checks`: each field's type compiled into a check);
- `units`    — quantities with units (`10Mbps`, `2ms`, `1500B`) and their parsing;
- `overrides`— `--set key.path=value` edits applied to a scenario before validation;
- `messages` — the words of every problem validation reports (`<field path>: <message>`);
- `source`   — reading scenario files safely (size, nesting, encoding limits);
- `bundled`  — the scenarios shipped inside the package (`airtcp scenarios list`, `copy`).
"""
