"""Golden digests of results: a SHA-256 of each checked result's bytes, kept in
`golden/digests.json`, so that a refactor that must not change behaviour (the forwarding and
shim seams, for one) shows any change at all as a failing test.

When a change of results is intended, regenerate with
`AIRTCP_BLESS=1 .venv/bin/python -m pytest -q tests/python/test_golden_results.py
tests/python/test_reproduce.py` and commit the new digests together with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

DIGESTS = Path(__file__).parent / "golden" / "digests.json"
BLESS_VARIABLE = "AIRTCP_BLESS"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rounded(value: Any, digits: int = 9) -> Any:
    """`value` with every float rounded to `digits` significant digits: for figures that pass
    through NumPy's reductions (means, confidence intervals), whose last bits may depend on the
    CPU's vector width; the simulated results under them are bit-identical."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {key: rounded(item, digits) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item, digits) for item in value]
    return value


def check(key: str, data: bytes) -> None:
    """Fails unless `data` has the golden digest of `key` (or, under AIRTCP_BLESS=1, records it)."""
    table: dict[str, str] = json.loads(DIGESTS.read_text(encoding="utf-8")) if DIGESTS.exists() else {}
    now = digest(data)
    if os.environ.get(BLESS_VARIABLE):
        table[key] = now
        DIGESTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert key in table, f"{key}: no golden digest yet ({BLESS_VARIABLE}=1 records it)"
    assert table[key] == now, (
        f"{key}: results differ from the golden digest ({BLESS_VARIABLE}=1 accepts the new ones; "
        "commit them with the reason)"
    )
