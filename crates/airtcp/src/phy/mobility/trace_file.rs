//! Movement files: ns-2's (`setdest` output, read as ns-3's `Ns2MobilityHelper` reads it) and
//! BonnMotion's native `.movements`, turned into legs per node.
//!
//! ns-2: `$node_(i) set X_ x` (and `Y_`, `Z_`) place node i before the run (Z is ignored:
//! airtcp is 2-D); `$ns_ at t "$node_(i) setdest x y speed"` sends node i from where it is at
//! `t` towards (x, y) at `speed` m/s, where it stops unless a later `setdest` redirects it first;
//! speed 0 stops the node. Lines naming `$god_` (setdest's connectivity hints) and comments
//! (`#`) are skipped; anything else is refused with its line number, so a file in another
//! format is not read as an empty one.
//!
//! BonnMotion (2-D): the k-th non-empty line holds node k's waypoints `t x y t x y ...` with
//! non-decreasing times; the node moves in a straight line between consecutive waypoints, stands
//! at the first before it and at the last after it.
//!
//! Node i is the i-th node the topology places (`n{i}` in generated topologies). Files are plain
//! text (decompress `.gz` first).

use super::config::MAX_SPEED;
use super::{Leg, FOREVER};
use crate::error::ConfigError;
use crate::sim::time::from_secs;
use crate::sim::Time;

/// The legs of each node a file names (`None`: the file does not name the node).
pub type FileLegs = Vec<Option<Vec<Leg>>>;

/// Longest time a file may name, s (about 31 years: beyond it nanoseconds lose their meaning
/// for any run).
const MAX_TIME_S: f64 = 1e9;

fn bad(path: &str, line: usize, message: impl std::fmt::Display) -> ConfigError {
    ConfigError::new(format!("{path}.file"), format!("line {line}: {message}"))
}

fn number(path: &str, line: usize, what: &str, text: &str) -> Result<f64, ConfigError> {
    match text.trim_matches('"').parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad(
            path,
            line,
            format!("{what} must be a number, got '{text}'"),
        )),
    }
}

fn time(path: &str, line: usize, text: &str) -> Result<Time, ConfigError> {
    let t = number(path, line, "the time", text)?;
    if !(0.0..=MAX_TIME_S).contains(&t) {
        return Err(bad(
            path,
            line,
            format!("the time must be from 0 to {MAX_TIME_S} s, got {t}"),
        ));
    }
    Ok(from_secs(t))
}

fn node_index(path: &str, line: usize, token: &str, nodes: usize) -> Result<usize, ConfigError> {
    let inner = token
        .trim_matches('"')
        .strip_prefix("$node_(")
        .and_then(|s| s.strip_suffix(')'));
    let Some(i) = inner.and_then(|s| s.parse::<usize>().ok()) else {
        return Err(bad(
            path,
            line,
            format!("expected $node_(<index>), got '{token}'"),
        ));
    };
    if i >= nodes {
        return Err(bad(
            path,
            line,
            format!(
                "names node {i}, but the topology places {nodes} node(s) (indices 0 to {})",
                nodes.saturating_sub(1)
            ),
        ));
    }
    Ok(i)
}

/// A node's motion being assembled from time-ordered commands.
struct Builder {
    legs: Vec<Leg>,
}

impl Builder {
    fn new(x: f64, y: f64) -> Self {
        Builder {
            legs: vec![Leg::still(0, FOREVER, x, y)],
        }
    }

    /// From `t` on, head from where the node is to `to` at `speed` (0: stop there).
    fn head(&mut self, t: Time, to: (f64, f64), speed: f64) {
        let cur = *self.legs.last().expect("a leg");
        // Where the node is at `t`: on the leg under way, or arrived and standing.
        let (x, y) = cur.at(t);
        if cur.t1 != FOREVER && cur.t1 < t {
            // Arrived before `t`: it stood there since.
            self.legs.push(Leg::still(cur.t1, t, x, y));
        } else {
            self.legs.last_mut().expect("a leg").t1 = t;
        }
        self.legs.push(if speed == 0.0 || (x, y) == to {
            Leg::still(t, FOREVER, x, y)
        } else {
            super::models::trip(t, (x, y), to, speed)
        });
    }

    fn finish(mut self) -> Vec<Leg> {
        let last = *self.legs.last().expect("a leg");
        if last.t1 != FOREVER {
            let (x, y) = last.at(last.t1);
            self.legs.push(Leg::still(last.t1, FOREVER, x, y));
        }
        self.legs.retain(|l| l.t1 > l.t0 || l.t1 == FOREVER);
        self.legs
    }
}

/// Node `i`'s motion from an ns-2 movement file's `text`; `placed` are the placed nodes'
/// positions (a node without `set X_`/`Y_` starts there). `path` is the entry's (`mobility[2]`).
pub fn read_ns2(text: &str, placed: &[(f64, f64)], path: &str) -> Result<FileLegs, ConfigError> {
    let n = placed.len();
    let mut start: Vec<Option<(f64, f64)>> = vec![None; n];
    // (time, line, node, x, y, speed), in file order.
    let mut moves: Vec<(Time, usize, usize, f64, f64, f64)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let s = raw.trim();
        if s.is_empty() || s.starts_with('#') || s.contains("$god_") {
            continue;
        }
        let tokens: Vec<&str> = s.split_whitespace().collect();
        match tokens.as_slice() {
            [node, "set", axis, v] => {
                let i = node_index(path, line, node, n)?;
                let v = number(path, line, "the coordinate", v)?;
                let p = start[i].get_or_insert(placed[i]);
                match *axis {
                    "X_" => p.0 = v,
                    "Y_" => p.1 = v,
                    "Z_" => {}
                    other => {
                        return Err(bad(
                            path,
                            line,
                            format!("expected X_, Y_ or Z_, got '{other}'"),
                        ))
                    }
                }
            }
            ["$ns_", "at", t, node, "setdest", x, y, speed] => {
                let t = time(path, line, t)?;
                let i = node_index(path, line, node, n)?;
                let x = number(path, line, "x", x)?;
                let y = number(path, line, "y", y)?;
                let speed = number(path, line, "the speed", speed)?;
                if !(0.0..=MAX_SPEED).contains(&speed) {
                    return Err(bad(
                        path,
                        line,
                        format!("the speed must be from 0 to {MAX_SPEED} m/s, got {speed}"),
                    ));
                }
                moves.push((t, line, i, x, y, speed));
            }
            _ => {
                return Err(bad(
                    path,
                    line,
                    "expected '$node_(i) set X_ x' or '$ns_ at t \"$node_(i) setdest x y speed\"'",
                ))
            }
        }
    }
    // Commands take effect in time order; at one time, in file order (a stable sort).
    moves.sort_by_key(|m| m.0);
    let mut builders: Vec<Option<Builder>> = (0..n)
        .map(|i| start[i].map(|(x, y)| Builder::new(x, y)))
        .collect();
    for (t, _, i, x, y, speed) in moves {
        let b = builders[i].get_or_insert_with(|| Builder::new(placed[i].0, placed[i].1));
        b.head(t, (x, y), speed);
    }
    Ok(builders
        .into_iter()
        .map(|b| b.map(Builder::finish))
        .collect())
}

/// Node motion from a BonnMotion `.movements` file's `text` (see the module's header).
pub fn read_bonnmotion(
    text: &str,
    placed: &[(f64, f64)],
    path: &str,
) -> Result<FileLegs, ConfigError> {
    let n = placed.len();
    let mut out: FileLegs = vec![None; n];
    let mut node = 0usize;
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let s = raw.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        if node >= n {
            return Err(bad(
                path,
                line,
                format!(
                    "names node {node}, but the topology places {n} node(s) (indices 0 to {})",
                    n.saturating_sub(1)
                ),
            ));
        }
        let values: Vec<f64> = s
            .split_whitespace()
            .map(|v| number(path, line, "a waypoint value", v))
            .collect::<Result<_, _>>()?;
        if values.is_empty() || !values.len().is_multiple_of(3) {
            return Err(bad(
                path,
                line,
                format!(
                    "expected 2-D waypoints 't x y' (a multiple of 3 values), got {} value(s)",
                    values.len()
                ),
            ));
        }
        let mut legs: Vec<Leg> = Vec::with_capacity(values.len() / 3 + 2);
        let mut prev: Option<(Time, f64, f64)> = None;
        for w in values.chunks_exact(3) {
            if !(0.0..=MAX_TIME_S).contains(&w[0]) {
                return Err(bad(
                    path,
                    line,
                    format!(
                        "a waypoint's time must be from 0 to {MAX_TIME_S} s, got {}",
                        w[0]
                    ),
                ));
            }
            let (t, x, y) = (from_secs(w[0]), w[1], w[2]);
            match prev {
                None => legs.push(Leg::still(0, t, x, y)),
                Some((t0, x0, y0)) => {
                    if t < t0 {
                        return Err(bad(
                            path,
                            line,
                            format!(
                                "waypoint times must not decrease ({} s after {} s)",
                                w[0],
                                crate::sim::time::to_secs(t0)
                            ),
                        ));
                    }
                    let dt = crate::sim::time::to_secs(t - t0);
                    let (dx, dy) = (x - x0, y - y0);
                    let speed = if dt > 0.0 {
                        dx.hypot(dy) / dt
                    } else if dx == 0.0 && dy == 0.0 {
                        0.0
                    } else {
                        f64::INFINITY
                    };
                    if speed > MAX_SPEED {
                        return Err(bad(path, line, format!("the node would move faster than {MAX_SPEED} m/s between {} s and {} s", crate::sim::time::to_secs(t0), w[0])));
                    }
                    let (vx, vy) = if dt > 0.0 {
                        (dx / dt, dy / dt)
                    } else {
                        (0.0, 0.0)
                    };
                    legs.push(Leg {
                        t0,
                        t1: t,
                        x0,
                        y0,
                        vx,
                        vy,
                    });
                }
            }
            prev = Some((t, x, y));
        }
        let (t, x, y) = prev.expect("at least one waypoint");
        legs.push(Leg::still(t, FOREVER, x, y));
        legs.retain(|l| l.t1 > l.t0 || l.t1 == FOREVER);
        out[node] = Some(legs);
        node += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::time::SECS;

    const PLACED: [(f64, f64); 3] = [(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)];

    #[test]
    fn ns2_setdest_moves_stops_and_redirects() {
        let text = "# setdest output\n\
            $node_(0) set X_ 100.0\n$node_(0) set Y_ 50.0\n$node_(0) set Z_ 0.0\n\
            $ns_ at 2.0 \"$node_(0) setdest 130.0 90.0 10.0\"\n\
            $ns_ at 20.0 \"$node_(0) setdest 130.0 0.0 5.0\"\n\
            $ns_ at 21.0 \"$node_(0) setdest 0.0 0.0 0.0\"\n\
            $god_ set-dist 0 1 7\n$ns_ at 3.0 \"$god_ set-dist 0 1 2\"\n";
        let legs = read_ns2(text, &PLACED, "mobility[0]").unwrap();
        assert!(legs[1].is_none() && legs[2].is_none());
        let mut m = crate::phy::mobility::Trajectory::from_legs(legs[0].clone().unwrap());
        m.cover(100 * SECS);
        let at = |s: f64| m.position(from_secs(s));
        assert_eq!(at(0.0), (100.0, 50.0));
        assert_eq!(at(2.0), (100.0, 50.0));
        // 50 m at 10 m/s: arrives at 7 s, stands until 20 s.
        let (x, y) = at(4.5);
        assert!(
            (x - 115.0).abs() < 1e-6 && (y - 70.0).abs() < 1e-6,
            "{x} {y}"
        );
        assert_eq!(at(7.0), (130.0, 90.0));
        assert_eq!(at(19.0), (130.0, 90.0));
        // Redirected at 20 s towards (130, 0) at 5 m/s; stopped at 21 s, 5 m down.
        let (x, y) = at(30.0);
        assert!(
            (x - 130.0).abs() < 1e-6 && (y - 85.0).abs() < 1e-6,
            "{x} {y}"
        );
    }

    #[test]
    fn ns2_refuses_unknown_nodes_and_lines() {
        let e = read_ns2("$node_(3) set X_ 1\n", &PLACED, "mobility[1]").unwrap_err();
        assert_eq!(e.path, "mobility[1].file");
        assert!(
            e.message.starts_with("line 1: names node 3"),
            "{}",
            e.message
        );
        let e = read_ns2("hello world\n", &PLACED, "m").unwrap_err();
        assert!(e.message.starts_with("line 1: expected"), "{}", e.message);
        let e = read_ns2("$ns_ at 1 \"$node_(0) setdest 1 1 -2\"\n", &PLACED, "m").unwrap_err();
        assert!(e.message.contains("speed"), "{}", e.message);
        let e = read_ns2("$ns_ at -1 \"$node_(0) setdest 1 1 2\"\n", &PLACED, "m").unwrap_err();
        assert!(e.message.contains("time"), "{}", e.message);
    }

    #[test]
    fn bonnmotion_interpolates_between_waypoints() {
        let text = "0 0 0 10 100 0 20 100 0 30 100 50\n5 10 10\n";
        let legs = read_bonnmotion(text, &PLACED, "m").unwrap();
        let mut a = crate::phy::mobility::Trajectory::from_legs(legs[0].clone().unwrap());
        a.cover(100 * SECS);
        assert_eq!(a.position(5 * SECS), (50.0, 0.0));
        assert_eq!(a.position(15 * SECS), (100.0, 0.0));
        assert_eq!(a.position(25 * SECS), (100.0, 25.0));
        assert_eq!(a.position(99 * SECS), (100.0, 50.0));
        let b = crate::phy::mobility::Trajectory::from_legs(legs[1].clone().unwrap());
        assert_eq!(b.position(0), (10.0, 10.0));
        assert!(legs[2].is_none());
        let e = read_bonnmotion("0 0 0\n0 0 0\n0 0 0\n0 0 0\n", &PLACED, "m").unwrap_err();
        assert!(
            e.message.starts_with("line 4: names node 3"),
            "{}",
            e.message
        );
        let e = read_bonnmotion("0 0 0 0\n", &PLACED, "m").unwrap_err();
        assert!(e.message.contains("multiple of 3"), "{}", e.message);
        let e = read_bonnmotion("0 0 0 1 1e9 0\n", &PLACED, "m").unwrap_err();
        assert!(e.message.contains("faster"), "{}", e.message);
        let e = read_bonnmotion("5 0 0 1 0 0\n", &PLACED, "m").unwrap_err();
        assert!(e.message.contains("decrease"), "{}", e.message);
    }
}
