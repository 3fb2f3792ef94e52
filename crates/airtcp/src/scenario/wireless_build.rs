//! Building the radios of a scenario: thresholds, neighbour lists (with a spatial grid), DCFs,
//! interface queues and per-link error processes; and the wireless edges of the routing graph.

use super::config::{
    AckRate, Direction, FadingConfig, LinkErrorConfig, QueueConfig, RadioConfig, ReceptionModel,
};
use super::topology::Placed;
use crate::link::ChannelStats;
use crate::mac::dcf::{Dcf, DcfParams};
use crate::mac::timing::{Timing, DOT11B_RATES};
use crate::net::routing::{Edge, Iface};
use crate::net::wireless::{Neighbor, RadioState, Wireless, NO_RADIO};
use crate::phy::fading::Fading;
use crate::phy::link_error::LinkError;
use crate::phy::propagation::{dbm_to_mw, PathLoss, SPEED_OF_LIGHT};
use crate::phy::{Phy, PhyThresholds};
use crate::queue::droptail::DropTail;
use crate::sim::time::from_secs;
use crate::sim::{LazyTimer, NodeId, Rng};
use crate::ConfigError;

/// Signals weaker than this much below the lower of the receive and carrier-sense thresholds are
/// not delivered to a radio at all (they neither lock the receiver nor add noticeable energy).
/// This bounds the neighbour lists; with fading it leaves 10 dB of headroom for fades upwards.
pub const INTERFERENCE_MARGIN_DB: f64 = 10.0;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError {
        path: path.into(),
        message: message.into(),
    }
}

/// The radios of the placed nodes `placed`, whose node ids start at `first_node`.
pub struct BuiltRadios {
    /// Radios and medium.
    pub wireless: Wireless,
    /// Directed edges between radios that can decode each other (mean power above the receive
    /// threshold), for routing.
    pub edges: Vec<Edge>,
}

/// Builds the radios.
pub fn build_radios(
    cfg: &RadioConfig,
    placed: &[Placed],
    first_node: NodeId,
    total_nodes: usize,
    seed: u64,
    link_errors: &[LinkErrorConfig],
    node_id: &dyn Fn(String, &str) -> Result<NodeId, ConfigError>,
) -> Result<BuiltRadios, ConfigError> {
    for (field, rate) in [
        ("radio.data_rate", cfg.data_rate),
        ("radio.basic_rate", cfg.basic_rate),
    ] {
        if !DOT11B_RATES.contains(&rate) {
            return Err(err(
                field,
                format!(
                    "802.11b has no {} Mbps rate; use one of 1, 2, 5.5, 11 Mbps",
                    rate as f64 / 1e6
                ),
            ));
        }
    }
    let fading = Fading::from_config(&cfg.fading).ok_or_else(|| {
        err(
            "radio.fading",
            "block fading needs exactly one of coherence or doppler (> 0)",
        )
    })?;
    let QueueConfig::Droptail { packets } = cfg.queue;
    if packets == 0 {
        return Err(err("radio.queue.packets", "must be greater than zero"));
    }
    let loss = PathLoss::from_config(&cfg.propagation);
    let th = PhyThresholds {
        rx_mw: dbm_to_mw(cfg.rx_threshold),
        cs_mw: dbm_to_mw(cfg.cs_threshold),
        capture_ratio: match cfg.reception {
            ReceptionModel::Capture => 10f64.powf(cfg.capture_threshold / 10.0),
            ReceptionModel::Sinr => 0.0,
        },
        noise_mw: dbm_to_mw(cfg.noise),
    };
    let floor = cfg.rx_threshold.min(cfg.cs_threshold)
        - if matches!(cfg.fading, FadingConfig::None) {
            0.0
        } else {
            INTERFERENCE_MARGIN_DB
        };
    let reach = loss.reach(cfg.tx_power, floor).max(1e-9);

    let neighbors = neighbor_lists(placed, reach, |d| {
        loss.rx_dbm(cfg.tx_power, d)
            .filter(|&p| p >= floor)
            .map(dbm_to_mw)
    });
    let mut timing = Timing::dot11b(cfg.data_rate, cfg.basic_rate, cfg.preamble);
    if cfg.ack_rate == AckRate::Data {
        timing.ack_rate = cfg.data_rate;
    }
    let params = DcfParams {
        timing,
        rts_cts: cfg.rts_cts,
        short_retry_limit: cfg.short_retry_limit,
        long_retry_limit: cfg.long_retry_limit,
        mac_overhead: cfg.mac_overhead,
    };
    let mut radio_of_node = vec![NO_RADIO; total_nodes];
    let mut radios = Vec::with_capacity(placed.len());
    let mut macs = Vec::with_capacity(placed.len());
    let mut edges = Vec::new();
    for (i, (p, nbs)) in placed.iter().zip(neighbors).enumerate() {
        let node = first_node + i as NodeId;
        radio_of_node[node as usize] = i as u32;
        for nb in &nbs {
            if nb.mean_mw >= th.rx_mw {
                edges.push(Edge {
                    from: node,
                    to: first_node + nb.radio,
                    iface: Iface::Radio(i as u32),
                });
            }
        }
        radios.push(RadioState {
            node,
            name: format!("radio {}", p.name),
            phy: Phy::new(th),
            rng: Rng::stream(seed, &format!("radio/{i}")),
            neighbor_stats: vec![Default::default(); nbs.len()],
            neighbors: nbs,
            ifq: Box::new(DropTail::new(packets as usize)),
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
        macs.push(Dcf::new(i as u32, params));
    }
    for (k, le) in link_errors.iter().enumerate() {
        let a = node_id(format!("link_errors[{k}].from"), &le.from)?;
        let b = node_id(format!("link_errors[{k}].to"), &le.to)?;
        let radio = |n: NodeId, field: &str| {
            let r = radio_of_node[n as usize];
            if r == NO_RADIO {
                Err(err(
                    format!("link_errors[{k}].{field}"),
                    "not a wireless node",
                ))
            } else {
                Ok(r)
            }
        };
        let (ra, rb) = (radio(a, "from")?, radio(b, "to")?);
        let mut pairs = Vec::new();
        if le.direction != Direction::Reverse {
            pairs.push((ra, rb));
        }
        if le.direction != Direction::Forward {
            pairs.push((rb, ra));
        }
        for (src, dst) in pairs {
            radios[dst as usize]
                .link_errors
                .push((src, LinkError::new(&le.error)));
        }
    }
    Ok(BuiltRadios {
        wireless: Wireless::new(macs, radios, radio_of_node, fading, seed),
        edges,
    })
}

/// For every placed node, the others within `reach` whose power (from `power_mw(distance)`)
/// is delivered, sorted by index. A grid of `reach`-sized cells keeps this near-linear.
fn neighbor_lists(
    placed: &[Placed],
    reach: f64,
    power_mw: impl Fn(f64) -> Option<f64>,
) -> Vec<Vec<Neighbor>> {
    let cell = |v: f64| (v / reach).floor() as i64;
    let mut grid: std::collections::BTreeMap<(i64, i64), Vec<u32>> = Default::default();
    for (i, p) in placed.iter().enumerate() {
        grid.entry((cell(p.x), cell(p.y)))
            .or_default()
            .push(i as u32);
    }
    placed
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (cx, cy) = (cell(p.x), cell(p.y));
            let mut out = Vec::new();
            for dx in -1..=1 {
                for dy in -1..=1 {
                    let Some(members) = grid.get(&(cx + dx, cy + dy)) else {
                        continue;
                    };
                    for &j in members {
                        if j as usize == i {
                            continue;
                        }
                        let q = &placed[j as usize];
                        let d = ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt();
                        if let Some(mw) = power_mw(d) {
                            out.push(Neighbor {
                                radio: j,
                                mean_mw: mw,
                                delay: from_secs(d / SPEED_OF_LIGHT),
                            });
                        }
                    }
                }
            }
            out.sort_by_key(|n| n.radio);
            out
        })
        .collect()
}
