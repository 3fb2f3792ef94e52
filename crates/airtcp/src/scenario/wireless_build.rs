//! Building the radios of a scenario: thresholds, neighbour lists (with a spatial grid), DCFs,
//! interface queues and per-link error processes; and the wireless edges of the routing graph.
//!
//! Every placed node gets one radio on `radio.channel`, or one per channel listed for it in
//! `radio.node_channels`. Radios are numbered node-major, in the order of the node's channel
//! list, so a scenario without `node_channels` numbers radio i after placed node i and draws from
//! the same random streams as before multi-radio nodes existed. Channels are orthogonal: only
//! radios on the same channel are neighbours (see `net::wireless`).

use super::budget::{neighbour_pair_bytes, neighbour_pairs_bound};
use super::config::{
    AckRate, Direction, FadingConfig, LinkErrorConfig, RadioConfig, RateControlConfig,
    ReceptionModel, Standard,
};
use super::topology::Placed;
use crate::error::ConfigError;
use crate::link::ChannelStats;
use crate::mac::dcf::{Dcf, DcfParams};
use crate::mac::rate::RateControl;
use crate::mac::timing::Timing;
use crate::net::routing::{Edge, Iface};
use crate::net::wireless::grid::{self, cell_of};
use crate::net::wireless::motion::Motion;
use crate::net::wireless::{Neighbor, RadioState, Wireless, NO_RADIO};
use crate::phy::fading::Fading;
use crate::phy::ht::GuardInterval;
use crate::phy::link_error::LinkError;
use crate::phy::mobility::MobilityConfig;
use crate::phy::propagation::{dbm_to_mw, PathLoss, SPEED_OF_LIGHT};
use crate::phy::{ErrorModel, Phy, PhyThresholds};
use crate::sim::memory::MemoryBudget;
use crate::sim::time::from_secs;
use crate::sim::{LazyTimer, NodeId, Rng};
use std::collections::{BTreeMap, BTreeSet};

/// With fading, signals weaker than this much below the floor (the lower of the receive and
/// carrier-sense thresholds, and under SINR reception the sensitivity) are not delivered to a
/// radio at all; without fading, signals below the floor itself are not. This bounds the
/// neighbour lists; with fading it leaves 10 dB of headroom for fades upwards.
pub const INTERFERENCE_MARGIN_DB: f64 = 10.0;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// The radios of the placed nodes `placed`, whose node ids are `ids` (the last placed nodes of
/// the scenario: `ids.end` is the number of nodes).
pub struct BuiltRadios {
    /// Radios and medium.
    pub wireless: Wireless,
    /// Directed edges between radios that can decode each other (mean power at or above the
    /// receive threshold): [`radio_edges`].
    pub edges: Vec<Edge>,
}

/// Builds the radios.
pub fn build_radios(
    cfg: &RadioConfig,
    placed: &[Placed],
    ids: std::ops::Range<NodeId>,
    seed: u64,
    link_errors: &[LinkErrorConfig],
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
    budget: &mut MemoryBudget,
) -> Result<BuiltRadios, ConfigError> {
    check_rates(cfg)?;
    let fading = Fading::from_config(&cfg.fading).ok_or_else(|| {
        err(
            "radio.fading",
            "block fading needs exactly one of coherence or doppler (> 0)",
        )
    })?;
    if !(0.0..=1.0).contains(&cfg.frame_error) {
        return Err(err(
            "radio.frame_error",
            format!("must be a probability from 0 to 1, got {}", cfg.frame_error),
        ));
    }
    cfg.queue.check("radio.queue")?;
    let loss = PathLoss::from_config(&cfg.propagation);
    let th = phy_thresholds(cfg);
    let floor = processing_floor(cfg);
    let reach = loss.reach(cfg.tx_power, floor).max(1e-9);

    // One radio per (node, channel), node-major.
    let channels_of = node_channels(cfg, placed.len(), ids.start, node_id)?;
    let default_channel = [cfg.channel];
    let mut specs: Vec<(usize, u32)> = Vec::with_capacity(placed.len());
    for (i, chans) in channels_of.iter().enumerate() {
        for &c in chans.unwrap_or(&default_channel) {
            specs.push((i, c));
        }
    }
    let positions: Vec<(f64, f64, u32)> = specs
        .iter()
        .map(|&(i, c)| (placed[i].x, placed[i].y, c))
        .collect();
    let node_of_radio: Vec<NodeId> = specs
        .iter()
        .map(|&(i, _)| ids.start + i as NodeId)
        .collect();
    // Dense placements have neighbour lists quadratic in the nodes: bound them first.
    let pairs = neighbour_pairs_bound(&cell_occupancy(&positions, reach));
    budget.charge(
        "topology",
        "radio neighbour pairs",
        pairs,
        neighbour_pair_bytes(),
    )?;
    let rate_bytes = cfg.rate_control.bytes_per_neighbour(rate_ladder(cfg).len());
    if rate_bytes > 0 {
        // Per neighbour: the manager's state and a count per rate.
        budget.charge(
            "radio.rate_control",
            "rate control per neighbour",
            pairs,
            rate_bytes,
        )?;
    }
    let neighbors = neighbor_lists(&positions, reach, |d| {
        loss.rx_dbm(cfg.tx_power, d)
            .filter(|&p| p >= floor)
            .map(dbm_to_mw)
    });
    let (params, error_model) = dcf_params(cfg)?;
    let choose_rate = rate_chooser(cfg, error_model, th.noise_mw);
    let ladder = rate_ladder(cfg);
    let mut radio_of_node = vec![NO_RADIO; ids.end as usize];
    let mut radios = Vec::with_capacity(specs.len());
    let mut macs = Vec::with_capacity(specs.len());
    for (r, (&(i, channel), mut nbs)) in specs.iter().zip(neighbors).enumerate() {
        let node = node_of_radio[r];
        // The rate table: the data rate of every neighbour, from rate control.
        for nb in &mut nbs {
            nb.rate_bps = u32::try_from(choose_rate(nb.mean_mw)).unwrap_or(u32::MAX);
        }
        if radio_of_node[node as usize] == NO_RADIO {
            radio_of_node[node as usize] = r as u32;
        }
        let name = match channels_of[i] {
            Some(list) if list.len() > 1 => format!("radio {} ch{channel}", placed[i].name),
            _ => format!("radio {}", placed[i].name),
        };
        radios.push(RadioState {
            node,
            channel,
            name,
            phy: {
                let mut phy = Phy::new(th);
                if params.aggregation.is_some() {
                    // Its neighbours' A-MPDUs are judged MPDU by MPDU over the reception.
                    phy.keep_sinr_history();
                }
                phy
            },
            rng: Rng::stream(seed, &format!("radio/{r}")),
            neighbor_stats: vec![Default::default(); nbs.len()],
            peers: nbs.iter().map(|nb| nb.radio).collect(),
            rate_control: cfg
                .rate_control
                .manager(
                    &ladder,
                    error_model,
                    &params.timing,
                    params.aggregation.is_some(),
                    nbs.len(),
                    || Rng::stream(seed, &format!("rate/{r}")),
                )
                .map(|m| Box::new(RateControl::new(ladder.clone(), m, nbs.len()))),
            rx_snr: 0.0,
            rx_frame: 0,
            rx_mpdus: 0,
            pcap: None,
            neighbors: nbs,
            ifq: cfg.queue.build(cfg.lifetime()),
            stats: ChannelStats::default(),
            link_errors: Vec::new(),
            was_busy: false,
            idle_since: 0,
            timers: [
                LazyTimer::default(),
                LazyTimer::default(),
                LazyTimer::default(),
            ],
            failed: false,
        });
        macs.push(Dcf::new(r as u32, params));
    }
    let mut wireless = Wireless::new(macs, radios, radio_of_node, fading, seed);
    wireless.frame_error = cfg.frame_error;
    wireless.frame_error_per_exchange =
        cfg.frame_error_mode == crate::scenario::config::FrameErrorMode::PerExchange;
    wireless.error_model = error_model;
    wireless.trace = crate::net::frame_trace::FrameTrace::from_env();
    wireless.cca_time = cfg.cca_time;
    set_link_rates(cfg, &mut wireless, node_id)?;
    add_link_errors(&mut wireless, link_errors, node_id)?;
    let edges = radio_edges(&wireless);
    Ok(BuiltRadios { wireless, edges })
}

/// Sets the radios of `wireless` (built by [`build_radios`] for `placed`) in motion under the
/// `mobility:` entries, if any node moves: the medium then keeps their neighbour lists
/// (`net::wireless::motion`), rebuilt here for time 0. Returns whether nodes move (the routing
/// graph's edges are then those of time 0's lists).
pub fn set_in_motion(
    cfg: &RadioConfig,
    mobility: &[MobilityConfig],
    placed: &[Placed],
    seed: u64,
    wireless: &mut Wireless,
) -> Result<bool, ConfigError> {
    if mobility.is_empty() {
        return Ok(false);
    }
    let points: Vec<(f64, f64)> = placed.iter().map(|p| (p.x, p.y)).collect();
    let names: Vec<&str> = placed.iter().map(|p| p.name.as_str()).collect();
    let read = |file: &str| std::fs::read_to_string(file);
    let moving = crate::phy::mobility::build(mobility, &points, &names, seed, &read)?;
    if !moving.moves() {
        return Ok(false);
    }
    if !cfg.link_rates.is_empty() {
        return Err(err(
            "radio.link_rates",
            "cannot be set with moving nodes (mobility): a link's rate follows its mean SNR",
        ));
    }
    let (_, error_model) = dcf_params(cfg)?;
    let th = phy_thresholds(cfg);
    let choose: Box<dyn Fn(f64) -> u64> = Box::new(rate_chooser(cfg, error_model, th.noise_mw));
    // Placed nodes have consecutive ids after the wired-only ones; each has a radio.
    let first_placed = wireless
        .radio_of_node
        .iter()
        .position(|&r| r != NO_RADIO)
        .unwrap_or(0) as NodeId;
    let node_of = wireless
        .radios
        .iter()
        .map(|r| r.node - first_placed)
        .collect();
    let loss = PathLoss::from_config(&cfg.propagation);
    let mut motion = Motion::new(
        moving,
        node_of,
        loss,
        cfg.tx_power,
        processing_floor(cfg),
        choose,
    );
    motion.slot_bytes =
        neighbour_pair_bytes() + cfg.rate_control.bytes_per_neighbour(rate_ladder(cfg).len()) + 16;
    motion.adopt(&wireless.radios);
    // The lists of the start: candidates around the positions at time 0.
    motion.refresh(0, &mut wireless.radios, &wireless.channel_of);
    wireless.motion = Some(Box::new(motion));
    Ok(true)
}

/// The PHY's thresholds in mW (and the capture ratio) from the radio's dBm settings.
fn phy_thresholds(cfg: &RadioConfig) -> PhyThresholds {
    PhyThresholds {
        rx_mw: dbm_to_mw(cfg.rx_threshold_dbm()),
        cs_mw: dbm_to_mw(cfg.cs_threshold_dbm()),
        capture_ratio: match cfg.reception {
            ReceptionModel::Capture => 10f64.powf(cfg.capture_threshold / 10.0),
            ReceptionModel::Sinr => 0.0,
        },
        noise_mw: dbm_to_mw(cfg.noise_dbm()),
    }
}

/// The weakest signal a radio processes at all, dBm: ns-2 (capture) drops signals it cannot
/// sense; an SINR receiver counts everything down to its sensitivity as interference (ns-3
/// delivers every signal above `RxSensitivity` to the PHY); with fading, a margin below that.
fn processing_floor(cfg: &RadioConfig) -> f64 {
    let sensed = cfg.rx_threshold_dbm().min(cfg.cs_threshold_dbm());
    let floor = match cfg.reception {
        ReceptionModel::Capture => sensed,
        ReceptionModel::Sinr => sensed.min(cfg.rx_sensitivity),
    };
    floor
        - if matches!(cfg.fading, FadingConfig::None) {
            0.0
        } else {
            INTERFERENCE_MARGIN_DB
        }
}

/// The channels of each placed node (`radio.node_channels`; `None`: the radio's one channel),
/// by index among the placed nodes, whose ids start at `first_placed`.
fn node_channels<'a>(
    cfg: &'a RadioConfig,
    placed: usize,
    first_placed: NodeId,
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<Vec<Option<&'a [u32]>>, ConfigError> {
    let mut channels_of: Vec<Option<&[u32]>> = vec![None; placed];
    for (name, list) in &cfg.node_channels {
        let path = format!("radio.node_channels.{name}");
        let n = node_id(path.clone(), name)?;
        if n < first_placed {
            return Err(err(
                path,
                format!(
                    "'{name}' is a wired node (listed in nodes); only placed nodes have radios"
                ),
            ));
        }
        if list.is_empty() {
            return Err(err(path, "needs at least one channel"));
        }
        let mut seen = BTreeSet::new();
        for (k, &c) in list.iter().enumerate() {
            if !seen.insert(c) {
                return Err(err(
                    format!("{path}[{k}]"),
                    format!("channel {c} is listed twice (one radio per channel)"),
                ));
            }
        }
        channels_of[(n - first_placed) as usize] = Some(list.as_slice());
    }
    Ok(channels_of)
}

/// Bytes of the QoS Control field of a QoS data frame (IEEE 802.11-2016 §9.2.4.5).
const QOS_CONTROL_BYTES: u32 = 2;

/// Every radio's DCF parameters (the standard's timing at the radio's rates) and its frame error
/// model.
fn dcf_params(cfg: &RadioConfig) -> Result<(DcfParams, ErrorModel), ConfigError> {
    let mut timing = match cfg.standard {
        Standard::Dot11b => Timing::dot11b(
            cfg.data_rate,
            cfg.basic_rate,
            cfg.preamble.unwrap_or_default(),
        ),
        Standard::Dot11a => Timing::dot11a(cfg.data_rate, cfg.basic_rate),
        Standard::Dot11n => Timing::dot11n(
            cfg.ht_phy().unwrap_or_default(),
            cfg.data_rate,
            cfg.basic_rate,
        ),
    };
    timing.ack = cfg.ack_rule();
    if cfg.cca_time >= timing.slot {
        return Err(err(
            "radio.cca_time",
            format!(
                "must be shorter than the slot ({} us in {}): a station has to sense a \
                 transmission within the slot it started in; got {} ns",
                timing.slot / 1_000,
                cfg.standard.name(),
                cfg.cca_time
            ),
        ));
    }
    let error_model = match cfg.standard {
        Standard::Dot11b => ErrorModel::Dsss,
        Standard::Dot11a => ErrorModel::OfdmNist,
        Standard::Dot11n => ErrorModel::HtTable(cfg.ht_phy().unwrap_or_default()),
    };
    let params = DcfParams {
        timing,
        rts_cts: cfg.rts_cts,
        short_retry_limit: cfg.short_retry_limit,
        long_retry_limit: cfg.long_retry_limit,
        // 802.11n's data frames are QoS data frames: the 2-byte QoS Control field joins the
        // header (26 bytes where a DCF station's has 24).
        mac_overhead: cfg.mac_overhead
            + if cfg.standard == Standard::Dot11n {
                QOS_CONTROL_BYTES
            } else {
                0
            },
        profile: cfg.mac,
        rate_control: cfg.rate_control.is_adaptive(),
        aggregation: cfg.aggregation_params(),
        lifetime: cfg.lifetime(),
    };
    Ok((params, error_model))
}

/// The extra error processes of `link_errors`, at the receiving radio of each directed link.
fn add_link_errors(
    wireless: &mut Wireless,
    link_errors: &[LinkErrorConfig],
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<(), ConfigError> {
    for (k, le) in link_errors.iter().enumerate() {
        let pairs = directed_links(
            wireless,
            &format!("link_errors[{k}]"),
            (&le.from, &le.to),
            le.direction,
            node_id,
        )?;
        for (src, dst) in pairs {
            wireless.radios[dst as usize]
                .link_errors
                .push((src, LinkError::new(&le.error)));
        }
    }
    Ok(())
}

/// Every directed edge between radios that can decode each other (the receiver's mean power at
/// or above its receive threshold), radio by radio and neighbour by neighbour: the wireless part
/// of the routing graph before the routing's delivery threshold (`scenario::usable_links`)
/// takes out the links that do not carry data.
pub fn radio_edges(wireless: &Wireless) -> Vec<Edge> {
    let mut edges = Vec::new();
    for (r, radio) in wireless.radios.iter().enumerate() {
        for nb in &radio.neighbors {
            let receiver = &wireless.radios[nb.radio as usize];
            if nb.mean_mw >= receiver.phy.rx_mw() {
                edges.push(Edge {
                    from: radio.node,
                    to: receiver.node,
                    iface: Iface::Radio(r as u32),
                });
            }
        }
    }
    edges
}

/// Checks the rates of the radio block against the standard.
fn check_rates(cfg: &RadioConfig) -> Result<(), ConfigError> {
    let std = cfg.standard;
    let (data_rates, basic_rates) = (cfg.data_rates(), cfg.basic_rates());
    let known = |field: String, rate: u64, rates: &[u64], what: &str| {
        if rates.contains(&rate) {
            return Ok(());
        }
        let listed: Vec<String> = rates.iter().map(|&r| mbps(r)).collect();
        Err(err(
            field,
            format!(
                "{} has no {} Mbps {what}rate; use one of {} Mbps",
                std.name(),
                mbps(rate),
                listed.join(", ")
            ),
        ))
    };
    // 802.11n's data rates are its MCSs at the radio's width and guard interval; its control
    // frames go at 802.11a's rates.
    let (data_what, basic_what) = match cfg.ht_phy() {
        Some(ht) => (
            format!(
                "HT {} MHz {} GI ",
                ht.channel_width.mhz(),
                match ht.guard_interval {
                    GuardInterval::Long => "long",
                    GuardInterval::Short => "short",
                }
            ),
            "non-HT ".to_string(),
        ),
        None => (String::new(), String::new()),
    };
    known(
        "radio.data_rate".into(),
        cfg.data_rate,
        &data_rates,
        &data_what,
    )?;
    known(
        "radio.basic_rate".into(),
        cfg.basic_rate,
        &basic_rates,
        &basic_what,
    )?;
    for (k, lr) in cfg.link_rates.iter().enumerate() {
        let field = format!("radio.link_rates[{k}].rate");
        known(field, lr.rate, &data_rates, &data_what)?;
    }
    if std != Standard::Dot11b && cfg.preamble.is_some() {
        return Err(err(
            "radio.preamble",
            format!(
                "{} has one OFDM preamble (16 us + 4 us SIGNAL); leave preamble out",
                std.name()
            ),
        ));
    }
    if std != Standard::Dot11n && cfg.ht.is_some() {
        return Err(err(
            "radio.ht",
            format!(
                "only an 802.11n radio has an HT PHY; leave ht out under {}",
                std.name()
            ),
        ));
    }
    if let Some(a) = &cfg.aggregation {
        if std != Standard::Dot11n {
            return Err(err(
                "radio.aggregation",
                format!(
                    "only an 802.11n radio aggregates; leave aggregation out under {}",
                    std.name()
                ),
            ));
        }
        if let Err((field, message)) = a.check() {
            return Err(err(format!("radio.aggregation.{field}"), message));
        }
    }
    if std == Standard::Dot11n && cfg.ack_rate == Some(AckRate::Data) {
        return Err(err(
            "radio.ack_rate",
            "802.11n acknowledges HT frames at a non-HT rate; use control or basic",
        ));
    }
    if std != Standard::Dot11n && matches!(cfg.rate_control, RateControlConfig::MinstrelHt { .. }) {
        return Err(err(
            "radio.rate_control.kind",
            format!(
                "minstrel_ht chooses among 802.11n's MCSs; use minstrel under {}",
                std.name()
            ),
        ));
    }
    if let Err((field, message)) = cfg.rate_control.check() {
        return Err(err(format!("radio.rate_control.{field}"), message));
    }
    Ok(())
}

/// A rate in Mbit/s as scenarios write it (5.5, 54).
fn mbps(rate: u64) -> String {
    format!("{}", rate as f64 / 1e6)
}

/// The rates rate control chooses from: the standard's up to `radio.data_rate`, lowest first.
fn rate_ladder(cfg: &RadioConfig) -> Vec<u64> {
    cfg.data_rates()
        .into_iter()
        .filter(|&r| r <= cfg.data_rate)
        .collect()
}

/// The static rate control of the radio block as a function of a link's mean received power
/// (mW): the rate table's entry.
fn rate_chooser(cfg: &RadioConfig, model: ErrorModel, noise_mw: f64) -> impl Fn(f64) -> u64 {
    let rates = rate_ladder(cfg);
    let control = cfg.rate_control;
    let data_rate = cfg.data_rate;
    move |mean_mw: f64| match control {
        RateControlConfig::Ideal {
            max_per,
            frame_bytes,
        } => ideal_rate(&rates, model, mean_mw / noise_mw, max_per, frame_bytes),
        // The adaptive managers' table entry is the rate they start from, the ladder's lowest:
        // what the routing judges a link by (a link is usable if it works at some rate).
        _ if control.is_adaptive() => rates[0],
        _ => data_rate,
    }
}

/// The highest of `rates` (ascending) whose frame error rate for a `bytes` frame at `snr`
/// (linear) is at most `max_per`; the lowest if none is.
pub fn ideal_rate(rates: &[u64], model: ErrorModel, snr: f64, max_per: f64, bytes: u32) -> u64 {
    rates
        .iter()
        .rev()
        .copied()
        .find(|&r| 1.0 - model.frame_success(snr, r, bytes) <= max_per)
        .unwrap_or(rates[0])
}

/// Applies `radio.link_rates`: each entry sets the rate of the link (both radios on every
/// channel the two nodes share, in the directions given).
fn set_link_rates(
    cfg: &RadioConfig,
    wireless: &mut Wireless,
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<(), ConfigError> {
    for (k, lr) in cfg.link_rates.iter().enumerate() {
        let path = format!("radio.link_rates[{k}]");
        let pairs = directed_links(wireless, &path, (&lr.from, &lr.to), lr.direction, node_id)?;
        let rate = u32::try_from(lr.rate).unwrap_or(u32::MAX);
        let mut set = false;
        for (src, dst) in pairs {
            set |= wireless.set_link_rate(src, dst, rate);
        }
        if !set {
            return Err(err(
                path,
                format!(
                    "'{}' and '{}' are not neighbours on any channel",
                    lr.from, lr.to
                ),
            ));
        }
    }
    Ok(())
}

/// The directed (sender radio, receiver radio) pairs a per-link setting at `path` (`link_errors`,
/// `radio.link_rates`) names: one radio of each node on every channel the two share, in the
/// directions given. Both ends must be wireless nodes.
fn directed_links(
    wireless: &Wireless,
    path: &str,
    (from, to): (&str, &str),
    direction: Direction,
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<Vec<(u32, u32)>, ConfigError> {
    let a = node_id(format!("{path}.from"), from)?;
    let b = node_id(format!("{path}.to"), to)?;
    for (n, field) in [(a, "from"), (b, "to")] {
        if wireless.radio_of_node[n as usize] == NO_RADIO {
            return Err(err(format!("{path}.{field}"), "not a wireless node"));
        }
    }
    let mut pairs = Vec::new();
    for ra in wireless.radios_of(a) {
        let Some(rb) = wireless.peer_radio(b, wireless.radios[ra as usize].channel) else {
            continue;
        };
        if direction != Direction::Reverse {
            pairs.push((ra, rb));
        }
        if direction != Direction::Forward {
            pairs.push((rb, ra));
        }
    }
    Ok(pairs)
}

/// How many radios each non-empty cell (channel, column, row) holds.
fn cell_occupancy(radios: &[(f64, f64, u32)], reach: f64) -> BTreeMap<(u32, i64, i64), u64> {
    let mut cells = BTreeMap::new();
    for &(x, y, ch) in radios {
        *cells
            .entry((ch, cell_of(x, reach), cell_of(y, reach)))
            .or_insert(0) += 1;
    }
    cells
}

/// For every radio (position and channel), the radios of the same channel within `reach` whose
/// power (from `power_mw(distance)`) is delivered, sorted by index. A grid of `reach`-sized cells
/// per channel keeps this near-linear (`net::wireless::grid`).
fn neighbor_lists(
    radios: &[(f64, f64, u32)],
    reach: f64,
    power_mw: impl Fn(f64) -> Option<f64>,
) -> Vec<Vec<Neighbor>> {
    let mut lists = Vec::with_capacity(radios.len());
    grid::near_each(radios, reach, |_, found| {
        let list: Vec<Neighbor> = found
            .iter()
            .filter_map(|&(j, d)| Some((j, d, power_mw(d)?)))
            .enumerate()
            .map(|(slot, (j, d, mw))| Neighbor {
                radio: j,
                mean_mw: mw,
                delay: from_secs(d / SPEED_OF_LIGHT) as u32,
                rate_bps: 0,
                slot: slot as u32,
            })
            .collect();
        lists.push(list);
    });
    lists
}
