//! The capture hooks of the `trace:` block (docs/pcap.md): the frames radios send and decode and
//! the packets wired links carry, written to one pcap file per interface as they happen
//! (`metrics::pcap` has the formats).
//!
//! The scenario plans the files ([`TracePlan`]: which radios and link ends, their file names);
//! the run opens them before its first event ([`TracePlan::open`]) and hands the medium one
//! [`PcapTap`] for the radios and the network one for the wired links. Each is an
//! `Option<Box<_>>` there, so a run without the block pays one branch per frame. Records go out
//! through a `BufWriter` as they are made: nothing is kept per packet. A write error stops the
//! capture (the first is reported in the results' `trace`, `metrics::results::TraceReport`);
//! the run goes on and its results are whole.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;
use crate::mac::frame::{Frame, FrameKind};
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

/// What a radio's frames need besides the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RadioWire {
    /// Its file (`UNTRACED`: none).
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
    /// Per radio (every radio of the network).
    pub radios: Vec<RadioWire>,
    /// Per wired channel (index = channel id; channels past its end are untraced): the file of
    /// its sending end and that of its receiving end.
    pub channels: Vec<(u32, u32)>,
    /// How packets are written.
    pub encoder: Encoder,
}

/// The medium's tap and the network's (`None`: no file).
pub type Taps = (Option<Box<PcapTap>>, Option<Box<PcapTap>>);

/// One open capture file.
struct TapFile {
    row: TraceFileRow,
    writer: PcapWriter<BufWriter<File>>,
}

/// Writes the frames of some interfaces to their files.
pub struct PcapTap {
    files: Vec<TapFile>,
    /// Indexed by radio (the medium's tap) or unused.
    radios: Vec<RadioWire>,
    /// 802.11 sequence number of each radio's current data frame.
    seq: Vec<u16>,
    /// Indexed by channel (the network's tap) or unused.
    channels: Vec<(u32, u32)>,
    encoder: Encoder,
    /// Reused between records.
    buf: Vec<u8>,
    natives: Vec<Packet>,
    /// The first write error; nothing more is written after it.
    error: Option<String>,
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

    /// Opens the files (writing their headers): the medium's tap and the network's, each
    /// `None` if it has no file. Errors name `trace.dir`.
    pub fn open(self) -> Result<Taps, ConfigError> {
        let Some(dir) = self.dir else {
            return Err(ConfigError::new(
                "trace.dir",
                "no folder for the capture files: give one (`airtcp run` puts them into its \
                 output folder, <out>/pcap)",
            ));
        };
        Self::check_dir(&dir)?;
        let open = |f: &PlannedFile| -> Result<TapFile, ConfigError> {
            let path: PathBuf = Path::new(&dir).join(&f.name);
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
            })
        };
        // Each tap numbers its own files: the plan's indices are renumbered per tap.
        let mut radio_files = Vec::new();
        let mut wired_files = Vec::new();
        let mut renumber = vec![UNTRACED; self.files.len()];
        for (i, f) in self.files.iter().enumerate() {
            let list = if f.radio {
                &mut radio_files
            } else {
                &mut wired_files
            };
            renumber[i] = list.len() as u32;
            list.push(open(f)?);
        }
        let at = |file: u32| match file {
            UNTRACED => UNTRACED,
            f => renumber[f as usize],
        };
        let radios: Vec<RadioWire> = self
            .radios
            .iter()
            .map(|r| RadioWire {
                file: at(r.file),
                ..*r
            })
            .collect();
        let channels: Vec<(u32, u32)> = self
            .channels
            .iter()
            .map(|&(tx, rx)| (at(tx), at(rx)))
            .collect();
        let tap = |files: Vec<TapFile>, radios: Vec<RadioWire>, channels: Vec<(u32, u32)>| {
            (!files.is_empty()).then(|| {
                Box::new(PcapTap {
                    seq: vec![0; radios.len()],
                    files,
                    radios,
                    channels,
                    encoder: self.encoder.clone(),
                    buf: Vec::with_capacity(512),
                    natives: Vec::new(),
                    error: None,
                })
            })
        };
        Ok((
            tap(radio_files, radios, Vec::new()),
            tap(wired_files, Vec::new(), channels),
        ))
    }
}

impl PcapTap {
    /// Radio `r` sent `frame` (`signal_mw`: `None`), or decoded it at `signal_mw`; `units`
    /// holds the natives of a coded frame.
    pub fn radio_frame(
        &mut self,
        now: Time,
        r: u32,
        frame: &Frame,
        signal_mw: Option<f64>,
        units: &UnitArena,
    ) {
        // The sender numbers its data frames (traced or not: a receiver's capture shows the
        // number a frame was sent with); a retry keeps its frame's number.
        let sender = frame.src as usize;
        if signal_mw.is_none() && frame.kind == FrameKind::Data && !frame.retry {
            if let Some(seq) = self.seq.get_mut(sender) {
                *seq = seq.wrapping_add(1) & 0x0fff;
            }
        }
        let Some(&wire) = self.radios.get(r as usize) else {
            return;
        };
        if wire.file == UNTRACED || self.error.is_some() {
            return;
        }
        let kind = match frame.kind {
            FrameKind::Data => dot11::Kind::Data,
            FrameKind::Ack => dot11::Kind::Ack,
            FrameKind::Rts => dot11::Kind::Rts,
            FrameKind::Cts => dot11::Kind::Cts,
        };
        let header = Dot11 {
            kind,
            src: frame.src,
            dst: frame.dst,
            duration_us: (frame.nav / 1_000).min(u64::from(u16::MAX)) as u16,
            seq: self.seq.get(sender).copied().unwrap_or(0),
            retry: frame.retry,
            rate_bps: frame.rate_bps,
            freq_mhz: wire.freq_mhz,
            ofdm: wire.ofdm,
            signal_dbm: signal_mw.map(|mw| (10.0 * mw.log10()).round().clamp(-128.0, 127.0) as i8),
        };
        self.buf.clear();
        dot11::frame(&mut self.buf, &header);
        let mut len = self.buf.len();
        if let (FrameKind::Data, Some((_, p))) = (frame.kind, frame.packet.as_ref()) {
            self.natives.clear();
            self.natives
                .extend(units.natives(frame.unit).iter().map(|n| n.packet));
            let at = self.buf.len();
            len = at + self.encoder.packet(&mut self.buf, p, &self.natives);
        }
        self.write(wire.file, now, len);
    }

    /// Wired channel `ch` started sending `p` (`arrived` false) or delivered it at its far end.
    pub fn wired_packet(&mut self, now: Time, ch: ChannelId, p: &Packet, arrived: bool) {
        let Some(&(tx, rx)) = self.channels.get(ch as usize) else {
            return;
        };
        let file = if arrived { rx } else { tx };
        if file == UNTRACED || self.error.is_some() {
            return;
        }
        self.buf.clear();
        let len = self.encoder.packet(&mut self.buf, p, &[]);
        self.write(file, now, len);
    }

    fn write(&mut self, file: u32, now: Time, len: usize) {
        let f = &mut self.files[file as usize];
        match f.writer.record_cut(now, &self.buf, len) {
            Ok(()) => f.row.records += 1,
            Err(e) => self.error = Some(format!("{}: {e}", f.row.file)),
        }
    }

    /// Flushes the files and reports them (with the first error, if writing stopped).
    pub fn finish(self) -> TraceReport {
        let mut error = self.error;
        let mut files = Vec::with_capacity(self.files.len());
        for f in self.files {
            if let Err(e) = f.writer.finish() {
                error.get_or_insert_with(|| format!("{}: {e}", f.row.file));
            }
            files.push(f.row);
        }
        TraceReport { files, error }
    }
}

impl super::Network {
    /// Opens the files of `plan` and installs the taps (before the first event).
    pub fn open_traces(&mut self, plan: TracePlan) -> Result<(), ConfigError> {
        let (radios, wired) = plan.open()?;
        self.wireless.pcap = radios;
        self.pcap = wired;
        Ok(())
    }

    /// Flushes and closes the capture files: what they hold, by file name (`None` without
    /// captures).
    pub fn finish_traces(&mut self) -> Option<TraceReport> {
        let taps = [self.wireless.pcap.take(), self.pcap.take()];
        let mut report: Option<TraceReport> = None;
        for tap in taps.into_iter().flatten() {
            let part = tap.finish();
            let whole = report.get_or_insert_with(TraceReport::default);
            whole.files.extend(part.files);
            if whole.error.is_none() {
                whole.error = part.error;
            }
        }
        if let Some(r) = report.as_mut() {
            r.files.sort_by(|a, b| a.file.cmp(&b.file));
        }
        report
    }
}
