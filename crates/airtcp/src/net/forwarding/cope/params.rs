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
    /// A node with natives to report that sends nothing for this long sends a report alone [I].
    pub report_idle: Time,
    /// A next hop with natives to acknowledge that sends nothing for this long sends an ACK
    /// alone [I].
    pub ack_delay: Time,
    /// How long a coder waits for a native's COPE ACK before re-queueing it, Ta [I].
    pub ack_timeout: Time,
    /// COPE retransmissions of a native before it is dropped [I].
    pub retry_limit: u32,
    /// Whether TCP ACKs are coded like any native (COPE codes them).
    pub code_acks: bool,
    /// The most natives one reception report lists; the rest wait for the next header [I].
    pub max_report: usize,
}

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
            report_idle: 10 * MILLIS,
            ack_delay: 10 * MILLIS,
            ack_timeout: 100 * MILLIS,
            retry_limit: 3,
            code_acks: true,
            max_report: 32,
        }
    }
}
