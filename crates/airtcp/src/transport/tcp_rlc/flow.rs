//! A TCP-RLC flow behind the transport seam (`transport::seam`): the sender at the source, the
//! receiver at the destination. The sender's packets are network packets of 256 bytes
//! (`Header::RlcData`); each one reaching the destination is decoded there and answered with one
//! 40-byte feedback (`Header::RlcFeedback`); the frames decoded in order are the flow's goodput.

use super::config::TcpRlcConfig;
use super::endpoint::AnySender;
use super::multipath::MultipathSender;
use super::receiver::RlcReceiver;
use super::sender::RlcSender;
use super::RlcIo;
use crate::error::ConfigError;
use crate::metrics::results::FlowResult;
use crate::sim::header::rlc::{RlcData, FEEDBACK_BYTES, PACKET_BYTES};
use crate::sim::packet::{Header, NO_PATH};
use crate::sim::{Packet, Rng, Time};
use crate::transport::seam::{End, FlowTransport, TransportIo, TransportScheme, WindowSample};

/// One TCP-RLC flow's endpoints.
pub struct RlcFlow {
    sender: AnySender,
    receiver: RlcReceiver,
    /// The run's master seed and the flow's index, for the random stream of a multipath sender
    /// made once the paths are known (the same stream a single-path sender draws from).
    seed: u64,
    index: usize,
}

/// The flow's random stream (coding coefficients, path choice).
fn stream(seed: u64, index: usize) -> Rng {
    Rng::stream(seed, &format!("flows/{index}/tcp_rlc"))
}

impl TransportScheme for TcpRlcConfig {
    fn endpoints(
        &self,
        p: &str,
        bytes: Option<u64>,
        seed: u64,
        index: usize,
    ) -> Result<Box<dyn FlowTransport>, ConfigError> {
        self.check(p)?;
        let frames = bytes.map(|b| b.div_ceil(PACKET_BYTES as u64));
        let sender = RlcSender::new(self.sender(frames), stream(seed, index));
        Ok(Box::new(RlcFlow {
            sender: AnySender::Single(sender),
            receiver: RlcReceiver::new(self.field(), self.mode(), self.literal_dup),
            seed,
            index,
        }))
    }
}

/// The seam's I/O as the sender sees it.
struct SenderIo<'a>(&'a mut dyn TransportIo);

impl RlcIo for SenderIo<'_> {
    fn now(&self) -> Time {
        self.0.now()
    }

    fn send(&mut self, packet: RlcData) {
        // A multipath packet goes by its path controller's path.
        let path = if packet.mark.round > 0 {
            packet.mark.path
        } else {
            NO_PATH
        };
        let header = Header::RlcData(packet);
        self.0.send(End::Source, PACKET_BYTES, header, path);
    }

    fn set_timer(&mut self, deadline: Option<Time>) {
        self.0.set_timer(deadline);
    }
}

impl RlcFlow {
    /// A data-direction packet reached the destination: decode it, count what it decoded, answer
    /// it.
    fn on_data(&mut self, h: &RlcData, io: &mut dyn TransportIo) {
        let got = self.receiver.on_data(h, io.now());
        if got.frames > 0 {
            // A finite transfer counts its last partial packet whole: the paper's throughput is
            // decoded packets (spec A17).
            io.delivered(got.bytes());
            let frames = self.sender.source().cfg.frames;
            if frames.is_some_and(|n| self.receiver.next_expected() >= n) {
                io.completed();
            }
        }
        let feedback = Header::RlcFeedback(got.feedback);
        io.send(End::Destination, FEEDBACK_BYTES, feedback, NO_PATH);
    }
}

impl FlowTransport for RlcFlow {
    fn name(&self) -> &'static str {
        "tcp_rlc"
    }

    fn start(&mut self, io: &mut dyn TransportIo) {
        self.sender.start(&mut SenderIo(io));
    }

    fn stop(&mut self) {
        self.sender.stop();
    }

    fn on_timer(&mut self, io: &mut dyn TransportIo) {
        self.sender.on_timer(&mut SenderIo(io));
    }

    fn on_packet(&mut self, packet: &Packet, io: &mut dyn TransportIo) {
        match &packet.header {
            Header::RlcData(h) => self.on_data(h, io),
            Header::RlcFeedback(fb) => self.sender.on_feedback(fb, &mut SenderIo(io)),
            _ => debug_assert!(false, "a packet of another transport on a TCP-RLC flow"),
        }
    }

    /// With several paths the flow codes across them: one path controller per path (§II-F).
    fn fit_to_paths(&mut self, paths: usize) {
        if paths < 2 {
            return;
        }
        if let AnySender::Single(single) = &self.sender {
            let params = single.source().cfg;
            let rng = stream(self.seed, self.index);
            self.sender = AnySender::Multipath(MultipathSender::new(params, paths, rng));
        }
    }

    fn window(&self) -> Option<WindowSample> {
        let source = self.sender.source();
        Some(WindowSample {
            cwnd: source.cwnd() as f64,
            // No slow start, so no threshold.
            ssthresh: 0.0,
            in_flight: source.in_flight() as f64,
        })
    }

    fn heap_bytes(&self) -> u64 {
        self.receiver.heap_bytes()
    }

    fn report(&self, row: &mut FlowResult, duration: Time) {
        let s = self.sender.stats();
        row.transport = "tcp_rlc".into();
        row.packets_sent = s.frames_sent + s.repairs + s.low_sent;
        row.retransmissions = s.repairs;
        row.recoveries = s.halvings;
        row.timeouts = s.timeouts;
        row.mean_rtt_s = (s.rtt_samples > 0).then(|| s.rtt_sum / s.rtt_samples as f64 * 1e-9);
        row.mean_window = self.sender.source().mean_window(duration);
        let delays = &self.receiver.delays;
        row.decode_delay_mean_s = delays.mean_s();
        row.decode_delay_p95_s = delays.quantile_s(0.95);
        row.decode_delay_p99_s = delays.quantile_s(0.99);
    }
}
