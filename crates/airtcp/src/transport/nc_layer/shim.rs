//! The NC layer on the shim seam (`transport::shim`): paper 000's layer between TCP and the
//! network at the edge points (§4.1.3, Fig. 4), here the TCP source node and the TCP receiver
//! node, wired to TCP and the network through the seam's hooks.
//!
//! - TCP's segments at the source are taken by the encoder (a new segment becomes the next coded
//!   packet of its block, a retransmission a repair packet); the sender's window hint sizes the
//!   blocks.
//! - Coded packets travel from the source to the destination, NC-ACKs and repair requests back,
//!   as packets of the flow with the seam's header ([`NcHeader::to_shim`]).
//! - At the destination a coded packet goes to the decoder; decoded segments go up to TCP's
//!   receiver. The NC-ACKs replace TCP's ACKs (§4.1.3), so TCP's receiver sends none.
//! - At the source an NC-ACK becomes TCP's ACK, replayed into the sender with no network hop; a
//!   repair request is answered with repair packets, which needs the sender's smoothed RTT.
//! - The receiver's repair timer is the seam's timer [`REPAIR_TIMER`].
//! - A coded packet dropped on buffer overflow at the source node withholds a segment's ACK, so
//!   that TCP sees the congestion (§4.2.1); every other drop is masked.
//! - The counters go into the flow's results as `"nc": {"source": {...}, "sink": {...}}`.

use super::{NcCoded, NcHeader, NcIo, NcLayer, NcResult};
use crate::metrics::results::ShimReport;
use crate::sim::header::tcp::DataHeader;
use crate::sim::Time;
use crate::transport::shim::{End, Shim, ShimIo, ShimPacket, ShimTimer, Verdict};

/// The receiver's repair timer: the layer's only timer.
pub const REPAIR_TIMER: ShimTimer = 0;

/// The layer's [`NcIo`] on the seam's io: coded packets leave from the source, feedback from the
/// destination, and the timer is the seam's [`REPAIR_TIMER`].
struct Port<'a, 'b> {
    io: &'a mut (dyn ShimIo + 'b),
}

impl NcIo for Port<'_, '_> {
    fn now(&self) -> Time {
        self.io.now()
    }

    fn send_coded(&mut self, header: NcCoded, size: u32, _payload: &[u8]) {
        // The simulator's packets carry no bytes (coefficients-only mode).
        let header = NcHeader::Coded(header).to_shim();
        self.io.send(End::Source, size, header);
    }

    fn send_feedback(&mut self, header: NcHeader, size: u32) {
        self.io.send(End::Destination, size, header.to_shim());
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        self.io.set_timer(REPAIR_TIMER, deadline);
    }
}

/// The TCP sender's smoothed RTT (its RTO before the first sample).
fn sender_rtt(io: &dyn ShimIo) -> Time {
    let timing = io
        .sender_timing()
        .expect("a packet's arrival is not a call from TCP");
    timing.srtt.unwrap_or(timing.rto)
}

impl Shim for NcLayer {
    fn name(&self) -> &'static str {
        "nc"
    }

    fn timers(&self) -> usize {
        1
    }

    /// NC-ACKs replace TCP's ACKs one for one (§4.1.3).
    fn replaces_receiver_acks(&self) -> bool {
        true
    }

    fn on_sender_segment(&mut self, segment: DataHeader, io: &mut dyn ShimIo) -> Verdict {
        self.source.on_segment(segment, &[], &mut Port { io });
        Verdict::Consumed
    }

    fn on_window_hint(&mut self, segments: u64) {
        self.source.set_window(segments);
    }

    fn on_packet(&mut self, at: End, packet: &ShimPacket, io: &mut dyn ShimIo) {
        match (at, NcHeader::from_shim(&packet.header)) {
            (End::Destination, NcHeader::Coded(coded)) => {
                let NcLayer {
                    source,
                    sink,
                    delivered,
                } = self;
                let marked = packet.header.congestion_marked();
                sink.on_coded(&coded, &[], marked, source, &mut Port { io }, delivered);
                for d in delivered.drain(..) {
                    io.deliver(d.segment);
                }
            }
            (End::Source, NcHeader::Ack(ack)) => {
                let (rtt, now) = (sender_rtt(io), io.now());
                if let Some(tcp_ack) = self.source.on_ack(&ack, rtt, now) {
                    io.replay_ack(tcp_ack);
                }
            }
            (End::Source, NcHeader::Repair(req)) => {
                let rtt = sender_rtt(io);
                self.source.on_repair_request(&req, rtt, &mut Port { io });
            }
            (at, h) => unreachable!("NC packet {h:?} arrived at the {at:?}"),
        }
    }

    fn on_timer(&mut self, timer: ShimTimer, io: &mut dyn ShimIo) {
        debug_assert_eq!(timer, REPAIR_TIMER);
        self.sink.on_timer(&mut Port { io });
    }

    /// Only coded packets dropped at the source count (§4.2.1); feedback the destination's own
    /// node dropped is simply lost, as feedback lost anywhere else.
    fn on_dropped_at_origin(&mut self, from: End, packet: &ShimPacket, _io: &mut dyn ShimIo) {
        if let (End::Source, NcHeader::Coded(coded)) = (from, NcHeader::from_shim(&packet.header)) {
            self.source.on_edge_drop(&coded);
        }
    }

    fn report(&self) -> Option<ShimReport> {
        let counters = NcResult {
            source: self.source.stats.clone(),
            sink: self.sink.stats.clone(),
        };
        Some(ShimReport::new("nc", &counters))
    }
}

#[cfg(test)]
mod tests {
    //! The layer through the seam's interface, against a recording io: what goes where, from
    //! which end. (The protocol itself is tested in `super::super::tests`.)

    use super::*;
    use crate::sim::header::tcp::AckHeader;
    use crate::sim::time::MILLIS;
    use crate::transport::nc_layer::config::{NcBlock, NcConfig};
    use crate::transport::nc_layer::{NcAck, NcRepairRequest};
    use crate::transport::shim::{SenderTiming, ShimHeader};

    #[derive(Default)]
    struct Rec {
        sent: Vec<(End, u32, NcHeader)>,
        timers: Vec<(ShimTimer, Option<Time>)>,
        up: Vec<u64>,
        acks: Vec<AckHeader>,
        timing: Option<SenderTiming>,
    }

    impl ShimIo for Rec {
        fn now(&self) -> Time {
            0
        }
        fn send(&mut self, from: End, size: u32, header: ShimHeader) {
            self.sent.push((from, size, NcHeader::from_shim(&header)));
        }
        fn set_timer(&mut self, timer: ShimTimer, deadline: Option<Time>) {
            self.timers.push((timer, deadline));
        }
        fn deliver(&mut self, segment: DataHeader) {
            self.up.push(segment.seq);
        }
        fn replay_ack(&mut self, ack: AckHeader) {
            self.acks.push(ack);
        }
        fn sender_timing(&self) -> Option<SenderTiming> {
            self.timing
        }
    }

    fn layer() -> NcLayer {
        let cfg = NcConfig {
            block: NcBlock::Fixed(2),
            max_block: 64,
            repair_interval: 100 * MILLIS,
            relay_congestion: Default::default(),
        };
        NcLayer::for_flow(&cfg, 40, 1, 0)
    }

    fn segment(seq: u64) -> DataHeader {
        DataHeader {
            seq,
            len: 1000,
            last: false,
            retransmission: false,
        }
    }

    fn packet(h: NcHeader) -> ShimPacket {
        ShimPacket {
            header: h.to_shim(),
            size: 40,
            path: crate::net::flow_paths::NO_PATH,
            created: 0,
        }
    }

    #[test]
    fn segments_go_down_coded_come_up_decoded_and_their_nc_acks_become_tcps() {
        let mut nc = layer();
        let shim: &mut dyn Shim = &mut nc;
        assert_eq!(shim.timers(), 1);
        assert!(shim.replaces_receiver_acks());
        let mut src = Rec {
            timing: Some(SenderTiming {
                srtt: None,
                rto: 1000 * MILLIS,
            }),
            ..Rec::default()
        };
        for seq in 0..2 {
            let verdict = shim.on_sender_segment(segment(seq), &mut src);
            assert_eq!(verdict, Verdict::Consumed);
        }
        // a_1 and a_2 of block 0 leave the source: 1000 + 40 + 2 + 10 + k bytes.
        let coded: Vec<_> = src.sent.drain(..).collect();
        assert_eq!(coded.len(), 2);
        assert!(coded.iter().all(|&(from, _, _)| from == End::Source));
        assert_eq!((coded[0].1, coded[1].1), (1053, 1054));
        let mut dst = Rec::default();
        let NcHeader::Coded(c) = coded[0].2 else {
            panic!("{:?}", coded[0])
        };
        shim.on_packet(End::Destination, &packet(coded[0].2), &mut dst);
        // An NC-ACK back from the destination; nothing decoded yet (a block of 2).
        assert_eq!(dst.sent.len(), 1);
        let (from, size, ack) = dst.sent[0];
        assert_eq!((from, size), (End::Destination, 40));
        assert!(matches!(ack, NcHeader::Ack(a) if a.block == c.block && a.rank == 1));
        assert!(dst.up.is_empty());
        shim.on_packet(End::Destination, &packet(coded[1].2), &mut dst);
        assert_eq!(dst.up, [0, 1]);
        // At the source, each NC-ACK is TCP's ACK of one more segment.
        for (i, &(_, _, ack)) in dst.sent.iter().enumerate() {
            shim.on_packet(End::Source, &packet(ack), &mut src);
            assert_eq!(src.acks[i].ack, i as u64 + 1);
        }
        // The report: the counters under "nc", in the order the layer lists them.
        let report = shim.report().expect("the layer reports");
        assert_eq!(report.key, "nc");
        assert!(report
            .value
            .get()
            .starts_with(r#"{"source":{"blocks":1,"coded_sent":2,"#));
    }

    #[test]
    fn only_coded_packets_dropped_at_the_source_count_as_congestion() {
        let mut nc = layer();
        let mut io = Rec::default();
        nc.on_sender_segment(segment(0), &mut io);
        let coded = packet(io.sent[0].2);
        let ack = packet(NcHeader::Ack(NcAck {
            block: 0,
            rank: 1,
            decoded_below: 0,
            ece: false,
        }));
        nc.on_dropped_at_origin(End::Destination, &ack, &mut io);
        assert_eq!((nc.source.stats.edge_drops, nc.source.withheld()), (0, 0));
        nc.on_dropped_at_origin(End::Source, &coded, &mut io);
        assert_eq!((nc.source.stats.edge_drops, nc.source.withheld()), (1, 1));
    }

    #[test]
    fn repairs_leave_the_source_and_the_repair_timer_is_the_seams() {
        let mut nc = layer();
        let mut src = Rec {
            timing: Some(SenderTiming {
                srtt: None,
                rto: 1000 * MILLIS,
            }),
            ..Rec::default()
        };
        nc.on_sender_segment(segment(0), &mut src);
        src.sent.clear();
        let request = NcHeader::Repair(NcRepairRequest {
            block: 0,
            missing: 1,
            sent_at: 0,
        });
        nc.on_packet(End::Source, &packet(request), &mut src);
        assert_eq!(src.sent.len(), 1);
        assert!(matches!(src.sent[0], (End::Source, _, NcHeader::Coded(c)) if c.packet_id == 3));
        // The destination's first packet of block 0 is a_2 (a_1 lost): it asks for the block
        // once it has been silent for the repair interval, on the seam's timer 0.
        let mut dst = Rec::default();
        nc.on_sender_segment(segment(1), &mut src);
        let a2 = src.sent.last().expect("a_2 sent").2;
        nc.on_packet(End::Destination, &packet(a2), &mut dst);
        assert_eq!(dst.timers.last(), Some(&(REPAIR_TIMER, Some(100 * MILLIS))));
    }
}
