//! What a run returns. Serialised to JSON for the Python front end, which writes `summary.json`
//! (everything but `timing` and `timeseries`), `timing.json` and the Parquet tables (with
//! [`super::parquet`]).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// Results of one run.
#[derive(Debug, Clone, Serialize)]
pub struct RunResults {
    /// Scenario name.
    pub name: String,
    /// Master seed used.
    pub seed: u64,
    /// Simulated duration, s.
    pub duration_s: f64,
    /// One row per flow, in scenario order.
    pub flows: Vec<FlowResult>,
    /// Jain's fairness index over the flows' goodputs (1 with no flows).
    pub jain: f64,
    /// Drops per queue and reason (only non-zero rows).
    pub drops: Vec<DropRow>,
    /// Per-queue totals (every queue).
    pub queues: Vec<QueueRow>,
    /// Per directed wireless link: MAC attempts, answers, overheard frames (links with any).
    pub links: Vec<LinkRow>,
    /// With adaptive rate control: per directed wireless link and rate, the data frames sent
    /// and acknowledged (rates with any; absent from the JSON of other runs, so that their
    /// results keep their bytes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub link_rates: Vec<LinkRateRow>,
    /// Per-user statistics of the base station's downlink (empty without one).
    pub downlink: Vec<DownlinkRow>,
    /// The forwarding layer's tables (`net::forwarding::Forwarding::report`), each under its own
    /// key; every table a built-in layer can report is there in every run, empty unless that
    /// layer ran (`scenario::config::FORWARDING_TABLES`, handed to the world), so that every run has the same keys.
    #[serde(flatten)]
    pub forwarding: LayerTables,
    /// Packet conservation check.
    pub conservation: Conservation,
    /// The packet captures the run wrote (`trace:`; absent from the JSON of runs without, so that
    /// their results keep their bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceReport>,
    /// Time series (goodput always, RTT and cwnd when enabled).
    pub timeseries: TimeSeries,
    /// Wall-clock figures of the simulation loop (not results: they differ between runs).
    pub timing: Timing,
}

/// The packet captures of a run (docs/pcap.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceReport {
    /// One row per file, by file name.
    pub files: Vec<TraceFileRow>,
    /// Why writing stopped before the end of the run, if it did (`<file>: <error>`): the files
    /// hold what was written until then; the run's results are whole.
    pub error: Option<String>,
}

/// One capture file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceFileRow {
    /// File name, in the trace's folder.
    pub file: String,
    /// The node.
    pub node: String,
    /// The interface: `wifi<k>` (the node's k-th radio) or `link<i>` (its end of `links[i]`).
    pub interface: String,
    /// Records written.
    pub records: u64,
}

/// Per-flow totals.
#[derive(Debug, Clone, Serialize)]
pub struct FlowResult {
    /// Flow name.
    pub id: String,
    /// Source node name.
    pub src: String,
    /// Destination node name.
    pub dst: String,
    /// "tcp" or "udp".
    pub transport: String,
    /// Congestion control name ("" for UDP).
    pub cc: String,
    /// Whether SACK was used.
    pub sack: bool,
    /// Application start, s.
    pub start_s: f64,
    /// Application stop (configured stop or end of run), s.
    pub stop_s: f64,
    /// Application bytes delivered in order at the receiver.
    pub bytes_delivered: u64,
    /// bytes_delivered * 8 / (stop - start).
    pub goodput_bps: f64,
    /// Time the last byte of a finite transfer was delivered, s.
    pub completion_s: Option<f64>,
    /// Data packets the sender put on the wire (including retransmissions).
    pub packets_sent: u64,
    /// Retransmitted data packets.
    pub retransmissions: u64,
    /// Fast-retransmit / SACK recovery episodes.
    pub recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Mean of the RTT samples, s (None without samples).
    pub mean_rtt_s: Option<f64>,
    /// A TCP-RLC flow's congestion window averaged over time from its start to the end of the
    /// run, packets (the source's W, paper 004's E[W]); absent from the JSON for other flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_window: Option<f64>,
    /// A TCP-RLC flow's decode delay, s: per frame delivered in order, the time from the sending
    /// of its block's first packet to the delivery, averaged over the frames (docs/tcp_rlc.md);
    /// absent from the JSON for other flows and before a frame is delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_delay_mean_s: Option<f64>,
    /// The same delay's 95th percentile over the frames, s (to 0.5 %).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_delay_p95_s: Option<f64>,
    /// The same delay's 99th percentile over the frames, s (to 0.5 %).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_delay_p99_s: Option<f64>,
    /// The paths the flow's packets were pinned to (`flows[].paths`), as node names from the
    /// source to the destination; absent from the JSON for a flow without paths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<Vec<String>>>,
    /// The counters of the flow's shim (`transport::shim`), if it has one and reports any: in
    /// the JSON under the key the shim chose, after the fields above; nothing for flows without.
    #[serde(flatten)]
    pub shim: Option<ShimReport>,
}

/// A shim's counters for its flow's results (`transport::shim::Shim::report`): a key and a JSON
/// value the results carry without knowing what is in it.
///
/// Kept as JSON text, serialised when the shim reports, rather than as a `serde_json::Value`:
/// a `Value` sorts an object's keys, and the JSON must keep the order in which the shim's own
/// types list them. Serialised as one `key: value` entry, which `#[serde(flatten)]` puts into the
/// flow's object.
#[derive(Debug, Clone)]
pub struct ShimReport {
    /// The key in the flow's object.
    pub key: &'static str,
    /// The value, JSON.
    pub value: Box<RawValue>,
}

impl ShimReport {
    /// `value` under `key`.
    pub fn new(key: &'static str, value: &impl Serialize) -> Self {
        ShimReport {
            key,
            value: serde_json::value::to_raw_value(value).expect("counters serialise"),
        }
    }
}

impl Serialize for ShimReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.key, &self.value)?;
        map.end()
    }
}

/// Drop counter row.
#[derive(Debug, Clone, Serialize)]
pub struct DropRow {
    /// Queue name "FROM->TO".
    pub queue: String,
    /// Drop reason (snake_case name of [`crate::sim::DropReason`]).
    pub reason: String,
    /// Packets dropped.
    pub packets: u64,
}

/// Per-queue totals.
#[derive(Debug, Clone, Serialize)]
pub struct QueueRow {
    /// Queue name: "FROM->TO" for a wired channel, "radio NODE" for a radio's interface queue
    /// ("radio NODE chN" on a node with several radios).
    pub queue: String,
    /// Packets accepted by the queue.
    pub enqueued: u64,
    /// Packets put on the wire.
    pub transmitted: u64,
    /// Largest backlog seen, packets.
    pub max_backlog: u32,
}

/// A table of the forwarding layer's for the results: its rows as JSON, under its key at the top
/// level of the results. JSON text, serialised when the layer reports, for the reason
/// [`ShimReport`] is: the rows keep the order of the layer's own types' fields.
#[derive(Debug, Clone)]
pub struct LayerTable {
    /// The key in the results.
    pub key: &'static str,
    /// The rows, a JSON array.
    pub rows: Box<RawValue>,
}

impl LayerTable {
    /// `rows` under `key`.
    pub fn new<R: Serialize>(key: &'static str, rows: &[R]) -> Self {
        LayerTable {
            key,
            rows: serde_json::value::to_raw_value(rows).expect("rows serialise"),
        }
    }

    /// An empty table under `key`.
    pub fn empty(key: &'static str) -> Self {
        LayerTable::new::<()>(key, &[])
    }
}

/// The forwarding layer's tables, serialised as `key: rows` entries (flattened into the results).
#[derive(Debug, Clone, Default)]
pub struct LayerTables(pub Vec<LayerTable>);

impl LayerTables {
    /// The tables a layer `reported`, with an empty one for each key of `always` it did not
    /// report: the keys of `always` first, in its order, then the layer's others.
    pub fn new(mut reported: Vec<LayerTable>, always: &[&'static str]) -> Self {
        let mut tables = Vec::with_capacity(always.len() + reported.len());
        for &key in always {
            match reported.iter().position(|t| t.key == key) {
                Some(i) => tables.push(reported.remove(i)),
                None => tables.push(LayerTable::empty(key)),
            }
        }
        tables.append(&mut reported);
        LayerTables(tables)
    }

    /// The rows of table `key`, if there is one.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.iter().find(|t| t.key == key).map(|t| &*t.rows)
    }
}

impl Serialize for LayerTables {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for t in &self.0 {
            map.serialize_entry(t.key, &t.rows)?;
        }
        map.end()
    }
}

/// What the MAC saw on one directed wireless link.
#[derive(Debug, Clone, Serialize)]
pub struct LinkRow {
    /// Transmitting node (with " chN", its radio's channel, if the node has several radios).
    pub from: String,
    /// Receiving node (named like `from`).
    pub to: String,
    /// Unicast attempts (data, or RTS with RTS/CTS).
    pub attempts: u64,
    /// Attempts answered by an ACK (or CTS).
    pub answered: u64,
    /// answered / attempts (None without attempts).
    pub delivery_ratio: Option<f64>,
    /// Data frames from `from` to third parties that `to` overheard.
    pub overheard: u64,
    /// Data rate of `from`'s unicast frames to `to`, Mbit/s: its rate table's entry, or with
    /// adaptive rate control the mean over its data frames (`link_rates` has them by rate).
    pub rate_mbps: f64,
    /// Under 802.11n aggregation (absent otherwise): A-MPDUs sent on the link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ampdus: Option<u64>,
    /// The mean number of MPDUs an A-MPDU carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpdus_per_ampdu: Option<f64>,
    /// The share of MPDU transmissions under the Block Ack agreement that were retransmissions
    /// (an MPDU the Block Ack reported missing, or of an A-MPDU whose Block Ack was lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mpdu_retry_share: Option<f64>,
    /// Where the sender builds A-MSDUs (absent otherwise): A-MSDUs built for the link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amsdus: Option<u64>,
    /// The mean number of packets an A-MSDU carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msdus_per_amsdu: Option<f64>,
}

/// What one directed wireless link's data frames did at one rate (adaptive rate control).
#[derive(Debug, Clone, Serialize)]
pub struct LinkRateRow {
    /// Transmitting node (named as in `links`).
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// The rate, Mbit/s.
    pub rate_mbps: f64,
    /// Data frames sent at it (first attempts and retries).
    pub attempts: u64,
    /// Of which acknowledged.
    pub acked: u64,
}

/// What one user of the base station's downlink was offered and served.
#[derive(Debug, Clone, Serialize)]
pub struct DownlinkRow {
    /// The user's node.
    pub user: String,
    /// Its mean SNR, dB (as configured).
    pub mean_snr_db: f64,
    /// Slots in which the user held a grant.
    pub slots_scheduled: u64,
    /// Slots in which its channel was in outage (no AMC mode usable).
    pub outage_slots: u64,
    /// Mean whole-slot rate its channel offered over the run, bits/s.
    pub mean_rate_bps: f64,
    /// Packets whose transmission completed (erased ones included).
    pub packets_served: u64,
    /// Bytes of those packets.
    pub bytes_served: u64,
    /// Completed packets the erasure process took.
    pub packets_erased: u64,
    /// Arrivals refused by the full queue.
    pub packets_dropped: u64,
    /// Granted bytes left unused (queue ran dry, or whole-packet service left a remainder).
    pub unused_bytes: u64,
}

/// created = delivered + dropped + in_flight, checked against an independent count of live packets.
#[derive(Debug, Clone, Serialize)]
pub struct Conservation {
    /// Packets created.
    pub created: u64,
    /// Packets delivered to their destination.
    pub delivered: u64,
    /// Packets dropped (all reasons).
    pub dropped: u64,
    /// Packets freed because a copy carries on (a native a relay coded into a frame, once its
    /// next hop has its own copy; the carrier of a coded frame given up). Written only when a
    /// forwarding layer retired some.
    #[serde(skip_serializing_if = "is_zero")]
    pub retired: u64,
    /// Packets still queued or on a link at the end.
    pub in_flight: u64,
    /// Whether the law held.
    pub ok: bool,
}

/// Columnar time series.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TimeSeries {
    /// Goodput per flow per bin.
    pub goodput: GoodputSeries,
    /// RTT samples.
    pub rtt: RttSeries,
    /// cwnd samples.
    pub cwnd: CwndSeries,
    /// Queue-occupancy samples (written only when `metrics.trace_queues` is on, so that the
    /// results of other runs keep their bytes).
    #[serde(skip_serializing_if = "QueueSeries::is_empty")]
    pub queue: QueueSeries,
    /// Each change of a link's data rate under adaptive rate control (written only when
    /// `metrics.trace_rates` is on).
    #[serde(skip_serializing_if = "RateSeries::is_empty")]
    pub rates: RateSeries,
}

/// Changes of links' data rates: row i is the link `from[i]` -> `to[i]`, whose data frames go at
/// `rate_mbps[i]` from `t_s[i]` on (until its next row).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RateSeries {
    /// Transmitting node.
    pub from: Vec<String>,
    /// Receiving node.
    pub to: Vec<String>,
    /// Time of the first data frame at the new rate, s.
    pub t_s: Vec<f64>,
    /// The new rate, Mbit/s.
    pub rate_mbps: Vec<f64>,
}

impl RateSeries {
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.from.is_empty()
    }
}

/// Queue-occupancy samples: row i is queue `queue[i]` at `t_s[i]`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct QueueSeries {
    /// Queue name, as in the `queues` table.
    pub queue: Vec<String>,
    /// Sample time, s.
    pub t_s: Vec<f64>,
    /// Packets waiting (the one being sent not counted).
    pub packets: Vec<u64>,
}

impl QueueSeries {
    /// Whether nothing was sampled.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Goodput bins: row i is flow `flow[i]`, bin starting at `t_s[i]`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GoodputSeries {
    /// Flow name.
    pub flow: Vec<String>,
    /// Bin start, s.
    pub t_s: Vec<f64>,
    /// In-order application bytes delivered in the bin x 8 / bin width.
    pub goodput_bps: Vec<f64>,
}

/// RTT samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RttSeries {
    /// Flow name.
    pub flow: Vec<String>,
    /// Sample time, s.
    pub t_s: Vec<f64>,
    /// Measured RTT, s.
    pub rtt_s: Vec<f64>,
    /// Smoothed RTT after the sample, s.
    pub srtt_s: Vec<f64>,
}

/// Congestion-window samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CwndSeries {
    /// Flow name.
    pub flow: Vec<String>,
    /// Sample time, s.
    pub t_s: Vec<f64>,
    /// Congestion window, segments.
    pub cwnd: Vec<f64>,
    /// Slow-start threshold, segments (capped at 1e9 when unbounded).
    pub ssthresh: Vec<f64>,
    /// Segments in flight (pipe).
    pub in_flight: Vec<f64>,
    /// The average RTT of a delay-based window law (QUIC-TCP's AvgRTT, FAST's avgRTT), s; null
    /// for other algorithms and before the first sample. This column and the next two are
    /// written only when some flow of the run uses such a law (`cc: fast` or `quic_tcp`), so
    /// that the traces of other runs keep their bytes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub avg_rtt_s: Vec<Option<f64>>,
    /// BaseRTT of a delay-based window law, s; null otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub base_rtt_s: Vec<Option<f64>>,
    /// v = w - (BaseRTT/AvgRTT) w - target backlog at the law's last window computation,
    /// segments; null otherwise and before the first computation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub v: Vec<Option<f64>>,
}

/// Wall-clock figures of the run: building the world, the event loop, gathering the results.
#[derive(Debug, Clone, Serialize)]
pub struct Timing {
    /// Seconds spent in the event loop.
    pub wall_s: f64,
    /// Events processed.
    pub events: u64,
    /// events / wall_s.
    pub events_per_s: f64,
    /// Seconds spent building the world before the first event (placement, radios and their
    /// neighbour lists, routes, flows): on a city-sized mesh it rivals the loop, so it is
    /// reported beside it rather than left to be guessed from a profile.
    pub setup_s: f64,
    /// Seconds spent gathering the results document after the loop (not serialising it).
    pub results_s: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
