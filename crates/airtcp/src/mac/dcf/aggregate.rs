//! The DCF of an 802.11n radio that aggregates (`radio.aggregation`): A-MPDUs under an implicit
//! HT-immediate Block Ack agreement with every neighbour (IEEE 802.11-2016 §10.24.7, §10.12),
//! following ns-3 3.44's `HtFrameExchangeManager` where the standard leaves a choice.
//!
//! Originator, per transmit opportunity (one frame exchange: the TXOP limit of AC_BE is 0):
//! - The exchange serves one recipient, the next hop of the packet at the head of the interface
//!   queue. Its MPDUs not yet acknowledged go first, in sequence order, then packets for the same
//!   next hop taken from the queue in queue order (ns-3's queue per receiver), while the A-MPDU
//!   stays within 64 MPDUs, the window of 64 from the oldest unacknowledged one,
//!   `max_ampdu_bytes` and 5.484 ms of airtime. An MPDU gets the recipient's next sequence number
//!   when it is first sent (as ns-3 numbers an MPDU when it first leaves the queue); a packet
//!   that would not fit stays in the queue.
//! - Two MPDUs or more go as an A-MPDU answered by a compressed Block Ack; a lone MPDU goes as a
//!   plain QoS data frame answered by an ACK (ns-3 does the same with no other MPDU to send).
//! - The Block Ack's bitmap acknowledges MPDUs one by one; the others stay for the next A-MPDU.
//!   Without a Block Ack, a BlockAckReq goes first at the next opportunity (ns-3's
//!   `UseExplicitBarAfterMissedBlockAck`), and its Block Ack says what arrived.
//! - Under an agreement a failed transmission does not count against an MPDU's retry limit
//!   (802.11-2020 §10.23.2.12.1; ns-3's `IncrementRetryCountUnderBa` false): an MPDU leaves when
//!   acknowledged or when its lifetime (`radio.msdu_lifetime`, counted from when it was queued)
//!   runs out. An MPDU given up moves the window: the recipient is told by a BlockAckReq before
//!   the next data (§10.24.7.5; ns-3's `BlockAckManager::NotifyDiscardedMpdu`).
//! - The contention window doubles on a missed Block Ack or ACK and resets on any answer, as
//!   for single frames.
//!
//! Recipient: every data frame of an agreement (sequence number set) goes through the
//! reordering buffer ([`Reorder`]); the network gets the packets in order. An A-MPDU of which at
//! least one MPDU was decoded is answered by a Block Ack after SIFS; a BlockAckReq too.
//!
//! A-MSDUs (`max_amsdu_bytes` > 0): each new MPDU first takes further packets for the same next
//! hop into an A-MSDU while it fits (ns-3's `MsduAggregator::GetNextAmsdu`); the MPDU keeps them
//! until its fate, reported for each of its packets.
//!
//! A packet a forwarding layer picks itself (`pull`) goes under the agreement if the layer says
//! its packets may (`LayerNeeds::aggregates`, which then fills the A-MPDU through `pull_for`);
//! otherwise, and for broadcasts and coded frames, frames go one by one outside it, as before.

use super::{Attempt, Dcf, MacIo, MacProfile, MacTimer, Pulled, Sent, State};
use crate::mac::block_ack::{
    in_window, seq_add, seq_distance, AggregationParams, Reorder, BLOCK_ACK_BYTES,
    BLOCK_ACK_REQ_BYTES, LLC_SNAP_BYTES, PPDU_MAX_TIME, WINDOW,
};
use crate::mac::frame::{Frame, FrameKind, Mpdu, Msdu, RadioId, NO_SEQ, NO_UNIT};
use crate::mac::rate::RateFeedback;
use crate::mac::timing::Timing;
use crate::sim::{NodeId, Time};

/// One MPDU the originator holds until it is acknowledged or given up.
#[derive(Debug, Clone)]
struct Held {
    mpdu: Mpdu,
    /// As an A-MSDU, the MSDUs it carries beyond `mpdu`'s packet (empty: a plain MPDU). Their
    /// fate is the MPDU's.
    extra: Vec<Msdu>,
    /// When it entered the interface queue (`None`: it never expires).
    queued_at: Option<Time>,
    /// The recipient has decoded it.
    handed_over: bool,
    /// Carried by the PPDU on the air now (or, with RTS/CTS, waiting for the CTS to go).
    in_flight: bool,
    /// Given its sequence number (when first chosen for a PPDU).
    numbered: bool,
    /// Sent at least once.
    sent_once: bool,
}

/// What the exchange in progress put on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnAir {
    /// Nothing.
    None,
    /// An A-MPDU.
    Ampdu,
    /// One MPDU, answered by an ACK.
    Single,
    /// A BlockAckReq.
    Request,
    /// An RTS before the exchange's data (`Exchange::protected`).
    Rts,
}

/// The exchange with one recipient: the MPDUs it has not acknowledged.
#[derive(Debug, Clone)]
struct Exchange {
    dst: RadioId,
    /// Its node, to take its packets from the interface queue.
    next_node: NodeId,
    /// The rate the rate table gives for it.
    table_rate: u64,
    /// The rate of the PPDU on the air.
    rate: u64,
    mpdus: Vec<Held>,
    on_air: OnAir,
    /// With RTS/CTS: the data frame (a lone MPDU or an A-MPDU, its MPDUs in `BlockAck::mpdus`)
    /// that goes SIFS after the CTS.
    protected: Option<Frame>,
}

/// The originator's record of one recipient.
#[derive(Debug, Clone, Copy)]
struct Recipient {
    radio: RadioId,
    next_seq: u16,
    /// A BlockAckReq must go before the next data: MPDUs were given up.
    request_due: bool,
}

/// Everything an aggregating DCF keeps beyond a plain one.
#[derive(Debug, Clone)]
pub(super) struct BlockAck {
    params: AggregationParams,
    lifetime: Option<Time>,
    recipients: Vec<Recipient>,
    exchange: Option<Exchange>,
    /// Per originator, the reordering buffer of what it sent here.
    reorder: Vec<(RadioId, Reorder<Arrived>)>,
    /// Scratch: the MPDUs of the A-MPDU being sent, or of the one received.
    mpdus: Vec<Mpdu>,
    /// Scratch: their A-MSDUs' further MSDUs, in MPDU order.
    msdus: Vec<Msdu>,
    /// Emptied MSDU lists, their capacity kept for the next A-MSDU (sent or received).
    free_lists: Vec<Vec<Msdu>>,
    /// The vector of the exchange that ended, kept for the next one (no allocation per
    /// exchange).
    spare: Vec<Held>,
    /// Counters.
    pub(super) stats: AggregationStats,
}

/// An MPDU the recipient decoded, held for its turn: the frame with its packet, and as an A-MSDU
/// its further MSDUs.
#[derive(Debug, Clone)]
pub(super) struct Arrived {
    frame: Frame,
    extra: Vec<Msdu>,
}

/// What aggregation did, per radio.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AggregationStats {
    /// A-MPDUs sent (retransmissions included).
    pub ampdus: u64,
    /// MPDUs they carried.
    pub ampdu_mpdus: u64,
    /// MPDUs a Block Ack reported missing (each time).
    pub mpdus_missed: u64,
    /// Block Acks not received in time.
    pub block_ack_timeouts: u64,
    /// BlockAckReq frames sent.
    pub requests: u64,
    /// MPDUs given up at the end of their lifetime.
    pub expired: u64,
    /// A-MSDUs built (each counted once, however often sent).
    pub amsdus: u64,
    /// MSDUs they carried.
    pub amsdu_msdus: u64,
}

impl BlockAck {
    pub(super) fn new(params: AggregationParams, lifetime: Option<Time>) -> Self {
        BlockAck {
            params,
            lifetime,
            recipients: Vec::new(),
            exchange: None,
            reorder: Vec::new(),
            mpdus: Vec::new(),
            msdus: Vec::new(),
            free_lists: Vec::new(),
            spare: Vec::new(),
            stats: AggregationStats::default(),
        }
    }

    fn recipient(&mut self, radio: RadioId) -> &mut Recipient {
        let i = match self.recipients.iter().position(|r| r.radio == radio) {
            Some(i) => i,
            None => {
                self.recipients.push(Recipient {
                    radio,
                    next_seq: 0,
                    request_due: false,
                });
                self.recipients.len() - 1
            }
        };
        &mut self.recipients[i]
    }

    /// The exchange goes on while it holds MPDUs; otherwise it ends, its vector kept.
    fn keep_or_end(&mut self, e: Exchange) {
        if e.mpdus.is_empty() {
            self.spare = e.mpdus;
        } else {
            self.exchange = Some(e);
        }
    }

    /// Whether an exchange holds MPDUs or a BlockAckReq is due.
    pub(super) fn busy(&self) -> bool {
        self.exchange.is_some()
    }

    /// Packets held that their next hop does not have yet, and packets held for reordering.
    pub(super) fn held(&self) -> usize {
        let sending = self.exchange.as_ref().map_or(0, |e| {
            let waiting = e.mpdus.iter().filter(|h| !h.handed_over);
            waiting.map(|h| 1 + h.extra.len()).sum()
        });
        let mut reordering = 0;
        for (_, r) in &self.reorder {
            r.for_each(&mut |a: &Arrived| reordering += 1 + a.extra.len());
        }
        sending + reordering
    }
}

impl Dcf {
    /// A transmit opportunity of an aggregating radio; false if it is not one for the agreement
    /// (nothing to send under it: the caller goes on as a plain DCF with `self.current`).
    // Out of line, as are the other entry points the plain DCF calls (behind a check of
    // `self.ba`): inlined, they grew the medium's handlers the DCF is inlined into, and LLVM then
    // left the plain path's own helpers (`data_frame`, `ack_time_for`) out of line and copied
    // frames through memcpy (802.11b 3-hop chain: +12 M instructions, 5.7 %).
    #[inline(never)]
    pub(super) fn access_aggregated(&mut self, io: &mut impl MacIo) -> bool {
        let Some(ba) = self.ba.as_deref_mut() else {
            return false;
        };
        if ba.exchange.is_none() {
            if self.current.is_some() {
                return false;
            }
            let Some(p) = io.pull() else { return true };
            match (p.next_hop, p.aggregable) {
                (Some(dst), true) => {
                    let rate = p.rate.unwrap_or(self.p.timing.data_rate);
                    let mut e = Exchange {
                        dst,
                        next_node: p.packet.next_hop,
                        table_rate: rate,
                        rate,
                        // The last exchange's vector, its capacity kept.
                        mpdus: std::mem::take(&mut ba.spare),
                        on_air: OnAir::None,
                        protected: None,
                    };
                    push_new(&mut e, p, self.p.mac_overhead);
                    ba.exchange = Some(e);
                }
                _ => {
                    self.current = Some(Attempt::of(p, self.p.timing.data_rate));
                    return false;
                }
            }
        }
        self.send_exchange(io);
        true
    }

    /// Sends the exchange's next PPDU: a BlockAckReq if one is due, else an A-MPDU or a lone
    /// MPDU.
    fn send_exchange(&mut self, io: &mut impl MacIo) {
        let t = self.p.timing;
        let overhead = self.p.mac_overhead;
        let rate_control = self.p.rate_control;
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let mut e = ba.exchange.take().expect("exchange");
        expire(ba, &mut e, io);
        if rate_control {
            e.rate = io.attempt_rate(e.dst, e.table_rate);
        }
        let me = self.me;
        let request_due = ba.recipient(e.dst).request_due;
        if request_due || e.mpdus.is_empty() {
            if !request_due {
                // Everything expired and no request is due: the exchange is over.
                ba.keep_or_end(e);
                self.draw_backoff(io);
                self.schedule_access(io);
                return;
            }
            let next = ba.recipient(e.dst).next_seq;
            let ssn = e
                .mpdus
                .first()
                .filter(|h| h.numbered)
                .map_or(next, |h| h.mpdu.seq);
            let answer = t.ack_rate_for(e.rate);
            let frame = Frame {
                nav: t.sifs + t.airtime(BLOCK_ACK_BYTES, answer),
                bytes: BLOCK_ACK_REQ_BYTES,
                rate_bps: answer,
                airtime: t.airtime(BLOCK_ACK_REQ_BYTES, answer),
                seq: ssn,
                ..Frame::new(FrameKind::BlockAckReq, me, Some(e.dst))
            };
            e.on_air = OnAir::Request;
            ba.stats.requests += 1;
            ba.exchange = Some(e);
            self.state = State::WaitBlockAck;
            self.send_awaiting(frame, io);
            return;
        }
        // Fill the A-MPDU: what is held (in sequence order), then new packets for the recipient.
        fill(ba, &mut e, io, overhead, &t);
        let recipient = ba.recipient(e.dst);
        let mut next = recipient.next_seq;
        let first = &e.mpdus[0];
        let window_start = if first.numbered { first.mpdu.seq } else { next };
        let mut bytes = 0;
        ba.mpdus.clear();
        ba.msdus.clear();
        for h in e.mpdus.iter_mut() {
            h.in_flight = false;
        }
        for h in e.mpdus.iter_mut() {
            let seq = if h.numbered { h.mpdu.seq } else { next };
            if ba.mpdus.len() >= usize::from(ba.params.max_mpdus) || !in_window(window_start, seq) {
                break;
            }
            let grown = AggregationParams::grown(bytes, h.mpdu.bytes);
            let fits =
                grown <= ba.params.max_ampdu_bytes && t.airtime(grown, e.rate) <= PPDU_MAX_TIME;
            if !fits && !ba.mpdus.is_empty() {
                break;
            }
            bytes = grown;
            h.in_flight = true;
            h.mpdu.retry = h.sent_once;
            if !h.numbered {
                h.mpdu.seq = next;
                next = seq_add(next, 1);
                h.numbered = true;
            }
            ba.mpdus.push(h.mpdu);
            ba.msdus.extend_from_slice(&h.extra);
        }
        ba.recipient(e.dst).next_seq = next;
        let first = ba.mpdus[0];
        let answer = t.ack_rate_for(e.rate);
        let frame = if ba.mpdus.len() == 1 {
            // A lone MPDU: a plain QoS data frame, acknowledged by an ACK.
            Frame {
                nav: t.sifs + t.ack_time_for(e.rate),
                bytes: first.bytes,
                rate_bps: e.rate,
                airtime: t.airtime(first.bytes, e.rate),
                packet: Some((first.id, first.packet)),
                retry: first.retry,
                seq: first.seq,
                ..Frame::new(FrameKind::Data, me, Some(e.dst))
            }
        } else {
            Frame {
                nav: t.sifs + t.airtime(BLOCK_ACK_BYTES, answer),
                bytes,
                rate_bps: e.rate,
                airtime: t.airtime(bytes, e.rate),
                packet: Some((first.id, first.packet)),
                retry: first.retry,
                seq: first.seq,
                mpdus: ba.mpdus.len() as u8,
                ..Frame::new(FrameKind::Data, me, Some(e.dst))
            }
        };
        if !self.p.rts_cts {
            ba.exchange = Some(e);
            self.send_exchange_data(frame, io);
            return;
        }
        // RTS/CTS first: the RTS reserves the CTS, the data and its answer.
        let nav = 3 * t.sifs + t.cts_time() + frame.airtime + frame.nav - t.sifs;
        let rts = Frame {
            nav,
            bytes: crate::mac::timing::RTS_BYTES,
            rate_bps: t.basic_rate,
            airtime: t.rts_time(),
            retry: first.retry,
            ..Frame::new(FrameKind::Rts, me, Some(e.dst))
        };
        e.on_air = OnAir::Rts;
        e.protected = Some(frame);
        ba.exchange = Some(e);
        self.stats.rts_tx += 1;
        self.state = State::WaitCts;
        self.send_awaiting(rts, io);
    }

    /// Puts the exchange's data frame on the air (its MPDUs in `ba.mpdus`): a lone MPDU waits for
    /// an ACK, an A-MPDU for a Block Ack.
    fn send_exchange_data(&mut self, frame: Frame, io: &mut impl MacIo) {
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let e = ba.exchange.as_mut().expect("exchange");
        let retried = ba.mpdus.iter().filter(|m| m.retry).count() as u32;
        io.mpdus_sent(e.dst, ba.mpdus.len() as u32, retried);
        for h in e.mpdus.iter_mut().filter(|h| h.in_flight) {
            h.sent_once = true;
        }
        self.stats.data_tx += 1;
        if frame.mpdus == 0 {
            e.on_air = OnAir::Single;
            self.state = State::WaitAck;
            self.send_awaiting(frame, io);
            return;
        }
        e.on_air = OnAir::Ampdu;
        ba.stats.ampdus += 1;
        ba.stats.ampdu_mpdus += ba.mpdus.len() as u64;
        self.state = State::WaitBlockAck;
        self.send_ampdu(frame, io);
    }

    /// The CTS to the exchange's RTS arrived: its data goes SIFS later.
    fn cleared_to_send(&mut self, cts: &Frame, io: &mut impl MacIo) {
        io.set_timer(MacTimer::Timeout, None);
        self.state = State::Idle;
        io.attempt(cts.src, true);
        if self.p.rate_control {
            let snr = cts.snr.into();
            io.rate_feedback(cts.src, RateFeedback::RtsAnswered { snr });
        }
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let e = ba.exchange.as_mut().expect("exchange");
        e.on_air = OnAir::None;
        if let Some(mut data) = e.protected.take() {
            data.continues = true;
            self.respond(data, io);
        }
    }

    /// The response timer fired for the exchange's own data (SIFS after the CTS).
    #[inline(never)]
    pub(super) fn send_protected(&mut self, frame: Frame, io: &mut impl MacIo) -> bool {
        if frame.kind != FrameKind::Data || frame.src != self.me || !self.exchange_busy() {
            return false;
        }
        self.send_exchange_data(frame, io);
        true
    }

    /// Puts an A-MPDU on the air (its MPDUs are in `ba.mpdus`) and waits for its Block Ack.
    fn send_ampdu(&mut self, frame: Frame, io: &mut impl MacIo) {
        self.on_phy_busy(io);
        self.arm_response_timeout(&frame, io);
        let ba = self.ba.as_deref().expect("aggregating");
        io.transmit_ampdu(frame, &ba.mpdus, &ba.msdus);
    }

    /// Puts a frame of the exchange on the air (a lone MPDU, a BlockAckReq, an RTS) and waits
    /// for its answer.
    fn send_awaiting(&mut self, frame: Frame, io: &mut impl MacIo) {
        self.on_phy_busy(io);
        self.arm_response_timeout(&frame, io);
        let ba = self.ba.as_deref().expect("aggregating");
        match frame.kind == FrameKind::Data && !ba.msdus.is_empty() {
            // A lone A-MSDU: its MSDUs travel with it.
            true => io.transmit_ampdu(frame, &ba.mpdus, &ba.msdus),
            false => io.transmit(frame),
        }
    }

    /// The answer to `frame` must start within the response timeout after its end (10.3.2.9);
    /// under ns-2's and GloMoSim's rules the whole answer must have arrived by SIFS + its
    /// airtime + a slot after the end (the frame's duration field holds SIFS + the answer).
    fn arm_response_timeout(&self, frame: &Frame, io: &mut impl MacIo) {
        let t = self.p.timing;
        let wait = match (self.p.profile, frame.kind) {
            (MacProfile::Standard, _) => t.response_timeout(),
            (_, FrameKind::Rts) => t.sifs + t.cts_time() + t.slot,
            _ => frame.nav + t.slot,
        };
        let end = io.now().saturating_add(frame.airtime);
        io.set_timer(MacTimer::Timeout, Some(end + wait));
    }

    /// The answer to the exchange on the air arrived: a Block Ack (to an A-MPDU or a request)
    /// or an ACK (to a lone MPDU).
    fn answered(&mut self, answer: &Frame, io: &mut impl MacIo) {
        let t = self.p.timing;
        let rate_control = self.p.rate_control;
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let Some(mut e) = ba.exchange.take() else {
            return;
        };
        io.set_timer(MacTimer::Timeout, None);
        self.state = State::Idle;
        io.attempt(e.dst, true);
        let has = |seq: u16| match answer.kind {
            FrameKind::Ack => seq == answer.seq,
            _ => {
                let k = seq_distance(answer.seq, seq);
                // Before the bitmap's start: the recipient's window has passed it.
                k >= 2048 || (k < WINDOW && answer.bitmap & (1 << k) != 0)
            }
        };
        let (mut acked_now, mut missed) = (0u64, 0u64);
        let (dst, stats, lists) = (e.dst, &mut self.stats, &mut ba.free_lists);
        e.mpdus.retain_mut(|h| {
            if h.numbered && has(h.mpdu.seq) {
                acked_now += u64::from(h.in_flight);
                stats.acked += 1;
                for_each_sent(h, dst, lists, &mut |sent| io.tx_status(sent, true, true));
                return false;
            }
            missed += u64::from(h.in_flight);
            true
        });
        ba.stats.mpdus_missed += missed;
        if rate_control && e.on_air != OnAir::Request {
            let (rate, snr) = (e.rate, answer.snr.into());
            let feedback = match e.on_air {
                OnAir::Single => RateFeedback::Acked { rate, snr },
                _ => RateFeedback::Ampdu {
                    rate,
                    mpdus: (acked_now + missed) as u32,
                    acked: acked_now as u32,
                    snr,
                },
            };
            io.rate_feedback(e.dst, feedback);
        }
        if e.on_air == OnAir::Request {
            ba.recipient(e.dst).request_due = false;
        }
        e.on_air = OnAir::None;
        ba.keep_or_end(e);
        self.cw = t.cw_min;
        self.station_retries = 0;
        self.draw_backoff(io);
    }

    /// No answer to the exchange on the air: its MPDUs wait, and a BlockAckReq goes first next
    /// time if an A-MPDU went unanswered.
    #[inline(never)]
    pub(super) fn exchange_failed(&mut self, io: &mut impl MacIo) {
        let rate_control = self.p.rate_control;
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let Some(e) = ba.exchange.as_mut() else {
            return;
        };
        io.attempt(e.dst, false);
        if e.on_air == OnAir::Rts {
            // No CTS: the data was not sent; its MPDUs keep their numbers and go after the next
            // RTS.
            e.protected = None;
            e.on_air = OnAir::None;
            for h in e.mpdus.iter_mut() {
                h.in_flight = false;
            }
            self.stats.retries += 1;
            return;
        }
        if rate_control && e.on_air != OnAir::Request {
            let rate = e.rate;
            let feedback = match e.on_air {
                OnAir::Ampdu => RateFeedback::Ampdu {
                    rate,
                    mpdus: e.mpdus.iter().filter(|h| h.in_flight).count() as u32,
                    acked: 0,
                    snr: 0.0,
                },
                _ => RateFeedback::Lost { rate },
            };
            io.rate_feedback(e.dst, feedback);
        }
        if e.on_air != OnAir::Single {
            ba.stats.block_ack_timeouts += 1;
        }
        let dst = e.dst;
        let ampdu = e.on_air == OnAir::Ampdu;
        e.on_air = OnAir::None;
        if ampdu {
            ba.recipient(dst).request_due = true;
        }
        self.stats.retries += 1;
    }

    /// A frame for this radio was received: the answer the exchange waits for, or a frame of
    /// the recipient's side. Returns true if it was one of those (handled here).
    #[inline(never)]
    pub(super) fn rx_aggregated(&mut self, frame: &Frame, io: &mut impl MacIo) -> bool {
        if self.awaits(frame) {
            match frame.kind {
                FrameKind::Cts => self.cleared_to_send(frame, io),
                _ => self.answered(frame, io),
            }
            return true;
        }
        self.receive_aggregated(frame, io)
    }

    /// The recipient's side: a data frame of an agreement, an A-MPDU or a BlockAckReq for this
    /// radio was received (`ok`: at least one MPDU decoded). Returns true if it was one.
    fn receive_aggregated(&mut self, frame: &Frame, io: &mut impl MacIo) -> bool {
        let is_agreement = match frame.kind {
            FrameKind::Data => frame.seq != NO_SEQ,
            FrameKind::BlockAckReq => true,
            _ => false,
        };
        if !is_agreement {
            return false;
        }
        let t = self.p.timing;
        let me = self.me;
        let snr = io.rx_snr() as f32;
        let ba = self.ba.as_deref_mut().expect("aggregating");
        let BlockAck {
            reorder,
            mpdus,
            msdus,
            free_lists,
            ..
        } = ba;
        // An A-MPDU's MPDUs, or a lone MPDU's if it is an A-MSDU (none otherwise), with the
        // A-MSDUs' further MSDUs.
        let decoded = io.received_mpdus(mpdus, msdus);
        let buffer = match reorder.iter().position(|(o, _)| *o == frame.src) {
            Some(i) => &mut reorder[i].1,
            None => {
                reorder.push((frame.src, Reorder::default()));
                &mut reorder.last_mut().expect("pushed").1
            }
        };
        let response = match frame.kind {
            FrameKind::BlockAckReq => {
                buffer.block_ack_req(frame.seq, &mut |a| hand_up(a, free_lists, io));
                block_ack(me, frame, buffer.bitmap(frame.seq), t, snr)
            }
            _ if frame.mpdus == 0 => {
                let one = Arrived {
                    frame: Frame {
                        seq: NO_SEQ,
                        ..*frame
                    },
                    extra: list_of(msdus, free_lists),
                };
                buffer.receive(frame.seq, one, &mut |a| hand_up(a, free_lists, io));
                Frame {
                    bytes: super::super::timing::ACK_BYTES,
                    rate_bps: t.ack_rate_for(frame.rate_bps),
                    airtime: t.ack_time_for(frame.rate_bps),
                    continues: true,
                    snr,
                    seq: frame.seq,
                    ..Frame::new(FrameKind::Ack, me, Some(frame.src))
                }
            }
            _ => {
                let mut next_msdu = 0;
                for (i, m) in mpdus.iter().enumerate() {
                    let its = next_msdu..next_msdu + usize::from(m.extra);
                    next_msdu = its.end;
                    if decoded & (1 << i) != 0 {
                        let one = Arrived {
                            frame: Frame {
                                bytes: m.bytes,
                                packet: Some((m.id, m.packet)),
                                retry: m.retry,
                                mpdus: 0,
                                seq: NO_SEQ,
                                ..*frame
                            },
                            extra: list_of(&msdus[its], free_lists),
                        };
                        buffer.receive(m.seq, one, &mut |a| hand_up(a, free_lists, io));
                    }
                }
                block_ack(me, frame, buffer.bitmap(frame.seq), t, snr)
            }
        };
        self.respond(response, io);
        true
    }

    /// Whether the exchange in progress waits for `answer`.
    fn awaits(&self, answer: &Frame) -> bool {
        let Some(e) = self.ba.as_deref().and_then(|ba| ba.exchange.as_ref()) else {
            return false;
        };
        answer.src == e.dst
            && match (self.state, answer.kind) {
                (State::WaitBlockAck, FrameKind::BlockAck) => true,
                (State::WaitCts, FrameKind::Cts) => e.on_air == OnAir::Rts,
                (State::WaitAck, FrameKind::Ack) => e.on_air == OnAir::Single,
                _ => false,
            }
    }

    /// The recipient decoded MPDU `seq` of this radio's exchange: it has it, whatever becomes of
    /// the answer.
    pub fn mark_mpdu_handed_over(&mut self, seq: u16) {
        if let Some(e) = self.ba.as_deref_mut().and_then(|ba| ba.exchange.as_mut()) {
            if let Some(h) = e.mpdus.iter_mut().find(|h| h.numbered && h.mpdu.seq == seq) {
                h.handed_over = true;
            }
        }
    }

    /// The radio fails: the MPDUs its exchange holds (with whether their next hop has them)
    /// and the packets it held for reordering (the next hop has those) go to `out`.
    pub(super) fn abandon_aggregated(&mut self, out: &mut Vec<(Sent, bool)>) {
        let Some(ba) = self.ba.as_deref_mut() else {
            return;
        };
        if let Some(mut e) = ba.exchange.take() {
            for h in e.mpdus.iter_mut() {
                let handed_over = h.handed_over;
                for_each_sent(h, e.dst, &mut ba.free_lists, &mut |sent| {
                    out.push((sent, handed_over))
                });
            }
        }
        for (_, r) in ba.reorder.iter_mut() {
            let mut lost = Vec::new();
            r.for_each(&mut |a: &Arrived| {
                lost.extend(a.frame.packet.map(|(id, _)| id));
                lost.extend(a.extra.iter().map(|&(id, _)| id));
            });
            out.extend(lost.into_iter().map(|id| {
                let sent = Sent {
                    id,
                    next_hop: None,
                    unit: NO_UNIT,
                };
                (sent, false)
            }));
            *r = Reorder::default();
        }
    }

    /// Whether this radio builds A-MSDUs.
    pub fn builds_amsdus(&self) -> bool {
        self.ba
            .as_deref()
            .is_some_and(|ba| ba.params.max_amsdu_bytes > 0)
    }

    /// What aggregation did at this radio (`None`: it does not aggregate).
    pub fn aggregation_stats(&self) -> Option<AggregationStats> {
        self.ba.as_deref().map(|ba| ba.stats)
    }
}

/// The Block Ack `me` sends in answer to `frame` (an A-MPDU or a BlockAckReq): its bitmap from
/// the starting sequence number the frame carried.
fn block_ack(me: RadioId, frame: &Frame, bitmap: u64, t: Timing, snr: f32) -> Frame {
    let rate = if frame.kind == FrameKind::BlockAckReq {
        frame.rate_bps
    } else {
        t.ack_rate_for(frame.rate_bps)
    };
    Frame {
        bytes: BLOCK_ACK_BYTES,
        rate_bps: rate,
        airtime: t.airtime(BLOCK_ACK_BYTES, rate),
        continues: true,
        snr,
        seq: frame.seq,
        bitmap,
        ..Frame::new(FrameKind::BlockAck, me, Some(frame.src))
    }
}

fn sent_of(id: crate::sim::PacketId, dst: RadioId) -> Sent {
    Sent {
        id,
        next_hop: Some(dst),
        unit: NO_UNIT,
    }
}

/// Calls `f` with each packet `h` carries (its own, then its A-MSDU's further MSDUs), whose
/// fate is settled: the A-MSDU's list goes back to `lists`.
fn for_each_sent(h: &mut Held, dst: RadioId, lists: &mut Vec<Vec<Msdu>>, f: &mut impl FnMut(Sent)) {
    f(sent_of(h.mpdu.id, dst));
    if h.extra.is_empty() {
        return;
    }
    for &(id, _) in &h.extra {
        f(sent_of(id, dst));
    }
    let mut list = std::mem::take(&mut h.extra);
    list.clear();
    lists.push(list);
}

/// `msdus` in a list of their own (from `lists` if one is spare; none for an empty run).
fn list_of(msdus: &[Msdu], lists: &mut Vec<Vec<Msdu>>) -> Vec<Msdu> {
    if msdus.is_empty() {
        return Vec::new();
    }
    let mut list = lists.pop().unwrap_or_default();
    list.extend_from_slice(msdus);
    list
}

/// Hands an MPDU's packets up to the network in order: its own, then an A-MSDU's further MSDUs
/// as frames like its own (whose list goes back to `lists`).
fn hand_up(a: Arrived, lists: &mut Vec<Vec<Msdu>>, io: &mut impl MacIo) {
    let Arrived { frame, mut extra } = a;
    io.deliver(&frame);
    if extra.is_empty() {
        return;
    }
    for &msdu in &extra {
        io.deliver(&Frame {
            packet: Some(msdu),
            ..frame
        });
    }
    extra.clear();
    lists.push(extra);
}

/// Adds a packet just taken from the queue to the exchange (numbered when first sent).
fn push_new(e: &mut Exchange, p: Pulled, overhead: u32) {
    e.mpdus.push(Held {
        mpdu: Mpdu {
            id: p.id,
            packet: p.packet,
            seq: NO_SEQ,
            bytes: p.packet.size + overhead,
            retry: false,
            extra: 0,
        },
        extra: Vec::new(),
        queued_at: p.queued_at,
        handed_over: false,
        in_flight: false,
        numbered: false,
        sent_once: false,
    });
}

/// Takes packets for the exchange's recipient (from the interface queue, or the forwarding layer)
/// while the next A-MPDU has room for them: fewer than the MPDU limit held, within the size and
/// time limits. A packet that would not fit stays where it is, so the exchange ends once what it
/// sent is acknowledged and the next opportunity serves the queue's head, whoever it is for
/// (ns-3's scheduler picks the queue with the oldest head). With A-MSDUs on, each new MPDU
/// first takes as many further packets as its A-MSDU holds (ns-3's `GetNextAmsdu` on every
/// MPDU it adds to an A-MPDU).
fn fill(ba: &mut BlockAck, e: &mut Exchange, io: &mut impl MacIo, overhead: u32, t: &Timing) {
    let (params, rate) = (ba.params, e.rate);
    let room =
        |bytes: u32| bytes <= params.max_ampdu_bytes && t.airtime(bytes, rate) <= PPDU_MAX_TIME;
    let Some((last, held)) = e.mpdus.split_last_mut() else {
        return;
    };
    let mut bytes = held
        .iter()
        .fold(0, |b, h| AggregationParams::grown(b, h.mpdu.bytes));
    if !last.numbered && last.extra.is_empty() {
        // The exchange's first packet, just taken: it may open an A-MSDU.
        grow_amsdu(ba, last, bytes, (e.dst, e.next_node), io, overhead, &room);
    }
    bytes = AggregationParams::grown(bytes, last.mpdu.bytes);
    while e.mpdus.len() < usize::from(params.max_mpdus) {
        let fits = |size: u32| room(AggregationParams::grown(bytes, size + overhead));
        let Some(p) = io.pull_for(e.next_node, &fits) else {
            return;
        };
        push_new(e, p, overhead);
        let last = e.mpdus.last_mut().expect("pushed");
        grow_amsdu(ba, last, bytes, (e.dst, e.next_node), io, overhead, &room);
        bytes = AggregationParams::grown(bytes, last.mpdu.bytes);
    }
}

/// Makes `h`, an MPDU never sent, an A-MSDU of as many packets for `to` (radio, node) as fit: the A-MSDU
/// within `max_amsdu_bytes`, the A-MPDU (`before` bytes ahead of it) within `room`. It stays a
/// plain MPDU if no second packet fits (ns-3 sends no A-MSDU of one MSDU).
fn grow_amsdu(
    ba: &mut BlockAck,
    h: &mut Held,
    before: u32,
    (dst, next): (RadioId, NodeId),
    io: &mut impl MacIo,
    overhead: u32,
    room: &impl Fn(u32) -> bool,
) {
    let max = ba.params.max_amsdu_bytes;
    if max == 0 {
        return;
    }
    // An A-MSDU's MPDU: the MAC header and FCS around the subframes, each of which carries its
    // own LLC/SNAP header.
    let framing = overhead.saturating_sub(LLC_SNAP_BYTES);
    let mut amsdu = AggregationParams::amsdu_grown(0, h.mpdu.packet.size + LLC_SNAP_BYTES);
    let mut list = Vec::new();
    while list.len() < usize::from(u16::MAX) {
        let fits = |size: u32| {
            let grown = AggregationParams::amsdu_grown(amsdu, size + LLC_SNAP_BYTES);
            grown <= max && room(AggregationParams::grown(before, framing + grown))
        };
        let Some(p) = io.pull_for(next, &fits) else {
            break;
        };
        if list.is_empty() {
            list = ba.free_lists.pop().unwrap_or_default();
        }
        amsdu = AggregationParams::amsdu_grown(amsdu, p.packet.size + LLC_SNAP_BYTES);
        list.push((p.id, p.packet));
    }
    if list.is_empty() {
        return;
    }
    let msdus = 1 + list.len() as u32;
    ba.stats.amsdus += 1;
    ba.stats.amsdu_msdus += u64::from(msdus);
    io.amsdu_built(dst, msdus);
    h.mpdu.bytes = framing + amsdu;
    h.mpdu.extra = list.len() as u16;
    h.extra = list;
}

/// Gives up the MPDUs whose lifetime has run out: the recipient is to be told (a BlockAckReq),
/// unless it has them all.
fn expire(ba: &mut BlockAck, e: &mut Exchange, io: &mut impl MacIo) {
    let Some(lifetime) = ba.lifetime else {
        return;
    };
    let now = io.now();
    let mut gave_up = false;
    let dst = e.dst;
    let lists = &mut ba.free_lists;
    e.mpdus.retain_mut(|h| {
        // An A-MSDU lives as long as its first MSDU (ns-3 builds it in that MSDU's place in
        // the queue).
        let alive = h
            .queued_at
            .is_none_or(|q| now <= q.saturating_add(lifetime));
        if !alive {
            let handed_over = h.handed_over;
            for_each_sent(h, dst, lists, &mut |sent| io.expired(sent, handed_over));
            // A hole in the recipient's window only if it was numbered and did not arrive.
            gave_up |= h.numbered && !h.handed_over;
            ba.stats.expired += 1;
        }
        alive
    });
    if gave_up {
        ba.recipient(dst).request_due = true;
    }
}
