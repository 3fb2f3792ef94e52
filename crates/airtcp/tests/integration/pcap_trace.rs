//! Packet captures (`trace:`, docs/pcap.md) read back: every file parses, its frames are what
//! the run's tables count (the MAC's attempts and answers per link, TCP's segments and
//! retransmissions per flow), bad folders and names are refused before the run, and a run
//! without the block has the results it had.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;
use airtcp::metrics::results::RunResults;
use serde_json::{json, Value};

/// A folder of its own under the system's temporary folder, emptied.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("airtcp-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// One record: time (ns), the bytes kept, the frame's full length.
struct Record {
    t: u64,
    data: Vec<u8>,
    len: u32,
}

/// A pcap file's link type and records (nanosecond, little-endian files only: what airtcp
/// writes).
fn read_pcap(path: &Path) -> (u32, Vec<Record>) {
    let b = std::fs::read(path).expect("the file is there");
    let u32le = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(u32le(0), 0xa1b2_3c4d, "{}: nanosecond pcap", path.display());
    let linktype = u32le(20);
    let mut records = Vec::new();
    let mut at = 24;
    while at < b.len() {
        let (secs, nanos, kept, len) = (u32le(at), u32le(at + 4), u32le(at + 8), u32le(at + 12));
        let data = b[at + 16..at + 16 + kept as usize].to_vec();
        records.push(Record {
            t: u64::from(secs) * S + u64::from(nanos),
            data,
            len,
        });
        at += 16 + kept as usize;
    }
    assert_eq!(at, b.len(), "{}: whole records", path.display());
    (linktype, records)
}

/// An 802.11 frame of a radiotap record: (frame control byte, retry, receiver address's last
/// two bytes, transmitter's (data, RTS), received (has a signal), the IPv4 packet of a data
/// frame).
struct Dot11<'a> {
    fc: u8,
    retry: bool,
    ra: u16,
    ta: Option<u16>,
    received: bool,
    ip: &'a [u8],
}

fn dot11(r: &Record) -> Dot11<'_> {
    let d = &r.data;
    let rt_len = u16::from_le_bytes([d[2], d[3]]) as usize;
    let present = u32::from_le_bytes(d[4..8].try_into().unwrap());
    let m = &d[rt_len..];
    let addr = |at: usize| u16::from_be_bytes([m[at + 4], m[at + 5]]);
    let fc = m[0];
    let (ta, ip) = match fc {
        0x08 => (Some(addr(10)), &m[32..]),
        0xb4 => (Some(addr(10)), &m[16..16]),
        _ => (None, &m[10..10]),
    };
    Dot11 {
        fc,
        retry: m[1] & 0x08 != 0,
        ra: addr(4),
        ta,
        received: present & (1 << 5) != 0,
        ip,
    }
}

/// A TCP segment's (source port, sequence number, payload length) in an IPv4 packet (`None`
/// for another protocol or a pure ACK).
fn tcp_data(ip: &[u8]) -> Option<(u16, u32, u32)> {
    if ip.len() < 40 || ip[9] != 6 {
        return None;
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([ip[2], ip[3]]) as u32;
    let t = &ip[ihl..];
    let off = (t[12] >> 4) as u32 * 4;
    let len = total - ihl as u32 - off;
    (len > 0).then(|| {
        (
            u16::from_be_bytes([t[0], t[1]]),
            u32::from_be_bytes(t[4..8].try_into().unwrap()),
            len,
        )
    })
}

fn chain(dir: &Path, frame_error: f64) -> Value {
    json!({
        "name": "pcap-chain", "duration": 20 * S, "seed": 3,
        "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                  "rts_cts": false, "frame_error": frame_error,
                  "propagation": {"kind": "range", "range": 250.0},
                  "queue": {"kind": "droptail", "packets": 1000}},
        "topology": {"kind": "chain", "hops": 3, "spacing": 200.0},
        "routing": {"kind": "static"},
        "flows": [{"id": "f1", "src": "n0", "dst": "n3", "start": 100 * MS,
                   "app": {"kind": "bulk", "bytes": 400_000},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": true, "mss": 1000,
                                 "header_bytes": 52}}],
        "trace": {"pcap": "all", "dir": dir.to_str().unwrap()}
    })
}

/// Radio id of a node of the chain (`n<i>`: one radio each, in node order).
fn radio(name: &str) -> u16 {
    name[1..].parse().unwrap()
}

#[test]
fn a_lossy_chain_captures_what_the_tables_count() {
    let dir = scratch("chain");
    let r = run(&chain(&dir, 0.1));
    let report = r.trace.as_ref().expect("a trace report");
    assert_eq!(report.error, None);
    let names: Vec<&str> = report.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(
        names,
        [
            "n0-wifi0.pcap",
            "n1-wifi0.pcap",
            "n2-wifi0.pcap",
            "n3-wifi0.pcap"
        ]
    );
    let mut files = BTreeMap::new();
    for f in &report.files {
        let (linktype, records) = read_pcap(&dir.join(&f.file));
        assert_eq!(linktype, 127);
        assert_eq!(records.len() as u64, f.records, "{}", f.file);
        assert!(
            records.windows(2).all(|w| w[0].t <= w[1].t),
            "in time order"
        );
        assert!(records.iter().all(|x| x.len as usize >= x.data.len()));
        files.insert(f.node.clone(), records);
    }
    // The MAC's attempts and answers of each link: the data frames a radio sent to the
    // neighbour, the ACKs addressed to it that it decoded right after.
    for link in &r.links {
        let (from, to) = (radio(&link.from), radio(&link.to));
        let frames: Vec<Dot11> = files[&link.from].iter().map(dot11).collect();
        let sent = frames
            .iter()
            .filter(|f| f.fc == 0x08 && !f.received && f.ra == to)
            .count() as u64;
        assert_eq!(sent, link.attempts, "{} -> {}", link.from, link.to);
        let acks = frames
            .iter()
            .filter(|f| f.fc == 0xd4 && f.received && f.ra == from)
            .count() as u64;
        let answered: u64 = r
            .links
            .iter()
            .filter(|l| l.from == link.from)
            .map(|l| l.answered)
            .sum();
        assert_eq!(acks, answered, "ACKs decoded by {}", link.from);
        // What the neighbour decoded of them is in its own file, with a signal.
        let heard = files[&link.to]
            .iter()
            .map(dot11)
            .filter(|f| f.fc == 0x08 && f.received && f.ta == Some(from) && f.ra == to)
            .count() as u64;
        assert!(heard <= sent && heard > 0, "{heard} of {sent}");
    }
    // TCP at the source: each segment TCP sent left in a first attempt (the MAC's retries set
    // the Retry bit), and a segment not above the highest byte sent before is a retransmission.
    let flow = &r.flows[0];
    let mut highest = 0u32;
    let (mut segments, mut again) = (0u64, 0u64);
    for f in files["n0"].iter().map(dot11) {
        if f.fc != 0x08 || f.received || f.retry {
            continue;
        }
        if let Some((port, seq, len)) = tcp_data(f.ip) {
            assert_eq!(port, 49152);
            segments += 1;
            if seq + len <= highest {
                again += 1;
            }
            highest = highest.max(seq + len);
        }
    }
    assert_eq!(segments, flow.packets_sent);
    assert_eq!(again, flow.retransmissions);
    assert!(flow.retransmissions > 0, "the losses made TCP retransmit");
    assert_eq!(highest, 1 + 400_000, "bytes 1..=400000 were sent");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn wired_links_are_captured_as_raw_ip_at_both_ends() {
    let dir = scratch("p2p");
    // A transfer that ends before the run does: nothing is left on the link.
    let mut v = p2p(
        10_000_000,
        5 * MS,
        0.02,
        5 * S,
        json!({"kind": "tcp", "sack": true}),
    );
    v["flows"][0]["app"] = json!({"kind": "bulk", "bytes": 1_000_000});
    v["trace"] = json!({"pcap": ["B", "A"], "what": ["wired"], "dir": dir.to_str().unwrap()});
    let r = run(&v);
    let report = r.trace.as_ref().expect("a trace report");
    let names: Vec<&str> = report.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(names, ["A-link0.pcap", "B-link0.pcap"]);
    let (linktype, a) = read_pcap(&dir.join("A-link0.pcap"));
    assert_eq!(linktype, 101);
    let (_, b) = read_pcap(&dir.join("B-link0.pcap"));
    // A sends segments and receives ACKs; B the other way round, less what the link lost.
    let data = |rs: &[Record]| rs.iter().filter(|x| tcp_data(&x.data).is_some()).count() as u64;
    let q = r
        .queues
        .iter()
        .find(|q| q.queue == "A->B")
        .expect("A's queue");
    assert_eq!(data(&a), q.transmitted);
    let lost: u64 = r
        .drops
        .iter()
        .filter(|d| d.reason == "channel_error")
        .map(|d| d.packets)
        .sum();
    assert!(lost > 0);
    assert_eq!(data(&b), q.transmitted - lost);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cope_relay_captures_coded_frames_with_their_natives() {
    let dir = scratch("cope");
    let v = json!({
        "name": "pcap-cope", "duration": 10 * S, "seed": 1,
        "radio": {"standard": "802.11b", "data_rate": 1_000_000, "basic_rate": 1_000_000,
                  "rts_cts": true, "propagation": {"kind": "two_ray_ground"},
                  "queue": {"kind": "droptail", "packets": 10}},
        "topology": {"kind": "alice_bob", "spacing": 200.0},
        "routing": {"kind": "static"},
        "coding": {"scheme": "cope", "queue": "fifo"},
        "flows": [
            {"id": "a", "src": "n1", "dst": "n2", "app": {"kind": "cbr", "rate": 400_000, "packet_size": 472},
             "transport": {"kind": "udp"}},
            {"id": "b", "src": "n2", "dst": "n1", "app": {"kind": "cbr", "rate": 400_000, "packet_size": 472},
             "transport": {"kind": "udp"}}],
        "trace": {"pcap": ["n0"], "dir": dir.to_str().unwrap()}
    });
    let r = run(&v);
    let (_, relay) = read_pcap(&dir.join("n0-wifi0.pcap"));
    let mut coded = 0;
    for f in relay
        .iter()
        .map(dot11)
        .filter(|f| f.fc == 0x08 && !f.received)
    {
        let ip = f.ip;
        if ip[9] != 253 {
            continue;
        }
        let e = &ip[20..];
        assert_eq!(
            (e[0], e[1]),
            (1, 2),
            "version 1, a forwarding layer's packet"
        );
        let name_len = e[2] as usize;
        assert_eq!(&e[8..8 + name_len], b"cope");
        let natives = e[3] as usize;
        let n = u16::from_be_bytes([e[4], e[5]]) as usize;
        let mut at = 8 + name_len + n;
        for _ in 0..natives {
            let k = u16::from_be_bytes([e[at], e[at + 1]]) as usize;
            let inner = &e[at + 2..at + 2 + k];
            assert_eq!(inner[0] >> 4, 4, "an IPv4 packet");
            assert_eq!(inner[9], 17, "a UDP datagram");
            at += 2 + k;
        }
        coded += (natives >= 2) as u64;
    }
    assert!(r.conservation.ok);
    assert!(coded > 0, "the relay sent coded frames");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_folders_and_names_are_refused_before_the_run() {
    let refused = |v: &Value| {
        let cfg = serde_json::from_value(v.clone()).expect("parses");
        airtcp::simulate(&cfg).expect_err("refused").to_string()
    };
    let file = scratch("file");
    std::fs::write(&file, b"x").unwrap();
    let mut v = chain(&file.join("sub"), 0.0);
    let e = refused(&v);
    assert!(e.starts_with("trace.dir: cannot write"), "{e}");
    v["trace"] = json!({"pcap": ["n0", "n1", "x"], "dir": file.to_str().unwrap()});
    assert_eq!(refused(&v), "trace.pcap[2]: no node named 'x'");
    v["trace"] = json!({"pcap": ["n0"], "what": ["wired"], "dir": "unused"});
    assert_eq!(
        refused(&v),
        "trace.pcap[0]: 'n0' has no wired link to capture (trace.what)"
    );
    v["trace"] = json!({"pcap": "all"});
    assert!(refused(&v).starts_with("trace.dir: required"));
    // Checking refuses what running refuses, and checking writes no file.
    let cfg = serde_json::to_string(&v).unwrap();
    assert!(airtcp::check_json(&cfg).is_err());
    let dir = scratch("check");
    v["trace"] = json!({"pcap": "all", "dir": dir.to_str().unwrap()});
    airtcp::check_json(&serde_json::to_string(&v).unwrap()).expect("accepted");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn the_block_changes_no_result() {
    let dir = scratch("same");
    let with = run(&chain(&dir, 0.1));
    let mut v = chain(&dir, 0.1);
    v.as_object_mut().unwrap().remove("trace");
    let without = run(&v);
    let strip = |r: &RunResults| {
        let mut j = serde_json::to_value(r).unwrap();
        let o = j.as_object_mut().unwrap();
        o.remove("timing");
        o.remove("trace");
        j
    };
    assert_eq!(strip(&with), strip(&without));
    assert!(serde_json::to_value(&without)
        .unwrap()
        .get("trace")
        .is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_write_error_stops_the_capture_not_the_run() {
    // A file that is /dev/full: every write fails (ENOSPC) once the buffer is flushed.
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full here");
        return;
    }
    let dir = scratch("full");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("n1-wifi0.pcap")).unwrap();
    let v = chain(&dir, 0.1);
    let with = run(&v);
    let report = with.trace.as_ref().expect("a trace report");
    let error = report.error.as_deref().expect("the error");
    assert!(error.starts_with("n1-wifi0.pcap: "), "{error}");
    let mut plain = v.clone();
    plain.as_object_mut().unwrap().remove("trace");
    assert_eq!(
        with.flows[0].bytes_delivered,
        run(&plain).flows[0].bytes_delivered
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The radiotap fields an 802.11n capture has: (the Rate field, the MCS field's known, flags and
/// index, the A-MPDU status's reference number and flags), and the 802.11 frame after them.
struct Radiotap<'a> {
    rate: Option<u8>,
    mcs: Option<[u8; 3]>,
    ampdu: Option<(u32, u16)>,
    signal: bool,
    mac: &'a [u8],
}

/// Walks the fields airtcp writes (flags, rate, channel, antenna signal, MCS, A-MPDU status),
/// each aligned to its size from the header's start as radiotap requires.
fn radiotap(r: &Record) -> Radiotap<'_> {
    let d = &r.data;
    let len = u16::from_le_bytes([d[2], d[3]]) as usize;
    let present = u32::from_le_bytes(d[4..8].try_into().unwrap());
    let known = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 19) | (1 << 20);
    assert_eq!(present & !known, 0, "only the fields airtcp writes");
    let mut at = 8usize;
    let mut field = |bit: u32, align: usize, size: usize| {
        if present & (1 << bit) == 0 {
            return None;
        }
        at = at.next_multiple_of(align);
        let f = &d[at..at + size];
        at += size;
        Some(f)
    };
    field(1, 1, 1).expect("flags");
    let rate = field(2, 1, 1).map(|f| f[0]);
    field(3, 2, 4).expect("channel");
    let signal = field(5, 1, 1).is_some();
    let mcs = field(19, 1, 3).map(|f| [f[0], f[1], f[2]]);
    let ampdu = field(20, 4, 8).map(|f| {
        (
            u32::from_le_bytes(f[0..4].try_into().unwrap()),
            u16::from_le_bytes([f[4], f[5]]),
        )
    });
    assert_eq!(at, len, "the header ends after its last field");
    Radiotap {
        rate,
        mcs,
        ampdu,
        signal,
        mac: &d[len..],
    }
}

/// One TCP hop of 802.11n at MCS 7 (65 Mbit/s) with A-MPDUs, at a distance where MCS 7 loses
/// some MPDUs.
fn ht_hop(dir: &Path) -> Value {
    json!({
        "name": "pcap-ht", "duration": 1500 * MS, "seed": 2,
        "radio": {
            "standard": "802.11n", "data_rate": 65_000_000, "basic_rate": 6_000_000,
            "tx_power": 16.0206,
            "propagation": {"kind": "log_distance", "exponent": 3.0, "reference_distance": 1.0,
                            "reference_loss": 46.6777},
        },
        "topology": {"kind": "explicit", "nodes": [
            {"name": "n0", "x": 0.0, "y": 0.0}, {"name": "n1", "x": 28.0, "y": 0.0}]},
        "routing": {"kind": "static", "min_delivery": 0.0},
        "flows": [{"id": "f", "src": "n0", "dst": "n1", "start": 100 * MS, "app": {"kind": "bulk"},
                   "transport": {"kind": "tcp", "cc": "newreno", "mss": 1460}}],
        "trace": {"pcap": "all", "dir": dir.to_str().unwrap()}
    })
}

/// The A-MPDUs a file holds that its radio sent (`received` false) or received, in order:
/// (time, the MPDUs' sequence numbers, whether the A-MPDU's last MPDU is among them). Checks that each A-MPDU's records are adjacent, at one instant, and
/// that reference numbers are not reused.
fn ampdus(records: &[Record], received: bool) -> Vec<(u64, Vec<u16>, bool)> {
    let mut out: Vec<(u64, Vec<u16>, bool)> = Vec::new();
    let mut refs = Vec::new();
    for r in records {
        let rt = radiotap(r);
        let Some((reference, flags)) = rt.ampdu.filter(|_| rt.signal == received) else {
            continue;
        };
        assert_eq!(rt.mac[0], 0x88, "an MPDU is QoS data");
        assert_eq!(flags & 0x4, 0x4, "last subframe known");
        let seq = u16::from_le_bytes([rt.mac[22], rt.mac[23]]) >> 4;
        let last = flags & 0x8 != 0;
        if refs.last() == Some(&reference) {
            let a = out.last_mut().unwrap();
            assert_eq!(a.0, r.t, "one A-MPDU, one instant");
            assert!(!a.2, "nothing after the last MPDU");
            a.1.push(seq);
            a.2 = last;
        } else {
            assert!(!refs.contains(&reference), "reference {reference} reused");
            refs.push(reference);
            out.push((r.t, vec![seq], last));
        }
    }
    out
}

#[test]
fn an_802_11n_hop_captures_each_mpdu_of_its_a_mpdus() {
    let dir = scratch("ht");
    let r = run(&ht_hop(&dir));
    assert_eq!(r.trace.as_ref().expect("a trace report").error, None);
    let (_, n0) = read_pcap(&dir.join("n0-wifi0.pcap"));
    let (_, n1) = read_pcap(&dir.join("n1-wifi0.pcap"));
    // The sender writes every MPDU it sends: as many A-MPDUs and MPDUs as the links table has.
    let sent = ampdus(&n0, false);
    let link = r.links.iter().find(|l| l.from == "n0").expect("n0's link");
    let (count, per) = (link.ampdus.unwrap(), link.mpdus_per_ampdu.unwrap());
    assert!(count > 50 && per > 4.0, "{count} A-MPDUs of {per} MPDUs");
    assert_eq!(sent.len() as u64, count);
    let mpdus: usize = sent.iter().map(|a| a.1.len()).sum();
    assert!((mpdus as f64 / count as f64 - per).abs() < 1e-9);
    assert!(sent.iter().all(|a| a.2), "each ends with its last MPDU");
    // Every data frame (TCP's segments and its ACKs) is at MCS 7, 20 MHz, long guard interval,
    // without a Rate field; control frames go at non-HT rates, in the Rate field.
    for f in n0.iter().chain(&n1).map(radiotap) {
        match f.mac[0] {
            0x88 | 0x08 if !f.signal => {
                assert_eq!(f.mcs, Some([0x1f, 0, 7]));
                assert_eq!(f.rate, None);
            }
            0x94 | 0x84 | 0xd4 => {
                assert_eq!(f.mcs, None);
                assert!(f.rate.is_some());
            }
            _ => {}
        }
    }
    // The receiver writes the MPDUs it decoded, each a subset of what was sent, and sends a
    // Block Ack whose bitmap has them.
    let got = ampdus(&n1, true);
    assert!(!got.is_empty());
    let mut missed = 0;
    for (t, seqs, last) in &got {
        let (_, all, _) = sent.iter().rev().find(|a| a.0 < *t).expect("sent before");
        assert!(seqs.iter().all(|s| all.contains(s)), "{seqs:?} of {all:?}");
        assert_eq!(*last, seqs.last() == all.last());
        missed += all.len() - seqs.len();
        let answer = n1
            .iter()
            .map(|x| (x.t, radiotap(x)))
            .find(|(at, f)| at >= t && f.mac[0] == 0x94 && !f.signal)
            .expect("a Block Ack");
        let m = answer.1.mac;
        let start = u16::from_le_bytes([m[18], m[19]]) >> 4;
        let bitmap = u64::from_le_bytes(m[20..28].try_into().unwrap());
        for s in seqs {
            let k = (s.wrapping_sub(start)) & 0x0fff;
            assert!(
                k < 64 && bitmap & (1 << k) != 0,
                "{s} in the Block Ack from {start}"
            );
        }
    }
    assert!(
        missed > 0,
        "some MPDUs were lost: the receiver's file lacks them"
    );
    // The Block Acks are in both files: sent by n1, decoded by n0.
    let bas = |rs: &[Record], received: bool| {
        rs.iter()
            .map(radiotap)
            .filter(|f| f.mac[0] == 0x94 && f.signal == received)
            .count()
    };
    assert!(bas(&n1, false) >= got.len());
    assert!(bas(&n0, true) > 0 && bas(&n0, true) <= bas(&n1, false));
    tshark_reads_mcs_and_ampdus(&dir.join("n0-wifi0.pcap"), mpdus, count);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// tshark (when installed: Debian's package, `make tshark`) reads the MCS and the A-MPDUs of
/// the sender's file as airtcp wrote them: the MPDUs n0 sent (transmitter 02:00:00:00:00:00)
/// at MCS 7, their reference numbers, one last MPDU per A-MPDU, and nothing malformed.
fn tshark_reads_mcs_and_ampdus(path: &Path, mpdus: usize, ampdus: u64) {
    if std::process::Command::new("tshark")
        .arg("-v")
        .output()
        .is_err()
    {
        eprintln!("skipped: tshark is not installed (make tshark installs it)");
        return;
    }
    let fields = |filter: &str, field: &str| {
        let out = std::process::Command::new("tshark")
            .args([
                "-r",
                path.to_str().unwrap(),
                "-Y",
                filter,
                "-T",
                "fields",
                "-e",
            ])
            .arg(field)
            .output()
            .expect("tshark runs");
        assert!(out.status.success(), "{filter}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    const SENT: &str = "wlan.ta == 02:00:00:00:00:00 && wlan.fc.type_subtype == 0x28";
    let mcs = fields(
        &format!("{SENT} && radiotap.ampdu.reference"),
        "wlan_radio.11n.mcs_index",
    );
    assert_eq!(mcs.lines().count(), mpdus);
    assert!(mcs.lines().all(|m| m == "7"), "every MPDU at MCS 7");
    let rate = fields(SENT, "wlan_radio.data_rate");
    assert!(rate.lines().all(|r| r == "65"), "MCS 7, 20 MHz, long GI");
    let refs = fields(SENT, "radiotap.ampdu.reference");
    let distinct: std::collections::BTreeSet<&str> =
        refs.lines().filter(|r| !r.is_empty()).collect();
    assert_eq!(distinct.len() as u64, ampdus);
    let last = fields(
        &format!("{SENT} && radiotap.ampdu.flags.last == 1"),
        "frame.number",
    );
    assert_eq!(last.lines().count() as u64, ampdus);
    let bad = fields(
        "_ws.malformed || _ws.expert.severity >= error",
        "frame.number",
    );
    assert_eq!(bad, "", "malformed frames");
    let block_acks = fields("wlan.fc.type_subtype == 0x19", "wlan.ba.bm");
    assert!(block_acks.lines().count() > 0, "Block Acks");
}

/// The packets of an A-MSDU record (QoS data with A-MSDU Present): the IPv4 packet of each
/// subframe, walked by the subframes' length fields as a reader does. Checks that the walk ends
/// at the frame's full length (the last subframe cut after its headers) and that the subframes
/// before the last are whole.
fn amsdu_packets(r: &Record) -> Vec<Vec<u8>> {
    let d = &r.data;
    let rt_len = u16::from_le_bytes([d[2], d[3]]) as usize;
    let body = rt_len + 26;
    let mut at = body;
    let mut packets = Vec::new();
    loop {
        let sub = &d[at..];
        let msdu = u16::from_be_bytes([sub[12], sub[13]]) as usize;
        assert_eq!(
            sub[14..22],
            [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00],
            "LLC/SNAP"
        );
        let end = at + 14 + msdu;
        packets.push(sub[22..(14 + msdu).min(sub.len())].to_vec());
        if end >= r.len as usize {
            assert_eq!(end, r.len as usize, "the last subframe ends the frame");
            return packets;
        }
        assert!(end <= d.len(), "a subframe before the last is whole");
        at = body + (end - body).next_multiple_of(4);
    }
}

#[test]
fn a_msdus_are_captured_with_their_subframes() {
    let dir = scratch("amsdu");
    let mut v = ht_hop(&dir);
    v["radio"]["aggregation"] = json!({"max_amsdu_bytes": 7935});
    v["topology"]["nodes"][1]["x"] = json!(10.0);
    let r = run(&v);
    let link = r.links.iter().find(|l| l.from == "n0").expect("n0's link");
    let (built, per) = (link.amsdus.unwrap(), link.msdus_per_amsdu.unwrap());
    // 1460-byte segments: five 1522-byte subframes (14 + 8 + 1500) fit 7935 bytes.
    assert!(
        built > 50 && per > 4.5 && per <= 5.0,
        "{built} A-MSDUs of {per}"
    );
    let (_, n0) = read_pcap(&dir.join("n0-wifi0.pcap"));
    let mut segments = 0;
    for rec in n0.iter().filter(|rec| !radiotap(rec).signal) {
        let mac = radiotap(rec).mac;
        if mac[0] != 0x88 || mac[24] & 0x80 == 0 {
            continue;
        }
        let packets = amsdu_packets(rec);
        assert!(packets.len() >= 2, "an A-MSDU carries two MSDUs or more");
        // Every subframe holds a whole segment's headers, read at its own offset.
        let lens: Vec<u32> = packets
            .iter()
            .filter_map(|p| tcp_data(p))
            .map(|t| t.2)
            .collect();
        assert_eq!(lens, vec![1460; packets.len()]);
        segments += lens.len();
    }
    assert!(
        segments as u64 >= built * 4,
        "{segments} segments in {built} A-MSDUs"
    );
    tshark_reads_amsdus(&dir.join("n0-wifi0.pcap"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// tshark (when installed) reads every A-MSDU's subframes, and nothing is malformed.
fn tshark_reads_amsdus(path: &Path) {
    let Ok(out) = std::process::Command::new("tshark")
        .args(["-r", path.to_str().unwrap(), "-Y"])
        .arg("_ws.malformed || _ws.expert.severity >= error || wlan.qos.amsdupresent == 1")
        .args([
            "-T",
            "fields",
            "-e",
            "wlan.qos.amsdupresent",
            "-e",
            "_ws.malformed",
        ])
        .output()
    else {
        eprintln!("skipped: tshark is not installed (make tshark installs it)");
        return;
    };
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().count() > 50, "A-MSDUs found");
    assert!(text.lines().all(|l| l.trim() == "1"), "malformed: {text}");
}
