//! IEEE 802.11 distributed coordination function (802.11-2016 §10.3), one instance per radio.
//!
//! - Channel access: a frame goes out once the medium has been idle for DIFS (EIFS after an
//!   erroneous reception) plus the remaining backoff slots. The backoff is drawn uniformly from
//!   [0, CW] when a frame finds the medium busy and after every transmission attempt
//!   (post-backoff); it counts down only while the medium is idle and freezes while it is busy.
//!   Counting is computed lazily from the idle period's start, not slot by slot.
//! - The medium is busy while the PHY senses it busy (physical carrier sense) or the NAV, set
//!   from the duration field of frames addressed to others, has not expired (virtual carrier
//!   sense).
//! - Unicast data is acknowledged after SIFS; without the ACK (timeout SIFS + ACK time + one slot
//!   after the data) the frame is retried with CW doubled up to CWmax, and dropped after the
//!   retry limit (short limit without RTS/CTS and for RTS frames, long limit for data sent after
//!   RTS/CTS); `limit` retries means at most 1 + `limit` attempts.
//! - Optional RTS/CTS: RTS, CTS after SIFS (only if the responder's NAV is clear), data after
//!   SIFS, ACK after SIFS; the durations reserve the medium for the whole exchange.
//! - Broadcast frames are sent once at the basic rate, without ACK.
//! - Transmit opportunities pull the next packet from the network layer at the moment of access,
//!   so a forwarding layer can choose what to send then (`net::forwarding`).
//!
//! - The data rate of a unicast frame is the one the network layer gives with the packet, from
//!   the radio's per-neighbour rate table (one rate for every neighbour unless static rate
//!   control or the scenario fills it otherwise), or, with adaptive rate control, the one the
//!   radio's manager picks for each attempt ([`MacIo::attempt_rate`]; retries may go slower),
//!   told how each attempt ended ([`MacIo::rate_feedback`]). An ACK (CTS) carries the SNR its
//!   sender measured of the frame it answers, for the manager. Control responses (ACK, CTS) and
//!   broadcasts keep the timing's rates.
//!
//! - 802.11n radios that aggregate send A-MPDUs under an implicit Block Ack agreement with
//!   each neighbour and reorder what they receive (`dcf/aggregate.rs`).
//!
//! Not modelled: fragmentation, the NAV reset after an unanswered RTS.

mod aggregate;

use super::block_ack::AggregationParams;
pub use super::config::MacProfile;
use super::frame::{Frame, FrameKind, Mpdu, Msdu, RadioId, UnitId, NO_UNIT};
use super::rate::RateFeedback;
use super::timing::Timing;
use crate::sim::{Packet, PacketId, Rng, Time};
pub use aggregate::AggregationStats;

/// The MAC's three timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacTimer {
    /// The moment the backoff would end (re-evaluated when it fires).
    Access,
    /// CTS or ACK timeout.
    Timeout,
    /// Sending a response (ACK, CTS, or data after CTS) SIFS after a reception.
    Response,
}

/// What the DCF needs from the world around it.
pub trait MacIo {
    /// Current time.
    fn now(&self) -> Time;
    /// The radio's random stream.
    fn rng(&mut self) -> &mut Rng;
    /// A backoff of `slots` slots was drawn (for the frame trace).
    fn backoff_drawn(&mut self, _slots: u32) {}
    /// Physical carrier sense.
    fn phy_busy(&self) -> bool;
    /// When physical carrier sense last turned idle.
    fn phy_idle_since(&self) -> Time;
    /// Whether the PHY is locked onto a frame (a response may be arriving).
    fn receiving(&self) -> bool {
        false
    }
    /// Puts a frame on the air now.
    fn transmit(&mut self, frame: Frame);
    /// Arms or cancels a timer.
    fn set_timer(&mut self, which: MacTimer, at: Option<Time>);
    /// Whether the network layer has a packet for this radio.
    fn has_pending(&self) -> bool;
    /// Transmit opportunity: the network layer hands over what to send.
    fn pull(&mut self) -> Option<Pulled>;
    /// For an A-MPDU: the next packet for node `next` (the first in the interface queue whose next
    /// hop it is, else one the forwarding layer picks for it), taken only if `fits` accepts its
    /// size (`None`: none that fits, or nothing the radio may aggregate).
    fn pull_for(
        &mut self,
        _next: crate::sim::NodeId,
        _fits: &dyn Fn(u32) -> bool,
    ) -> Option<Pulled> {
        None
    }
    /// Puts an A-MPDU (or a lone MPDU that is an A-MSDU) on the air: `frame` with the MPDUs it
    /// carries and the MSDUs of its A-MSDUs beyond each MPDU's first, in MPDU order.
    fn transmit_ampdu(&mut self, frame: Frame, _mpdus: &[Mpdu], _msdus: &[Msdu]) {
        self.transmit(frame);
    }
    /// The MPDUs of the A-MPDU whose reception is being reported, into `mpdus`, and their
    /// A-MSDUs' further MSDUs into `msdus`; the bitmap of those decoded (bit i: MPDU i).
    fn received_mpdus(&self, mpdus: &mut Vec<Mpdu>, msdus: &mut Vec<Msdu>) -> u64 {
        mpdus.clear();
        msdus.clear();
        0
    }
    /// An aggregating radio sent `mpdus` MPDUs to `next` in one PPDU (an A-MPDU if more than
    /// one), `retried` of them retransmissions: for the per-link counts.
    fn mpdus_sent(&mut self, _next: RadioId, _mpdus: u32, _retried: u32) {}
    /// An aggregating radio built an A-MSDU of `msdus` packets for `next`.
    fn amsdu_built(&mut self, _next: RadioId, _msdus: u32) {}
    /// A packet under a Block Ack agreement was given up at the end of its lifetime;
    /// `handed_over` says its next hop has it.
    fn expired(&mut self, _sent: Sent, _handed_over: bool) {}
    /// A data frame for this radio (or a broadcast) was received; a duplicate
    /// (`frame.duplicate`) is handed over too, for the network layer to ignore.
    fn deliver(&mut self, frame: &Frame);
    /// One unicast attempt to `next` (data or RTS) ended: answered (`ok`) or timed out. Feeds
    /// the per-neighbour link statistics estimators read.
    fn attempt(&mut self, next: RadioId, ok: bool);
    /// The data rate of the next attempt (data frame, or RTS before it) to `next`: the adaptive
    /// rate control's choice, else `table` (the packet's rate from the rate table).
    fn attempt_rate(&mut self, _next: RadioId, table: u64) -> u64 {
        table
    }
    /// What adaptive rate control learns of `next` (nothing without it).
    fn rate_feedback(&mut self, _next: RadioId, _feedback: RateFeedback) {}
    /// How many data attempts the packet to `next` gets, where the rate control decides that
    /// instead of the retry limit (Minstrel's retry chain); `None` otherwise.
    fn attempts_allowed(&mut self, _next: RadioId) -> Option<u32> {
        None
    }
    /// The SNR (linear) of the frame whose reception is being reported ([`Dcf::on_rx`]): what an
    /// ACK or CTS reports back to the frame's sender.
    fn rx_snr(&self) -> f64 {
        0.0
    }
    /// A data frame addressed to another radio was decoded here (promiscuous overhearing, the
    /// hook COPE-style coding and queue-size piggybacking use).
    fn overheard(&mut self, frame: &Frame);
    /// The fate of a pulled packet (and its unit): acknowledged/broadcast (`ok`) or given up;
    /// `handed_over` says the next hop did receive it (its ACK was lost).
    fn tx_status(&mut self, sent: Sent, ok: bool, handed_over: bool);
}

/// What the network layer hands the MAC at a transmit opportunity, fixed from then on.
#[derive(Debug, Clone, Copy)]
pub struct Pulled {
    /// The packet's id (the network layer's; reported back in [`MacIo::tx_status`]).
    pub id: PacketId,
    /// A copy of the packet: what the frame carries; its size sets the frame's bytes.
    pub packet: Packet,
    /// The radio it is addressed to (`None`: broadcast).
    pub next_hop: Option<RadioId>,
    /// Data rate of the frame, bit/s, from the per-neighbour rate table (`None`: the MAC's own
    /// data rate). Broadcasts go at the basic rate whatever it says.
    pub rate: Option<u64>,
    /// The natives coded into the frame beside the packet ([`NO_UNIT`]: none).
    pub unit: UnitId,
    /// From the interface queue, a packet an aggregating radio may put in an A-MPDU.
    pub aggregable: bool,
    /// When it entered the interface queue, where the queue keeps it (a lifetime).
    pub queued_at: Option<Time>,
}

impl Pulled {
    /// A packet alone, at the MAC's own rate.
    pub fn packet(id: PacketId, packet: Packet, next_hop: Option<RadioId>) -> Self {
        Pulled {
            id,
            packet,
            next_hop,
            rate: None,
            unit: NO_UNIT,
            aggregable: false,
            queued_at: None,
        }
    }
}

/// A pulled packet whose fate the MAC reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    /// The packet.
    pub id: PacketId,
    /// The radio it was addressed to (`None`: broadcast).
    pub next_hop: Option<RadioId>,
    /// Its unit of coded natives ([`NO_UNIT`]: none).
    pub unit: UnitId,
}

/// Static parameters of a DCF.
#[derive(Debug, Clone, Copy)]
pub struct DcfParams {
    /// Timing and rates.
    pub timing: Timing,
    /// RTS/CTS before unicast data.
    pub rts_cts: bool,
    /// Retry limit without RTS/CTS (and of RTS).
    pub short_retry_limit: u32,
    /// Retry limit of data after RTS/CTS.
    pub long_retry_limit: u32,
    /// MAC bytes added to a network packet.
    pub mac_overhead: u32,
    /// Whose DCF rules.
    pub profile: MacProfile,
    /// Adaptive rate control picks each attempt's rate ([`MacIo::attempt_rate`]); without it the
    /// DCF skips the rate hooks altogether.
    pub rate_control: bool,
    /// 802.11n A-MPDU aggregation under Block Ack (`None`: one frame at a time).
    pub aggregation: Option<AggregationParams>,
    /// How long a packet may wait from entering the interface queue; under aggregation it also
    /// ends the MPDUs the MAC holds (`None`: for ever).
    pub lifetime: Option<Time>,
}

/// Counters of one DCF.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DcfStats {
    /// Data frames transmitted (including retries).
    pub data_tx: u64,
    /// Retransmitted data or RTS frames.
    pub retries: u64,
    /// Packets given up after the retry limit.
    pub retry_drops: u64,
    /// ACKs received for our data.
    pub acked: u64,
    /// RTS frames sent.
    pub rts_tx: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    WaitCts,
    WaitAck,
    WaitBlockAck,
}

#[derive(Debug, Clone, Copy)]
struct Attempt {
    id: PacketId,
    packet: Packet,
    next_hop: Option<RadioId>,
    /// Data rate of the frame (unicast), bit/s.
    rate: u64,
    unit: UnitId,
    short_retries: u32,
    long_retries: u32,
    handed_over: bool,
}

impl Attempt {
    /// A pulled packet's first attempt (at `data_rate` unless the rate table gives one).
    fn of(p: Pulled, data_rate: u64) -> Attempt {
        Attempt {
            id: p.id,
            packet: p.packet,
            next_hop: p.next_hop,
            rate: p.rate.unwrap_or(data_rate),
            unit: p.unit,
            short_retries: 0,
            long_retries: 0,
            handed_over: false,
        }
    }

    fn sent(&self) -> Sent {
        Sent {
            id: self.id,
            next_hop: self.next_hop,
            unit: self.unit,
        }
    }
}

/// The DCF of one radio.
#[derive(Debug, Clone)]
pub struct Dcf {
    me: RadioId,
    p: DcfParams,
    cw: u32,
    /// The station's retry count (SSRC, IEEE 802.11-2016 10.3.3; QSRC in 802.11-2020
    /// 10.23.2.2, as ns-3's `Txop::UpdateFailedCw` keeps it): failures since the last
    /// acknowledged frame, across packets. It sets the window; the per-packet counts in
    /// [`Attempt`] decide when a packet is given up.
    station_retries: u32,
    backoff: Option<u32>,
    nav_until: Time,
    eifs: bool,
    /// Start of backoff counting in the current idle period (idle start + IFS); `None` while
    /// the medium is busy.
    count_from: Option<Time>,
    state: State,
    current: Option<Attempt>,
    response: Option<Frame>,
    /// The response timeout expired while the PHY was receiving a frame: the attempt is decided
    /// when that frame ends (it may be the response).
    timeout_waits: bool,
    /// Immediate access (10.3.4.2): a frame queued into an idle medium with no backoff pending
    /// goes no earlier than DIFS after it was queued.
    ready_from: Option<Time>,
    /// Aggregation's state (`None`: the radio does not aggregate).
    ba: Option<Box<aggregate::BlockAck>>,
    /// Counters.
    pub stats: DcfStats,
}

impl Dcf {
    /// A DCF for radio `me`.
    pub fn new(me: RadioId, p: DcfParams) -> Self {
        Dcf {
            me,
            cw: p.timing.cw_min,
            station_retries: 0,
            p,
            backoff: None,
            nav_until: 0,
            eifs: false,
            count_from: Some(p.timing.difs),
            state: State::Idle,
            current: None,
            response: None,
            timeout_waits: false,
            ready_from: None,
            ba: p
                .aggregation
                .map(|a| Box::new(aggregate::BlockAck::new(a, p.lifetime))),
            stats: DcfStats::default(),
        }
    }

    /// Whether an aggregating radio's exchange holds MPDUs (or owes a BlockAckReq).
    fn exchange_busy(&self) -> bool {
        self.ba.as_deref().is_some_and(|b| b.busy())
    }

    /// Rate of this radio's data frames.
    pub fn data_rate(&self) -> u64 {
        self.p.timing.data_rate
    }

    /// The DCF timing of this radio.
    pub fn timing(&self) -> &crate::mac::timing::Timing {
        &self.p.timing
    }

    /// Bytes the MAC adds to a network packet.
    pub fn mac_overhead(&self) -> u32 {
        self.p.mac_overhead
    }

    /// The radio this DCF serves.
    pub fn radio(&self) -> RadioId {
        self.me
    }

    fn ifs(&self) -> Time {
        if self.eifs {
            self.p.timing.eifs
        } else {
            self.p.timing.difs
        }
    }

    fn medium_busy(&self, io: &impl MacIo) -> bool {
        io.phy_busy() || io.now() < self.nav_until
    }

    /// The PHY went from idle to busy: freeze the backoff.
    pub fn on_phy_busy(&mut self, io: &mut impl MacIo) {
        let now = io.now();
        if let (Some(from), Some(bo)) = (self.count_from, self.backoff) {
            if now > from {
                let done = ((now - from) / self.p.timing.slot) as u32;
                self.backoff = Some(bo.saturating_sub(done));
            }
        }
        self.count_from = None;
        self.ready_from = None;
        io.set_timer(MacTimer::Access, None);
    }

    /// The PHY went from busy to idle: an idle period starts (after the NAV, if it runs longer).
    pub fn on_phy_idle(&mut self, io: &mut impl MacIo) {
        let start = io.phy_idle_since().max(self.nav_until);
        self.count_from = Some(start.saturating_add(self.ifs()));
        self.schedule_access(io);
    }

    /// The network layer has a packet for this radio.
    pub fn on_frame_ready(&mut self, io: &mut impl MacIo) {
        if self.current.is_some() || self.exchange_busy() || self.state != State::Idle {
            return;
        }
        if self.backoff.is_none() {
            if self.medium_busy(io) {
                // A frame that finds the medium busy defers with a random backoff.
                self.draw_backoff(io);
            } else if self.p.profile == MacProfile::Standard && self.ready_from.is_none() {
                // Idle medium, no backoff: it may go once the medium has stayed idle for DIFS
                // from now (ns-3 reads 10.3.4.2 so, `ChannelAccessManager::
                // NeedBackoffUponAccess`), not at once when it has been idle for longer.
                self.ready_from = Some(io.now() + self.p.timing.difs);
            }
        }
        self.schedule_access(io);
    }

    fn draw_backoff(&mut self, io: &mut impl MacIo) {
        let slots = io.rng().next_u64() % (self.cw as u64 + 1);
        self.backoff = Some(slots as u32);
        io.backoff_drawn(slots as u32);
        // A backoff drawn during an idle period (after an ACK timeout) counts from now, not
        // from the start of the idle period.
        let now = io.now();
        if let Some(from) = self.count_from.as_mut() {
            *from = (*from).max(now);
        }
    }

    fn schedule_access(&mut self, io: &mut impl MacIo) {
        if self.state != State::Idle || self.response.is_some() {
            return;
        }
        if self.current.is_none() && !self.exchange_busy() && !io.has_pending() {
            return;
        }
        // Only physical carrier sense ends an idle period early; the NAV is already part of
        // `count_from` (the idle period starts when the NAV expires).
        let Some(from) = self.count_from else { return };
        if io.phy_busy() {
            return;
        }
        let grant = self.grant(from);
        io.set_timer(MacTimer::Access, Some(grant.max(io.now())));
    }

    /// When the backoff counted from `from` ends (no earlier than immediate access allows).
    fn grant(&self, from: Time) -> Time {
        let end = from + self.backoff.unwrap_or(0) as Time * self.p.timing.slot;
        self.ready_from.map_or(end, |r| end.max(r))
    }

    /// A MAC timer expired.
    pub fn on_timer(&mut self, which: MacTimer, io: &mut impl MacIo) {
        match which {
            MacTimer::Access => self.on_access(io),
            MacTimer::Timeout => self.on_timeout(io),
            MacTimer::Response => {
                if let Some(frame) = self.response.take() {
                    if self.ba.is_some() && self.send_protected(frame, io) {
                        return;
                    }
                    let ack = frame.kind == FrameKind::Ack;
                    self.send(frame, io);
                    // GloMoSim: after its ACK a station backs off before the frame it holds.
                    if ack
                        && self.p.profile == MacProfile::Glomosim
                        && self.backoff.is_none()
                        && (self.current.is_some() || io.has_pending())
                    {
                        self.draw_backoff(io);
                    }
                }
            }
        }
    }

    fn on_access(&mut self, io: &mut impl MacIo) {
        if self.state != State::Idle || self.response.is_some() || io.phy_busy() {
            return;
        }
        let Some(from) = self.count_from else { return };
        let now = io.now();
        let grant = self.grant(from);
        if now < grant {
            io.set_timer(MacTimer::Access, Some(grant));
            return;
        }
        self.backoff = None;
        self.ready_from = None;
        if self.ba.is_some() && self.access_aggregated(io) {
            return;
        }
        if self.current.is_none() {
            let Some(p) = io.pull() else {
                return;
            };
            self.current = Some(Attempt::of(p, self.p.timing.data_rate));
        }
        if self.p.rate_control {
            if let Some(a) = self.current.as_mut() {
                if let Some(dst) = a.next_hop {
                    a.rate = io.attempt_rate(dst, a.rate);
                }
            }
        }
        let a = self.current.expect("attempt");
        let t = self.p.timing;
        match a.next_hop {
            None => {
                let frame = self.data_frame(&a, t.basic_rate, 0);
                self.send(frame, io);
            }
            Some(dst) if self.p.rts_cts => {
                let data_air = t.airtime(a.packet.size + self.p.mac_overhead, a.rate);
                let nav = 3 * t.sifs + t.cts_time() + data_air + t.ack_time_for(a.rate);
                let rts = Frame {
                    nav,
                    bytes: super::timing::RTS_BYTES,
                    rate_bps: t.basic_rate,
                    airtime: t.rts_time(),
                    retry: a.short_retries > 0,
                    ..Frame::new(FrameKind::Rts, self.me, Some(dst))
                };
                self.stats.rts_tx += 1;
                self.send(rts, io);
            }
            Some(_) => {
                let frame = self.data_frame(&a, a.rate, t.sifs + t.ack_time_for(a.rate));
                self.send(frame, io);
            }
        }
    }

    #[inline]
    fn data_frame(&self, a: &Attempt, rate: u64, nav: Time) -> Frame {
        let bytes = a.packet.size + self.p.mac_overhead;
        Frame {
            nav,
            bytes,
            rate_bps: rate,
            airtime: self.p.timing.airtime(bytes, rate),
            packet: Some((a.id, a.packet)),
            unit: a.unit,
            duplicate: a.handed_over,
            retry: a.short_retries + a.long_retries > 0,
            ..Frame::new(FrameKind::Data, self.me, a.next_hop)
        }
    }

    /// Transmits `frame` now and sets up what follows it.
    fn send(&mut self, frame: Frame, io: &mut impl MacIo) {
        // Our own transmission makes the medium busy: freeze as for any busy period (the radio
        // reports the end of it through `on_phy_idle`).
        self.on_phy_busy(io);
        let now = io.now();
        let t = self.p.timing;
        let end = now.saturating_add(frame.airtime);
        match (frame.kind, frame.dst) {
            (FrameKind::Data, None) => {
                // Broadcast: done once it is on the air.
                let a = self.current.take().expect("attempt");
                self.stats.data_tx += 1;
                io.transmit(frame);
                io.tx_status(a.sent(), true, false);
                // 10.3.3: a group-addressed transmission resets the station's count.
                self.cw = t.cw_min;
                self.station_retries = 0;
                self.draw_backoff(io);
                return;
            }
            (FrameKind::Data, Some(_)) if frame.src == self.me && self.current.is_some() => {
                self.stats.data_tx += 1;
                self.state = State::WaitAck;
                let wait = match self.p.profile {
                    MacProfile::Standard => t.response_timeout(),
                    _ => t.sifs + t.ack_time_for(frame.rate_bps) + t.slot,
                };
                io.set_timer(MacTimer::Timeout, Some(end + wait));
            }
            (FrameKind::Rts, _) => {
                self.state = State::WaitCts;
                let wait = match self.p.profile {
                    MacProfile::Standard => t.response_timeout(),
                    _ => t.sifs + t.cts_time() + t.slot,
                };
                io.set_timer(MacTimer::Timeout, Some(end + wait));
            }
            _ => {}
        }
        io.transmit(frame);
    }

    /// A reception ended: `ok` tells whether the frame was decoded.
    pub fn on_rx(&mut self, frame: &Frame, ok: bool, io: &mut impl MacIo) {
        let now = io.now();
        if self.timeout_waits {
            // The frame that held the timeout back has ended: unless it is the response, the
            // attempt has failed.
            self.timeout_waits = false;
            let answer = ok
                && frame.dst == Some(self.me)
                && matches!(
                    (self.state, frame.kind),
                    (State::WaitAck, FrameKind::Ack)
                        | (State::WaitCts, FrameKind::Cts)
                        | (State::WaitBlockAck, FrameKind::BlockAck)
                );
            if !answer {
                self.attempt_failed(io);
            }
        }
        if !ok {
            self.eifs = true;
            return;
        }
        self.eifs = false;
        let t = self.p.timing;
        if frame.dst == Some(self.me) && self.ba.is_some() && self.rx_aggregated(frame, io) {
            return;
        }
        match frame.dst {
            Some(d) if d == self.me => match frame.kind {
                FrameKind::Data => {
                    let ack = Frame {
                        bytes: super::timing::ACK_BYTES,
                        rate_bps: t.ack_rate_for(frame.rate_bps),
                        airtime: t.ack_time_for(frame.rate_bps),
                        continues: true,
                        snr: io.rx_snr() as f32,
                        ..Frame::new(FrameKind::Ack, self.me, Some(frame.src))
                    };
                    self.respond(ack, io);
                    io.deliver(frame);
                }
                // A CTS only if the responder's own NAV is clear (§10.3.2.7).
                FrameKind::Rts if now >= self.nav_until && self.response.is_none() => {
                    let cts = Frame {
                        nav: frame.nav.saturating_sub(t.sifs + t.cts_time()),
                        bytes: super::timing::CTS_BYTES,
                        rate_bps: t.basic_rate,
                        airtime: t.cts_time(),
                        continues: true,
                        snr: io.rx_snr() as f32,
                        ..Frame::new(FrameKind::Cts, self.me, Some(frame.src))
                    };
                    self.respond(cts, io);
                }
                FrameKind::Cts if self.state == State::WaitCts => {
                    io.attempt(frame.src, true);
                    if self.p.rate_control {
                        let snr = frame.snr.into();
                        io.rate_feedback(frame.src, RateFeedback::RtsAnswered { snr });
                    }
                    io.set_timer(MacTimer::Timeout, None);
                    self.state = State::Idle;
                    let a = self.current.expect("attempt awaiting CTS");
                    let mut data = self.data_frame(&a, a.rate, t.sifs + t.ack_time_for(a.rate));
                    data.continues = true;
                    self.respond(data, io);
                }
                FrameKind::Ack if self.state == State::WaitAck => {
                    if !self.p.rts_cts {
                        io.attempt(frame.src, true);
                    }
                    io.set_timer(MacTimer::Timeout, None);
                    self.state = State::Idle;
                    let a = self.current.take().expect("attempt awaiting ACK");
                    if self.p.rate_control {
                        let (rate, snr) = (a.rate, frame.snr.into());
                        io.rate_feedback(frame.src, RateFeedback::Acked { rate, snr });
                    }
                    self.stats.acked += 1;
                    io.tx_status(a.sent(), true, true);
                    self.cw = t.cw_min;
                    self.station_retries = 0;
                    self.draw_backoff(io);
                }
                _ => {}
            },
            None => {
                if frame.kind == FrameKind::Data {
                    io.deliver(frame);
                }
            }
            Some(_) => {
                // Virtual carrier sense: honour the reservation of others' exchanges.
                self.nav_until = self.nav_until.max(now.saturating_add(frame.nav));
                if frame.kind == FrameKind::Data {
                    io.overheard(frame);
                }
            }
        }
    }

    fn respond(&mut self, frame: Frame, io: &mut impl MacIo) {
        self.response = Some(frame);
        io.set_timer(
            MacTimer::Response,
            Some(io.now().saturating_add(self.p.timing.sifs)),
        );
    }

    /// The receiver of our data frame has it (its reception succeeded); retransmissions from now
    /// on are duplicates.
    pub fn mark_handed_over(&mut self) {
        if let Some(a) = self.current.as_mut() {
            a.handed_over = true;
        }
    }

    fn on_timeout(&mut self, io: &mut impl MacIo) {
        if self.state == State::Idle {
            return;
        }
        if self.p.profile == MacProfile::Standard && io.receiving() {
            // A frame is arriving (PHY-RXSTART within the timeout, 10.3.2.9): it may be the
            // response, so the attempt is decided when it ends.
            self.timeout_waits = true;
            return;
        }
        self.attempt_failed(io);
    }

    /// No response to the data frame or RTS: retry with a doubled window or give up.
    fn attempt_failed(&mut self, io: &mut impl MacIo) {
        let waiting_cts = self.state == State::WaitCts;
        self.state = State::Idle;
        let t = self.p.timing;
        if self.exchange_busy() {
            self.exchange_failed(io);
            self.widen_window(io);
            return;
        }
        let long = !waiting_cts && self.p.rts_cts;
        let a = self.current.as_mut().expect("attempt awaiting a response");
        if let Some(next) = a.next_hop {
            io.attempt(next, false);
            if !waiting_cts && self.p.rate_control {
                io.rate_feedback(next, RateFeedback::Lost { rate: a.rate });
            }
        }
        let (count, limit) = if long {
            a.long_retries += 1;
            (a.long_retries, self.p.long_retry_limit)
        } else {
            a.short_retries += 1;
            (a.short_retries, self.p.short_retry_limit)
        };
        // Minstrel ends a packet's data attempts with its retry chain, not at the limit.
        let chain = match (waiting_cts, a.next_hop) {
            (false, Some(next)) if self.p.rate_control => io.attempts_allowed(next),
            _ => None,
        };
        let given_up = match chain {
            Some(attempts) => count >= attempts,
            None => count > limit,
        };
        if given_up {
            let a = self.current.take().expect("attempt");
            if let (Some(next), true) = (a.next_hop, self.p.rate_control) {
                io.rate_feedback(next, RateFeedback::GivenUp);
            }
            self.stats.retry_drops += 1;
            io.tx_status(a.sent(), false, a.handed_over);
        } else {
            self.stats.retries += 1;
        }
        if self.p.profile != MacProfile::Standard {
            // ns-2: the packet's window, back to CWmin when it is given up; the backoff counts
            // from the timeout.
            self.cw = if given_up {
                t.cw_min
            } else {
                (2 * self.cw + 1).min(t.cw_max)
            };
            self.draw_backoff(io);
            self.schedule_access(io);
            return;
        }
        self.widen_window(io);
    }

    /// After a failed attempt (standard profile): the station's count and the window it sets,
    /// a backoff drawn, counted from DIFS after the timeout.
    fn widen_window(&mut self, io: &mut impl MacIo) {
        let t = self.p.timing;
        // The window follows the station's count, not the packet's: giving a packet up does not
        // reset it (the next packet may start with a large window); the count starts again only
        // once it has reached the retry limit (in attempts, ns-3's FrameRetryLimit) or a frame
        // is acknowledged.
        if self.station_retries < self.p.short_retry_limit + 1 {
            self.station_retries += 1;
            let factor = 1u64 << self.station_retries.min(20);
            self.cw = (factor * (u64::from(t.cw_min) + 1) - 1).min(u64::from(t.cw_max)) as u32;
        } else {
            self.station_retries = 0;
            self.cw = t.cw_min;
        }
        self.draw_backoff(io);
        // The backoff procedure starts at the timeout: the medium must first stay idle for DIFS
        // (the timeout counts as busy, as in ns-3's `ChannelAccessManager`).
        let now = io.now();
        if let Some(from) = self.count_from.as_mut() {
            *from = (*from).max(now + t.difs);
        }
        self.schedule_access(io);
    }

    /// The radio fails: forget everything; the packets being tried go to `out`, each with
    /// whether the next hop has it already (if not, the caller drops it; its unit is released
    /// either way), and so do the packets held for reordering (the caller drops them).
    pub fn abandon(&mut self, out: &mut Vec<(Sent, bool)>) {
        self.state = State::Idle;
        self.response = None;
        self.backoff = None;
        self.timeout_waits = false;
        self.ready_from = None;
        out.extend(self.current.take().map(|a| (a.sent(), a.handed_over)));
        self.abandon_aggregated(out);
    }

    /// Packets the MAC holds that the network counts as in flight: the one it is trying to send
    /// if the next hop does not have it yet, those of an aggregating radio's exchange likewise,
    /// and those it holds for reordering.
    pub fn packets_held(&self) -> usize {
        usize::from(self.current.is_some_and(|a| !a.handed_over))
            + self.ba.as_deref().map_or(0, |b| b.held())
    }
}

#[cfg(test)]
mod aggregate_tests;
#[cfg(test)]
mod tests;
