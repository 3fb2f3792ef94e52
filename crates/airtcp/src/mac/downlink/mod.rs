//! The slotted base-station downlink of papers 002 (§V) and 004 (§IV): one base station sends
//! to several users over a shared channel divided into fixed time slots.
//!
//! Every slot, in this order:
//! 1. each user's channel gives its instantaneous SNR, mean SNR x fading power gain
//!    ([`channel`]), and the AMC table turns it into the bits the user could receive in the
//!    whole slot ([`amc`]): e x bandwidth x slot x frame efficiency ([`frame`]) x `rate_scale`;
//! 2. the scheduler sees, per user, that rate, the queue (packets, bytes, head-of-line wait)
//!    and the average throughput, and grants the slot (or shares of it) ([`scheduler`]);
//! 3. each granted user's queue sends up to its budget, floor(share x rate / 8) bytes, as whole
//!    packets or with fragments carried to its next grant ([`user_queue`]), a packet taking its
//!    size plus `mac_overhead_bytes` of it; completed packets are reported, optionally subject
//!    to erasures ([`erasure`], paper 004);
//! 4. every user's average throughput (exponentially weighted, window `average_window` slots)
//!    takes the bits it was sent, 0 if none.
//!
//! Scheduling decisions are made at the slot boundary: a packet that arrives during a slot is
//! first eligible in the next one. The model is self-contained: the network layer enqueues
//! packets addressed to users and calls [`Downlink::on_slot`] at every slot boundary (see
//! `docs/downlink.md` for integration).

pub mod amc;
pub mod channel;
pub mod clarke;
pub mod config;
pub mod erasure;
pub mod frame;
pub mod gauss_markov;
pub mod scheduler;
pub mod user_queue;

pub use amc::{AmcMode, AmcTable};
pub use config::{
    AmcConfig, AmcModeConfig, DownlinkConfig, DownlinkUserConfig, ErasureConfig, FrameConfig,
    SchedulerConfig, ServiceConfig, SlotFadingConfig,
};
pub use frame::OfdmaFrame;
pub use scheduler::{Grant, Scheduler, UserView};

use channel::UserChannel;
use erasure::BimodalErasure;
use user_queue::UserQueue;

use crate::error::ConfigError;
use crate::sim::{DropReason, PacketId, Rng, Time};

/// A packet whose last byte went out in a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// The user it was sent to.
    pub user: usize,
    /// The packet.
    pub id: PacketId,
    /// Its size, bytes.
    pub size: u32,
    /// When it joined the base station's queue.
    pub enqueued: Time,
    /// When its last byte is on the air: slot start + slot length x (the user's budget used up
    /// to this packet) / (the user's budget). At most the slot's end; delivering every packet
    /// at the slot's end instead is the coarser, also valid, choice.
    pub finish: Time,
    /// Whether the user receives it (false: erased by the channel, drop it with
    /// [`DropReason::ChannelError`]). Always true without an erasure process.
    pub delivered: bool,
}

/// What one grant of the last slot amounted to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allocation {
    /// The user.
    pub user: usize,
    /// Its share of the slot.
    pub share: f64,
    /// Bits the whole slot would have carried to this user at its AMC mode.
    pub rate_bits: u64,
    /// Bytes the user could be sent: floor(share x rate_bits) / 8, rounded down.
    pub budget_bytes: u64,
    /// Bytes actually sent, MAC overhead included (never more than the budget).
    pub sent_bytes: u64,
}

/// Per-user counters since the start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UserStats {
    /// Packets accepted into the queue.
    pub packets_enqueued: u64,
    /// Packets refused because the queue was full.
    pub packets_dropped: u64,
    /// Packets whose transmission completed (erased ones included).
    pub packets_served: u64,
    /// Bytes of those packets.
    pub bytes_served: u64,
    /// Completed packets the channel erased.
    pub packets_erased: u64,
    /// Bytes sent on the air (each packet's size plus the MAC overhead), fragments of packets
    /// not yet complete included.
    pub bytes_sent: u64,
    /// Slots in which the user held a grant.
    pub slots_scheduled: u64,
    /// Slots in which the user's channel was in outage (rate 0), granted or not.
    pub outage_slots: u64,
    /// Sum over all slots of the user's whole-slot rate, bits (divide by the number of slots
    /// for the mean rate the channel offered).
    pub rate_bits_sum: u64,
    /// Granted bytes left unused (queue ran dry, or whole-packet service left a remainder).
    pub unused_bytes: u64,
}

/// The base station's downlink: per-user channels, AMC, queues and the scheduler.
#[derive(Debug)]
pub struct Downlink {
    slot_len: Time,
    frame: Option<OfdmaFrame>,
    frame_efficiency: f64,
    amc: AmcTable,
    channels: Vec<UserChannel>,
    queues: Vec<UserQueue>,
    erasures: Vec<BimodalErasure>,
    scheduler: Box<dyn Scheduler>,
    whole_packets: bool,
    /// Weight of the newest slot in the average throughput: 1 / window.
    average_weight: f64,
    avg_throughput: Vec<f64>,
    stats: Vec<UserStats>,
    slots: u64,
    // Buffers reused every slot, so a slot allocates nothing once they have grown.
    views: Vec<UserView>,
    grants: Vec<Grant>,
    allocations: Vec<Allocation>,
    served: Vec<Served>,
    sent_bytes: Vec<u64>,
}

impl Downlink {
    /// Builds the downlink of `cfg` for a run with master seed `seed`. `name` prefixes the
    /// paths of configuration errors (e.g. `"downlink"` gives `downlink.users[1].mean_snr`) and
    /// the random streams' component ids (`"{name}/user/{u}/fading"` and
    /// `"{name}/user/{u}/erasure"`), so each user's channel depends only on the seed, the name
    /// and its index.
    pub fn new(cfg: &DownlinkConfig, seed: u64, name: &str) -> Result<Self, ConfigError> {
        let frame = validate(cfg, name)?;
        let frame_efficiency = frame.map_or(1.0, |f| f.efficiency);
        let amc = amc_table(cfg, frame_efficiency);
        let n = cfg.users.len();
        let channels = cfg
            .users
            .iter()
            .enumerate()
            .map(|(u, user)| {
                let rng = Rng::stream(seed, &format!("{name}/user/{u}/fading"));
                UserChannel::new(user.mean_snr, &cfg.fading, cfg.slot, rng)
            })
            .collect();
        let erasures = match &cfg.erasure {
            None => Vec::new(),
            Some(e) => (0..n)
                .map(|u| e.erasure(Rng::stream(seed, &format!("{name}/user/{u}/erasure"))))
                .collect(),
        };
        Ok(Downlink {
            slot_len: cfg.slot,
            frame,
            frame_efficiency,
            amc,
            channels,
            queues: (0..n)
                .map(|_| UserQueue::new(cfg.queue_packets as usize, cfg.mac_overhead_bytes))
                .collect(),
            erasures,
            scheduler: scheduler::from_config(cfg.scheduler),
            whole_packets: cfg.service == ServiceConfig::WholePackets,
            average_weight: 1.0 / cfg.average_window as f64,
            avg_throughput: vec![0.0; n],
            stats: vec![UserStats::default(); n],
            slots: 0,
            views: vec![UserView::default(); n],
            grants: Vec::with_capacity(n),
            allocations: Vec::with_capacity(n),
            served: Vec::new(),
            sent_bytes: vec![0; n],
        })
    }

    /// Replaces the scheduler (e.g. by one not selectable from the configuration).
    pub fn set_scheduler(&mut self, scheduler: Box<dyn Scheduler>) {
        self.scheduler = scheduler;
    }

    /// The packets queued for `user`, head first.
    pub fn queued(&self, user: usize) -> impl Iterator<Item = PacketId> + '_ {
        self.queues[user].iter()
    }

    /// Number of users.
    pub fn users(&self) -> usize {
        self.queues.len()
    }

    /// Slot length, ns.
    pub fn slot_len(&self) -> Time {
        self.slot_len
    }

    /// Slots run so far.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The AMC table in use (its bits per slot include the frame efficiency and `rate_scale`).
    pub fn amc(&self) -> &AmcTable {
        &self.amc
    }

    /// The OFDMA frame's arithmetic, `None` for the ideal frame.
    pub fn frame(&self) -> Option<&OfdmaFrame> {
        self.frame.as_ref()
    }

    /// The frame efficiency: the fraction of e x bandwidth x slot bits the frame leaves for data
    /// (1 for the ideal frame).
    pub fn frame_efficiency(&self) -> f64 {
        self.frame_efficiency
    }

    /// Mean SNR of `user`, linear.
    pub fn mean_snr(&self, user: usize) -> f64 {
        self.channels[user].mean_snr()
    }

    /// Offers a packet of `size` bytes for `user` at `now` (on the air it takes `size` plus the
    /// MAC overhead). On refusal (queue full) the packet is returned with the reason and the
    /// caller drops it.
    pub fn enqueue(
        &mut self,
        user: usize,
        id: PacketId,
        size: u32,
        now: Time,
    ) -> Result<(), (PacketId, DropReason)> {
        let r = self.queues[user].push(id, size, now);
        let s = &mut self.stats[user];
        match r {
            Ok(()) => s.packets_enqueued += 1,
            Err(_) => s.packets_dropped += 1,
        }
        r
    }

    /// Runs the slot that starts at `now`; call once per slot, at every slot boundary in order
    /// (the channels advance one slot per call, busy or idle). Returns the packets completed in
    /// the slot, in order of completion per user; the slice is valid until the next call.
    pub fn on_slot(&mut self, now: Time) -> &[Served] {
        let slot = self.slots;
        self.served.clear();
        self.grants.clear();
        self.allocations.clear();

        // 1. Channels and what the scheduler sees.
        for u in 0..self.queues.len() {
            let snr = self.channels[u].snr(slot);
            let rate_bits = self.amc.bits_per_slot(snr);
            let q = &self.queues[u];
            self.views[u] = UserView {
                snr,
                rate_bits,
                queued_packets: q.len(),
                queued_bytes: q.backlog_bytes(),
                hol_wait: q.head_wait(now),
                avg_throughput: self.avg_throughput[u],
            };
            let s = &mut self.stats[u];
            s.rate_bits_sum += rate_bits;
            s.outage_slots += (rate_bits == 0) as u64;
            self.sent_bytes[u] = 0;
        }

        // 2. The decision.
        self.scheduler.schedule(slot, &self.views, &mut self.grants);
        check_grants(&self.grants, self.queues.len());

        // 3. Service.
        let slot_len = self.slot_len;
        for g in &self.grants {
            let u = g.user;
            let rate_bits = self.views[u].rate_bits;
            let granted_bits = if g.share >= 1.0 {
                rate_bits
            } else {
                (g.share * rate_bits as f64).floor() as u64
            };
            let budget = granted_bits / 8;
            let mut erasure = self.erasures.get_mut(u);
            let served = &mut self.served;
            let stats = &mut self.stats[u];
            let mut done = |p: user_queue::Queued, used: u64| {
                // used <= budget, so finish <= now + slot_len. (A zero budget can only
                // complete zero-byte packets, at once.)
                let finish = match budget {
                    0 => now,
                    _ => now.saturating_add(
                        (slot_len as u128 * used as u128).div_ceil(budget as u128) as Time,
                    ),
                };
                let delivered = match erasure.as_deref_mut() {
                    Some(e) => e.delivered(now),
                    None => true,
                };
                stats.packets_served += 1;
                stats.bytes_served += p.size as u64;
                stats.packets_erased += (!delivered) as u64;
                served.push(Served {
                    user: u,
                    id: p.id,
                    size: p.size,
                    enqueued: p.enqueued,
                    finish,
                    delivered,
                });
            };
            let sent = self.queues[u].serve(budget, self.whole_packets, &mut done);
            let s = &mut self.stats[u];
            s.slots_scheduled += 1;
            s.bytes_sent += sent;
            s.unused_bytes += budget - sent;
            self.sent_bytes[u] += sent;
            self.allocations.push(Allocation {
                user: u,
                share: g.share,
                rate_bits,
                budget_bytes: budget,
                sent_bytes: sent,
            });
        }

        // 4. Average throughputs, bits per slot.
        let w = self.average_weight;
        for (avg, &sent) in self.avg_throughput.iter_mut().zip(&self.sent_bytes) {
            *avg = (1.0 - w) * *avg + w * (sent * 8) as f64;
        }
        self.slots += 1;
        &self.served
    }

    /// Per-user counters.
    pub fn stats(&self) -> &[UserStats] {
        &self.stats
    }

    /// Average throughput of `user`, bits per slot (the scheduler's AveR).
    pub fn avg_throughput(&self, user: usize) -> f64 {
        self.avg_throughput[user]
    }

    /// What the scheduler saw in the last slot.
    pub fn last_views(&self) -> &[UserView] {
        &self.views
    }

    /// The grants of the last slot and what they carried.
    pub fn last_allocations(&self) -> &[Allocation] {
        &self.allocations
    }

    /// Packets queued for `user`.
    pub fn queue_len(&self, user: usize) -> usize {
        self.queues[user].len()
    }

    /// Bytes queued for `user` and not yet sent, MAC overhead included.
    pub fn queue_bytes(&self, user: usize) -> u64 {
        self.queues[user].backlog_bytes()
    }

    /// Visits every queued packet (for end-of-run accounting).
    pub fn for_each_queued(&self, f: &mut dyn FnMut(PacketId)) {
        for q in &self.queues {
            q.for_each(f);
        }
    }
}

/// A scheduler's grants must name distinct users and have shares in (0, 1] summing to at most 1.
fn check_grants(grants: &[Grant], users: usize) {
    let mut total = 0.0;
    for (i, g) in grants.iter().enumerate() {
        assert!(g.user < users, "grant to unknown user {}", g.user);
        assert!(g.share > 0.0 && g.share <= 1.0, "share {}", g.share);
        assert!(
            grants[..i].iter().all(|h| h.user != g.user),
            "two grants to user {}",
            g.user
        );
        total += g.share;
    }
    assert!(total <= 1.0 + 1e-9, "shares sum to {total}");
}

/// The AMC modes of `cfg` (unchecked).
fn amc_modes(cfg: &AmcConfig) -> Vec<AmcMode> {
    match cfg {
        AmcConfig::Ieee80216e => amc::IEEE_802_16E.to_vec(),
        AmcConfig::Liu2004 { count, target_per } => {
            amc::liu2004_modes(*count as usize, *target_per)
        }
        AmcConfig::Custom { modes } => modes
            .iter()
            .map(|m| AmcMode {
                min_snr_db: m.min_snr,
                efficiency: m.efficiency,
            })
            .collect(),
    }
}

/// What a downlink configuration offers before any traffic: its frame, its AMC table's bits per
/// slot and each user's mean bits per slot under Rayleigh fading. Serialised by
/// [`crate::downlink_rates_json`] for the analytical models in Python.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DownlinkRates {
    /// Slot length, seconds.
    pub slot_s: f64,
    /// Channel bandwidth, Hz.
    pub bandwidth_hz: f64,
    /// The OFDMA frame's arithmetic (`None` for the ideal frame).
    pub frame: Option<FrameRates>,
    /// Fraction of e x bandwidth x slot that the frame leaves for data (1 for the ideal frame).
    pub frame_efficiency: f64,
    /// The residual factor.
    pub rate_scale: f64,
    /// Bytes each packet takes on the air beyond its size.
    pub mac_overhead_bytes: u32,
    /// The AMC modes, lowest first, with their bits per slot.
    pub modes: Vec<ModeRate>,
    /// Each user's mean SNR and mean bits per slot under Rayleigh fading (any of the Rayleigh
    /// processes: the marginal distribution is the same).
    pub users: Vec<UserRate>,
}

/// [`OfdmaFrame`] as data.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FrameRates {
    /// Hz.
    pub sampling_rate_hz: f64,
    /// Hz.
    pub subcarrier_spacing_hz: f64,
    /// Seconds.
    pub symbol_time_s: f64,
    /// Symbols per frame besides the transition gaps.
    pub frame_symbols: u32,
    /// Downlink symbols carrying data.
    pub data_symbols: u32,
    /// Data tones per second.
    pub data_tones_per_s: f64,
}

/// One AMC mode.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModeRate {
    /// Threshold, dB.
    pub min_snr_db: f64,
    /// Information bits per data tone (bit/s/Hz).
    pub efficiency: f64,
    /// Bits per slot.
    pub bits_per_slot: u64,
}

/// One user.
#[derive(Debug, Clone, serde::Serialize)]
pub struct UserRate {
    /// Mean SNR, dB.
    pub mean_snr_db: f64,
    /// Mean bits per slot under Rayleigh fading.
    pub mean_bits_rayleigh: f64,
}

/// The AMC table of `cfg`'s slots: bits per slot scaled by the frame's efficiency (1 for an
/// ideal frame: exactly `rate_scale`, the bits per slot of before frames) and the residual
/// `rate_scale`.
fn amc_table(cfg: &DownlinkConfig, frame_efficiency: f64) -> AmcTable {
    AmcTable::new(
        &amc_modes(&cfg.amc),
        cfg.bandwidth,
        cfg.slot,
        cfg.rate_scale * frame_efficiency,
    )
}

/// The rates of the downlink `cfg` (checked as [`Downlink::new`] does; errors prefixed `name`).
pub fn rates(cfg: &DownlinkConfig, name: &str) -> Result<DownlinkRates, ConfigError> {
    let frame = validate(cfg, name)?;
    let frame_efficiency = frame.map_or(1.0, |f| f.efficiency);
    let amc = amc_table(cfg, frame_efficiency);
    Ok(DownlinkRates {
        slot_s: cfg.slot as f64 * 1e-9,
        bandwidth_hz: cfg.bandwidth,
        frame: frame.map(|f| FrameRates {
            sampling_rate_hz: f.sampling_rate,
            subcarrier_spacing_hz: f.subcarrier_spacing,
            symbol_time_s: f.symbol_time,
            frame_symbols: f.frame_symbols,
            data_symbols: f.data_symbols,
            data_tones_per_s: f.data_tones_per_second,
        }),
        frame_efficiency,
        rate_scale: cfg.rate_scale,
        mac_overhead_bytes: cfg.mac_overhead_bytes,
        modes: amc
            .modes()
            .iter()
            .enumerate()
            .map(|(k, m)| ModeRate {
                min_snr_db: m.min_snr_db,
                efficiency: m.efficiency,
                bits_per_slot: amc.mode_bits(k),
            })
            .collect(),
        users: cfg
            .users
            .iter()
            .map(|u| UserRate {
                mean_snr_db: u.mean_snr,
                mean_bits_rayleigh: amc.expected_bits_rayleigh(amc::db_to_linear(u.mean_snr)),
            })
            .collect(),
    })
}

/// Rejects configurations the model cannot run, naming the field; returns the OFDMA frame
/// (`None` for the ideal one).
fn validate(cfg: &DownlinkConfig, name: &str) -> Result<Option<OfdmaFrame>, ConfigError> {
    let err = |field: String, message: &str| ConfigError {
        path: format!("{name}.{field}"),
        message: message.into(),
    };
    if cfg.users.is_empty() {
        return Err(err("users".into(), "a downlink needs at least one user"));
    }
    for (i, u) in cfg.users.iter().enumerate() {
        if !u.mean_snr.is_finite() {
            return Err(err(
                format!("users[{i}].mean_snr"),
                "must be a finite dB value",
            ));
        }
    }
    if cfg.slot == 0 {
        return Err(err("slot".into(), "must be > 0"));
    }
    if !(cfg.bandwidth > 0.0 && cfg.bandwidth.is_finite()) {
        return Err(err("bandwidth".into(), "must be > 0 Hz"));
    }
    if !(cfg.rate_scale > 0.0 && cfg.rate_scale <= 1.0) {
        return Err(err("rate_scale".into(), "must be in (0, 1]"));
    }
    let frame = frame::ofdma(&cfg.frame, cfg.bandwidth).map_err(|e| ConfigError {
        path: format!("{name}.frame.{}", e.field),
        message: e.message,
    })?;
    if cfg.queue_packets == 0 {
        return Err(err("queue_packets".into(), "must be >= 1"));
    }
    if cfg.average_window == 0 {
        return Err(err("average_window".into(), "must be >= 1"));
    }
    if cfg.uplink_rate == 0 {
        return Err(err("uplink_rate".into(), "must be > 0"));
    }
    match &cfg.amc {
        AmcConfig::Ieee80216e => {}
        AmcConfig::Liu2004 { count, target_per } => {
            if !(1..=6).contains(count) {
                return Err(err("amc.count".into(), "must be 1..=6"));
            }
            if !(*target_per > 0.0 && *target_per < 1.0) {
                return Err(err("amc.target_per".into(), "must be in (0, 1)"));
            }
        }
        AmcConfig::Custom { modes } => {
            if modes.is_empty() {
                return Err(err("amc.modes".into(), "needs at least one mode"));
            }
            for (i, m) in modes.iter().enumerate() {
                if !m.min_snr.is_finite() {
                    return Err(err(format!("amc.modes[{i}].min_snr"), "must be finite"));
                }
                if !(m.efficiency > 0.0 && m.efficiency.is_finite()) {
                    return Err(err(format!("amc.modes[{i}].efficiency"), "must be > 0"));
                }
                if i > 0 && m.min_snr <= modes[i - 1].min_snr {
                    return Err(err(
                        format!("amc.modes[{i}].min_snr"),
                        "thresholds must increase",
                    ));
                }
                if i > 0 && m.efficiency < modes[i - 1].efficiency {
                    return Err(err(
                        format!("amc.modes[{i}].efficiency"),
                        "must not be below the previous mode's",
                    ));
                }
            }
        }
    }
    match cfg.fading {
        SlotFadingConfig::None | SlotFadingConfig::Rayleigh => {}
        SlotFadingConfig::GaussMarkov { doppler } | SlotFadingConfig::Clarke { doppler, .. }
            if !(doppler >= 0.0 && doppler.is_finite()) =>
        {
            return Err(err("fading.doppler".into(), "must be >= 0 Hz"));
        }
        SlotFadingConfig::Clarke { sinusoids, .. } if !(1..=4096).contains(&sinusoids) => {
            return Err(err("fading.sinusoids".into(), "must be 1..=4096"));
        }
        SlotFadingConfig::GaussMarkov { .. } | SlotFadingConfig::Clarke { .. } => {}
    }
    if let Some(e) = &cfg.erasure {
        e.check(&format!("{name}.erasure"))?;
    }
    Ok(frame)
}

#[cfg(test)]
mod tests;
