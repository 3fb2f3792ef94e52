//! Finding the radios near each radio with a spatial grid: square cells `cell` metres wide per
//! channel, each radio compared only with those of its own and the eight cells around, so that
//! the search is linear in the radios at a fixed density. The static build uses it for the
//! neighbour lists (cells as wide as the reach) and moving nodes for their candidates (reach plus
//! margin, `super::motion`).

use std::collections::HashMap;

/// The cell of a coordinate in a grid of square cells `cell` wide.
pub fn cell_of(v: f64, cell: f64) -> i64 {
    (v / cell).floor() as i64
}

/// For each radio i of `radios` (x, y, channel), in order: the other radios of its channel in
/// its cell and the eight around it, with their distances, sorted by index. `each` decides which
/// to keep (a radius, a power threshold); the list it is shown is reused.
pub fn near_each(
    radios: &[(f64, f64, u32)],
    cell: f64,
    mut each: impl FnMut(usize, &[(u32, f64)]),
) {
    let key = |&(x, y, ch): &(f64, f64, u32)| (ch, cell_of(x, cell), cell_of(y, cell));
    let mut grid: HashMap<(u32, i64, i64), Vec<u32>> = HashMap::new();
    for (i, r) in radios.iter().enumerate() {
        grid.entry(key(r)).or_default().push(i as u32);
    }
    let mut found: Vec<(u32, f64)> = Vec::new();
    for (i, r) in radios.iter().enumerate() {
        let (ch, cx, cy) = key(r);
        found.clear();
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(members) = grid.get(&(ch, cx + dx, cy + dy)) else {
                    continue;
                };
                for &j in members.iter().filter(|&&j| j as usize != i) {
                    let (qx, qy, _) = radios[j as usize];
                    let (ddx, ddy) = (r.0 - qx, r.1 - qy);
                    // A square root, not `hypot`, whose care for overflow costs a library call
                    // (positions are metres, far from overflowing a square).
                    found.push((j, (ddx * ddx + ddy * ddy).sqrt()));
                }
            }
        }
        found.sort_unstable_by_key(|&(j, _)| j);
        each(i, &found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_exactly_the_pairs_a_full_scan_finds() {
        let mut rng = crate::sim::Rng::stream(3, "grid");
        let radios: Vec<(f64, f64, u32)> = (0..300)
            .map(|_| {
                (
                    rng.uniform_range(-500.0, 500.0),
                    rng.uniform_range(0.0, 800.0),
                    (rng.uniform() * 2.0) as u32,
                )
            })
            .collect();
        let r = 90.0;
        let mut seen = 0;
        near_each(&radios, r, |i, found| {
            let near: Vec<u32> = found.iter().filter(|p| p.1 <= r).map(|p| p.0).collect();
            let scan: Vec<u32> = (0..radios.len() as u32)
                .filter(|&j| {
                    let (a, b) = (radios[i], radios[j as usize]);
                    j as usize != i && a.2 == b.2 && (a.0 - b.0).hypot(a.1 - b.1) <= r
                })
                .collect();
            assert_eq!(near, scan, "radio {i}");
            seen += near.len();
        });
        assert!(seen > 300, "{seen}");
    }
}
