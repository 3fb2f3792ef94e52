//! How many transmissions a coded block needs over an erasure channel, with a margin: shared by
//! the priority pairs' channel-aware sharing (`net::forwarding`) and TCP-RLC's slotted model of
//! Theorem 3 (Ryu, Bhadra & Shakkottai, Allerton 2009, §II-G), which both hand each flow its
//! quota of a router's capacity before any surplus.

/// The transmissions a block of `size` needs at success probability `p` with `kappa` standard
/// deviations of margin: ceil((B + kappa sqrt(B (1 - p))) / p), the mean B/p of the
/// transmissions that B successes take (negative binomial) plus `kappa` times their standard
/// deviation sqrt(B (1 - p)) / p. Unbounded (u64::MAX) when p = 0.
pub fn quota(size: u32, p: f64, kappa: f64) -> u64 {
    if p <= 0.0 {
        return u64::MAX;
    }
    let b = size as f64;
    let n = (b + kappa * (b * (1.0 - p).max(0.0)).sqrt()) / p;
    if n >= u64::MAX as f64 {
        u64::MAX
    } else {
        n.ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quota_matches_the_spec_example() {
        // B = 10 at p = 0.5, kappa 2: (10 + 2 sqrt(5)) / 0.5 = 28.94 -> 29; at p = 1: 10.
        assert_eq!(quota(10, 0.5, 2.0), 29);
        assert_eq!(quota(10, 1.0, 2.0), 10);
        assert_eq!(quota(10, 0.0, 2.0), u64::MAX);
    }
}
