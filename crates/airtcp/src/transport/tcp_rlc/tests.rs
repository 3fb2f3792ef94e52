//! Protocol tests of TCP-RLC's sender and receiver, read as packet traces: the paper's Fig. 3
//! scenarios (frames numbered from 0 here, from 1 in the paper), stale packets, the timer.

use super::receiver::{DecoderMode, RlcField, RlcReceiver};
use super::sender::{RlcSender, RlcSenderConfig};
use super::RlcIo;
use crate::sim::header::rlc::{Payload, Priority, RlcData, RlcFeedback};
use crate::sim::time::MILLIS;
use crate::sim::{Rng, Time};

/// Records what the sender sends.
#[derive(Default)]
struct Recorder {
    now: Time,
    sent: Vec<RlcData>,
    timer: Option<Time>,
}

impl RlcIo for Recorder {
    fn now(&self) -> Time {
        self.now
    }
    fn send(&mut self, packet: RlcData) {
        self.sent.push(packet);
    }
    fn set_timer(&mut self, deadline: Option<Time>) {
        self.timer = deadline;
    }
}

/// A sender and a receiver joined by hand: the test picks which sent packets arrive, in which
/// order; every arrival's feedback goes straight back.
struct Pair {
    tx: RlcSender,
    rx: RlcReceiver,
    io: Recorder,
    /// Feedback in arrival order.
    feedback: Vec<RlcFeedback>,
}

fn config(cwnd: u32, r: u32) -> RlcSenderConfig {
    RlcSenderConfig {
        redundancy: r,
        initial_cwnd: cwnd,
        max_cwnd: 10_000,
        dupthresh: 3,
        initial_rto: 1_000 * MILLIS,
        frames: None,
        source_window: Default::default(),
    }
}

impl Pair {
    fn new(cwnd: u32, r: u32, literal_dup: bool) -> Self {
        let mut p = Pair {
            tx: RlcSender::new(config(cwnd, r), Rng::stream(1, "rlc")),
            rx: RlcReceiver::new(RlcField::Gf8191, DecoderMode::Exact, literal_dup),
            io: Recorder::default(),
            feedback: Vec::new(),
        };
        p.tx.start(&mut p.io);
        p
    }

    /// Packet `i` of those sent arrives, 10 ms later than the last event.
    fn arrive(&mut self, i: usize) -> RlcFeedback {
        self.io.now += 10 * MILLIS;
        let fb = self.rx.on_data(&self.io.sent[i], self.io.now).feedback;
        self.feedback.push(fb);
        self.tx.on_feedback(&fb, &mut self.io);
        fb
    }

    /// Index of the systematic packet of `frame`.
    fn frame(&self, frame: u64) -> usize {
        self.io
            .sent
            .iter()
            .position(|p| p.payload == Payload::Systematic && p.frame == frame)
            .unwrap_or_else(|| panic!("frame {frame} was not sent"))
    }

    /// Indices of the coded packets of the block starting at `start`, of `priority`, in sending
    /// order.
    fn coded(&self, start: u64, priority: Priority) -> Vec<usize> {
        (0..self.io.sent.len())
            .filter(|&i| {
                let p = &self.io.sent[i];
                p.is_coded() && p.block_start == start && p.priority == priority
            })
            .collect()
    }

    fn acks(&self) -> Vec<(u64, u64, bool)> {
        self.feedback
            .iter()
            .map(|f| (f.cum, f.seen, f.dup))
            .collect()
    }
}

#[test]
fn the_first_block_goes_out_as_w_frames_each_followed_by_r_coded_ones() {
    let p = Pair::new(4, 2, false);
    let kinds: Vec<(bool, Priority, u64)> =
        p.io.sent
            .iter()
            .map(|d| (d.is_coded(), d.priority, d.block_start))
            .collect();
    let (f, c) = ((false, Priority::High, 0), (true, Priority::Low, 0));
    assert_eq!(kinds, [f, c, c, f, c, c, f, c, c, f, c, c]);
    assert!(p.io.sent.iter().all(|d| d.block_size == 4));
    // Every coded packet has its own coefficients.
    let mut seeds: Vec<u64> =
        p.io.sent
            .iter()
            .filter_map(|d| match d.payload {
                Payload::Coded { seed } => Some(seed),
                Payload::Systematic => None,
            })
            .collect();
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), 8);
    assert!(p.io.timer.is_some());
}

#[test]
fn fig3a_coded_packets_stand_in_for_lost_frames_and_the_window_moves() {
    // W = 4, r = 1: P1 arrives, P2-P4 are lost, the coded packets arrive (the router sends the
    // freshest first). Feedback 1/1, 1/2, 1/3, 4/4 (the paper's 2/2, 2/3, 2/4, 5/5): one
    // pseudo-ACK per coded packet, no duplicate, W never halves.
    let mut p = Pair::new(4, 1, false);
    p.arrive(p.frame(0));
    // The first feedback acknowledged the block's first frame: W = 5, block [4, 9) opened.
    assert_eq!(p.tx.source().cwnd(), 5);
    let blocks: Vec<(u64, u32)> = p.tx.source().blocks().map(|b| (b.start, b.size)).collect();
    assert_eq!(blocks, [(0, 4), (4, 5)]);
    let mut coded = p.coded(0, Priority::Low);
    coded.reverse();
    for &i in &coded[..3] {
        p.arrive(i);
    }
    assert_eq!(
        p.acks(),
        [(1, 1, false), (1, 2, false), (1, 3, false), (4, 4, false)]
    );
    assert_eq!(p.tx.stats().halvings, 0);
    assert_eq!(p.tx.source().cwnd(), 5);
    // The pseudo-ACKs slid the window: frames up to 8 (ack point 4 + W 5 - 1) are out.
    assert_eq!(p.tx.source().snd_nxt(), 9);
    assert_eq!(p.rx.stats.blocks_decoded, 1);
}

#[test]
fn the_decode_delay_runs_from_a_blocks_first_packet_to_each_frames_delivery() {
    // Fig. 3(a)'s trace: block [0, 4) goes out at 0; P1 arrives at 10 ms and is delivered at
    // once; three coded packets arrive at 20, 30 and 40 ms and decode P2-P4 then. Per frame:
    // 10, 40, 40, 40 ms.
    let mut p = Pair::new(4, 1, false);
    assert_eq!(p.rx.delays.mean_s(), None);
    p.arrive(p.frame(0));
    let mut coded = p.coded(0, Priority::Low);
    coded.reverse();
    for &i in &coded[..3] {
        p.arrive(i);
    }
    let delays = &p.rx.delays;
    assert_eq!(delays.frames(), 4);
    assert!((delays.mean_s().unwrap() - 0.0325).abs() < 1e-12);
    let near = |got: Option<f64>, want: f64| (got.unwrap() / want - 1.0).abs() < 0.006;
    assert!(near(delays.quantile_s(0.25), 0.010));
    assert!(near(delays.quantile_s(0.95), 0.040));
}

#[test]
fn fig3b_later_frames_make_duplicates_the_window_halves_and_repairs_decode_the_block() {
    // W = 4, r = 1: P1 and one coded packet arrive, P2-P4 and the other coded ones are lost;
    // P5-P7 (block [4, 9)) arrive: three duplicates, W 5 -> 3, two high repairs (each with one
    // low) of block [0, 4); they decode it and cum jumps past the buffered 4-6.
    let mut p = Pair::new(4, 1, false);
    p.arrive(p.frame(0));
    let coded = p.coded(0, Priority::Low);
    p.arrive(coded[3]);
    assert_eq!(p.acks(), [(1, 1, false), (1, 2, false)]);
    assert_eq!(p.tx.source().snd_nxt(), 7, "frames 4, 5, 6 sent");
    let sent_before = p.io.sent.len();
    for f in 4..7 {
        p.arrive(p.frame(f));
    }
    assert_eq!(&p.acks()[2..], [(1, 2, true); 3]);
    assert_eq!((p.tx.source().cwnd(), p.tx.stats().halvings), (3, 1));
    let repairs: Vec<(Priority, u64)> = p.io.sent[sent_before..]
        .iter()
        .map(|d| {
            assert!(d.is_coded());
            (d.priority, d.block_start)
        })
        .collect();
    assert_eq!(
        repairs,
        [
            (Priority::High, 0),
            (Priority::Low, 0),
            (Priority::High, 0),
            (Priority::Low, 0)
        ]
    );
    p.arrive(sent_before);
    let fb = p.arrive(sent_before + 2);
    assert_eq!((fb.cum, fb.dup), (7, false));
    assert_eq!(p.rx.next_expected(), 7);
}

#[test]
fn the_receiver_counts_the_blocks_it_holds_for_the_memory_budget() {
    // The losses of Fig. 3(b): block [0, 4) waits for repairs with one frame and one coded
    // packet, frames 4-6 of the next block are held behind it; the repairs decode both, whose
    // storage is then kept for reuse.
    let mut p = Pair::new(4, 1, false);
    let empty = p.rx.heap_bytes();
    p.arrive(p.frame(0));
    let coded = p.coded(0, Priority::Low);
    p.arrive(coded[3]);
    let one = p.rx.heap_bytes();
    assert!(one > empty, "{empty} -> {one}");
    let sent_before = p.io.sent.len();
    for f in 4..7 {
        p.arrive(p.frame(f));
    }
    let two = p.rx.heap_bytes();
    assert!(two > one, "a second block held: {one} -> {two}");
    p.arrive(sent_before);
    p.arrive(sent_before + 2);
    assert_eq!(p.rx.next_expected(), 7);
    assert!(p.rx.heap_bytes() >= two, "decoded blocks stay as spares");
}

#[test]
fn stale_packets_are_silent_but_literal_duplicates_halve_the_window() {
    for literal in [false, true] {
        let mut p = Pair::new(4, 3, literal);
        for f in 0..4 {
            p.arrive(p.frame(f));
        }
        assert_eq!(p.rx.next_expected(), 4);
        let w = p.tx.source().cwnd();
        for &i in &p.coded(0, Priority::Low)[..3] {
            let fb = p.arrive(i);
            assert_eq!(fb.dup, literal);
        }
        assert_eq!(p.rx.stats.stale, 3);
        if literal {
            assert_eq!(p.tx.source().cwnd(), w.div_ceil(2));
        } else {
            assert_eq!(p.tx.source().cwnd(), w);
        }
    }
}

#[test]
fn a_non_innovative_packet_of_the_current_block_is_a_duplicate() {
    // Frame 1 before frame 0 still helps decode the block frame 0 lies in (a pseudo-ACK); the
    // same frame twice does not.
    let mut p = Pair::new(4, 0, false);
    let first = p.arrive(p.frame(1));
    assert_eq!((first.cum, first.seen, first.dup), (0, 1, false));
    let mut p = Pair::new(4, 0, false);
    p.arrive(p.frame(0));
    let again = p.arrive(p.frame(0));
    assert_eq!((again.cum, again.seen, again.dup), (1, 1, true));
}

#[test]
fn the_timer_sets_w_to_one_and_repairs_the_oldest_block() {
    let mut p = Pair::new(4, 1, false);
    p.arrive(p.frame(0));
    assert_eq!(p.tx.source().cwnd(), 5);
    let deadline = p.io.timer.expect("armed");
    // One sample of 10 ms: RTO = 30 ms.
    assert_eq!(deadline, p.io.now + 30 * MILLIS);
    p.io.now = deadline;
    let before = p.io.sent.len();
    p.tx.on_timer(&mut p.io);
    assert_eq!(p.tx.source().cwnd(), 1);
    assert_eq!(p.tx.stats().timeouts, 1);
    // Block [0, 4) misses 3 degrees of freedom: 3 high repairs, each with one low.
    let repairs = &p.io.sent[before..];
    assert_eq!(repairs.len(), 6);
    assert!(repairs.iter().all(|d| d.is_coded() && d.block_start == 0));
    assert_eq!(
        p.io.timer,
        Some(deadline + 60 * MILLIS),
        "the timeout doubled"
    );
}

#[test]
fn the_mean_window_weighs_each_w_by_how_long_it_lasted() {
    let mut p = Pair::new(4, 1, false);
    assert_eq!(p.tx.source().mean_window(0), None, "no time has passed");
    // W = 4 for 10 ms, then the first frame's ACK makes it 5.
    p.arrive(p.frame(0));
    assert_eq!(p.tx.source().cwnd(), 5);
    // W = 5 for 30 ms, until the timer sets it to 1.
    p.io.now = p.io.timer.expect("armed");
    p.tx.on_timer(&mut p.io);
    assert_eq!(p.tx.source().cwnd(), 1);
    // W = 1 for the last 60 ms: (4 x 10 + 5 x 30 + 1 x 60) / 100.
    let mean = p.tx.source().mean_window(100 * MILLIS).expect("started");
    assert!((mean - 2.5).abs() < 1e-12, "{mean}");
}

#[test]
fn lossless_feedback_grows_w_by_one_per_block() {
    // Every packet arrives in sending order: each block opens at the first acknowledgement of the
    // previous one, one larger.
    let mut p = Pair::new(1, 1, false);
    let mut next = 0;
    while p.tx.stats().blocks < 20 {
        p.arrive(next);
        next += 1;
    }
    assert_eq!(p.tx.source().cwnd(), 20);
    assert_eq!(p.tx.stats().halvings + p.tx.stats().timeouts, 0);
    assert_eq!(p.rx.stats.dups, 0, "no packet of a later block overtook");
}

mod multipath {
    use super::*;
    use crate::sim::header::rlc::PathMark;
    use crate::transport::tcp_rlc::config::SourceWindow;
    use crate::transport::tcp_rlc::multipath::MultipathSender;

    fn sender(paths: usize, cwnd: u32, r: u32) -> (MultipathSender, Recorder) {
        sender_with(paths, cwnd, r, SourceWindow::default())
    }

    fn sender_with(
        paths: usize,
        cwnd: u32,
        r: u32,
        window: SourceWindow,
    ) -> (MultipathSender, Recorder) {
        let cfg = RlcSenderConfig {
            source_window: window,
            ..config(cwnd, r)
        };
        let mut tx = MultipathSender::new(cfg, paths, Rng::stream(2, "mp"));
        let mut io = Recorder::default();
        tx.start(&mut io);
        (tx, io)
    }

    fn path_feedback(path: u8, round: u32, count: u32) -> RlcFeedback {
        RlcFeedback {
            cum: 0,
            seen: 0,
            dup: false,
            echo: 0,
            mark: PathMark {
                path,
                round,
                round_size: 0,
            },
            count,
        }
    }

    #[test]
    fn each_round_is_marked_with_its_path_and_pulls_the_window() {
        let (_, io) = sender(3, 10, 2);
        // Three paths, window 1 each: frame 0, 1, 2, each with two low coded packets.
        let marks: Vec<(u8, u32, u32, Priority)> = io
            .sent
            .iter()
            .map(|d| (d.mark.path, d.mark.round, d.mark.round_size, d.priority))
            .collect();
        let round = |l| {
            [
                (l, 1, 1, Priority::High),
                (l, 1, 1, Priority::Low),
                (l, 1, 1, Priority::Low),
            ]
        };
        assert_eq!(marks, [round(0), round(1), round(2)].concat());
        let frames: Vec<u64> = io
            .sent
            .iter()
            .filter(|d| !d.is_coded())
            .map(|d| d.frame)
            .collect();
        assert_eq!(frames, [0, 1, 2]);
    }

    #[test]
    fn a_path_window_grows_on_a_delivered_round_and_halves_on_a_short_one() {
        // Each first feedback of a round starts the next and judges the one before (its count
        // against its size): rounds of size 1, 1, 2 delivered 1, 1, 1 packets.
        let (mut tx, mut io) = sender(2, 10, 0);
        let mut windows = Vec::new();
        for (round, count) in [(1, 1), (2, 1), (3, 1), (4, 1)] {
            io.now += 10 * MILLIS;
            tx.on_feedback(&path_feedback(0, round, count), &mut io);
            windows.push(tx.paths()[0].window());
        }
        assert_eq!(windows, [1, 2, 3, 2]);
        assert_eq!(tx.paths()[0].round(), 5);
        // The other path heard nothing: still in its first round.
        assert_eq!((tx.paths()[1].round(), tx.paths()[1].window()), (1, 1));
    }

    #[test]
    fn a_new_block_takes_every_pull_and_an_older_blocks_unsent_frames_are_skipped() {
        // Two paths of window 1, r = 0, block [0, 10): path 0 sends frame 0, path 1 frame 1.
        // Frame 0 arrives; its feedback acknowledges the block's first frame, so block [10, 21)
        // opens, and, as path 0's first feedback of its round, starts path 0's round 2. Per round,
        // that round pulls the new block's first frame (frames 2-9 are never sent: block
        // [0, 10) decodes from coded packets or a repair); per block, the old block's frame 2.
        for (window, pulled) in [(SourceWindow::PerRound, 10), (SourceWindow::PerBlock, 2)] {
            let (mut tx, mut io) = sender_with(2, 10, 0, window);
            let mut rx = RlcReceiver::new(RlcField::Gf8191, DecoderMode::Exact, false);
            io.now += 10 * MILLIS;
            let fb = rx.on_data(&io.sent[0], io.now).feedback;
            tx.on_feedback(&fb, &mut io);
            let blocks: Vec<(u64, u32)> = tx.source().blocks().map(|b| (b.start, b.size)).collect();
            assert_eq!(blocks, [(0, 10), (10, 11)]);
            let frames: Vec<(u8, u32, u64)> = io
                .sent
                .iter()
                .map(|d| (d.mark.path, d.mark.round, d.frame))
                .collect();
            assert_eq!(frames, [(0, 1, 0), (1, 1, 1), (0, 2, pulled)], "{window:?}");
            assert!(!io.sent[2].is_coded() && io.sent[2].priority == Priority::High);
        }
    }

    #[test]
    fn coded_packets_from_two_paths_decode_one_block() {
        // Block [0, 10), two paths of window 1, r = 4: each path sends a frame and four coded
        // packets of the block; five from each path decode it.
        let (tx, io) = sender(2, 10, 4);
        assert_eq!(tx.source().blocks().next().map(|b| b.size), Some(10));
        let mut rx = RlcReceiver::new(RlcField::Gf8191, DecoderMode::Exact, false);
        let per_path: Vec<usize> = (0..2)
            .map(|l| io.sent.iter().filter(|d| d.mark.path == l).count())
            .collect();
        assert_eq!(per_path, [5, 5]);
        let mut last = None;
        for d in &io.sent {
            last = Some(rx.on_data(d, io.now).feedback);
        }
        assert_eq!(rx.next_expected(), 10);
        assert_eq!(last.map(|f| (f.cum, f.count)), Some((10, 5)));
    }
}
