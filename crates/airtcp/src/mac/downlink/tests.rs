//! Tests of the whole downlink: service, fairness, long-run rates against the Rayleigh/AMC
//! closed form, erasures, configuration errors and invariants under random traffic.

use super::*;
use crate::sim::time::MILLIS;
use proptest::prelude::*;

/// Paper 002's ns-2 downlink for users with the given mean SNRs (dB), other fields default.
fn config(snrs: &[f64]) -> DownlinkConfig {
    let users: Vec<serde_json::Value> = snrs
        .iter()
        .enumerate()
        .map(|(i, s)| serde_json::json!({"node": format!("ue{i}"), "mean_snr": s}))
        .collect();
    serde_json::from_value(serde_json::json!({"base_station": "bs", "users": users})).unwrap()
}

/// Keeps every queue full of `size`-byte packets.
struct Saturator {
    next_id: u32,
    size: u32,
}

impl Saturator {
    fn top_up(&mut self, d: &mut Downlink, now: Time) {
        for u in 0..d.users() {
            while d.enqueue(u, PacketId(self.next_id), self.size, now).is_ok() {
                self.next_id = self.next_id.wrapping_add(1);
            }
        }
    }
}

/// Runs `slots` slots with every queue saturated; returns the downlink.
fn run_saturated(cfg: &DownlinkConfig, seed: u64, slots: u64, size: u32) -> Downlink {
    let mut d = Downlink::new(cfg, seed, "downlink").unwrap();
    let mut sat = Saturator { next_id: 0, size };
    for k in 0..slots {
        let now = k * d.slot_len();
        sat.top_up(&mut d, now);
        d.on_slot(now);
    }
    d
}

#[test]
fn round_robin_serves_backlogged_users_equally() {
    let mut cfg = config(&[12.0, 19.0, 13.0, 16.0]);
    cfg.scheduler = SchedulerConfig::RoundRobin;
    let d = run_saturated(&cfg, 1, 10_001, 200);
    let slots: Vec<u64> = d.stats().iter().map(|s| s.slots_scheduled).collect();
    assert_eq!(slots, [2501, 2500, 2500, 2500]);
}

#[test]
fn round_robin_long_run_throughput_is_the_mean_amc_rate_under_rayleigh() {
    // Paper 002 ns-2 setup: 10 MHz, 10 ms, 802.16e modes, Gauss-Markov Rayleigh at 128 Hz.
    let snrs = [12.0, 19.0, 13.0, 16.0];
    let mut cfg = config(&snrs);
    cfg.scheduler = SchedulerConfig::RoundRobin;
    let slots = 200_000;
    let d = run_saturated(&cfg, 7, slots, 1000);
    for (u, s) in d.stats().iter().enumerate() {
        // P(SNR g in [th_k, th_k+1)) = exp(-th_k / snr) - exp(-th_k+1 / snr).
        let expected = d.amc().expected_bits_rayleigh(d.mean_snr(u));
        let per_slot = s.bytes_sent as f64 * 8.0 / s.slots_scheduled as f64;
        assert!(
            (per_slot / expected - 1.0).abs() < 0.015,
            "user {u}: {per_slot} bits per granted slot vs {expected}"
        );
        // Fragment service wastes nothing while the queue is backlogged.
        assert_eq!(s.unused_bytes, 0);
        // The channel offered the same mean to every slot, granted or not.
        let offered = s.rate_bits_sum as f64 / slots as f64;
        assert!(
            (offered / expected - 1.0).abs() < 0.01,
            "user {u}: {offered}"
        );
        // Round-robin: a quarter of the slots each.
        let share = s.bytes_sent as f64 * 8.0 / slots as f64;
        assert!(
            (share / (expected / 4.0) - 1.0).abs() < 0.015,
            "user {u}: {share}"
        );
    }
}

#[test]
fn channel_aware_schedulers_beat_round_robin_under_saturation() {
    let snrs = [12.0, 19.0, 13.0, 16.0];
    let total = |kind| {
        let mut cfg = config(&snrs);
        cfg.scheduler = kind;
        let d = run_saturated(&cfg, 3, 20_000, 1000);
        d.stats().iter().map(|s| s.bytes_sent).sum::<u64>()
    };
    let rr = total(SchedulerConfig::RoundRobin);
    let max_snr = total(SchedulerConfig::MaxSnr);
    assert!(
        max_snr as f64 > 1.1 * rr as f64,
        "max-SNR {max_snr} vs RR {rr}"
    );
    for kind in [
        SchedulerConfig::MaxWeight,
        SchedulerConfig::DelayMaxWeight,
        SchedulerConfig::Mlwdf,
    ] {
        let t = total(kind);
        assert!(
            t > rr && t <= max_snr,
            "{kind:?}: {t} (RR {rr}, max-SNR {max_snr})"
        );
    }
}

#[test]
fn drop_tail_and_packet_conservation() {
    let mut cfg = config(&[15.0]);
    cfg.queue_packets = 3;
    let mut d = Downlink::new(&cfg, 1, "downlink").unwrap();
    for i in 0..5 {
        let r = d.enqueue(0, PacketId(i), 200, 0);
        assert_eq!(r.is_ok(), i < 3, "packet {i}");
        if i >= 3 {
            assert_eq!(r, Err((PacketId(i), DropReason::QueueFull)));
        }
    }
    let s = d.stats()[0];
    assert_eq!((s.packets_enqueued, s.packets_dropped), (3, 2));
    let mut served = 0;
    for k in 0..100 {
        served += d.on_slot(k * d.slot_len()).len();
    }
    assert_eq!(served, 3);
    assert_eq!(d.queue_len(0), 0);
    let mut left = vec![];
    d.for_each_queued(&mut |id| left.push(id));
    assert!(left.is_empty());
}

#[test]
fn whole_packets_waste_the_remainder_fragments_do_not() {
    // No fading, 10 dB: 16-QAM 1/2 always (2 bit/s/Hz). 1 MHz x 1 ms x 2 = 2000 bits = 250 B.
    let mut cfg = config(&[10.6]);
    cfg.fading = SlotFadingConfig::None;
    cfg.bandwidth = 1e6;
    cfg.slot = MILLIS;
    for (service, per_slot) in [
        (ServiceConfig::WholePackets, 200),
        (ServiceConfig::Fragment, 250),
    ] {
        cfg.service = service;
        let d = run_saturated(&cfg, 1, 1000, 100);
        let s = d.stats()[0];
        assert_eq!(s.bytes_sent, 1000 * per_slot, "{service:?}");
        assert_eq!(s.unused_bytes, 1000 * (250 - per_slot), "{service:?}");
    }
    // 150-byte packets: whole packets fit one per slot (100 B lost), fragments 5 per 3 slots.
    cfg.service = ServiceConfig::WholePackets;
    let d = run_saturated(&cfg, 1, 300, 150);
    assert_eq!(d.stats()[0].packets_served, 300);
    cfg.service = ServiceConfig::Fragment;
    let d = run_saturated(&cfg, 1, 300, 150);
    assert_eq!(d.stats()[0].packets_served, 500);
}

#[test]
fn finish_times_spread_over_the_slot() {
    let mut cfg = config(&[10.6]);
    cfg.fading = SlotFadingConfig::None;
    cfg.bandwidth = 1e6;
    cfg.slot = MILLIS; // 250-byte budget
    let mut d = Downlink::new(&cfg, 1, "downlink").unwrap();
    for i in 0..3 {
        d.enqueue(0, PacketId(i), 100, 0).unwrap();
    }
    let now = 5 * MILLIS;
    let served: Vec<(u32, Time)> = d.on_slot(now).iter().map(|s| (s.id.0, s.finish)).collect();
    // 100 of 250 bytes -> 0.4 ms, 200 -> 0.8 ms; the third finishes in the next slot.
    assert_eq!(served, [(0, now + 400_000), (1, now + 800_000)]);
    let next: Vec<(u32, Time)> = d
        .on_slot(now + MILLIS)
        .iter()
        .map(|s| (s.id.0, s.finish))
        .collect();
    // 50 bytes left of 250 -> 0.2 ms.
    assert_eq!(next, [(2, now + MILLIS + 200_000)]);
    assert_eq!(d.last_allocations()[0].sent_bytes, 50);
}

#[test]
fn same_seed_same_run_and_users_have_independent_streams() {
    let trace = |snrs: &[f64], seed| {
        let mut d = Downlink::new(&config(snrs), seed, "downlink").unwrap();
        (0..500)
            .map(|k| {
                d.on_slot(k * d.slot_len());
                d.last_views()[0].snr
            })
            .collect::<Vec<f64>>()
    };
    assert_eq!(trace(&[12.0, 19.0], 4), trace(&[12.0, 19.0], 4));
    assert_ne!(trace(&[12.0, 19.0], 4), trace(&[12.0, 19.0], 5));
    // Adding a user leaves user 0's channel untouched.
    assert_eq!(trace(&[12.0], 4), trace(&[12.0, 19.0, 13.0], 4));
}

#[test]
fn the_scheduler_does_not_change_the_channel() {
    let snr_trace = |kind| {
        let mut cfg = config(&[12.0, 19.0, 13.0, 16.0]);
        cfg.scheduler = kind;
        let mut d = Downlink::new(&cfg, 9, "downlink").unwrap();
        let mut sat = Saturator {
            next_id: 0,
            size: 200,
        };
        (0..300)
            .map(|k| {
                let now = k * d.slot_len();
                sat.top_up(&mut d, now);
                d.on_slot(now);
                d.last_views().iter().map(|v| v.rate_bits).sum::<u64>()
            })
            .collect::<Vec<u64>>()
    };
    assert_eq!(
        snr_trace(SchedulerConfig::RoundRobin),
        snr_trace(SchedulerConfig::DelayMaxWeight)
    );
}

#[test]
fn bimodal_erasures_lose_the_expected_fraction() {
    let mut cfg = config(&[20.0, 20.0]);
    cfg.fading = SlotFadingConfig::None;
    cfg.scheduler = SchedulerConfig::RoundRobin;
    cfg.erasure = Some(ErasureConfig::Bimodal {
        low: 0.5,
        high: 1.0,
        low_probability: 0.25,
        hold_min: 100 * MILLIS,
        hold_max: 200 * MILLIS,
    });
    let d = run_saturated(&cfg, 2, 50_000, 1000);
    for s in d.stats() {
        // A quarter of the time half the packets are lost: 12.5 %.
        let lost = s.packets_erased as f64 / s.packets_served as f64;
        assert!((lost - 0.125).abs() < 0.03, "{lost}");
    }
}

#[test]
fn configuration_errors_name_the_field() {
    let bad = |edit: &dyn Fn(&mut DownlinkConfig)| {
        let mut cfg = config(&[12.0, 19.0]);
        edit(&mut cfg);
        Downlink::new(&cfg, 1, "downlink").unwrap_err().path
    };
    assert_eq!(bad(&|c| c.users.clear()), "downlink.users");
    assert_eq!(
        bad(&|c| c.users[1].mean_snr = f64::NAN),
        "downlink.users[1].mean_snr"
    );
    assert_eq!(bad(&|c| c.slot = 0), "downlink.slot");
    assert_eq!(bad(&|c| c.rate_scale = 1.5), "downlink.rate_scale");
    assert_eq!(bad(&|c| c.queue_packets = 0), "downlink.queue_packets");
    assert_eq!(bad(&|c| c.average_window = 0), "downlink.average_window");
    assert_eq!(
        bad(&|c| c.amc = AmcConfig::Liu2004 {
            count: 7,
            target_per: 0.01
        }),
        "downlink.amc.count"
    );
    assert_eq!(
        bad(&|c| {
            c.amc = AmcConfig::Custom {
                modes: vec![
                    AmcModeConfig {
                        min_snr: 5.0,
                        efficiency: 1.0,
                    },
                    AmcModeConfig {
                        min_snr: 5.0,
                        efficiency: 2.0,
                    },
                ],
            }
        }),
        "downlink.amc.modes[1].min_snr"
    );
    assert_eq!(
        bad(&|c| c.fading = SlotFadingConfig::GaussMarkov { doppler: -1.0 }),
        "downlink.fading.doppler"
    );
    assert_eq!(
        bad(&|c| {
            c.erasure = Some(ErasureConfig::Bimodal {
                low: 0.5,
                high: 1.0,
                low_probability: 0.1,
                hold_min: 10,
                hold_max: 5,
            })
        }),
        "downlink.erasure.hold_max"
    );
}

#[test]
fn custom_table_and_single_rate_link() {
    // One mode usable at any SNR: a constant-rate link (paper 004's router), 1 Mbps.
    let mut cfg = config(&[0.0]);
    cfg.fading = SlotFadingConfig::None;
    cfg.amc = AmcConfig::Custom {
        modes: vec![AmcModeConfig {
            min_snr: -200.0,
            efficiency: 1.0,
        }],
    };
    cfg.bandwidth = 1e6;
    cfg.slot = 2_048_000; // one 256-byte packet per slot at 1 Mbps
    let d = run_saturated(&cfg, 1, 1000, 256);
    assert_eq!(d.stats()[0].packets_served, 1000);
}

/// A scheduler that splits every slot between all backlogged users (not one of the papers';
/// exercises the multi-grant path).
#[derive(Debug)]
struct EqualSplit;

impl Scheduler for EqualSplit {
    fn name(&self) -> &'static str {
        "equal_split"
    }
    fn schedule(&mut self, _slot: u64, users: &[UserView], grants: &mut Vec<Grant>) {
        let backlogged = users.iter().filter(|u| u.is_backlogged()).count();
        for (i, u) in users.iter().enumerate() {
            if u.is_backlogged() {
                grants.push(Grant {
                    user: i,
                    share: 1.0 / backlogged as f64,
                });
            }
        }
    }
}

#[test]
fn a_slot_can_be_shared() {
    let mut cfg = config(&[10.6, 10.6, 10.6]);
    cfg.fading = SlotFadingConfig::None;
    cfg.bandwidth = 1e6;
    cfg.slot = MILLIS; // 2000 bits per whole slot
    let mut d = Downlink::new(&cfg, 1, "downlink").unwrap();
    d.set_scheduler(Box::new(EqualSplit));
    let mut sat = Saturator {
        next_id: 0,
        size: 10,
    };
    sat.top_up(&mut d, 0);
    d.on_slot(0);
    let a = d.last_allocations();
    assert_eq!(a.len(), 3);
    for x in a {
        // floor(2000 / 3) = 666 bits -> 83 bytes.
        assert_eq!((x.budget_bytes, x.sent_bytes), (83, 83));
    }
}

#[derive(Debug, Clone)]
enum Op {
    Enqueue { user: usize, size: u32 },
    Slot,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0usize..4, 1u32..3000).prop_map(|(user, size)| Op::Enqueue { user, size }),
        1 => Just(Op::Slot),
    ]
}

fn scheduler_kind() -> impl Strategy<Value = SchedulerConfig> {
    prop_oneof![
        Just(SchedulerConfig::RoundRobin),
        Just(SchedulerConfig::MaxSnr),
        Just(SchedulerConfig::MaxWeight),
        Just(SchedulerConfig::DelayMaxWeight),
        Just(SchedulerConfig::Mlwdf),
    ]
}

fn fading_kind() -> impl Strategy<Value = SlotFadingConfig> {
    prop_oneof![
        Just(SlotFadingConfig::None),
        Just(SlotFadingConfig::Rayleigh),
        (0.0f64..300.0).prop_map(|doppler| SlotFadingConfig::GaussMarkov { doppler }),
        (0.0f64..300.0, 1u32..20)
            .prop_map(|(doppler, sinusoids)| SlotFadingConfig::Clarke { doppler, sinusoids }),
    ]
}

proptest! {
    /// Under any traffic, configuration and scheduler: no queue exceeds its capacity, no grant
    /// sends more than its budget, budgets are floor(share x rate) / 8, finish times fall inside
    /// the slot, whole-packet service sends exactly the packets it completes, and every packet
    /// offered is queued, served or dropped.
    #[test]
    fn queues_and_budgets_are_respected(
        snrs in proptest::collection::vec(-5.0f64..30.0, 1..5),
        capacity in 1u32..8,
        whole in any::<bool>(),
        scheduler in scheduler_kind(),
        fading in fading_kind(),
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 0..300),
    ) {
        let mut cfg = config(&snrs);
        cfg.queue_packets = capacity;
        cfg.service = if whole { ServiceConfig::WholePackets } else { ServiceConfig::Fragment };
        cfg.scheduler = scheduler;
        cfg.fading = fading;
        cfg.slot = MILLIS; // 1250 bytes per slot per bit/s/Hz: comparable to packet sizes
        let mut d = Downlink::new(&cfg, seed, "downlink").unwrap();
        let n = snrs.len();
        let (mut offered, mut next_id, mut k) = (vec![0u64; n], 0u32, 0u64);
        for op in ops {
            match op {
                Op::Enqueue { user, size } => {
                    let user = user % n;
                    let _ = d.enqueue(user, PacketId(next_id), size, k * MILLIS);
                    offered[user] += 1;
                    next_id += 1;
                }
                Op::Slot => {
                    let now = k * MILLIS;
                    let served: Vec<Served> = d.on_slot(now).to_vec();
                    k += 1;
                    let mut shares = 0.0;
                    for a in d.last_allocations() {
                        shares += a.share;
                        prop_assert!(a.sent_bytes <= a.budget_bytes);
                        let granted = if a.share >= 1.0 {
                            a.rate_bits
                        } else {
                            (a.share * a.rate_bits as f64).floor() as u64
                        };
                        prop_assert_eq!(a.budget_bytes, granted / 8);
                        prop_assert_eq!(a.rate_bits, d.last_views()[a.user].rate_bits);
                        if whole {
                            let sizes: u64 = served
                                .iter()
                                .filter(|s| s.user == a.user)
                                .map(|s| s.size as u64)
                                .sum();
                            prop_assert_eq!(sizes, a.sent_bytes);
                        }
                    }
                    prop_assert!(shares <= 1.0 + 1e-9);
                    for s in &served {
                        prop_assert!(s.finish >= now && s.finish <= now + MILLIS);
                        prop_assert!(s.delivered);
                        prop_assert!(d.last_allocations().iter().any(|a| a.user == s.user));
                    }
                }
            }
            for (u, &offered) in offered.iter().enumerate() {
                prop_assert!(d.queue_len(u) <= capacity as usize);
                let s = d.stats()[u];
                prop_assert_eq!(s.packets_enqueued + s.packets_dropped, offered);
                prop_assert_eq!(
                    s.packets_enqueued,
                    s.packets_served + d.queue_len(u) as u64
                );
            }
        }
    }
}
