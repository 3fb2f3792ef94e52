"""A drawing of a scenario's topology: where the nodes are, how far their radios reach, which links
exist, the route each flow takes and, given a finished run, how much each link was used.

Everything drawn comes from the simulator core (`_core.layout_json`), which builds the scenario the
way a run does: the same placement, propagation and static routing, so the picture cannot drift
from what is simulated. Ranges are the distances at which the *mean* received power falls to the
receive and carrier-sense thresholds (no fading); routes are known only for static routing, AODV
finds its own while the run goes, which is what `run_dir` (link usage) is for. See docs/draw.md.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from airtcp import _core
from airtcp.scenario.schema import Scenario, to_core_json
from airtcp.errors import ScenarioError

__all__ = ["Layout", "Usage", "draw_scenario", "load_layout", "read_usage", "refused_flows"]

MAX_NAMED_NODES = 60  # above this, names would cover the drawing: only flow ends are named
MAX_RANGE_NODES = 12  # above this, range circles are drawn around flow sources only
MAX_FLOW_ENTRIES = 20  # flows listed in the legend; the rest are summed up in one entry

# Colours. Orange is kept for link usage, so the flows take tab10 without it.
FLOW_COLOURS = ("#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
USAGE_COLOUR = "#ff7f0e"
RANGE_COLOUR = "#3a6ea5"
WIRED_STYLE = {"color": "#333333", "linewidth": 1.6, "linestyle": "-"}
DOWNLINK_STYLE = {"color": "#7b3294", "linewidth": 1.4, "linestyle": "-."}
RADIO_COLOURS = ("#a8a8a8", "#a6761d", "#1b9e77", "#7570b3", "#e6ab02", "#666666")
RADIO_LINESTYLES = ("-", "--", "-.", ":")
USAGE_MAX_WIDTH = 10.0  # points, for the most used link
USAGE_MIN_WIDTH = 0.5  # points: a link used at all stays visible

# The schematic grid of nodes without positions (arbitrary units).
COLUMN_GAP = 2.0
ROW_GAP = 1.0

_CHANNEL_SUFFIX = re.compile(r"^(?P<node>.+) ch(?P<channel>\d+)$")


class Edge(NamedTuple):
    """An undirected link as drawn: both ends (in node order), its kind and radio channel."""

    a: str
    b: str
    kind: str  # "wired", "radio" or "downlink"
    channel: int | None


@dataclass(frozen=True)
class Layout:
    """The core's layout with a drawing position for every node.

    `placed` are the nodes with a real position (metres); the others got a substitute one.
    """

    name: str
    order: dict[str, int]
    xy: dict[str, tuple[float, float]]
    placed: frozenset[str]
    radio: Mapping[str, float] | None
    edges: tuple[Edge, ...]
    flows: tuple[Mapping[str, Any], ...]
    routing_at_run_time: bool  # AODV: a flow without a route has one, found while the run goes
    # The paths of moving nodes over the run: name -> (t_s, x, y) lists; nodes sit at their start.
    trajectories: Mapping[str, tuple[list[float], list[float], list[float]]] = field(default_factory=dict)

    @property
    def schematic(self) -> bool:
        """No node has a position: the axes carry no units."""
        return not self.placed

    def edge(self, u: str, v: str, kind: str, channel: int | None) -> Edge:
        """The undirected edge of the directed link u -> v."""
        a, b = sorted((u, v), key=self.order.__getitem__)
        return Edge(a, b, kind, channel)


@dataclass(frozen=True)
class Usage:
    """How much a run used each link: MAC attempts (radio) or packets sent (wired, downlink),
    both directions added, per undirected edge."""

    amounts: dict[Edge, float]
    source: Path

    def groups(self) -> list[tuple[str, dict[Edge, float]]]:
        """The used edges by what their amount counts: MAC attempts on radio links, packets on
        wired links and downlinks. Each group gets its own width scale, since a wired link's
        packets and a radio link's attempts are not comparable."""
        groups: list[tuple[str, dict[Edge, float]]] = []
        for unit, radio in (("MAC attempts", True), ("packets sent", False)):
            part = {e: amount for e, amount in self.amounts.items() if amount > 0 and (e.kind == "radio") == radio}
            if part:
                groups.append((unit, part))
        return groups


# --- The layout -------------------------------------------------------------------------------


def load_layout(scenario: Scenario) -> Layout:
    """Lays the scenario out with the core (every check a run makes) and places the nodes that
    have no position. Raises `ScenarioError` for a field the core rejects."""
    raw = _core_layout(scenario)
    order = {node["name"]: index for index, node in enumerate(raw["nodes"])}
    edges = _edges(raw["links"], order)
    flows = tuple(raw["flows"])
    placed = {node["name"]: (float(node["x"]), float(node["y"])) for node in raw["nodes"] if node["x"] is not None}
    unplaced = [node["name"] for node in raw["nodes"] if node["x"] is None]
    radio = raw.get("radio")
    if not placed:
        xy = _layered(list(order), edges, [flow["src"] for flow in flows])
    else:
        xy = {**placed, **_row_below(unplaced, placed, _reach(radio, _span(placed.values())))}
    return Layout(
        name=scenario.name,
        order=order,
        xy=xy,
        placed=frozenset(placed),
        radio=radio,
        edges=edges,
        flows=flows,
        routing_at_run_time=scenario.routing.kind == "aodv",
        trajectories={t["name"]: (t["t_s"], t["x"], t["y"]) for t in raw.get("trajectories", ())},
    )


def refused_flows(layout: Layout) -> list[str]:
    """The flows a run would refuse because no route joins their ends (an end out of radio range,
    no usable path), each as `flow ID (PATH: WHY)`. The drawing shows them so that the reason can
    be seen; `airtcp run` stops at the first."""
    return [f"flow {flow['id']} ({flow['unreachable']})" for flow in layout.flows if flow.get("unreachable")]


def _core_layout(scenario: Scenario) -> dict[str, Any]:
    """The core's layout JSON; its errors are mapped as a run maps them (the same checks)."""
    from airtcp.api import _core_error

    try:
        return json.loads(_core.layout_json(to_core_json(scenario)))
    except ValueError as error:
        raise _core_error(str(error)) from None


def _edges(links: Iterable[Mapping[str, Any]], order: Mapping[str, int]) -> tuple[Edge, ...]:
    """The directed links as undirected edges, each once, in the order the core lists them."""
    seen: dict[Edge, None] = {}
    for link in links:
        a, b = sorted((link["from"], link["to"]), key=order.__getitem__)
        seen.setdefault(Edge(a, b, link["kind"], link["channel"]), None)
    return tuple(seen)


def _span(points: Iterable[tuple[float, float]]) -> float:
    """The larger side of the points' bounding box (0 for one point)."""
    points = list(points)
    if not points:
        return 0.0
    xs, ys = zip(*points)
    return max(max(xs) - min(xs), max(ys) - min(ys))


def _reach(radio: Mapping[str, float] | None, span: float) -> float:
    """How far range circles extend the drawing: their radius, but never more than the nodes'
    own extent, so a 10 km free-space reach does not shrink the network to a dot (the circles are
    then clipped; the legend still gives the value)."""
    if not radio:
        return 0.0
    radius = max(radio["receive_m"], radio["carrier_sense_m"])
    if not math.isfinite(radius):
        radius = 0.0
    return min(radius, span) if span > 0 else radius


def _row_below(
    names: Sequence[str], placed: Mapping[str, tuple[float, float]], reach: float
) -> dict[str, tuple[float, float]]:
    """Nodes without a position (wired servers next to a wireless network) in a row under the
    placed ones, clear of their range circles, spread over the same width."""
    if not names:
        return {}
    xs = [x for x, _ in placed.values()]
    ys = [y for _, y in placed.values()]
    span = _span(placed.values()) or 100.0  # one placed node: any sensible spacing will do
    y = min(ys) - reach - 0.25 * span
    left, right = min(xs), max(xs)
    if len(names) == 1 or right == left:
        step = span / 4
        left = (left + right) / 2 - step * (len(names) - 1) / 2
    else:
        step = (right - left) / (len(names) - 1)
    return {name: (left + i * step, y) for i, name in enumerate(names)}


def _layered(names: Sequence[str], edges: Iterable[Edge], sources: Sequence[str]) -> dict[str, tuple[float, float]]:
    """A schematic layout for scenarios without positions: columns by hop distance from the flow
    sources, left to right, so a dumbbell reads as one (senders, routers, receivers); within a
    column nodes are ordered by their neighbours in the previous one, which avoids most crossings."""
    neighbours: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        neighbours[edge.a].append(edge.b)
        neighbours[edge.b].append(edge.a)
    depth = _depths(names, neighbours, sources)
    columns: dict[int, list[str]] = defaultdict(list)
    for name in names:  # node order within a column, before sorting
        columns[depth[name]].append(name)
    row: dict[str, int] = {}
    xy: dict[str, tuple[float, float]] = {}
    for column in sorted(columns):
        members = columns[column]
        if column > 0:
            members.sort(key=lambda n: _barycentre(n, neighbours, row, depth, column - 1))
        for i, name in enumerate(members):
            row[name] = i
            xy[name] = (column * COLUMN_GAP, ((len(members) - 1) / 2 - i) * ROW_GAP)
    return xy


def _depths(names: Sequence[str], neighbours: Mapping[str, list[str]], sources: Sequence[str]) -> dict[str, int]:
    """Hop distance from the nearest source (breadth first); parts the sources do not reach
    start again in the columns after the last one."""
    depth: dict[str, int] = {}
    starts = list(dict.fromkeys(sources)) or list(names[:1])
    base = 0
    while True:
        queue = deque(s for s in starts if s not in depth)
        for start in queue:
            depth[start] = base
        while queue:
            node = queue.popleft()
            for other in neighbours.get(node, []):
                if other not in depth:
                    depth[other] = depth[node] + 1
                    queue.append(other)
        rest = [name for name in names if name not in depth]
        if not rest:
            return depth
        base = max(depth.values()) + 1
        starts = rest[:1]


def _barycentre(
    name: str, neighbours: Mapping[str, list[str]], row: Mapping[str, int], depth: Mapping[str, int], column: int
) -> float:
    """Mean row of the node's neighbours in `column` (inf without any: it goes last)."""
    rows = [row[n] for n in neighbours.get(name, []) if depth[n] == column and n in row]
    return sum(rows) / len(rows) if rows else math.inf


# --- Link usage from a run --------------------------------------------------------------------


def read_usage(run_dir: str | Path, layout: Layout) -> Usage:
    """Per undirected edge, MAC attempts (links.parquet) or packets transmitted (queues.parquet)
    of a directory written by `airtcp run`, both directions added.

    Raises `ScenarioError("--run", ...)` if the directory does not hold results or names nodes
    the scenario does not have (a run of another scenario)."""
    directory = Path(run_dir)
    if not directory.is_dir():
        raise ScenarioError("--run", f"{directory}: no such directory (write one with `airtcp run FILE --out DIR`)")
    links = _read_table(directory, "links", ("from", "to", "attempts"))
    queues = _read_table(directory, "queues", ("queue", "transmitted"))
    amounts: dict[Edge, float] = defaultdict(float)
    channels: dict[tuple[str, str], int | None] = {}
    for e in layout.edges:
        if e.kind == "radio":
            channels.setdefault((e.a, e.b), e.channel)
    for end_from, end_to, attempts in zip(links["from"], links["to"], links["attempts"]):
        if attempts:
            edge = _radio_edge(str(end_from), str(end_to), layout, channels, directory)
            amounts[edge] += float(attempts)
    wired = _queue_edges(layout)
    for queue, transmitted in zip(queues["queue"], queues["transmitted"]):
        edge = wired.get(str(queue))
        if edge is None:
            if not str(queue).startswith("radio "):
                raise _foreign_run(directory, f"queue {str(queue)!r}")
            continue
        if transmitted:
            amounts[edge] += float(transmitted)
    return Usage(dict(amounts), directory)


def _read_table(directory: Path, name: str, columns: Sequence[str]) -> dict[str, list[Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = directory / f"{name}.parquet"
    if not path.is_file():
        if (directory / "summary.json").is_file():
            return {column: [] for column in columns}  # a run writes no file for an empty table
        raise ScenarioError(
            "--run", f"{directory} has no {path.name} nor summary.json: not a directory written by "
            "`airtcp run FILE --out DIR`"
        )
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as error:
        raise ScenarioError("--run", f"cannot read {path}: {error}") from None
    missing = [column for column in columns if column not in table.column_names]
    if missing:
        raise ScenarioError("--run", f"{path}: missing columns: {', '.join(missing)}")
    return {column: table.column(column).to_pylist() for column in columns}


def _radio_edge(
    end_from: str, end_to: str, layout: Layout, channels: Mapping[tuple[str, str], int | None], directory: Path
) -> Edge:
    """The edge of a links.parquet row. Ends of multi-radio nodes carry the radio's channel
    (`n2 ch6`); when neither does, both nodes have one radio and share one channel, which
    `channels` (pair in node order -> channel of its radio link) gives."""
    u, channel_u = _radio_end(end_from, layout, directory)
    v, channel_v = _radio_end(end_to, layout, directory)
    edge = layout.edge(u, v, "radio", channel_u if channel_u is not None else channel_v)
    if edge.channel is None:
        edge = edge._replace(channel=channels.get((edge.a, edge.b)))
    return edge


def _radio_end(end: str, layout: Layout, directory: Path) -> tuple[str, int | None]:
    """A node name of links.parquet as (node, channel of its radio if the name says)."""
    if end in layout.order:
        return end, None
    match = _CHANNEL_SUFFIX.match(end)
    if match is not None and match["node"] in layout.order:
        return match["node"], int(match["channel"])
    raise _foreign_run(directory, f"node {end!r}")


def _queue_edges(layout: Layout) -> dict[str, Edge]:
    """Queue name -> edge, for every wired channel (`A->B`, a base station's user's `uplink A->B`)
    and every downlink (`downlink BS->U`), built from the layout so odd node names cannot
    confuse a parser."""
    names: dict[str, Edge] = {}
    for edge in layout.edges:
        if edge.kind == "radio":
            continue
        for u, v in ((edge.a, edge.b), (edge.b, edge.a)):
            if edge.kind == "wired":
                names[f"{u}->{v}"] = edge
                names[f"uplink {u}->{v}"] = edge
            else:
                names[f"downlink {u}->{v}"] = edge
    return names


def _foreign_run(directory: Path, what: str) -> ScenarioError:
    return ScenarioError("--run", f"{directory} has {what}, which this scenario does not: a run of another scenario?")


# --- Drawing ----------------------------------------------------------------------------------


def draw_scenario(
    scenario: Scenario, out: str | Path, *, run_dir: str | Path | None = None, layout: Layout | None = None
) -> list[Path]:
    """Draws the scenario's topology into OUT.png and OUT.svg (each written atomically) and
    returns their paths.

    With `run_dir` (a directory written by `airtcp run` of this scenario) the links are also drawn
    as wide as they were used. Raises `ScenarioError` for bad input, before anything is written. A
    flow whose ends no route joins is drawn by its ends with the reason a run gives
    (`refused_flows`); `layout` is the scenario's `load_layout`, when the caller has it already.
    """
    from airtcp.experiments.figures import _pyplot, _save

    if layout is None:
        layout = load_layout(scenario)
    usage = read_usage(run_dir, layout) if run_dir is not None else None
    plt = _pyplot()
    limits = _limits(layout)
    fig, ax = plt.subplots(figsize=_figure_size(limits, layout.schematic))
    try:
        _Drawing(ax, layout, usage, limits, wired_labels(scenario)).draw()
        return _save(fig, _stem(out))
    finally:
        plt.close(fig)


def _stem(out: str | Path) -> Path:
    """OUT without a suffix of its own, so `chain.v2-topology` does not become `chain.png`
    (`_save` replaces the suffix); `x.png` and `x.svg` mean the stem x."""
    path = Path(out)
    if path.suffix.lower() in ("", ".png", ".svg"):
        return path
    return path.with_name(f"{path.name}.png")


class _Limits(NamedTuple):
    x0: float
    x1: float
    y0: float
    y1: float


def _limits(layout: Layout) -> _Limits:
    """The drawn area: the nodes, the part of their range circles worth showing, and a margin
    for the names."""
    points = list(layout.xy.values())
    for _, px, py in layout.trajectories.values():
        points.extend(zip(px, py))
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    span = _span(points)
    reach = 0.0 if layout.schematic else _reach(layout.radio, _span([layout.xy[n] for n in layout.placed]))
    pad = 0.6 * ROW_GAP if layout.schematic else max(0.06 * max(span, reach), 1.0)
    grow = reach + pad
    return _Limits(min(xs) - grow, max(xs) + grow, min(ys) - grow, max(ys) + grow)


def _figure_size(limits: _Limits, schematic: bool) -> tuple[float, float]:
    """Inches: the drawn area at its true aspect, at most 7.5 in on a side; the legend sits
    outside on the right and the saved image is cropped to what is drawn. A schematic layout
    gets at most 1.2 in per grid step: its units mean nothing, and two nodes need no full page."""
    width, height = limits.x1 - limits.x0, limits.y1 - limits.y0
    scale = min(7.5 / width, 7.5 / height, 1.2 if schematic else math.inf)
    return max(width * scale, 3.0) + 1.0, max(height * scale, 2.0) + 1.0


def _plain(text: str) -> str:
    """User text (names, ids, paths) as literal text: an even number of `$` would otherwise make
    matplotlib typeset it as mathematics, and fail on some."""
    return text.replace("$", r"\$")


def _range_label(metres: float) -> str:
    return f"{metres:.0f} m" if metres >= 10 else f"{metres:.1f} m"


def wired_labels(scenario: Scenario) -> dict[tuple[str, str], str]:
    """Each wired link's rate and one-way delay as drawn beside it ("2 Mb/s, 20 ms"), by its pair
    of nodes in either order; a pair linked twice shows both."""
    from airtcp.scenario.units import format_duration, format_rate

    labels: dict[frozenset[str], list[str]] = defaultdict(list)
    for link in scenario.links:
        text = f"{format_rate(link.rate)}, {format_duration(link.delay)}"
        pair = frozenset((link.from_, link.to))
        if text not in labels[pair]:
            labels[pair].append(text)
    return {(a, b): "; ".join(texts) for pair, texts in labels.items() for a in pair for b in pair if a != b}


class _Drawing:
    """One figure: each `_draw_*` method adds a layer and its legend entries."""

    def __init__(self, ax: Any, layout: Layout, usage: Usage | None, limits: _Limits,
                 link_labels: Mapping[tuple[str, str], str] | None = None):
        self.ax = ax
        self.link_labels = dict(link_labels or {})
        self.layout = layout
        self.usage = usage
        self.limits = limits
        self.legend: list[tuple[Any, str]] = []
        self.notes: list[str] = []
        # Several edges between one pair (two channels, a downlink beside its uplink), and routes
        # beside their links, are drawn side by side, this far apart (data units).
        self.gap = 0.01 * max(limits.x1 - limits.x0, limits.y1 - limits.y0)
        # The edges between each pair of nodes: the layout's, then any only the run used (a link
        # beyond the mean range that fading let through).
        self.pairs: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        for edge in dict.fromkeys([*layout.edges, *(usage.amounts if usage else ())]):
            self.pairs[(edge.a, edge.b)].append(edge)

    def draw(self) -> None:
        self._draw_ranges()
        self._draw_trajectories()
        self._draw_links()
        if self.usage is not None:
            self._draw_usage(self.usage)
        self._draw_flows()
        self._draw_nodes()
        self._finish()

    # Layers, bottom to top.

    def _draw_trajectories(self) -> None:
        """Moving nodes' paths over the run, thin and grey under everything else; a small square
        where each ends (the node's circle marks where it starts)."""
        if not self.layout.trajectories:
            return
        handle = None
        for _, xs, ys in self.layout.trajectories.values():
            (handle,) = self.ax.plot(xs, ys, color="#b5b5b5", linewidth=0.7, linestyle=":", zorder=1)
            self.ax.plot([xs[-1]], [ys[-1]], marker="s", markersize=3, color="#9a9a9a", zorder=1)
        self.legend.append((handle, "path over the run"))

    def _draw_ranges(self) -> None:
        """Receive (dashed) and carrier-sense (dotted) range around every radio node of a small
        network, or around each flow's source in a large one."""
        radio = self.layout.radio
        if not radio or not self.layout.placed:
            return
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle

        centres = self._range_centres()
        receive, sense = radio["receive_m"], radio["carrier_sense_m"]
        same = math.isclose(receive, sense, rel_tol=1e-6, abs_tol=0.05)
        circles = [(receive, "--", 0.7)] + ([] if same else [(sense, ":", 0.4)])
        for radius, style, alpha in circles:
            if not (math.isfinite(radius) and radius > 0):
                continue
            for name in centres:
                self.ax.add_patch(
                    Circle(self.layout.xy[name], radius, fill=False, linestyle=style, linewidth=0.8,
                           edgecolor=RANGE_COLOUR, alpha=alpha, zorder=1)
                )
        where = "" if len(centres) == len(self.layout.placed) else " (around flow sources)"
        receive_label = f"receive range {_range_label(receive)}"
        if same:
            receive_label += " = carrier-sense range"
        self.legend.append((Line2D([], [], color=RANGE_COLOUR, linestyle="--", linewidth=0.8, alpha=0.7),
                            receive_label + where))
        if not same:
            self.legend.append((Line2D([], [], color=RANGE_COLOUR, linestyle=":", linewidth=0.8, alpha=0.5),
                                f"carrier-sense range {_range_label(sense)}{where}"))

    def _range_centres(self) -> list[str]:
        placed = [name for name in self.layout.order if name in self.layout.placed]
        if len(placed) <= MAX_RANGE_NODES:
            return placed
        sources = dict.fromkeys(flow["src"] for flow in self.layout.flows)
        return [name for name in sources if name in self.layout.placed]

    def _draw_links(self) -> None:
        """Every undirected link once, styled by kind (and by channel with several channels)."""
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        styles = self._link_styles()
        groups: dict[str, list[Edge]] = defaultdict(list)
        for edge in self.layout.edges:
            groups[styles[edge][0]].append(edge)
        for label, edges in groups.items():
            style = styles[edges[0]][1]
            segments = [self._segment(edge) for edge in edges]
            self.ax.add_collection(LineCollection(segments, zorder=2 if edges[0].kind != "radio" else 1.5,
                                                  capstyle="round", **_plural(style)))
            self.legend.append((Line2D([], [], **style), label))
        for edge in self.layout.edges:
            text = self.link_labels.get((edge.a, edge.b)) if edge.kind == "wired" else None
            if text:
                (x0, y0), (x1, y1) = self._segment(edge)
                self.ax.annotate(_plain(text), ((x0 + x1) / 2, (y0 + y1) / 2), xytext=(0, -10),
                                 textcoords="offset points", ha="center", fontsize=7, color="#555555", zorder=2.5)

    def _link_styles(self) -> dict[Edge, tuple[str, dict[str, Any]]]:
        channels = sorted({e.channel for e in self.layout.edges if e.kind == "radio"}, key=lambda c: (c is None, c))
        styles: dict[Edge, tuple[str, dict[str, Any]]] = {}
        for edge in self.layout.edges:
            if edge.kind == "wired":
                styles[edge] = ("wired link", WIRED_STYLE)
            elif edge.kind == "downlink":
                styles[edge] = ("downlink (base station to user, slotted)", DOWNLINK_STYLE)
            elif len(channels) <= 1:
                styles[edge] = ("radio link", {"color": RADIO_COLOURS[0], "linewidth": 1.0, "linestyle": "-"})
            else:
                i = channels.index(edge.channel)
                styles[edge] = (
                    f"radio link, channel {edge.channel}",
                    {"color": RADIO_COLOURS[i % len(RADIO_COLOURS)], "linewidth": 1.2,
                     "linestyle": RADIO_LINESTYLES[i % len(RADIO_LINESTYLES)]},
                )
        return styles

    def _draw_usage(self, usage: Usage) -> None:
        """Each used link as a translucent band whose width is proportional to its use (radio and
        wired links on separate scales, each with its legend entry)."""
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        self.notes.append(_plain(f"link usage from the run in {usage.source}"))
        groups = usage.groups()
        if not groups:
            self.notes.append("the run used no link")
        for unit, used in groups:
            most = max(used.values())
            edges = sorted(used, key=used.__getitem__, reverse=True)  # thin bands over wide ones
            widths = [max(USAGE_MAX_WIDTH * used[edge] / most, USAGE_MIN_WIDTH) for edge in edges]
            self.ax.add_collection(
                LineCollection([self._segment(edge) for edge in edges], linewidths=widths, colors=USAGE_COLOUR,
                               alpha=0.45, capstyle="round", zorder=3)
            )
            self.legend.append((
                Line2D([], [], color=USAGE_COLOUR, alpha=0.45, linewidth=USAGE_MAX_WIDTH, solid_capstyle="butt"),
                f"link usage: width \u221d {unit}, both directions (widest {most:,.0f})",
            ))

    def _draw_flows(self) -> None:
        """Each flow's route as arrows hop by hop, beside the link it crosses (which stays visible)
        and a little further out for each other flow on that hop; flows without a known route get
        their two ends marked instead."""
        flows = self.layout.flows
        ranks = self._hop_ranks()
        for i, flow in enumerate(flows):
            colour = FLOW_COLOURS[i % len(FLOW_COLOURS)]
            if flow["route"]:
                label = self._draw_route(flow["route"], colour, [ranks[(i, hop)] for hop in _hops(flow["route"])])
            else:
                label = self._draw_ends(flow, colour)
            if i < MAX_FLOW_ENTRIES:
                self.legend.append((self._flow_handle(colour, bool(flow["route"])), _plain(f"{flow['id']}: {label}")))
        if len(flows) > MAX_FLOW_ENTRIES:
            from matplotlib.lines import Line2D

            more = len(flows) - MAX_FLOW_ENTRIES
            self.legend.append((Line2D([], [], linestyle="none"), f"\u2026 and {more} more flows"))
        if any(not flow["route"] for flow in flows):
            self.notes.append("flows without a route: source circled, destination boxed")
            if self.layout.routing_at_run_time and self.usage is None:
                self.notes.append("routes found at run time: pass --run DIR for link usage")
        for reason in refused_flows(self.layout):
            self.notes.append(_plain(f"a run refuses {reason}"))

    def _hop_ranks(self) -> dict[tuple[int, tuple[str, str]], int]:
        """(flow index, hop) -> how many flows crossed that pair of nodes before it."""
        count: dict[frozenset[str], int] = defaultdict(int)
        ranks: dict[tuple[int, tuple[str, str]], int] = {}
        for i, flow in enumerate(self.layout.flows):
            for hop in _hops(flow["route"] or []):
                ranks[(i, hop)] = count[frozenset(hop)]
                count[frozenset(hop)] += 1
        return ranks

    def _draw_route(self, route: Sequence[str], colour: str, ranks: Sequence[int]) -> str:
        from matplotlib.patches import FancyArrowPatch

        for (u, v), rank in zip(_hops(route), ranks):
            start, end = self._shifted(u, v, (rank + 1) * self.gap)
            self.ax.add_patch(
                FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=11, linewidth=1.8, color=colour,
                                shrinkA=5, shrinkB=9, zorder=4)
            )
        hops = len(route) - 1
        return f"{route[0]} \u2192 {route[-1]}, {hops} hop{'s' if hops != 1 else ''}"

    def _draw_ends(self, flow: Mapping[str, Any], colour: str) -> str:
        for name, marker in ((flow["src"], "o"), (flow["dst"], "s")):
            x, y = self.layout.xy[name]
            self.ax.plot([x], [y], marker=marker, markersize=13, markerfacecolor="none", markeredgecolor=colour,
                         markeredgewidth=1.8, linestyle="none", zorder=4)
        if flow.get("unreachable"):
            why = "no route: a run refuses it, see below"
        else:
            why = "route found at run time" if self.layout.routing_at_run_time else "no route"
        return f"{flow['src']} \u2192 {flow['dst']} ({why})"

    @staticmethod
    def _flow_handle(colour: str, routed: bool) -> Any:
        from matplotlib.lines import Line2D

        if routed:
            return Line2D([], [], color=colour, linewidth=1.8, marker=">", markersize=6)
        return Line2D([], [], color=colour, linestyle="none", marker="o", markersize=8, markerfacecolor="none",
                      markeredgewidth=1.8)

    def _draw_nodes(self) -> None:
        """Nodes as points (squares for nodes without a position), named when there are few; the
        ends of flows are always named."""
        layout = self.layout
        many = len(layout.order) > MAX_NAMED_NODES
        size = 14 if many else 30
        for placed, marker in ((True, "o"), (False, "s")):
            names = [n for n in layout.order if (n in layout.placed) == placed]
            if names:
                xs, ys = zip(*(layout.xy[n] for n in names))
                self.ax.scatter(xs, ys, s=size, marker=marker, color="#222222", zorder=5, linewidths=0)
        ends = {name for flow in layout.flows for name in (flow["src"], flow["dst"])}
        named = [n for n in layout.order if not many or n in ends]
        fontsize = 9 if len(layout.order) <= 20 else 7
        for name in named:
            # Above the route arrows, without a box: an arrowhead arriving from the label's side
            # shows between the letters instead of under a white patch.
            self.ax.annotate(_plain(name), layout.xy[name], xytext=(4, 4), textcoords="offset points",
                             fontsize=fontsize, zorder=6)
        if many:
            self.notes.append(f"{len(layout.order)} nodes: only the ends of flows are named")
        unplaced = [n for n in layout.order if n not in layout.placed]
        if unplaced and layout.placed:
            self.notes.append("squares: wired nodes without a position, drawn in a row below (not to scale)")

    def _finish(self) -> None:
        ax, limits = self.ax, self.limits
        ax.set_xlim(limits.x0, limits.x1)
        ax.set_ylim(limits.y0, limits.y1)
        ax.set_aspect("equal", adjustable="box")
        ax.set_title(_plain(self.layout.name))
        if self.layout.schematic:
            ax.set_xlabel("schematic layout (no positions)")
            ax.set_xticks([])
            ax.set_yticks([])
        else:
            ax.set_xlabel("x (m)")
            ax.set_ylabel("y (m)")
            ax.grid(alpha=0.25)
        if self.legend:
            handles, labels = zip(*self.legend)
            ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                      fontsize="small", frameon=False)
        if self.notes:
            ax.annotate("\n".join(self.notes), xy=(0, 0), xycoords="axes fraction", xytext=(0, -34),
                        textcoords="offset points", va="top", ha="left", fontsize="small", style="italic")

    # Geometry.

    def _segment(self, edge: Edge) -> list[tuple[float, float]]:
        """The edge's line, shifted sideways when its pair has several edges."""
        variants = self.pairs[(edge.a, edge.b)]
        shift = (variants.index(edge) - (len(variants) - 1) / 2) * self.gap * 1.5
        return list(self._shifted(edge.a, edge.b, shift))

    def _shifted(self, u: str, v: str, shift: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """u and v moved `shift` to the side of the line between them. The side is taken from the
        pair in node order, so a flow keeps to its side whichever way it crosses the link."""
        (ux, uy), (vx, vy) = self.layout.xy[u], self.layout.xy[v]
        a, b = (u, v) if self.layout.order[u] < self.layout.order[v] else (v, u)
        (ax_, ay), (bx, by) = self.layout.xy[a], self.layout.xy[b]
        length = math.hypot(bx - ax_, by - ay)
        if length == 0 or shift == 0:
            return (ux, uy), (vx, vy)
        nx, ny = -(by - ay) / length * shift, (bx - ax_) / length * shift
        return (ux + nx, uy + ny), (vx + nx, vy + ny)


def _hops(route: Sequence[str]) -> list[tuple[str, str]]:
    return list(zip(route, route[1:]))


def _plural(style: Mapping[str, Any]) -> dict[str, Any]:
    """A Line2D style as LineCollection keywords."""
    return {"colors": style["color"], "linewidths": style["linewidth"], "linestyles": style["linestyle"]}
