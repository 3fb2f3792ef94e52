"""The scenario schema: pydantic models mirroring the simulator core's serde types.

Each model below corresponds field for field to a struct or enum of the core's scenario config
(`ScenarioConfig`, `LinkConfig`, ...): same field names, same `kind` tags, unknown fields rejected.
Fields carrying units accept the user's strings ("20ms", "2Mbps") and hold the normalised integers
(nanoseconds, bits per second, bytes), so `to_core_json` can emit exactly what the core expects.

Checks that involve several fields (node names, flow ids, app/transport pairing, timing) run after
the per-field checks and raise `ScenarioError` with the path of the offending field.

Entry points: `load_scenario` (file, YAML text or dict -> `Scenario`) and `to_core_json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    StrictBool,
    ValidationError,
    model_validator,
)

from airtcp import units
from airtcp.errors import ScenarioError

__all__ = [
    "Scenario",
    "LinkConfig",
    "DroptailQueue",
    "QueueConfig",
    "BernoulliLoss",
    "SegmentsLoss",
    "LossConfig",
    "FlowConfig",
    "BulkApp",
    "CbrApp",
    "AppConfig",
    "TcpConfig",
    "UdpConfig",
    "TransportConfig",
    "MetricsConfig",
    "ScenarioError",
    "load_scenario",
    "to_core_json",
    "to_core_dict",
    "to_user_dict",
]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

# Serialisation context key: dump unit fields back as strings ("200s") instead of integers, so a
# model can be turned back into input for `load_scenario` (used to apply overrides to a model).
_USER_FORM = "user_form"


def _quantity(
    parse: Callable[[object], int],
    fmt: Callable[[int], str] | None,
    *,
    minimum: int,
    maximum: int,
) -> Any:
    """An integer field read by `parse`, range-checked with messages in the user's terms."""

    def validate(value: object) -> int:
        number = parse(value)
        if number < minimum:
            rule = "must not be negative" if minimum == 0 else f"must be at least {minimum}"
            if minimum == 1 and fmt is not None:
                rule = "must be greater than 0"
            raise ValueError(f"{rule}, got {value!r}")
        if number > maximum:
            raise ValueError(f"is too large (at most {fmt(maximum) if fmt else maximum}), got {value!r}")
        return number

    def serialize(value: int, info: SerializationInfo) -> int | str:
        if fmt is not None and info.context and info.context.get(_USER_FORM):
            return fmt(value)
        return value

    return Annotated[int, BeforeValidator(validate), PlainSerializer(serialize)]


# Nanoseconds.
Duration = _quantity(units.parse_duration, units.format_duration, minimum=0, maximum=U64_MAX)
PositiveDuration = _quantity(units.parse_duration, units.format_duration, minimum=1, maximum=U64_MAX)
# Bits per second.
PositiveRate = _quantity(units.parse_rate, units.format_rate, minimum=1, maximum=U64_MAX)
# Bytes (the core stores some as u32, some as u64).
Size32 = _quantity(units.parse_size, None, minimum=0, maximum=U32_MAX)
PositiveSize32 = _quantity(units.parse_size, None, minimum=1, maximum=U32_MAX)
PositiveSize64 = _quantity(units.parse_size, None, minimum=1, maximum=U64_MAX)
# Plain whole numbers.
PositiveCount32 = _quantity(units.parse_count, None, minimum=1, maximum=U32_MAX)
Seed = _quantity(units.parse_count, None, minimum=0, maximum=U64_MAX)
SegmentNumber = _quantity(units.parse_count, None, minimum=0, maximum=U64_MAX)

Probability = Annotated[float, BeforeValidator(units.parse_probability)]
Name = Annotated[str, Field(strict=True, min_length=1)]


class _Model(BaseModel):
    """Common settings: unknown fields are errors, like the core's `deny_unknown_fields`."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# --- Links -----------------------------------------------------------------------------------


class DroptailQueue(_Model):
    """First-in first-out queue dropping arrivals when `packets` packets are waiting."""

    kind: Literal["droptail"]
    packets: PositiveCount32


QueueConfig = Annotated[Union[DroptailQueue], Field(discriminator="kind")]


class BernoulliLoss(_Model):
    """Each packet is corrupted independently with probability `per`."""

    kind: Literal["bernoulli"]
    per: Probability
    direction: Literal["forward", "reverse", "both"] = "forward"


class SegmentsLoss(_Model):
    """Deterministic losses for protocol experiments: the first transmission of each TCP data
    segment numbered (from 0) in `seqs` is lost; a number listed twice also loses its first
    retransmission, and so on. Other packets pass."""

    kind: Literal["segments"]
    seqs: list[SegmentNumber]
    direction: Literal["forward", "reverse", "both"] = "forward"


LossConfig = Annotated[Union[BernoulliLoss, SegmentsLoss], Field(discriminator="kind")]


class LinkConfig(_Model):
    """A full-duplex point-to-point link; "forward" is from -> to."""

    # `from` is a Python keyword, hence the alias; files and JSON always say `from`.
    from_: Name = Field(alias="from")
    to: Name
    rate: PositiveRate
    delay: Duration
    queue: QueueConfig = Field(default_factory=lambda: DroptailQueue(kind="droptail", packets=100))
    loss: Optional[LossConfig] = None


# --- Flows -----------------------------------------------------------------------------------


class BulkApp(_Model):
    """Bulk transfer: always has data, or exactly `bytes` bytes."""

    kind: Literal["bulk"]
    bytes: Optional[PositiveSize64] = None


class CbrApp(_Model):
    """Constant bit rate source (needs a udp transport)."""

    kind: Literal["cbr"]
    rate: PositiveRate
    packet_size: PositiveSize32


AppConfig = Annotated[Union[BulkApp, CbrApp], Field(discriminator="kind")]


class TcpConfig(_Model):
    """TCP parameters; the defaults are the core's (see docs/scenario-schema.md)."""

    kind: Literal["tcp"]
    cc: Literal["reno", "newreno"] = "newreno"
    sack: StrictBool = True
    mss: PositiveSize32 = 1000
    header_bytes: Size32 = 40
    delayed_ack: PositiveCount32 = 2
    delayed_ack_timeout: PositiveDuration = 200_000_000
    initial_cwnd: PositiveCount32 = 10
    initial_ssthresh: Optional[PositiveCount32] = None
    rwnd: PositiveSize64 = 1 << 20
    dupthresh: PositiveCount32 = 3
    ssthresh_basis: Literal["flight_size", "cwnd", "pipe"] = "flight_size"
    min_rto: PositiveDuration = 1_000_000_000
    max_rto: PositiveDuration = 60_000_000_000
    initial_rto: PositiveDuration = 1_000_000_000
    clock_granularity: Duration = 1_000_000


class UdpConfig(_Model):
    """UDP: no feedback, no retransmission."""

    kind: Literal["udp"]
    header_bytes: Size32 = 28


TransportConfig = Annotated[Union[TcpConfig, UdpConfig], Field(discriminator="kind")]


class FlowConfig(_Model):
    """An application over a transport from `src` to `dst`."""

    id: Name
    src: Name
    dst: Name
    start: Duration = 0
    stop: Optional[Duration] = None
    app: AppConfig
    transport: TransportConfig


class MetricsConfig(_Model):
    """What to record besides the per-flow totals."""

    bin: PositiveDuration = 1_000_000_000
    trace_rtt: StrictBool = False
    trace_cwnd: StrictBool = False
    trace_interval: PositiveDuration = 100_000_000


# --- The scenario ----------------------------------------------------------------------------


class Scenario(_Model):
    """A whole scenario: topology, flows and what to measure."""

    # Optional in files: a scenario read from a file is named after it, otherwise "scenario".
    name: Annotated[str, Field(strict=True)] = "scenario"
    duration: PositiveDuration
    # The core has no default seed; a fixed default keeps runs reproducible when none is given.
    seed: Seed = 1
    nodes: Annotated[list[Name], Field(min_length=1)]
    links: list[LinkConfig] = Field(default_factory=list)
    flows: list[FlowConfig] = Field(default_factory=list)
    metrics: MetricsConfig = Field(default_factory=MetricsConfig)

    @model_validator(mode="after")
    def _check_consistency(self) -> Scenario:
        # ScenarioError is not a ValueError, so pydantic lets it through unchanged with its path.
        problems = list(_consistency_problems(self))
        if problems:
            raise ScenarioError.from_list(problems)
        return self


def _consistency_problems(scenario: Scenario) -> Iterable[tuple[str, str]]:
    """Checks spanning several fields, as (path, message) pairs."""
    known: set[str] = set()
    for i, node in enumerate(scenario.nodes):
        if node in known:
            yield f"nodes[{i}]", f"duplicate node name {node!r}"
        known.add(node)

    def missing(name: str) -> str:
        return f"no node named {name!r} (nodes: {', '.join(scenario.nodes)})"

    neighbours: dict[str, set[str]] = {node: set() for node in scenario.nodes}
    seen_pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(scenario.links):
        ends_ok = True
        for field, node in (("from", link.from_), ("to", link.to)):
            if node not in known:
                ends_ok = False
                yield f"links[{i}].{field}", missing(node)
        if link.from_ == link.to:
            yield f"links[{i}].to", f"a link cannot connect node {link.to!r} to itself"
            continue
        pair = frozenset((link.from_, link.to))
        if pair in seen_pairs:
            # Queues are named "FROM->TO" in the results; parallel links would be ambiguous.
            yield f"links[{i}]", f"duplicate of links[{seen_pairs[pair]}] (both connect {link.from_} and {link.to})"
        seen_pairs.setdefault(pair, i)
        if ends_ok:
            neighbours[link.from_].add(link.to)
            neighbours[link.to].add(link.from_)

    duration = scenario.duration
    flow_ids: dict[str, int] = {}
    for i, flow in enumerate(scenario.flows):
        where = f"flows[{i}]"
        if flow.id in flow_ids:
            yield f"{where}.id", f"duplicate flow id {flow.id!r} (also flows[{flow_ids[flow.id]}])"
        flow_ids.setdefault(flow.id, i)
        ends_ok = True
        for field, node in (("src", flow.src), ("dst", flow.dst)):
            if node not in known:
                ends_ok = False
                yield f"{where}.{field}", missing(node)
        if flow.src == flow.dst:
            yield f"{where}.dst", f"source and destination are the same node {flow.dst!r}"
        elif ends_ok and not _reachable(neighbours, flow.src, flow.dst):
            yield f"{where}.dst", f"no route from {flow.src!r} to {flow.dst!r} over the links"

        app_kind, transport_kind = flow.app.kind, flow.transport.kind
        needed = {"bulk": "tcp", "cbr": "udp"}[app_kind]
        if transport_kind != needed:
            yield (
                f"{where}.transport.kind",
                f"a {app_kind} application needs a {needed} transport, got {transport_kind!r}",
            )

        if flow.start >= duration:
            yield (
                f"{where}.start",
                f"must be before the end of the run ({units.format_duration(duration)}), "
                f"got {units.format_duration(flow.start)}",
            )
        # A stop after the end of the run is allowed: the core caps it at `duration`, which lets
        # `--set duration=...` shorten a run without editing every flow.
        if flow.stop is not None and flow.stop <= flow.start:
            yield f"{where}.stop", f"must be after start ({units.format_duration(flow.start)})"

        if isinstance(flow.transport, TcpConfig):
            tcp = flow.transport
            if tcp.max_rto < tcp.min_rto:
                yield f"{where}.transport.max_rto", "must not be smaller than min_rto"
            if tcp.rwnd < tcp.mss:
                yield f"{where}.transport.rwnd", f"must hold at least one segment (mss {tcp.mss} bytes)"


def _reachable(neighbours: Mapping[str, set[str]], src: str, dst: str) -> bool:
    """Whether the links connect src to dst (breadth-first search)."""
    frontier, seen = [src], {src}
    while frontier:
        node = frontier.pop()
        if node == dst:
            return True
        for nxt in neighbours[node] - seen:
            seen.add(nxt)
            frontier.append(nxt)
    return False


# --- Loading and emitting --------------------------------------------------------------------


def load_scenario(
    source: Scenario | Mapping[str, Any] | str | Path,
    seed: int | None = None,
    overrides: Iterable[str] = (),
) -> Scenario:
    """Reads and validates a scenario.

    `source` is a path to a YAML file, YAML text, a mapping with the file's structure, or a
    `Scenario`. `overrides` are `"path=value"` strings (as given to `--set`), applied to the raw
    data before validation; `seed`, if given, replaces the scenario's seed after them.
    Raises `ScenarioError` for any problem.
    """
    # Imported here: these modules use the models above.
    from airtcp.overrides import apply_overrides, parse_override
    from airtcp.scenario_source import read_source
    from airtcp.validation_messages import translate_validation_error

    parsed_overrides = [parse_override(text) for text in overrides]
    if isinstance(source, Scenario) and not parsed_overrides:
        return source if seed is None else source.model_copy(update={"seed": _checked_seed(seed)})
    raw = to_user_dict(source) if isinstance(source, Scenario) else read_source(source)
    apply_overrides(raw, parsed_overrides)
    if seed is not None:
        raw["seed"] = _checked_seed(seed)
    try:
        return Scenario.model_validate(raw)
    except ValidationError as error:
        raise translate_validation_error(error, Scenario) from None


def _checked_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= U64_MAX:
        raise ScenarioError("seed", f"must be a whole number between 0 and 2^64-1, got {seed!r}")
    return seed


def to_core_dict(scenario: Scenario) -> dict[str, Any]:
    """The normalised scenario as plain data: integers for units, every field present."""
    return scenario.model_dump(mode="json", by_alias=True)


def to_core_json(scenario: Scenario) -> str:
    """The normalised scenario as the JSON the simulator core accepts."""
    return json.dumps(to_core_dict(scenario))


def to_user_dict(scenario: Scenario) -> dict[str, Any]:
    """The scenario as a file would spell it ("200s", "2Mbps"); `load_scenario` accepts it."""
    return scenario.model_dump(mode="json", by_alias=True, context={_USER_FORM: True})
