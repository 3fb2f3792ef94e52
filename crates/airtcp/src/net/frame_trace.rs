//! A per-frame trace of the medium, for comparing the DCF with another simulator event by event.
//!
//! Set `AIRTCP_FRAME_TRACE=FILE` and a run writes one line per event, `t_ns radio event ...`, in
//! the format of the ns-3 program `bench/wifi/wifi_matrix.cc --trace=FILE`, so that both
//! simulators' traces go through the same analysis (`airtcp.bench.wifi.frame_trace`):
//!
//! - `tx KIND BYTES RATE AIRTIME DST RETRY`: a frame starts on the air (`KIND` data, ack, rts or
//!   cts; `DST` -1 for a broadcast or an ACK/CTS, as ns-3's trace has no node for them);
//! - `backoff SLOTS`: the DCF drew a backoff;
//! - `rx_ok KIND SRC`: a frame the radio locked onto was decoded (`SRC` -1 for ACK/CTS);
//! - `rx_drop REASON`: a frame was lost: `TXING` (it arrived while the radio transmitted),
//!   `RXING` (while the radio was locked onto another), `COLLISION` (interference broke the
//!   capture condition, or the radio started transmitting during it), `ERROR` (the SINR error
//!   draw failed), `LINK_ERROR` (the link's extra error process or `frame_error`).
//!
//! The trace is a developer's instrument, off unless the variable is set: each hook costs one
//! branch on an `Option` per frame when it is off. It is written through a buffer and flushed
//! when the medium is dropped; a write error ends the trace silently (the run goes on).

use crate::mac::frame::{Frame, FrameKind, RadioId};
use crate::sim::Time;
use std::fs::File;
use std::io::{BufWriter, Write};

/// Environment variable naming the trace file.
pub const TRACE_VAR: &str = "AIRTCP_FRAME_TRACE";

/// The trace writer.
pub struct FrameTrace {
    out: BufWriter<File>,
    failed: bool,
}

/// Why a frame was not received.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RxDrop {
    /// Arrived while the radio was transmitting.
    Txing,
    /// Arrived while the radio was locked onto another frame.
    Rxing,
    /// Lost to interference (or to the radio's own transmission) during its reception.
    Collision,
    /// The SINR error draw failed.
    Error,
    /// The link's extra error process (or `frame_error`) took it.
    LinkError,
}

impl RxDrop {
    fn name(self) -> &'static str {
        match self {
            RxDrop::Txing => "TXING",
            RxDrop::Rxing => "RXING",
            RxDrop::Collision => "COLLISION",
            RxDrop::Error => "ERROR",
            RxDrop::LinkError => "LINK_ERROR",
        }
    }
}

fn kind_name(kind: FrameKind) -> &'static str {
    match kind {
        FrameKind::Data => "data",
        FrameKind::Ack => "ack",
        FrameKind::Rts => "rts",
        FrameKind::Cts => "cts",
        FrameKind::BlockAck => "block_ack",
        FrameKind::BlockAckReq => "block_ack_req",
    }
}

impl FrameTrace {
    /// The trace the environment asks for, if any; `None` too if the file cannot be created.
    pub fn from_env() -> Option<Self> {
        let path = std::env::var_os(TRACE_VAR)?;
        let file = File::create(path).ok()?;
        Some(FrameTrace {
            out: BufWriter::new(file),
            failed: false,
        })
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        if !self.failed && self.out.write_fmt(args).is_err() {
            self.failed = true;
        }
    }

    /// A frame starts on the air.
    pub fn tx(&mut self, now: Time, radio: RadioId, f: &Frame) {
        // Only data and RTS name their receiver, as ns-3's trace does.
        let dst = match (f.kind, f.dst) {
            (FrameKind::Data | FrameKind::Rts, Some(d)) => d as i64,
            _ => -1,
        };
        self.line(format_args!(
            "{now} {radio} tx {} {} {} {} {dst} {}\n",
            kind_name(f.kind),
            f.bytes,
            f.rate_bps,
            f.airtime,
            f.retry as u8
        ));
    }

    /// A backoff was drawn.
    pub fn backoff(&mut self, now: Time, radio: RadioId, slots: u32) {
        self.line(format_args!("{now} {radio} backoff {slots}\n"));
    }

    /// A frame was decoded.
    pub fn rx_ok(&mut self, now: Time, radio: RadioId, f: &Frame) {
        let src = match f.kind {
            FrameKind::Data | FrameKind::Rts => f.src as i64,
            _ => -1,
        };
        self.line(format_args!(
            "{now} {radio} rx_ok {} {src}\n",
            kind_name(f.kind)
        ));
    }

    /// A frame was lost.
    pub fn rx_drop(&mut self, now: Time, radio: RadioId, why: RxDrop) {
        self.line(format_args!("{now} {radio} rx_drop {}\n", why.name()));
    }
}

impl Drop for FrameTrace {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}
