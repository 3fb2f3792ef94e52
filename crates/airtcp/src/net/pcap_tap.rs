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
//!
//! An A-MPDU (802.11n aggregation) is one frame to the MAC and the medium, its MPDUs kept by the
//! medium beside it; a capture writes a record per MPDU, as a monitor interface delivers them.
//! The sender's tap is called where the frame goes on the air (`MacEnv::put_on_air`), with all
//! its MPDUs; a receiver's where the medium decides the frame's reception
//! (`Wireless::on_signal_end`), right after it has drawn which MPDUs the radio decoded and
//! before the MAC hears of the frame: the tap gets the slot's MPDUs and the draws (the bitmap
//! that then goes to the MAC as `RadioState::rx_mpdus`) and writes the decoded MPDUs only. The
//! MAC's per-call context stays as it was.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::sync::Arc;

use crate::error::ConfigError;
use crate::mac::frame::{Frame, FrameKind, Mpdu, Msdu, RadioId, UnitId, NO_SEQ, NO_UNIT};
use crate::metrics::pcap::dot11::{self, AmpduStatus, Dot11, Mcs, Phy};
use crate::metrics::pcap::packet::Encoder;
use crate::metrics::pcap::{PcapWriter, LINKTYPE_RADIOTAP, LINKTYPE_RAW};
use crate::metrics::results::{TraceFileRow, TraceReport};
use crate::net::forwarding::UnitArena;
use crate::phy::ht::{GuardInterval, HtConfig, Width};
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
    /// The channel is in the 5 GHz band (802.11a, 802.11n by default) rather than 2.4 GHz.
    pub ghz5: bool,
    /// OFDM (802.11a, 802.11n) rather than DSSS/CCK, for non-HT frames.
    pub ofdm: bool,
    /// An 802.11n radio's HT PHY: which rates are MCSs, at what width and guard interval.
    pub ht: Option<HtConfig>,
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
    ghz5: bool,
    ofdm: bool,
    ht: Option<HtConfig>,
    /// A-MPDUs written so far: the next one's reference number.
    ampdus: u32,
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
    /// holds the natives of a coded frame. For an A-MPDU, `mpdus` are its MPDUs and bit i of
    /// `decoded` says whether MPDU i is written (the sender: all; a receiver: those it decoded);
    /// both are ignored for other frames. Out of line: the medium's handlers stay as small as
    /// they were without captures.
    #[inline(never)]
    pub fn frame(
        &mut self,
        now: Time,
        frame: &Frame,
        (mpdus, msdus): (&[Mpdu], &[Msdu]),
        decoded: u64,
        signal_mw: Option<f64>,
        units: &UnitArena,
    ) {
        if self.file.error.is_some() {
            return;
        }
        let kind = match frame.kind {
            // Under a Block Ack agreement 802.11n sends QoS data (its sequence number is the
            // agreement's); outside one, plain data as before.
            FrameKind::Data if frame.seq == NO_SEQ => dot11::Kind::Data,
            FrameKind::Data => dot11::Kind::QosData,
            FrameKind::Ack => dot11::Kind::Ack,
            FrameKind::Rts => dot11::Kind::Rts,
            FrameKind::Cts => dot11::Kind::Cts,
            FrameKind::BlockAckReq => dot11::Kind::BlockAckReq,
            FrameKind::BlockAck => dot11::Kind::BlockAck {
                bitmap: frame.bitmap,
            },
        };
        let packet = frame.packet.as_ref().map(|(_, p)| p);
        let mut header = Dot11 {
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
            phy: self.phy(frame),
            freq_mhz: self.freq_mhz,
            ghz5: self.ghz5,
            signal_dbm: signal_mw.map(|mw| (10.0 * mw.log10()).round().clamp(-128.0, 127.0) as i8),
            ampdu: None,
        };
        if frame.mpdus == 0 || mpdus.is_empty() {
            match (packet, mpdus.first()) {
                // A lone A-MSDU.
                (Some(p), Some(m)) if m.extra > 0 => self.write_amsdu(now, &header, p, msdus),
                _ => self.write(now, &header, packet, frame.unit, units),
            }
            return;
        }
        // An A-MPDU: a record per MPDU, with its own sequence number, Retry bit and packet, all
        // at the frame's instant; the reference number ties them together (counted per file, as
        // each capturing interface numbers the A-MPDUs it sees).
        let reference = self.ampdus;
        self.ampdus = self.ampdus.wrapping_add(1);
        let last = mpdus.len() - 1;
        let mut next_msdu = 0;
        for (i, m) in mpdus.iter().enumerate() {
            let extra = next_msdu..next_msdu + usize::from(m.extra);
            next_msdu = extra.end;
            if i >= 64 || decoded & (1 << i) == 0 {
                continue;
            }
            header.seq = m.seq;
            header.retry = m.retry;
            header.ampdu = Some(AmpduStatus {
                reference,
                last: i == last,
            });
            match msdus.get(extra) {
                Some(rest) if !rest.is_empty() => {
                    self.write_amsdu(now, &header, &m.packet, rest);
                }
                _ => self.write(now, &header, Some(&m.packet), NO_UNIT, units),
            }
        }
    }

    /// Writes one record of an A-MSDU: `header` as QoS data with A-MSDU Present, then a
    /// subframe per MSDU (`first`, then `rest`). The payloads, which no record writes, are
    /// zero-filled in every subframe but the last so that each subframe starts where its
    /// predecessor's length field says; the last is cut after its headers as a lone packet is.
    fn write_amsdu(&mut self, now: Time, header: &Dot11, first: &Packet, rest: &[Msdu]) {
        let header = Dot11 {
            kind: dot11::Kind::QosAmsdu,
            ..*header
        };
        self.buf.clear();
        dot11::frame(&mut self.buf, &header);
        let mac_header = self.buf.len();
        let packets = std::iter::once(first).chain(rest.iter().map(|(_, p)| p));
        let mut len = 0;
        for (k, p) in packets.enumerate() {
            // Until the last subframe every byte is written, so the record's length so far is
            // the buffer's; subframes after the first start 4-byte aligned in the MPDU body.
            let body = self.buf.len() - mac_header;
            self.buf.resize(mac_header + body.next_multiple_of(4), 0);
            let subframe = dot11::amsdu_subframe(&mut self.buf, &header);
            let at = self.buf.len();
            // The length as the packet is written (a SACK block's bytes counted).
            let wire = self.encoder.packet(&mut self.buf, p, &[]);
            dot11::set_amsdu_length(&mut self.buf, subframe, wire);
            len = at + wire;
            if k < rest.len() {
                self.buf.resize(len, 0);
            }
        }
        self.file.write(now, &self.buf, len);
    }

    /// How `frame` was modulated: an HT MCS for an 802.11n radio's data frame at one of its
    /// MCSs' rates (its control frames go at non-HT rates, §10.6.6.5.2), else the radio's non-HT
    /// PHY.
    fn phy(&self, frame: &Frame) -> Phy {
        let ht = self
            .ht
            .filter(|_| frame.kind == FrameKind::Data)
            .and_then(|ht| Some((ht, ht.mode_of(frame.rate_bps)?)));
        match ht {
            Some((ht, mode)) => Phy::Ht(Mcs {
                index: mode.mcs,
                bw40: ht.channel_width == Width::Mhz40,
                short_gi: ht.guard_interval == GuardInterval::Short,
            }),
            None if self.ofdm => Phy::Ofdm,
            None => Phy::Dsss,
        }
    }

    /// Writes one record: `header`, then `packet` (a data frame's) with the natives of `unit`.
    fn write(
        &mut self,
        now: Time,
        header: &Dot11,
        packet: Option<&Packet>,
        unit: UnitId,
        units: &UnitArena,
    ) {
        self.buf.clear();
        dot11::frame(&mut self.buf, header);
        let mut len = self.buf.len();
        let data = matches!(header.kind, dot11::Kind::Data | dot11::Kind::QosData);
        debug_assert!(
            header.kind != dot11::Kind::QosAmsdu,
            "write_amsdu writes A-MSDUs"
        );
        if let (true, Some(p)) = (data, packet) {
            self.natives.clear();
            let natives = units.natives(unit).iter().map(|n| n.packet);
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
                ghz5: r.ghz5,
                ofdm: r.ofdm,
                ht: r.ht,
                ampdus: 0,
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
