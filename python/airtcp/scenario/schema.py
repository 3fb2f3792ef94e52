"""The scenario schema: models mirroring the simulator core's serde types.

Each model below corresponds field for field to a struct or enum of the core's scenario config
(`ScenarioConfig`, `LinkConfig`, ...): same field names, same `kind` tags, unknown fields rejected.
Fields carrying units accept the user's strings ("20ms", "2Mbps", "250m", "15dBm") and hold the
normalised values (integer nanoseconds, bits per second and bytes; float metres, hertz, dBm and
dB), so `to_core_json` can emit exactly what the core expects.

Checks that involve several fields (node names, flow ids, app/transport pairing, timing, radio
rates) run after the per-field checks and raise `ScenarioError` with the path of the offending
field. Whether the radios can actually reach one another is left to the core, which knows the
propagation models.

The models are declared as pydantic's would be, but built and checked by
`airtcp.scenario.model`, which costs a few milliseconds where pydantic took over 0.1 s to import
and build them (see that module for what it supports and why).

Entry points: `load_scenario` (file, YAML text or dict -> `Scenario`) and `to_core_json`.
"""

# No `from __future__ import annotations`: the model module reads each field's type from its
# annotation as an object, evaluated with the class. Methods name their own class in quotes.

import json
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from airtcp.scenario import json_schema, units
from airtcp.scenario.model import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    PlainSerializer,
    SerializationInfo,
    StrictBool,
    model_validator,
)
from airtcp.scenario.units import U32_MAX, U64_MAX
from airtcp.errors import ScenarioError
from airtcp.scenario.messages import not_unicode_text

__all__ = [
    "Scenario",
    "LinkConfig",
    "DroptailQueue",
    "QueueConfig",
    "BernoulliLoss",
    "SegmentsLoss",
    "LossConfig",
    "FlowConfig",
    "ExplicitPaths",
    "DisjointPaths",
    "PathsConfig",
    "BulkApp",
    "CbrApp",
    "PoissonApp",
    "UtilityApp",
    "AppConfig",
    "TcpConfig",
    "CubicParams",
    "CompoundParams",
    "VegasParams",
    "FastParams",
    "QuicTcpParams",
    "QuicCadenceConfig",
    "PerAckCadence",
    "IntervalCadence",
    "FastRoundsCadence",
    "NcConfig",
    "UdpConfig",
    "TcpRlcConfig",
    "RouterConfig",
    "RouterUser",
    "PriorityPairsConfig",
    "PairBuffers",
    "TransportConfig",
    "MetricsConfig",
    "PlacedNode",
    "Point",
    "ExplicitTopology",
    "ChainTopology",
    "GridTopology",
    "RandomTopology",
    "CellsTopology",
    "TreeTopology",
    "DiamondTopology",
    "XTopology",
    "AliceBobTopology",
    "CrossTopology",
    "WheelTopology",
    "ButterflyTopology",
    "RingTopology",
    "TopologyConfig",
    "RangePropagation",
    "FreeSpacePropagation",
    "TwoRayGroundPropagation",
    "LogDistancePropagation",
    "PropagationConfig",
    "NoFading",
    "RayleighFading",
    "BlockFading",
    "FadingConfig",
    "RadioConfig",
    "BernoulliErrors",
    "GilbertElliottErrors",
    "BimodalErrors",
    "ErrorProcessConfig",
    "LinkErrorConfig",
    "StaticRouting",
    "AodvRouting",
    "HorizonRouting",
    "HorizonReorder",
    "BackpressureRouting",
    "RoutingConfig",
    "CodingConfig",
    "DOT11B_RATES",
    "DOT11A_RATES",
    "ConstantRate",
    "IdealRate",
    "RateControlConfig",
    "LinkRateConfig",
    "placed_node_names",
    "ScenarioError",
    "load_scenario",
    "to_core_json",
    "to_core_dict",
    "to_user_dict",
]

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
            raise ValueError(f"{rule}, got {units.brief_repr(value)}")
        if number > maximum:
            most = fmt(maximum) if fmt else maximum
            raise ValueError(f"is too large (at most {most}), got {units.brief_repr(value)}")
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
Count32 = _quantity(units.parse_count, None, minimum=0, maximum=U32_MAX)
PositiveCount32 = _quantity(units.parse_count, None, minimum=1, maximum=U32_MAX)
Seed = _quantity(units.parse_count, None, minimum=0, maximum=U64_MAX)
SegmentNumber = _quantity(units.parse_count, None, minimum=0, maximum=U64_MAX)


def _real(parse: Callable[[object], float], fmt: Callable[[float], str] | None, *, positive: bool = False) -> Any:
    """A float field read by `parse` (metres, hertz, dBm, dB or a plain number)."""

    def validate(value: object) -> float:
        number = parse(value)
        if positive and not number > 0:
            raise ValueError(f"must be greater than 0, got {units.brief_repr(value)}")
        return number

    def serialize(value: float, info: SerializationInfo) -> float | str:
        if fmt is not None and info.context and info.context.get(_USER_FORM):
            return fmt(value)
        return value

    return Annotated[float, BeforeValidator(validate), PlainSerializer(serialize)]


# Metres (coordinates may be negative; lengths may not).
Distance = _real(units.parse_distance, units.format_distance)
PositiveDistance = _real(units.parse_distance, units.format_distance, positive=True)
# Hertz.
PositiveFrequency = _real(units.parse_frequency, units.format_frequency, positive=True)
# dBm and dB.
Power = _real(units.parse_power, units.format_power)
Ratio = _real(units.parse_ratio, units.format_ratio)
PositiveNumber = _real(units.parse_number, None, positive=True)

def _within(low: float, high: float, *, low_open: bool, high_open: bool) -> Callable[[float], float]:
    """A check that a number lies in an interval, with the interval in the message."""

    def check(value: float) -> float:
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if not (above and below):
            interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise ValueError(f"must be within {interval}, got {units.brief_repr(value)}")
        return value

    return check


Probability = Annotated[float, BeforeValidator(units.parse_probability)]


def _whole_within(low: int, high: int) -> Callable[[int], int]:
    def check(value: int) -> int:
        if not low <= value <= high:
            raise ValueError(f"must be between {low} and {high}, got {units.brief_repr(value)}")
        return value

    return check


def _is_zero(value: object) -> bool:
    return value == 0


def _unicode_text(value: str) -> str:
    problem = not_unicode_text(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _not_empty(value: str) -> str:
    if not value:
        raise ValueError("must not be empty")
    return value


# Text the core receives: a Python string may hold lone surrogates ("\udc80", from a YAML escape or
# an undecodable file name), which are not Unicode and which the core's UTF-8 JSON cannot carry.
Text = Annotated[str, Field(strict=True), AfterValidator(_unicode_text)]
Name = Annotated[Text, AfterValidator(_not_empty)]


class _Model(BaseModel):
    """A part of a scenario. Unknown fields are errors, like the core's `deny_unknown_fields`,
    and assigning to a field checks the value (and the whole scenario, for a `Scenario`)."""


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
    # Left out of the normalised form at 0, so that the results of scenarios without it keep their
    # bytes.
    delay_spread: Duration = Field(default=0, exclude_if=_is_zero)
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


class PoissonApp(_Model):
    """Poisson source: exponential gaps at a mean rate (needs a udp transport)."""

    kind: Literal["poisson"]
    rate: PositiveRate
    packet_size: PositiveSize32


class LogUtility(_Model):
    """g(x) = log x."""

    kind: Literal["log"]


class AlphaFairUtility(_Model):
    """g(x) = x^(1-alpha) / (1-alpha)."""

    kind: Literal["alpha_fair"]
    alpha: PositiveNumber


UtilityConfig = Annotated[Union[LogUtility, AlphaFairUtility], Field(discriminator="kind")]


class UtilityApp(_Model):
    """Paper 000's flow controller for non-TCP flows (eq. 5; needs a udp transport)."""

    kind: Literal["utility"]
    packet_size: PositiveSize32
    r_max: PositiveRate
    m: PositiveNumber
    utility: UtilityConfig = Field(default_factory=lambda: LogUtility(kind="log"))
    slot: PositiveDuration = 10_000_000


AppConfig = Annotated[Union[BulkApp, CbrApp, PoissonApp, UtilityApp], Field(discriminator="kind")]


# A factor strictly between 0 and 1 (multiplicative decreases).
Fraction = Annotated[PositiveNumber, AfterValidator(_within(0, 1, low_open=True, high_open=True))]


class CubicParams(_Model):
    """RFC 9438 Cubic's constants (docs/cubic.md); only with `cc: cubic`."""

    c: PositiveNumber = 0.4
    beta: Fraction = 0.7
    fast_convergence: StrictBool = True
    reno_friendly: StrictBool = True


class CompoundParams(_Model):
    """Compound TCP's constants (Tan et al. 2006, docs/compound.md); only with `cc: compound`.
    `gamma` is in packets."""

    alpha: PositiveNumber = 0.125
    beta: Fraction = 0.5
    k: Annotated[PositiveNumber, AfterValidator(_within(0, 1, low_open=True, high_open=False))] = 0.75
    gamma: PositiveNumber = 30.0
    zeta: PositiveNumber = 1.0


def _at_least_zero(value: float) -> float:
    if value < 0:
        raise ValueError(f"must not be negative, got {units.brief_repr(value)}")
    return value


def _unit_interval(value: float) -> float:
    if not 0 <= value <= 1:
        raise ValueError(f"must be within [0, 1], got {units.brief_repr(value)}")
    return value


NonNegativeNumber = Annotated[_real(units.parse_number, None), AfterValidator(_at_least_zero)]
UnitInterval = Annotated[_real(units.parse_number, None), AfterValidator(_unit_interval)]


class VegasParams(_Model):
    """TCP Vegas thresholds in packets of estimated backlog; ns-2's defaults (docs/vegas.md).
    `beta` must not be smaller than `alpha` (checked with the scenario)."""

    alpha: NonNegativeNumber = 1.0
    beta: NonNegativeNumber = 3.0
    gamma: NonNegativeNumber = 1.0


class FastParams(_Model):
    """FAST TCP: target backlog `alpha` (packets) and update weight `gamma` (docs/fast.md)."""

    alpha: PositiveNumber = 200.0
    gamma: PositiveNumber = 0.5


def _is_none(value: object) -> bool:
    return value is None


def _is_empty(value: object) -> bool:
    return value == []


class PerAckCadence(_Model):
    """QUIC-TCP's window law on every in-order ACK."""

    kind: Literal["per_ack"]
    cap_double: StrictBool = False


class IntervalCadence(_Model):
    """QUIC-TCP's window law once per `every` (the paper's Matlab runs: 20 ms)."""

    kind: Literal["interval"]
    every: PositiveDuration = 20_000_000
    cap_double: StrictBool = False


class FastRoundsCadence(_Model):
    """FAST's cadence for QUIC-TCP's window law: a computation every other round trip, increases
    paced over the next round, each capped at twice the window unless `cap_double` is false."""

    kind: Literal["fast_rounds"]
    cap_double: StrictBool = True


QuicCadenceConfig = Annotated[
    Union[PerAckCadence, IntervalCadence, FastRoundsCadence], Field(discriminator="kind")
]

class QuicTcpParams(_Model):
    """QUIC-TCP (paper 002 eq. 9): step size, exponent, target backlog in packets, and when the
    law runs: `cadence` (per_ack, interval or fast_rounds) or its older spelling
    `update_interval` (0 = every ACK), not both (docs/quic_tcp.md)."""

    kappa: PositiveNumber = 0.05
    rho: UnitInterval = 0.5
    p_s: PositiveNumber = 200.0
    # Both left out of the normalised form when absent; the core then runs every 20 ms (§V-A).
    update_interval: Optional[Duration] = Field(default=None, exclude_if=_is_none)
    cadence: Optional[QuicCadenceConfig] = Field(default=None, exclude_if=_is_none)

    @model_validator(mode="after")
    def _one_cadence(self) -> "QuicTcpParams":
        if self.cadence is not None and self.update_interval is not None:
            raise ValueError("give either cadence or update_interval (its older spelling), not both")
        return self


# Largest block of the NC layer's codec (coding::rlnc::MAX_BLOCK_SIZE).
NC_MAX_BLOCK = 4096


def _nc_block(value: object) -> object:
    """The NC layer's block size: `cwnd` or a number of segments from 1 to NC_MAX_BLOCK."""
    if value == "cwnd":
        return value
    try:
        number = units.parse_count(value)
    except units.UnitError:
        raise ValueError(f"must be 'cwnd' or a number of segments, got {units.brief_repr(value)}") from None
    if not 1 <= number <= NC_MAX_BLOCK:
        raise ValueError(f"must be from 1 to {NC_MAX_BLOCK}, got {units.brief_repr(value)}")
    return number


NcBlock = Annotated[Union[Literal["cwnd"], int], BeforeValidator(_nc_block)]
NcBlockLimit = _quantity(units.parse_count, None, minimum=1, maximum=NC_MAX_BLOCK)


class NcConfig(_Model):
    """The NC layer of paper 000 §4.1.3 between TCP and the network (docs/nc_layer.md): blocks of
    `cwnd` segments (the sender's window when a block opens, at most `max_block`) or of a fixed
    number; the receiver repeats a repair request no sooner than every `repair_interval`."""

    block: NcBlock = "cwnd"
    max_block: NcBlockLimit = 64
    repair_interval: PositiveDuration = 100_000_000


# The parameter blocks of TcpConfig, by the `cc` that uses each.
CC_PARAMETER_BLOCKS = {name: name for name in ("cubic", "compound", "vegas", "fast", "quic_tcp")}


class TcpConfig(_Model):
    """TCP parameters; the defaults are the core's (see docs/scenario-schema.md)."""

    kind: Literal["tcp"]
    cc: Literal["reno", "newreno", "linux_reno", "cubic", "compound", "vegas", "fast", "quic_tcp"] = "newreno"
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
    cubic: Optional[CubicParams] = None
    compound: Optional[CompoundParams] = None
    vegas: Optional[VegasParams] = None
    fast: Optional[FastParams] = None
    quic_tcp: Optional[QuicTcpParams] = None
    # The NC layer between this TCP and the network (paper 000 §4.1.3); absent: none.
    nc: Optional[NcConfig] = None


class UdpConfig(_Model):
    """UDP: no feedback, no retransmission."""

    kind: Literal["udp"]
    header_bytes: Size32 = 28


class TcpRlcConfig(_Model):
    """TCP-RLC (paper 004): each congestion window coded as a block, `redundancy` low-priority
    random linear combinations after every high-priority frame (docs/tcp_rlc.md)."""

    kind: Literal["tcp_rlc"]
    redundancy: Annotated[Count32, AfterValidator(_whole_within(0, 1000))]
    field: Literal["gf8191", "gf256"] = "gf8191"
    decoder: Literal["counting", "exact"] = "counting"
    initial_cwnd: PositiveCount32 = 1
    max_cwnd: Annotated[PositiveCount32, AfterValidator(_whole_within(1, 1_000_000))] = 10_000
    dupthresh: PositiveCount32 = 3
    initial_rto: PositiveDuration = 1_000_000_000
    literal_dup: StrictBool = False


# The exact decoder keeps B^2 coefficients per block (transport::tcp_rlc::config::MAX_EXACT_BLOCK).
MAX_EXACT_BLOCK = 2048

TransportConfig = Annotated[Union[TcpConfig, UdpConfig, TcpRlcConfig], Field(discriminator="kind")]


# Most paths a flow may have (net::flow_paths::MAX_PATHS: a packet names its path in one byte).
MAX_FLOW_PATHS = 255
PathCount = _quantity(units.parse_count, None, minimum=1, maximum=MAX_FLOW_PATHS)


def _at_most_flow_paths(paths: list[list[str]]) -> list[list[str]]:
    if not paths:
        raise ValueError("needs at least one path")
    if len(paths) > MAX_FLOW_PATHS:
        raise ValueError(f"at most {MAX_FLOW_PATHS} paths per flow, got {len(paths)}")
    return paths


class ExplicitPaths(_Model):
    """Paths given as node lists, each from the flow's source to its destination over linked nodes,
    no node twice (docs/scenario-schema.md#flow-paths)."""

    kind: Literal["explicit"]
    paths: Annotated[list[list[Name]], AfterValidator(_at_most_flow_paths)]
    # paths: the flow's packets back (TCP's ACKs) follow the paths reversed; routes: the routing table.
    reverse: Literal["paths", "routes"] = "paths"


class DisjointPaths(_Model):
    """The `k` node-disjoint paths of least total hop count or ETX (docs/routing_paths.md); fewer
    existing is an error."""

    kind: Literal["disjoint"]
    k: PathCount
    metric: Literal["hops", "etx", "ett"] = "hops"
    reverse: Literal["paths", "routes"] = "paths"


PathsConfig = Annotated[Union[ExplicitPaths, DisjointPaths], Field(discriminator="kind")]


class FlowConfig(_Model):
    """An application over a transport from `src` to `dst`."""

    id: Name
    src: Name
    dst: Name
    start: Duration = 0
    # A random delay added to `start`, uniform in [0, start_jitter), drawn per seed.
    start_jitter: Duration = 0
    stop: Optional[Duration] = None
    app: AppConfig
    transport: TransportConfig
    # The paths the flow's packets are pinned to (static routing only); absent: the routes. Left
    # out of the normalised form when absent, so that results of scenarios without keep their bytes.
    paths: Optional[PathsConfig] = Field(default=None, exclude_if=_is_none)


# --- Wireless nodes --------------------------------------------------------------------------


class PlacedNode(_Model):
    """A named node at (x, y), metres."""

    name: Name
    x: Distance
    y: Distance


class Point(_Model):
    """A position (x, y), metres."""

    x: Distance
    y: Distance


class ExplicitTopology(_Model):
    """Named nodes at given coordinates."""

    kind: Literal["explicit"]
    nodes: Annotated[list[PlacedNode], Field(min_length=1)]


class ChainTopology(_Model):
    """`hops + 1` nodes n0..n{hops} on a line, `spacing` apart."""

    kind: Literal["chain"]
    hops: PositiveCount32
    spacing: PositiveDistance


class GridTopology(_Model):
    """A `rows x cols` lattice, `spacing` apart, named row by row."""

    kind: Literal["grid"]
    rows: PositiveCount32
    cols: PositiveCount32
    spacing: PositiveDistance


class RandomTopology(_Model):
    """`n` nodes placed uniformly at random in a `width x height` area."""

    kind: Literal["random"]
    n: PositiveCount32
    width: PositiveDistance
    height: PositiveDistance


class CellsTopology(_Model):
    """A `width x height` area cut into `rows x cols` cells with `per_cell` random nodes in each,
    plus a gateway node (named last) if `gateway` is given."""

    kind: Literal["cells"]
    rows: PositiveCount32
    cols: PositiveCount32
    width: PositiveDistance
    height: PositiveDistance
    per_cell: PositiveCount32 = 1
    gateway: Optional[Point] = None


# The papers' named topologies (crates/airtcp/src/scenario/topology.rs has the sources and the
# derivations; docs/scenario-schema.md the roles, coordinates and links). Each is drawn so that a
# receive range of 1.25 x `spacing` (250 m at the default 200 m) gives exactly the paper's links.
# Relays are named first (n0, and n1 in the butterfly) so hop-count routing goes through them.
_NAMED_SPACING = 200.0


def _even(value: int) -> int:
    if value % 2:
        raise ValueError(f"must be even (each node exchanges flows with the one opposite), got {value}")
    return value


# The wheel's outer nodes pair up across the relay, so there must be an even number of them.
WheelSize = Annotated[
    _quantity(units.parse_count, None, minimum=2, maximum=U32_MAX), AfterValidator(_even)
]
RingSize = _quantity(units.parse_count, None, minimum=3, maximum=U32_MAX)


class TreeTopology(_Model):
    """Paper 000's tree (Fig. 5a): root A n0 with leaf B n1 and relay C n2, leaf D n3 below C;
    flows A->B and A->D. Every link is `spacing` long."""

    kind: Literal["tree"]
    spacing: PositiveDistance = _NAMED_SPACING


class DiamondTopology(_Model):
    """Paper 000's diamond (Fig. 5b): A n0, B n1, C n2, D n3 on a square's corners, links along
    its sides (A-B, A-C, B-D, C-D); flows A->B and A->D."""

    kind: Literal["diamond"]
    spacing: PositiveDistance = _NAMED_SPACING


class XTopology(_Model):
    """Paper 001's X (Fig. 1): relay I n0, S1 n1 -> R1 n3 and S2 n2 -> R2 n4 through I, with
    S1-R2 and S2-R1 overhearing each other."""

    kind: Literal["x"]
    spacing: PositiveDistance = _NAMED_SPACING


class AliceBobTopology(_Model):
    """Paper 001's Alice-and-Bob (Fig. 2a): relay I n0 between A1 n1 and A2 n2, which exchange
    flows and cannot hear each other."""

    kind: Literal["alice_bob"]
    spacing: PositiveDistance = _NAMED_SPACING


class CrossTopology(_Model):
    """Paper 001's cross (Fig. 2b): relay I n0 amid n1..n4 (east, north, west, south); n1<->n3
    and n2<->n4 exchange flows through I, each outer node overhearing its two neighbours.
    `spacing` is the distance between neighbouring outer nodes."""

    kind: Literal["cross"]
    spacing: PositiveDistance = _NAMED_SPACING


class WheelTopology(_Model):
    """Paper 001's wheel (Fig. 2c): relay I n0 at the centre of `n` nodes n1..n{n} on a circle;
    n{k} exchanges flows with n{k+n/2} through I and hears every other outer node. The circle
    is sized for a receive range of 1.25 x `spacing`."""

    kind: Literal["wheel"]
    n: WheelSize
    spacing: PositiveDistance = _NAMED_SPACING


class ButterflyTopology(_Model):
    """Paper 001's butterfly (Fig. 8): relays I1 n0 -> I2 n1, S1 n2 -> R1 n4 and S2 n3 -> R2 n5,
    with S1-R2 and S2-R1 overhearing each other."""

    kind: Literal["butterfly"]
    spacing: PositiveDistance = _NAMED_SPACING


class RingTopology(_Model):
    """Paper 003's ring: `n` nodes n0..n{n-1} on a circle, `spacing` from each neighbour, which
    are the only nodes they hear: two disjoint paths between any two nodes."""

    kind: Literal["ring"]
    n: RingSize
    spacing: PositiveDistance = _NAMED_SPACING


_Topology = Union[
    ExplicitTopology,
    ChainTopology,
    GridTopology,
    RandomTopology,
    CellsTopology,
    TreeTopology,
    DiamondTopology,
    XTopology,
    AliceBobTopology,
    CrossTopology,
    WheelTopology,
    ButterflyTopology,
    RingTopology,
]

TopologyConfig = Annotated[_Topology, Field(discriminator="kind")]

# Nodes of the named topologies with a fixed size.
_FIXED_SIZES: dict[type[BaseModel], int] = {
    TreeTopology: 4,
    DiamondTopology: 4,
    XTopology: 5,
    AliceBobTopology: 3,
    CrossTopology: 5,
    ButterflyTopology: 6,
}


def _generated_count(topology: _Topology) -> int:
    """How many nodes a generated topology names n0..n{N-1} (0 for an explicit one)."""
    if isinstance(topology, ChainTopology):
        return topology.hops + 1
    if isinstance(topology, GridTopology):
        return topology.rows * topology.cols
    if isinstance(topology, RandomTopology):
        return topology.n
    if isinstance(topology, CellsTopology):
        return topology.rows * topology.cols * topology.per_cell + (topology.gateway is not None)
    if isinstance(topology, WheelTopology):
        return topology.n + 1  # the relay and the outer nodes
    if isinstance(topology, RingTopology):
        return topology.n
    return _FIXED_SIZES.get(type(topology), 0)


def placed_node_names(topology: _Topology | None) -> list[str]:
    """The names of the nodes `topology` places, in node-id order."""
    if topology is None:
        return []
    if isinstance(topology, ExplicitTopology):
        return [node.name for node in topology.nodes]
    return [f"n{i}" for i in range(_generated_count(topology))]


# --- Radio ------------------------------------------------------------------------------------

# Each standard's facts and defaults come from the core (airtcp.scenario.json_schema): its rates,
# bit/s, lowest first (802.11b DSSS/CCK, 802.11a OFDM), its slot time, ns, and the value of each
# radio field a block leaves out that defaults by standard (docs/dot11a.md): ns-2's thresholds
# and 22 MHz noise for 802.11b; 802.11a's 6 Mbps sensitivity, energy-detect CCA threshold and
# 20 MHz noise, ACKs by the control-rate rule and no DSSS preamble. Read when first asked for
# (a scenario with radios; the module attributes below), so that a wired scenario does not read
# the schema.
_STANDARD_TABLES = {
    "RATES_OF_STANDARD": lambda: {s: tuple(f["rates"]) for s, f in json_schema.standards().items()},
    "DOT11B_RATES": lambda: tuple(json_schema.standards()["802.11b"]["rates"]),
    "DOT11A_RATES": lambda: tuple(json_schema.standards()["802.11a"]["rates"]),
    "SLOT_NS": lambda: {s: f["slot"] for s, f in json_schema.standards().items()},
    "STANDARD_DEFAULTS": json_schema.standard_defaults,
}


def __getattr__(name: str) -> Any:
    """`RATES_OF_STANDARD`, `DOT11B_RATES`, `DOT11A_RATES`, `SLOT_NS`, `STANDARD_DEFAULTS`."""
    table = _STANDARD_TABLES.get(name)
    if table is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = table()
    return value


def _standard_table(name: str) -> Any:
    return globals().get(name) or __getattr__(name)


class RangePropagation(_Model):
    """Full transmit power within `range`, nothing beyond."""

    kind: Literal["range"]
    range: PositiveDistance


class FreeSpacePropagation(_Model):
    """Friis free-space path loss."""

    kind: Literal["free_space"]
    frequency: PositiveFrequency = 914e6


class TwoRayGroundPropagation(_Model):
    """Two-ray ground reflection beyond the crossover distance, Friis below it (ns-2)."""

    kind: Literal["two_ray_ground"]
    frequency: PositiveFrequency = 914e6
    antenna_height: PositiveDistance = 1.5


class LogDistancePropagation(_Model):
    """L(d) = reference_loss + 10 exponent log10(d / reference_distance)."""

    kind: Literal["log_distance"]
    exponent: PositiveNumber = 3.0
    reference_distance: PositiveDistance = 1.0
    reference_loss: Ratio = 46.6777


PropagationConfig = Annotated[
    Union[RangePropagation, FreeSpacePropagation, TwoRayGroundPropagation, LogDistancePropagation],
    Field(discriminator="kind"),
]


class NoFading(_Model):
    """No fading: the received power is the path loss's."""

    kind: Literal["none"]


class RayleighFading(_Model):
    """An independent Rayleigh gain per frame."""

    kind: Literal["rayleigh"]


class BlockFading(_Model):
    """One Rayleigh gain per link per coherence interval, given directly or by a Doppler
    frequency (coherence 0.423 / doppler)."""

    kind: Literal["block"]
    coherence: Optional[PositiveDuration] = None
    doppler: Optional[PositiveFrequency] = None

    @model_validator(mode="after")
    def _one_of_coherence_or_doppler(self) -> "BlockFading":
        # Both would be two answers to one question; the core takes exactly one.
        given = [name for name in ("coherence", "doppler") if getattr(self, name) is not None]
        if len(given) != 1:
            got = "neither" if not given else "both"
            raise ValueError(
                f"block fading needs exactly one of coherence (a duration) or doppler (a frequency), got {got}"
            )
        return self


FadingConfig = Annotated[Union[NoFading, RayleighFading, BlockFading], Field(discriminator="kind")]


class ConstantRate(_Model):
    """Every unicast data frame at `radio.data_rate`."""

    kind: Literal["constant"]


def _per_below_one(value: float) -> float:
    if not 0.0 < value < 1.0:
        raise ValueError(f"must be a probability above 0 and below 1, got {value}")
    return value


class IdealRate(_Model):
    """Per link, fixed when the scenario is built: the highest rate up to `radio.data_rate` whose
    frame error rate for a `frame_bytes` frame at the link's mean SNR is at most `max_per`."""

    kind: Literal["ideal"]
    max_per: Annotated[Probability, AfterValidator(_per_below_one)] = 0.1
    frame_bytes: PositiveCount32 = 1555


RateControlConfig = Annotated[Union[ConstantRate, IdealRate], Field(discriminator="kind")]


class LinkRateConfig(_Model):
    """The data rate of the link from -> to (and back, unless `direction` says otherwise), set
    after rate control."""

    from_: Name = Field(alias="from")
    to: Name
    direction: Literal["forward", "reverse", "both"] = "both"
    rate: PositiveRate


class RadioConfig(_Model):
    """The radio (PHY and 802.11 DCF MAC) of every node the topology places; the defaults are
    ns-2's for 802.11b (see docs/scenario-schema.md and, for 802.11a's, docs/dot11a.md)."""

    standard: Literal["802.11b", "802.11a"]
    data_rate: PositiveRate
    basic_rate: PositiveRate
    rts_cts: StrictBool = False
    propagation: PropagationConfig
    fading: FadingConfig = Field(default_factory=lambda: NoFading(kind="none"))
    tx_power: Power = 24.499998
    # Absent: the standard's (STANDARD_DEFAULTS), filled in when the block is checked.
    rx_threshold: Optional[Power] = Field(default=None, exclude_if=_is_none)
    cs_threshold: Optional[Power] = Field(default=None, exclude_if=_is_none)
    capture_threshold: Ratio = 10.0
    # "capture": ns-2 (lost unless capture_threshold above the interference); "sinr": ns-3.
    reception: Literal["capture", "sinr"] = "capture"
    # "data": ACKs at the data rate, as ns-3's ad-hoc 802.11b stations send them; "control": the
    # highest mandatory rate not above the data rate (802.11a's default).
    ack_rate: Optional[Literal["basic", "data", "control"]] = Field(default=None, exclude_if=_is_none)
    noise: Optional[Power] = Field(default=None, exclude_if=_is_none)
    # 802.11b only.
    preamble: Optional[Literal["long", "short"]] = Field(default=None, exclude_if=_is_none)
    rate_control: RateControlConfig = Field(
        default_factory=lambda: ConstantRate(kind="constant"), exclude_if=lambda v: isinstance(v, ConstantRate)
    )
    link_rates: list[LinkRateConfig] = Field(default_factory=list, exclude_if=_is_empty)
    queue: QueueConfig = Field(default_factory=lambda: DroptailQueue(kind="droptail", packets=50))
    # Retransmissions before a frame is dropped; 0 turns link-layer retransmission off.
    short_retry_limit: Count32 = 7
    long_retry_limit: Count32 = 4
    mac_overhead: Size32 = 36
    # Channels are orthogonal: radios on different channels never hear or disturb each other.
    channel: Count32 = 1
    # Placed nodes with several radios (or another channel): one radio per listed channel.
    node_channels: dict[Name, list[Count32]] = Field(default_factory=dict)
    # Loss of every frame at every receiver without a link_errors entry (left out at 0).
    frame_error: Probability = Field(default=0.0, exclude_if=_is_zero)
    # One frame_error draw per frame at each receiver, or per exchange at the addressee (left out
    # of the normalised form when per_frame).
    frame_error_mode: Literal["per_frame", "per_exchange"] = Field(
        default="per_frame", exclude_if=lambda v: v == "per_frame"
    )
    # How long a radio takes to sense a frame that starts arriving (ns-3's preamble detection,
    # 4 us); 0: at once, as ns-2 and GloMoSim sense it.
    cca_time: Duration = 4_000
    # Under reception: sinr, signals below this neither lock a radio nor interfere (ns-3's
    # RxSensitivity); under capture, ns-2's carrier-sense threshold is the floor.
    rx_sensitivity: Power = -101.0
    # How long a packet may wait in the interface queue (ns-3's WifiMacQueue MaxDelay, 500 ms);
    # absent: for ever (ns-2).
    msdu_lifetime: Optional[PositiveDuration] = Field(default=None, exclude_if=_is_none)
    # Whose DCF rules: IEEE 802.11 as ns-3 models it, or the papers' simulators' (docs/dcf.md).
    mac: Literal["standard", "ns2", "glomosim"] = "standard"

    def resolved(self, name: str) -> Any:
        """A field that defaults by standard (`rx_threshold`, `cs_threshold`, `noise`, `ack_rate`,
        `preamble`): its value, or the standard's when the scenario leaves it out."""
        value = getattr(self, name)
        return _standard_table("STANDARD_DEFAULTS")[self.standard][name] if value is None else value

    def _model_dump(self, info: Any) -> dict[str, Any]:
        # The normalised form spells out the standard's value of every field left out (so the
        # core and the results' config.json see one value per field); the model and the user
        # form keep them absent, so a later change of standard changes them too.
        dumped = super()._model_dump(info)
        if info.context and info.context.get(_USER_FORM):
            return dumped  # as the file spelled it: a changed standard brings its own defaults
        defaults = _standard_table("STANDARD_DEFAULTS")[self.standard]
        out: dict[str, Any] = {}
        for slot in self._model_slots:
            key = slot.key if info.by_alias else slot.name
            if key in dumped:
                out[key] = dumped[key]
            elif defaults.get(slot.name) is not None:
                value = defaults[slot.name]
                out[key] = value if slot.dump is None else slot.dump(value, info)
        return out


# --- Extra errors on wireless links -----------------------------------------------------------


class BernoulliErrors(_Model):
    """Independent errors with probability `per`."""

    kind: Literal["bernoulli"]
    per: Probability


class GilbertElliottErrors(_Model):
    """Gilbert-Elliott two-state Markov chain, one step per frame."""

    kind: Literal["gilbert_elliott"]
    p_good_bad: Probability
    p_bad_good: Probability
    per_good: Probability
    per_bad: Probability


class BimodalErrors(_Model):
    """Success probability `low` or `high`, each state lasting a duration uniform in
    [hold_min, hold_max]: each new state drawn independently (low with `low_probability`, paper
    004's channel), or, without `low_probability`, the two alternating (half the time each)."""

    kind: Literal["bimodal"]
    low: Probability
    high: Probability
    low_probability: Optional[Probability] = Field(default=None, exclude_if=_is_none)
    hold_min: Duration
    # A zero-length state would flip forever without time advancing.
    hold_max: PositiveDuration


ErrorProcessConfig = Annotated[
    Union[BernoulliErrors, GilbertElliottErrors, BimodalErrors], Field(discriminator="kind")
]


class LinkErrorConfig(_Model):
    """An error process on the wireless link from -> to (and/or back), applied after the radio's
    own reception decision."""

    from_: Name = Field(alias="from")
    to: Name
    direction: Literal["forward", "reverse", "both"] = "forward"
    error: ErrorProcessConfig


class FailureConfig(_Model):
    """A node that fails at `at`: its radio neither sends nor receives from then on."""

    node: Name
    at: Duration


# --- Routing ----------------------------------------------------------------------------------


# The routing's delivery threshold (docs/routing_paths.md#the-delivery-threshold): a radio link
# carries routes only if a 1500-byte packet plus the MAC's bytes at the link's rate gets through at
# the mean SNR at least this often, both ways; 0 uses every link the receiver locks onto. Left out
# of the normalised form at its default, so the summaries of scenarios written before it keep their
# bytes.
DEFAULT_MIN_DELIVERY = 0.5


def _min_delivery() -> Any:
    return Field(default=DEFAULT_MIN_DELIVERY, exclude_if=lambda value: value == DEFAULT_MIN_DELIVERY)


class StaticRouting(_Model):
    """Shortest paths computed once, over the links that deliver data (`min_delivery`)."""

    kind: Literal["static"]
    metric: Literal["hops", "etx", "ett"] = "hops"
    min_delivery: Probability = _min_delivery()


class AodvRouting(_Model):
    """AODV (RFC 3561)."""

    kind: Literal["aodv"]
    # A packet to forward without a route: buffer it and discover (ns-2's local repair) or drop
    # it and send a RERR (RFC 3561 §6.11 (ii), ns-3).
    local_repair: bool = True
    # HELLO messages (RFC 3561 §6.9) and a neighbour table whose expired entries break links, as
    # in ns-3 (EnableHello, on there too); false: the MAC alone watches links (ns-2).
    hello: bool = True
    # HELLO_INTERVAL (ns-3's HelloInterval) and ALLOWED_HELLO_LOSS (AllowedHelloLoss): a neighbour
    # silent for allowed_hello_loss x hello_interval is lost.
    hello_interval: PositiveDuration = 1_000_000_000
    allowed_hello_loss: PositiveCount32 = 2
    # Control messages over links below the threshold are ignored (0: all processed, as the RFC).
    min_delivery: Probability = _min_delivery()


class BackpressureRouting(_Model):
    """Backpressure forwarding (paper 000; docs/backpressure.md): flow and next hop chosen at every
    transmit opportunity from per-flow queue differentials."""

    kind: Literal["backpressure"]
    # classical: U_i - U_j; tcp_aware: max{K, U_i} - U_j (paper 000 eq. 2).
    differential: Literal["classical", "tcp_aware"] = "tcp_aware"
    # K of eq. (2); absent: B_i / |S_i| (§4.1.4).
    k: Optional[Annotated[float, Field(ge=0, allow_inf_nan=False)]] = None
    # T: the interval of the link loss estimate and of "flows passing through".
    estimate_interval: PositiveDuration = 1_000_000_000
    # A node that has sent no report for this long while its queues changed sends a control packet.
    report_idle: PositiveDuration = 100_000_000
    # An idle node repeats an unchanged report this often (a lost control packet is not resent).
    report_repeat: PositiveDuration = 1_000_000_000
    # closer: only neighbours nearer (in hops) to the destination; any: every neighbour.
    next_hops: Literal["any", "closer", "closer_etx"] = "closer"
    # per_packet: packets delivered within the MAC's retries; per_attempt: MAC attempts answered.
    loss_estimate: Literal["per_packet", "per_attempt"] = "per_attempt"
    # flow_first: the flow by its differential, then its next hop by D R (1 - p); per_link: the
    # (flow, link) pair with the largest D R (1 - p).
    selection: Literal["per_link", "flow_first"] = "flow_first"

    @model_validator(mode="after")
    def _k_only_when_tcp_aware(self) -> "BackpressureRouting":
        if self.k is not None and self.differential == "classical":
            raise ValueError("k: K belongs to the tcp_aware differential; classical backpressure has none")
        return self


def _custody_threshold(value: object) -> int:
    number = units.parse_count(value)
    if not 1 <= number <= 100:
        raise ValueError(f"must be from 1 to 100 (one-byte PLIDs), got {number}")
    return number


def _path_count(value: object) -> int:
    number = units.parse_count(value)
    if not 1 <= number <= 255:
        raise ValueError(f"must be from 1 to 255, got {number}")
    return number


def _gain(value: float) -> float:
    if not 0 < value <= 1:
        raise ValueError(f"must be above 0 and at most 1, got {units.brief_repr(value)}")
    return value


class HorizonReorder(_Model):
    """Horizon's delayed reordering at the destination (paper 003 §4.2, eq. 16, §5.3.1)."""

    # Gains of the one-way delay mean A and of its deviation D (TCP's 1/8 and 1/4).
    alpha: Annotated[PositiveNumber, AfterValidator(_gain)] = 0.125
    beta: Annotated[PositiveNumber, AfterValidator(_gain)] = 0.25
    # D before the first sample.
    d0: Duration = 10_000_000
    # Declare a gap lost once every path has delivered past it.
    loss_detection: StrictBool = True


class HorizonRouting(_Model):
    """Horizon (paper 003; docs/horizon.md): multipath back-pressure for unmodified TCP over each
    flow's node-disjoint paths, with delayed reordering at the destination and a congestion signal
    to the source's TCP."""

    kind: Literal["horizon"]
    # Node-disjoint paths per flow (fewer where fewer exist), weighed by `metric`.
    paths: Annotated[int, BeforeValidator(_path_count)] = 2
    metric: Literal["hops", "etx", "ett"] = "ett"
    min_delivery: Probability = _min_delivery()
    # T: packets of a flow in transit to one neighbour before the gate closes (§5.2.2: 10-15).
    threshold: Annotated[int, BeforeValidator(_custody_threshold)] = 12
    # Update events (receptions, price changes) per refreshment (§5.2.2: about 5).
    refresh_every: PositiveCount32 = 5
    # per_rate: C_i = min_j (C_j + S_i / R_ij); queue: eqs. (12)-(13) with every rate 1.
    price: Literal["per_rate", "queue"] = "per_rate"
    # Eq. (15) with the cheapest neighbour's window full: wait (strict) or take the cheapest open.
    next_hop: Literal["strict", "cheapest_open"] = "strict"
    # push: into the interface queue (the paper's implementation); pull: at transmit opportunities.
    mac: Literal["push", "pull"] = "push"
    refresh_priority: Literal["head", "fifo"] = "head"
    # Liveness: a changed price goes upstream after refresh_idle; repeated every refresh_repeat.
    refresh_idle: PositiveDuration = 20_000_000
    refresh_repeat: PositiveDuration = 200_000_000
    # Packets a node's queues hold in all.
    buffer: PositiveCount32 = 1000
    # Interval of the custody/price samples and the per-path series in the results.
    sample_interval: PositiveDuration = 1_000_000_000
    # The target window B* = k / sqrt(min(C_s, price_cap)); no signal below min_window packets.
    k: PositiveNumber = 90.0
    price_cap: PositiveNumber = 100.0
    min_window: NonNegativeNumber = 5.0
    signal: Literal["fake_dupack", "none"] = "fake_dupack"
    reorder: HorizonReorder = Field(default_factory=HorizonReorder)


RoutingConfig = Annotated[
    Union[StaticRouting, AodvRouting, BackpressureRouting, HorizonRouting], Field(discriminator="kind")
]


# --- Inter-session coding (paper 001) ----------------------------------------------------------


def _plain_number(number: float) -> str:
    """`number` as the core writes an f64 in its messages: 1.5, 2, 0.0000001, -0."""
    if not math.isfinite(number):
        return {math.inf: "inf", -math.inf: "-inf"}.get(number, "NaN")
    return format(Decimal(repr(number)).normalize(), "f")


def _cope_threshold(value: object) -> float:
    number = units.parse_number(value)
    if not 0 < number <= 1:
        raise ValueError(f"must be a probability above 0 and at most 1, got {_plain_number(number)}")
    return number


# COPE's decodability threshold G, in (0, 1].
CopeThreshold = Annotated[float, BeforeValidator(_cope_threshold)]


class CodingConfig(_Model):
    """Inter-session coding at the relays (paper 001; docs/cope.md): COPE's opportunistic XOR
    coding, or BFLY's two-hop pairs and COPE's codes, over radios, one per node, under static
    routes. The defaults are COPE's."""

    # cope: COPE's one-hop codes; bfly: BFLY's two-hop pairs first, then COPE's.
    scheme: Literal["cope", "bfly"] = "cope"
    # BFLY's recovery rule: coder_ack (the coder keeps a pair's natives until their decoders
    # acknowledge them through the relay, then sends them again uncoded) or none. bfly only.
    recovery: Optional[Literal["coder_ack", "none"]] = Field(default=None, exclude_if=_is_none)
    # fifo: COPE's drop-tail FIFO of natives; ncaqm: NCAQM's queue of entries (paper 001 §V-A).
    # Either holds the radio's queue.packets.
    queue: Literal["fifo", "ncaqm"] = "fifo"
    # How a coder learns what its neighbours hold: reception reports, COPE's guess from link
    # delivery, both (COPE's own), or the neighbours' pools read directly (oracle, for tests).
    knowledge: Literal["reports_and_guessing", "reports", "guessing", "oracle"] = "reports_and_guessing"
    # G: a coding is sent only if every next hop decodes it with at least this probability.
    threshold: CopeThreshold = 0.8
    # T: how long a native stays in a pool (and a report about it stays valid).
    pool_lifetime: PositiveDuration = 500_000_000
    # A node with natives to report that sends nothing for this long sends a report alone.
    report_idle: PositiveDuration = 10_000_000
    # A next hop with natives to acknowledge that sends nothing for this long sends an ACK alone.
    ack_delay: PositiveDuration = 10_000_000
    # Ta: how long a coder waits for a native's COPE ACK before queueing it again.
    ack_timeout: PositiveDuration = 100_000_000
    # COPE retransmissions of a native before it is dropped (0: none).
    retry_limit: Count32 = 3
    # Whether TCP's ACKs are coded like any native (COPE codes them).
    code_acks: StrictBool = True
    # The most natives one reception report lists; the rest wait for the next header.
    max_report: PositiveCount32 = 32


# --- Base-station downlink (papers 002, 004) --------------------------------------------------


# Maximum Doppler frequencies may be 0 Hz (a static channel).
DopplerFrequency = Annotated[
    _real(units.parse_frequency, units.format_frequency), AfterValidator(_within(0, math.inf, low_open=False, high_open=True))
]


class DownlinkUser(_Model):
    """A user of the downlink: its node and its average received SNR."""

    node: Name
    mean_snr: Ratio


class Ieee80216eAmc(_Model):
    """The eight IEEE 802.16e modes QPSK 1/2 ... 64-QAM 5/6 (paper 002's ns-2 downlink)."""

    kind: Literal["ieee802_16e"]


class Liu2004Amc(_Model):
    """The first `count` modes of Liu, Zhou & Giannakis (2004), Table I, each used once its
    packet error rate falls to `target_per` (paper 002's fluid model: 5 modes)."""

    kind: Literal["liu2004"]
    count: Annotated[PositiveCount32, AfterValidator(_whole_within(1, 6))] = 5
    target_per: Annotated[PositiveNumber, AfterValidator(_within(0, 1, low_open=True, high_open=True))] = 0.01


class AmcMode(_Model):
    """One row of a custom AMC table."""

    min_snr: Ratio
    efficiency: PositiveNumber


class CustomAmc(_Model):
    """An AMC table given mode by mode, thresholds increasing."""

    kind: Literal["custom"]
    modes: Annotated[list[AmcMode], Field(min_length=1)]


AmcConfig = Annotated[Union[Ieee80216eAmc, Liu2004Amc, CustomAmc], Field(discriminator="kind")]


class IdealFrame(_Model):
    """No frame overhead: a mode of efficiency e carries e x bandwidth x slot bits per slot."""

    kind: Literal["ideal"]


class Ieee80216ePuscFrame(_Model):
    """An IEEE 802.16e OFDMA TDD frame with a DL PUSC downlink subframe: the frame efficiency is
    its data subcarriers x data symbols per second over the bandwidth (docs/downlink.md#frame).
    The defaults are the 10 MHz profile (efficiency 0.3456)."""

    kind: Literal["ieee802_16e_pusc"]
    # n: sampling rate floor(n bandwidth / 8000) x 8000 Hz; 28/25 for 10 MHz.
    sampling_factor: PositiveNumber = 1.12
    fft_size: PositiveCount32 = 1024
    # G: a symbol lasts (1 + G) fft_size / sampling rate.
    cyclic_prefix: Annotated[
        _real(units.parse_number, None), AfterValidator(_within(0, 1, low_open=False, high_open=True))
    ] = 0.125
    duration: PositiveDuration = 5_000_000
    ttg: Duration = 105_714
    rtg: Duration = 60_000
    # Downlink symbols (preamble included) and uplink symbols; with the gaps they must fit the frame.
    dl_symbols: PositiveCount32 = 29
    ul_symbols: Count32 = 18
    preamble_symbols: Count32 = 1
    # FCH, DL-MAP and UL-MAP (an assumption: their size depends on the bursts).
    map_symbols: Count32 = 4
    data_subcarriers: PositiveCount32 = 720


FrameConfig = Annotated[Union[IdealFrame, Ieee80216ePuscFrame], Field(discriminator="kind")]


def _is_ideal_frame(value: object) -> bool:
    return isinstance(value, IdealFrame)




class NoSlotFading(_Model):
    """Every slot sees the mean SNR."""

    kind: Literal["none"]


class RayleighSlotFading(_Model):
    """An independent Rayleigh power gain per slot."""

    kind: Literal["rayleigh"]


class GaussMarkovSlotFading(_Model):
    """Rayleigh with an AR(1) complex gain, slot-to-slot correlation J0(2 pi doppler slot)."""

    kind: Literal["gauss_markov"]
    doppler: DopplerFrequency


class ClarkeSlotFading(_Model):
    """Rayleigh from a sum of `sinusoids` sinusoids (Clarke's autocorrelation at every lag)."""

    kind: Literal["clarke"]
    doppler: DopplerFrequency
    sinusoids: Annotated[PositiveCount32, AfterValidator(_whole_within(1, 4096))] = 16


SlotFadingConfig = Annotated[
    Union[NoSlotFading, RayleighSlotFading, GaussMarkovSlotFading, ClarkeSlotFading], Field(discriminator="kind")
]


class SlotScheduler(_Model):
    """Who is served each slot: round-robin, the highest instantaneous SNR, the largest
    queue x rate (MaxWeight), paper 002's eq. (10) queue / average throughput x rate, or M-LWDF."""

    kind: Literal["round_robin", "max_snr", "max_weight", "delay_max_weight", "mlwdf"]


class BimodalErasure(_Model):
    """Paper 004's channel: each user's packet success probability is `low` or `high`; a state
    lasts a duration uniform in [hold_min, hold_max], then the next is drawn (`low` with
    probability `low_probability`)."""

    kind: Literal["bimodal"]
    low: Probability
    high: Probability
    low_probability: Probability
    hold_min: PositiveDuration
    hold_max: PositiveDuration


ErasureConfig = Annotated[Union[BimodalErasure], Field(discriminator="kind")]


class DownlinkConfig(_Model):
    """A base station serving users over a slotted downlink; defaults are paper 002's ns-2
    setup (see docs/downlink.md)."""

    base_station: Name
    users: Annotated[list[DownlinkUser], Field(min_length=1)]
    slot: PositiveDuration = 10_000_000
    bandwidth: PositiveFrequency = 10e6
    # The frame and the per-packet MAC overhead are left out of the normalised form at their
    # defaults (ideal, 0), so that the results of scenarios written before them keep their bytes.
    frame: FrameConfig = Field(default_factory=lambda: IdealFrame(kind="ideal"), exclude_if=_is_ideal_frame)
    mac_overhead_bytes: Size32 = Field(default=0, exclude_if=_is_zero)
    # The residual factor after the frame model: a declared calibration (docs/downlink.md).
    rate_scale: Annotated[PositiveNumber, AfterValidator(_within(0, 1, low_open=True, high_open=False))] = 1.0
    amc: AmcConfig = Field(default_factory=lambda: Ieee80216eAmc(kind="ieee802_16e"))
    fading: SlotFadingConfig = Field(
        default_factory=lambda: GaussMarkovSlotFading.model_validate({"kind": "gauss_markov", "doppler": "128Hz"})
    )
    scheduler: SlotScheduler = Field(default_factory=lambda: SlotScheduler(kind="delay_max_weight"))
    queue_packets: PositiveCount32 = 2000
    service: Literal["fragment", "whole_packets"] = "fragment"
    average_window: PositiveCount32 = 256
    erasure: Optional[ErasureConfig] = None
    uplink_rate: PositiveRate = 1_000_000_000
    uplink_delay: Duration = 0


class PairBuffers(_Model):
    """Capacities of a flow's priority queue pair, packets."""

    high: PositiveCount32
    low: Count32


class BlindLowPolicy(_Model):
    """Low-priority packets round-robin over the flows."""

    kind: Literal["blind"]


class ChannelAwareLowPolicy(_Model):
    """Per-block quotas from each user's success probability (kappa standard deviations of
    margin), then round-robin."""

    kind: Literal["channel_aware"]
    kappa: NonNegativeNumber = 2.0


LowPolicyConfig = Annotated[Union[BlindLowPolicy, ChannelAwareLowPolicy], Field(discriminator="kind")]


class PriorityPairsConfig(_Model):
    """TCP-RLC's router: per flow a high-priority FIFO and a low-priority LIFO (docs/tcp_rlc.md)."""

    buffers: PairBuffers
    low_order: Literal["lifo", "fifo"] = "lifo"
    low_policy: LowPolicyConfig = Field(default_factory=lambda: BlindLowPolicy(kind="blind"))


class RouterUser(_Model):
    """A user of a wireless router: its channel's erasures and its flows' pair capacities."""

    node: Name
    channel: Optional[ErasureConfig] = None
    buffers: Optional[PairBuffers] = None


class RouterConfig(_Model):
    """A wireless router: one transmitter of `rate` shared by its users, packet by packet."""

    node: Name
    rate: PositiveRate
    queue: QueueConfig = Field(default_factory=lambda: DroptailQueue(kind="droptail", packets=100))
    users: Annotated[list[RouterUser], Field(min_length=1)]
    uplink_rate: PositiveRate = 1_000_000_000
    uplink_delay: Duration = 0
    priority_pairs: Optional[PriorityPairsConfig] = None



# --- Measurements -----------------------------------------------------------------------------


class MetricsConfig(_Model):
    """What to record besides the per-flow totals."""

    bin: PositiveDuration = 1_000_000_000
    trace_rtt: StrictBool = False
    trace_cwnd: StrictBool = False
    trace_queues: StrictBool = False
    trace_interval: PositiveDuration = 100_000_000


class LimitsConfig(_Model):
    """Resource limits of a run (docs/scenario-schema.md, Limits)."""

    # Bytes; the core's default (4 GiB). A scenario whose allocations would exceed it is refused,
    # a run that outgrows it stops with an error.
    memory: PositiveSize64 = 4 * 2**30


# --- The scenario ----------------------------------------------------------------------------


class Scenario(_Model):
    """A whole scenario: topology, flows and what to measure."""

    # Optional in files: a scenario read from a file is named after it, otherwise "scenario".
    name: Text = "scenario"
    duration: PositiveDuration
    # The core has no default seed; a fixed default keeps runs reproducible when none is given.
    seed: Seed = 1
    # Wired-only nodes; the topology's nodes follow them in node-id order.
    nodes: list[Name] = Field(default_factory=list)
    topology: Optional[TopologyConfig] = None
    radio: Optional[RadioConfig] = None
    link_errors: list[LinkErrorConfig] = Field(default_factory=list)
    routing: RoutingConfig = Field(default_factory=lambda: StaticRouting(kind="static"))
    # Left out of the normalised form when absent, like `routers`.
    coding: Optional[CodingConfig] = Field(default=None, exclude_if=_is_none)
    failures: list[FailureConfig] = Field(default_factory=list)
    links: list[LinkConfig] = Field(default_factory=list)
    downlink: Optional[DownlinkConfig] = None
    # Left out of the normalised form when empty, so that the results of scenarios without
    # routers keep their bytes.
    routers: list[RouterConfig] = Field(default_factory=list, exclude_if=_is_empty)
    flows: list[FlowConfig] = Field(default_factory=list)
    metrics: MetricsConfig = Field(default_factory=MetricsConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)

    def node_names(self) -> list[str]:
        """Every node's name in node-id order: `nodes`, then those the topology places."""
        return [*self.nodes, *placed_node_names(self.topology)]

    @property
    def node_count(self) -> int:
        """How many nodes the scenario has (without listing generated names)."""
        topology = self.topology
        placed = len(topology.nodes) if isinstance(topology, ExplicitTopology) else 0
        return len(self.nodes) + placed + (_generated_count(topology) if topology is not None else 0)

    @model_validator(mode="after")
    def _check_consistency(self) -> "Scenario":
        # ScenarioError is not a ValueError, so the model lets it through unchanged with its paths.
        problems = list(_consistency_problems(self))
        if problems:
            raise ScenarioError.from_list(problems)
        return self


# Generated nodes are n0, n1, ...; "n01" is not one of them.
_GENERATED_NAME = re.compile(r"n(0|[1-9][0-9]*)")


class _Directory:
    """The scenario's node names. Generated names are recognised by their number rather than
    listed, so a large grid costs nothing to check against."""

    # A plain class: `dataclasses` imports `inspect`, several milliseconds of every command.
    __slots__ = ("explicit", "generated", "wired")

    def __init__(self, wired: dict[str, int], explicit: dict[str, int], generated: int):
        self.wired = wired  # name -> first index in `nodes`
        self.explicit = explicit  # name -> first index in `topology.nodes`
        self.generated = generated  # the topology names n0..n{generated-1}

    def is_generated(self, name: str) -> bool:
        match = _GENERATED_NAME.fullmatch(name)
        return match is not None and int(match[1]) < self.generated

    def is_placed(self, name: str) -> bool:
        return name in self.explicit or self.is_generated(name)

    def __contains__(self, name: str) -> bool:
        return name in self.wired or self.is_placed(name)

    def generated_range(self) -> str:
        return "n0" if self.generated == 1 else f"n0..n{self.generated - 1}"

    def describe(self) -> str:
        names = [*self.wired, *self.explicit]
        if self.generated:
            names.append(self.generated_range())
        if len(names) > 12:
            total = len(self.wired) + len(self.explicit) + self.generated
            names = [*names[:10], f"... ({total} in all)"]
        return ", ".join(names)


def _mbps(rate: int) -> str:
    """2_000_000 -> "2", 5_500_000 -> "5.5" (megabits per second, exact)."""
    return format(Decimal(rate).scaleb(-6).normalize(), "f")


def _consistency_problems(scenario: Scenario) -> Iterable[tuple[str, str]]:
    """Checks spanning several fields, as (path, message) pairs."""
    topology, radio = scenario.topology, scenario.radio

    wired: dict[str, int] = {}
    for i, node in enumerate(scenario.nodes):
        if node in wired:
            yield f"nodes[{i}]", f"duplicate node name {node!r}"
        wired.setdefault(node, i)
    explicit: dict[str, int] = {}
    if isinstance(topology, ExplicitTopology):
        for i, placed in enumerate(topology.nodes):
            where, name = f"topology.nodes[{i}].name", placed.name
            if name in wired:
                yield where, f"{name!r} is already a node name (nodes[{wired[name]}])"
            elif name in explicit:
                yield where, f"duplicate node name {name!r} (also topology.nodes[{explicit[name]}])"
            explicit.setdefault(name, i)
    generated = _generated_count(topology) if topology is not None else 0
    directory = _Directory(wired, explicit, generated)
    if generated and topology is not None:
        for i, node in enumerate(scenario.nodes):
            if directory.is_generated(node):
                yield (
                    f"nodes[{i}]",
                    f"{node!r} is already a node name: the {topology.kind} topology names its nodes "
                    f"{directory.generated_range()}",
                )

    placed_count = len(topology.nodes) if isinstance(topology, ExplicitTopology) else generated
    if not scenario.nodes and topology is None:
        yield "nodes", "the scenario has no nodes: list wired nodes here or place wireless ones with topology"
    elif len(scenario.nodes) + placed_count > U32_MAX:
        yield "topology", f"places {placed_count} nodes; a scenario holds at most {U32_MAX} nodes in all"

    if topology is not None and radio is None:
        yield (
            "radio",
            "required with a topology (the radio of the nodes it places), e.g. {standard: 802.11b, "
            "data_rate: 2Mbps, basic_rate: 1Mbps, propagation: {kind: range, range: 250m}}",
        )
    if radio is not None:
        if topology is None:
            yield (
                "topology",
                "required with a radio (where the wireless nodes are), e.g. {kind: chain, hops: 3, spacing: 200m}",
            )
        rates = _standard_table("RATES_OF_STANDARD")[radio.standard]
        allowed = ", ".join(_mbps(rate) for rate in rates)
        given = [("radio.data_rate", radio.data_rate), ("radio.basic_rate", radio.basic_rate)]
        given += [(f"radio.link_rates[{k}].rate", lr.rate) for k, lr in enumerate(radio.link_rates)]
        for where, rate in given:
            if rate not in rates:
                yield where, f"{radio.standard} has no {_mbps(rate)} Mbps rate; use one of {allowed} Mbps"
        slot_ns = _standard_table("SLOT_NS")[radio.standard]
        if radio.cca_time >= slot_ns:
            yield "radio.cca_time", (
                f"must be shorter than the slot ({slot_ns // 1000} us in {radio.standard}): a station has to "
                f"sense a transmission within the slot it started in; got {radio.cca_time} ns"
            )
        if radio.standard == "802.11a" and radio.preamble is not None:
            yield "radio.preamble", "802.11a has one OFDM preamble (16 us + 4 us SIGNAL); leave preamble out"

    def missing(name: str) -> str:
        listed = directory.describe()
        return f"no node named {name!r} ({f'nodes: {listed}' if listed else 'the scenario has no nodes'})"

    if radio is not None:
        yield from _node_channel_problems(radio, directory, missing)
        for k, link_rate in enumerate(radio.link_rates):
            yield from _wireless_link_problems(
                f"radio.link_rates[{k}]", link_rate.from_, link_rate.to, directory, missing,
                "link_rates set the rates of wireless links between nodes the topology places",
            )

    neighbours: dict[str, set[str]] = {node: set() for node in scenario.nodes}
    seen_pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(scenario.links):
        ends_ok = True
        for field, node in (("from", link.from_), ("to", link.to)):
            if node not in directory:
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
            neighbours.setdefault(link.from_, set()).add(link.to)
            neighbours.setdefault(link.to, set()).add(link.from_)

    downlink = scenario.downlink
    if downlink is not None:
        yield from _downlink_problems(downlink, directory, missing, neighbours)
        if isinstance(scenario.routing, AodvRouting):
            yield "routing.kind", "aodv routes over radios only; this scenario has a downlink (use static)"
        if isinstance(scenario.routing, BackpressureRouting):
            yield "routing.kind", "backpressure forwards over radios only; this scenario has a downlink"
        if isinstance(scenario.routing, HorizonRouting):
            yield "routing.kind", (
                "horizon forwards over radios only; this scenario has wired links, a downlink or routers"
            )
    if scenario.routers:
        yield from _router_problems(scenario, directory, missing, neighbours)
    if scenario.coding is not None:
        yield from _coding_problems(scenario)

    for i, extra in enumerate(scenario.link_errors):
        where = f"link_errors[{i}]"
        yield from _wireless_link_problems(
            where, extra.from_, extra.to, directory, missing,
            "link_errors apply to wireless links between nodes the topology places, wired links have their own loss",
        )
        error = extra.error
        if isinstance(error, BimodalErrors) and error.hold_max < error.hold_min:
            yield (
                f"{where}.error.hold_max",
                f"must not be smaller than hold_min ({units.format_duration(error.hold_min)})",
            )

    for i, failure in enumerate(scenario.failures):
        where = f"failures[{i}].node"
        if failure.node not in directory:
            yield where, missing(failure.node)
        elif not directory.is_placed(failure.node):
            yield where, f"{failure.node!r} has no radio; only wireless nodes can fail"

    duration = scenario.duration
    flow_ids: dict[str, int] = {}
    for i, flow in enumerate(scenario.flows):
        where = f"flows[{i}]"
        if flow.id in flow_ids:
            yield f"{where}.id", f"duplicate flow id {flow.id!r} (also flows[{flow_ids[flow.id]}])"
        flow_ids.setdefault(flow.id, i)
        ends_ok = True
        for field, node in (("src", flow.src), ("dst", flow.dst)):
            if node not in directory:
                ends_ok = False
                yield f"{where}.{field}", missing(node)
        if flow.src == flow.dst:
            yield f"{where}.dst", f"source and destination are the same node {flow.dst!r}"
        # Over radios, whether a route exists depends on the propagation model: the core decides.
        elif ends_ok and topology is None and not _reachable(neighbours, flow.src, flow.dst):
            yield f"{where}.dst", f"no route from {flow.src!r} to {flow.dst!r} over the links"

        app_kind, transport_kind = flow.app.kind, flow.transport.kind
        needed = ("tcp", "tcp_rlc") if app_kind == "bulk" else ("udp",)
        if transport_kind not in needed:
            yield (
                f"{where}.transport.kind",
                f"a {app_kind} application needs a {' or '.join(needed)} transport, got {transport_kind!r}",
            )

        if flow.start >= duration:
            yield (
                f"{where}.start",
                f"must be before the end of the run ({units.format_duration(duration)}), "
                f"got {units.format_duration(flow.start)}",
            )
        if flow.start_jitter and flow.start + flow.start_jitter > duration:
            yield (
                f"{where}.start_jitter",
                f"start + start_jitter must not be later than the end of the run ({units.format_duration(duration)})",
            )
        # A stop after the end of the run is allowed: the core caps it at `duration`, which lets
        # `--set duration=...` shorten a run without editing every flow.
        if flow.stop is not None and flow.stop <= flow.start:
            yield f"{where}.stop", f"must be after start ({units.format_duration(flow.start)})"
        elif flow.stop is not None and flow.stop < flow.start + flow.start_jitter:
            # The flow starts up to start_jitter late, drawn per seed: a stop before that would
            # make the scenario fail for some seeds only.
            latest = units.format_duration(flow.start + flow.start_jitter)
            yield f"{where}.stop", f"must not be before start + start_jitter ({latest}), the latest the flow may start"

        if flow.paths is not None:
            yield from _flow_paths_problems(
                where, flow, scenario.routing, directory, missing, neighbours, ends_ok and flow.src != flow.dst
            )

        if isinstance(flow.transport, TcpRlcConfig):
            rlc = flow.transport
            if rlc.max_cwnd < rlc.initial_cwnd:
                yield f"{where}.transport.max_cwnd", "must not be smaller than initial_cwnd"
            elif rlc.decoder == "exact" and rlc.max_cwnd > MAX_EXACT_BLOCK:
                yield (
                    f"{where}.transport.max_cwnd",
                    f"the exact decoder keeps B^2 coefficients per block: at most {MAX_EXACT_BLOCK} with it",
                )

        if isinstance(flow.transport, TcpConfig):
            tcp = flow.transport
            if tcp.max_rto < tcp.min_rto:
                yield f"{where}.transport.max_rto", "must not be smaller than min_rto"
            if tcp.rwnd < tcp.mss:
                yield f"{where}.transport.rwnd", f"must hold at least one segment (mss {tcp.mss} bytes)"
            for block, owner in CC_PARAMETER_BLOCKS.items():
                if getattr(tcp, block) is not None and tcp.cc != owner:
                    yield f"{where}.transport.{block}", f"only used with cc: {owner} (cc is {tcp.cc})"
            if tcp.vegas is not None and tcp.vegas.beta < tcp.vegas.alpha:
                yield (
                    f"{where}.transport.vegas.beta",
                    f"must not be smaller than alpha ({tcp.vegas.alpha:g}), got {tcp.vegas.beta:g}",
                )


def _flow_paths_problems(
    where: str,
    flow: FlowConfig,
    routing: Any,
    directory: _Directory,
    missing: Callable[[str], str],
    neighbours: Mapping[str, set[str]],
    ends_ok: bool,
) -> Iterable[tuple[str, str]]:
    """A flow's `paths`: static routing only; each explicit path over known nodes from the flow's
    source to its destination, none twice, consecutive nodes linked where the links say so (whether
    two radios are in range is the core's to judge, as for routes). The core checks the same, and
    finds the disjoint paths."""
    paths = flow.paths
    if isinstance(routing, AodvRouting):
        yield f"{where}.paths", "aodv finds its routes itself; flow paths are followed under static routing"
        return
    if isinstance(routing, BackpressureRouting):
        yield f"{where}.paths", "backpressure chooses next hops itself; flow paths are followed under static routing"
        return
    if not isinstance(paths, ExplicitPaths):
        return
    for j, path in enumerate(paths.paths):
        at = f"{where}.paths.paths[{j}]"
        if len(path) < 2:
            yield (
                at,
                f"a path runs from the flow's source {flow.src!r} to its destination {flow.dst!r}: two "
                f"nodes at least, got {len(path)}",
            )
            continue
        known = True
        seen: dict[str, int] = {}
        for m, name in enumerate(path):
            if name not in directory:
                known = False
                yield f"{at}[{m}]", missing(name)
            elif name in seen:
                known = False
                yield f"{at}[{m}]", f"{name!r} is on the path already (at [{seen[name]}]); a path visits each node once"
            seen.setdefault(name, m)
        if path[0] != flow.src:
            yield f"{at}[0]", f"must be the flow's source {flow.src!r}, got {path[0]!r}"
        if path[-1] != flow.dst:
            yield f"{at}[{len(path) - 1}]", f"must be the flow's destination {flow.dst!r}, got {path[-1]!r}"
        if not (known and ends_ok):
            continue
        for m in range(1, len(path)):
            a, b = path[m - 1], path[m]
            # Two placed nodes may be radios in range of each other: the core knows.
            if b not in neighbours.get(a, ()) and not (directory.is_placed(a) and directory.is_placed(b)):
                yield (
                    f"{at}[{m}]",
                    f"no link from {a!r} to {b!r} (consecutive nodes must be neighbours: a wired link, the "
                    "downlink, or radios in range)",
                )
                break


def _downlink_problems(
    downlink: DownlinkConfig,
    directory: _Directory,
    missing: Callable[[str], str],
    neighbours: dict[str, set[str]],
) -> Iterable[tuple[str, str]]:
    """The downlink's node references and orderings; its links join `neighbours`."""
    bs = downlink.base_station
    bs_ok = bs in directory
    if not bs_ok:
        yield "downlink.base_station", missing(bs)
    users: dict[str, int] = {}
    for i, user in enumerate(downlink.users):
        where = f"downlink.users[{i}].node"
        if user.node not in directory:
            yield where, missing(user.node)
        elif user.node == bs:
            yield where, "the base station cannot be one of its own users"
        elif user.node in users:
            yield where, f"{user.node!r} is already downlink.users[{users[user.node]}]"
        else:
            users[user.node] = i
            if bs_ok:
                # Downlink one way, the user's uplink the other.
                neighbours.setdefault(bs, set()).add(user.node)
                neighbours.setdefault(user.node, set()).add(bs)
    if isinstance(downlink.amc, CustomAmc):
        modes = downlink.amc.modes
        for i in range(1, len(modes)):
            if modes[i].min_snr <= modes[i - 1].min_snr:
                yield f"downlink.amc.modes[{i}].min_snr", "thresholds must increase"
            if modes[i].efficiency < modes[i - 1].efficiency:
                yield f"downlink.amc.modes[{i}].efficiency", "must not be below the previous mode's"
    erasure = downlink.erasure
    if erasure is not None and erasure.hold_max < erasure.hold_min:
        yield (
            "downlink.erasure.hold_max",
            f"must not be smaller than hold_min ({units.format_duration(erasure.hold_min)})",
        )


def _router_problems(
    scenario: Scenario,
    directory: _Directory,
    missing: Callable[[str], str],
    neighbours: dict[str, set[str]],
) -> Iterable[tuple[str, str]]:
    """The routers' node references, users and channels; their links join `neighbours`."""
    if isinstance(scenario.routing, AodvRouting):
        yield "routing.kind", "aodv routes over radios only; this scenario has routers (use static)"
    elif isinstance(scenario.routing, BackpressureRouting):
        yield "routing.kind", "backpressure forwards over radios only; this scenario has routers"
    elif isinstance(scenario.routing, HorizonRouting):
        yield "routing.kind", "horizon forwards over radios only; this scenario has wired links, a downlink or routers"
    elif any(r.priority_pairs is not None for r in scenario.routers) and not isinstance(
        scenario.routing, StaticRouting
    ):
        yield "routing.kind", "routers with priority_pairs forward over static routes (use static)"
    base_station = scenario.downlink.base_station if scenario.downlink is not None else None
    routers: dict[str, int] = {}
    for r, router in enumerate(scenario.routers):
        where = f"routers[{r}]"
        node_ok = router.node in directory
        if not node_ok:
            yield f"{where}.node", missing(router.node)
        elif router.node in routers:
            yield f"{where}.node", f"{router.node!r} is already routers[{routers[router.node]}]"
        elif router.node == base_station:
            yield f"{where}.node", "the node is the downlink's base station"
        routers.setdefault(router.node, r)
        users: dict[str, int] = {}
        for u, user in enumerate(router.users):
            at = f"{where}.users[{u}]"
            if user.node not in directory:
                yield f"{at}.node", missing(user.node)
            elif user.node == router.node:
                yield f"{at}.node", "a router cannot be one of its own users"
            elif user.node in users:
                yield f"{at}.node", f"{user.node!r} is already {where}.users[{users[user.node]}]"
            else:
                users[user.node] = u
                if node_ok:
                    neighbours.setdefault(router.node, set()).add(user.node)
                    neighbours.setdefault(user.node, set()).add(router.node)
            channel = user.channel
            if channel is not None and channel.hold_max < channel.hold_min:
                yield (
                    f"{at}.channel.hold_max",
                    f"must not be smaller than hold_min ({units.format_duration(channel.hold_min)})",
                )


def _coding_problems(scenario: Scenario) -> Iterable[tuple[str, str]]:
    """`coding`: over radios, one per node, under static routes, with no wired links, downlink or
    routers (flows' paths are fine). The core checks the same (`scenario::coding::check`), in this
    order."""
    if scenario.coding.recovery is not None and scenario.coding.scheme != "bfly":
        yield "coding.recovery", "is BFLY's recovery rule; it needs scheme: bfly"
    radio = scenario.radio
    if radio is None:
        yield "coding", "coding runs over radios; this scenario has none"
        return
    if not isinstance(scenario.routing, StaticRouting):
        yield "routing.kind", "coding forwards over static routes (use static)"
    if scenario.links or scenario.downlink is not None or scenario.routers:
        yield "coding", "coding runs over radios only; this scenario has wired links, a downlink or routers"
    if radio.node_channels:
        yield "radio.node_channels", "coding runs on one radio per node"


def _wireless_link_problems(
    where: str, src: str, dst: str, directory: _Directory, missing: Callable[[str], str], wired_hint: str
) -> Iterable[tuple[str, str]]:
    """The two ends of a per-link radio setting at `where` (`link_errors[i]`,
    `radio.link_rates[i]`): placed nodes, and not the same one."""
    for field, node in (("from", src), ("to", dst)):
        if node not in directory:
            yield f"{where}.{field}", missing(node)
        elif not directory.is_placed(node):
            yield f"{where}.{field}", f"{node!r} has no radio (it is listed in nodes); {wired_hint}"
    if src == dst:
        yield f"{where}.to", f"a link cannot connect node {dst!r} to itself"


def _node_channel_problems(
    radio: RadioConfig, directory: _Directory, missing: Callable[[str], str]
) -> Iterable[tuple[str, str]]:
    """`radio.node_channels`: placed nodes only, each with a non-empty list of distinct channels."""
    for name, channels in radio.node_channels.items():
        where = f"radio.node_channels.{name}"
        if name not in directory:
            yield where, missing(name)
        elif not directory.is_placed(name):
            yield where, f"{name!r} is a wired node (listed in nodes); only placed nodes have radios"
        if not channels:
            yield where, "needs at least one channel"
        seen: set[int] = set()
        for k, channel in enumerate(channels):
            if channel in seen:
                yield f"{where}[{k}]", f"channel {channel} is listed twice (one radio per channel)"
            seen.add(channel)


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

    `source` is a path to a YAML file, a bundled scenario's name (`"examples/p2p_lossy"`), YAML
    text, a mapping with the file's structure, or a `Scenario`. `overrides` are `"path=value"` strings (as given to `--set`), applied to the raw
    data before validation; `seed`, if given, replaces the scenario's seed after them.
    Raises `ScenarioError` for any problem, including arguments of the wrong type.
    """
    # Imported here: reading YAML is needed only now (`import airtcp.scenario.schema` alone
    # does not load the YAML parser).
    from airtcp.scenario.overrides import apply_overrides, parse_overrides
    from airtcp.scenario.source import read_source

    parsed_overrides = parse_overrides(overrides)
    if seed is not None:
        seed = _checked_seed(seed)
    if isinstance(source, Scenario) and not parsed_overrides:
        return source if seed is None else source.model_copy(update={"seed": seed})
    raw = to_user_dict(source) if isinstance(source, Scenario) else read_source(source)
    apply_overrides(raw, parsed_overrides, Scenario)
    if seed is not None:
        raw["seed"] = seed
    return Scenario.model_validate(raw)


def _checked_seed(seed: object) -> int:
    """`seed` as an int; NumPy's integers count, booleans do not."""
    try:
        number = operator.index(seed) if not isinstance(seed, bool) else None
    except TypeError:
        number = None
    if number is None or not 0 <= number <= U64_MAX:
        raise ScenarioError(
            "seed", f"must be a whole number between 0 and 2^64-1, got {units.brief_repr(seed)} ({type(seed).__name__})"
        )
    return number


def to_core_dict(scenario: Scenario) -> dict[str, Any]:
    """The normalised scenario as plain data: integers for units, every field present."""
    return scenario.model_dump(mode="json", by_alias=True)


def to_core_json(scenario: Scenario) -> str:
    """The normalised scenario as the JSON the simulator core accepts."""
    return json.dumps(to_core_dict(scenario))


def to_user_dict(scenario: Scenario) -> dict[str, Any]:
    """The scenario as a file would spell it ("200s", "2Mbps"); `load_scenario` accepts it."""
    return scenario.model_dump(mode="json", by_alias=True, context={_USER_FORM: True})
