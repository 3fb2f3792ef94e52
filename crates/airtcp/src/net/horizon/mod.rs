//! Horizon, multipath back-pressure for unmodified TCP: paper 003 (Radunović, Gkantsidis,
//! Gunawardena & Key, "Horizon: Balancing TCP over multiple paths in wireless mesh network",
//! MobiCom 2008), §3.3 eqs. (11)-(15) and its implementation, §5.1-§5.2, as a forwarding layer
//! (`net::forwarding`) across all of a node's radios.
//!
//! A Horizon flow is an ordered pair of nodes (a TCP flow's data and its ACKs are two; several
//! transport flows between the same two nodes share one, spec A19). Its next-hop sets `D_i(f)`
//! are the successors on the flow's paths (two node-disjoint ETT paths by default, §5.4, the second
//! chosen away from the first's channel and neighbourhood; only the source branches). Every node keeps per-flow queues and its custody of each flow, prices it,
//! advertises prices upstream in refreshment packets or piggybacked on the reverse flow, and
//! hands packets to its radios' interface queues while the custody gate allows ([`node`] has the
//! algorithm, [`layer`] the glue). The destination's reorder buffer and the source's congestion
//! signal to TCP are on the transport shim seam (`transport::horizon`).
//!
//! Choices the paper leaves open (docs/horizon.md has the table):
//! - prices per rate (spec A4), strict eq. (15) (A6), update events = receptions and price
//!   changes (A7), the custody gate per flow and neighbour (A20);
//! - pacing (A7, A8). §5.2.2 has refreshments "approximately after every 5 consecutive changes"
//!   of the price, piggybacks on the reverse flow, and no timer, and warns that refreshing too
//!   often "creates extra contention in the wireless medium". By default (`refresh_rule: paced`):
//!   - a refreshment goes after `refresh_every` packets received from the neighbour, always (its
//!     custody gate waits for their acknowledgement `R`);
//!   - after `refresh_every` update events with fewer receptions among them (price changes),
//!     only within the node's air-time budget (`refresh_budget`, a token bucket): counted that
//!     way, the price of a relay changes several times per packet (its own custody, and the
//!     max over flows of eq. 12, and every price heard from downstream);
//!   - liveness timers (without them one refreshment lost after the MAC's retries blocks the
//!     upstream link for good, and the last packets of a burst are never acknowledged): a timed
//!     refreshment stands in for a count that will not complete, so it goes only once the link
//!     has gone quiet (nothing from the neighbour for `refresh_every` of its usual gaps between
//!     packets, at least `refresh_idle`, at most a second), if the advertised `(C, R)` changed
//!     since it was last said (a change of the price alone within the budget), or as a repeat
//!     every `refresh_repeat` for a second after the link went quiet.
//!
//!   `refresh_rule: eager` is the earlier rule: a refreshment after every `refresh_every`
//!   update events, and by the timers after `refresh_idle` whenever `(C, R)` changed, packets
//!   flowing or not, and the repeat while they flow, without a budget; on a slow 802.11b mesh
//!   its timer refreshed after nearly every packet (docs/horizon.md);
//! - every refreshment's air time (frame, SIFS, MAC ACK at the link's rate) is counted by cause
//!   and reported with its share of the run;
//! - the paths of a flow without a `paths` block ([`paths`]): the lightest first, the second by
//!   default the lightest node-disjoint path weighed by its contention with the first
//!   (`path_choice: interference_aware`), or the lightest node-disjoint one (`lightest`);
//! - refreshments at the head of the interface queue (A9);
//! - a buffer of 1000 packets per node; on overflow the newest packet of the largest queue is
//!   dropped and nothing is released;
//! - the 19-byte header is added to every packet of a flow where it enters the network; the
//!   PktID is numbered per transport flow and direction (two bytes in the simulator, one on the
//!   paper's wire), the PLID per link and flow (one byte, as on the wire);
//! - a piggyback is read from the side table the sender wrote when it handed the packet to its
//!   MAC: the frame carries it, the packet stays as small as without Horizon.

pub mod config;
pub mod layer;
pub mod node;
pub mod paths;
pub mod setup;

pub use layer::HorizonLayer;
pub use node::{NextHopRule, PriceRule, RefreshRule};

use crate::sim::Time;

/// The key of Horizon's per-node table in the results.
pub const TABLE: &str = "horizon";
/// The key of its per-flow, per-path series.
pub const PATHS_TABLE: &str = "horizon_paths";
/// The key of its custody and price samples.
pub const SAMPLES_TABLE: &str = "horizon_samples";

/// Horizon's bytes on every packet (§5.1, Fig. 2's caption): source and destination address,
/// PktID, PLID, timestamp, PathID and the piggyback.
pub const HEADER_BYTES: u32 = 19;

/// The parameters of the layer (spec §2.9).
#[derive(Debug, Clone)]
pub struct HorizonParams {
    /// `T`, the custody threshold per flow and neighbour (§5.2.2: 10-15).
    pub threshold: usize,
    /// Update events per refreshment (§5.2.2: "approximately after every 5").
    pub refresh_every: u32,
    /// How custody is priced.
    pub price: PriceRule,
    /// Strict eq. (15), or the cheapest open neighbour.
    pub next_hop: NextHopRule,
    /// Whether packets are pushed to the interface queue (the paper's implementation) or only
    /// pulled at transmit opportunities (§3.1's ideal, an ablation).
    pub push: bool,
    /// Refreshments jump the interface queue (`true`) or join its tail.
    pub refresh_first: bool,
    /// When the liveness timers send a refreshment.
    pub refresh_rule: RefreshRule,
    /// The share of its time a node's timed refreshments may keep the air busy (`Paced`).
    pub refresh_budget: f64,
    /// Liveness: a changed `(C, R)` goes upstream after this long without anything sent there.
    pub refresh_idle: Time,
    /// Liveness: the last refreshment is repeated this often while packets keep coming.
    pub refresh_repeat: Time,
    /// Packets a node's queues hold in all.
    pub buffer: usize,
    /// Capacity of each radio's interface queue (the push stops short of overflowing it).
    pub ifq_capacity: usize,
    /// Interval of the custody/price samples and of the per-path series.
    pub sample_interval: Time,
}
