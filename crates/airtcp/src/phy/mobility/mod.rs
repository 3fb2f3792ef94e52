//! Node mobility: where each placed node is at any time.
//!
//! Every model moves a node along straight legs at constant velocity (a pause is a leg of zero
//! velocity), as ns-3's `ConstantVelocityHelper` does: a leg is its start time, start point and
//! velocity, so the position at `t` is `start + v (t - t0)`, exact at any instant. A node's
//! [`Trajectory`] keeps the legs from the medium's last look on and draws the next legs from its
//! model when asked to cover a later time ([`Trajectory::cover`]); each node has its own random
//! stream (`mobility/{node}`), so its path does not depend on when it is looked at.
//!
//! Models ([`models`]): constant position, constant velocity, random waypoint (with the
//! steady-state start), random walk; traces ([`trace_file`]): ns-2 movement files and
//! BonnMotion. Configuration: [`config`].

pub mod config;
pub mod models;
pub mod trace_file;

use crate::error::ConfigError;
use crate::sim::time::to_secs;
use crate::sim::{Rng, Time};

pub use config::{Bounds, MobilityConfig, WalkMode};
use models::Model;

/// Time a leg without an end lasts to.
pub const FOREVER: Time = Time::MAX;

/// A straight stretch at constant velocity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leg {
    /// Start, ns.
    pub t0: Time,
    /// End, ns ([`FOREVER`]: none).
    pub t1: Time,
    /// Position at `t0`, m.
    pub x0: f64,
    /// Position at `t0`, m.
    pub y0: f64,
    /// Velocity, m/s.
    pub vx: f64,
    /// Velocity, m/s.
    pub vy: f64,
}

impl Leg {
    /// Standing at `(x, y)` from `t0` to `t1`.
    pub fn still(t0: Time, t1: Time, x: f64, y: f64) -> Self {
        Leg {
            t0,
            t1,
            x0: x,
            y0: y,
            vx: 0.0,
            vy: 0.0,
        }
    }

    /// Position at `t` (clamped to the leg's span).
    #[inline]
    pub fn at(&self, t: Time) -> (f64, f64) {
        let dt = to_secs(t.clamp(self.t0, self.t1.max(self.t0)) - self.t0);
        (self.x0 + self.vx * dt, self.y0 + self.vy * dt)
    }

    /// Speed, m/s.
    pub fn speed(&self) -> f64 {
        self.vx.hypot(self.vy)
    }
}

/// One node's motion: the legs from the last time looked at on, and the model that draws more.
#[derive(Debug)]
pub struct Trajectory {
    /// Legs in time order, contiguous; the first holds the earliest time still of interest.
    legs: Vec<Leg>,
    model: Model,
    rng: Rng,
}

impl Trajectory {
    /// A trajectory starting with `first` (which must start at 0) and continued by `model`.
    fn new(first: Vec<Leg>, model: Model, rng: Rng) -> Self {
        debug_assert!(first.first().is_some_and(|l| l.t0 == 0));
        Trajectory {
            legs: first,
            model,
            rng,
        }
    }

    /// A trajectory made of given legs only (the last must last for ever).
    pub fn from_legs(legs: Vec<Leg>) -> Self {
        Trajectory::new(legs, Model::Done, Rng::stream(0, "mobility/fixed"))
    }

    /// Draws legs until they reach past `t`.
    pub fn cover(&mut self, t: Time) {
        while let Some(&last) = self.legs.last() {
            if last.t1 > t || last.t1 == FOREVER {
                return;
            }
            let from = last.at(last.t1);
            let next = self.model.next(last.t1, from, &mut self.rng);
            self.legs.push(next);
        }
    }

    /// Forgets the legs that ended before `t`.
    pub fn forget_before(&mut self, t: Time) {
        let done = self.legs.iter().take_while(|l| l.t1 < t).count();
        let done = done.min(self.legs.len().saturating_sub(1));
        self.legs.drain(..done);
    }

    /// Position at `t`, which must be covered ([`Trajectory::cover`]) and not forgotten.
    #[inline]
    pub fn position(&self, t: Time) -> (f64, f64) {
        let leg = self
            .legs
            .iter()
            .find(|l| l.t1 >= t)
            .or(self.legs.last())
            .expect("a trajectory has a leg");
        leg.at(t)
    }

    /// The legs kept (for drawing and tests).
    pub fn legs(&self) -> &[Leg] {
        &self.legs
    }

    /// The highest speed the node ever reaches, m/s.
    pub fn max_speed(&self) -> f64 {
        self.legs
            .iter()
            .map(Leg::speed)
            .fold(self.model.max_speed(), f64::max)
    }
}

/// Every placed node's trajectory, indexed by placement order.
#[derive(Debug)]
pub struct Mobility {
    trajectories: Vec<Trajectory>,
    max_speed: f64,
}

impl Mobility {
    /// The trajectories of the placed nodes.
    pub fn new(trajectories: Vec<Trajectory>) -> Self {
        let max_speed = trajectories
            .iter()
            .map(Trajectory::max_speed)
            .fold(0.0, f64::max);
        Mobility {
            trajectories,
            max_speed,
        }
    }

    /// Whether any node ever moves.
    pub fn moves(&self) -> bool {
        self.max_speed > 0.0
    }

    /// The highest speed of any node, m/s.
    pub fn max_speed(&self) -> f64 {
        self.max_speed
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.trajectories.len()
    }

    /// No nodes.
    pub fn is_empty(&self) -> bool {
        self.trajectories.is_empty()
    }

    /// Makes every trajectory cover `[from, to]` and forgets what lies before `from`.
    pub fn advance(&mut self, from: Time, to: Time) {
        for tr in &mut self.trajectories {
            tr.cover(to);
            tr.forget_before(from);
        }
    }

    /// Node `i`'s position at `t` (covered by the last [`Mobility::advance`]).
    #[inline]
    pub fn position(&self, i: usize, t: Time) -> (f64, f64) {
        self.trajectories[i].position(t)
    }

    /// Node `i`'s trajectory.
    pub fn trajectory(&self, i: usize) -> &Trajectory {
        &self.trajectories[i]
    }

    /// Every node's path up to `until`, for drawing: the start of each leg and the position at
    /// `until`, (t ns, x, y) per node (a pause shows as two points at one place).
    pub fn waypoints(mut self, until: Time) -> Vec<Vec<(Time, f64, f64)>> {
        self.trajectories
            .iter_mut()
            .map(|tr| {
                tr.cover(until);
                let legs = || tr.legs.iter().take_while(|l| l.t0 <= until);
                let mut out: Vec<(Time, f64, f64)> = legs().map(|l| (l.t0, l.x0, l.y0)).collect();
                if let Some(last) = legs().last() {
                    let end = last.t1.min(until);
                    if end > last.t0 {
                        let (x, y) = last.at(end);
                        out.push((end, x, y));
                    }
                }
                out
            })
            .collect()
    }
}

/// The smallest rectangle holding `points` (the default area of the random models), if it has
/// an area.
fn area_of(points: &[(f64, f64)]) -> Option<Bounds> {
    let b = points.iter().fold(
        Bounds {
            x_min: f64::INFINITY,
            x_max: f64::NEG_INFINITY,
            y_min: f64::INFINITY,
            y_max: f64::NEG_INFINITY,
        },
        |b, &(x, y)| Bounds {
            x_min: b.x_min.min(x),
            x_max: b.x_max.max(x),
            y_min: b.y_min.min(y),
            y_max: b.y_max.max(y),
        },
    );
    (b.x_max > b.x_min && b.y_max > b.y_min).then_some(b)
}

/// The trajectories of the placed nodes (positions `placed`, names `names`, in placement
/// order) under the `mobility:` entries `entries`; `read` reads a movement file (the core reads
/// files from disk, tests give text). Nodes no entry names stand still.
pub fn build(
    entries: &[MobilityConfig],
    placed: &[(f64, f64)],
    names: &[&str],
    seed: u64,
    read: &dyn Fn(&str) -> std::io::Result<String>,
) -> Result<Mobility, ConfigError> {
    let n = placed.len();
    // The entry each node follows, and for trace entries the node's legs from the file.
    let mut rule: Vec<Option<usize>> = vec![None; n];
    let mut file_legs: Vec<Option<Vec<Leg>>> = vec![None; n];
    for (k, entry) in entries.iter().enumerate() {
        let path = format!("mobility[{k}]");
        entry.check(&path)?;
        match entry {
            MobilityConfig::Ns2 { file } | MobilityConfig::BonnMotion { file } => {
                let text = read(file).map_err(|e| {
                    ConfigError::new(format!("{path}.file"), format!("cannot read '{file}': {e}"))
                })?;
                let legs = match entry {
                    MobilityConfig::Ns2 { .. } => trace_file::read_ns2(&text, placed, &path)?,
                    _ => trace_file::read_bonnmotion(&text, placed, &path)?,
                };
                for (i, legs) in legs.into_iter().enumerate() {
                    if legs.is_some() {
                        rule[i] = Some(k);
                        file_legs[i] = legs;
                    }
                }
            }
            _ => match entry.nodes() {
                None => {
                    rule.iter_mut().for_each(|r| *r = Some(k));
                    file_legs.iter_mut().for_each(|l| *l = None);
                }
                Some(list) => {
                    for (j, name) in list.iter().enumerate() {
                        let Some(i) = names.iter().position(|n| n == name) else {
                            return Err(ConfigError::new(
                                format!("{path}.nodes[{j}]"),
                                format!("'{name}' is not a node the topology places"),
                            ));
                        };
                        rule[i] = Some(k);
                        file_legs[i] = None;
                    }
                }
            },
        }
    }
    let area = area_of(placed);
    let mut trajectories = Vec::with_capacity(n);
    for i in 0..n {
        let mut rng = Rng::stream(seed, &format!("mobility/{i}"));
        let (first, model) = match rule[i] {
            None => (
                vec![Leg::still(0, FOREVER, placed[i].0, placed[i].1)],
                Model::Done,
            ),
            Some(_) if file_legs[i].is_some() => {
                (file_legs[i].take().expect("checked"), Model::Done)
            }
            Some(k) => {
                let entry = &entries[k];
                let path = format!("mobility[{k}]");
                let bounds = match entry {
                    MobilityConfig::RandomWaypoint { bounds, .. }
                    | MobilityConfig::RandomWalk { bounds, .. } => Some(*bounds),
                    _ => None,
                };
                let area = match bounds {
                    Some(Some(b)) => b,
                    Some(None) => area.ok_or_else(|| {
                        ConfigError::new(
                            format!("{path}.bounds"),
                            "the placed nodes span no area (they lie on a line): give bounds",
                        )
                    })?,
                    None => Bounds {
                        x_min: 0.0,
                        x_max: 1.0,
                        y_min: 0.0,
                        y_max: 1.0,
                    },
                };
                if matches!(entry, MobilityConfig::RandomWalk { .. })
                    && !area.contains(placed[i].0, placed[i].1)
                {
                    return Err(ConfigError::new(
                        format!("{path}.bounds"),
                        format!(
                            "node '{}' starts at ({}, {}), outside the walk's rectangle",
                            names[i], placed[i].0, placed[i].1
                        ),
                    ));
                }
                models::start(entry, placed[i], area, &mut rng)
            }
        };
        trajectories.push(Trajectory::new(first, model, rng));
    }
    Ok(Mobility::new(trajectories))
}

#[cfg(test)]
mod tests;
