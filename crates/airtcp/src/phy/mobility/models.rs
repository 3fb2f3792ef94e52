//! The random mobility models: they draw a node's next legs when its trajectory needs them.
//!
//! - Random waypoint (Johnson and Maltz, "Dynamic Source Routing in Ad Hoc Wireless Networks",
//!   1996; as ns-3 3.44's `RandomWaypointMobilityModel`): pause U[min_pause, max_pause], then a
//!   trip to a point uniform in the bounds (x drawn before y) at a speed U[min_speed, max_speed]
//!   drawn after the point, and again. A node starts with a pause at its placed position.
//! - Its steady-state start (Navidi and Camp, "Stationary Distributions for the Random Waypoint
//!   Mobility Model", IEEE TMC 3(1), 2004; as ns-3's `SteadyStateRandomWaypointMobilityModel`):
//!   the node is paused at t = 0 with probability E[pause] / (E[pause] + E[travel]), where for an
//!   a x b rectangle the mean trip length is L = (1/6)(b^2/a ln(sqrt(a^2/b^2 + 1) + a/b) +
//!   a^2/b ln(sqrt(b^2/a^2 + 1) + b/a)) plus (1/15)(a^3/b^2 + b^3/a^2) minus
//!   (1/15) sqrt(a^2 + b^2)(a^2/b^2 + b^2/a^2 - 3), and E[travel] = L ln(v1/v0)/(v1 - v0)
//!   (L/v0 when v0 = v1). Paused: a uniform point and the residual pause of the paper's eq. 20
//!   as corrected in the TMC paper (ns-3's code). Moving: a trip (P1, P2) drawn with density
//!   proportional to its length (rejection on |P1 P2| / diagonal), the node uniformly on it,
//!   heading to P2 at speed v0 (v1/v0)^u, the speed density proportional to 1/v that a
//!   time-stationary observer sees. Later legs as the plain model.
//! - Random walk (as ns-3's `RandomWalk2dMobilityModel`): a speed U[min_speed, max_speed] and then
//!   a direction U[0, 2 pi), kept for `time` or for `distance` metres; at a side of the rectangle
//!   the velocity's component across it flips and the stretch goes on for the time it had left.
//!   A node starting on a side heads inside.
//!
//! Deviation from ns-3: a pause whose bounds are equal is not drawn (ns-3 draws and discards);
//! the streams are airtcp's own either way, so only distributions compare.

use super::config::{Bounds, MobilityConfig, WalkMode, MIN_STRETCH};
use super::{Leg, FOREVER};
use crate::sim::time::{from_secs, to_secs};
use crate::sim::{Rng, Time};

/// What draws a node's next legs.
#[derive(Debug)]
pub enum Model {
    /// Nothing more to draw: the trajectory's last leg lasts for ever.
    Done,
    /// Random waypoint.
    Waypoint(Waypoint),
    /// Random walk.
    Walk(Walk),
}

impl Model {
    /// The leg after a leg that ended at `t` at `from`.
    pub fn next(&mut self, t: Time, from: (f64, f64), rng: &mut Rng) -> Leg {
        match self {
            Model::Done => Leg::still(t, FOREVER, from.0, from.1),
            Model::Waypoint(w) => w.next(t, from, rng),
            Model::Walk(w) => w.next(t, from, rng),
        }
    }

    /// The highest speed the model draws, m/s.
    pub fn max_speed(&self) -> f64 {
        match self {
            Model::Done => 0.0,
            Model::Waypoint(w) => w.max_speed,
            Model::Walk(w) => w.max_speed,
        }
    }
}

/// Random waypoint's parameters and whether a pause or a trip comes next.
#[derive(Debug)]
pub struct Waypoint {
    min_speed: f64,
    max_speed: f64,
    min_pause: Time,
    max_pause: Time,
    bounds: Bounds,
    pause_next: bool,
}

impl Waypoint {
    fn pause(&self, rng: &mut Rng) -> Time {
        if self.max_pause > self.min_pause {
            from_secs(rng.uniform_range(to_secs(self.min_pause), to_secs(self.max_pause)))
        } else {
            self.min_pause
        }
    }

    fn point(&self, rng: &mut Rng) -> (f64, f64) {
        let b = &self.bounds;
        let x = rng.uniform_range(b.x_min, b.x_max);
        let y = rng.uniform_range(b.y_min, b.y_max);
        (x, y)
    }

    fn speed(&self, rng: &mut Rng) -> f64 {
        rng.uniform_range(self.min_speed, self.max_speed)
    }

    fn next(&mut self, t: Time, from: (f64, f64), rng: &mut Rng) -> Leg {
        if self.pause_next {
            self.pause_next = false;
            let p = self.pause(rng);
            return Leg::still(t, t.saturating_add(p), from.0, from.1);
        }
        self.pause_next = true;
        let to = self.point(rng);
        let speed = self.speed(rng);
        trip(t, from, to, speed)
    }
}

/// A straight trip from `from` to `to` at `speed` starting at `t`.
pub(super) fn trip(t: Time, from: (f64, f64), to: (f64, f64), speed: f64) -> Leg {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let dist = dx.hypot(dy);
    // Every trip takes at least a nanosecond, so that time moves on even when the pauses are
    // zero and a waypoint is drawn where the node stands.
    if dist == 0.0 {
        return Leg::still(t, t.saturating_add(1), from.0, from.1);
    }
    let k = speed / dist;
    Leg {
        t0: t,
        t1: t.saturating_add(from_secs(dist / speed).max(1)),
        x0: from.0,
        y0: from.1,
        vx: k * dx,
        vy: k * dy,
    }
}

/// The mean trip length of random waypoint in an `a x b` rectangle (Navidi and Camp 2004).
pub fn mean_trip_length(a: f64, b: f64) -> f64 {
    let log1 = b * b / a * ((a * a / (b * b) + 1.0).sqrt() + a / b).ln();
    let log2 = a * a / b * ((b * b / (a * a) + 1.0).sqrt() + b / a).ln();
    (log1 + log2) / 6.0 + ((a * a * a) / (b * b) + (b * b * b) / (a * a)) / 15.0
        - (a * a + b * b).sqrt() * ((a * a) / (b * b) + (b * b) / (a * a) - 3.0) / 15.0
}

/// The random waypoint model of an entry and the legs it starts with from `placed`.
fn waypoint(
    cfg: &MobilityConfig,
    placed: (f64, f64),
    area: Bounds,
    rng: &mut Rng,
) -> (Vec<Leg>, Model) {
    let MobilityConfig::RandomWaypoint {
        min_speed,
        max_speed,
        min_pause,
        max_pause,
        bounds,
        steady_state,
        ..
    } = *cfg
    else {
        unreachable!("called for random waypoint entries")
    };
    let mut w = Waypoint {
        min_speed,
        max_speed,
        min_pause,
        max_pause,
        bounds: bounds.unwrap_or(area),
        pause_next: true,
    };
    if !steady_state {
        // A zero-length trip "ended" at 0: the model pauses first, as ns-3's does.
        return (
            vec![Leg::still(0, 0, placed.0, placed.1)],
            Model::Waypoint(w),
        );
    }
    let b = w.bounds;
    let (a, bh) = (b.x_max - b.x_min, b.y_max - b.y_min);
    let (v0, v1) = (min_speed, max_speed);
    let pause_mean = (to_secs(min_pause) + to_secs(max_pause)) / 2.0;
    let mut travel_mean = mean_trip_length(a, bh);
    travel_mean *= if v0 == v1 {
        1.0 / v0
    } else {
        (v1 / v0).ln() / (v1 - v0)
    };
    let paused = pause_mean / (pause_mean + travel_mean);
    if rng.uniform() < paused {
        let at = w.point(rng);
        let (p0, p1) = (to_secs(min_pause), to_secs(max_pause));
        let u = rng.uniform();
        let left = if p0 != p1 {
            if u < 2.0 * p0 / (p0 + p1) {
                u * (p0 + p1) / 2.0
            } else {
                p1 - ((1.0 - u) * (p1 * p1 - p0 * p0)).sqrt()
            }
        } else {
            u * pause_mean
        };
        // The pause is under way; a trip comes next.
        w.pause_next = false;
        return (
            vec![Leg::still(0, from_secs(left), at.0, at.1)],
            Model::Waypoint(w),
        );
    }
    let diag2 = a * a + bh * bh;
    let (p1, p2) = loop {
        let p1 = (rng.uniform_range(0.0, a), rng.uniform_range(0.0, bh));
        let p2 = (rng.uniform_range(0.0, a), rng.uniform_range(0.0, bh));
        let u1 = rng.uniform();
        let r = (((p2.0 - p1.0).powi(2) + (p2.1 - p1.1).powi(2)) / diag2).sqrt();
        if u1 < r {
            break (p1, p2);
        }
    };
    let u2 = rng.uniform();
    let at = (
        b.x_min + u2 * p1.0 + (1.0 - u2) * p2.0,
        b.y_min + u2 * p1.1 + (1.0 - u2) * p2.1,
    );
    let to = (b.x_min + p2.0, b.y_min + p2.1);
    let u = rng.uniform();
    let speed = v1.powf(u) / v0.powf(u - 1.0);
    // The trip is under way; a pause comes next.
    w.pause_next = true;
    (vec![trip(0, at, to, speed)], Model::Waypoint(w))
}

/// Random walk's parameters and the stretch under way.
#[derive(Debug)]
pub struct Walk {
    min_speed: f64,
    max_speed: f64,
    mode: WalkMode,
    time: Time,
    distance: f64,
    bounds: Bounds,
    /// Time left of the stretch under way (0: draw a new one).
    left: Time,
    vx: f64,
    vy: f64,
}

impl Walk {
    fn next(&mut self, t: Time, from: (f64, f64), rng: &mut Rng) -> Leg {
        let b = self.bounds;
        // Rounding leg ends to the nanosecond may leave a node a hair outside.
        let (x, y) = (
            from.0.clamp(b.x_min, b.x_max),
            from.1.clamp(b.y_min, b.y_max),
        );
        if self.left == 0 {
            let speed = rng.uniform_range(self.min_speed, self.max_speed);
            let dir = rng.uniform_range(0.0, std::f64::consts::TAU);
            (self.vx, self.vy) = (dir.cos() * speed, dir.sin() * speed);
            // On a side: head inside.
            if x <= b.x_min {
                self.vx = self.vx.abs();
            } else if x >= b.x_max {
                self.vx = -self.vx.abs();
            }
            if y <= b.y_min {
                self.vy = self.vy.abs();
            } else if y >= b.y_max {
                self.vy = -self.vy.abs();
            }
            self.left = match self.mode {
                WalkMode::Time => self.time,
                WalkMode::Distance => from_secs(self.distance / speed).max(MIN_STRETCH),
            };
        }
        // Seconds to the side the velocity heads for along each axis.
        let to_side = |p: f64, v: f64, lo: f64, hi: f64| {
            if v > 0.0 {
                ((hi - p) / v).max(0.0)
            } else if v < 0.0 {
                ((lo - p) / v).max(0.0)
            } else {
                f64::INFINITY
            }
        };
        let tx = to_side(x, self.vx, b.x_min, b.x_max);
        let ty = to_side(y, self.vy, b.y_min, b.y_max);
        let hit = tx.min(ty);
        let leg = |dur: Time, vx: f64, vy: f64| Leg {
            t0: t,
            t1: t.saturating_add(dur),
            x0: x,
            y0: y,
            vx,
            vy,
        };
        if hit >= to_secs(self.left) {
            let l = leg(self.left, self.vx, self.vy);
            self.left = 0;
            return l;
        }
        // At least a nanosecond: the stretch's time left always shrinks.
        let dur = from_secs(hit).clamp(1, self.left);
        let l = leg(dur, self.vx, self.vy);
        self.left -= dur;
        if tx <= hit {
            self.vx = -self.vx;
        }
        if ty <= hit {
            self.vy = -self.vy;
        }
        l
    }
}

/// The first legs and the model of a node moved by entry `cfg` from its placed position
/// `placed`; `area` stands in for absent bounds. Trace entries are not models
/// ([`super::trace_file`]).
pub fn start(
    cfg: &MobilityConfig,
    placed: (f64, f64),
    area: Bounds,
    rng: &mut Rng,
) -> (Vec<Leg>, Model) {
    let (x, y) = placed;
    match *cfg {
        MobilityConfig::ConstantPosition { .. }
        | MobilityConfig::Ns2 { .. }
        | MobilityConfig::BonnMotion { .. } => (vec![Leg::still(0, FOREVER, x, y)], Model::Done),
        MobilityConfig::ConstantVelocity { vx, vy, .. } => (
            vec![Leg {
                t0: 0,
                t1: FOREVER,
                x0: x,
                y0: y,
                vx,
                vy,
            }],
            Model::Done,
        ),
        MobilityConfig::RandomWaypoint { .. } => waypoint(cfg, placed, area, rng),
        MobilityConfig::RandomWalk {
            min_speed,
            max_speed,
            mode,
            time,
            distance,
            bounds,
            ..
        } => (
            vec![Leg::still(0, 0, x, y)],
            Model::Walk(Walk {
                min_speed,
                max_speed,
                mode,
                time,
                distance,
                bounds: bounds.unwrap_or(area),
                left: 0,
                vx: 0.0,
                vy: 0.0,
            }),
        ),
    }
}
