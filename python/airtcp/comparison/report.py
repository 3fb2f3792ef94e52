"""The comparison's part of the HTML report (`compare.json` of a comparison folder): the scheme x
scenario table, the optimum of each scenario, each scenario's rows with their sentences, and the
settings of every scheme. Every cell holds a result or "not applicable" with the reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from airtcp.experiments.html_report import _e, _heading, _table, _with_ci, has_interval

__all__ = ["compare_section"]

_STATUS_WORDS = {"failed": "failed", "partial": "some runs failed", "not applicable": "not applicable"}


def _ci(cell: Mapping[str, Any] | None, scale: float = 1.0, digits: str = ".3g") -> str:
    if not cell:
        return "-"
    mean = format(cell["mean"] * scale, digits)
    half = cell.get("ci95")
    if not has_interval(cell["mean"], half):
        return mean
    return f"{mean} ± {float(format(half * scale, '.2g')):g}"


def _percent(cell: Mapping[str, Any] | None) -> str:
    return "-" if not cell else _ci(cell, 100.0, ".0f") + " %"


def _fraction(row: Mapping[str, Any], key: str, optimum: Mapping[str, Any]) -> str:
    """A fraction of the optimum, or why there is none (no optimum at all, or not that part of it)."""
    if row.get(key):
        return _percent(row[key])
    return "no optimum" if optimum.get("unavailable") else "not solved"


def _versus_baseline(row: Mapping[str, Any]) -> str:
    """The ratio to the family's baseline, or why there is none."""
    if row.get("vs_baseline"):
        return _ci(row["vs_baseline"], digits=".2f")
    baseline = row.get("baseline")
    if baseline is None:
        return "no baseline for this network"
    if baseline == row["scheme"]:
        return "the baseline"
    return f"no finished run of {baseline} with traffic"


def _mean_percent(cell: Mapping[str, Any]) -> str:
    return f"{100 * cell['mean']:.0f} %"


def _matrix_cell(row: Mapping[str, Any]) -> str:
    if row["status"] in ("not applicable", "failed"):
        return (f"<td class=\"na\">{_e(_STATUS_WORDS[row['status']])}: {_e(row.get('reason', ''))}</td>")
    lines = [f"<b>{_e(_ci(row.get('total_mbps')))}</b> Mbit/s", f"Jain {_e(_ci(row.get('jain'), digits='.2f'))}"]
    shares = []
    if row.get("total_fraction"):
        shares.append(f"opt. {_e(_mean_percent(row['total_fraction']))}")
    if row.get("utility_fraction"):
        shares.append(f"fair {_e(_mean_percent(row['utility_fraction']))}")
    if shares:
        lines.append(" · ".join(shares))
    if row.get("vs_baseline"):
        lines.append(f"{_e(_ci(row['vs_baseline'], digits='.2f'))}x base")
    if row["status"] == "partial":
        lines.append(f"<span class=\"error\">some runs failed: {_e(row.get('reason', ''))}</span>")
    if row.get("note"):
        lines.append(f"<span class=\"meta\">{_e(row['note'])}</span>")
    return f"<td class=\"num cell\">{'<br>'.join(lines)}</td>"


def _matrix(record: Mapping[str, Any]) -> str:
    scenarios = record["scenarios"]
    head = ["scheme", *[table["slug"] for table in scenarios]]
    body = []
    for scheme in record["schemes"]:
        cells = []
        for table in scenarios:
            row = next(r for r in table["rows"] if r["scheme"] == scheme["key"])
            cells.append(_matrix_cell(row))
        body.append(f"<tr><td>{_e(scheme['label'])}<br><span class=\"meta\">{_e(scheme['key'])}, "
                    f"{_e(_paper(scheme))}</span></td>{''.join(cells)}</tr>")
    return f"<div class=\"wide\">{_table(head, body)}</div>"


def _optima(scenarios: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for table in scenarios:
        opt = table["optimum"]
        if opt.get("unavailable"):
            what = f"<td colspan=\"3\" class=\"na\">none: {_e(opt['unavailable'])}</td>"
        else:
            fair = ", ".join(f"{x / 1e6:.3g}" for x in opt.get("rates_bps", [])) or "not solved"
            what = (f"<td>{_e(opt['model'])}</td><td class=\"num\">{_e(_ci(table.get('optimum_total_mbps')))}</td>"
                    f"<td class=\"num\">{_e(fair)}</td>")
        notes = "; ".join(opt.get("notes", [])) or "none"
        rows.append(f"<tr><td>{_e(table['slug'])}</td><td>{_e(table['kind'])}</td>{what}<td>{_e(notes)}</td></tr>")
    return _table(("scenario", "network", "model", "largest total (Mbit/s)", "fair rates (Mbit/s, seed 1)", "notes"), rows)


def _details(table: Mapping[str, Any], level: int) -> str:
    head = ("scheme", "total (Mbit/s)", "Jain", "utility Σ log x", "of opt. total", "of fair rates", "x baseline", "what it supports")
    rows = []
    for row in table["rows"]:
        if row["status"] in ("not applicable", "failed"):
            rows.append(f"<tr><td>{_e(row['label'])}</td><td colspan=\"7\" class=\"na\">"
                        f"{_e(_STATUS_WORDS[row['status']])}: {_e(row.get('reason', ''))}</td></tr>")
            continue
        utility = row.get("utility")
        rows.append(
            f"<tr><td>{_e(row['label'])}</td><td class=\"num\">{_e(_ci(row.get('total_mbps')))}</td>"
            f"<td class=\"num\">{_e(_ci(row.get('jain'), digits='.2f'))}</td>"
            f"<td class=\"num\">{_e(_with_ci(utility['mean'], utility.get('ci95')) if utility else '-∞ (a flow starved)')}</td>"
            f"<td class=\"num\">{_e(_fraction(row, 'total_fraction', table['optimum']))}</td>"
            f"<td class=\"num\">{_e(_fraction(row, 'utility_fraction', table['optimum']))}</td>"
            f"<td class=\"num\">{_e(_versus_baseline(row))}</td><td>{_e(_supports(row))}</td></tr>")
    facts = table["facts"]
    summary = (f"<p class=\"meta\">{_e(table['kind'])}; seeds {_e(', '.join(str(s) for s in table['seeds']))}; "
               f"radios per node {_e(facts['radios_per_node'])}, longest route {_e(facts['longest_route_hops'])} hops, "
               f"flows with two disjoint paths {_e(facts['multipath_flows'])}.</p>")
    return _heading(level, table["slug"]) + summary + _table(head, rows)


def _supports(row: Mapping[str, Any]) -> str:
    """The row's sentence, and what it ran without (its note), if anything."""
    return row["sentence"] + (f" It {row['note']}." if row.get("note") else "")


def _settings(schemes: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for scheme in schemes:
        settings = "; ".join(f"{key}: {value}" for key, value in scheme["settings"].items())
        rows.append(f"<tr><td>{_e(scheme['key'])}</td><td>{_e(scheme['label'])}</td><td>{_e(_paper(scheme))}</td>"
                    f"<td>{_e(', '.join(scheme['needs']))}</td><td>{_e(settings)}</td></tr>")
    return _table(("key", "scheme", "from", "needs", "settings"), rows)


def _paper(scheme: Mapping[str, Any]) -> str:
    """Where a scheme comes from: its paper, or none for the common baselines (paper "-")."""
    return "a common baseline" if scheme["paper"] == "-" else f"paper {scheme['paper']}"


def compare_section(record: Mapping[str, Any], level: int) -> str:
    """The HTML of a `compare.json` record, headings from `level` on."""
    parts = [
        _heading(level, "Scheme x scenario"),
        "<p>Each cell: total goodput (mean ± 95 % CI over the seeds, after a 20 % warm-up), Jain's index, the "
        "fraction of the optimum's largest total (opt.) and of its proportionally fair rates (fair: the geometric mean of "
        "x<sub>s</sub> / x*<sub>s</sub>), and the ratio to the family's baseline on the same seeds. The "
        "tables of each scenario below give every interval.</p>",
        _matrix(record),
        _heading(level, "The optimum of each scenario"),
        _optima(record["scenarios"]),
        _heading(level, "Each scenario"),
        *[_details(table, level + 1) for table in record["scenarios"]],
        _heading(level, "Settings of every scheme"),
        _settings(record["schemes"]),
    ]
    return "\n".join(parts)
