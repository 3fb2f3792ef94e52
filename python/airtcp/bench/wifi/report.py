"""The tables and text of both kinds of run, for the terminal and as Markdown: the ns-3 reference
runs (`ns3_wifi.md`) and the benchmark (`bench_wifi.md`)."""

from __future__ import annotations

from typing import Any

from airtcp.bench.tables import mark as _mark

from .chain import ONE_HOP_QUOTED_KBPS, ONE_HOP_TOLERANCE
from .common import (
    GOODPUT_TOLERANCE,
    SPEED_TARGET,
    _fmt,
    _table,
    failed_runs_markdown,
    print_failed_runs,
)
from .scale import SCALE_RSS_TARGET_BYTES, SCALE_WALL_TARGET_S

# --------------------------------------------------------------------------------------------
# The ns-3 reference runs


def chain_tables(chain: dict[str, Any], markdown: bool = False) -> str:
    variants = chain["variants"]
    names = list(variants)
    base = variants[names[0]]
    headers = (
        ["N"]
        + [f"{n} kbps" for n in names]
        + [
            "sd",
            "MAC fails",
            "retry drops",
            "expired",
            "frames",
            "events",
            "Run() s",
        ]
    )
    rows = []
    for i, row in enumerate(base):
        cells = [str(row["hops"])]
        cells += [_fmt(variants[n][i]["goodput_kbps"]) for n in names]
        cells += [
            _fmt(row["goodput_kbps_sd"]),
            _fmt(row["mac_data_failed"], ".0f"),
            _fmt(row["mac_retry_drops"], ".0f"),
            _fmt(row["mac_expired_drops"], ".0f"),
            _fmt(row["frames_tx"], ".0f"),
            _fmt(row["events"], ".0f"),
            _fmt(row["sim_wall_s"], ".2f"),
        ]
        rows.append(cells)
    return _table(headers, rows, markdown)


def recovery_text(section: dict[str, Any]) -> str:
    """The TCP recovery a chain or grid section of a reference run ran with: "PRR", "classic"
    (the settings record it per variant for chains), or both names when they differ."""
    settings = section.get("settings") or {}
    found = [v.get("recovery") for v in settings.get("variants") or []] or [settings.get("recovery")]
    names = sorted({"PRR" if r == "prr" else str(r) for r in found})
    return "/".join(names)


def chain11a_tables(chain: dict[str, Any], markdown: bool = False) -> str:
    """The 802.11a chains: a row per data rate and length, every column for that rate."""
    headers = [
        "rate",
        "N",
        "kbps",
        "sd",
        "ACK rate",
        "MAC fails",
        "retry drops",
        "expired",
        "queue full",
        "frames",
        "events",
        "Run() s",
    ]
    rows = []
    for name, variant_rows in chain["variants"].items():
        for row in variant_rows:
            rows.append(
                [
                    name,
                    str(row["hops"]),
                    _fmt(row["goodput_kbps"]),
                    _fmt(row["goodput_kbps_sd"]),
                    row.get("ack_mode") or "n/a",
                    _fmt(row["mac_data_failed"], ".0f"),
                    _fmt(row["mac_retry_drops"], ".0f"),
                    _fmt(row["mac_expired_drops"], ".0f"),
                    _fmt(row["mac_enqueue_drops"], ".0f"),
                    _fmt(row["frames_tx"], ".0f"),
                    _fmt(row["events"], ".0f"),
                    _fmt(row["sim_wall_s"], ".2f"),
                ]
            )
    return _table(headers, rows, markdown)


def _over_seeds_cells(summary: dict[str, Any], name: str) -> list[str]:
    """Mean, standard deviation and per-seed values of `name` in `summary` (see `over_seeds`)."""
    return [
        _fmt(summary[name]),
        _fmt(summary[f"{name}_sd"]),
        " ".join(_fmt(g) for g in summary[f"{name}_per_seed"]),
    ]


def grid_tables(grid: dict[str, Any], markdown: bool = False) -> str:
    headers = ["flow", "src", "dst", "start s", "kbps", "sd", "per seed"]
    rows = [
        [str(f["flow"]), str(f["src"]), str(f["dst"]), _fmt(f["start_s"], ".1f")]
        + _over_seeds_cells(f, "goodput_kbps")
        for f in grid["flows"]
    ]
    rows.append(["total", "", "", ""] + _over_seeds_cells(grid, "total_goodput_kbps"))
    cost = (
        f"Run() {_fmt(grid['sim_wall_s'], '.1f')} s, "
        f"command {_fmt(grid['cmd_wall_s'], '.1f')} s, "
        f"{_fmt(grid['events'], '.0f')} events, {_fmt(grid['frames_tx'], '.0f')} frames, "
        f"peak RSS {_fmt(grid['peak_rss_kib'], 'd')} KiB (means over seeds; RSS the largest)"
    )
    return _table(headers, rows, markdown) + "\n\n" + cost


def saturation_tables(sat: dict[str, Any], markdown: bool = False) -> str:
    """The saturation rows; 802.11a's add Bianchi's original model (`bianchi_original_kbps`)."""
    original = any("bianchi_original_kbps" in r for r in sat["rows"])
    headers = [
        "data rate",
        "access",
        "N",
        "ns-3 kbps",
        "sd",
        "Bianchi kbps",
        "ns-3/Bianchi",
    ]
    if original:
        headers += ["original kbps", "ns-3/original"]
    headers += ["ACK rate", "MAC fails", "Run() s"]
    rows = []
    for r in sat["rows"]:
        cells = [
            r["data_mode"],
            r["access"],
            str(r["stations"]),
            _fmt(r["throughput_kbps"]),
            _fmt(r["throughput_kbps_sd"]),
            _fmt(r["bianchi_kbps"]),
            _fmt(r["ns3_over_bianchi"], ".3f"),
        ]
        if original:
            cells += [
                _fmt(r.get("bianchi_original_kbps")),
                _fmt(r.get("ns3_over_bianchi_original"), ".3f"),
            ]
        cells += [
            r["ack_mode"] or "n/a",
            _fmt((r["mac_data_failed"] or 0) + (r["mac_rts_failed"] or 0), ".0f"),
            _fmt(r["sim_wall_s"], ".2f"),
        ]
        rows.append(cells)
    return _table(headers, rows, markdown)


def dcf_line(params: dict[str, Any]) -> str:
    d = params["dcf"]
    return (
        f"DCF as ns-3 runs it: slot {d['slot_us']:g} us, SIFS {d['sifs_us']:g} us, AIFSN "
        f"{d['aifsn']} (DIFS {d['difs_us']:g} us), CW {d['cw_min']}..{d['cw_max']}, "
        f"{d['frame_retry_limit']} attempts per frame, MAC queue {d['mac_queue_max_packets']} "
        f"packets / {d['mac_queue_max_delay_ms']:g} ms"
    )


def dcf_line_11a(params: dict[str, Any]) -> str:
    d = params["dcf"]
    return (
        f"802.11a: {dcf_line(params)}; EIFS {d['eifs_us']:g} us, ACK timeout "
        f"{d['ack_timeout_us']:g} us after the frame; basic rate set "
        f"{', '.join(d['basic_rate_set'])}"
    )


def one_hop_line(chain: dict[str, Any]) -> str | None:
    variants = chain["variants"]
    basic = {v["name"] for v in chain["settings"]["variants"] if not v["rtscts"]}
    parts = []
    for name, rows in variants.items():
        if name not in basic:  # the quoted figure is for basic access
            continue
        for row in rows:
            if row["hops"] == 1 and row["goodput_kbps"] is not None:
                ratio = row["goodput_kbps"] / ONE_HOP_QUOTED_KBPS
                ok = abs(ratio - 1) <= ONE_HOP_TOLERANCE
                mark = "" if ok else ", outside"
                parts.append(f"{name} {row['goodput_kbps']:.1f} kbps ({ratio:.3f}{mark})")
    if not parts:
        return None
    return f"one hop vs the quoted {ONE_HOP_QUOTED_KBPS:g} kbps: " + "; ".join(parts)


def format_markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    lines = [
        f"# ns-{report['ns3']} 802.11b/802.11a reference figures",
        "",
        f"- date: {report['date']}; seeds 1..{report['seeds']}; quick: {report['quick']}",
        f"- machine: {env['cpu']}, {env['cores']} cores",
        f"- {dcf_line(report['params'])}",
    ]
    if "params_11a" in report:
        lines.append(f"- {dcf_line_11a(report['params_11a'])}")
    lines.append("")
    if "chain" in report:
        chain = report["chain"]
        lines += [
            f"## chain ({chain['settings']['duration_s']:g} s, goodput mean over seeds; other "
            "columns: the first variant, means over seeds)",
            "",
            chain_tables(chain, markdown=True),
            "",
        ]
        hop = one_hop_line(chain)
        if hop:
            lines += [hop, ""]
    if "grid" in report:
        lines += [
            f"## grid ({report['grid']['settings']['duration_s']:g} s, "
            f"{recovery_text(report['grid'])} recovery)",
            "",
            grid_tables(report["grid"], markdown=True),
            "",
        ]
    if "saturation" in report:
        lines += [
            f"## saturation ({report['saturation']['settings']['window_s']:g} s window)",
            "",
            saturation_tables(report["saturation"], markdown=True),
            "",
        ]
    if "chain11a" in report:
        lines += [
            f"## chain11a (802.11a, {report['chain11a']['settings']['duration_s']:g} s, basic "
            f"access, {recovery_text(report['chain11a'])} recovery; means over seeds)",
            "",
            chain11a_tables(report["chain11a"], markdown=True),
            "",
        ]
    if "saturation11a" in report:
        lines += [
            f"## saturation11a (802.11a, "
            f"{report['saturation11a']['settings']['window_s']:g} s window, basic access)",
            "",
            saturation_tables(report["saturation11a"], markdown=True),
            "",
        ]
    lines += failed_runs_markdown(report.get("errors") or [])
    return "\n".join(lines)


def print_report(report: dict[str, Any]) -> None:
    print(f"ns-{report['ns3']} 802.11b/802.11a reference, seeds 1..{report['seeds']}")
    print(dcf_line(report["params"]))
    if "params_11a" in report:
        print(dcf_line_11a(report["params_11a"]))
    if "chain" in report:
        chain = report["chain"]
        print(
            f"\nchain: {chain['settings']['duration_s']:g} s, goodput = mean over seeds; "
            "MAC/cost columns for the first variant"
        )
        print(chain_tables(chain))
        hop = one_hop_line(chain)
        if hop:
            print(hop)
    if "grid" in report:
        print(
            f"\ngrid: {report['grid']['settings']['duration_s']:g} s, AODV, 10 TCP flows, "
            f"{recovery_text(report['grid'])} recovery"
        )
        print(grid_tables(report["grid"]))
    if "saturation" in report:
        print(f"\nsaturation: {report['saturation']['settings']['window_s']:g} s window, UDP")
        print(saturation_tables(report["saturation"]))
    if "chain11a" in report:
        print(
            f"\nchain11a: 802.11a, {report['chain11a']['settings']['duration_s']:g} s, basic "
            f"access, {recovery_text(report['chain11a'])} recovery"
        )
        print(chain11a_tables(report["chain11a"]))
    if "saturation11a" in report:
        print(
            f"\nsaturation11a: 802.11a, {report['saturation11a']['settings']['window_s']:g} s "
            "window, UDP, basic access"
        )
        print(saturation_tables(report["saturation11a"]))
    print_failed_runs(report.get("errors", []))


# --------------------------------------------------------------------------------------------
# The benchmark

BENCH_COLUMNS = (
    ("case", "case", None),
    ("airtcp kbps", "goodput_airtcp_kbps", ".1f"),
    ("ns-3 kbps", "goodput_ns3_kbps", ".1f"),
    ("ratio", "goodput_ratio", ".3f"),
    ("sim airtcp s", "sim_wall_airtcp_s", ".3f"),
    ("sim ns-3 s", "sim_wall_ns3_s", ".2f"),
    ("speed x", "speed_ratio", ".0f"),
    ("cmd airtcp s", "cmd_wall_airtcp_s", ".2f"),
    ("cmd ns-3 s", "cmd_wall_ns3_s", ".2f"),
    ("cmd x", "cmd_ratio", ".1f"),
)


def bench_table(rows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = [title for title, _, _ in BENCH_COLUMNS] + ["targets"]
    body = []
    for row in rows:
        cells = [
            row[key] if spec is None else _fmt(row[key], spec) for _, key, spec in BENCH_COLUMNS
        ]
        cells.append(f"goodput {_mark(row['goodput_ok'])}, speed {_mark(row['speed_ok'])}")
        body.append(cells)
    return _table(headers, body, markdown)


def bench_grid_flow_table(flows: list[dict[str, Any]], markdown: bool = False) -> str:
    headers = ["flow", "src", "dst", "start s", "airtcp kbps", "ns-3 kbps", "ratio"]
    rows = [
        [
            str(f["flow"]),
            str(f["src"]),
            str(f["dst"]),
            _fmt(f["start_s"], ".1f"),
            _fmt(f["goodput_airtcp_kbps"]),
            _fmt(f["goodput_ns3_kbps"]),
            _fmt(f["goodput_ratio"], ".2f"),
        ]
        for f in flows
    ]
    return _table(headers, rows, markdown)


def scale_lines(scales: list[dict[str, Any]]) -> list[str]:
    """The scale case's lines, a block per mesh size."""
    lines: list[str] = []
    for scale in scales:
        lines += _scale_size_lines(scale)
    return lines


def _scale_size_lines(scale: dict[str, Any]) -> list[str]:
    lines = [
        f"{scale['nodes']} nodes in {scale['width_m'] / 1e3:g} km x {scale['height_m'] / 1e3:g} km "
        f"(range {scale['range_m']:g} m, mean degree {scale['mean_degree']:g}, "
        f"{scale['placements_redone']} placements redone to connect it), static routes, "
        f"{scale['flows']} TCP flows ({scale['hops_min']}-{scale['hops_max']} hops, mean "
        f"{_fmt(scale['hops_mean'])}), {scale['duration_s']:g} s simulated",
    ]
    if scale.get("run") is None:
        lines.append("the run failed (see below)")
        return lines
    rss = scale["peak_rss_kib"]
    rss_text = "n/a" if rss is None else f"{rss / 1024:.0f} MiB"
    targets = scale.get("targets") or {}
    wall_target = targets.get("wall_s", SCALE_WALL_TARGET_S)
    rss_target = targets.get("peak_rss_bytes", SCALE_RSS_TARGET_BYTES)
    wall_text = "none" if wall_target == float("inf") else f"< {wall_target / 60:g} min"
    lines += [
        f"wall time: simulation loop {_fmt(scale['sim_wall_s'], '.1f')} s "
        f"({_fmt(scale.get('events_per_s'), ',.0f')} events/s), outside it (start-up, set-up, "
        f"results) {_fmt(scale.get('setup_s'), '.1f')} s (the core's set-up "
        f"{_fmt(scale.get('core_setup_s'), '.1f')} s, its results "
        f"{_fmt(scale.get('core_results_s'), '.2f')} s), whole command "
        f"{_fmt(scale['cmd_wall_s'], '.1f')} s (target {wall_text}: {_mark(scale['wall_ok'])})",
        f"peak RSS of the airtcp process: {rss_text}, {_fmt(scale.get('rss_per_node_kib'))} KiB "
        f"per node (target < {rss_target / 1e9:g} GB: {_mark(scale['rss_ok'])})",
        f"{_fmt(scale['events'], ',')} events; total goodput {_fmt(scale['total_goodput_kbps'])} "
        f"kbps, {scale['flows_delivering']} of {scale['flows']} flows delivered data; "
        f"placing the mesh took {scale['prepare_s']:g} s (not in the times above)",
    ]
    ratios = scale.get("against_baseline")
    if ratios is not None:
        base = scale["baseline"]
        lines.append(
            f"this build against {base['label']} (ratios of this build to it): whole command "
            f"{_fmt(ratios['cmd_wall_s'], '.3f')}x, outside the loop {_fmt(ratios['setup_s'], '.3f')}x, loop {_fmt(ratios['sim_wall_s'], '.3f')}x, "
            f"events/s {_fmt(ratios['events_per_s'], '.3f')}x, peak RSS "
            f"{_fmt(ratios['peak_rss_kib'], '.3f')}x (its loop {_fmt(base['sim_wall_s'], '.1f')} s, "
            f"peak {_fmt(base['peak_rss_kib'], ',')} KiB); same results: "
            f"{'yes' if scale.get('same_results') else 'NO'}"
        )
    return lines


def ns3_source_line(report: dict[str, Any]) -> str:
    recovery = report.get("recovery", "prr")
    name = "PRR" if recovery == "prr" else recovery
    if report["ns3_source"] == "live":
        return (
            f"ns-3 {report['ns3']}: run live in this benchmark run (bench/wifi/*.cc; basic access); "
            f"TCP with {name} recovery in both simulators"
        )
    ref = report["reference"]
    machine = ref.get("machine") or {}
    load = (machine.get("load_average_1min") or {}).get("start")
    return (
        f"ns-3 {report['ns3']}: NOT run now; stored figures from {ref['file']} ({ref['date']}, "
        f"{machine.get('cpu')}, load {load}); its wall times are means over its seeds "
        f"{', '.join(str(s) for s in range(1, (ref.get('seeds') or 0) + 1))}; TCP with {name} "
        "recovery in both simulators"
    )


def _headline(report: dict[str, Any]) -> list[str]:
    seeds = report["seeds"]
    durations = []
    if "chain" in report:
        durations.append(f"chain {report['chain']['duration_s']:g} s")
    if "chain11a" in report:
        durations.append(f"802.11a chain {report['chain11a']['duration_s']:g} s")
    if "grid" in report:
        durations.append(f"grid {report['grid']['duration_s']:g} s")
    simulated = ", ".join(durations) or "no ns-3 case"
    return [
        f"airtcp vs ns-3 {report['ns3']}, 802.11 multi-hop: {simulated} simulated; seeds "
        f"{seeds[0]}..{seeds[-1]}; goodput = mean over seeds (grid: sum of its 10 flows), wall "
        "times = mean per run",
        ns3_source_line(report),
    ]


def _targets_line() -> str:
    return (
        f"targets: goodput ratio within 1 ± {GOODPUT_TOLERANCE:.2f}; speed (ns-3 Simulator::Run() "
        f"/ airtcp simulation loop) >= {SPEED_TARGET:g}x; scale: whole command < "
        f"{SCALE_WALL_TARGET_S / 60:g} min, peak RSS < {SCALE_RSS_TARGET_BYTES / 1e9:g} GB"
    )


def format_bench_markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    load = env.get("load_average_1min") or {}
    lines = ["# airtcp vs ns-3, 802.11b/802.11a multi-hop", ""]
    lines += [f"- {line}" for line in _headline(report)]
    lines += [
        f"- date: {report['date']}; machine: {env['cpu']}, {env['cores']} cores; 1-minute load "
        f"{load.get('start')} at the start, {load.get('end')} at the end",
        f"- {_targets_line()}",
        "",
        "`sim` is the simulation loop alone (airtcp: `timing.json` `wall_s`; ns-3: "
        "`Simulator::Run()`), `cmd` the whole command (process start, scenario, output).",
        "",
    ]
    if report["rows"]:
        lines += [bench_table(report["rows"], markdown=True), ""]
    if "grid" in report:
        lines += ["## grid, per flow (mean over seeds)", ""]
        lines += [bench_grid_flow_table(report["grid"]["flows"], markdown=True), ""]
    if "scale" in report:
        lines += ["## scale (airtcp only)", ""]
        lines += [f"- {line}" for line in scale_lines(report["scale"])]
        lines.append("")
    if report["template_problems"]:
        lines += ["## Templates that differ from the ns-3 programs", ""]
        lines += [f"- {p}" for p in report["template_problems"]] + [""]
    lines += failed_runs_markdown(report["errors"])
    return "\n".join(lines)


def print_bench(report: dict[str, Any]) -> None:
    for line in _headline(report):
        print(line)
    if report["rows"]:
        print()
        print(bench_table(report["rows"]))
    print(_targets_line())
    if "grid" in report:
        print("\ngrid, per flow (mean over seeds):")
        print(bench_grid_flow_table(report["grid"]["flows"]))
    if "scale" in report:
        print("\nscale (airtcp only):")
        for line in scale_lines(report["scale"]):
            print(f"  {line}")
    for problem in report["template_problems"]:
        print(f"warning: {problem}")
    print_failed_runs(report["errors"])
