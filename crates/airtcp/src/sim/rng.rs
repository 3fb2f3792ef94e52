//! Random streams.
//!
//! Every component that draws random numbers owns an [`Rng`] derived from the run's master seed
//! and a stable component id (a string such as `"link/0/fwd/loss"`), so adding a component or
//! reordering draws in one component never changes the numbers another component sees.
//!
//! Generator: xoshiro256++ (Blackman & Vigna, 2019), seeded through SplitMix64 as its authors
//! recommend. Written out here rather than taken from a crate so that the streams can never change
//! with a dependency upgrade.

/// SplitMix64 step (Steele, Lea & Flood 2014): a bijective mixer used for seeding.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a 64-bit hash of a component id: stable across platforms and Rust versions.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A xoshiro256++ random stream.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream of component `component` in a run with master seed `seed`.
    pub fn stream(seed: u64, component: &str) -> Rng {
        let mut sm = seed ^ fnv1a(component.as_bytes()).rotate_left(17);
        // Mix twice so that nearby seeds give unrelated streams.
        sm = splitmix64(&mut sm);
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// A short stream keyed by integers (e.g. link end points and a time epoch), for values that
    /// must be the same whenever they are asked for, in any order: block-fading gains.
    pub fn keyed(seed: u64, keys: &[u64]) -> Rng {
        let mut sm = seed ^ 0x6A09_E667_F3BC_C908;
        for &k in keys {
            sm ^= splitmix64(&mut sm.wrapping_add(k));
            sm = sm
                .rotate_left(29)
                .wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`. `p <= 0` never, `p >= 1` always (and no draw is wasted on
    /// those, so a lossless link consumes no randomness).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.uniform() < p
        }
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the log is finite.
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(1, "link/0");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(1, "link/0");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        let mut other = Rng::stream(1, "link/1");
        assert_ne!(a[0], other.next_u64());
        let mut other_seed = Rng::stream(2, "link/0");
        assert_ne!(a[0], other_seed.next_u64());
    }

    #[test]
    fn uniform_mean_and_bernoulli_rate() {
        let mut r = Rng::stream(7, "test");
        let n = 200_000;
        let mean = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        let hits = (0..n).filter(|_| r.bernoulli(0.01)).count() as f64 / n as f64;
        assert!((hits - 0.01).abs() < 0.001, "rate {hits}");
        assert!(!r.bernoulli(0.0));
        assert!(r.bernoulli(1.0));
    }
}
