"""`airtcp report DIR`: one self-contained HTML page (figures embedded as data URIs, no scripts,
nothing fetched) for an experiment folder, to open offline or mail around.

DIR can be
- a reproduction's folder (`reproduction.json`, written by `airtcp reproduce`): its figures, the
  table of published vs airtcp numbers with 95 % confidence intervals, and the state of its sweeps;
- a folder holding several reproductions (`airtcp reproduce all`): all of them on one page (each
  also gets a page of its own in its folder);
- a comparison's folder (`airtcp compare`: a reproduction whose `compare.json` adds the scheme x
  scenario table, the optima, the sentences and the schemes' settings);
- a sweep folder (`manifest.json`, written by `airtcp sweep`): its runs, per-flow goodput per
  parameter point with confidence intervals, and figures drawn from the tables (goodput over time
  per flow, a metric against each numeric parameter, the CDF of per-flow goodput).

The page is written to DIR/report.html atomically.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airtcp import __version__
from airtcp.atomic_dir import atomic_write_bytes
from airtcp.errors import ScenarioError
from airtcp.papers import verdict_line, verdict_of

__all__ = ["write_report", "render_report"]

REPORT_NAME = "report.html"
# A sweep page draws goodput over time for at most this many parameter points.
MAX_TIME_FIGURES = 6
MAX_CDF_LINES = 8

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.missed td { background: #fde8e8; } tr.ok td.verdict { color: #17692b; } tr.missed td.verdict { color: #a11; font-weight: bold; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; max-width: 800px; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
.meta { color: #555; font-size: 0.9em; } .error { color: #a11; }
td.na { color: #666; font-style: italic; font-size: 0.85em; min-width: 8em; }
td.cell { white-space: nowrap; } div.wide { overflow-x: auto; }
"""


def write_report(folder: str | Path) -> Path:
    """Writes FOLDER/report.html (and each reproduction's own page when FOLDER holds several);
    returns its path. Raises `ScenarioError("DIR", ...)` if FOLDER is not an experiment folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ScenarioError("DIR", f"{str(folder)!r} is not a directory")
    if (folder / "reproduction.json").is_file():
        body, title = _reproduction_section(folder, level=1)
    elif children := _reproduction_folders(folder):
        sections = []
        for child in children:
            own, child_title = _reproduction_section(child, level=1)
            _write_page(child / REPORT_NAME, child_title, _heading(1, child_title) + own)
            section, _ = _reproduction_section(child, level=2)
            sections.append(_heading(2, child_title) + section)
        title = "airtcp reproductions"
        body = _contents(children) + "".join(sections)
    elif (folder / "manifest.json").is_file():
        body, title = _sweep_section(folder)
    else:
        raise ScenarioError(
            "DIR", f"{str(folder)!r} holds no reproduction.json or manifest.json (not an airtcp experiment folder)"
        )
    target = folder / REPORT_NAME
    _write_page(target, title, _heading(1, title) + body)
    return target


def render_report(title: str, body: str) -> str:
    """A whole page around `body` (already HTML)."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{_e(title)}</title>\n"
        # An empty icon: otherwise the browser asks for /favicon.ico and logs its absence.
        "<link rel=\"icon\" href=\"data:,\">\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n{body}\n"
        f"<p class=\"meta\">Written by airtcp {_e(__version__)} on {stamp}.</p>\n</body>\n</html>\n"
    )


def _write_page(path: Path, title: str, body: str) -> None:
    atomic_write_bytes(path, render_report(title, body).encode("utf-8"))


def _reproduction_folders(folder: Path) -> list[Path]:
    return sorted(child for child in folder.iterdir() if (child / "reproduction.json").is_file())


def _contents(children: Sequence[Path]) -> str:
    items = "".join(f"<li><a href=\"#{_e(c.name)}\">{_e(c.name)}</a></li>" for c in children)
    return f"<ul>{items}</ul>"


# --------------------------------------------------------------------------------------------
# A reproduction


def _reproduction_section(folder: Path, level: int) -> tuple[str, str]:
    record = json.loads((folder / "reproduction.json").read_text(encoding="utf-8"))
    title = f"{record['key']}: {record['title']}"
    parts = [
        f"<a id=\"{_e(folder.name)}\"></a>",
        f"<p class=\"meta\">Published numbers: {_e(record.get('source', ''))}. "
        f"{'Quick form (fewer seeds, shorter runs, the same claims)' if record.get('quick') else 'Full form'}; "
        f"airtcp {_e(record.get('airtcp_version', '?'))}.</p>",
    ]
    parts += [f"<p>{_e(note)}</p>" for note in record.get("notes", [])]
    if record.get("analysis_error"):
        parts.append(f"<p class=\"error\">The analysis failed: {_e(record['analysis_error'])}</p>")
    if (folder / "compare.json").is_file():  # a comparison (`airtcp compare`): its table first
        from airtcp.comparison.report import compare_section

        parts.append(compare_section(json.loads((folder / "compare.json").read_text(encoding="utf-8")), level + 1))
    targets = record.get("targets", [])
    if targets:
        parts.append(_heading(level + 1, "Published vs airtcp"))
        parts.append(f"<p>{_e(verdict_line(targets))}. A row is <i>ok</i> when airtcp's number meets its "
                     "tolerance, <i>missed</i> (highlighted) when it does not, <i>not judged</i> when the claim "
                     "is qualitative or shown for comparison; its note says why.</p>")
        parts.append(_targets_table(targets))
    figures = record.get("figures", [])
    if figures:
        parts.append(_heading(level + 1, "Figures"))
        parts += [_figure(folder / f["png"], f["caption"]) for f in figures]
    parts.append(_heading(level + 1, "Sweeps"))
    parts.append(_sweeps_table(record.get("sweeps", [])))
    return "\n".join(parts), title


def _targets_table(targets: Sequence[Mapping[str, Any]]) -> str:
    head = ("section", "what", "published", "airtcp (mean ± 95 % CI)", "n", "unit", "tolerance", "verdict", "note")
    rows = []
    for t in targets:
        verdict = verdict_of(t)
        css = {"ok": "ok", "missed": "missed"}.get(verdict, "")
        rows.append(
            f"<tr class=\"{css}\"><td>{_e(t['section'])}</td><td>{_e(t['what'])}</td>"
            f"<td class=\"num\">{_e(published_text(t['published']))}</td>"
            f"<td class=\"num\">{_e(_with_ci(t.get('airtcp'), t.get('ci95')) if t.get('airtcp') is not None else 'none')}</td>"
            f"<td class=\"num\">{_e(t.get('n') or 'none')}</td><td>{_e(t['unit'] or 'none')}</td>"
            f"<td>{_e(t.get('tolerance') or 'none')}</td>"
            f"<td class=\"verdict\">{verdict}</td><td>{_e(t.get('note') or _NO_NOTE[verdict])}</td></tr>"
        )
    return _table(head, rows)


# The note cell of a row whose note is empty (a row that is not judged always has one).
_NO_NOTE = {"ok": "within tolerance", "missed": "outside tolerance", "not judged": ""}


def _sweeps_table(sweeps: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    failures = []
    for s in sweeps:
        rows.append(f"<tr><td>{_e(s['name'])}</td><td class=\"num\">{s['total']}</td>"
                    f"<td class=\"num\">{s['failed']}</td><td>{_e(s['folder'])}/</td></tr>")
        failures += [f"<li>{_e(s['name'])}, run {_e(f['key'])}: {_e(f['error'])}</li>" for f in s.get("failures", [])]
    text = _table(("sweep", "runs", "failed", "folder"), rows)
    if failures:
        text += f"<p class=\"error\">Failed runs:</p><ul>{''.join(failures)}</ul>"
    return text


# --------------------------------------------------------------------------------------------
# A plain sweep


def _sweep_section(folder: Path) -> tuple[str, str]:
    from airtcp.experiments.analysis import load_experiment
    from airtcp.experiments.sweep import read_manifest

    manifest = read_manifest(folder)
    spec = manifest["spec"]
    title = f"Sweep {spec.get('name', folder.name)}"
    try:
        exp = load_experiment(folder)
    except (OSError, ValueError) as error:  # Arrow's errors for a damaged table are ValueErrors
        raise ScenarioError(
            "DIR", f"cannot read the tables in {str(folder)!r} ({error}); run the sweep again to rebuild them"
        ) from None
    runs = exp.runs
    done = int((runs["status"] == "done").sum()) if len(runs) else 0
    failed = int((runs["status"] == "failed").sum()) if len(runs) else 0
    parts = [
        f"<p class=\"meta\">{len(manifest.get('runs', []))} runs in the spec: {done} done, {failed} failed, "
        f"{len(manifest.get('runs', [])) - done - failed} not run yet; airtcp {_e(manifest.get('airtcp_version', '?'))}.</p>",
        _heading(2, "Spec"),
        f"<pre>{_e(_spec_text(spec))}</pre>",
    ]
    if failed:
        bad = runs[runs["status"] == "failed"]
        # Records, not itertuples: parameter names such as links[0].loss.per are no identifiers.
        rows = [f"<tr><td>{_e(r['key'])}</td><td>{_e(_params_text(r, exp.params))}</td>"
                f"<td class=\"num\">{r['seed']}</td><td class=\"error\">{_e(r['error'])}</td></tr>"
                for r in bad.to_dict("records")]
        parts += [_heading(2, "Failed runs"), _table(("run", "parameters", "seed", "error"), rows)]
    scalar = [p for p in exp.params if _all_scalar(exp.runs[p])]
    if len(exp.flows):
        parts += [_heading(2, "Goodput per flow"), _flow_table(exp.flows, scalar)]
        parts += [_heading(2, "Figures"), *_sweep_figures(exp, scalar, folder / "figures")]
    return "\n".join(parts), title


def _spec_text(spec: Mapping[str, Any]) -> str:
    import yaml

    shown = dict(spec)
    if isinstance(shown.get("base"), dict):
        shown["base"] = f"(inline scenario '{shown['base'].get('name', 'scenario')}')"
    return yaml.safe_dump(shown, sort_keys=False, width=100)


def _all_scalar(values: Iterable[Any]) -> bool:
    return all(isinstance(v, (str, int, float, bool)) or v is None for v in values)


def _params_text(row: Mapping[str, Any], params: Sequence[str]) -> str:
    return ", ".join(f"{p} = {_short(row.get(p, '?'))}" for p in params)


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:37] + "..."


def flow_goodput_rows(flows: Any, params: Sequence[str]) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """A sweep's per-flow goodput per parameter point (mean ± 95 % CI over seeds, in kb/s): the
    headers and the rows as text, for the page and for `airtcp sweep`'s summary."""
    from airtcp.experiments.analysis import summarize

    head = (*params, "flow", "goodput kb/s (mean ± 95 % CI)", "seeds")
    done = flows[flows["status"] == "done"]
    if not len(done):
        return head, []
    table = summarize(done, by=[*params, "id"], metric="goodput_bps")
    return head, [(*(_short(r[p]) for p in params), str(r["id"]), _with_ci(r["mean"] / 1e3, r["ci95"] / 1e3), str(r["n"]))
                  for r in table.to_dict("records")]


def _flow_table(flows: Any, params: Sequence[str]) -> str:
    head, rows = flow_goodput_rows(flows, params)
    if not rows:
        return "<p>No finished runs.</p>"
    cells = ["<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row[:-2])
             + f"<td class=\"num\">{_e(row[-2])}</td><td class=\"num\">{_e(row[-1])}</td></tr>" for row in rows]
    return _table(head, cells)


def sweep_summary(folder: Path, max_rows: int = 30) -> str:
    """`airtcp sweep`'s closing table: per-flow goodput per parameter point, from the folder's
    tables (the page's table, as text); at most `max_rows` rows, then where the rest is."""
    from airtcp.bench.tables import text_table
    from airtcp.experiments.analysis import load_experiment

    exp = load_experiment(folder)
    if not len(exp.flows):
        return "no finished runs"
    head, rows = flow_goodput_rows(exp.flows, [p for p in exp.params if _all_scalar(exp.runs[p])])
    if not rows:
        return "no finished runs"
    text = text_table(head, rows[:max_rows])
    if len(rows) > max_rows:
        text += f"\n... {len(rows) - max_rows} more rows: airtcp report {folder}"
    return text


def _sweep_figures(exp: Any, params: Sequence[str], figures_dir: Path) -> list[str]:
    from airtcp.experiments.figures import plot_cdf, plot_goodput_vs_time, plot_metric_vs_parameter

    done_flows = exp.flows[exp.flows["status"] == "done"]
    done_series = exp.goodput[exp.goodput["status"] == "done"] if len(exp.goodput) else exp.goodput
    parts = []
    points = _points(done_flows, params)
    for i, (label, mask_values) in enumerate(points[:MAX_TIME_FIGURES]):
        series = _select(done_series, mask_values)
        png = plot_goodput_vs_time(series, figures_dir / f"goodput_vs_time_{i}", title=label or None)[0]
        parts.append(_figure(png, f"Goodput over time per flow{': ' + label if label else ''} (mean over seeds)."))
    if len(points) > MAX_TIME_FIGURES:
        parts.append(f"<p class=\"meta\">Goodput over time is drawn for the first {MAX_TIME_FIGURES} of "
                     f"{len(points)} parameter points.</p>")
    for p in params:
        values = done_flows[p].dropna().unique()
        if len(values) < 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            continue
        # One line per flow and per value of every other swept parameter: pooling them (NewReno
        # and Cubic averaged at each loss rate) would draw a line no run had.
        others = [q for q in params if q != p and done_flows[q].nunique(dropna=False) > 1]
        legend = "flow" if not others else "flow, parameters"
        lines = done_flows.assign(**{legend: [
            ", ".join([str(r["id"]), *(f"{q} = {_short(r[q])}" for q in others)])
            for r in done_flows.to_dict("records")]})
        png = plot_metric_vs_parameter(lines, p, "goodput_bps", figures_dir / f"goodput_vs_{_slug(p)}",
                                       scheme=legend, title=f"goodput per flow against {p}")[0]
        over = "seeds" + (f"; one line per flow and value of {', '.join(others)}" if others else "; one line per flow")
        parts.append(_figure(png, f"Per-flow goodput against {p}: mean and 95 % confidence interval over the "
                                  f"{over}."))
    if len(done_flows):
        samples = {label or "all runs": _select(done_flows, values)["goodput_bps"].to_numpy()
                   for label, values in points[:MAX_CDF_LINES]}
        png = plot_cdf(samples, "goodput_bps", figures_dir / "goodput_cdf", title="per-flow goodput")[0]
        parts.append(_figure(png, "Empirical CDF of per-flow goodput over flows and seeds, per parameter point."))
    return parts


def _points(frame: Any, params: Sequence[str]) -> list[tuple[str, tuple[tuple[str, Any], ...]]]:
    """Each parameter point (scalar parameters only) with a label, in table order."""
    if not params:
        return [("", ())]
    seen: dict[tuple[Any, ...], None] = {}
    for values in frame[list(params)].itertuples(index=False, name=None):
        seen.setdefault(tuple(values), None)
    return [(", ".join(f"{p} = {_short(v)}" for p, v in zip(params, values)), tuple(zip(params, values)))
            for values in seen]


def _select(frame: Any, values: tuple[tuple[str, Any], ...]) -> Any:
    mask = None
    for p, v in values:
        m = frame[p] == v
        mask = m if mask is None else mask & m
    return frame if mask is None else frame[mask]


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text).strip("_")


# --------------------------------------------------------------------------------------------
# HTML pieces


def _figure(png: Path, caption: str) -> str:
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return (f"<figure><img alt=\"{_e(caption)}\" src=\"data:image/png;base64,{data}\">"
            f"<figcaption>{_e(caption)}</figcaption></figure>")


def _table(head: Sequence[str], rows: Sequence[str]) -> str:
    header = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _heading(level: int, text: str) -> str:
    level = min(level, 6)
    return f"<h{level}>{_e(text)}</h{level}>"


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.5g}"
    return "" if value is None else str(value)


def published_text(value: Any) -> str:
    """A published number as the paper gives it (no rounding beyond float noise); "none" where the
    paper gives none (the row's note says why it is shown)."""
    if value is None or value == "":
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _with_ci(mean: Any, half: Any) -> str:
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "-"
    text = _value(mean)
    if has_interval(mean, half):
        # Two significant digits, never in exponent notation (1.2e+02 -> 120).
        text += f" ± {float(f'{half:.2g}'):g}"
    return text


def has_interval(mean: Any, half: Any) -> bool:
    """Whether a confidence interval's half-width is worth printing: a number, and not float noise
    around an exact value (identical samples give 1e-16 rather than 0)."""
    if not isinstance(half, (int, float)) or math.isnan(half):
        return False
    scale = abs(mean) if isinstance(mean, (int, float)) and math.isfinite(mean) else 0.0
    return half == 0 or abs(half) > 1e-9 * scale


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)
