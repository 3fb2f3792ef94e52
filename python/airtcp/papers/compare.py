"""`airtcp reproduce compare`: the default comparison (docs/compare.md), every scheme on the
networks of `scenarios/compare/`, 5 seeds (2 in the quick form)."""

from __future__ import annotations

from airtcp.comparison import DEFAULT_SCENARIOS, comparison

REPRODUCTION = comparison(DEFAULT_SCENARIOS, seeds=5, quick_seeds=2, key="compare",
                          title="Every scheme on the same networks (scenarios/compare/)")
