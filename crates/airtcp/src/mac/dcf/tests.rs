//! The DCF against a scripted world: frames it puts on the air, in order, with their rates.
use super::*;
use crate::mac::config::AckRate;
use crate::sim::packet::Header;
use crate::sim::time::MICROS;

/// An idle medium, a queue of packets and a record of what the DCF does.
struct Script {
    now: Time,
    rng: Rng,
    queue: Vec<Pulled>,
    sent: Vec<Frame>,
    timers: [Option<Time>; 3],
    delivered: u32,
}

impl Script {
    fn new() -> Self {
        Script {
            now: 0,
            rng: Rng::stream(1, "dcf-test"),
            queue: Vec::new(),
            sent: Vec::new(),
            timers: [None; 3],
            delivered: 0,
        }
    }

    /// Advances to timer `which` and fires it.
    fn fire(&mut self, dcf: &mut Dcf, which: MacTimer) {
        let at = self.timers[which as usize].expect("timer armed");
        self.timers[which as usize] = None;
        self.now = at;
        dcf.on_timer(which, self);
    }
}

impl MacIo for Script {
    fn now(&self) -> Time {
        self.now
    }
    fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }
    fn phy_busy(&self) -> bool {
        false
    }
    fn phy_idle_since(&self) -> Time {
        0
    }
    fn transmit(&mut self, frame: Frame) {
        self.sent.push(frame);
    }
    fn set_timer(&mut self, which: MacTimer, at: Option<Time>) {
        self.timers[which as usize] = at;
    }
    fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }
    fn pull(&mut self) -> Option<Pulled> {
        (!self.queue.is_empty()).then(|| self.queue.remove(0))
    }
    fn deliver(&mut self, _frame: &Frame) {
        self.delivered += 1;
    }
    fn attempt(&mut self, _next: RadioId, _ok: bool) {}
    fn overheard(&mut self, _frame: &Frame) {}
    fn tx_status(&mut self, _sent: Sent, _ok: bool, _handed_over: bool) {}
}

fn dot11a_dcf(me: RadioId) -> Dcf {
    Dcf::new(
        me,
        DcfParams {
            timing: Timing::dot11a(54_000_000, 6_000_000),
            rts_cts: false,
            short_retry_limit: 7,
            long_retry_limit: 4,
            mac_overhead: 36,
            profile: MacProfile::Standard,
            rate_control: false,
            aggregation: None,
            lifetime: None,
        },
    )
}

fn packet(bytes: u32) -> Packet {
    Packet::new(0, 0, 1, bytes, 0, Header::Udp { seq: 0, len: bytes })
}

/// A data frame from radio 1 to radio 0 at `rate`.
fn data_from_peer(rate: u64, bytes: u32) -> Frame {
    let t = Timing::dot11a(54_000_000, 6_000_000);
    Frame {
        bytes,
        rate_bps: rate,
        airtime: t.airtime(bytes, rate),
        packet: Some((PacketId(7), packet(bytes - 36))),
        ..Frame::new(FrameKind::Data, 1, Some(0))
    }
}

#[test]
fn dot11a_acks_answer_at_the_control_rate_of_the_frame_received() {
    // data rate -> ACK rate and air time (14 bytes: 20 us + symbols of 4 us).
    for (data, ack, ack_us) in [
        (54_000_000, 24_000_000, 28),
        (36_000_000, 24_000_000, 28),
        (24_000_000, 24_000_000, 28),
        (18_000_000, 12_000_000, 32),
        (12_000_000, 12_000_000, 32),
        (9_000_000, 6_000_000, 44),
        (6_000_000, 6_000_000, 44),
    ] {
        let mut dcf = dot11a_dcf(0);
        let mut io = Script::new();
        io.now = 1000 * MICROS;
        dcf.on_rx(&data_from_peer(data, 1536), true, &mut io);
        assert_eq!(io.delivered, 1);
        // The ACK goes SIFS (16 us) after the reception.
        io.fire(&mut dcf, MacTimer::Response);
        assert_eq!(io.now, 1016 * MICROS);
        let sent = io.sent.last().expect("an ACK");
        assert_eq!(sent.kind, FrameKind::Ack);
        assert_eq!(
            (sent.rate_bps, sent.airtime),
            (ack, ack_us * MICROS),
            "{data}"
        );
    }
}

#[test]
fn a_pulled_rate_sets_the_data_frame_and_the_time_reserved_for_its_ack() {
    let mut dcf = dot11a_dcf(0);
    let mut io = Script::new();
    let mut pulled = Pulled::packet(PacketId(3), packet(1500), Some(1));
    pulled.rate = Some(12_000_000);
    io.queue.push(pulled);
    dcf.on_frame_ready(&mut io);
    while io.sent.is_empty() {
        io.fire(&mut dcf, MacTimer::Access);
    }
    let data = io.sent[0];
    assert_eq!((data.kind, data.rate_bps), (FrameKind::Data, 12_000_000));
    // 1536 bytes at 12 Mbps: ceil((16 + 12288 + 6) / 48) = 257 symbols.
    assert_eq!(data.airtime, (20 + 257 * 4) * MICROS);
    // NAV: SIFS + an ACK at 12 Mbps (20 us + 3 symbols).
    assert_eq!(data.nav, (16 + 32) * MICROS);
    // The ACK timeout waits for the ACK to start arriving: end + SIFS + a slot + the OFDM
    // preamble and SIGNAL field (10.3.2.9), whatever the ACK's rate.
    let end = io.now + data.airtime;
    assert_eq!(
        io.timers[MacTimer::Timeout as usize],
        Some(end + (16 + 9 + 20) * MICROS)
    );
    // A broadcast goes at the basic rate whatever the table says.
    let mut dcf = dot11a_dcf(0);
    let mut io = Script::new();
    let mut pulled = Pulled::packet(PacketId(4), packet(100), None);
    pulled.rate = Some(54_000_000);
    io.queue.push(pulled);
    dcf.on_frame_ready(&mut io);
    while io.sent.is_empty() {
        io.fire(&mut dcf, MacTimer::Access);
    }
    assert_eq!(io.sent[0].rate_bps, 6_000_000);
}

#[test]
fn dot11b_ack_rules() {
    let mut t = Timing::dot11b(11_000_000, 1_000_000, crate::mac::config::Preamble::Long);
    assert_eq!(t.ack_rate_for(11_000_000), 1_000_000);
    t.ack = AckRate::Data;
    assert_eq!(t.ack_rate_for(5_500_000), 5_500_000);
    // Every 802.11b rate is mandatory: the control rule answers at the data rate.
    t.ack = AckRate::Control;
    assert_eq!(t.ack_rate_for(11_000_000), 11_000_000);
}
