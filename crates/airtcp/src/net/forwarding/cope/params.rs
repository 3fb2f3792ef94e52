//! The parameters of the COPE layer (spec 001 §2.2 and §5 item 5): what the scenario's
//! `coding:` block sets. Every constant here is COPE's (Katti et al., IEEE/ACM ToN 16(3), 2008)
//! or inferred where the paper leaves it open ([I]); docs/cope.md has the table.

use crate::coding::cope_rule::COPE_THRESHOLD;
use crate::coding::cope_state::POOL_LIFETIME;
use crate::sim::time::MILLIS;
use crate::sim::Time;

/// How a coder learns what its neighbours hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KnowledgeModel {
    /// Reception reports, and COPE's guess from link delivery where no report says (COPE's own).
    #[default]
    ReportsAndGuessing,
    /// Reception reports only: without a report a neighbour is taken not to hold a native.
    Reports,
    /// Guessing only: no reception reports are sent.
    Guessing,
    /// The coder reads its neighbours' pools (tests; no reports are sent).
    Oracle,
}

impl KnowledgeModel {
    /// Whether nodes send reception reports.
    pub fn reports(self) -> bool {
        matches!(self, Self::ReportsAndGuessing | Self::Reports)
    }

    /// Whether a coder guesses from link delivery where no report says.
    pub fn guesses(self) -> bool {
        matches!(self, Self::ReportsAndGuessing | Self::Guessing)
    }
}

/// The output queue every coding node keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueKind {
    /// COPE's drop-tail FIFO of natives, coding at the transmit opportunity (TCP+COPE).
    #[default]
    Fifo,
    /// NCAQM's queue of entries (paper 001 §V-A, Algs. 1-2).
    Ncaqm,
}

/// Which codes a node makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scheme {
    /// COPE's one-hop codes only.
    #[default]
    Cope,
    /// BFLY's two-hop pairs first, then COPE's one-hop codes (paper 001 §VII; `bfly.rs`).
    Bfly,
}

/// What a BFLY coder does about a pair whose overhearing failed (the paper gives no rule [I]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Recovery {
    /// The coder keeps both natives until their decoders acknowledge them (ACKs relayed by the
    /// second relay) and re-sends them uncoded after 2 Ta.
    #[default]
    CoderAck,
    /// None: a pair is settled by each hop's MAC ACK; a native its decoder cannot decode is lost.
    None,
}

/// When a node sends what it owes its neighbours (reception reports, COPE ACKs) in a control
/// packet of its own. Both ways put everything owed in the COPE header of every frame the node
/// sends (Katti et al., "Learning neighbor state" and "Hop-by-hop ACKs and retransmissions");
/// they differ in when a frame carries nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlTiming {
    /// COPE's: "a node that has no data packets to transmit periodically sends the reception
    /// reports in special control packets"; ACKs likewise go in periodic control packets when
    /// no data carries them (the same sections).
    /// What is owed waits `period` for a frame to carry it; a control packet goes only if the
    /// node then has nothing to send (its output queue empty, no frame of its own in the MAC),
    /// else it looks again a period later. So an idle node sends at most one control packet a
    /// period. The period is not in the papers [I].
    Periodic {
        /// How long what is owed waits for a frame, and the least time between control packets.
        period: Time,
    },
    /// The timers airtcp ran before [I]: a node with natives to report that sends nothing for
    /// `report_idle`, or with natives to acknowledge that sends nothing for `ack_delay`, sends a
    /// control packet, whatever it holds.
    IdleTimer {
        /// Unreported natives wait this long for a frame.
        report_idle: Time,
        /// Unacknowledged natives wait this long for a frame.
        ack_delay: Time,
    },
}

impl ControlTiming {
    /// COPE's periodic control packets with the period of [`default_control_period`] for a
    /// retransmission timer `ack_timeout`.
    pub fn periodic_for(ack_timeout: Time) -> Self {
        ControlTiming::Periodic {
            period: default_control_period(ack_timeout),
        }
    }
}

/// The control period when none is given: half the retransmission timer Ta [I]. An ACK owed by
/// a node with nothing to send then leaves at most Ta / 2 after the native was decoded, which
/// leaves the other half for the control packet to win the channel (a data frame's exchange is
/// about 6 ms at 1 Mbps, tens of ms with a few contenders) before the coder sends the native
/// again. A report serves the coder only while the native waits in its queue, tens of ms at
/// L = 10, the same order. At least 1 ns.
pub fn default_control_period(ack_timeout: Time) -> Time {
    (ack_timeout / 2).max(1)
}

/// The COPE layer's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CopeParams {
    /// The codes made.
    pub scheme: Scheme,
    /// BFLY's recovery rule.
    pub recovery: Recovery,
    /// The output queue.
    pub queue: QueueKind,
    /// Its capacity L: natives (FIFO) or entries (NCAQM); the radio's `queue.packets`.
    pub capacity: usize,
    /// How coders learn what neighbours hold.
    pub knowledge: KnowledgeModel,
    /// COPE's decodability threshold G.
    pub threshold: f64,
    /// How long a native stays in a pool (and a report about it stays valid), T.
    pub pool_lifetime: Time,
    /// When reports and ACKs go in control packets of their own.
    pub control: ControlTiming,
    /// How long a coder waits for a native's COPE ACK before re-queueing it, Ta [I].
    pub ack_timeout: Time,
    /// COPE retransmissions of a native before it is dropped [I].
    pub retry_limit: u32,
    /// Whether TCP ACKs are coded like any native (COPE codes them).
    pub code_acks: bool,
    /// The most natives one reception report lists; the rest wait for the next header [I].
    pub max_report: usize,
}

/// Ta's default [I].
const DEFAULT_ACK_TIMEOUT: Time = 100 * MILLIS;

impl Default for CopeParams {
    fn default() -> Self {
        CopeParams {
            scheme: Scheme::Cope,
            recovery: Recovery::CoderAck,
            queue: QueueKind::Fifo,
            capacity: 10,
            knowledge: KnowledgeModel::ReportsAndGuessing,
            threshold: COPE_THRESHOLD,
            pool_lifetime: POOL_LIFETIME,
            control: ControlTiming::periodic_for(DEFAULT_ACK_TIMEOUT),
            ack_timeout: DEFAULT_ACK_TIMEOUT,
            retry_limit: 3,
            code_acks: true,
            max_report: 32,
        }
    }
}
