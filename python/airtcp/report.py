"""The human-readable report `airtcp run` prints: per-flow table and run-wide checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["format_report"]

_HEADERS = ("flow", "src", "dst", "transport", "goodput kbps", "retx", "timeouts")
# Numeric columns are right-aligned.
_RIGHT = {"goodput kbps", "retx", "timeouts"}


def format_report(summary: Mapping[str, Any], timing: Mapping[str, Any]) -> str:
    """The report for one run, from `Results.summary` and `Results.timing`."""
    rows = [_flow_row(flow) for flow in summary.get("flows", [])]
    lines = [
        f"scenario {summary.get('name', '?')!r}, seed {summary.get('seed', '?')}, "
        f"{_number(summary.get('duration_s'))} s simulated",
        "",
        *_table(_HEADERS, rows),
        "",
        f"Jain fairness index: {_fixed(summary.get('jain'), 4)}",
        _conservation_line(summary.get("conservation") or {}),
        _events_line(timing),
    ]
    return "\n".join(lines)


def _flow_row(flow: Mapping[str, Any]) -> list[str]:
    transport = str(flow.get("transport", "?"))
    if flow.get("cc"):
        transport += f"/{flow['cc']}"
        if flow.get("sack"):
            transport += "+sack"
    goodput = flow.get("goodput_bps")
    return [
        str(flow.get("id", "?")),
        str(flow.get("src", "?")),
        str(flow.get("dst", "?")),
        transport,
        _fixed(goodput / 1000 if isinstance(goodput, (int, float)) else None, 1),
        str(flow.get("retransmissions", "-")),
        str(flow.get("timeouts", "-")),
    ]


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.rjust(width) if header in _RIGHT else cell.ljust(width)
            for cell, width, header in zip(cells, widths, headers)
        ]
        return "  ".join(padded).rstrip()

    if not rows:
        return [line(headers), "(no flows)"]
    return [line(headers), *(line(row) for row in rows)]


def _conservation_line(check: Mapping[str, Any]) -> str:
    if not check:
        return "conservation: not reported"
    verdict = "ok" if check.get("ok") else "VIOLATED"
    retired = f" + retired {check['retired']}" if check.get("retired") else ""
    return (
        f"conservation: created {check.get('created')} = delivered {check.get('delivered')}"
        f" + dropped {check.get('dropped')}{retired} + in flight {check.get('in_flight')}: {verdict}"
    )


def _events_line(timing: Mapping[str, Any]) -> str:
    events, wall, rate = timing.get("events"), timing.get("wall_s"), timing.get("events_per_s")
    return f"events: {events} in {_fixed(wall, 3)} s wall clock ({_si(rate)} events/s)"


def _fixed(value: Any, digits: int) -> str:
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def _number(value: Any) -> str:
    # Six significant digits: hides float noise such as 60.00000000000001.
    return f"{value:g}" if isinstance(value, (int, float)) else "-"


def _si(value: Any) -> str:
    """1.23e6 -> "1.23M"."""
    if not isinstance(value, (int, float)):
        return "-"
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.2f}{suffix}"
    return f"{value:.0f}"
