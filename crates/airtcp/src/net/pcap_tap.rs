//! The capture hooks of the `trace:` block (docs/pcap.md): the frames radios send and decode and
//! the packets wired links carry, written to one pcap file per interface as they happen
//! (`metrics::pcap` has the formats).
//!
//! The scenario plans the files ([`TracePlan`]: which radios and link ends, their file names);
//! the run opens them before its first event ([`super::Network::open_traces`]): each captured
//! radio gets a [`RadioCapture`] of its own (`RadioState::pcap`), the wired links one
//! [`WiredTap`] (`Network::pcap`). Both are `Option<Box<_>>` fields of what the hooks hold
//! already, so a run without the block pays one branch per frame and nothing more (the MAC's
//! per-call context is unchanged). Records go out through a `BufWriter` as they are made: nothing
//! is kept per packet. A write error stops that capture (the first is reported in the results'
//! `trace`, `metrics::results::TraceReport`); the run goes on and its results are whole.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use crate::error::ConfigError;
use crate::mac::frame::{Frame, FrameKind, RadioId, NO_SEQ};
use crate::metrics::pcap::dot11::{self, Dot11};
use crate::metrics::pcap::packet::Encoder;
use crate::metrics::pcap::{PcapWriter, LINKTYPE_RADIOTAP, LINKTYPE_RAW};
use crate::metrics::results::{TraceFileRow, TraceReport};
use crate::net::forwarding::UnitArena;
use crate::sim::{ChannelId, Packet, Time};

/// No file: the interface is not traced.
pub const UNTRACED: u32 = u32::MAX;

/// A file of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedFile {
    /// File name in the trace's folder.
    pub name: String,
    /// The node.
    pub node: String,
    /// The interface (`wifi0`, `link3`).
    pub interface: String,
    /// Radiotap + 802.11 (a radio's) or raw IPv4 (a link end's).
    pub radio: bool,
}

/// A captured radio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadioWire {
    /// The radio.
    pub radio: RadioId,
    /// Its file (an index into the plan's files).
    pub file: u32,
    /// Channel centre frequency, MHz.
    pub freq_mhz: u16,
    /// OFDM (802.11a) rather than DSSS/CCK.
    pub ofdm: bool,
}

/// The files a run will write, planned by the scenario before the run.
#[derive(Debug, Clone, Default)]
pub struct TracePlan {
    /// The folder (`None`: none given; opening then fails with the reason).
    pub dir: Option<String>,
    /// The files.
    pub files: Vec<PlannedFile>,
    /// The captured radios.
    pub radios: Vec<RadioWire>,
    /// Per wired channel (index = channel id; channels past its end are untraced): the file of
    /// its sending end and that of its receiving end.
    pub channels: Vec<(u32, u32)>,
    /// How packets are written.
    pub encoder: Encoder,
}

/// One open capture file, and the first error writing it met.
struct TapFile {
    row: TraceFileRow,
    writer: PcapWriter<BufWriter<File>>,
    error: Option<String>,
}

impl TapFile {
    fn open(dir: &Path, f: &PlannedFile) -> Result<TapFile, ConfigError> {
        let path = dir.join(&f.name);
        let cannot = |e: std::io::Error| {
            ConfigError::new(
                "trace.dir",
                format!("cannot write '{}': {e}", path.display()),
            )
        };
        let out = BufWriter::with_capacity(64 << 10, File::create(&path).map_err(cannot)?);
        let linktype = if f.radio {
            LINKTYPE_RADIOTAP
        } else {
            LINKTYPE_RAW
        };
        Ok(TapFile {
            row: TraceFileRow {
                file: f.name.clone(),
                node: f.node.clone(),
                interface: f.interface.clone(),
                records: 0,
            },
            writer: PcapWriter::new(out, linktype).map_err(cannot)?,
            error: None,
        })
    }

    fn write(&mut self, now: Time, frame: &[u8], len: usize) {
        match self.writer.record_cut(now, frame, len) {
            Ok(()) => self.row.records += 1,
            Err(e) => self.error = Some(format!("{}: {e}", self.row.file)),
        }
    }

    fn finish(self) -> (TraceFileRow, Option<String>) {
        let mut error = self.error;
        if let Err(e) = self.writer.finish() {
            error.get_or_insert_with(|| format!("{}: {e}", self.row.file));
        }
        (self.row, error)
    }
}

/// The capture of one radio: the frames it sends and those it decodes.
pub struct RadioCapture {
    file: TapFile,
    freq_mhz: u16,
    ofdm: bool,
    encoder: Arc<Encoder>,
    /// Reused between records.
    buf: Vec<u8>,
    natives: Vec<Packet>,
}

/// The capture of the wired links' ends.
pub struct WiredTap {
    files: Vec<TapFile>,
    /// Per channel: the files of its sending and receiving ends.
    channels: Vec<(u32, u32)>,
    encoder: Arc<Encoder>,
    buf: Vec<u8>,
}

impl TracePlan {
    /// Checks before the run that the folder can be created and written: creates it and a file
    /// in it, which it removes again. Errors name `trace.dir`.
    pub fn check_dir(dir: &str) -> Result<(), ConfigError> {
        let cannot =
            |e: std::io::Error| ConfigError::new("trace.dir", format!("cannot write '{dir}': {e}"));
        std::fs::create_dir_all(dir).map_err(cannot)?;
        let probe = Path::new(dir).join(format!(".airtcp-probe-{}", std::process::id()));
        File::create(&probe).map_err(cannot)?;
        std::fs::remove_file(&probe).map_err(cannot)?;
        Ok(())
    }
}

impl RadioCapture {
    /// The radio sent `frame` (`signal_mw`: `None`), or decoded it at `signal_mw`; `units`
    /// holds the natives of a coded frame. Out of line: the medium's handlers stay as small as
    /// they were without captures.
    #[inline(never)]
    pub fn frame(&mut self, now: Time, frame: &Frame, signal_mw: Option<f64>, units: &UnitArena) {
        if self.file.error.is_some() {
            return;
        }
        let kind = match frame.kind {
            FrameKind::Data => dot11::Kind::Data,
            FrameKind::Ack => dot11::Kind::Ack,
            FrameKind::Rts => dot11::Kind::Rts,
            FrameKind::Cts => dot11::Kind::Cts,
            FrameKind::BlockAckReq => dot11::Kind::BlockAckReq,
            FrameKind::BlockAck => dot11::Kind::BlockAck {
                bitmap: frame.bitmap,
            },
        };
        let packet = frame.packet.as_ref().map(|(_, p)| p);
        let header = Dot11 {
            kind,
            src: frame.src,
            dst: frame.dst,
            duration_us: (frame.nav / 1_000).min(u64::from(u16::MAX)) as u16,
            // The Block Ack agreement's sequence number where there is one, else the packet's
            // number (as the IPv4 identification): the same on every retry.
            seq: match frame.seq {
                NO_SEQ => packet.map_or(0, |p| p.uid as u16),
                seq => seq,
            },
            retry: frame.retry,
            rate_bps: frame.rate_bps,
            freq_mhz: self.freq_mhz,
            ofdm: self.ofdm,
            signal_dbm: signal_mw.map(|mw| (10.0 * mw.log10()).round().clamp(-128.0, 127.0) as i8),
        };
        self.buf.clear();
        dot11::frame(&mut self.buf, &header);
        let mut len = self.buf.len();
        if let (dot11::Kind::Data, Some(p)) = (kind, packet) {
            self.natives.clear();
            let natives = units.natives(frame.unit).iter().map(|n| n.packet);
            self.natives.extend(natives);
            len += self.encoder.packet(&mut self.buf, p, &self.natives);
        }
        self.file.write(now, &self.buf, len);
    }
}

impl WiredTap {
    /// Wired channel `ch` started sending `p` (`arrived` false) or delivered it at its far end.
    pub fn packet(&mut self, now: Time, ch: ChannelId, p: &Packet, arrived: bool) {
        let Some(&(tx, rx)) = self.channels.get(ch as usize) else {
            return;
        };
        let file = if arrived { rx } else { tx };
        let Some(f) = self.files.get_mut(file as usize) else {
            return;
        };
        if f.error.is_some() {
            return;
        }
        self.buf.clear();
        let len = self.encoder.packet(&mut self.buf, p, &[]);
        f.write(now, &self.buf, len);
    }
}

impl super::Network {
    /// Opens the files of `plan` (writing their headers) and installs the captures, before the
    /// first event. Errors name `trace.dir`.
    pub fn open_traces(&mut self, plan: TracePlan) -> Result<(), ConfigError> {
        // The scenario refuses a block without a folder; a plan made otherwise has none either.
        let Some(dir) = plan.dir else {
            return Err(ConfigError::new("trace.dir", "required"));
        };
        TracePlan::check_dir(&dir)?;
        let dir = Path::new(&dir);
        let encoder = Arc::new(plan.encoder);
        for r in &plan.radios {
            let capture = RadioCapture {
                file: TapFile::open(dir, &plan.files[r.file as usize])?,
                freq_mhz: r.freq_mhz,
                ofdm: r.ofdm,
                encoder: Arc::clone(&encoder),
                buf: Vec::with_capacity(512),
                natives: Vec::new(),
            };
            self.wireless.radios[r.radio as usize].pcap = Some(Box::new(capture));
        }
        // The wired files, renumbered among themselves.
        let mut files = Vec::new();
        let mut index = vec![UNTRACED; plan.files.len()];
        for (i, f) in plan.files.iter().enumerate().filter(|(_, f)| !f.radio) {
            index[i] = files.len() as u32;
            files.push(TapFile::open(dir, f)?);
        }
        if !files.is_empty() {
            let at = |f: u32| index.get(f as usize).copied().unwrap_or(UNTRACED);
            self.pcap = Some(Box::new(WiredTap {
                files,
                channels: plan.channels.iter().map(|&(t, r)| (at(t), at(r))).collect(),
                encoder,
                buf: Vec::with_capacity(512),
            }));
        }
        Ok(())
    }

    /// Flushes and closes the capture files: what they hold, by file name, and the first error
    /// (`None` without captures).
    pub fn finish_traces(&mut self) -> Option<TraceReport> {
        let mut files: Vec<TapFile> = Vec::new();
        for radio in self.wireless.radios.iter_mut() {
            files.extend(radio.pcap.take().map(|c| c.file));
        }
        files.extend(self.pcap.take().into_iter().flat_map(|t| t.files));
        if files.is_empty() {
            return None;
        }
        let mut report = TraceReport::default();
        for f in files {
            let (row, error) = f.finish();
            report.files.push(row);
            if report.error.is_none() {
                report.error = error;
            }
        }
        report.files.sort_by(|a, b| a.file.cmp(&b.file));
        Some(report)
    }
}
