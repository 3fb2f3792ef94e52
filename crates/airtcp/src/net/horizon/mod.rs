//! Horizon, multipath back-pressure for unmodified TCP: paper 003 (Radunović, Gkantsidis,
//! Gunawardena & Key, "Horizon: Balancing TCP over multiple paths in wireless mesh network",
//! MobiCom 2008), §3.3 eqs. (11)-(15) and its implementation, §5.1-§5.2, as a forwarding layer
//! (`net::forwarding`) across all of a node's radios.
//!
//! A Horizon flow is an ordered pair of nodes (a TCP flow's data and its ACKs are two; several
//! transport flows between the same two nodes share one, spec A19). Its next-hop sets `D_i(f)`
//! are the successors on the flow's paths (two node-disjoint ETT paths by default, §5.4; only the
//! source branches). Every node keeps per-flow queues and its custody of each flow, prices it,
//! advertises prices upstream in refreshment packets or piggybacked on the reverse flow, and
//! hands packets to its radios' interface queues while the custody gate allows ([`node`] has the
//! algorithm, [`layer`] the glue). The destination's reorder buffer and the source's congestion
//! signal to TCP are on the transport shim seam (`transport::horizon`).
//!
//! Choices the paper leaves open (docs/horizon.md has the table):
//! - prices per rate (spec A4), strict eq. (15) (A6), update events = receptions and price
//!   changes (A7), the custody gate per flow and neighbour (A20);
//! - liveness timers (A8): a refreshment after `refresh_idle` if the advertised `(C, R)` changed
//!   and nothing went upstream since, and a repeat every `refresh_repeat` while the flow's
//!   packets keep coming (within the last second): without them one refreshment lost after the
//!   MAC's retries blocks the upstream link for good;
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
pub mod setup;

pub use layer::HorizonLayer;
pub use node::{NextHopRule, PriceRule};

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
