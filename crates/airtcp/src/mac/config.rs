//! The 802.11 MAC's configuration, as a scenario file spells it (`radio.mac`, `radio.preamble`,
//! `radio.ack_rate`): the DCF and its timing read it, the scenario composes it.

use serde::{Deserialize, Serialize};

/// Whose reading of the DCF a radio follows where implementations differ (docs/dcf.md).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MacProfile {
    /// IEEE 802.11-2016 as ns-3 3.44 models it: the response timeout of 10.3.2.9 (SIFS + slot +
    /// PHY header, held while a frame arrives) and DIFS after it; immediate access no earlier
    /// than DIFS after a frame is queued; the window set by the station's retry count.
    #[default]
    Standard,
    /// ns-2's `Mac802_11`: the timeout waits for the whole response (SIFS + response + slot),
    /// the backoff counts from the timeout, a frame may go at once into a medium idle for DIFS,
    /// and the window is the packet's (reset when it is given up).
    Ns2,
    /// GloMoSim's 802.11 (paper 001): ns-2's rules, and a station that has just sent an ACK
    /// draws a backoff for the frame it holds (`AckTransmitted -> CheckForOutgoingPacket ->
    /// SetBackoffIfZero`), so a relay never forwards without one.
    Glomosim,
}

/// PLCP preamble of DSSS.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    /// 144 + 48 us at 1 Mbps (192 us), the 802.11b default and ns-2's.
    #[default]
    Long,
    /// 72 us at 1 Mbps + 24 us at 2 Mbps (96 us).
    Short,
}

/// Rate of ACK frames.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum AckRate {
    /// The basic rate, as 802.11 prescribes for control responses in a BSS basic rate set of
    /// the lowest rate.
    #[default]
    Basic,
    /// The data rate of the frame acknowledged (ns-3's ad-hoc stations put every 802.11b rate in
    /// their basic rate set, so their ACKs go at the data rate).
    Data,
    /// The highest mandatory rate of the standard not above the rate of the frame acknowledged
    /// (IEEE 802.11-2016 §10.6.6.5.2): 6, 12 or 24 Mbps in 802.11a; every 802.11b rate is
    /// mandatory, so there it is the data rate.
    Control,
}
