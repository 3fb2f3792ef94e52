//! A TCP-RLC flow's sender, single-path or multipath, behind one face for the world.

use super::multipath::MultipathSender;
use super::sender::RlcSender;
use super::source::{RlcSenderStats, Source};
use super::RlcIo;
use crate::sim::header::rlc::RlcFeedback;

/// The sender of a TCP-RLC flow: one path, or a source feeding several path controllers.
#[derive(Debug, Clone)]
pub enum AnySender {
    /// One path (§III-A).
    Single(RlcSender),
    /// Several paths (§II-F).
    Multipath(MultipathSender),
}

impl AnySender {
    /// The application starts.
    pub fn start(&mut self, io: &mut impl RlcIo) {
        match self {
            AnySender::Single(s) => s.start(io),
            AnySender::Multipath(s) => s.start(io),
        }
    }

    /// The application stops.
    pub fn stop(&mut self) {
        match self {
            AnySender::Single(s) => s.stop(),
            AnySender::Multipath(s) => s.stop(),
        }
    }

    /// One feedback arrives.
    pub fn on_feedback(&mut self, fb: &RlcFeedback, io: &mut impl RlcIo) {
        match self {
            AnySender::Single(s) => s.on_feedback(fb, io),
            AnySender::Multipath(s) => s.on_feedback(fb, io),
        }
    }

    /// The flow's timer expired.
    pub fn on_timer(&mut self, io: &mut impl RlcIo) {
        match self {
            AnySender::Single(s) => s.on_timer(io),
            AnySender::Multipath(s) => s.on_timer(io),
        }
    }

    /// The source controller.
    pub fn source(&self) -> &Source {
        match self {
            AnySender::Single(s) => s.source(),
            AnySender::Multipath(s) => s.source(),
        }
    }

    /// The counters.
    pub fn stats(&self) -> &RlcSenderStats {
        &self.source().stats
    }
}
