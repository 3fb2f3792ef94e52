//! The `mobility:` block: which nodes move and how. A list of entries, each a model and the nodes
//! it moves (`nodes: all`, the default, or a list of names); a later entry takes over the nodes it names
//! from earlier ones, so `[{kind: random_waypoint, ...}, {kind: constant_position, nodes: [gw]}]`
//! keeps a gateway still in a moving network. Trace files name their nodes themselves.
//!
//! Speeds are m/s, distances m, times ns (the front end reads `2s`). Parameter names and defaults
//! follow ns-3 3.44's models (`RandomWaypointMobilityModel`, `SteadyStateRandomWaypointMobilityModel`,
//! `RandomWalk2dMobilityModel`, `ConstantVelocityMobilityModel`, `Ns2MobilityHelper`); the
//! models themselves are in [`super::models`] and [`super::trace_file`].

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::quantity::NodeSet;

/// The fastest a node may move, m/s. Far beyond any vehicle; the medium fixes a frame's
/// received power at its start, which stays right only while nodes move little during a frame.
pub const MAX_SPEED: f64 = 10_000.0;

/// The shortest side of a rectangle the random models move in, m.
pub const MIN_SIDE: f64 = 1.0;

/// The shortest stretch of a random walk: `time` may not be shorter, and a `distance` stretch
/// lasts at least this long (so that a walk's cost per simulated second is bounded).
pub const MIN_STRETCH: u64 = crate::sim::time::MILLIS;

/// One entry of the `mobility:` list.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MobilityConfig {
    /// The nodes stand still at their placed positions (the default of every node).
    ConstantPosition {
        /// The nodes: `all` (every placed node, the default) or a list of names.
        #[serde(default)]
        nodes: NodeSet,
    },
    /// The nodes move in a straight line at a fixed velocity from their placed positions
    /// (ns-3's `ConstantVelocityMobilityModel`), for ever.
    ConstantVelocity {
        /// The nodes: `all` (every placed node, the default) or a list of names.
        #[serde(default)]
        nodes: NodeSet,
        /// Velocity along x, m/s.
        vx: f64,
        /// Velocity along y, m/s.
        vy: f64,
    },
    /// Random waypoint (Johnson and Maltz 1996; ns-3's `RandomWaypointMobilityModel`): a pause,
    /// then a straight trip at a uniform speed to a uniform point of `bounds`, then a pause, and
    /// so on. With `steady_state`, the first trip and pause are drawn from the model's
    /// stationary distribution (Navidi and Camp 2004; ns-3's
    /// `SteadyStateRandomWaypointMobilityModel`), so the run starts without the warm-up in which
    /// nodes' mean speed decays and they gather in the middle; the nodes' placed positions are
    /// then not used.
    RandomWaypoint {
        /// The nodes: `all` (every placed node, the default) or a list of names.
        #[serde(default)]
        nodes: NodeSet,
        /// Lowest trip speed, m/s (> 0).
        #[serde(default = "default_min_speed")]
        #[schemars(extend("exclusiveMinimum" = 0, "maximum" = MAX_SPEED))]
        min_speed: f64,
        /// Highest trip speed, m/s (>= min_speed).
        #[serde(default = "default_max_speed")]
        #[schemars(extend("exclusiveMinimum" = 0, "maximum" = MAX_SPEED))]
        max_speed: f64,
        /// Shortest pause, ns.
        #[serde(default)]
        #[schemars(transform = crate::quantity::duration)]
        min_pause: u64,
        /// Longest pause, ns (>= min_pause).
        #[serde(default)]
        #[schemars(transform = crate::quantity::duration)]
        max_pause: u64,
        /// The area the waypoints are drawn from; absent: the smallest rectangle holding every
        /// placed node.
        #[serde(default)]
        bounds: Option<Bounds>,
        /// Start in the stationary distribution.
        #[serde(default)]
        steady_state: bool,
    },
    /// Random walk in a rectangle (ns-3's `RandomWalk2dMobilityModel`): a uniform direction and
    /// speed, kept for `time` (mode `time`) or over `distance` (mode `distance`), reflecting off
    /// the rectangle's sides.
    RandomWalk {
        /// The nodes: `all` (every placed node, the default) or a list of names.
        #[serde(default)]
        nodes: NodeSet,
        /// Lowest speed, m/s (> 0).
        #[serde(default = "default_walk_min_speed")]
        #[schemars(extend("exclusiveMinimum" = 0, "maximum" = MAX_SPEED))]
        min_speed: f64,
        /// Highest speed, m/s (>= min_speed).
        #[serde(default = "default_walk_max_speed")]
        #[schemars(extend("exclusiveMinimum" = 0, "maximum" = MAX_SPEED))]
        max_speed: f64,
        /// When a new direction and speed are drawn.
        #[serde(default)]
        mode: WalkMode,
        /// Time between changes in mode `time`, ns (at least 1 ms).
        #[serde(default = "default_walk_time")]
        #[schemars(transform = crate::quantity::duration, range(min = 1_000_000))]
        time: u64,
        /// Distance between changes in mode `distance`, m (a stretch lasts at least 1 ms).
        #[serde(default = "default_walk_distance")]
        #[schemars(transform = crate::quantity::distance, extend("exclusiveMinimum" = 0))]
        distance: f64,
        /// The rectangle walked in; absent: the smallest rectangle holding every placed node.
        /// Every node it moves must start inside it.
        #[serde(default)]
        bounds: Option<Bounds>,
    },
    /// Motion read from an ns-2 movement file (`setdest`'s output: `$node_(i) set X_ x`,
    /// `$ns_ at t "$node_(i) setdest x y speed"`); `$node_(i)` is the i-th node `topology`
    /// places (`n{i}` in generated topologies). The initial `X_`/`Y_` replace the placed
    /// position; other lines (`$god_`, comments) are skipped.
    Ns2 {
        /// The file (a path relative to the scenario file, which the front end resolves).
        file: String,
    },
    /// Motion read from a BonnMotion movement file (its native `.movements` format, 2-D: line i
    /// is the i-th placed node's waypoints `t x y t x y ...`, the node moving in a straight line
    /// between consecutive ones; before the first it stands at the first, after the last at the
    /// last).
    #[serde(rename = "bonnmotion")]
    BonnMotion {
        /// The file (a path relative to the scenario file, which the front end resolves).
        file: String,
    },
}

/// A rectangle, m.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Lowest x, m.
    #[schemars(transform = crate::quantity::distance)]
    pub x_min: f64,
    /// Highest x, m (at least x_min + 1 m).
    #[schemars(transform = crate::quantity::distance)]
    pub x_max: f64,
    /// Lowest y, m.
    #[schemars(transform = crate::quantity::distance)]
    pub y_min: f64,
    /// Highest y, m (at least y_min + 1 m).
    #[schemars(transform = crate::quantity::distance)]
    pub y_max: f64,
}

impl Bounds {
    /// Whether `(x, y)` lies inside or on the rectangle.
    pub fn contains(&self, x: f64, y: f64) -> bool {
        (self.x_min..=self.x_max).contains(&x) && (self.y_min..=self.y_max).contains(&y)
    }
}

/// What ends a random walk's straight stretch (ns-3's `Mode`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum WalkMode {
    /// After `distance` metres (ns-3's default).
    #[default]
    Distance,
    /// After `time`.
    Time,
}

// ns-3 3.44's defaults: RandomWaypoint's Speed U[0.3, 0.7] m/s (the steady-state model's
// MinSpeed and MaxSpeed too), RandomWalk2d's Speed U[2, 4] m/s, Time 1 s, Distance 1 m. ns-3's
// RandomWaypoint pauses 2 s by default, its steady-state model 0 s; airtcp's default pause is 0
// (set both to 2s for the former).
fn default_min_speed() -> f64 {
    0.3
}
fn default_max_speed() -> f64 {
    0.7
}
fn default_walk_min_speed() -> f64 {
    2.0
}
fn default_walk_max_speed() -> f64 {
    4.0
}
fn default_walk_time() -> u64 {
    crate::sim::time::SECS
}
fn default_walk_distance() -> f64 {
    1.0
}

fn err(path: &str, field: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::new(format!("{path}.{field}"), message)
}

fn check_speeds(path: &str, min: f64, max: f64) -> Result<(), ConfigError> {
    for (field, v) in [("min_speed", min), ("max_speed", max)] {
        if !(v.is_finite() && v > 0.0 && v <= MAX_SPEED) {
            return Err(err(
                path,
                field,
                format!("must be a speed above 0 and at most {MAX_SPEED} m/s, got {v}"),
            ));
        }
    }
    if max < min {
        return Err(err(
            path,
            "max_speed",
            format!("must be at least min_speed ({min}), got {max}"),
        ));
    }
    Ok(())
}

impl Bounds {
    fn check(&self, path: &str) -> Result<(), ConfigError> {
        let b = self;
        for (field, v) in [
            ("x_min", b.x_min),
            ("x_max", b.x_max),
            ("y_min", b.y_min),
            ("y_max", b.y_max),
        ] {
            if !v.is_finite() {
                return Err(err(path, field, format!("must be finite, got {v}")));
            }
        }
        // (Finite, checked above: the difference is never NaN.) At least a metre a side: a node crossing a narrower rectangle at the fastest speed
        // would turn every few nanoseconds, which no model needs and no run could afford.
        if b.x_max - b.x_min < MIN_SIDE {
            return Err(err(
                path,
                "x_max",
                format!(
                    "must exceed x_min ({}) by at least {MIN_SIDE} m, got {}",
                    b.x_min, b.x_max
                ),
            ));
        }
        if b.y_max - b.y_min < MIN_SIDE {
            return Err(err(
                path,
                "y_max",
                format!(
                    "must exceed y_min ({}) by at least {MIN_SIDE} m, got {}",
                    b.y_min, b.y_max
                ),
            ));
        }
        Ok(())
    }
}

impl MobilityConfig {
    /// The nodes the entry names (`None`: all placed nodes; trace files name their own).
    pub fn nodes(&self) -> Option<&[String]> {
        match self {
            MobilityConfig::ConstantPosition { nodes }
            | MobilityConfig::ConstantVelocity { nodes, .. }
            | MobilityConfig::RandomWaypoint { nodes, .. }
            | MobilityConfig::RandomWalk { nodes, .. } => nodes.names(),
            MobilityConfig::Ns2 { .. } | MobilityConfig::BonnMotion { .. } => None,
        }
    }

    /// The entry's own values, checked (`path` is the entry's, e.g. `mobility[1]`); node names
    /// and files are checked where they are resolved.
    pub fn check(&self, path: &str) -> Result<(), ConfigError> {
        if self.nodes().is_some_and(|n| n.is_empty()) {
            return Err(err(path, "nodes", "must name at least one node, or be all"));
        }
        match *self {
            MobilityConfig::ConstantPosition { .. } => Ok(()),
            MobilityConfig::ConstantVelocity { vx, vy, .. } => {
                for (field, v) in [("vx", vx), ("vy", vy)] {
                    if !(v.is_finite() && v.abs() <= MAX_SPEED) {
                        return Err(err(
                            path,
                            field,
                            format!("must be a speed of at most {MAX_SPEED} m/s, got {v}"),
                        ));
                    }
                }
                if vx.hypot(vy) > MAX_SPEED {
                    return Err(err(
                        path,
                        "vx",
                        format!("the speed (vx, vy) must be at most {MAX_SPEED} m/s"),
                    ));
                }
                Ok(())
            }
            MobilityConfig::RandomWaypoint {
                min_speed,
                max_speed,
                min_pause,
                max_pause,
                bounds,
                ..
            } => {
                check_speeds(path, min_speed, max_speed)?;
                if max_pause < min_pause {
                    return Err(err(
                        path,
                        "max_pause",
                        format!("must be at least min_pause ({min_pause} ns), got {max_pause} ns"),
                    ));
                }
                match bounds {
                    Some(b) => b.check(&format!("{path}.bounds")),
                    None => Ok(()),
                }
            }
            MobilityConfig::RandomWalk {
                min_speed,
                max_speed,
                time,
                distance,
                bounds,
                ..
            } => {
                check_speeds(path, min_speed, max_speed)?;
                if time < MIN_STRETCH {
                    return Err(err(
                        path,
                        "time",
                        format!("must be at least {MIN_STRETCH} ns (1 ms), got {time} ns"),
                    ));
                }
                if !(distance.is_finite() && distance > 0.0) {
                    return Err(err(
                        path,
                        "distance",
                        format!("must be a distance above 0, got {distance}"),
                    ));
                }
                match bounds {
                    Some(b) => b.check(&format!("{path}.bounds")),
                    None => Ok(()),
                }
            }
            MobilityConfig::Ns2 { ref file } | MobilityConfig::BonnMotion { ref file } => {
                if file.is_empty() {
                    return Err(err(path, "file", "must name a file"));
                }
                Ok(())
            }
        }
    }
}
