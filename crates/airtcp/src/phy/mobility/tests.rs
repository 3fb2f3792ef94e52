use super::*;
use crate::quantity::NodeSet;
use crate::sim::time::{from_secs, SECS};

fn rwp(steady: bool, min_pause: Time, max_pause: Time) -> MobilityConfig {
    MobilityConfig::RandomWaypoint {
        nodes: NodeSet::All,
        min_speed: 1.0,
        max_speed: 20.0,
        min_pause,
        max_pause,
        bounds: Some(Bounds {
            x_min: 0.0,
            x_max: 1500.0,
            y_min: 0.0,
            y_max: 300.0,
        }),
        steady_state: steady,
    }
}

fn no_files(_: &str) -> std::io::Result<String> {
    Err(std::io::Error::other("no files here"))
}

fn build_n(entries: &[MobilityConfig], n: usize, seed: u64) -> Mobility {
    let placed: Vec<(f64, f64)> = (0..n).map(|i| (i as f64, 100.0 + (i % 7) as f64)).collect();
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    build(entries, &placed, &names, seed, &no_files).unwrap()
}

/// Speed at `t` of node `i` (covered).
fn speed_at(m: &Mobility, i: usize, t: Time) -> f64 {
    let tr = m.trajectory(i);
    tr.legs().iter().find(|l| l.t1 > t).map_or(0.0, Leg::speed)
}

#[test]
fn random_waypoint_pauses_first_then_travels_within_bounds() {
    let mut m = build_n(&[rwp(false, 2 * SECS, 5 * SECS)], 50, 1);
    m.advance(0, 600 * SECS);
    for i in 0..m.len() {
        let legs = m.trajectory(i).legs();
        // The first real leg is a pause at the placed position.
        let first = legs.iter().find(|l| l.t1 > l.t0).unwrap();
        assert_eq!((first.vx, first.vy), (0.0, 0.0));
        assert_eq!((first.x0, first.y0), (i as f64, 100.0 + (i % 7) as f64));
        for w in legs.windows(2) {
            // Contiguous in time and in space.
            assert_eq!(w[0].t1, w[1].t0);
            let (x, y) = w[0].at(w[0].t1);
            assert!((x - w[1].x0).abs() < 1e-6 && (y - w[1].y0).abs() < 1e-6);
        }
        for l in legs.iter().filter(|l| l.t1 > l.t0) {
            let s = l.speed();
            if s == 0.0 {
                let p = l.t1 - l.t0;
                assert!((2 * SECS..=5 * SECS).contains(&p), "pause {p}");
            } else {
                assert!((1.0..=20.0).contains(&s), "speed {s}");
                let (x, y) = l.at(l.t1);
                assert!(
                    (-1e-6..=1500.0 + 1e-6).contains(&x) && (-1e-6..=300.0 + 1e-6).contains(&y)
                );
            }
        }
    }
}

#[test]
fn steady_state_start_matches_the_long_run() {
    // Plain random waypoint's mean speed decays from the uniform mean (10.5 m/s) towards the
    // stationary (v1 - v0) / ln(v1 / v0) = 6.34 m/s; the steady-state start is there at t = 0.
    let n = 4000;
    let stationary = 19.0 / 20f64.ln();
    let mean_speed = |m: &Mobility, t: Time| {
        (0..m.len()).map(|i| speed_at(m, i, t)).sum::<f64>() / m.len() as f64
    };
    let mut steady = build_n(&[rwp(true, 0, 0)], n, 7);
    steady.advance(0, 0);
    let at0 = mean_speed(&steady, 0);
    assert!(
        (at0 / stationary - 1.0).abs() < 0.05,
        "steady start {at0} vs {stationary}"
    );
    steady.advance(400 * SECS, 400 * SECS);
    let later = mean_speed(&steady, 400 * SECS);
    assert!(
        (later / stationary - 1.0).abs() < 0.05,
        "steady later {later}"
    );
    let mut plain = build_n(&[rwp(false, 0, 0)], n, 7);
    plain.advance(0, 1);
    let start = mean_speed(&plain, 1);
    assert!((start / 10.5 - 1.0).abs() < 0.05, "plain start {start}");
}

#[test]
fn steady_state_paused_fraction_follows_the_closed_form() {
    // Mean pause 10 s against the mean travel time of a 1500 x 300 trip.
    let n = 4000;
    let travel = models::mean_trip_length(1500.0, 300.0) * 20f64.ln() / 19.0;
    let expect = 10.0 / (10.0 + travel);
    let mut m = build_n(&[rwp(true, 5 * SECS, 15 * SECS)], n, 3);
    m.advance(0, 0);
    let paused = (0..n).filter(|&i| speed_at(&m, i, 0) == 0.0).count() as f64 / n as f64;
    assert!((paused - expect).abs() < 0.03, "{paused} vs {expect}");
}

#[test]
fn mean_trip_length_of_a_unit_square() {
    // The mean distance between two uniform points of a unit square is 0.5214.
    assert!((models::mean_trip_length(1.0, 1.0) - 0.521_405).abs() < 1e-5);
}

#[test]
fn random_walk_reflects_off_the_sides() {
    let cfg = MobilityConfig::RandomWalk {
        nodes: NodeSet::All,
        min_speed: 5.0,
        max_speed: 10.0,
        mode: WalkMode::Time,
        time: 20 * SECS,
        distance: 1.0,
        bounds: Some(Bounds {
            x_min: 0.0,
            x_max: 100.0,
            y_min: 0.0,
            y_max: 120.0,
        }),
    };
    let mut m = build_n(&[cfg], 20, 5);
    m.advance(0, 2000 * SECS);
    let mut bounces = 0;
    for i in 0..m.len() {
        let legs = m.trajectory(i).legs();
        for w in legs.windows(2) {
            let (x, y) = w[0].at(w[0].t1);
            assert!(
                (-1e-6..=100.0 + 1e-6).contains(&x) && (-1e-6..=120.0 + 1e-6).contains(&y),
                "{x} {y}"
            );
            // A reflection keeps the speed and flips one component.
            if (w[0].speed() - w[1].speed()).abs() < 1e-9
                && (w[0].vx == -w[1].vx || w[0].vy == -w[1].vy)
            {
                bounces += 1;
            }
        }
        for l in legs.iter().filter(|l| l.t1 > l.t0) {
            assert!((5.0..=10.0).contains(&l.speed()));
        }
    }
    assert!(bounces > 100, "{bounces}");
}

#[test]
fn forgetting_keeps_the_present_and_positions_are_continuous() {
    let mut m = build_n(&[rwp(false, 0, 3 * SECS)], 5, 9);
    let mut prev: Vec<(f64, f64)> = (0..5).map(|i| m.position(i, 0)).collect();
    let step = 50 * crate::sim::time::MILLIS;
    m.advance(0, 0);
    for k in 1..4000u64 {
        let t = k * step;
        m.advance(t - step, t);
        for (i, p) in prev.iter_mut().enumerate() {
            let q = m.position(i, t);
            // Never faster than 20 m/s.
            let moved = (q.0 - p.0).hypot(q.1 - p.1);
            assert!(
                moved <= 20.0 * 0.05 + 1e-6,
                "node {i} moved {moved} m in 50 ms"
            );
            *p = q;
        }
        assert!(m.trajectory(0).legs().len() <= 8);
    }
}

#[test]
fn later_entries_take_over_and_names_are_checked() {
    let cv = MobilityConfig::ConstantVelocity {
        nodes: NodeSet::All,
        vx: 1.0,
        vy: 0.0,
    };
    let hold = MobilityConfig::ConstantPosition {
        nodes: NodeSet::Nodes(vec!["n2".into()]),
    };
    let m = build_n(&[cv.clone(), hold], 4, 1);
    assert_eq!(m.position(0, 10 * SECS), (10.0, 100.0));
    assert_eq!(m.position(2, 10 * SECS), (2.0, 102.0));
    assert_eq!(m.max_speed(), 1.0);
    let placed = [(0.0, 0.0)];
    let bad = MobilityConfig::ConstantPosition {
        nodes: NodeSet::Nodes(vec!["zz".into()]),
    };
    let e = build(&[bad], &placed, &["a"], 1, &no_files).unwrap_err();
    assert_eq!(e.path, "mobility[0].nodes[0]");
    let e = build(
        &[rwp(false, 0, 0)],
        &[(0.0, 0.0), (5.0, 0.0)],
        &["a", "b"],
        1,
        &no_files,
    );
    assert!(e.is_ok(), "explicit bounds");
    let no_bounds = MobilityConfig::RandomWaypoint {
        nodes: NodeSet::All,
        min_speed: 1.0,
        max_speed: 2.0,
        min_pause: 0,
        max_pause: 0,
        bounds: None,
        steady_state: false,
    };
    let e = build(
        &[no_bounds],
        &[(0.0, 0.0), (5.0, 0.0)],
        &["a", "b"],
        1,
        &no_files,
    )
    .unwrap_err();
    assert_eq!(e.path, "mobility[0].bounds");
    let file = MobilityConfig::Ns2 {
        file: "x.ns".into(),
    };
    let e = build(&[file], &placed, &["a"], 1, &no_files).unwrap_err();
    assert_eq!(e.path, "mobility[0].file");
    assert!(e.message.contains("cannot read 'x.ns'"), "{}", e.message);
    let neg = MobilityConfig::RandomWaypoint {
        nodes: NodeSet::All,
        min_speed: -1.0,
        max_speed: 2.0,
        min_pause: 0,
        max_pause: 0,
        bounds: None,
        steady_state: false,
    };
    let e = build(&[neg], &placed, &["a"], 1, &no_files).unwrap_err();
    assert_eq!(e.path, "mobility[0].min_speed");
    let _ = from_secs(1.0);
}

#[test]
fn still_networks_do_not_move() {
    let m = build_n(&[], 3, 1);
    assert!(!m.moves());
    let m = build_n(
        &[MobilityConfig::ConstantPosition {
            nodes: NodeSet::All,
        }],
        3,
        1,
    );
    assert!(!m.moves());
}
