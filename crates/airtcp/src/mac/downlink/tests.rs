//! Tests of the whole downlink: service, fairness, long-run rates against the Rayleigh/AMC
//! closed forms, the frame model and MAC overhead, erasures, configuration errors and
//! invariants under random traffic.

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

/// Each user's long-run rate with every queue saturated by `size`-byte packets, in packets of
/// 200 bytes per second (bytes sent / 200 / seconds; with fragment service the bytes sent do not
/// depend on the packet size, so larger packets only make the test cheaper).
fn saturated_rates(cfg: &DownlinkConfig, seed: u64, slots: u64, size: u32) -> Vec<f64> {
    let d = run_saturated(cfg, seed, slots, size);
    let seconds = slots as f64 * cfg.slot as f64 * 1e-9;
    d.stats()
        .iter()
        .map(|s| s.bytes_sent as f64 / 200.0 / seconds)
        .collect()
}

fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Paper 002's four users (12, 19, 13, 16 dB).
const PAPER_002_SNRS: [f64; 4] = [12.0, 19.0, 13.0, 16.0];

/// The closed forms of the spec's check list for paper 002's ns-2 downlink (10 MHz, 10 ms,
/// 802.16e AMC, ideal frame, `rate_scale` 1, no MAC overhead), saturated, packets of 200 bytes
/// per second: round-robin E[R_u] / 4; max-SNR the integral of R_u over the SNRs at which u is
/// the strongest; queue-length MaxWeight with equal queues = max-rate (the joint mode
/// distribution, ties split equally); eq. (10) with equal queues = proportional fair (the
/// utility optimum of the ergodic rate region).
const RR_RATES: [f64; 4] = [2540.3, 5074.5, 2863.5, 3928.9];
const MAX_SNR_RATES: [f64; 4] = [1086.2, 14686.3, 1768.3, 5985.3];
const MAX_RATE_RATES: [f64; 4] = [1237.7, 14389.1, 1912.4, 5986.8];
const PF_RATES: [f64; 4] = [4296.6, 7291.6, 4375.1, 5833.6];

/// The probability of each AMC mode (index 0: outage, k: mode k - 1) of a user of mean SNR
/// `mean` (linear) under Rayleigh fading.
fn mode_probabilities(amc: &AmcTable, mean: f64) -> Vec<f64> {
    let tail: Vec<f64> = amc
        .modes()
        .iter()
        .map(|m| (-amc::db_to_linear(m.min_snr_db) / mean).exp())
        .chain([0.0])
        .collect();
    std::iter::once(1.0 - tail[0])
        .chain(tail.windows(2).map(|w| w[0] - w[1]))
        .collect()
}

/// Max-rate with airtcp's tie rule (the first tied user counting from slot mod n; with i.i.d.
/// slots each start has probability 1 / n), by enumerating the joint modes, packets of 200
/// bytes per second.
fn max_rate_with_rotating_ties(d: &Downlink) -> Vec<f64> {
    let n = d.users();
    let modes = d.amc().modes().len() + 1;
    let bits = |k: usize| if k == 0 { 0 } else { d.amc().mode_bits(k - 1) };
    let p: Vec<Vec<f64>> = (0..n)
        .map(|u| mode_probabilities(d.amc(), d.mean_snr(u)))
        .collect();
    let mut rate = vec![0.0; n];
    let mut state = vec![0usize; n];
    for code in 0..modes.pow(n as u32) {
        let mut c = code;
        for s in state.iter_mut() {
            *s = c % modes;
            c /= modes;
        }
        let prob: f64 = (0..n).map(|u| p[u][state[u]]).product();
        let best = (0..n).map(|u| bits(state[u])).max().unwrap();
        if best == 0 {
            continue;
        }
        for start in 0..n {
            let u = (0..n)
                .map(|j| (start + j) % n)
                .find(|&u| bits(state[u]) == best)
                .unwrap();
            rate[u] += prob * best as f64 / n as f64;
        }
    }
    rate.iter().map(|r| r * 100.0 / 1600.0).collect()
}

fn assert_close(what: &str, got: &[f64], expected: &[f64], tolerance: &[f64]) {
    for (u, ((g, e), t)) in got.iter().zip(expected).zip(tolerance).enumerate() {
        assert!(
            (g / e - 1.0).abs() < *t,
            "{what} user {u}: {g:.1} vs {e:.1} packets/s ({got:?})"
        );
    }
}

/// Spec 002 §6(a) item 6: saturated rates against the closed forms, 200 000 slots (2000 s),
/// within `tolerance` (1 % for i.i.d. Rayleigh, 2 % for Gauss-Markov at 128 Hz) except where the
/// comments say otherwise, with the measured deviations.
fn check_saturated_rates(fading: SlotFadingConfig, tolerance: f64) {
    let slots = 200_000;
    let run = |kind, service, size| {
        let mut cfg = config(&PAPER_002_SNRS);
        cfg.scheduler = kind;
        cfg.fading = fading.clone();
        cfg.service = service;
        saturated_rates(&cfg, 11, slots, size)
    };
    let t = tolerance;
    let fragment = ServiceConfig::Fragment;
    // Round-robin (measured within 0.6 %).
    let rr = run(SchedulerConfig::RoundRobin, fragment, 1000);
    assert_close("round-robin", &rr, &RR_RATES, &[t; 4]);
    // Max-SNR: the weak users hold 7 % and 11 % of the slots, which leaves their rates a
    // relative standard error of about 0.8 % in 200 000 slots (measured over six runs): 2.5 %
    // for them.
    let max_snr = run(SchedulerConfig::MaxSnr, fragment, 1000);
    let weak = t.max(0.025);
    assert_close("max-SNR", &max_snr, &MAX_SNR_RATES, &[weak, t, weak, t]);
    // Queue-length MaxWeight. Its total is the max-rate total however ties are split.
    let max_rate_total: f64 = MAX_RATE_RATES.iter().sum();
    let mw = run(SchedulerConfig::MaxWeight, fragment, 1000);
    assert_close(
        "MaxWeight total",
        &[mw.iter().sum()],
        &[max_rate_total],
        &[t],
    );
    // Its split among tied users is not the closed form's equal split: with fragments the
    // byte backlogs differ by the head packets' sent parts, and the larger backlog wins a tie
    // of rates (measured: the 12 and 13 dB users -5 to -7 %). With whole 1250-byte packets
    // every mode's budget is a whole number of packets, the full queues hold equal bytes and
    // ties go round from user slot mod 4: the closed form with that rule (1265.1, 14478.8,
    // 1826.3, 5955.8) holds, the weak users within 2.5 % as for max-SNR.
    let d = Downlink::new(&config(&PAPER_002_SNRS), 1, "downlink").unwrap();
    let rotating = max_rate_with_rotating_ties(&d);
    let total: f64 = rotating.iter().sum();
    assert!((total / max_rate_total - 1.0).abs() < 1e-4, "{rotating:?}");
    let mw_equal = run(
        SchedulerConfig::MaxWeight,
        ServiceConfig::WholePackets,
        1250,
    );
    assert_close(
        "MaxWeight, equal queues",
        &mw_equal,
        &rotating,
        &[weak, t, weak, t],
    );
    // Eq. (10) with equal queues: proportional fair through a 256-slot average, which leaves
    // the weakest user 3.5 % short of the utility optimum and the 13 and 16 dB users up to 2 %
    // above it (measured; the gap closes as the window grows: -2.4 % at 1024 slots, -1.2 % at
    // 4096, -0.4 % at 16 384). Per user within 4 %, the total and Jain's index (0.9517) close.
    let pf = run(SchedulerConfig::DelayMaxWeight, fragment, 1000);
    assert_close("eq. (10)", &pf, &PF_RATES, &[0.04; 4]);
    let pf_total: f64 = PF_RATES.iter().sum();
    assert_close("eq. (10) total", &[pf.iter().sum()], &[pf_total], &[0.005]);
    assert!((jain(&pf) - 0.9517).abs() < 0.002, "Jain {}", jain(&pf));
}

#[test]
fn round_robin_reference_rates_are_the_rayleigh_means() {
    // RR_RATES from the AMC table: E[R_u] / 4 bits per slot x 100 slots/s / 1600 bits.
    let d = Downlink::new(&config(&PAPER_002_SNRS), 1, "downlink").unwrap();
    for (u, e) in RR_RATES.iter().enumerate() {
        let rr = d.amc().expected_bits_rayleigh(d.mean_snr(u)) / 4.0 * 100.0 / 1600.0;
        assert!((rr - e).abs() < 0.05, "user {u}: {rr}");
    }
    // The mode probabilities sum to 1 and give the same mean.
    for u in 0..4 {
        let p = mode_probabilities(d.amc(), d.mean_snr(u));
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mean: f64 = (1..p.len())
            .map(|k| p[k] * d.amc().mode_bits(k - 1) as f64)
            .sum();
        assert!((mean / d.amc().expected_bits_rayleigh(d.mean_snr(u)) - 1.0).abs() < 1e-12);
    }
}

#[test]
fn saturated_rates_match_the_closed_forms_iid_rayleigh() {
    check_saturated_rates(SlotFadingConfig::Rayleigh, 0.01);
}

#[test]
fn saturated_rates_match_the_closed_forms_gauss_markov_128hz() {
    // The default channel: power correlated 0.026 from slot to slot.
    check_saturated_rates(SlotFadingConfig::GaussMarkov { doppler: 128.0 }, 0.02);
}

#[test]
fn the_frame_and_the_mac_overhead_scale_round_robin_as_the_closed_form_says() {
    // Paper 002's downlink with the 802.16e PUSC frame (efficiency 0.3456), 10 bytes of MAC
    // overhead on 240-byte packets and a residual factor: saturated round-robin gives each user
    // E[R_u] / 4 of the scaled table, in packets of 250 air bytes.
    let snrs = [12.0, 19.0, 13.0, 16.0];
    let mut cfg = config(&snrs);
    cfg.scheduler = SchedulerConfig::RoundRobin;
    cfg.fading = SlotFadingConfig::Rayleigh;
    cfg.frame = serde_json::from_str(r#"{"kind": "ieee802_16e_pusc"}"#).unwrap();
    cfg.mac_overhead_bytes = 10;
    cfg.rate_scale = 0.72;
    let d = Downlink::new(&cfg, 1, "downlink").unwrap();
    assert!((d.frame_efficiency() - 0.3456).abs() < 1e-12);
    assert_eq!(d.frame().unwrap().frame_symbols, 47);
    // 16-QAM 1/2: floor(2 x 10 MHz x 10 ms x 0.3456 x 0.72) = 49 766 bits.
    assert_eq!(d.amc().mode_bits(2), 49_766);
    let slots = 100_000;
    let run = run_saturated(&cfg, 5, slots, 240);
    let seconds = slots as f64 / 100.0;
    let mut total = 0.0;
    for (u, s) in run.stats().iter().enumerate() {
        let closed = d.amc().expected_bits_rayleigh(d.mean_snr(u)) / 4.0 * 100.0 / (8.0 * 250.0);
        let packets = s.packets_served as f64 / seconds;
        assert!(
            (packets / closed - 1.0).abs() < 0.015,
            "user {u}: {packets} vs {closed}"
        );
        // Air bytes are 250 per packet, the packets' own 240.
        assert_eq!(s.bytes_served, 240 * s.packets_served);
        assert!(
            s.bytes_sent >= 250 * s.packets_served && s.bytes_sent < 250 * (s.packets_served + 1)
        );
        total += closed;
    }
    // The frame model alone (residual 1) would give total / 0.72: about 3983 packets/s.
    assert!((total / 0.72 - 3983.0).abs() < 5.0, "{}", total / 0.72);
}

#[test]
fn an_explicit_ideal_frame_without_overhead_changes_nothing() {
    let snrs = [12.0, 19.0, 13.0, 16.0];
    let trace = |cfg: &DownlinkConfig| {
        let mut d = Downlink::new(cfg, 3, "downlink").unwrap();
        let mut sat = Saturator {
            next_id: 0,
            size: 240,
        };
        (0..2000)
            .flat_map(|k| {
                let now = k * d.slot_len();
                sat.top_up(&mut d, now);
                d.on_slot(now).to_vec()
            })
            .collect::<Vec<Served>>()
    };
    let mut plain = config(&snrs);
    plain.rate_scale = 0.198;
    let explicit: DownlinkConfig = serde_json::from_value(serde_json::json!({
        "base_station": "bs", "frame": {"kind": "ideal"}, "mac_overhead_bytes": 0,
        "rate_scale": 0.198,
        "users": snrs.iter().enumerate()
            .map(|(i, s)| serde_json::json!({"node": format!("ue{i}"), "mean_snr": s}))
            .collect::<Vec<_>>()}))
    .unwrap();
    assert_eq!(trace(&plain), trace(&explicit));
    // 16-QAM 1/2 at scale 0.198: floor(200 000 x 0.198) bits, as before frames were modelled.
    let d = Downlink::new(&plain, 1, "downlink").unwrap();
    assert_eq!(d.amc().mode_bits(2), 39_600);
    assert_eq!(d.frame_efficiency(), 1.0);
}

#[test]
fn rates_report_the_frame_the_table_and_the_rayleigh_means() {
    let mut cfg = config(&[12.0, 19.0]);
    cfg.frame = serde_json::from_str(r#"{"kind": "ieee802_16e_pusc"}"#).unwrap();
    cfg.mac_overhead_bytes = 10;
    let r = rates(&cfg, "downlink").unwrap();
    let f = r.frame.as_ref().unwrap();
    assert_eq!((f.frame_symbols, f.data_symbols), (47, 24));
    assert_eq!(f.sampling_rate_hz, 11.2e6);
    assert!((r.frame_efficiency - 0.3456).abs() < 1e-12);
    // QPSK 1/2: 1 bit per tone x 3.456 M tones/s x 10 ms.
    assert_eq!(r.modes[0].bits_per_slot, 34_560);
    let d = Downlink::new(&cfg, 1, "downlink").unwrap();
    for (u, user) in r.users.iter().enumerate() {
        assert_eq!(
            user.mean_bits_rayleigh,
            d.amc().expected_bits_rayleigh(d.mean_snr(u))
        );
    }
    assert_eq!(r.mac_overhead_bytes, 10);
    assert!(rates(&config(&[12.0]), "downlink").unwrap().frame.is_none());
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
    let pusc = |c: &mut DownlinkConfig, edit: serde_json::Value| {
        let mut v = serde_json::json!({"kind": "ieee802_16e_pusc"});
        for (k, x) in edit.as_object().unwrap() {
            v[k] = x.clone();
        }
        c.frame = serde_json::from_value(v).unwrap();
    };
    // A 1024-FFT frame at 5 MHz: symbols of 205.7 us, 23 per frame, not 29 + 18.
    assert_eq!(
        bad(&|c| {
            pusc(c, serde_json::json!({}));
            c.bandwidth = 5e6;
        }),
        "downlink.frame.dl_symbols"
    );
    assert_eq!(
        bad(&|c| pusc(c, serde_json::json!({"ul_symbols": 19}))),
        "downlink.frame.ul_symbols"
    );
    assert_eq!(
        bad(&|c| pusc(c, serde_json::json!({"data_subcarriers": 2000}))),
        "downlink.frame.data_subcarriers"
    );
    assert_eq!(
        bad(&|c| pusc(c, serde_json::json!({"cyclic_prefix": -0.1}))),
        "downlink.frame.cyclic_prefix"
    );
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
    /// Under any traffic, configuration (frame, MAC overhead) and scheduler: no queue exceeds
    /// its capacity, no grant sends more than its budget, budgets are floor(share x rate) / 8,
    /// finish times fall inside the slot, whole-packet service sends exactly the air bytes
    /// (size + overhead) of the packets it completes, and every packet offered is queued, served
    /// or dropped.
    #[test]
    fn queues_and_budgets_are_respected(
        snrs in proptest::collection::vec(-5.0f64..30.0, 1..5),
        capacity in 1u32..8,
        whole in any::<bool>(),
        overhead in prop_oneof![Just(0u32), 1u32..64],
        pusc in any::<bool>(),
        scheduler in scheduler_kind(),
        fading in fading_kind(),
        seed in any::<u64>(),
        ops in proptest::collection::vec(op(), 0..300),
    ) {
        let mut cfg = config(&snrs);
        cfg.queue_packets = capacity;
        cfg.mac_overhead_bytes = overhead;
        if pusc {
            cfg.frame = serde_json::from_str(r#"{"kind": "ieee802_16e_pusc"}"#).unwrap();
        }
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
                                .map(|s| s.size as u64 + overhead as u64)
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
