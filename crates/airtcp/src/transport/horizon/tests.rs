//! Horizon's reorder buffer, signaller and shim, in tests that read like packet traces.
//!
//! Reorder traces list arrivals `(time, PktID, t_s, path)`; the driver fires the buffer's timer
//! whenever its deadline comes before the next arrival (a deadline equal to an arrival's time
//! fires first) and records every packet going up as `(time, PktID, how)`. Times are in ms; the
//! arithmetic of eq. (16) is written out in each trace's comments. A failing test prints the
//! trace:
//!
//! ```text
//!     13.000ms p3 arrives on path 0xa1 (t_s 3.000ms) -> deadline 35.500ms
//!     35.500ms timer
//!     35.500ms   up p3 OutOfOrder
//! ```
//!
//! The signal tests drive a real `TcpSender` with the ACKs the shim replays.

use std::fmt::Write;

use proptest::prelude::*;

use super::reorder::{DeliveryKind, Incoming, Reorder, ReorderParams};
use super::signal::{SignalParams, Signaller};
use super::*;
use crate::scenario::config::{CcKind, TcpConfig};
use crate::sim::time::{MILLIS, SECS};
use crate::transport::shim::{SenderTiming, ShimHeader};
use crate::transport::tcp::cc;
use crate::transport::tcp::sender::TcpSender;
use crate::transport::tcp::TcpIo;

use DeliveryKind::{Bypassed, InOrder, Late, OutOfOrder};

const FAST: u8 = 0xA1;
const SLOW: u8 = 0xB2;
const DATA_IP: u32 = 1500;

/// `x` ms in ns.
fn ms(x: f64) -> Time {
    (x * 1e6).round() as Time
}

/// One arrival of a trace.
#[derive(Debug, Clone, Copy)]
struct Arr {
    at: Time,
    id: u16,
    sent: i64,
    path: Option<u8>,
    ip_bytes: u32,
}

/// PktID `id`, sent at `sent_ms`, arriving at `at_ms` on PathID `path`.
fn arr(at_ms: f64, id: u16, sent_ms: f64, path: u8) -> Arr {
    Arr {
        at: ms(at_ms),
        id,
        sent: ms(sent_ms) as i64,
        path: Some(path),
        ip_bytes: DATA_IP,
    }
}

/// A trace run: what went up, when the declared-lost count changed, the trace text.
struct Run {
    r: Reorder<usize>,
    /// (time, PktID, how, index of the arrival in the trace).
    ups: Vec<(Time, u64, DeliveryKind, usize)>,
    /// (time, declared-lost count) whenever it changed.
    lost: Vec<(Time, u64)>,
    trace: String,
}

impl Run {
    fn log(&mut self, t: Time, line: &str) {
        let _ = writeln!(self.trace, "{:>10.3}ms {line}", t as f64 / 1e6);
    }

    /// Records what one step released.
    fn record(&mut self, t: Time, out: &[reorder::Delivery<usize>]) {
        for d in out {
            self.ups.push((t, d.id, d.kind, d.payload));
            self.log(t, &format!("  up p{} {:?}", d.id, d.kind));
        }
        let lost = self.r.stats().declared_lost;
        if self.lost.last().map_or(0, |l| l.1) != lost {
            self.lost.push((t, lost));
            self.log(
                t,
                &format!("  declared lost: {lost} so far, next p{}", self.r.next()),
            );
        }
    }

    fn timer(&mut self, t: Time, out: &mut Vec<reorder::Delivery<usize>>) {
        self.log(t, "timer");
        out.clear();
        self.r.on_timer(t, out);
        self.record(t, out);
        // Everything due at `t` went: the next deadline is later.
        assert!(self.r.deadline().is_none_or(|d| d > t), "{}", self.trace);
    }

    /// The ups as (ms, PktID, how).
    fn ups_ms(&self) -> Vec<(f64, u64, DeliveryKind)> {
        self.ups
            .iter()
            .map(|&(t, id, k, _)| (t as f64 / 1e6, id, k))
            .collect()
    }
}

/// Runs `arrivals` (in time order) through a buffer, then lets every deadline pass.
fn run(params: ReorderParams, arrivals: &[Arr]) -> Run {
    let mut run = Run {
        r: Reorder::new(params),
        ups: Vec::new(),
        lost: Vec::new(),
        trace: String::new(),
    };
    let mut out = Vec::new();
    for (i, a) in arrivals.iter().enumerate() {
        while let Some(d) = run.r.deadline().filter(|&d| d <= a.at) {
            run.timer(d, &mut out);
        }
        out.clear();
        let pkt = Incoming {
            id: a.id,
            sent: a.sent,
            ip_bytes: a.ip_bytes,
            path: a.path,
            payload: i,
        };
        run.r.on_arrival(a.at, pkt, &mut out);
        let deadline = run
            .r
            .deadline()
            .map_or("-".into(), |d| format!("{:.3}ms", d as f64 / 1e6));
        let line = format!(
            "p{} arrives on path {:#x?} (t_s {:.3}ms, {} B) -> timer {deadline}",
            a.id,
            a.path,
            a.sent as f64 / 1e6,
            a.ip_bytes
        );
        run.log(a.at, &line);
        run.record(a.at, &out);
    }
    while let Some(d) = run.r.deadline() {
        run.timer(d, &mut out);
    }
    run
}

fn params(loss_detection: bool, n_paths: usize) -> ReorderParams {
    ReorderParams {
        loss_detection,
        n_paths,
        ..ReorderParams::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Reorder traces computed by hand. Gains α = 1/8, β = 1/4, d0 = 10 ms; every deadline is
// t_s + A + 4D with the A and D after the packet's own sample.
// ---------------------------------------------------------------------------------------------

/// Trace (a), no loss detection. p0..p7 leave every ms; the fast path takes 10 ms, p5 goes the
/// slow way (30 ms), p2 is lost (it turns up at 60 ms, after its gap was skipped).
///
/// ```text
/// p0 @10  s=10  A=10 D=10 (first)                             up in order
/// p1 @11  s=10  D=.75*10          = 7.5                        up in order; next = 2
/// p3 @13  s=10  D=.75*7.5         = 5.625          dl = 3+10+22.5    = 35.5   held
/// p4 @14  s=10  D=.75*5.625       = 4.21875        dl = 4+10+16.875  = 30.875 held
/// p6 @16  s=10  D=.75*4.21875     = 3.1640625      dl = 6+10+12.65625 = 28.65625 held
/// p7 @17  s=10  D=.75*3.1640625   = 2.373046875    dl = 7+10+9.4921875 = 26.4921875 held
/// p5 @35  s=30  D=.75*2.373046875 + .25*|10-30| = 6.77978515625, A = .875*10+.125*30 = 12.5
///               dl = 5+12.5+27.119140625 = 44.619140625         held
/// timer at 35.5 (p3's: the smallest id's deadline, though p4, p6 and p7's passed before it):
///         p3 out of order (p2 skipped), p4 p5 p6 p7 in order
/// p2 @60  below next = 8: late, up at once
/// ```
#[test]
fn a_missing_packet_is_skipped_at_its_successors_deadline() {
    let trace = [
        arr(10.0, 0, 0.0, FAST),
        arr(11.0, 1, 1.0, FAST),
        arr(13.0, 3, 3.0, FAST),
        arr(14.0, 4, 4.0, FAST),
        arr(16.0, 6, 6.0, FAST),
        arr(17.0, 7, 7.0, FAST),
        arr(35.0, 5, 5.0, SLOW),
        arr(60.0, 2, 2.0, SLOW),
    ];
    let r = run(params(false, 2), &trace);
    assert_eq!(
        r.ups_ms(),
        [
            (10.0, 0, InOrder),
            (11.0, 1, InOrder),
            (35.5, 3, OutOfOrder),
            (35.5, 4, InOrder),
            (35.5, 5, InOrder),
            (35.5, 6, InOrder),
            (35.5, 7, InOrder),
            (60.0, 2, Late),
        ],
        "{}",
        r.trace
    );
    let s = r.r.stats();
    assert_eq!(
        (
            s.in_order,
            s.out_of_order,
            s.skipped,
            s.late,
            s.declared_lost
        ),
        (6, 1, 1, 1, 0)
    );
    assert_eq!(s.max_buffered, 5, "p3 p4 p6 p7 p5");
    // Holds: p0 p1 0, p3 22.5, p4 21.5, p5 0.5, p6 19.5, p7 18.5: 82.5 ms over 7 packets.
    assert_eq!(s.max_hold_ns, ms(22.5));
    assert_eq!(s.hold_sum_ns, ms(82.5));
    // p2's sample (58) moves A to .875*12.5 + .125*58 = 18.1875 ms.
    assert_eq!(r.r.mean_delay(), Some(ms(18.1875) as f64));
}

/// Trace (a)'s deadlines, checked as the timer the buffer asks for after each arrival: always
/// the smallest buffered id's.
#[test]
fn the_timer_is_the_smallest_buffered_ids_deadline() {
    let mut r = Reorder::new(params(false, 2));
    let mut out = Vec::new();
    let mut deadlines = Vec::new();
    for (i, a) in [
        arr(10.0, 0, 0.0, FAST),
        arr(11.0, 1, 1.0, FAST),
        arr(13.0, 3, 3.0, FAST),
        arr(14.0, 4, 4.0, FAST),
        arr(16.0, 6, 6.0, FAST),
        arr(17.0, 7, 7.0, FAST),
        arr(35.0, 5, 5.0, SLOW),
    ]
    .into_iter()
    .enumerate()
    {
        let pkt = Incoming {
            id: a.id,
            sent: a.sent,
            ip_bytes: a.ip_bytes,
            path: a.path,
            payload: i,
        };
        r.on_arrival(a.at, pkt, &mut out);
        deadlines.push(r.deadline());
    }
    let p3 = Some(ms(35.5));
    assert_eq!(deadlines, [None, None, p3, p3, p3, p3, p3]);
    // D after p5: 6.77978515625 ms exactly (binary fractions of integers).
    assert_eq!(r.estimator().deviation(), Some(6_779_785.156_25));
}

/// Trace (b), loss detection with two paths. Even ids on the fast path (10 ms), odd ids on the
/// slow one (20 ms); p3 is lost on the slow path.
///
/// ```text
/// p0 @10 fast s=10  A=10 D=10                         up; paths {fast}
/// p2 @12 fast s=10  D=7.5    dl = 2+10+30     = 42    held (one path known: no verdict)
/// p4 @14 fast s=10  D=5.625  dl = 4+10+22.5   = 36.5  held
/// p6 @16 fast s=10  D=4.21875 dl = 6+10+16.875 = 32.875 held
/// p1 @21 slow s=20  paths {fast, slow}: p1 p2 up in order; gap at 3: slow's highest is 1
/// p5 @25 slow       slow's highest 5 > 3, fast's 6 > 3: p3 declared lost; p4 p5 p6 up
/// p7 @27 slow       up
/// ```
/// Without loss detection p3's gap would hold p4..p7 until p4's deadline, 36.5 ms.
#[test]
fn a_gap_both_paths_have_passed_is_declared_lost_at_once() {
    let trace = [
        arr(10.0, 0, 0.0, FAST),
        arr(12.0, 2, 2.0, FAST),
        arr(14.0, 4, 4.0, FAST),
        arr(16.0, 6, 6.0, FAST),
        arr(21.0, 1, 1.0, SLOW),
        arr(25.0, 5, 5.0, SLOW),
        arr(27.0, 7, 7.0, SLOW),
    ];
    let r = run(params(true, 2), &trace);
    assert_eq!(
        r.ups_ms(),
        [
            (10.0, 0, InOrder),
            (21.0, 1, InOrder),
            (21.0, 2, InOrder),
            (25.0, 4, InOrder),
            (25.0, 5, InOrder),
            (25.0, 6, InOrder),
            (27.0, 7, InOrder),
        ],
        "{}",
        r.trace
    );
    assert_eq!(r.lost, [(ms(25.0), 1)], "{}", r.trace);
    assert_eq!(r.r.stats().out_of_order, 0);

    let without = run(params(false, 2), &trace);
    assert_eq!(
        without.ups_ms()[3..],
        [
            (36.5, 4, OutOfOrder),
            (36.5, 5, InOrder),
            (36.5, 6, InOrder),
            (36.5, 7, InOrder),
        ],
        "{}",
        without.trace
    );
}

/// Trace (c), start-up. The slow path (30 ms) carries the even ids, the fast one (10 ms) the
/// odd ids; the fast path is heard first.
///
/// Without the guard the fast path alone "proves" every even id lost as soon as the next odd
/// one arrives: p0, p2, p4 are declared lost at 11, 13, 15 ms and arrive late at 30, 32, 34.
///
/// With the guard (two paths) nothing is declared before the slow path is heard:
/// ```text
/// p1 @11 s=10 A=10 D=10    dl = 1+10+40   = 51    held
/// p3 @13 s=10 D=7.5        dl = 3+10+30   = 43    held
/// p5 @15 s=10 D=5.625      dl = 5+10+22.5 = 37.5  held
/// p0 @30 s=30              p0 p1 up; gap at 2: slow's highest is 0
/// p2 @32                   p2 p3 up (p3's deadline 43 not reached)
/// p4 @34                   p4 p5 up
/// ```
#[test]
fn without_the_path_guard_the_slow_paths_first_packets_are_declared_lost_at_start_up() {
    let trace = [
        arr(11.0, 1, 1.0, FAST),
        arr(13.0, 3, 3.0, FAST),
        arr(15.0, 5, 5.0, FAST),
        arr(30.0, 0, 0.0, SLOW),
        arr(32.0, 2, 2.0, SLOW),
        arr(34.0, 4, 4.0, SLOW),
    ];
    let unguarded = run(params(true, 0), &trace);
    assert_eq!(
        unguarded.ups_ms(),
        [
            (11.0, 1, InOrder),
            (13.0, 3, InOrder),
            (15.0, 5, InOrder),
            (30.0, 0, Late),
            (32.0, 2, Late),
            (34.0, 4, Late),
        ],
        "{}",
        unguarded.trace
    );
    assert_eq!(
        unguarded.lost,
        [(ms(11.0), 1), (ms(13.0), 2), (ms(15.0), 3)]
    );

    let guarded = run(params(true, 2), &trace);
    assert_eq!(
        guarded.ups_ms(),
        [
            (30.0, 0, InOrder),
            (30.0, 1, InOrder),
            (32.0, 2, InOrder),
            (32.0, 3, InOrder),
            (34.0, 4, InOrder),
            (34.0, 5, InOrder),
        ],
        "{}",
        guarded.trace
    );
    let s = guarded.r.stats();
    assert_eq!((s.declared_lost, s.late, s.out_of_order), (0, 0, 0));
}

/// A path silent for 1 s is forgotten. The slow path is heard once (p1 at 21 ms), then only
/// the fast one for 1.5 s; PktID 152 never comes and 153 arrives at 1540 ms.
/// - With the guard (two paths) the slow path's expiry leaves one path remembered: no verdict,
///   p153 waits for its deadline and goes up out of order.
/// - Without the guard, expiry lets the fast path alone declare 152 lost: p153 goes up in order
///   on arrival.
/// - Without the guard and without expiry, the silent slow path (highest PktID 1) blocks the
///   verdict for ever: out of order again.
#[test]
fn a_path_silent_for_a_second_is_forgotten() {
    let mut trace = vec![arr(10.0, 0, 0.0, FAST), arr(21.0, 1, 1.0, SLOW)];
    for i in 0..150u16 {
        let t = 20.0 + 10.0 * f64::from(i);
        trace.push(arr(t + 10.0, i + 2, t, FAST));
    }
    trace.push(arr(1540.0, 153, 1530.0, FAST));

    let guarded = run(params(true, 2), &trace);
    assert_eq!(guarded.r.learned_paths(), 1);
    let last = *guarded.ups.last().unwrap();
    assert_eq!((last.1, last.2), (153, OutOfOrder), "{}", guarded.trace);
    assert_eq!(guarded.r.stats().declared_lost, 0);

    let unguarded = run(params(true, 0), &trace);
    assert_eq!(unguarded.lost, [(ms(1540.0), 1)], "{}", unguarded.trace);
    assert_eq!(unguarded.ups_ms().last(), Some(&(1540.0, 153, InOrder)));

    let never_forget = ReorderParams {
        path_expiry: 3600 * SECS,
        ..params(true, 0)
    };
    let kept = run(never_forget, &trace);
    assert_eq!(kept.r.learned_paths(), 2);
    assert_eq!(kept.r.stats().declared_lost, 0);
    assert_eq!(kept.ups.last().map(|u| u.2), Some(OutOfOrder));
}

// ---------------------------------------------------------------------------------------------
// PktID wrap-around and the small-packet bypass.
// ---------------------------------------------------------------------------------------------

/// PktIDs are u16 and wrap: 65535 is followed by 0, unwrapped to 65536.
#[test]
fn pkt_ids_wrap_around() {
    let p = ReorderParams {
        first_id: 65534,
        ..params(false, 2)
    };
    let trace = [
        arr(10.0, 65534, 0.0, FAST),
        arr(11.0, 0, 2.0, FAST), // 65536: ahead of 65535, held
        arr(12.0, 65535, 1.0, SLOW),
        arr(13.0, 1, 3.0, FAST),
        arr(14.0, 65535, 1.0, SLOW), // again: now behind next (65538), late
    ];
    let r = run(p, &trace);
    assert_eq!(
        r.ups_ms(),
        [
            (10.0, 65534, InOrder),
            (12.0, 65535, InOrder),
            (12.0, 65536, InOrder),
            (13.0, 65537, InOrder),
            (14.0, 65535, Late),
        ],
        "{}",
        r.trace
    );
    assert_eq!(r.r.next(), 65538);
}

/// Three wraps of pairwise-swapped arrivals: all in order, one packet ever waiting.
#[test]
fn a_long_run_through_several_wraps_stays_in_order() {
    let mut r: Reorder<u64> = Reorder::new(params(true, 2));
    let mut out = Vec::new();
    let mut delivered = 0u64;
    for k in 0..100_000u64 {
        for i in [2 * k + 1, 2 * k] {
            // Both of the pair at once, the odd one (10 ms on the way) first, the even (11 ms).
            let at = (2 * k + 11) * MILLIS;
            let pkt = Incoming {
                id: i as u16,
                sent: (i * MILLIS) as i64,
                ip_bytes: DATA_IP,
                path: Some(if i % 2 == 0 { FAST } else { SLOW }),
                payload: i,
            };
            out.clear();
            r.on_arrival(at, pkt, &mut out);
            for d in &out {
                assert_eq!((d.payload, d.id, d.kind), (delivered, delivered, InOrder));
                delivered += 1;
            }
        }
    }
    assert_eq!((delivered, r.next()), (200_000, 200_000));
    assert_eq!(r.stats().max_buffered, 1);
}

/// Under 60 B of IP size a packet goes up at once, even behind a gap, and the flush passes
/// over its PktID later; 60 B is buffered.
#[test]
fn packets_under_60_bytes_bypass_the_buffer() {
    let small = |at, id, ip_bytes| Arr {
        ip_bytes,
        ..arr(at, id, at - 10.0, FAST)
    };
    let trace = [
        arr(11.0, 1, 1.0, FAST), // p0 missing: held
        small(12.0, 2, 59),      // up at once
        small(13.0, 3, 60),      // held
        arr(14.0, 0, 0.0, SLOW), // p0: p0 p1 p3 up, p2 passed over
        small(15.0, 4, 0),
    ];
    let r = run(params(false, 2), &trace);
    assert_eq!(
        r.ups_ms(),
        [
            (12.0, 2, Bypassed),
            (14.0, 0, InOrder),
            (14.0, 1, InOrder),
            (14.0, 3, InOrder),
            (15.0, 4, Bypassed),
        ],
        "{}",
        r.trace
    );
    assert_eq!((r.r.stats().bypassed, r.r.next()), (2, 5));
}

// ---------------------------------------------------------------------------------------------
// Properties over random arrival orders.
// ---------------------------------------------------------------------------------------------

/// A random trace: n packets leaving `gaps` apart, each on path 0 or 1 with its own delay,
/// some lost, some small; PktIDs from `first_id`.
fn random_trace(
    first_id: u16,
    packets: &[(u64, bool, u64, bool, bool)],
    offset: i64,
    shift: Time,
) -> Vec<Arr> {
    let mut sent = 0;
    let mut trace = Vec::new();
    for (i, &(gap, slow, delay, lost, small)) in packets.iter().enumerate() {
        sent += gap;
        if lost {
            continue;
        }
        trace.push(Arr {
            at: sent + delay + shift,
            id: first_id.wrapping_add(i as u16),
            sent: (sent + shift) as i64 + offset,
            path: Some(if slow { SLOW } else { FAST }),
            ip_bytes: if small { 40 } else { DATA_IP },
        });
    }
    // Time order; equal times in PktID order (any fixed rule would do).
    trace.sort_by_key(|a| (a.at, a.id.wrapping_sub(first_id)));
    trace
}

proptest! {
    /// (1) A constant offset Δ on every t_s (the source's clock ahead of or behind the
    /// destination's) leaves every delivery unchanged on the destination's clock: the samples,
    /// hence A, move by -Δ and t_s + A does not move at all; D sees only differences. Bit-for-bit,
    /// because A is kept as its first sample plus an EWMA of differences (reorder.rs). Read on the
    /// *source's* clock, each delivery time is shifted by exactly Δ, which is spec §2.6's
    /// statement. (2) Shifting arrivals and t_s together by δ (a later start) shifts every
    /// delivery by exactly δ. (3) Every arriving packet goes up exactly once, never before it
    /// arrived, with its own unwrapped PktID; what goes up in or out of order goes up in
    /// strictly increasing PktID order (only late and bypassed packets break the order), and
    /// nothing is left in the buffer once the deadlines have passed.
    #[test]
    fn offsets_cancel_and_every_packet_goes_up_once_in_order_but_for_skips(
        first_id in any::<u16>(),
        packets in proptest::collection::vec(
            (100_000u64..3_000_000, any::<bool>(), 1_000_000u64..60_000_000,
             proptest::bool::weighted(0.1), proptest::bool::weighted(0.05)),
            1..80),
        loss_detection in any::<bool>(),
        n_paths in 0usize..3,
        offset in -5_000_000_000i64..5_000_000_000,
        shift in 0u64..5_000_000_000,
    ) {
        let p = ReorderParams { first_id, ..params(loss_detection, n_paths) };
        let base = random_trace(first_id, &packets, 0, 0);
        let r = run(p, &base);

        let skewed = run(p, &random_trace(first_id, &packets, offset, 0));
        prop_assert_eq!(&skewed.ups, &r.ups, "offset {}:\n{}", offset, skewed.trace);

        let later = run(p, &random_trace(first_id, &packets, 0, shift));
        let shifted: Vec<_> = r.ups.iter().map(|&(t, id, k, i)| (t + shift, id, k, i)).collect();
        prop_assert_eq!(&later.ups, &shifted);

        let mut seen = vec![0u32; base.len()];
        let mut last_ordered: Option<u64> = None;
        for &(t, id, kind, i) in &r.ups {
            seen[i] += 1;
            prop_assert!(t >= base[i].at, "p{} up before it arrived\n{}", id, r.trace);
            let unwrapped = u64::from(first_id) + u64::from(base[i].id.wrapping_sub(first_id));
            prop_assert_eq!(id, unwrapped);
            if matches!(kind, InOrder | OutOfOrder) {
                prop_assert!(last_ordered.is_none_or(|l| id > l), "order\n{}", r.trace);
                last_ordered = Some(id);
            }
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "{:?}\n{}", seen, r.trace);
        prop_assert_eq!(r.r.buffered(), 0);
        let s = r.r.stats();
        prop_assert_eq!(s.in_order + s.out_of_order + s.late + s.bypassed + s.duplicates,
                        base.len() as u64);
    }
}

// The signaller and the shim with TCP: tests/signal_and_shim.rs.
mod signal_and_shim;
