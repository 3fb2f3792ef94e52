//! The medium under moving nodes: neighbour lists kept right as nodes move, and every frame's
//! power and delay from the positions of the instant it starts.
//!
//! A radio's neighbour list holds its *candidates*: the radios of its channel within
//! `reach + margin` at the last refresh, where `reach` is the distance at which the mean power
//! falls to the floor the radios process and `margin = 2 v_max T` covers two nodes closing in at
//! the fastest speed for one refresh interval `T`. So between refreshes no radio can come within
//! reach without already being a candidate, and a transmission still touches only nearby radios.
//! The lists are rebuilt every `T` with a spatial grid of `reach + margin` cells (linear in the
//! nodes, like the static build), `T` chosen so that the margin is a tenth of the reach (from
//! 1 ms to 1 s).
//!
//! At each transmission the sender's candidates get the mean power and propagation delay of
//! their distance at that instant (the frame keeps them for its duration, as ns-3's
//! `YansWifiChannel` computes them once per frame); a candidate below the floor gets nothing.
//! The static rate table (`rate_control: constant | ideal`) follows the mean power at each
//! refresh. Per-neighbour records (link statistics, rate control) live in stable slots: a
//! neighbour that drifts out of the candidates and back keeps its counts.

use std::collections::HashMap;

use super::{Neighbor, RadioState};
use crate::mac::frame::RadioId;
use crate::phy::mobility::Mobility;
use crate::phy::propagation::{dbm_to_mw, PathLoss, SPEED_OF_LIGHT};
use crate::sim::time::{from_secs, MILLIS, SECS};
use crate::sim::Time;

/// A candidate's delay when the latest transmission found it out of reach.
pub const OUT_OF_REACH: u32 = u32::MAX;

/// What the medium keeps for moving nodes.
pub struct Motion {
    /// The nodes' trajectories, indexed by placement order.
    pub mobility: Mobility,
    /// Placement index of each radio's node.
    node_of: Vec<u32>,
    loss: PathLoss,
    tx_dbm: f64,
    tx_mw: f64,
    floor_mw: f64,
    /// Candidate radius, m: reach plus margin.
    radius: f64,
    /// Refresh interval.
    pub interval: Time,
    /// The static rate table's entry for a mean power (mW).
    choose_rate: Box<dyn Fn(f64) -> u64>,
    /// Per radio, the slot of every radio it ever listed.
    slots: Vec<HashMap<RadioId, u32>>,
    /// Refreshes done.
    pub refreshes: u64,
    /// Slots opened since the start (each a neighbour record that stays to the end of the run).
    opened: u64,
    /// Bytes one slot holds (its statistics, peer, lookup entry and rate control).
    pub slot_bytes: u64,
}

impl std::fmt::Debug for Motion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Motion")
            .field("radius", &self.radius)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

/// The refresh interval for a reach (m) and the fastest node (m/s): a margin of a tenth of the
/// reach, from 1 ms to 1 s.
pub fn refresh_interval(reach: f64, max_speed: f64) -> Time {
    if max_speed <= 0.0 {
        return SECS;
    }
    from_secs(0.1 * reach / (2.0 * max_speed)).clamp(MILLIS, SECS)
}

impl Motion {
    /// Upkeep for `mobility` (which must move) over radios on nodes `node_of` (placement
    /// indices), with path loss `loss` from `tx_dbm`, signals below `floor_dbm` not processed,
    /// and the static rate table `choose_rate`.
    pub fn new(
        mobility: Mobility,
        node_of: Vec<u32>,
        loss: PathLoss,
        tx_dbm: f64,
        floor_dbm: f64,
        choose_rate: Box<dyn Fn(f64) -> u64>,
    ) -> Self {
        let reach = loss.reach(tx_dbm, floor_dbm).max(1e-9);
        let interval = refresh_interval(reach, mobility.max_speed());
        let margin = 2.0 * mobility.max_speed() * crate::sim::time::to_secs(interval);
        let radios = node_of.len();
        Motion {
            mobility,
            node_of,
            loss,
            tx_dbm,
            tx_mw: dbm_to_mw(tx_dbm),
            floor_mw: dbm_to_mw(floor_dbm),
            radius: reach + margin,
            interval,
            choose_rate,
            slots: vec![HashMap::new(); radios],
            refreshes: 0,
            opened: 0,
            slot_bytes: 0,
        }
    }

    /// Candidate radius, m.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// Radio `r`'s position at `t` (covered by the last refresh).
    #[inline]
    pub fn position(&self, r: RadioId, t: Time) -> (f64, f64) {
        self.mobility.position(self.node_of[r as usize] as usize, t)
    }

    /// Mean power (mW; 0 where the model gives none) and delay at distance `d`.
    #[inline]
    fn link(&self, d: f64) -> (f64, u32) {
        let mw = match self.loss {
            // The range model's power is the transmit power or nothing: no power of ten to take
            // per candidate and frame.
            PathLoss::Range(r) => {
                if d <= r {
                    self.tx_mw
                } else {
                    0.0
                }
            }
            _ => self.loss.rx_dbm(self.tx_dbm, d).map_or(0.0, dbm_to_mw),
        };
        (mw, from_secs(d / SPEED_OF_LIGHT) as u32)
    }

    /// Sets the power and delay of radio `me`'s candidates for a frame starting at `now`; a
    /// candidate below the floor gets delay [`OUT_OF_REACH`]. Returns how many are in reach.
    pub fn update_powers(&self, me: RadioId, now: Time, neighbors: &mut [Neighbor]) -> u32 {
        let (x, y) = self.position(me, now);
        let mut reached = 0;
        for nb in neighbors {
            let (qx, qy) = self.position(nb.radio, now);
            let (dx, dy) = (x - qx, y - qy);
            let (mw, delay) = self.link((dx * dx + dy * dy).sqrt());
            nb.mean_mw = mw;
            if mw >= self.floor_mw {
                nb.delay = delay;
                reached += 1;
            } else {
                nb.delay = OUT_OF_REACH;
            }
        }
        reached
    }

    /// Rebuilds every radio's candidates for positions at `now` (covering the next interval).
    pub fn refresh(&mut self, now: Time, radios: &mut [RadioState], channel_of: &[u32]) {
        self.mobility
            .advance(now, now.saturating_add(self.interval));
        self.refreshes += 1;
        let at: Vec<(f64, f64, u32)> = (0..radios.len())
            .map(|r| {
                let (x, y) = self.position(r as RadioId, now);
                (x, y, channel_of[r])
            })
            .collect();
        let radius = self.radius;
        let mut kept: Vec<(RadioId, f64)> = Vec::new();
        super::grid::near_each(&at, radius, |r, found| {
            kept.clear();
            kept.extend(found.iter().filter(|p| p.1 <= radius));
            self.relist(r, &kept, &mut radios[r]);
        });
    }

    /// Replaces radio `r`'s list by the candidates `found` (sorted, with distances), keeping
    /// slots and the rates a scenario or an earlier refresh set.
    fn relist(&mut self, r: usize, found: &[(RadioId, f64)], radio: &mut RadioState) {
        // The list's buffer is reused: a refresh allocates only for new neighbours.
        let mut list = std::mem::take(&mut radio.neighbors);
        list.clear();
        for &(j, d) in found {
            let (mw, delay) = self.link(d);
            let rate = (self.choose_rate)(mw);
            let slot = match self.slots[r].get(&j) {
                Some(&s) => s,
                None => {
                    let s = radio.peers.len() as u32;
                    self.opened += 1;
                    self.slots[r].insert(j, s);
                    radio.peers.push(j);
                    radio.neighbor_stats.push(Default::default());
                    if let Some(rc) = radio.rate_control.as_mut() {
                        rc.add_neighbour();
                    }
                    s
                }
            };
            list.push(Neighbor {
                radio: j,
                mean_mw: mw,
                delay: if mw >= self.floor_mw {
                    delay
                } else {
                    OUT_OF_REACH
                },
                rate_bps: u32::try_from(rate).unwrap_or(u32::MAX),
                slot,
            });
        }
        radio.neighbors = list;
    }

    /// Registers the slots of lists built before the first refresh (slot i for entry i).
    pub fn adopt(&mut self, radios: &[RadioState]) {
        for (r, radio) in radios.iter().enumerate() {
            for nb in &radio.neighbors {
                self.slots[r].insert(nb.radio, nb.slot);
            }
        }
    }

    /// Bytes of the neighbour records opened during the run (for the memory budget's growth).
    pub fn grown_bytes(&self) -> u64 {
        self.opened.saturating_mul(self.slot_bytes)
    }

    /// Radio `r`'s slot for radio `peer`, if it ever listed it.
    pub fn slot_of(&self, r: RadioId, peer: RadioId) -> Option<u32> {
        self.slots[r as usize].get(&peer).copied()
    }
}
