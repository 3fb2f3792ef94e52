//! The finite fields a linear decoder can work in, behind one trait: GF(2^8) ([`super::gf256`],
//! the NC layer's) and GF(8191) ([`super::gf8191`], TCP-RLC's). A decoder generic over [`Field`]
//! does the same elimination in either; only the element type and the row kernels differ.
//!
//! Coefficients travel as a 64-bit seed rather than as a vector (TCP-RLC's blocks reach hundreds
//! of packets, and 13-bit coefficients for each would outgrow a 256-byte packet):
//! [`coefficients_from_seed`] regenerates the same uniform vector, zero included, at both ends.

use super::{gf256, gf8191};

/// A finite field for linear coding: its order, element type and the row operations of
/// Gauss-Jordan elimination.
pub trait Field {
    /// One element.
    type Elem: Copy + Eq + Default + std::fmt::Debug;
    /// The number of elements, q.
    const ORDER: u32;
    /// The field's name in results and errors.
    const NAME: &'static str;
    /// Zero and one.
    const ZERO: Self::Elem;
    /// The multiplicative identity.
    const ONE: Self::Elem;
    /// The element with integer label `v` (`v < ORDER`).
    fn from_u32(v: u32) -> Self::Elem;
    /// `a * b`.
    fn mul(a: Self::Elem, b: Self::Elem) -> Self::Elem;
    /// The inverse of a non-zero element.
    fn inv(a: Self::Elem) -> Self::Elem;
    /// `dst -= factor * src`, element-wise.
    fn mul_sub(dst: &mut [Self::Elem], src: &[Self::Elem], factor: Self::Elem);
    /// `row *= factor`, element-wise.
    fn scale(row: &mut [Self::Elem], factor: Self::Elem);
}

/// GF(2^8) with the polynomial 0x11D.
#[derive(Debug, Clone, Copy)]
pub struct Gf256;

/// GF(8191), the integers modulo the Mersenne prime 2^13 - 1.
#[derive(Debug, Clone, Copy)]
pub struct Gf8191;

impl Field for Gf256 {
    type Elem = u8;
    const ORDER: u32 = 256;
    const NAME: &'static str = "gf256";
    const ZERO: u8 = 0;
    const ONE: u8 = 1;
    fn from_u32(v: u32) -> u8 {
        v as u8
    }
    fn mul(a: u8, b: u8) -> u8 {
        gf256::mul(a, b)
    }
    fn inv(a: u8) -> u8 {
        gf256::inv(a)
    }
    fn mul_sub(dst: &mut [u8], src: &[u8], factor: u8) {
        // Characteristic 2: subtraction is addition.
        gf256::mul_acc(dst, src, factor);
    }
    fn scale(row: &mut [u8], factor: u8) {
        gf256::scale(row, factor);
    }
}

impl Field for Gf8191 {
    type Elem = u16;
    const ORDER: u32 = gf8191::ORDER as u32;
    const NAME: &'static str = "gf8191";
    const ZERO: u16 = 0;
    const ONE: u16 = 1;
    fn from_u32(v: u32) -> u16 {
        v as u16
    }
    fn mul(a: u16, b: u16) -> u16 {
        gf8191::mul(a, b)
    }
    fn inv(a: u16) -> u16 {
        gf8191::inv(a)
    }
    fn mul_sub(dst: &mut [u16], src: &[u16], factor: u16) {
        gf8191::mul_sub(dst, src, factor);
    }
    fn scale(row: &mut [u16], factor: u16) {
        gf8191::scale(row, factor);
    }
}

/// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014): a tiny generator both ends run from the seed a
/// coded packet carries. Not the simulation's stream: the sender draws the seed from that.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Fills `out` with the coefficient vector of `seed`: i.i.d. uniform over the field, zero
/// included (the paper's draw). Uniform exactly: draws at or above the largest multiple of q
/// below 2^64 are rejected.
pub fn coefficients_from_seed<F: Field>(seed: u64, out: &mut [F::Elem]) {
    let q = F::ORDER as u64;
    let limit = u64::MAX - u64::MAX % q;
    let mut gen = SplitMix64(seed);
    for c in out.iter_mut() {
        let v = loop {
            let x = gen.next();
            if x < limit {
                break x % q;
            }
        };
        *c = F::from_u32(v as u32);
    }
}

/// A uniform draw in [0, 1) that `seed` stands for, independent of its coefficient vector: what
/// the counting decoder compares with q^-m for the coded packet of that seed, so that the packet
/// is innovative or not whichever receiver counts it, with no stream of the receiver's own.
pub fn uniform_from_seed(seed: u64) -> f64 {
    // A different start than the coefficients' generator, so the two are unrelated.
    let x = SplitMix64(seed ^ 0x5851_F42D_4C95_7F2D).next();
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_regenerate_the_same_vector_and_differ_between_seeds() {
        let mut a = [0u16; 200];
        let mut b = [0u16; 200];
        coefficients_from_seed::<Gf8191>(42, &mut a);
        coefficients_from_seed::<Gf8191>(42, &mut b);
        assert_eq!(a, b);
        coefficients_from_seed::<Gf8191>(43, &mut b);
        assert_ne!(a, b);
        assert!(a.iter().all(|&c| c < gf8191::ORDER));
    }

    #[test]
    fn coefficients_are_uniform_over_the_field() {
        // 256 cells of GF(2^8), 2^20 draws: each count is Binomial(2^20, 1/256), sd about 64.
        let mut counts = [0u32; 256];
        let mut row = [0u8; 1024];
        for seed in 0..1024 {
            coefficients_from_seed::<Gf256>(seed, &mut row);
            for &c in &row {
                counts[c as usize] += 1;
            }
        }
        let expected = (1024 * 1024 / 256) as f64;
        for (value, &n) in counts.iter().enumerate() {
            assert!(
                (n as f64 - expected).abs() < 6.0 * expected.sqrt(),
                "value {value}: {n}"
            );
        }
        // Zero is drawn too (the paper's draw includes it).
        assert!(counts[0] > 0);
    }

    #[test]
    fn both_fields_invert_and_eliminate_alike() {
        fn check<F: Field>() {
            let one = F::ONE;
            for v in 1..F::ORDER.min(5000) {
                let a = F::from_u32(v);
                assert_eq!(F::mul(a, F::inv(a)), one, "{}: {v}", F::NAME);
            }
            let src = [F::from_u32(3), F::from_u32(5), F::ZERO];
            let mut dst = src;
            F::mul_sub(&mut dst, &src, one);
            assert_eq!(dst, [F::ZERO; 3]);
        }
        check::<Gf256>();
        check::<Gf8191>();
    }
}
