"""The scenario format's models, one per part of a scenario file.

Written by `make schema` (`airtcp.scenario.model_gen`) from the core's JSON Schema
(airtcp/data/scenario.schema.json), itself made from the core's config types: edit those (or the
rules across fields in `airtcp.scenario.rules`), not this file.
"""

# No `from __future__ import annotations`: the model engine reads each annotation as an object.

from typing import Annotated, Literal, Optional, Union

from airtcp.scenario import rules
from airtcp.scenario.fields import Field, StrictBool
from airtcp.scenario.readers import (
    Model,
    Name,
    Text,
    at_default,
    count_or_keyword,
    entries,
    integer,
    keyword_or_list,
    real,
)
from airtcp.scenario.units import U32_MAX, U64_MAX

__all__ = [
    "PlacedNode",
    "ExplicitTopology",
    "ChainTopology",
    "GridTopology",
    "RandomTopology",
    "Point",
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
    "Standard",
    "RangePropagation",
    "FreeSpacePropagation",
    "TwoRayGroundPropagation",
    "LogDistancePropagation",
    "PropagationConfig",
    "NoFading",
    "RayleighFading",
    "BlockFading",
    "FadingConfig",
    "ReceptionModel",
    "AckRate",
    "Preamble",
    "ConstantRateControl",
    "IdealRateControl",
    "ArfRateControl",
    "AarfRateControl",
    "MinstrelRateControl",
    "MinstrelHtRateControl",
    "SnrThresholdRateControl",
    "RateControlConfig",
    "Band",
    "Width",
    "GuardInterval",
    "HtConfig",
    "AggregationConfig",
    "Direction",
    "LinkRateConfig",
    "DroptailQueue",
    "QueueConfig",
    "FrameErrorMode",
    "MacProfile",
    "RadioConfig",
    "NodeSet",
    "ConstantPositionMobility",
    "ConstantVelocityMobility",
    "Bounds",
    "RandomWaypointMobility",
    "WalkMode",
    "RandomWalkMobility",
    "Ns2Mobility",
    "BonnmotionMobility",
    "MobilityConfig",
    "BernoulliErrorProcess",
    "GilbertElliottErrorProcess",
    "BimodalErrorProcess",
    "ErrorProcessConfig",
    "LinkErrorConfig",
    "RouteMetric",
    "StaticRouting",
    "AodvRouting",
    "BpDifferentialConfig",
    "BpNextHopsConfig",
    "BpLossEstimateConfig",
    "BpSelectionConfig",
    "BackpressureRouting",
    "HzPriceConfig",
    "HzNextHopConfig",
    "HzMacConfig",
    "HzRefreshPriorityConfig",
    "HzRefreshRuleConfig",
    "HzPathChoiceConfig",
    "HzSignalConfig",
    "HzReorderConfig",
    "HorizonRouting",
    "RoutingConfig",
    "CodingScheme",
    "CodingRecovery",
    "CodingQueue",
    "CodingKnowledge",
    "PeriodicCodingControl",
    "IdleTimerCodingControl",
    "CodingControl",
    "CodingConfig",
    "FailureConfig",
    "BernoulliLoss",
    "SegmentsLoss",
    "LossConfig",
    "LinkConfig",
    "DownlinkUserConfig",
    "IdealFrame",
    "Ieee80216ePuscFrame",
    "FrameConfig",
    "Ieee80216eAmc",
    "Liu2004Amc",
    "AmcModeConfig",
    "CustomAmc",
    "AmcConfig",
    "NoSlotFading",
    "RayleighSlotFading",
    "GaussMarkovSlotFading",
    "ClarkeSlotFading",
    "SlotFadingConfig",
    "SchedulerConfig",
    "ServiceConfig",
    "BimodalErasure",
    "ErasureConfig",
    "DownlinkConfig",
    "PairBuffers",
    "RouterUserConfig",
    "LowOrderConfig",
    "BlindLowPolicy",
    "ChannelAwareLowPolicy",
    "LowPolicyConfig",
    "PriorityPairsConfig",
    "RouterConfig",
    "BulkApp",
    "CbrApp",
    "PoissonApp",
    "LogUtility",
    "AlphaFairUtility",
    "UtilityConfig",
    "UtilityApp",
    "AppConfig",
    "TcpProfile",
    "CcKind",
    "SsthreshBasis",
    "RecoveryWindow",
    "HyStartKind",
    "CubicParams",
    "CompoundParams",
    "VegasParams",
    "FastParams",
    "BbrParams",
    "Bbr3Params",
    "PerAckQuicCadence",
    "IntervalQuicCadence",
    "FastRoundsQuicCadence",
    "QuicCadence",
    "QuicTcpParams",
    "NcBlock",
    "RelayCongestion",
    "NcConfig",
    "TcpTransport",
    "UdpTransport",
    "FieldConfig",
    "DecoderConfig",
    "SourceWindow",
    "TcpRlcTransport",
    "TransportConfig",
    "ReverseConfig",
    "ExplicitPaths",
    "DisjointPaths",
    "PathsConfig",
    "FlowConfig",
    "MetricsConfig",
    "TraceMedium",
    "TraceConfig",
    "LimitsConfig",
    "Scenario",
]


class PlacedNode(Model):
    """A node with a position."""

    # Node name.
    name: Name
    # x, m.
    x: real('distance')
    # y, m.
    y: real('distance')


class ExplicitTopology(Model):
    """Named nodes at given coordinates."""

    kind: Literal["explicit"]
    # The nodes.
    nodes: Annotated[list[PlacedNode], entries(1)]


class ChainTopology(Model):
    """`hops + 1` nodes on a line, `spacing` apart."""

    kind: Literal["chain"]
    # Number of hops (>= 1).
    hops: integer(None, minimum=1, maximum=U32_MAX)
    # Distance between neighbours, m.
    spacing: real('distance', exclusive_minimum=0)


class GridTopology(Model):
    """A `rows x cols` lattice, `spacing` apart, numbered row by row."""

    kind: Literal["grid"]
    # Rows (>= 1).
    rows: integer(None, minimum=1, maximum=U32_MAX)
    # Columns (>= 1).
    cols: integer(None, minimum=1, maximum=U32_MAX)
    # Distance between neighbours, m.
    spacing: real('distance', exclusive_minimum=0)


class RandomTopology(Model):
    """`n` nodes uniformly at random in a `width x height` area."""

    kind: Literal["random"]
    # Number of nodes.
    n: integer(None, minimum=1, maximum=U32_MAX)
    # Area width, m.
    width: real('distance', exclusive_minimum=0)
    # Area height, m.
    height: real('distance', exclusive_minimum=0)


class Point(Model):
    """A position."""

    # x, m.
    x: real('distance')
    # y, m.
    y: real('distance')


class CellsTopology(Model):
    """A `width x height` area cut into `rows x cols` cells with `per_cell` nodes placed uniformly in
    each (papers 000, 001), plus an optional gateway node (named last)."""

    kind: Literal["cells"]
    # Rows of cells.
    rows: integer(None, minimum=1, maximum=U32_MAX)
    # Columns of cells.
    cols: integer(None, minimum=1, maximum=U32_MAX)
    # Area width, m.
    width: real('distance', exclusive_minimum=0)
    # Area height, m.
    height: real('distance', exclusive_minimum=0)
    # Nodes per cell.
    per_cell: integer(None, minimum=1, maximum=U32_MAX) = 1
    # Position of a gateway node, if any.
    gateway: Optional[Point] = None


class TreeTopology(Model):
    """Paper 000's tree (Fig. 5a): root A `n0`, leaf B `n1`, relay C `n2`, leaf D `n3` below C."""

    kind: Literal["tree"]
    # Length of every link, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class DiamondTopology(Model):
    """Paper 000's diamond (Fig. 5b): A `n0`, B `n1`, C `n2`, D `n3`; two 2-hop paths A-B-D and A-C-D."""

    kind: Literal["diamond"]
    # Length of every link, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class XTopology(Model):
    """Paper 001's X topology (Fig. 1): relay I `n0`, S1 `n1` -> R1 `n3`, S2 `n2` -> R2 `n4`, with S1
    overheard by R2 and S2 by R1."""

    kind: Literal["x"]
    # Length of every link, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class AliceBobTopology(Model):
    """Paper 001's Alice-and-Bob topology (Fig. 2a): relay I `n0` between A1 `n1` and A2 `n2`."""

    kind: Literal["alice_bob"]
    # Length of every link, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class CrossTopology(Model):
    """Paper 001's cross (Fig. 2b): relay I `n0` amid `n1..n4`, each exchanging a flow with the node
    opposite and overhearing its two other neighbours."""

    kind: Literal["cross"]
    # Distance between neighbouring outer nodes, m (each is spacing/sqrt 2 from I).
    spacing: real('distance', exclusive_minimum=0) = 200.0


class WheelTopology(Model):
    """Paper 001's wheel (Fig. 2c), the cross generalised: relay I `n0` at the centre of `n` nodes on a
    circle, each hearing all others but the one opposite."""

    kind: Literal["wheel"]
    # Nodes on the circle (even, >= 2).
    n: integer(None, minimum=2, maximum=U32_MAX, multiple_of=2)
    # Scale, m: the rim is sized for a receive range of 1.25 x spacing.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class ButterflyTopology(Model):
    """Paper 001's butterfly (Fig. 8): relays I1 `n0` -> I2 `n1`, S1 `n2` -> R1 `n4`, S2 `n3` -> R2
    `n5`, with S1 overheard by R2 and S2 by R1."""

    kind: Literal["butterfly"]
    # Length of every link, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


class RingTopology(Model):
    """Paper 003's ring: `n` nodes on a circle, each hearing only its two neighbours, so every pair has
    two disjoint paths."""

    kind: Literal["ring"]
    # Nodes (>= 3).
    n: integer(None, minimum=3, maximum=U32_MAX)
    # Distance between neighbours, m.
    spacing: real('distance', exclusive_minimum=0) = 200.0


# Placement of wireless nodes. Generated nodes are named `n0..n{N-1}` (row-major for grids);
# distances are metres.
TopologyConfig = Annotated[Union[ExplicitTopology, ChainTopology, GridTopology, RandomTopology, CellsTopology, TreeTopology, DiamondTopology, XTopology, AliceBobTopology, CrossTopology, WheelTopology, ButterflyTopology, RingTopology], Field(discriminator="kind")]

# Wireless standards.
Standard = Literal["802.11b", "802.11a", "802.11n"]

class RangePropagation(Model):
    """Full transmit power within `range`, nothing beyond (ns-3's RangePropagationLossModel)."""

    kind: Literal["range"]
    # Range, m.
    range: real('distance', exclusive_minimum=0)


class FreeSpacePropagation(Model):
    """Friis free space."""

    kind: Literal["free_space"]
    # Carrier frequency, Hz.
    frequency: real('frequency', exclusive_minimum=0) = 914000000.0


class TwoRayGroundPropagation(Model):
    """Two-ray ground reflection beyond the crossover distance, Friis below it (ns-2)."""

    kind: Literal["two_ray_ground"]
    # Carrier frequency, Hz (ns-2: 914 MHz).
    frequency: real('frequency', exclusive_minimum=0) = 914000000.0
    # Antenna height, m (ns-2: 1.5 m).
    antenna_height: real('distance', exclusive_minimum=0) = 1.5


class LogDistancePropagation(Model):
    """Log-distance: L(d) = L0 + 10 n log10(d / d0) (ns-3's LogDistancePropagationLossModel)."""

    kind: Literal["log_distance"]
    # Path-loss exponent n.
    exponent: real(None, exclusive_minimum=0) = 3.0
    # Reference distance d0, m.
    reference_distance: real('distance', exclusive_minimum=0) = 1.0
    # Loss at d0, dB.
    reference_loss: real('ratio') = 46.6777


# Path loss models.
PropagationConfig = Annotated[Union[RangePropagation, FreeSpacePropagation, TwoRayGroundPropagation, LogDistancePropagation], Field(discriminator="kind")]

class NoFading(Model):
    """None."""

    kind: Literal["none"]


class RayleighFading(Model):
    """Rayleigh: the received power of every frame is scaled by an independent Exp(1) draw."""

    kind: Literal["rayleigh"]


class BlockFading(rules.BlockFadingRules, Model):
    """Rayleigh block fading: one Exp(1) gain per link per coherence interval."""

    kind: Literal["block"]
    # Coherence time, ns (give this or `doppler`).
    coherence: Optional[integer('duration', minimum=1, maximum=U64_MAX)] = None
    # Maximum Doppler frequency, Hz: coherence time 0.423 / f_d (Clarke's model).
    doppler: Optional[real('frequency', exclusive_minimum=0)] = None


# Fading.
FadingConfig = Annotated[Union[NoFading, RayleighFading, BlockFading], Field(discriminator="kind")]

# Reception under interference.
ReceptionModel = Literal["capture", "sinr"]

# Rate of ACK frames.
AckRate = Literal["basic", "data", "control"]

# PLCP preamble of DSSS.
Preamble = Literal["long", "short"]

class ConstantRateControl(Model):
    """Every unicast data frame at `radio.data_rate`."""

    kind: Literal["constant"]


class IdealRateControl(Model):
    """Per neighbour, fixed when the scenario is built: the highest rate, up to `radio.data_rate`,
    whose frame error rate for a `frame_bytes` frame at the link's mean SNR (no interference) is at
    most `max_per`; the lowest rate if none is."""

    kind: Literal["ideal"]
    # Largest acceptable frame error rate.
    max_per: real('probability', exclusive_minimum=0, exclusive_maximum=1) = 0.1
    # Size of the reference frame, bytes (MAC header and FCS included).
    frame_bytes: integer(None, minimum=1, maximum=U32_MAX) = 1555


class ArfRateControl(Model):
    """ARF (ns-3's `ArfWifiManager`): per neighbour, from the lowest rate up to `radio.data_rate`, one
    rate up after `success_threshold` acknowledged data frames in a row or `timer_threshold`
    attempts at the rate, back at once if the first attempt there fails, one down after every second
    failure in a row."""

    kind: Literal["arf"]
    # Acknowledged data frames in a row that raise the rate.
    success_threshold: integer(None, minimum=1, maximum=U32_MAX) = 10
    # Data attempts at one rate that raise it.
    timer_threshold: integer(None, minimum=1, maximum=U32_MAX) = 15


class AarfRateControl(Model):
    """AARF (ns-3's `AarfWifiManager`): ARF whose success and timer thresholds are multiplied after
    each failed probe of a higher rate (up to `max_success_threshold`) and reset to their minimums
    after an ordinary fallback."""

    kind: Literal["aarf"]
    # Success threshold at first and after an ordinary fallback.
    min_success_threshold: integer(None, minimum=1, maximum=U32_MAX) = 10
    # Cap of the success threshold.
    max_success_threshold: integer(None, minimum=1, maximum=U32_MAX) = 60
    # Timer threshold at first and after an ordinary fallback.
    min_timer_threshold: integer(None, minimum=1, maximum=U32_MAX) = 15
    # Factor of the success threshold after a failed probe.
    success_k: real(None, minimum=1) = 2.0
    # Factor of the timer threshold after a failed probe.
    timer_k: real(None, minimum=1) = 2.0


class MinstrelRateControl(Model):
    """Minstrel, non-HT (ns-3's `MinstrelWifiManager`, after Linux's minstrel): rates ranked by
    measured throughput every `update_interval`, a retry chain of the best, second best and most
    reliable rates and the lowest (which, not the MAC's retry limit, ends a packet's attempts),
    `lookaround` per cent of packets sampling other rates."""

    kind: Literal["minstrel"]
    # Interval between statistics updates, ns.
    update_interval: integer('duration', minimum=1, maximum=U64_MAX) = 100000000
    # Percentage of packets that sample other rates.
    lookaround: integer(None, minimum=0, maximum=100, bounded=True) = 10
    # Weight of the old success probability in its moving average, per cent.
    ewma: integer(None, minimum=0, maximum=100, bounded=True) = 75
    # Columns of the random sample table.
    sample_columns: integer(None, minimum=1, maximum=100, bounded=True) = 10
    # Frame size the throughput ranking assumes, bytes.
    packet_bytes: integer(None, minimum=1, maximum=U32_MAX) = 1200


class MinstrelHtRateControl(Model):
    """Minstrel-HT, 802.11n only (ns-3's `MinstrelHtWifiManager`, after Linux's minstrel_ht): the
    radio's MCSs ranked by measured throughput every `update_interval`, counting an A-MPDU's MPDUs
    sent and acknowledged; a retry chain of the best, second best and most reliable MCSs (one step
    per PPDU that gets nothing through); now and then a faster MCS sampled."""

    kind: Literal["minstrel_ht"]
    # Interval between statistics updates, ns.
    update_interval: integer('duration', minimum=1, maximum=U64_MAX) = 50000000
    # Weight of the old success probability (and A-MPDU length) in its moving average, per cent.
    ewma: integer(None, minimum=0, maximum=100, bounded=True) = 75
    # Columns of the random sample table.
    sample_columns: integer(None, minimum=1, maximum=100, bounded=True) = 10
    # MPDU size the throughput ranking and the retry counts assume, bytes.
    packet_bytes: integer(None, minimum=1, maximum=U32_MAX) = 1200


class SnrThresholdRateControl(Model):
    """Per frame, the highest rate up to `radio.data_rate` whose SNR threshold (where a bit fails with
    probability `ber`) is below the SNR the neighbour reported of the latest acknowledged frame
    (ns-3's `IdealWifiManager`); under fading it follows the channel."""

    kind: Literal["snr_threshold"]
    # Bit error rate that sets each rate's SNR threshold.
    ber: real('probability', exclusive_minimum=0, exclusive_maximum=0.5) = 1e-06


# How the data rate of each link (sender radio, neighbour radio) is chosen.
RateControlConfig = Annotated[Union[ConstantRateControl, IdealRateControl, ArfRateControl, AarfRateControl, MinstrelRateControl, MinstrelHtRateControl, SnrThresholdRateControl], Field(discriminator="kind")]

# Frequency band.
Band = Literal["5GHz", "2.4GHz"]

# Channel width.
Width = Literal["20MHz", "40MHz"]

# Guard interval.
GuardInterval = Literal["long", "short"]

class HtConfig(Model):
    """The HT PHY of an 802.11n radio (`radio.ht`)."""

    # Band.
    band: Band = "5GHz"
    # Channel width.
    channel_width: Width = "20MHz"
    # Guard interval of HT frames (non-HT frames always use the long one).
    guard_interval: GuardInterval = "long"


class AggregationConfig(Model):
    """A-MPDU aggregation of an 802.11n radio (`radio.aggregation`; absent: ns-3's defaults for HT,
    65,535 bytes and 64 MPDUs)."""

    # Largest A-MPDU, bytes (ns-3's `BE_MaxAmpduSize`); 0: no aggregation and no Block Ack
    # agreement, every data frame sent alone and retried up to the retry limit.
    max_ampdu_bytes: integer('size', minimum=0, maximum=65535, bounded=True) = 65535
    # Most MPDUs in one A-MPDU (the Block Ack window holds 64).
    max_mpdus: integer(None, minimum=1, maximum=64, bounded=True) = 64
    # Largest A-MSDU, bytes (ns-3's `BE_MaxAmsduSize`; 0, its default: none): packets for the same
    # next hop share one MPDU (one MAC header, FCS and sequence number), each in a subframe with a
    # 14-byte header, padded to 4 bytes. At most 7935, the HT maximum; needs A-MPDUs on
    # (`max_ampdu_bytes` > 0), under whose agreement it is sent.
    max_amsdu_bytes: integer('size', minimum=0, maximum=7935, bounded=True) = Field(
        default=0,
        exclude_if=at_default(0),
    )


# Direction(s) of a link an error process applies to.
Direction = Literal["forward", "reverse", "both"]

class LinkRateConfig(Model):
    """A data rate set by hand on one link."""

    # One end.
    from_: Name = Field(alias='from')
    # The other end.
    to: Name
    # Which direction(s) the rate applies to; both unless given.
    direction: Direction = "both"
    # The rate, bit/s (one of the standard's).
    rate: integer('rate', minimum=1, maximum=U64_MAX)


class DroptailQueue(Model):
    """First-in first-out, arrivals dropped when `packets` are already queued."""

    kind: Literal["droptail"]
    # Capacity in packets (>= 1). The packet being transmitted does not count.
    packets: integer(None, minimum=1, maximum=U32_MAX)


# Transmit queue discipline.
QueueConfig = Annotated[Union[DroptailQueue], Field(discriminator="kind")]

# What one draw of `radio.frame_error` covers.
FrameErrorMode = Literal["per_frame", "per_exchange"]

# Whose reading of the DCF a radio follows where implementations differ (docs/dcf.md).
MacProfile = Literal["standard", "ns2", "glomosim"]

class RadioConfig(rules.RadioConfigRules, Model):
    """The radio (PHY and 802.11 DCF MAC) of every wireless node."""

    # The standard.
    standard: Standard
    # Rate of data frames, bit/s (one of the standard's rates; 802.11n: an MCS 0-7 rate at the
    # radio's channel width and guard interval, as the standard tabulates it, e.g. 65 Mbit/s for MCS
    # 7 in 20 MHz).
    data_rate: integer('rate', minimum=1, maximum=U64_MAX)
    # Rate of control frames (RTS, CTS; ACKs under `ack_rate: basic`) and broadcasts, bit/s
    # (802.11n: a non-HT OFDM rate).
    basic_rate: integer('rate', minimum=1, maximum=U64_MAX)
    # Use RTS/CTS before unicast data frames.
    rts_cts: StrictBool = False
    # Path loss.
    propagation: PropagationConfig
    # Fading on top of the path loss.
    fading: FadingConfig = Field(default_factory=lambda: NoFading.model_validate({"kind": "none"}))
    # Transmit power, dBm (ns-2's 0.28183815 W).
    tx_power: real('power') = 24.499998
    # Weakest signal a radio locks onto (receive threshold), dBm; absent: the standard's
    # ([`Standard::default_rx_threshold`]; 802.11b: ns-2's 3.652e-10 W, 250 m with two-ray ground).
    # Read it through [`RadioConfig::rx_threshold_dbm`].
    rx_threshold: Optional[real('power')] = Field(default=None, exclude_if=at_default(None))
    # Energy that makes the medium busy (carrier sense threshold), dBm; absent: the standard's
    # (802.11b: ns-2's 1.559e-11 W, 550 m with two-ray ground).
    cs_threshold: Optional[real('power')] = Field(default=None, exclude_if=at_default(None))
    # A frame survives interference while its power exceeds the sum of the others by this ratio, dB
    # (ns-2's CPThresh).
    capture_threshold: real('ratio') = 10.0
    # How a locked frame fares against interference.
    reception: ReceptionModel = "capture"
    # Rate of ACK frames; absent: `basic` for 802.11b, `control` for 802.11a.
    ack_rate: Optional[AckRate] = Field(default=None, exclude_if=at_default(None))
    # Noise power in the channel, dBm; absent: the standard's (thermal noise in 22 or 20 MHz plus a
    # 7 dB noise figure).
    noise: Optional[real('power')] = Field(default=None, exclude_if=at_default(None))
    # PLCP preamble (802.11b only; absent: long).
    preamble: Optional[Preamble] = Field(default=None, exclude_if=at_default(None))
    # How each link's data rate is chosen.
    rate_control: RateControlConfig = Field(
        default_factory=lambda: ConstantRateControl.model_validate({"kind": "constant"}),
        exclude_if=at_default({"kind": "constant"}),
    )
    # The HT PHY (802.11n only; absent: 5 GHz, 20 MHz, long guard interval).
    ht: Optional[HtConfig] = Field(default=None, exclude_if=at_default(None))
    # A-MPDU aggregation under Block Ack (802.11n only; absent: 65,535 bytes and 64 MPDUs, ns-3's
    # defaults; `max_ampdu_bytes: 0` turns it off).
    aggregation: Optional[AggregationConfig] = Field(default=None, exclude_if=at_default(None))
    # Data rates set by hand on given links, after rate control (for tests and for scenarios that
    # pin rates, such as paper 003's Fig. 1).
    link_rates: list[LinkRateConfig] = Field(default_factory=list, exclude_if=at_default([]))
    # Interface queue of each radio (ns-2's IFQ: drop-tail 50).
    queue: QueueConfig = Field(
        default_factory=lambda: DroptailQueue.model_validate({"kind": "droptail", "packets": 50}),
    )
    # Retry limit of frames sent without RTS (and of RTS frames).
    short_retry_limit: integer(None, minimum=0, maximum=U32_MAX) = 7
    # Retry limit of data frames sent after RTS/CTS.
    long_retry_limit: integer(None, minimum=0, maximum=U32_MAX) = 4
    # Bytes the MAC adds to a network packet: 24 header + 4 FCS + 8 LLC/SNAP.
    mac_overhead: integer('size', minimum=0, maximum=U32_MAX) = 36
    # Channel of every radio not given others in `node_channels`. Channels are orthogonal: radios on
    # different channels neither hear nor disturb each other.
    channel: integer(None, minimum=0, maximum=U32_MAX) = 1
    # Placed nodes with radios of their own: one radio per listed channel (distinct), in order (e.g.
    # a bridge between two halves of a network on channels 1 and 6).
    node_channels: dict[Name, list[integer(None, minimum=0, maximum=U32_MAX)]] = Field(
        default_factory=dict,
    )
    # Probability that a frame is lost at a receiver, independently per frame and receiver, after
    # the radio's own decision, on every pair of radios without a `link_errors` entry and for every
    # frame kind (paper 001's "average loss 15 %" on every link); 0: none.
    frame_error: real('probability') = Field(default=0.0, exclude_if=at_default(0.0))
    # What one `frame_error` draw covers: every frame at every receiver (`per_frame`), or, at the
    # addressee, a whole exchange (`per_exchange`: the RTS, or the data frame sent without one, is
    # drawn for; the CTS, the data after it and the ACK are not, so the exchange fails with
    # probability `frame_error` as under GloMoSim's fading, whose replies reuse the fade of the
    # frame they answer).
    frame_error_mode: FrameErrorMode = Field(
        default="per_frame",
        exclude_if=at_default("per_frame"),
    )
    # Time from the first energy of a frame reaching a radio to the radio reporting the medium busy
    # (its clear-channel assessment, or preamble detection), ns: two stations whose backoff ends
    # within it of each other both transmit. 4 us is ns-3's `PreambleDetectionDuration` and the OFDM
    # aCCATime bound (IEEE 802.11-2016 17.4.4); 0 senses a frame the instant it arrives, as ns-2 and
    # GloMoSim do.
    cca_time: integer('duration', minimum=0, maximum=U64_MAX) = 4000
    # Weakest signal a radio processes at all under `reception: sinr`, dBm: weaker ones neither lock
    # it nor add to its interference (ns-3's `RxSensitivity`). Under `capture` the floor is the
    # lower of the receive and carrier-sense thresholds, as ns-2 drops what it cannot sense.
    rx_sensitivity: real('power') = -101.0
    # How long a packet may wait in a radio's interface queue before it is dropped (`expired`)
    # instead of sent, ns: 802.11's dot11MaxTransmitMSDULifetime, ns-3's `WifiMacQueue::MaxDelay`
    # (500 ms). Absent: for ever, as ns-2's interface queue; for 802.11n ns-3's 500 ms, which also
    # ends the MPDUs a Block Ack agreement retries (they have no retry limit).
    msdu_lifetime: Optional[integer('duration', minimum=1, maximum=U64_MAX)] = Field(
        default=None,
        exclude_if=at_default(None),
    )
    # Whose DCF rules the radios follow where implementations differ: `standard` (IEEE 802.11-2016
    # as ns-3 models it), `ns2` or `glomosim` (the papers' simulators).
    mac: MacProfile = "standard"


# `all`, or a list of node names.
NodeSet = keyword_or_list(('all',), Annotated[list[Name], entries(1)])

class ConstantPositionMobility(Model):
    """The nodes stand still at their placed positions (the default of every node)."""

    kind: Literal["constant_position"]
    # The nodes: `all` (every placed node, the default) or a list of names.
    nodes: NodeSet = "all"


class ConstantVelocityMobility(Model):
    """The nodes move in a straight line at a fixed velocity from their placed positions (ns-3's
    `ConstantVelocityMobilityModel`), for ever."""

    kind: Literal["constant_velocity"]
    # The nodes: `all` (every placed node, the default) or a list of names.
    nodes: NodeSet = "all"
    # Velocity along x, m/s.
    vx: real(None)
    # Velocity along y, m/s.
    vy: real(None)


class Bounds(Model):
    """A rectangle, m."""

    # Lowest x, m.
    x_min: real('distance')
    # Highest x, m (at least x_min + 1 m).
    x_max: real('distance')
    # Lowest y, m.
    y_min: real('distance')
    # Highest y, m (at least y_min + 1 m).
    y_max: real('distance')


class RandomWaypointMobility(Model):
    """Random waypoint (Johnson and Maltz 1996; ns-3's `RandomWaypointMobilityModel`): a pause, then a
    straight trip at a uniform speed to a uniform point of `bounds`, then a pause, and so on. With
    `steady_state`, the first trip and pause are drawn from the model's stationary distribution
    (Navidi and Camp 2004; ns-3's `SteadyStateRandomWaypointMobilityModel`), so the run starts
    without the warm-up in which nodes' mean speed decays and they gather in the middle; the nodes'
    placed positions are then not used."""

    kind: Literal["random_waypoint"]
    # The nodes: `all` (every placed node, the default) or a list of names.
    nodes: NodeSet = "all"
    # Lowest trip speed, m/s (> 0).
    min_speed: real(None, exclusive_minimum=0, maximum=10000.0) = 0.3
    # Highest trip speed, m/s (>= min_speed).
    max_speed: real(None, exclusive_minimum=0, maximum=10000.0) = 0.7
    # Shortest pause, ns.
    min_pause: integer('duration', minimum=0, maximum=U64_MAX) = 0
    # Longest pause, ns (>= min_pause).
    max_pause: integer('duration', minimum=0, maximum=U64_MAX) = 0
    # The area the waypoints are drawn from; absent: the smallest rectangle holding every placed
    # node.
    bounds: Optional[Bounds] = None
    # Start in the stationary distribution.
    steady_state: StrictBool = False


# What ends a random walk's straight stretch (ns-3's `Mode`).
WalkMode = Literal["distance", "time"]

class RandomWalkMobility(Model):
    """Random walk in a rectangle (ns-3's `RandomWalk2dMobilityModel`): a uniform direction and speed,
    kept for `time` (mode `time`) or over `distance` (mode `distance`), reflecting off the
    rectangle's sides."""

    kind: Literal["random_walk"]
    # The nodes: `all` (every placed node, the default) or a list of names.
    nodes: NodeSet = "all"
    # Lowest speed, m/s (> 0).
    min_speed: real(None, exclusive_minimum=0, maximum=10000.0) = 2.0
    # Highest speed, m/s (>= min_speed).
    max_speed: real(None, exclusive_minimum=0, maximum=10000.0) = 4.0
    # When a new direction and speed are drawn.
    mode: WalkMode = "distance"
    # Time between changes in mode `time`, ns (at least 1 ms).
    time: integer('duration', minimum=1000000, maximum=U64_MAX) = 1000000000
    # Distance between changes in mode `distance`, m (a stretch lasts at least 1 ms).
    distance: real('distance', exclusive_minimum=0) = 1.0
    # The rectangle walked in; absent: the smallest rectangle holding every placed node. Every node
    # it moves must start inside it.
    bounds: Optional[Bounds] = None


class Ns2Mobility(Model):
    """Motion read from an ns-2 movement file (`setdest`'s output: `$node_(i) set X_ x`, `$ns_ at t
    "$node_(i) setdest x y speed"`); `$node_(i)` is the i-th node `topology` places (`n{i}` in
    generated topologies). The initial `X_`/`Y_` replace the placed position; other lines (`$god_`,
    comments) are skipped."""

    kind: Literal["ns2"]
    # The file (a path relative to the scenario file, which the front end resolves).
    file: Text


class BonnmotionMobility(Model):
    """Motion read from a BonnMotion movement file (its native `.movements` format, 2-D: line i is the
    i-th placed node's waypoints `t x y t x y ...`, the node moving in a straight line between
    consecutive ones; before the first it stands at the first, after the last at the last)."""

    kind: Literal["bonnmotion"]
    # The file (a path relative to the scenario file, which the front end resolves).
    file: Text


# One entry of the `mobility:` list.
MobilityConfig = Annotated[Union[ConstantPositionMobility, ConstantVelocityMobility, RandomWaypointMobility, RandomWalkMobility, Ns2Mobility, BonnmotionMobility], Field(discriminator="kind")]

class BernoulliErrorProcess(Model):
    """Independent errors with probability `per`."""

    kind: Literal["bernoulli"]
    # Packet error rate.
    per: real('probability')


class GilbertElliottErrorProcess(Model):
    """Gilbert-Elliott two-state Markov chain, one step per frame."""

    kind: Literal["gilbert_elliott"]
    # P(good -> bad) per frame.
    p_good_bad: real('probability')
    # P(bad -> good) per frame.
    p_bad_good: real('probability')
    # Error rate in the good state.
    per_good: real('probability')
    # Error rate in the bad state.
    per_bad: real('probability')


class BimodalErrorProcess(Model):
    """Success probability `low` or `high`, each state lasting a duration uniform in [`hold_min`,
    `hold_max`]; each new state drawn independently (low with `low_probability`, paper 004 §II-C),
    or, without `low_probability`, the two alternating (half the time each; not paper 004's
    process)."""

    kind: Literal["bimodal"]
    # Success probability in the bad state.
    low: real('probability')
    # Success probability in the good state.
    high: real('probability')
    # P(a new state is the bad one); absent: the states alternate.
    low_probability: Optional[real('probability')] = Field(
        default=None,
        exclude_if=at_default(None),
    )
    # Shortest state duration, ns.
    hold_min: integer('duration', minimum=0, maximum=U64_MAX)
    # Longest state duration, ns.
    hold_max: integer('duration', minimum=1, maximum=U64_MAX)


# Packet-error processes of a link, applied after the radio's own reception decision.
ErrorProcessConfig = Annotated[Union[BernoulliErrorProcess, GilbertElliottErrorProcess, BimodalErrorProcess], Field(discriminator="kind")]

class LinkErrorConfig(Model):
    """An extra error process on a wireless link."""

    # Transmitting node.
    from_: Name = Field(alias='from')
    # Receiving node.
    to: Name
    # `forward` (from -> to), `reverse` or `both`.
    direction: Direction = "forward"
    # The process.
    error: ErrorProcessConfig


# Static route metric.
RouteMetric = Literal["hops", "etx", "ett"]

class StaticRouting(Model):
    """Shortest paths computed once over the links that deliver data (`min_delivery`)."""

    kind: Literal["static"]
    # Path metric.
    metric: RouteMetric = "hops"
    # The delivery threshold of a radio link (`scenario::usable_links`): routes and flow paths use a
    # link only if a full-size data frame at its rate gets through with at least this probability
    # both ways; 0 uses every link the receiver locks onto.
    min_delivery: real('probability') = Field(default=0.5, exclude_if=at_default(0.5))
    # Routes that the reverse traffic retraces (ACKs, a shim's packets from the destination): a flow
    # without `paths` follows its least-weight path by `metric`, pinned both ways, as a symmetric
    # routing protocol keeps them (Horizon's VRR, paper 003). Without it each direction takes the
    # routing table's shortest path, and under exact ties (a ring, a grid) data and ACKs may go
    # different ways.
    symmetric: StrictBool = Field(default=False, exclude_if=at_default(False))


class AodvRouting(Model):
    """AODV (RFC 3561)."""

    kind: Literal["aodv"]
    # What a node does with a packet it must forward but has no route for (after a link break or a
    # RERR): `true` buffers it and starts a discovery there (local repair in the manner of ns-2's
    # AODV); `false` drops it and reports the destination unreachable with a RERR, RFC 3561 §6.11
    # case (ii) without the optional §6.12 repair (ns-3's AODV).
    local_repair: StrictBool = True
    # HELLO messages (RFC 3561 §6.9) and a neighbour table whose expired entries break links, as
    # ns-3's AODV has them (`EnableHello`, on by default there as here); `false`: links are watched
    # by the MAC alone (ns-2's default, and airtcp's before HELLOs).
    hello: StrictBool = True
    # HELLO_INTERVAL, ns (ns-3's `HelloInterval`, 1 s).
    hello_interval: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # ALLOWED_HELLO_LOSS: HELLO intervals a neighbour may stay silent before its link is broken
    # (ns-3's `AllowedHelloLoss`, 2).
    allowed_hello_loss: integer(None, minimum=1, maximum=U32_MAX) = 2
    # A node ignores control messages that reach it over a link below this delivery threshold (as
    # `Static`'s), so that discovered routes consist of links that carry data; 0: every message is
    # processed, as RFC 3561 (and ns-2, ns-3) do.
    min_delivery: real('probability') = Field(default=0.5, exclude_if=at_default(0.5))


# The queue differential of backpressure.
BpDifferentialConfig = Literal["classical", "tcp_aware"]

# The neighbours backpressure may forward to.
BpNextHopsConfig = Literal["any", "closer", "closer_etx"]

# What backpressure's link loss estimate counts.
BpLossEstimateConfig = Literal["per_packet", "per_attempt"]

# How backpressure chooses flow and next hop at a transmit opportunity.
BpSelectionConfig = Literal["per_link", "flow_first"]

class BackpressureRouting(rules.BackpressureRoutingRules, Model):
    """Backpressure forwarding (paper 000): next hop and flow chosen at every transmit opportunity from
    per-flow queue differentials (see `net::backpressure`)."""

    kind: Literal["backpressure"]
    # `classical` (U_i - U_j) or `tcp_aware` (eq. 2, max{K, U_i} - U_j).
    differential: BpDifferentialConfig = "tcp_aware"
    # Fixed K of eq. (2); absent: B_i / |S_i| (§4.1.4). Only with `tcp_aware`.
    k: Optional[real(None, minimum=0)] = None
    # Interval of the link loss estimate and of "flows passing through", ns (paper's T).
    estimate_interval: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Idle time after which a node sends its queue report in a control packet, ns.
    report_idle: integer('duration', minimum=1, maximum=U64_MAX) = 100000000
    # An idle node repeats an unchanged report this often, ns: a lost control packet would otherwise
    # leave its neighbours holding a stale report for good.
    report_repeat: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Which neighbours a packet may be sent to.
    next_hops: BpNextHopsConfig = "closer"
    # What the link loss estimate counts: `per_packet` or `per_attempt`.
    loss_estimate: BpLossEstimateConfig = "per_attempt"
    # How flow and next hop are chosen: `per_link` or `flow_first`.
    selection: BpSelectionConfig = "flow_first"


# How Horizon prices custody (paper 003 eqs. 12-13).
HzPriceConfig = Literal["per_rate", "queue"]

# Eq. (15) when the cheapest neighbour's window is full.
HzNextHopConfig = Literal["strict", "cheapest_open"]

# How Horizon hands packets to the MAC.
HzMacConfig = Literal["push", "pull"]

# Where refreshments join the interface queue.
HzRefreshPriorityConfig = Literal["head", "fifo"]

# When Horizon sends refreshments besides every `refresh_every` receptions (§5.2.2, spec A7, A8).
HzRefreshRuleConfig = Literal["paced", "eager"]

# How a flow's paths after the first are chosen (§5.4's routing gives two node-disjoint paths).
HzPathChoiceConfig = Literal["interference_aware", "lightest"]

# Horizon's congestion signal to an unmodified TCP sender.
HzSignalConfig = Literal["fake_dupack", "none"]

class HzReorderConfig(Model):
    """The destination's delayed reordering (paper 003 §4.2, eq. 16, §5.3.1)."""

    # Gain of the one-way delay mean A.
    alpha: real(None, exclusive_minimum=0, maximum=1) = 0.125
    # Gain of its deviation D.
    beta: real(None, exclusive_minimum=0, maximum=1) = 0.25
    # D before the first sample, ns.
    d0: integer('duration', minimum=0, maximum=U64_MAX) = 10000000
    # Declare a gap lost once every path has delivered past it (§5.3.1).
    loss_detection: StrictBool = True


class HorizonRouting(Model):
    """Horizon (paper 003): multipath back-pressure for unmodified TCP over each flow's node-disjoint
    paths, with the destination's reorder buffer and the source's congestion signal (see
    `net::horizon`, `transport::horizon`)."""

    kind: Literal["horizon"]
    # Node-disjoint paths per flow (§5.4: 2); fewer where fewer exist.
    paths: integer(None, minimum=1, maximum=255, bounded=True) = 2
    # Weight of a link when the paths are found (§5.4's routing; spec: ETT).
    metric: RouteMetric = "ett"
    # The paths use only links above this delivery threshold (as `Static`'s).
    min_delivery: real('probability') = Field(default=0.5, exclude_if=at_default(0.5))
    # `T`, the custody threshold per flow and neighbour (§5.2.2: 10-15).
    threshold: integer(None, minimum=1, maximum=100, bounded=True) = 12
    # Update events (packets received from a neighbour, changes of the node's price) per refreshment
    # (§5.2.2: about 5).
    refresh_every: integer(None, minimum=1, maximum=U32_MAX) = 5
    # Eqs. (12)-(13): `per_rate` (the reading that reproduces §3.5) or `queue` (literal).
    price: HzPriceConfig = "per_rate"
    # Eq. (15) when the cheapest neighbour's window is full: `strict` waits, `cheapest_open` takes
    # the cheapest open one.
    next_hop: HzNextHopConfig = "strict"
    # `push` (the paper's implementation, §5.2.1) or `pull` (§3.1's ideal, an ablation).
    mac: HzMacConfig = "push"
    # Refreshments at the `head` of the interface queue, or at its tail (`fifo`).
    refresh_priority: HzRefreshPriorityConfig = "head"
    # When refreshments go besides every `refresh_every` receptions: `paced` (those telling only a
    # new price within `refresh_budget`, the liveness timers only once the upstream link has gone
    # quiet) or `eager` (the earlier rule: every `refresh_every` update events, and by the timers
    # whenever the advertised state changed, without a budget).
    refresh_rule: HzRefreshRuleConfig = "paced"
    # The share of its time a node's refreshments telling only a new price (counted or timed) may
    # keep the air busy (`refresh_rule: paced` only; a token bucket holding a second's worth).
    refresh_budget: real(None, exclusive_minimum=0, maximum=1) = 0.002
    # A changed price goes upstream after this long without anything sent there (under `paced`, once
    # the link has gone quiet), ns.
    refresh_idle: integer('duration', minimum=1, maximum=U64_MAX) = 20000000
    # The last refreshment is repeated this often: while packets keep coming (`eager`), for a second
    # after the link went quiet (`paced`), ns.
    refresh_repeat: integer('duration', minimum=1, maximum=U64_MAX) = 200000000
    # How each flow's paths after the first are chosen: `interference_aware` (the lightest node-
    # disjoint path, a hop weighing more for every hop of the paths already chosen that it contends
    # with) or `lightest` (the lightest node-disjoint path).
    path_choice: HzPathChoiceConfig = "interference_aware"
    # Packets a node's queues hold in all.
    buffer: integer(None, minimum=1, maximum=U32_MAX) = 1000
    # Interval of the custody/price samples and the per-path series in the results, ns.
    sample_interval: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # K of the target window `B* = K / sqrt(C_s)` (§5.3.2: 90).
    k: real(None, exclusive_minimum=0) = 90.0
    # The source price is capped here (§5.3.2: 100).
    price_cap: real(None, exclusive_minimum=0) = 100.0
    # No signal below this window estimate, packets (§5.3.2: 5).
    min_window: real(None, minimum=0) = 5.0
    # The congestion signal to TCP: `fake_dupack` (§5.3.3) or `none`.
    signal: HzSignalConfig = "fake_dupack"
    # The destination's delayed reordering (§4.2, eq. 16).
    reorder: HzReorderConfig = Field(
        default_factory=lambda: HzReorderConfig.model_validate({"alpha": 0.125, "beta": 0.25, "d0": "10ms", "loss_detection": True}),
    )


# Route computation.
RoutingConfig = Annotated[Union[StaticRouting, AodvRouting, BackpressureRouting, HorizonRouting], Field(discriminator="kind")]

# The coding scheme of a `coding:` block.
CodingScheme = Literal["cope", "bfly"]

# BFLY's recovery rule ([`Recovery`]).
CodingRecovery = Literal["coder_ack", "none"]

# The output queue of every coding node ([`QueueKind`]).
CodingQueue = Literal["fifo", "ncaqm"]

# How a coder learns what its neighbours hold ([`KnowledgeModel`]).
CodingKnowledge = Literal["reports_and_guessing", "reports", "guessing", "oracle"]

class PeriodicCodingControl(Model):
    """COPE's: what a node owes waits `period` for a frame of its own; then, if the node has nothing to
    send, a control packet carries it, else it looks again a period later."""

    kind: Literal["periodic"]
    # The period, ns (> 0); absent: half of `ack_timeout`.
    period: Optional[integer('duration', minimum=1, maximum=U64_MAX)] = Field(
        default=None,
        exclude_if=at_default(None),
    )


class IdleTimerCodingControl(Model):
    """A node that owes reports (ACKs) and sends nothing for `report_idle` (`ack_delay`) sends a
    control packet, whatever it holds (airtcp's timers before COPE's periodic ones)."""

    kind: Literal["idle_timer"]
    # How long unreported natives wait for a frame, ns (> 0).
    report_idle: integer('duration', minimum=1, maximum=U64_MAX) = 10000000
    # How long natives to acknowledge wait for a frame, ns (> 0).
    ack_delay: integer('duration', minimum=1, maximum=U64_MAX) = 10000000


# When reports and ACKs go in control packets of their own ([`ControlTiming`]).
CodingControl = Annotated[Union[PeriodicCodingControl, IdleTimerCodingControl], Field(discriminator="kind")]

class CodingConfig(Model):
    """Inter-session coding at the relays (the scenario's `coding:` block). Every field has a default,
    so `coding: {}` asks for COPE as the paper runs it."""

    # The coding scheme: `cope` (one-hop codes) or `bfly` (two-hop pairs first, then COPE's).
    scheme: CodingScheme = "cope"
    # BFLY's recovery rule (`bfly` only): `coder_ack` (default) or `none`.
    recovery: Optional[CodingRecovery] = Field(default=None, exclude_if=at_default(None))
    # The output queue of every coding node: COPE's `fifo` of natives, or NCAQM's queue of entries
    # (`ncaqm`). Its capacity is the radio's `queue.packets`.
    queue: CodingQueue = "fifo"
    # How a coder learns what its neighbours hold.
    knowledge: CodingKnowledge = "reports_and_guessing"
    # COPE's decodability threshold G: a coding is sent only if every next hop decodes it with at
    # least this probability; in (0, 1].
    threshold: real(None, exclusive_minimum=0, maximum=1) = 0.8
    # How long a native stays in a node's pool (and a report about it stays valid), T, ns (> 0).
    pool_lifetime: integer('duration', minimum=1, maximum=U64_MAX) = 500000000
    # When reception reports and COPE ACKs go in control packets of their own (every frame carries
    # them besides): COPE's `periodic` (default) or the `idle_timer`s.
    control: CodingControl = Field(
        default_factory=lambda: PeriodicCodingControl.model_validate({"kind": "periodic"}),
    )
    # How long a coder waits for a native's COPE ACK before it queues the native again, Ta, ns (>
    # 0).
    ack_timeout: integer('duration', minimum=1, maximum=U64_MAX) = 100000000
    # COPE retransmissions of a native before it is dropped (0: none).
    retry_limit: integer(None, minimum=0, maximum=U32_MAX) = 3
    # Whether TCP's ACKs are coded like any native (COPE codes them).
    code_acks: StrictBool = True
    # The most natives one reception report lists (>= 1); the rest wait for the next header.
    max_report: integer(None, minimum=1, maximum=U32_MAX) = 32
    # COPE's ordering agent at every TCP flow's destination node (`transport::ordering`): it holds
    # data segments that arrive out of order and hands them up in order, so that the reordering
    # coding and COPE's retransmissions cause does not look like loss to TCP. `false`: TCP's
    # receiver sees the packets as they come.
    ordering: StrictBool = True
    # The longest the ordering agent holds a segment waiting for the gap below it, ns (> 0).
    ordering_hold: integer('duration', minimum=1, maximum=U64_MAX) = 200000000


class FailureConfig(Model):
    """A node failure: from `at` on, the node's radio neither sends nor receives and whatever it holds
    is lost."""

    # The node.
    node: Name
    # When, ns.
    at: integer('duration', minimum=0, maximum=U64_MAX)


class BernoulliLoss(Model):
    """Each packet is corrupted independently with probability `per`, decided at the receiver after it
    has used the link (like ns-3's ReceiveErrorModel)."""

    kind: Literal["bernoulli"]
    # Packet error rate in [0, 1].
    per: real('probability')
    # Which direction(s) suffer the errors.
    direction: Direction = "forward"


class SegmentsLoss(Model):
    """Deterministic losses for protocol experiments: the first transmission(s) of the TCP data
    segments numbered in `seqs` are lost (a number listed twice loses the first two transmissions of
    that segment). Other packets pass. Like ns-3's ReceiveListErrorModel, but keyed by segment
    number."""

    kind: Literal["segments"]
    # Segment numbers (0-based), repeated to lose retransmissions too.
    seqs: list[integer(None, minimum=0, maximum=U64_MAX)]
    # Which direction(s) suffer the losses.
    direction: Direction = "forward"


# Random packet error process of a link.
LossConfig = Annotated[Union[BernoulliLoss, SegmentsLoss], Field(discriminator="kind")]

class LinkConfig(Model):
    """A full-duplex point-to-point link with an independent queue and error process per direction."""

    # One end (node name). "forward" is from -> to.
    from_: Name = Field(alias='from')
    # The other end (node name).
    to: Name
    # Line rate, bits per second (> 0).
    rate: integer('rate', minimum=1, maximum=U64_MAX)
    # One-way propagation delay, ns.
    delay: integer('duration', minimum=0, maximum=U64_MAX)
    # A random part added to `delay`: uniform in [0, `delay_spread`), drawn once per run from the
    # seed (stream `link/{i}/delay`), the same both ways; 0: none.
    delay_spread: integer('duration', minimum=0, maximum=U64_MAX) = Field(
        default=0,
        exclude_if=at_default(0),
    )
    # Queue discipline of each direction's transmit queue.
    queue: QueueConfig = Field(
        default_factory=lambda: DroptailQueue.model_validate({"kind": "droptail", "packets": 100}),
    )
    # Optional random packet errors.
    loss: Optional[LossConfig] = None


class DownlinkUserConfig(Model):
    """One user of the downlink."""

    # The user's node (node name).
    node: Name
    # Average received signal-to-noise ratio, dB. Paper 002: 12, 19, 13, 16 (ns-2) and 11, 17, 12,
    # 15 (fluid model).
    mean_snr: real('ratio')


class IdealFrame(Model):
    """No frame overhead: every slot carries e x bandwidth x slot bits (frame efficiency 1)."""

    kind: Literal["ideal"]


class Ieee80216ePuscFrame(Model):
    """An IEEE 802.16e OFDMA (WirelessMAN-OFDMA) TDD frame whose downlink subframe uses PUSC
    subchannelisation: the frame efficiency is the downlink's data subcarriers x data symbols per
    second over the bandwidth. The defaults are the 10 MHz profile (IEEE Std 802.16-2009
    §8.4.2.3-8.4.2.4, DL PUSC 1024-FFT carrier allocation; WiMAX Forum 5 ms frame with a 29:18 DL:UL
    split), efficiency 0.3456 at 10 MHz."""

    kind: Literal["ieee802_16e_pusc"]
    # Sampling factor n (> 0): the sampling rate is floor(n x bandwidth / 8000) x 8000 Hz. 802.16:
    # 28/25 for bandwidths that are multiples of 1.25, 1.5, 2 or 2.75 MHz (10 MHz), 8/7 for
    # multiples of 1.75 MHz.
    sampling_factor: real(None, exclusive_minimum=0) = 1.12
    # FFT size N_FFT (>= 1): subcarrier spacing = sampling rate / N_FFT. 1024 at 10 MHz.
    fft_size: integer(None, minimum=1, maximum=U32_MAX) = 1024
    # Cyclic-prefix ratio G, [0, 1): a symbol lasts (1 + G) N_FFT / sampling rate. 1/8.
    cyclic_prefix: real(None, minimum=0, exclusive_maximum=1) = 0.125
    # Frame duration, ns (> 0). 5 ms.
    duration: integer('duration', minimum=1, maximum=U64_MAX) = 5000000
    # Transmit/receive transition gap, ns. 105.714 us (296 physical slots of 4 / 11.2 MHz).
    ttg: integer('duration', minimum=0, maximum=U64_MAX) = 105714
    # Receive/transmit transition gap, ns. 60 us (168 physical slots).
    rtg: integer('duration', minimum=0, maximum=U64_MAX) = 60000
    # OFDMA symbols of the downlink subframe, preamble included (>= 1). 29.
    dl_symbols: integer(None, minimum=1, maximum=U32_MAX) = 29
    # OFDMA symbols of the uplink subframe; with `dl_symbols` and the gaps they must fit in the
    # frame. 18.
    ul_symbols: integer(None, minimum=0, maximum=U32_MAX) = 18
    # Preamble symbols opening the downlink subframe. 1.
    preamble_symbols: integer(None, minimum=0, maximum=U32_MAX) = 1
    # Symbols taken by the FCH, DL-MAP and UL-MAP (their size depends on the number of bursts; an
    # assumption). 4.
    map_symbols: integer(None, minimum=0, maximum=U32_MAX) = 4
    # Data subcarriers per downlink symbol (>= 1, <= `fft_size`). DL PUSC at 1024 FFT: 30
    # subchannels x 24 = 720 (of 840 used; the other 120 are pilots).
    data_subcarriers: integer(None, minimum=1, maximum=U32_MAX) = 720


# The downlink frame's data-carrying fraction of the nominal bits (see [`super::frame`]).
FrameConfig = Annotated[Union[IdealFrame, Ieee80216ePuscFrame], Field(discriminator="kind")]

class Ieee80216eAmc(Model):
    """The eight IEEE 802.16e modes QPSK 1/2 ... 64-QAM 5/6 (paper 002's ns-2 downlink)."""

    kind: Literal["ieee802_16e"]


class Liu2004Amc(Model):
    """The first `count` convolutionally coded modes of Liu, Zhou & Giannakis (2004), Table I, switched
    where each mode's packet error rate falls to `target_per` (paper 002's fluid model: 5 modes)."""

    kind: Literal["liu2004"]
    # Number of modes, 1..=6, lowest first.
    count: integer(None, minimum=1, maximum=6, bounded=True) = 5
    # Packet error rate at which a mode becomes usable, in (0, 1).
    target_per: real(None, exclusive_minimum=0, exclusive_maximum=1) = 0.01


class AmcModeConfig(Model):
    """One row of a custom AMC table."""

    # Lowest instantaneous SNR at which the mode is used, dB. Thresholds must increase.
    min_snr: real('ratio')
    # Spectral efficiency: information bits per second per hertz (modulation bits per symbol times
    # code rate), > 0 and not decreasing along the table.
    efficiency: real(None, exclusive_minimum=0)


class CustomAmc(Model):
    """A table given mode by mode."""

    kind: Literal["custom"]
    # Modes in increasing order of threshold.
    modes: Annotated[list[AmcModeConfig], entries(1)]


# Adaptive modulation and coding tables (see [`super::amc`]).
AmcConfig = Annotated[Union[Ieee80216eAmc, Liu2004Amc, CustomAmc], Field(discriminator="kind")]

class NoSlotFading(Model):
    """No fading: every slot sees the mean SNR."""

    kind: Literal["none"]


class RayleighSlotFading(Model):
    """Rayleigh, independent from slot to slot: an Exp(1) power gain per slot."""

    kind: Literal["rayleigh"]


class GaussMarkovSlotFading(Model):
    """Rayleigh with a first-order Gauss-Markov (AR(1)) complex gain whose slot-to-slot correlation is
    J0(2 pi f_d T) (Clarke's autocorrelation at one slot lag)."""

    kind: Literal["gauss_markov"]
    # Maximum Doppler frequency f_d, Hz (>= 0). Paper 002: 128 Hz (ns-2), 20 Hz (fluid).
    doppler: real('frequency', minimum=0)


class ClarkeSlotFading(Model):
    """Rayleigh from a sum of sinusoids with random phases and arrival angles (Zheng & Xiao 2003):
    Clarke's autocorrelation J0(2 pi f_d tau) at every lag, not only the first."""

    kind: Literal["clarke"]
    # Maximum Doppler frequency f_d, Hz (>= 0).
    doppler: real('frequency', minimum=0)
    # Number of sinusoids M (>= 1; 8 or more for a Rayleigh-like envelope).
    sinusoids: integer(None, minimum=1, maximum=4096, bounded=True) = 16


# Small-scale fading of the per-user channels, one gain per slot (block fading).
SlotFadingConfig = Annotated[Union[NoSlotFading, RayleighSlotFading, GaussMarkovSlotFading, ClarkeSlotFading], Field(discriminator="kind")]

class SchedulerConfig(Model):
    """Slot schedulers (see [`super::scheduler`])."""

    kind: Literal["round_robin", "max_snr", "max_weight", "delay_max_weight", "mlwdf"]


# What the base station does with a packet that does not fit in the rest of a slot.
ServiceConfig = Literal["fragment", "whole_packets"]

class BimodalErasure(Model):
    """Paper 004 §IV: each user's packet success probability is `low` or `high`; a state lasts a
    duration uniform in [`hold_min`, `hold_max`], after which the next state is drawn, `low` with
    probability `low_probability` (it may repeat)."""

    kind: Literal["bimodal"]
    # Success probability of the bad state, [0, 1].
    low: real('probability')
    # Success probability of the good state, [0, 1]. Paper 004: 1.
    high: real('probability')
    # Probability that a new state is the bad one, [0, 1]. Paper 004: 0.1 and 0.25.
    low_probability: real('probability')
    # Shortest state duration, ns (> 0). Paper 004: 100 ms.
    hold_min: integer('duration', minimum=1, maximum=U64_MAX)
    # Longest state duration, ns (>= `hold_min`). Paper 004: 200 ms.
    hold_max: integer('duration', minimum=1, maximum=U64_MAX)


# Packet erasures decided per served packet after the AMC rate is applied.
ErasureConfig = Annotated[Union[BimodalErasure], Field(discriminator="kind")]

class DownlinkConfig(Model):
    """A base station serving several users over one shared, slotted downlink."""

    # The node that acts as the base station (node name).
    base_station: Name
    # The users (user equipments), in the order that numbers them 0, 1, ...
    users: Annotated[list[DownlinkUserConfig], entries(1)]
    # Slot length, ns (> 0). Paper 002: 10 ms.
    slot: integer('duration', minimum=1, maximum=U64_MAX) = 10000000
    # Channel bandwidth, Hz (> 0). A mode of spectral efficiency e carries e x bandwidth x slot x
    # (frame efficiency) x `rate_scale` bits per slot. Paper 002: 10 MHz (ns-2), 5 MHz (fluid).
    bandwidth: real('frequency', exclusive_minimum=0) = 10000000.0
    # The downlink frame: how much of the nominal e x bandwidth x slot bits carries user data (see
    # [`super::frame`]). Default `ideal`: all of it.
    frame: FrameConfig = Field(
        default_factory=lambda: IdealFrame.model_validate({"kind": "ideal"}),
        exclude_if=at_default({"kind": "ideal"}),
    )
    # Bytes each packet occupies on the air beyond its own size (MAC header, CRC, ...), >= 0. 0
    # (default): a packet of n bytes uses n bytes of a slot. IEEE 802.16: 10 (a 6-byte generic MAC
    # header and a 4-byte CRC).
    mac_overhead_bytes: integer('size', minimum=0, maximum=U32_MAX) = Field(
        default=0,
        exclude_if=at_default(0),
    )
    # Residual factor on the bits per slot after the frame model, in (0, 1]: a declared calibration
    # of what the frame model and the MAC overhead leave unexplained (see `docs/downlink.md`). 1
    # (default): none.
    rate_scale: real(None, exclusive_minimum=0, maximum=1) = 1.0
    # The adaptive modulation and coding table.
    amc: AmcConfig = Field(
        default_factory=lambda: Ieee80216eAmc.model_validate({"kind": "ieee802_16e"}),
    )
    # Small-scale fading of every user's channel (independent per user).
    fading: SlotFadingConfig = Field(
        default_factory=lambda: GaussMarkovSlotFading.model_validate({"kind": "gauss_markov", "doppler": "128Hz"}),
    )
    # Who is served in each slot.
    scheduler: SchedulerConfig = Field(
        default_factory=lambda: SchedulerConfig.model_validate({"kind": "delay_max_weight"}),
    )
    # Capacity of each user's drop-tail queue at the base station, packets (>= 1).
    queue_packets: integer(None, minimum=1, maximum=U32_MAX) = 2000
    # What happens to a packet that does not fit in what is left of a slot.
    service: ServiceConfig = "fragment"
    # Window of the per-user average throughput, slots (>= 1): the exponentially weighted average
    # gives weight 1 / window to the newest slot. Paper 002 eq. (8): 256.
    average_window: integer(None, minimum=1, maximum=U32_MAX) = 256
    # Optional packet erasures on top of the AMC rate (paper 004's bimodal channel); none if absent.
    erasure: Optional[ErasureConfig] = None
    # Rate of each user's reverse link to the base station (ACKs), bits/s (> 0). The papers take the
    # uplink as ideal (paper 004: "perfect uplink channel"); the default, 1 Gbps with no delay, is
    # close to that without being instantaneous.
    uplink_rate: integer('rate', minimum=1, maximum=U64_MAX) = 1000000000
    # One-way delay of each user's reverse link, ns.
    uplink_delay: integer('duration', minimum=0, maximum=U64_MAX) = 0


class PairBuffers(Model):
    """A pair's capacities, packets."""

    # The high-priority FIFO.
    high: integer(None, minimum=1, maximum=U32_MAX)
    # The low-priority queue.
    low: integer(None, minimum=0, maximum=U32_MAX)


class RouterUserConfig(Model):
    """One user of a router."""

    # The user's node.
    node: Name
    # Its channel's erasures (absent: every packet received).
    channel: Optional[ErasureConfig] = None
    # Its flows' pair capacities (absent: the router's `priority_pairs.buffers`).
    buffers: Optional[PairBuffers] = None


# The low queue's order.
LowOrderConfig = Literal["lifo", "fifo"]

class BlindLowPolicy(Model):
    """Round-robin."""

    kind: Literal["blind"]


class ChannelAwareLowPolicy(Model):
    """Per-block quotas from the users' success probabilities."""

    kind: Literal["channel_aware"]
    # Standard deviations of margin.
    kappa: real(None, minimum=0) = 2.0


# How low packets are shared among flows.
LowPolicyConfig = Annotated[Union[BlindLowPolicy, ChannelAwareLowPolicy], Field(discriminator="kind")]

class PriorityPairsConfig(Model):
    """TCP-RLC's per-flow priority queue pairs at a router."""

    # Capacities of each flow's pair (a user's own `buffers` override them).
    buffers: PairBuffers
    # The low queue's order.
    low_order: LowOrderConfig = "lifo"
    # The low queue's sharing policy.
    low_policy: LowPolicyConfig = Field(
        default_factory=lambda: BlindLowPolicy.model_validate({"kind": "blind"}),
    )


class RouterConfig(Model):
    """One wireless router."""

    # The router's node.
    node: Name
    # Transmitter rate, bit/s (shared by all users).
    rate: integer('rate', minimum=1, maximum=U64_MAX)
    # The drop-tail interface queue (what plain forwarding sends through).
    queue: QueueConfig = Field(
        default_factory=lambda: DroptailQueue.model_validate({"kind": "droptail", "packets": 100}),
    )
    # The users.
    users: Annotated[list[RouterUserConfig], entries(1)]
    # Each user's wired uplink to the router: rate, bit/s (the paper's uplink is perfect).
    uplink_rate: integer('rate', minimum=1, maximum=U64_MAX) = 1000000000
    # Each user's wired uplink: delay, ns.
    uplink_delay: integer('duration', minimum=0, maximum=U64_MAX) = 0
    # Per-flow priority queue pairs (TCP-RLC's router); absent: the interface queue alone.
    priority_pairs: Optional[PriorityPairsConfig] = None


class BulkApp(Model):
    """Bulk transfer (FTP): always has data, or exactly `bytes` bytes."""

    kind: Literal["bulk"]
    # Total bytes to send; unlimited if absent.
    bytes: Optional[integer('size', minimum=1, maximum=U64_MAX)] = None


class CbrApp(Model):
    """Constant bit rate source (needs a `udp` transport)."""

    kind: Literal["cbr"]
    # Application rate, bits per second of payload.
    rate: integer('rate', minimum=1, maximum=U64_MAX)
    # Payload bytes per packet.
    packet_size: integer('size', minimum=1, maximum=U32_MAX)


class PoissonApp(Model):
    """Poisson source: exponential gaps, mean rate `rate` (needs a `udp` transport)."""

    kind: Literal["poisson"]
    # Mean application rate, bits per second of payload.
    rate: integer('rate', minimum=1, maximum=U64_MAX)
    # Payload bytes per packet.
    packet_size: integer('size', minimum=1, maximum=U32_MAX)


class LogUtility(Model):
    """g(x) = log x (proportional fairness; paper 000's choice in §5)."""

    kind: Literal["log"]


class AlphaFairUtility(Model):
    """g(x) = x^(1-alpha) / (1-alpha)."""

    kind: Literal["alpha_fair"]
    # Fairness parameter, > 0.
    alpha: real(None, exclusive_minimum=0)


# Utility function of a flow-controlled source.
UtilityConfig = Annotated[Union[LogUtility, AlphaFairUtility], Field(discriminator="kind")]

class UtilityApp(Model):
    """Paper 000's flow controller for non-TCP flows (eq. 5; needs a `udp` transport): every `slot` the
    rate becomes argmax M g(x) - U x, at most `r_max`, where U is the flow's backlog at its source."""

    kind: Literal["utility"]
    # Payload bytes per packet.
    packet_size: integer('size', minimum=1, maximum=U32_MAX)
    # R_max, bits per second of payload.
    r_max: integer('rate', minimum=1, maximum=U64_MAX)
    # M, the weight of utility against backlog (> 0).
    m: real(None, exclusive_minimum=0)
    # g, the utility of the rate.
    utility: UtilityConfig = Field(
        default_factory=lambda: LogUtility.model_validate({"kind": "log"}),
    )
    # Decision interval, ns.
    slot: integer('duration', minimum=1, maximum=U64_MAX) = 10000000


# Applications.
AppConfig = Annotated[Union[BulkApp, CbrApp, PoissonApp, UtilityApp], Field(discriminator="kind")]

# A named set of TCP settings.
TcpProfile = Literal["linux"]

# Congestion control algorithm.
CcKind = Literal["reno", "newreno", "linux_reno", "cubic", "compound", "vegas", "fast", "bbr", "bbr3", "quic_tcp"]

# What the slow-start threshold is halved from at a congestion event. The RFCs, ns-2 and ns-3
# disagree, and the choice moves goodput under random loss by 20-30 %.
SsthreshBasis = Literal["flight_size", "cwnd", "pipe"]

# How the window is set during fast recovery.
RecoveryWindow = Literal["classic", "prr"]

# Which slow-start exit Cubic runs.
HyStartKind = Literal["none", "linux", "ns3", "rfc9406"]

class CubicParams(Model):
    """Cubic's constants (RFC 9438). See `docs/cubic.md`."""

    # C, segments / s^3 (> 0; RFC 9438 §5: 0.4).
    c: real(None, exclusive_minimum=0) = 0.4
    # beta_cubic, the multiplicative decrease factor, in (0, 1) (RFC 9438 §4.6: 0.7).
    beta: real(None, exclusive_minimum=0, exclusive_maximum=1) = 0.7
    # Fast convergence (RFC 9438 §4.7).
    fast_convergence: StrictBool = True
    # The Reno-friendly region (RFC 9438 §4.3).
    reno_friendly: StrictBool = True
    # How slow start ends before a loss: `none` (RFC 5681), `linux` (Linux's HyStart), `ns3` (ns-3
    # 3.44 TcpCubic's HyStart) or `rfc9406` (HyStart++).
    hystart: HyStartKind = Field(default="none", exclude_if=at_default("none"))


class CompoundParams(Model):
    """Compound TCP's constants (Tan, Song, Zhang & Sridharan, INFOCOM 2006, §III-C). See
    `docs/compound.md`."""

    # alpha of the delay window's increase alpha win^k per round (> 0; paper: 1/8).
    alpha: real(None, exclusive_minimum=0) = 0.125
    # beta, the multiplicative decrease of the whole window at a loss, in (0, 1) (paper: 1/2).
    beta: real(None, exclusive_minimum=0, exclusive_maximum=1) = 0.5
    # k, the exponent of the increase, in (0, 1] (paper: 0.75).
    k: real(None, exclusive_minimum=0, maximum=1) = 0.75
    # gamma, the backlog threshold, packets (> 0; paper: 30).
    gamma: real(None, exclusive_minimum=0) = 30.0
    # zeta, how fast the delay window shrinks per packet of backlog (> 0; paper: 1).
    zeta: real(None, exclusive_minimum=0) = 1.0


class VegasParams(Model):
    """TCP Vegas thresholds, in packets of estimated backlog (diff = cwnd (1 - BaseRTT/RTT)). Defaults
    are ns-2's `v_alpha_ 1`, `v_beta_ 3`, `v_gamma_ 1` (paper 002 §V-B uses 200/203)."""

    # Congestion avoidance grows the window by one segment per RTT while diff < alpha.
    alpha: real(None, minimum=0) = 1.0
    # ... and shrinks it by one segment per RTT while diff > beta (>= alpha).
    beta: real(None, minimum=0) = 3.0
    # Slow start ends once diff > gamma.
    gamma: real(None, minimum=0) = 1.0


class FastParams(Model):
    """FAST TCP parameters (Jin, Wei & Low 2004)."""

    # Packets each flow aims to keep queued along its path (paper 002 §V-B: 200).
    alpha: real(None, exclusive_minimum=0) = 200.0
    # Weight of the new window estimate in each update, in (0, 1] in the FAST paper (0.5); paper 002
    # sweeps this step size beyond 1 (Fig. 7a).
    gamma: real(None, exclusive_minimum=0) = 0.5


class BbrParams(Model):
    """BBR's parameters (`bbr: {...}` beside `cc: bbr`); the defaults are ns-3 3.44's and Linux's."""

    # Startup's pacing and window gain (2/ln 2).
    high_gain: real(None) = 2.89
    # ProbeBW's window gain.
    cwnd_gain: real(None) = 2.0
    # Length of BtlBw's max filter, round trips.
    bw_window_rounds: integer(None, minimum=1, maximum=U32_MAX) = 10
    # Length of RTprop's min filter, ns.
    min_rtt_window: integer('duration', minimum=1, maximum=U64_MAX) = 10000000000
    # Time spent in ProbeRTT, ns.
    probe_rtt_duration: integer('duration', minimum=1, maximum=U64_MAX) = 200000000
    # Gain of the ACK-aggregation allowance (0: none).
    extra_acked_gain: real(None) = 1.0
    # Length of the ACK-aggregation max filter, round trips.
    extra_acked_window_rounds: integer(None, minimum=1, maximum=U32_MAX) = 5


class Bbr3Params(Model):
    """BBR v3's parameters (`bbr3: {...}` beside `cc: bbr3`); the defaults are the draft's."""

    # Startup's pacing gain (4 ln 2).
    startup_pacing_gain: real(None) = 2.77
    # Startup's (and Drain's) window gain.
    startup_cwnd_gain: real(None) = 2.0
    # Drain's pacing gain.
    drain_pacing_gain: real(None) = 0.35
    # ProbeBW's window gain (UP adds 0.25).
    cwnd_gain: real(None) = 2.0
    # ProbeBW_DOWN's pacing gain.
    probe_down_pacing_gain: real(None) = 0.9
    # ProbeBW_UP's pacing gain.
    probe_up_pacing_gain: real(None) = 1.25
    # The loss rate over a round trip above which probing went too far (`BBR.LossThresh`).
    loss_thresh: real(None) = 0.02
    # Loss events in a Startup round (with the loss rate above `loss_thresh`) that end Startup
    # (`BBRStartupFullLossCnt`; 0: never).
    full_loss_count: integer(None, minimum=0, maximum=U32_MAX) = 6
    # The short-term bounds are cut to this fraction per round trip with loss (`BBR.Beta`).
    beta: real(None) = 0.7
    # Fraction of `inflight_longterm` left free in CRUISE and ProbeRTT (`BBR.Headroom`).
    headroom: real(None) = 0.15
    # ProbeRTT is entered when the minimum RTT was not refreshed for this long, ns.
    probe_rtt_interval: integer('duration', minimum=1, maximum=U64_MAX) = 5000000000
    # Time spent in ProbeRTT (at least a round trip too), ns.
    probe_rtt_duration: integer('duration', minimum=1, maximum=U64_MAX) = 200000000
    # ProbeRTT's window, as a fraction of the BDP (at least 4 segments).
    probe_rtt_cwnd_gain: real(None) = 0.5
    # Length of `BBR.min_rtt`'s min filter, ns (at least `probe_rtt_interval`).
    min_rtt_window: integer('duration', minimum=1, maximum=U64_MAX) = 10000000000
    # The fixed part of the wall-clock wait between bandwidth probes, ns.
    probe_wait_base: integer('duration', minimum=1, maximum=U64_MAX) = 2000000000
    # The random part added to it (uniform in `[0, probe_wait_random)`), ns.
    probe_wait_random: integer('duration', minimum=0, maximum=U64_MAX) = 1000000000
    # The Reno-coexistence wait between probes is at most this many round trips.
    probe_max_rounds: integer(None, minimum=1, maximum=U32_MAX) = 63
    # Gain of the ACK-aggregation allowance (0: none).
    extra_acked_gain: real(None) = 1.0


class PerAckQuicCadence(Model):
    """On every in-order ACK."""

    kind: Literal["per_ack"]
    # Cap each computed window at twice the window it was computed from.
    cap_double: StrictBool = False


class IntervalQuicCadence(Model):
    """On the first ACK at or after each multiple of `every` (the paper's Matlab runs: 20 ms)."""

    kind: Literal["interval"]
    # Time between computations, ns (> 0).
    every: integer('duration', minimum=1, maximum=U64_MAX) = 20000000
    # Cap each computed window at twice the window it was computed from.
    cap_double: StrictBool = False


class FastRoundsQuicCadence(Model):
    """FAST's cadence (the paper's ns-2 module was FAST's, "modified in accordance with (9)"): a window
    computation at the end of every other round trip, an increase spread over the next round's ACKs,
    a decrease applied at once."""

    kind: Literal["fast_rounds"]
    # Cap each computed window at twice the window it was computed from (FAST's `min(2w, .)`).
    cap_double: StrictBool = True


# When QUIC-TCP's window law (paper 002 eq. 9) runs.
QuicCadence = Annotated[Union[PerAckQuicCadence, IntervalQuicCadence, FastRoundsQuicCadence], Field(discriminator="kind")]

class QuicTcpParams(rules.QuicTcpParamsRules, Model):
    """QUIC-TCP parameters (paper 002 eq. 9 and §V)."""

    # Step size kappa > 0, per window computation (§V-A: 0.05 with updates every 20 ms).
    kappa: real(None, exclusive_minimum=0) = 0.05
    # Exponent rho in [0, 1] of the gain w^(1 - 2 rho) (§V-B: 0.5).
    rho: real(None, minimum=0, maximum=1) = 0.5
    # Target backlog p_s, packets (§V-B: 200).
    p_s: real(None, exclusive_minimum=0) = 200.0
    # The older spelling of the cadence: time between window updates, ns; 0 updates on every in-
    # order ACK. Absent with `cadence` absent: 20 ms (§V-A). Not together with `cadence`.
    update_interval: Optional[integer('duration', minimum=0, maximum=U64_MAX)] = Field(
        default=None,
        exclude_if=at_default(None),
    )
    # When the window law runs; absent: `update_interval` decides.
    cadence: Optional[QuicCadence] = Field(default=None, exclude_if=at_default(None))


# `cwnd`, or a number of segments.
NcBlock = count_or_keyword(('cwnd',), 1, 4096)

# The NC layer's answer to congestion marks from relays (docs/nc_layer.md, "Congestion at relays").
RelayCongestion = Literal["signal", "mask"]

class NcConfig(Model):
    """The NC layer (paper 000 §4.1.3, §4.2.1; `transport::nc_layer`, docs/nc_layer.md): the source
    codes TCP's segments in blocks with random linear network coding, the receiver ACKs every
    innovative packet and asks for repairs, and congestion drops at the source are passed to TCP."""

    # Block size H_s: `cwnd` (the sender's window when the block opens) or a fixed number of
    # segments (1 to 4096).
    block: NcBlock = "cwnd"
    # Largest H_s with `block: cwnd`, segments (1 to 4096): the header carries one coefficient per
    # source.
    max_block: integer(None, minimum=1, maximum=4096, bounded=True) = 64
    # How often the receiver asks again for a block still missing degrees of freedom (and how long
    # the newest block must be silent before it is asked for), ns.
    repair_interval: integer('duration', minimum=1, maximum=U64_MAX) = 100000000
    # What the layer does when a relay's full buffer dropped one of the flow's packets (the relay
    # marks the next one it forwards, the receiver echoes the mark): `signal` makes it a loss TCP
    # sees, once per round trip; `mask` hides it like a wireless loss (the layer repairs the packet
    # and TCP never learns: what paper 000's layer does, its analysis assuming that only the source
    # overflows, §4.2.1 footnote 5).
    relay_congestion: RelayCongestion = "signal"


class TcpTransport(rules.TcpTransportRules, Model):
    """TCP (segment-granular)."""

    kind: Literal["tcp"]
    # A named set of settings this block starts from (`linux`: Linux's defaults, see docs/tcp.md);
    # the block's own fields override it. Absent: the fields' own defaults.
    profile: Optional[TcpProfile] = Field(default=None, exclude_if=at_default(None))
    # Congestion control.
    cc: CcKind = "newreno"
    # Use the SACK option and RFC 6675 loss recovery.
    sack: StrictBool = True
    # Segment payload size, bytes.
    mss: integer('size', minimum=1, maximum=U32_MAX) = 1000
    # Bytes of IP + TCP header (+ options) added to each segment and to each pure ACK.
    header_bytes: integer('size', minimum=0, maximum=U32_MAX) = 40
    # Acknowledge every `delayed_ack` full segments (1 = no delayed ACKs).
    delayed_ack: integer(None, minimum=1, maximum=U32_MAX) = 2
    # Delayed-ACK timer, ns.
    delayed_ack_timeout: integer('duration', minimum=1, maximum=U64_MAX) = 200000000
    # Initial congestion window, segments.
    initial_cwnd: integer(None, minimum=1, maximum=U32_MAX) = 10
    # Initial slow-start threshold, segments (unbounded if absent).
    initial_ssthresh: Optional[integer(None, minimum=1, maximum=U32_MAX)] = None
    # Receiver window, bytes.
    rwnd: integer('size', minimum=1, maximum=U64_MAX) = 1048576
    # Duplicate-ACK threshold.
    dupthresh: integer(None, minimum=1, maximum=U32_MAX) = 3
    # What ssthresh is halved from after a loss or timeout.
    ssthresh_basis: SsthreshBasis = "flight_size"
    # How the window is set during fast recovery (`prr` needs `sack`).
    recovery: RecoveryWindow = Field(default="classic", exclude_if=at_default("classic"))
    # RACK-TLP loss detection (RFC 8985, as Linux runs it; needs `sack`): a segment is deemed lost
    # once a segment sent after it has been delivered and an RTT plus a reordering window has passed
    # since it was sent, instead of after `dupthresh` duplicate ACKs or SACKed segments, and a Tail
    # Loss Probe sends one segment 2 SRTT after the last ACK, so that a loss at the end of a flight
    # is repaired without a retransmission timeout.
    rack_tlp: StrictBool = Field(default=False, exclude_if=at_default(False))
    # Pace transmissions at Linux's rate (2 x cwnd / srtt in slow start, 1.2 x in congestion
    # avoidance) for a controller without a rate of its own; BBR always paces at its own.
    pacing: StrictBool = Field(default=False, exclude_if=at_default(False))
    # Lower bound of the retransmission timeout, ns (RFC 6298 (2.4): 1 s).
    min_rto: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Upper bound of the retransmission timeout, ns (RFC 6298 (2.5): at least 60 s).
    max_rto: integer('duration', minimum=1, maximum=U64_MAX) = 60000000000
    # RTO before the first RTT sample, ns (RFC 6298 (2.1): 1 s).
    initial_rto: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Clock granularity G of RFC 6298, ns.
    clock_granularity: integer('duration', minimum=0, maximum=U64_MAX) = 1000000
    # Cubic's parameters (only with `cc: cubic`); RFC 9438's defaults if absent.
    cubic: Optional[CubicParams] = None
    # Compound TCP's parameters (only with `cc: compound`); the paper's defaults if absent.
    compound: Optional[CompoundParams] = None
    # Vegas parameters (only with `cc: vegas`; defaults if absent).
    vegas: Optional[VegasParams] = None
    # FAST parameters (only with `cc: fast`; defaults if absent).
    fast: Optional[FastParams] = None
    # BBR's parameters (only with `cc: bbr`); ns-3's and Linux's defaults if absent.
    bbr: Optional[BbrParams] = None
    # BBR v3's parameters (only with `cc: bbr3`); the draft's defaults if absent.
    bbr3: Optional[Bbr3Params] = None
    # QUIC-TCP parameters (only with `cc: quic_tcp`; defaults if absent).
    quic_tcp: Optional[QuicTcpParams] = None
    # The NC layer of paper 000 §4.1.3 between this TCP and the network (absent: none).
    nc: Optional[NcConfig] = None


class UdpTransport(Model):
    """UDP: no feedback, no retransmission."""

    kind: Literal["udp"]
    # Bytes of IP + UDP header added to each datagram.
    header_bytes: integer('size', minimum=0, maximum=U32_MAX) = 28


# The field, as a scenario names it.
FieldConfig = Literal["gf8191", "gf256"]

# The decoder, as a scenario names it.
DecoderConfig = Literal["counting", "exact"]

# How a multipath flow's source window W (the coding block) keeps pace with its paths
# (docs/tcp_rlc.md, "Multipath"). A flow with one path has the single-path sender, whose send rule
# does this, and ignores the choice.
SourceWindow = Literal["per_round", "per_block"]

class TcpRlcTransport(Model):
    """TCP-RLC (paper 004): TCP with feed-forward random linear coding."""

    kind: Literal["tcp_rlc"]
    # r: low-priority coded packets after each high-priority one (paper: (1 + r) p_min ~ 2).
    redundancy: integer(None, minimum=0, maximum=1000, bounded=True)
    # The coding field.
    field: FieldConfig = "gf8191"
    # How the receiver finds ranks.
    decoder: DecoderConfig = "counting"
    # W at the start, packets.
    initial_cwnd: integer(None, minimum=1, maximum=U32_MAX) = 1
    # The largest W, packets (the receiver's buffer).
    max_cwnd: integer(None, minimum=1, maximum=1000000, bounded=True) = 10000
    # Duplicates that halve W.
    dupthresh: integer(None, minimum=1, maximum=U32_MAX) = 3
    # The timeout before the first RTT sample, ns.
    initial_rto: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Answer packets of decoded blocks with duplicates too (the literal reading the spec's A3
    # rejects; an ablation).
    literal_dup: StrictBool = False
    # With several paths, how the source's window keeps pace with what they deliver (default
    # `per_round`).
    source_window: SourceWindow = "per_round"


# Transports. (TCP's parameter blocks make its variant large; a configuration is parsed once per
# run, so boxing it would buy nothing.)
TransportConfig = Annotated[Union[TcpTransport, UdpTransport, TcpRlcTransport], Field(discriminator="kind")]

# How the packets of a flow with paths travel from its destination back to its source (TCP's ACKs, a
# shim's packets from the destination).
ReverseConfig = Literal["paths", "routes"]

class ExplicitPaths(Model):
    """Paths given as node lists."""

    kind: Literal["explicit"]
    # Each from the flow's source to its destination, consecutive nodes linked (a wired link, the
    # downlink, or radios in range), no node twice; 1 to 255 paths.
    paths: Annotated[list[list[Name]], entries(1, 255)]
    # How packets from the destination back to the source travel.
    reverse: ReverseConfig = "paths"


class DisjointPaths(Model):
    """The `k` node-disjoint paths of least total weight (`net::paths::node_disjoint_paths`)."""

    kind: Literal["disjoint"]
    # How many paths (1 to 255); fewer existing is an error.
    k: integer(None, minimum=1, maximum=255, bounded=True)
    # Weight of a link: one per hop, its ETX or its ETT (as static routing weighs it).
    metric: RouteMetric = "hops"
    # How packets from the destination back to the source travel.
    reverse: ReverseConfig = "paths"


# A flow's paths (`net::flow_paths`, docs/scenario-schema.md#flow-paths): its packets are pinned to
# them, round robin, and follow them hop by hop under static routing.
PathsConfig = Annotated[Union[ExplicitPaths, DisjointPaths], Field(discriminator="kind")]

class FlowConfig(Model):
    """One flow: an application over a transport between two nodes."""

    # Unique flow name.
    id: Name
    # Sending node.
    src: Name
    # Receiving node.
    dst: Name
    # When the application starts, ns.
    start: integer('duration', minimum=0, maximum=U64_MAX) = 0
    # A random delay added to `start`, uniform in [0, start_jitter), ns, drawn per seed from the
    # flow's own stream ("flows start at random times within the first 5 s").
    start_jitter: integer('duration', minimum=0, maximum=U64_MAX) = 0
    # When the application stops sending new data, ns; the end of the run if absent.
    stop: Optional[integer('duration', minimum=0, maximum=U64_MAX)] = None
    # The application.
    app: AppConfig
    # The transport protocol.
    transport: TransportConfig
    # The paths the flow's packets follow (`net::flow_paths`); absent: the routes.
    paths: Optional[PathsConfig] = Field(default=None, exclude_if=at_default(None))


class MetricsConfig(Model):
    """Optional recordings."""

    # Bin width of the goodput time series, ns.
    bin: integer('duration', minimum=1, maximum=U64_MAX) = 1000000000
    # Record every RTT sample of every TCP flow.
    trace_rtt: StrictBool = False
    # Sample cwnd/ssthresh/flight of every TCP flow every `trace_interval`.
    trace_cwnd: StrictBool = False
    # Sample the occupancy of every queue every `trace_interval`.
    trace_queues: StrictBool = False
    # Record every change of a wireless link's data rate under adaptive rate control
    # (`radio.rate_control`).
    trace_rates: StrictBool = False
    # Sampling interval of the cwnd and queue traces, ns.
    trace_interval: integer('duration', minimum=1, maximum=U64_MAX) = 100000000


# A kind of interface a capture covers.
TraceMedium = Literal["wifi", "wired"]

class TraceConfig(Model):
    """Packet captures written while the run goes on: one pcap file per traced interface."""

    # The nodes whose interfaces are captured: `all`, or a list of node names.
    pcap: NodeSet
    # Which interfaces of those nodes: `wifi` (their radios: 802.11 frames after a radiotap header)
    # and `wired` (their ends of wired links: raw IPv4).
    what: Annotated[list[TraceMedium], entries(1)] = ["wifi", "wired"]
    # The folder the files go to (created if missing), one file per interface: `<node>-wifi<k>.pcap`
    # for the node's k-th radio, `<node>-link<i>.pcap` for its end of `links[i]`. Absent: `airtcp
    # run` writes them into the run's output folder (`<out>/pcap`); the Python API needs one.
    dir: Optional[Text] = None


class LimitsConfig(Model):
    """Resource limits of a run (see `scenario::budget`)."""

    # Memory budget, bytes: a scenario whose allocations would exceed it is refused, and a run that
    # outgrows it stops with an error.
    memory: integer('size', minimum=1, maximum=U64_MAX) = 4294967296


class Scenario(rules.ScenarioRules, Model):
    """A whole scenario: topology, flows and what to measure."""

    # Free-form name, copied to the results; a file without one is named after the file.
    name: Text = "scenario"
    # Simulated time to run, ns (> 0).
    duration: integer('duration', minimum=1, maximum=U64_MAX)
    # Master seed; every random stream is derived from it and a component id. A fixed default keeps
    # runs reproducible when none is given.
    seed: integer(None, minimum=0, maximum=U64_MAX) = 1
    # Names of nodes without a position (wired-only nodes). Node ids: these first, in order, then
    # the nodes `topology` places.
    nodes: list[Name] = Field(default_factory=list)
    # Wireless nodes and their positions, generated or explicit.
    topology: Optional[TopologyConfig] = None
    # The radio of every node `topology` places (required with a topology).
    radio: Optional[RadioConfig] = None
    # How the placed nodes move (docs/mobility.md); absent: they stand still.
    mobility: list[MobilityConfig] = Field(default_factory=list, exclude_if=at_default([]))
    # Extra packet-error processes on chosen wireless links.
    link_errors: list[LinkErrorConfig] = Field(default_factory=list)
    # How routes are found.
    routing: RoutingConfig = Field(
        default_factory=lambda: StaticRouting.model_validate({"kind": "static", "metric": "hops", "min_delivery": 0.5, "symmetric": False}),
    )
    # The inter-session coding layer at the relays (paper 001: COPE, or NCAQM's queue;
    # docs/cope.md); absent: none.
    coding: Optional[CodingConfig] = Field(default=None, exclude_if=at_default(None))
    # Nodes that fail during the run.
    failures: list[FailureConfig] = Field(default_factory=list)
    # Wired point-to-point links.
    links: list[LinkConfig] = Field(default_factory=list)
    # A base station's slotted downlink to users (papers 002, 004), if any.
    downlink: Optional[DownlinkConfig] = None
    # Wireless routers: packet-level shared downlinks to users (paper 004).
    routers: list[RouterConfig] = Field(default_factory=list, exclude_if=at_default([]))
    # Traffic.
    flows: list[FlowConfig] = Field(default_factory=list)
    # What to record besides the per-flow totals.
    metrics: MetricsConfig = Field(
        default_factory=lambda: MetricsConfig.model_validate({"bin": "1s", "trace_rtt": False, "trace_cwnd": False, "trace_queues": False, "trace_rates": False, "trace_interval": "100ms"}),
    )
    # Packet captures of chosen interfaces, written while the run goes on (docs/pcap.md); absent:
    # none.
    trace: Optional[TraceConfig] = Field(default=None, exclude_if=at_default(None))
    # Resource limits of the run.
    limits: LimitsConfig = Field(
        default_factory=lambda: LimitsConfig.model_validate({"memory": 4294967296}),
    )
