//! The NC layer between TCP and the network (paper 000, Seferoglu & Modiano, "TCP-aware
//! backpressure routing and scheduling", IEEE TMC 2016, §4.1.3 and §4.2.1; Fig. 4): a slim
//! network coding layer at the edge points, here the TCP source node and the TCP receiver node.
//!
//! - [`source`]: blocks of `H_s` segments (the congestion window or a fixed size), incremental
//!   coded packets `a_k` instead of TCP's segments, NC-ACKs turned into TCP ACKs, repair packets
//!   on request and for TCP's retransmissions, congestion drops at the edge passed up unmasked.
//! - [`sink`]: online decoding, an NC-ACK per innovative packet, in-order delivery of decoded
//!   blocks to TCP's receiver, repair requests.
//! - [`header`]: the packets' headers.
//! - [`shim`]: the layer on the shim seam (`transport::shim`) between a flow's TCP and the network:
//!   how segments, ACKs, packets, the repair timer, drops at the source and the counters reach it.
//!
//! The codec is `crate::coding::rlnc`. In the simulator packets carry no payload bytes, so the
//! layer runs it in [`PayloadMode::CoefficientsOnly`] (the rank logic is exactly that of the bytes
//! mode); the tests run the same layer in [`PayloadMode::Bytes`] and check that the decoded bytes
//! are the source bytes. See docs/nc_layer.md.

pub mod config;
pub mod header;
pub mod shim;
pub mod sink;
pub mod source;

#[cfg(test)]
mod tests;

use crate::coding::rlnc::PayloadMode;
use crate::sim::header::tcp::DataHeader;
use crate::sim::{Rng, Time};
use crate::transport::nc_layer::config::NcConfig;
use sink::{Delivered, NcSink, NcSinkStats};
use source::{NcSource, NcSourceStats};

pub use header::{NcAck, NcCoded, NcHeader, NcRepairRequest};

/// What the NC layer can do to the world around it. In the simulator it is an adapter onto the
/// shim seam's io ([`shim`]); tests record.
pub trait NcIo {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Sends a coded packet of `size` bytes from the source towards the receiver. `payload` is the
    /// coded payload (empty in coefficients-only mode; the simulator does not carry it).
    fn send_coded(&mut self, header: NcCoded, size: u32, payload: &[u8]);
    /// Sends an NC-ACK or a repair request of `size` bytes from the receiver to the source.
    fn send_feedback(&mut self, header: NcHeader, size: u32);
    /// Arms (`Some`) or cancels (`None`) the receiver's repair timer.
    fn set_timer(&mut self, deadline: Option<Time>);
}

/// Both ends of one flow's NC layer (the flow's block table lives at the source; the receiver
/// reads it, see [`source`]). The receiver's repair timer is the seam's (timer 0 of the flow's
/// shim, see [`shim`]).
#[derive(Debug, Clone)]
pub struct NcLayer {
    /// At the TCP source.
    pub source: NcSource,
    /// At the TCP receiver.
    pub sink: NcSink,
    /// Scratch for segments decoded by one packet.
    pub delivered: Vec<Delivered>,
}

impl NcLayer {
    /// The NC layer of a TCP flow with `header_bytes` of IP + TCP header per segment (NC-ACKs and
    /// repair requests are that size too: they replace TCP's ACKs). Coefficients come from `rng`.
    pub fn new(cfg: &NcConfig, header_bytes: u32, mode: PayloadMode, rng: Rng) -> Self {
        let mut source = NcSource::new(cfg.block, cfg.max_block, header_bytes, mode, rng);
        source.relay_congestion = cfg.relay_congestion;
        NcLayer {
            source,
            sink: NcSink::new(mode, header_bytes, cfg.repair_interval),
            delivered: Vec::new(),
        }
    }

    /// The layer as a run uses it, for flow `index` (0-based, scenario order) of a run with master
    /// seed `seed`: coefficients from the flow's own stream, `flow/{index}/nc`; the simulator's
    /// packets carry no bytes, so only coefficients (and ranks) are tracked.
    pub fn for_flow(cfg: &NcConfig, header_bytes: u32, seed: u64, index: usize) -> Self {
        let rng = Rng::stream(seed, &format!("flow/{index}/nc"));
        NcLayer::new(cfg, header_bytes, PayloadMode::CoefficientsOnly, rng)
    }

    /// Bytes the source may keep per segment of TCP's window, for the memory budget: the
    /// segment's header, its place in the block and up to one coefficient byte per source of the
    /// largest block.
    pub fn bytes_per_segment(cfg: &NcConfig) -> u64 {
        (std::mem::size_of::<DataHeader>() + 4) as u64 + cfg.largest_block() as u64
    }
}

/// The NC layer's counters of one flow, as the results report them under `"nc"` (docs/nc_layer.md,
/// "Counters in the results"). Deserialisable too, so that a reader of the results gets them back
/// typed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NcResult {
    /// At the TCP source's node.
    pub source: NcSourceStats,
    /// At the TCP receiver's node.
    pub sink: NcSinkStats,
}
