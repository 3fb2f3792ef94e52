//! The RTT-slotted model of TCP-RLC (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-B..G): the
//! model the paper's Theorems 1-3 are proved in, run as a Monte Carlo simulation so that the
//! theorems are checked against measured means (of this model and of the packet simulator), not
//! restated.
//!
//! One slot is one round trip. In each slot a flow sends W data packets and r W coded ones; its
//! router transmits at most its capacity (packets per slot), high priority first; each packet is
//! received with the channel's current success probability; the block succeeds when at least W
//! packets arrive (Assumption 1: any W of the block's packets decode it). Then
//! W <- min(W + 1, W_max) on success, ceil(W / 2) otherwise (§II-D), and the slot's throughput is
//! W if the block succeeded, else 0.
//!
//! - Channel (§II-C): p = `low` with probability `low_probability`, else `high`; `iid` draws it
//!   once per slot, independently (the analysis' variant); `holds` runs the packet simulator's
//!   process (states of U[hold_min, hold_max] drawn independently, `phy::bimodal`) in continuous
//!   time, each packet judged at its place in the slot (the slot's packets spread evenly over
//!   `rtt`).
//! - `single`: one flow, one router of `capacity` (Theorem 1).
//! - `multipath` (§II-F, Theorem 2): `paths` routers of `capacity` each, independent channels;
//!   path l has its own window w_l and sends tx_l = min(capacity, (1 + r) w_l), R_l of them
//!   arrive; w_l follows AIMD on R_l >= w_l, the source's W on sum_l R_l >= W (coded packets
//!   from every path count toward one block).
//! - `multiflow` (§II-H5, Theorem 3): `flows` flows through one router of `flows x capacity`,
//!   each user its own channel; per slot the router gives flow i x_i transmissions: `blind`:
//!   capacity each; `proportional`: the router's capacity shared in proportion to W_i / p_i
//!   (the instant-channel-knowledge benchmark); `quota {kappa}`: first each flow's
//!   ceil((W_i + kappa sqrt(W_i (1 - p_i))) / p_i) (the packet router's channel-aware rule),
//!   as far as capacity allows, then the rest equally.

use serde::{Deserialize, Serialize};

use crate::coding::block_quota::quota;
use crate::error::ConfigError;
use crate::phy::bimodal::{NextState, TwoLevel};
use crate::sim::{Rng, Time};

/// The channel of every user / path.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlottedChannel {
    /// Success probability of the low state.
    pub low: f64,
    /// Success probability of the high state.
    #[serde(default = "one")]
    pub high: f64,
    /// Probability of the low state.
    pub low_probability: f64,
    /// How p varies.
    #[serde(default)]
    pub variation: Variation,
}

fn one() -> f64 {
    1.0
}

/// How the success probability varies in time.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Variation {
    /// Drawn once per slot, independently.
    #[default]
    Iid,
    /// States of U[hold_min, hold_max] ns, each drawn independently; a slot lasts `rtt` ns.
    Holds {
        /// The slot's length (a round trip), ns.
        rtt: Time,
        /// Shortest state, ns.
        hold_min: Time,
        /// Longest state, ns.
        hold_max: Time,
    },
}

/// Who shares what.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Setting {
    /// One flow, one router.
    Single {
        /// Packets per slot.
        capacity: u32,
    },
    /// One flow coded across `paths` routers.
    Multipath {
        /// Routers.
        paths: u32,
        /// Packets per slot of each.
        capacity: u32,
    },
    /// `flows` flows through one router.
    Multiflow {
        /// Flows.
        flows: u32,
        /// Packets per slot per flow (the router has `flows x capacity`).
        capacity: u32,
        /// How the router shares.
        policy: SharePolicy,
    },
}

/// How a multi-flow router shares its transmissions.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SharePolicy {
    /// `capacity` each.
    Blind,
    /// In proportion to W_i / p_i.
    Proportional,
    /// Per-flow quotas first, then equally.
    Quota {
        /// Standard deviations of margin.
        kappa: f64,
    },
}

/// The model's parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RlcSlottedConfig {
    /// Slots to simulate (after `warmup`).
    pub slots: u64,
    /// Slots run before measuring.
    #[serde(default)]
    pub warmup: u64,
    /// Random seed.
    pub seed: u64,
    /// r.
    pub redundancy: u32,
    /// W at the start.
    #[serde(default = "one_u32")]
    pub initial_cwnd: u32,
    /// The largest W.
    #[serde(default = "max_cwnd")]
    pub max_cwnd: u32,
    /// The channel.
    pub channel: SlottedChannel,
    /// Who shares what.
    pub setting: Setting,
}

fn one_u32() -> u32 {
    1
}
fn max_cwnd() -> u32 {
    10_000
}

/// One flow's (or, multipath, the source's) means over the measured slots.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlottedFlow {
    /// E[W].
    pub mean_window: f64,
    /// Data packets delivered per slot (W on a successful slot).
    pub throughput: f64,
    /// Fraction of slots whose block succeeded.
    pub success_rate: f64,
    /// Multipath: each path's E[w_l].
    pub path_windows: Vec<f64>,
}

/// The results.
#[derive(Debug, Clone, Serialize)]
pub struct RlcSlottedResults {
    /// Per flow (one for `single` and `multipath`).
    pub flows: Vec<SlottedFlow>,
    /// Mean success probability seen by the packets sent.
    pub mean_p: f64,
}

/// A user's / path's channel.
struct Channel {
    process: TwoLevel,
    variation: Variation,
    low: f64,
    high: f64,
    low_probability: f64,
}

impl Channel {
    fn new(c: &SlottedChannel) -> Self {
        let (min, max) = match c.variation {
            Variation::Holds {
                hold_min, hold_max, ..
            } => (hold_min, hold_max),
            Variation::Iid => (1, 1),
        };
        Channel {
            process: TwoLevel::new(
                c.low,
                c.high,
                min,
                max,
                NextState::Draw {
                    low_probability: c.low_probability,
                },
            ),
            variation: c.variation,
            low: c.low,
            high: c.high,
            low_probability: c.low_probability,
        }
    }

    /// The slot's p under `iid` (drawn now), or None under `holds`.
    fn slot_p(&self, rng: &mut Rng) -> Option<f64> {
        match self.variation {
            Variation::Iid => Some(if rng.bernoulli(self.low_probability) {
                self.low
            } else {
                self.high
            }),
            Variation::Holds { .. } => None,
        }
    }

    /// Packets received of `tx` sent in slot `slot` (p fixed at `p` if given); adds the packets'
    /// success probabilities to `p_sum`.
    fn received(
        &mut self,
        slot: u64,
        tx: u64,
        p: Option<f64>,
        rng: &mut Rng,
        p_sum: &mut f64,
    ) -> u64 {
        let mut got = 0;
        for k in 0..tx {
            let pk = match (p, self.variation) {
                (Some(p), _) => p,
                (None, Variation::Holds { rtt, .. }) => {
                    let t = slot * rtt + (k * rtt) / tx.max(1);
                    self.process.success_probability(t, rng)
                }
                (None, Variation::Iid) => unreachable!("iid slots have a p"),
            };
            *p_sum += pk;
            got += u64::from(rng.bernoulli(pk));
        }
        got
    }
}

fn aimd(w: u32, success: bool, max: u32) -> u32 {
    if success {
        (w + 1).min(max)
    } else {
        w.div_ceil(2).max(1)
    }
}

fn err(path: &str, message: &str) -> ConfigError {
    ConfigError {
        path: path.into(),
        message: message.into(),
    }
}

fn check(cfg: &RlcSlottedConfig) -> Result<(), ConfigError> {
    let c = &cfg.channel;
    for (field, p) in [
        ("channel.low", c.low),
        ("channel.high", c.high),
        ("channel.low_probability", c.low_probability),
    ] {
        if !(0.0..=1.0).contains(&p) {
            return Err(err(field, "must be in [0, 1]"));
        }
    }
    if let Variation::Holds {
        rtt,
        hold_min,
        hold_max,
    } = c.variation
    {
        if rtt == 0 || hold_min == 0 || hold_max < hold_min {
            return Err(err(
                "channel.variation",
                "rtt and hold_min must be > 0 and hold_max >= hold_min",
            ));
        }
    }
    if cfg.slots == 0 || cfg.slots.saturating_add(cfg.warmup) > 100_000_000 {
        return Err(err("slots", "must be 1 to 10^8 with the warm-up"));
    }
    if cfg.initial_cwnd == 0 || cfg.max_cwnd < cfg.initial_cwnd || cfg.max_cwnd > 1_000_000 {
        return Err(err(
            "max_cwnd",
            "need 1 <= initial_cwnd <= max_cwnd <= 10^6",
        ));
    }
    if cfg.redundancy > 1000 {
        return Err(err("redundancy", "must be at most 1000"));
    }
    let (count, capacity) = match cfg.setting {
        Setting::Single { capacity } => (1, capacity),
        Setting::Multipath { paths, capacity } => (paths, capacity),
        Setting::Multiflow {
            flows,
            capacity,
            policy,
        } => {
            if let SharePolicy::Quota { kappa } = policy {
                if !(kappa.is_finite() && kappa >= 0.0) {
                    return Err(err("setting.policy.kappa", "must be a number >= 0"));
                }
            }
            (flows, capacity)
        }
    };
    if count == 0 || count > 1000 {
        return Err(err("setting", "1 to 1000 paths or flows"));
    }
    if capacity == 0 || capacity > 100_000 {
        return Err(err(
            "setting.capacity",
            "must be 1 to 100000 packets per slot",
        ));
    }
    Ok(())
}

/// One flow over one channel of `capacity` packets a slot.
fn run_single(
    capacity: u32,
    cfg: &RlcSlottedConfig,
    rng: &mut Rng,
    mean_p: &mut (f64, u64),
) -> Vec<SlottedFlow> {
    let r = cfg.redundancy as u64;
    let max = cfg.max_cwnd;
    let total = cfg.warmup + cfg.slots;
    let mut ch = Channel::new(&cfg.channel);
    let mut w = cfg.initial_cwnd;
    let mut acc = SlottedFlow::default();
    let mut ok = 0u64;
    for slot in 0..total {
        let tx = (capacity as u64).min((1 + r) * w as u64);
        let p = ch.slot_p(rng);
        let mut ps = 0.0;
        let got = ch.received(slot, tx, p, rng, &mut ps);
        let success = got >= w as u64;
        if slot >= cfg.warmup {
            acc.mean_window += w as f64;
            acc.throughput += if success { w as f64 } else { 0.0 };
            ok += u64::from(success);
            mean_p.0 += ps;
            mean_p.1 += tx;
        }
        w = aimd(w, success, max);
    }
    acc.success_rate = ok as f64;
    vec![acc]
}

/// One flow over `paths` channels of `capacity` packets a slot each, a window per path.
fn run_multipath(
    paths: u32,
    capacity: u32,
    cfg: &RlcSlottedConfig,
    rng: &mut Rng,
    mean_p: &mut (f64, u64),
) -> Vec<SlottedFlow> {
    let r = cfg.redundancy as u64;
    let max = cfg.max_cwnd;
    let total = cfg.warmup + cfg.slots;
    let m = paths as usize;
    let mut chs: Vec<Channel> = (0..m).map(|_| Channel::new(&cfg.channel)).collect();
    let mut w = cfg.initial_cwnd;
    let mut wl = vec![cfg.initial_cwnd; m];
    let mut acc = SlottedFlow {
        path_windows: vec![0.0; m],
        ..Default::default()
    };
    let mut ok = 0u64;
    for slot in 0..total {
        let mut sum = 0;
        let measured = slot >= cfg.warmup;
        for l in 0..m {
            let tx = (capacity as u64).min((1 + r) * wl[l] as u64);
            let p = chs[l].slot_p(rng);
            let mut ps = 0.0;
            let got = chs[l].received(slot, tx, p, rng, &mut ps);
            sum += got;
            if measured {
                acc.path_windows[l] += wl[l] as f64;
                mean_p.0 += ps;
                mean_p.1 += tx;
            }
            wl[l] = aimd(wl[l], got >= wl[l] as u64, max);
        }
        let success = sum >= w as u64;
        if measured {
            acc.mean_window += w as f64;
            acc.throughput += if success { w as f64 } else { 0.0 };
            ok += u64::from(success);
        }
        w = aimd(w, success, max);
    }
    acc.success_rate = ok as f64;
    vec![acc]
}

/// `flows` flows sharing a router of `capacity` packets a slot per flow, by `policy`.
fn run_multiflow(
    (flows, capacity, policy): (u32, u32, SharePolicy),
    cfg: &RlcSlottedConfig,
    rng: &mut Rng,
    mean_p: &mut (f64, u64),
) -> Vec<SlottedFlow> {
    let r = cfg.redundancy as u64;
    let max = cfg.max_cwnd;
    let total = cfg.warmup + cfg.slots;
    let n = flows as usize;
    let mut chs: Vec<Channel> = (0..n).map(|_| Channel::new(&cfg.channel)).collect();
    let mut w = vec![cfg.initial_cwnd; n];
    let mut acc = vec![SlottedFlow::default(); n];
    let mut ok = vec![0u64; n];
    let mut p = vec![0.0; n];
    let mut x = vec![0u64; n];
    let budget = capacity as u64 * n as u64;
    for slot in 0..total {
        for i in 0..n {
            p[i] = match chs[i].slot_p(rng) {
                Some(v) => v,
                // Under holds the router reads p at the slot's start (its oracle).
                None => chs[i]
                    .process
                    .success_probability(slot * rtt_of(&cfg.channel), rng),
            };
        }
        share(policy, &w, &p, r, capacity as u64, budget, &mut x);
        let measured = slot >= cfg.warmup;
        for i in 0..n {
            let fixed = matches!(cfg.channel.variation, Variation::Iid).then_some(p[i]);
            let mut ps = 0.0;
            let got = chs[i].received(slot, x[i], fixed, rng, &mut ps);
            let success = got >= w[i] as u64;
            if measured {
                acc[i].mean_window += w[i] as f64;
                acc[i].throughput += if success { w[i] as f64 } else { 0.0 };
                ok[i] += u64::from(success);
                mean_p.0 += ps;
                mean_p.1 += x[i];
            }
            w[i] = aimd(w[i], success, max);
        }
    }
    for (a, o) in acc.iter_mut().zip(&ok) {
        a.success_rate = *o as f64;
    }
    acc
}

/// Runs the model.
pub fn run(cfg: &RlcSlottedConfig) -> Result<RlcSlottedResults, ConfigError> {
    check(cfg)?;
    let mut rng = Rng::stream(cfg.seed, "tcp_rlc/slotted");
    // The erasure probability summed over every packet sent, and the packets.
    let mut mean_p = (0.0, 0u64);
    let flows = match cfg.setting {
        Setting::Single { capacity } => run_single(capacity, cfg, &mut rng, &mut mean_p),
        Setting::Multipath { paths, capacity } => {
            run_multipath(paths, capacity, cfg, &mut rng, &mut mean_p)
        }
        Setting::Multiflow {
            flows,
            capacity,
            policy,
        } => run_multiflow((flows, capacity, policy), cfg, &mut rng, &mut mean_p),
    };
    let (p_sum, p_count) = mean_p;
    let slots = cfg.slots as f64;
    let flows = flows
        .into_iter()
        .map(|mut f| {
            f.mean_window /= slots;
            f.throughput /= slots;
            f.success_rate /= slots;
            for v in &mut f.path_windows {
                *v /= slots;
            }
            f
        })
        .collect();
    Ok(RlcSlottedResults {
        flows,
        mean_p: if p_count > 0 {
            p_sum / p_count as f64
        } else {
            0.0
        },
    })
}

fn rtt_of(c: &SlottedChannel) -> Time {
    match c.variation {
        Variation::Holds { rtt, .. } => rtt,
        Variation::Iid => 1,
    }
}

/// Each flow's transmissions this slot (at most (1 + r) W_i, what it sent).
fn share(
    policy: SharePolicy,
    w: &[u32],
    p: &[f64],
    r: u64,
    capacity: u64,
    budget: u64,
    x: &mut [u64],
) {
    let n = w.len();
    let offered = |i: usize| (1 + r) * w[i] as u64;
    match policy {
        SharePolicy::Blind => {
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = capacity.min(offered(i));
            }
        }
        SharePolicy::Proportional => {
            let weights: Vec<f64> = (0..n).map(|i| w[i] as f64 / p[i].max(1e-9)).collect();
            let total: f64 = weights.iter().sum();
            for (i, xi) in x.iter_mut().enumerate() {
                let s = (budget as f64 * weights[i] / total).floor() as u64;
                *xi = s.min(offered(i));
            }
        }
        SharePolicy::Quota { kappa } => {
            let mut left = budget;
            for i in 0..n {
                let q = quota(w[i], p[i], kappa).min(offered(i)).min(left);
                x[i] = q;
                left -= q;
            }
            // The rest equally (water-filling over flows with more to send).
            while left > 0 {
                let wanting: Vec<usize> = (0..n).filter(|&i| x[i] < offered(i)).collect();
                if wanting.is_empty() {
                    break;
                }
                let each = (left / wanting.len() as u64).max(1);
                for &i in &wanting {
                    let add = each.min(offered(i) - x[i]).min(left);
                    x[i] += add;
                    left -= add;
                    if left == 0 {
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(c: u32, low: f64, lp: f64, r: u32, slots: u64) -> RlcSlottedConfig {
        RlcSlottedConfig {
            slots,
            warmup: 0,
            seed: 1,
            redundancy: r,
            initial_cwnd: 1,
            max_cwnd: 10_000,
            channel: SlottedChannel {
                low,
                high: 1.0,
                low_probability: lp,
                variation: Variation::Iid,
            },
            setting: Setting::Single { capacity: c },
        }
    }

    #[test]
    fn a_perfect_channel_saw_tooths_between_c_plus_one_and_its_half() {
        // p = 1: W climbs to C (every block of W <= C arrives), C + 1 fails, ceil((C+1)/2)...
        // so E[W] over a tooth of C + 1 -> ceil((C + 1) / 2) is the mean of that run.
        let c = 20;
        let cfg = single(c, 1.0, 0.0, 1, 10_000);
        let res = run(&cfg).unwrap();
        let low = (c + 1).div_ceil(2);
        let tooth: Vec<u32> = (low..=c + 1).collect();
        let mean = tooth.iter().sum::<u32>() as f64 / tooth.len() as f64;
        assert!(
            (res.flows[0].mean_window - mean).abs() < 0.2,
            "{}",
            res.flows[0].mean_window
        );
        // Every slot but the failing one (W = C + 1) delivers.
        let rate = 1.0 - 1.0 / tooth.len() as f64;
        assert!((res.flows[0].success_rate - rate).abs() < 0.01);
    }

    #[test]
    fn the_iid_channel_puts_the_window_between_half_and_all_of_p_min_c() {
        // Theorem 1's regime: C = 300, p_1 = 0.7 half the time, (1 + r) p_1 >= 2: E[W] within
        // [p_1 C / 2, p_1 C], near the AIMD mean 0.75 p_1 C (A14: up to a few % below at finite C).
        let res = run(&single(300, 0.7, 0.5, 2, 200_000)).unwrap();
        let w = res.flows[0].mean_window;
        let x = 0.75 * 0.7 * 300.0;
        assert!(w > 0.9 * x && w < 1.05 * x, "E[W] {w} vs {x}");
        assert!((res.mean_p - 0.85).abs() < 0.02, "{}", res.mean_p);
    }

    #[test]
    fn coding_across_paths_beats_separate_paths_when_p_min_is_small() {
        // Theorem 2: one flow over 4 paths of 150 packets per slot, p_1 = 0.1 a tenth of the
        // time: the source's window rides the sum of what the paths deliver, near E[P] per path,
        // where one path's own window would be bounded by p_1's slots.
        let mut cfg = single(150, 0.1, 0.1, 19, 100_000);
        cfg.setting = Setting::Multipath {
            paths: 4,
            capacity: 150,
        };
        let coded = run(&cfg).unwrap().flows[0].throughput;
        let alone = run(&single(150, 0.1, 0.1, 19, 100_000)).unwrap().flows[0].throughput;
        assert!(coded > 4.0 * alone * 1.05, "coded {coded} vs 4 x {alone}");
    }

    #[test]
    fn knowing_the_channel_helps_many_flows() {
        // Theorem 3: 30 flows, p_1 = 0.5 a quarter of the time: sharing by quota or in
        // proportion to W / p beats a blind equal share.
        let mut cfg = single(100, 0.5, 0.25, 3, 20_000);
        let mut run_with = |policy| {
            cfg.setting = Setting::Multiflow {
                flows: 30,
                capacity: 100,
                policy,
            };
            let res = run(&cfg).unwrap();
            res.flows.iter().map(|f| f.throughput).sum::<f64>() / 30.0
        };
        let blind = run_with(SharePolicy::Blind);
        let quota = run_with(SharePolicy::Quota { kappa: 2.0 });
        let proportional = run_with(SharePolicy::Proportional);
        assert!(
            quota > blind && proportional > blind,
            "{blind} {quota} {proportional}"
        );
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut cfg = single(10, 0.5, 0.5, 1, 10);
        cfg.channel.low_probability = 1.5;
        assert_eq!(run(&cfg).unwrap_err().path, "channel.low_probability");
        let mut cfg = single(0, 0.5, 0.5, 1, 10);
        assert_eq!(run(&cfg).unwrap_err().path, "setting.capacity");
        cfg = single(10, 0.5, 0.5, 1, 0);
        assert_eq!(run(&cfg).unwrap_err().path, "slots");
    }
}
